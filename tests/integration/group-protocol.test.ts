// Which group protocol a consumer ends up with on a real broker. Kafka 3.7–3.9 list
// ConsumerGroupHeartbeat in ApiVersions but, unless the broker enables KIP-848
// (group.coordinator.rebalance.protocols), answer it UNSUPPORTED_VERSION: a consumer that
// left groupProtocol to us must fall back to classic and say so, and one that asked for
// 'consumer' must fail saying what to do. A 4.4 broker runs KIP-848 by default.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { GroupProtocolUnsupportedError } from '../../group/errors'
import { GroupConsumer } from '../../group/group-consumer'
import type { KafkaTsError } from '../../protocol/errors'
import { sharedBootstrap, startCluster, type KafkaCluster } from '../broker/kafka'
import { requireJavaOrSkip, uniqueName } from './support'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : requireJavaOrSkip()

async function firstBatch (consumer: GroupConsumer, timeoutMs: number): Promise<string> {
  let got = 0
  const running = consumer.run({ eachBatch: batch => { got += batch.records.length } }).then(() => 'ended', (error: Error) => `failed: ${error.message}`)
  const deadline = Date.now() + timeoutMs
  while (got === 0 && Date.now() < deadline) {
    const outcome = await Promise.race([running, new Promise<undefined>(resolve => setTimeout(() => resolve(undefined), 100))])
    if (outcome !== undefined) return outcome
  }
  return got > 0 ? `got ${got}` : 'nothing'
}

describe('group protocol on Kafka 3.9 (KIP-848 listed, not enabled) and 4.4', { skip, timeout: 240_000 }, () => {
  let cluster: KafkaCluster | undefined
  let old: Client
  let topic: string

  before(async () => {
    cluster = await startCluster({ version: '3.9.1', portBase: 'free' })
    old = new Client({ bootstrap: cluster.bootstrap, clientId: 'kafka-3.9' })
    topic = uniqueName('protocol')
    await old.admin.createTopics([{ topic, numPartitions: 1 }])
    await old.metadata.waitForTopic(topic, 30_000)
    await old.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }] })
  })

  after(async () => {
    await old?.close()
    await cluster?.stop()
  })

  test('3.9, groupProtocol left out: classic, with a warning that says why', async () => {
    const consumer = new GroupConsumer(old, { groupId: uniqueName('g-default'), topics: [topic], fromBeginning: true })
    const warnings: KafkaTsError[] = []
    consumer.on('warning', w => { warnings.push(w as KafkaTsError) })
    try {
      assert.equal(await firstBatch(consumer, 60_000), 'got 2')
      assert.equal(consumer.groupProtocol, 'classic')
      const fallback = warnings.find(w => w.kind === 'GROUP_PROTOCOL_FALLBACK')
      assert.ok(fallback !== undefined, `warnings: ${warnings.map(w => w.message).join(' | ')}`)
      assert.match(fallback.message, /UNSUPPORTED_VERSION/)
    } finally {
      await consumer.close()
    }
  })

  test('3.9, groupProtocol: \'consumer\': fails with GroupProtocolUnsupportedError naming groupProtocol: \'classic\' and the broker setting', async () => {
    const consumer = new GroupConsumer(old, { groupId: uniqueName('g-explicit'), topics: [topic], groupProtocol: 'consumer', fromBeginning: true })
    let error: unknown
    consumer.on('error', e => { error = e })
    try {
      const outcome = await firstBatch(consumer, 30_000)
      assert.match(outcome, /^failed: /)
      assert.ok(error instanceof GroupProtocolUnsupportedError, String(error))
      assert.equal(error.code, 35)
      assert.match(error.message, /groupProtocol: 'classic'/)
      assert.match(error.message, /group\.coordinator\.rebalance\.protocols/)
    } finally {
      await consumer.close()
    }
  })

  test('4.4, groupProtocol left out: KIP-848, no warning', async () => {
    const client = new Client({ bootstrap: bootstrap!, clientId: 'kafka-4.4' })
    const newTopic = uniqueName('protocol-44')
    await client.admin.createTopics([{ topic: newTopic, numPartitions: 1 }])
    await client.metadata.waitForTopic(newTopic, 30_000)
    await client.produceRaw({ topic: newTopic, partition: 0, records: [{ value: Buffer.from('a') }] })
    const consumer = new GroupConsumer(client, { groupId: uniqueName('g-44'), topics: newTopic, fromBeginning: true })
    const warnings: Error[] = []
    consumer.on('warning', (w: Error) => { warnings.push(w) })
    try {
      assert.equal(await firstBatch(consumer, 60_000), 'got 1')
      assert.equal(consumer.groupProtocol, 'consumer')
      assert.deepEqual(warnings.map(w => w.message), [])
    } finally {
      await consumer.close()
      await client.close()
    }
  })
})

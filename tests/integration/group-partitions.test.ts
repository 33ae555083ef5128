// A subscribed topic gains partitions on a real broker: the group must take the new
// partition in without a restart. Under the classic protocol no broker tells the group:
// the leader notices the new count in its metadata and rejoins (as the Java client does);
// under KIP-848 the coordinator sees it and hands out a new target. A record written to the
// new partition is consumed either way.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { GroupConsumer, type RebalancingEvent } from '../../group/group-consumer'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false

describe('a subscribed topic gaining partitions', { skip, timeout: 120_000 }, () => {
  let client: Client

  before(() => {
    // Metadata at most 1 s old, so the classic leader sees the new count soon.
    client = new Client({ bootstrap: bootstrap!, clientId: 'group-partitions', metadataMaxAgeMs: 1000 })
  })

  after(async () => {
    await client?.close()
  })

  for (const groupProtocol of ['classic', 'consumer'] as const) {
    test(`${groupProtocol}: the member is assigned the new partition and consumes the record written to it`, async () => {
      const topic = uniqueName('grow')
      await client.admin.createTopics([{ topic, numPartitions: 1 }])
      await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('first') }] })
      const consumer = new GroupConsumer(client, { groupId: uniqueName('g-grow'), topics: [topic], groupProtocol, fromBeginning: true, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 300 })
      const received: Array<{ partition: number, value: string }> = []
      const rebalancing: RebalancingEvent[] = []
      consumer.on('rebalancing', event => rebalancing.push(event))
      const done = consumer.run({ eachBatch: batch => { for (const r of batch.records) received.push({ partition: batch.partition, value: r.value!.toString() }) } })
      try {
        await waitFor('the record of partition 0', async () => received.length > 0 ? true : undefined, { intervalMs: 200 })
        await client.admin.createPartitions([{ topic, count: 2 }])
        await waitFor('partition 1 in the assignment', async () => consumer.assignment().some(p => p.topic === topic && p.partition === 1) ? true : undefined, { timeoutMs: 60_000, intervalMs: 200 })
        await client.produceRaw({ topic, partition: 1, records: [{ value: Buffer.from('second') }] })
        await waitFor('the record of partition 1', async () => received.some(r => r.partition === 1) ? true : undefined, { intervalMs: 200 })
        assert.deepEqual(received, [{ partition: 0, value: 'first' }, { partition: 1, value: 'second' }])
        if (groupProtocol === 'classic') assert.ok(rebalancing.some(e => /gained partitions/.test(e.reason)), `no rebalancing for the new partition: ${JSON.stringify(rebalancing)}`)
      } finally {
        await consumer.close()
        await done
        await client.admin.deleteTopics([topic])
      }
    })
  }
})

// kafkats/testing is a Kafka on the wire: the same produce / group consume / commit program
// runs against it with npm kafkajs 2.2.4 and with kafkats, and the fake's own view (log,
// committed offsets, group) agrees with what each client reported.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, apis, errorCode } from '../../index'
import { FakeCluster } from '../../testing/index'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkajs = require('kafkajs')

const RECORDS = 20

test('kafkajs 2.2.4 produces, consumes in a group and commits against FakeCluster', { timeout: 60_000 }, async () => {
  const cluster = await FakeCluster.start({ brokers: 2, topics: [{ name: 'orders', partitions: 2 }] })
  const kafka = new kafkajs.Kafka({ brokers: cluster.bootstrap, clientId: 'kjs', logLevel: 0, retry: { retries: 3, initialRetryTime: 50 } })
  const producer = kafka.producer()
  const consumer = kafka.consumer({ groupId: 'g-kjs', sessionTimeout: 6000, heartbeatInterval: 500 })
  try {
    await producer.connect()
    const sent = await producer.send({ topic: 'orders', messages: Array.from({ length: RECORDS }, (_, i) => ({ key: `k${i % 5}`, value: `v${i}` })) })
    assert.equal(sent.reduce((n: number, r: { partition: number }) => n + (r.partition >= 0 ? 1 : 0), 0) > 0, true)

    await consumer.connect()
    await consumer.subscribe({ topic: 'orders', fromBeginning: true })
    const seen: string[] = []
    const done = new Promise<void>(resolve => {
      void consumer.run({
        eachMessage: async ({ message }: { message: { value: Buffer } }) => {
          seen.push(message.value.toString())
          if (seen.length === RECORDS) resolve()
        }
      })
    })
    await done
    await consumer.disconnect() // commits what was processed

    assert.deepEqual([...seen].sort(), Array.from({ length: RECORDS }, (_, i) => `v${i}`).sort())
    const inLog = [0, 1].flatMap(p => cluster.log('orders', p).map(r => r.value?.toString()))
    assert.deepEqual(inLog.sort(), [...seen].sort())
    for (const p of [0, 1]) {
      assert.equal(cluster.committedOffset('g-kjs', 'orders', p)?.offset ?? 0n, cluster.highWatermark('orders', p), `partition ${p} committed to its end`)
    }
    assert.equal(cluster.group('g-kjs')?.protocol, 'classic')
    assert.deepEqual(cluster.problems, [])
  } finally {
    await producer.disconnect()
    await cluster.close()
  }
})

test('kafkats produces, consumes in a group (KIP-848) and commits against FakeCluster; an injected error is retried', { timeout: 60_000 }, async () => {
  const cluster = await FakeCluster.start({ brokers: 2, topics: [{ name: 'orders', partitions: 2 }] })
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'kts', retryBackoff: { initialMs: 10, maxMs: 50 } })
  try {
    // The first Produce is written, then answered NOT_ENOUGH_REPLICAS_AFTER_APPEND: the
    // producer retries it and the broker deduplicates, so every record is in the log once.
    cluster.intercept(0, () => ({ error: 20, apply: true }), { times: 1 })
    const producer = client.producer({ lingerMs: 5 })
    const results = await Promise.all(Array.from({ length: RECORDS }, (_, i) => producer.send({ topic: 'orders', key: `k${i % 5}`, value: `v${i}` })))
    await producer.close()
    const inLog = [0, 1].flatMap(p => cluster.log('orders', p).map(r => `${p}:${r.offset}:${r.value?.toString()}`))
    assert.deepEqual(inLog.sort(), results.map((r, i) => `${r.partition}:${r.offset}:v${i}`).sort())
    assert.equal(cluster.requests(0).filter(r => r.action === 'error').length, 1)

    const consumer = client.consumer({ groupId: 'g-kts', topics: ['orders'], fromBeginning: true })
    const seen: string[] = []
    // A break would leave the last batch unprocessed (read again); the signal ends the loop at its next batch, with this one processed.
    const allSeen = new AbortController()
    for await (const batch of consumer.batches({ signal: allSeen.signal })) {
      for (const record of batch.records) seen.push(record.value?.toString() ?? '')
      if (seen.length >= RECORDS) allSeen.abort()
    }
    await consumer.close()
    assert.deepEqual(seen.sort(), Array.from({ length: RECORDS }, (_, i) => `v${i}`).sort())
    for (const p of [0, 1]) assert.equal(cluster.committedOffset('g-kts', 'orders', p)?.offset, cluster.highWatermark('orders', p))
    assert.equal(cluster.group('g-kts')?.protocol, 'consumer')
    assert.deepEqual(cluster.problems, [])
  } finally {
    await client.close()
    await cluster.close()
  }
})

test('the README example: a Produce written then answered REQUEST_TIMED_OUT is retried and deduplicated', async () => {
  const cluster = await FakeCluster.start({ brokers: 3, topics: [{ name: 't', partitions: 2, replicationFactor: 2 }] })
  const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 } })
  try {
    cluster.intercept(apis.Produce, () => ({ error: errorCode('REQUEST_TIMED_OUT'), apply: true }), { times: 1 })
    const producer = client.producer()
    await producer.send({ topic: 't', partition: 0, value: 'a' })
    await producer.close()
    assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['a'])
    assert.deepEqual(cluster.produceAttempts('t', 0).map(a => [a.producerEpoch, a.baseSequence]), [[0, 0], [0, 0]])
    assert.deepEqual(cluster.problems, [])
  } finally {
    await client.close()
    await cluster.close()
  }
})

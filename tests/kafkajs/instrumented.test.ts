// What instrumentations built for kafkajs (@opentelemetry/instrumentation-kafkajs) rely on, on
// the fake cluster: they wrap a producer's own send and sendBatch (a send must be one call of
// one of them), and kafkajs's factory modules, which the stand-in package named kafkajs
// (packages/kafkajs-standin) sets on Kafka, to map each client to its cluster and read the
// cluster id. tests/integration/kafkajs-standin.test.ts runs the real instrumentation.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Kafka, logLevel } from '../../kafkajs/index'
import { FakeCluster } from '../../testing/index'
import { repoRoot } from '../broker/kafka'
import { waitFor } from '../support/wait'

async function withCluster (body: (cluster: FakeCluster, kafka: Kafka) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 1 }] })
  try {
    await body(cluster, new Kafka({ brokers: cluster.bootstrap, clientId: 'kjs-instrumented', logLevel: logLevel.NOTHING }))
  } finally {
    await cluster.close()
  }
}

test('send() is one send for code that wraps the producer\'s send and sendBatch (as the OpenTelemetry instrumentation does): it does not call the public sendBatch', async () => {
  await withCluster(async (_cluster, kafka) => {
    const producer = kafka.producer()
    const calls: string[] = []
    for (const name of ['send', 'sendBatch'] as const) {
      const original = producer[name] as (...args: unknown[]) => Promise<unknown>
      // Own properties over the prototype's methods, as shimmer-based instrumentations set them.
      Object.defineProperty(producer, name, { configurable: true, writable: true, value: function (this: unknown, ...args: unknown[]) { calls.push(name); return original.apply(this, args) } })
    }
    await producer.connect()
    await producer.send({ topic: 't', messages: [{ value: 'a' }] })
    assert.deepEqual(calls, ['send'], 'send() went through the public sendBatch: instrumentations count its message twice')
    await producer.sendBatch({ topicMessages: [{ topic: 't', messages: [{ value: 'b' }] }] })
    assert.deepEqual(calls, ['send', 'sendBatch'])
    await producer.disconnect()
  })
})

/** The key the stand-in sets kafkajs's factory modules under (packages/kafkajs-standin/index.js). */
const MODULES = Symbol.for('kafkats.kafkajs.modules')

interface ClusterView { brokerPool: { metadata: { clusterId: string | undefined } | null } }

test('kafkajs\'s factory modules, once the stand-in sets them, make each producer and consumer and get its cluster: the cluster id once its client learnt it, as kafkajs\'s Cluster gives it', async () => {
  const source = fs.readFileSync(path.join(repoRoot(), 'packages', 'kafkajs-standin', 'index.js'), 'utf8')
  assert.ok(source.includes(`Symbol.for('${MODULES.description ?? ''}')`), 'the stand-in sets its modules under another key than kafkats/kafkajs reads')
  await withCluster(async (_cluster, kafka) => {
    const clusterId = 'fake-cluster' // the fake cluster's (testing/state.ts), in its Metadata answers
    // What @opentelemetry/instrumentation-kafkajs's wrapper of the modules does: map the client to params.cluster.
    const clusters = new Map<unknown, ClusterView>()
    const instrumented = (params: { cluster: ClusterView, make: () => unknown }): unknown => {
      const client = params.make()
      clusters.set(client, params.cluster)
      return client
    }
    const slots = Kafka as unknown as Record<symbol, unknown>
    slots[MODULES] = { producer: instrumented, consumer: instrumented }
    try {
      const producer = kafka.producer()
      const consumer = kafka.consumer({ groupId: 'g', heartbeatInterval: 100, sessionTimeout: 3000, maxWaitTimeInMs: 100 })
      assert.ok(clusters.has(producer), 'the producer was not made through the stand-in\'s src/producer module')
      assert.ok(clusters.has(consumer), 'the consumer was not made through the stand-in\'s src/consumer module')
      assert.equal(clusters.get(producer)?.brokerPool.metadata, null, 'a cluster before its client connected')

      await producer.connect()
      await producer.send({ topic: 't', messages: [{ value: 'a' }] })
      assert.equal(clusters.get(producer)?.brokerPool.metadata?.clusterId, clusterId)

      let consumed = 0
      await consumer.connect()
      await consumer.subscribe({ topic: 't', fromBeginning: true })
      await consumer.run({ eachMessage: async () => { consumed++ } })
      await waitFor('the record consumed', () => consumed === 1)
      assert.equal(clusters.get(consumer)?.brokerPool.metadata?.clusterId, clusterId)
      await consumer.disconnect()
      await producer.disconnect()
    } finally {
      delete slots[MODULES]
    }
    // Without the stand-in, Kafka makes its clients itself.
    const direct = kafka.producer()
    await direct.connect()
    assert.deepEqual((await direct.send({ topic: 't', messages: [{ value: 'b' }] })).map(r => r.partition), [0])
    await direct.disconnect()
  })
})

test('the stand-in package: kafkajs 2.2.4\'s API (the version kafkats/kafkajs follows) made with this kafkats, and its peer range takes this kafkats', () => {
  const read = (file: string): { version: string, devDependencies?: Record<string, string>, peerDependencies?: Record<string, string> } => JSON.parse(fs.readFileSync(path.join(repoRoot(), file), 'utf8'))
  const kafkats = read('package.json')
  const standin = read('packages/kafkajs-standin/package.json')
  assert.equal(standin.version, `${kafkats.devDependencies?.kafkajs ?? ''}+kafkats.${kafkats.version}`, 'the stand-in\'s version: kafkajs\'s version it stands for, + kafkats.<the kafkats version it is packed with>')
  assert.equal(standin.peerDependencies?.kafkats, `^${kafkats.version}`)
})

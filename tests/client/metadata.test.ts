// The metadata cache against the fake cluster: a topic is its topic id, partitions are
// stored densely and inconsistent answers refused, one topic's error stays that topic's,
// and a leaderless partition holds up only itself.
import { afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { ConnectionError } from '../../client/errors'
import { Consumer } from '../../consumer/consumer'
import { Metadata } from '../../protocol/apis/metadata'
import { BrokerError, ProtocolError } from '../../protocol/errors'
import { FakeCluster } from '../../testing/index'
import { closedPort } from '../support/ports'

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
})

async function setup (brokers: number, topics: Array<{ name: string, partitions: number, replicationFactor?: number }>): Promise<{ cluster: FakeCluster, client: Client }> {
  const cluster = await FakeCluster.start({ log: false, brokers, topics })
  cleanups.push(async () => await cluster.close())
  const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 2000 })
  cleanups.push(async () => await client.close())
  return { cluster, client }
}

type MetadataBody = Awaited<ReturnType<typeof Metadata.decodeResponse>>
/** Rewrites the answers about `topic` from now on. */
function rewriteTopic (cluster: FakeCluster, topic: string, change: (t: MetadataBody['topics'][number]) => MetadataBody['topics'][number]): () => void {
  return cluster.intercept(Metadata, () => ({ modify: (r: MetadataBody) => ({ ...r, topics: r.topics.map(t => t.name === topic ? change(t) : t) }) }))
}

describe('metadata cache', () => {
  test('refresh() with no broker reachable fails within requestTimeoutMs, naming the broker tried and its connection error', { timeout: 15_000 }, async () => {
    // One bootstrap broker: its round of tries ended with each attempt, and the refresh retried forever.
    const port = await closedPort()
    const client = new Client({ bootstrap: `127.0.0.1:${port}`, requestTimeoutMs: 500, retryBackoff: { initialMs: 10, maxMs: 50 } })
    cleanups.push(async () => await client.close())
    const started = Date.now()
    const outcome = await Promise.race([
      client.metadata.refresh().then(() => 'answered', (error: unknown) => error),
      new Promise(resolve => setTimeout(() => resolve('still waiting after 10 s'), 10_000).unref())
    ])
    const elapsed = Date.now() - started
    assert.ok(outcome instanceof ConnectionError, String(outcome))
    assert.ok(elapsed < 5_000, `failed after ${elapsed} ms (requestTimeoutMs 500)`)
    assert.match(outcome.message, new RegExp(`^broker 127\\.0\\.0\\.1:${port}: Metadata reached no broker within 500 ms \\(requestTimeoutMs\\): \\d+ attempt\\(s\\) to 127\\.0\\.0\\.1:${port};`))
    assert.match(outcome.message, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`))
    assert.match(outcome.message, /Check that the bootstrap addresses are right/)
    assert.ok(outcome.cause instanceof ConnectionError, 'the last connection error is the cause')
    assert.equal(outcome.written, false)
  })

  test('refresh() with two unreachable brokers names both in its error', { timeout: 15_000 }, async () => {
    const ports = [await closedPort(), await closedPort()]
    const client = new Client({ bootstrap: ports.map(p => `127.0.0.1:${p}`), requestTimeoutMs: 500, retryBackoff: { initialMs: 10, maxMs: 50 } })
    cleanups.push(async () => await client.close())
    await assert.rejects(client.metadata.refresh(), (error: unknown) => {
      assert.ok(error instanceof ConnectionError, String(error))
      for (const port of ports) assert.ok(error.broker.includes(`127.0.0.1:${port}`), error.broker)
      assert.match(error.message, /ECONNREFUSED/)
      return true
    })
  })

  test('a topic deleted and re-created under its name takes the new topic id\'s leaders and epochs', async () => {
    // 'old' plays the topic before the delete (leader epoch 4 after four moves), 'new' the re-created one (epoch 0).
    const { cluster, client } = await setup(2, [{ name: 'old', partitions: 1, replicationFactor: 2 }, { name: 'new', partitions: 1, replicationFactor: 2 }])
    for (const leader of [2, 1, 2, 1]) cluster.moveLeader('old', 0, leader)
    await client.metadata.refresh(['old'])
    assert.equal(client.metadata.partition('old', 0)?.leaderEpoch, 4)
    const oldId = client.metadata.topic('old')!.topicId
    const recreated = cluster.partitionInfo('new', 0)
    rewriteTopic(cluster, 'old', t => ({ ...t, topicId: cluster.topicId('new'), partitions: t.partitions.map(p => ({ ...p, leaderId: 2, leaderEpoch: 0 })) }))
    await client.metadata.refresh(['old'])
    const seen = client.metadata.partition('old', 0)
    assert.deepEqual({ topicId: client.metadata.topic('old')?.topicId, leader: seen?.leaderId, epoch: seen?.leaderEpoch }, { topicId: cluster.topicId('new'), leader: 2, epoch: 0 },
      `the broker said leader 2 epoch 0 for the new topic id (the fake's own: leader ${recreated.leader})`)
    assert.equal(client.metadata.topicById(oldId), undefined, 'the old topic id still resolves')
    assert.equal(client.metadata.topicById(cluster.topicId('new'))?.name, 'old')
  })

  test('within one topic id an older leader epoch is still ignored (KIP-320)', async () => {
    const { cluster, client } = await setup(2, [{ name: 't', partitions: 1, replicationFactor: 2 }])
    for (const leader of [2, 1]) cluster.moveLeader('t', 0, leader)
    await client.metadata.refresh(['t'])
    rewriteTopic(cluster, 't', t => ({ ...t, partitions: t.partitions.map(p => ({ ...p, leaderId: 2, leaderEpoch: 1 })) }))
    await client.metadata.refresh(['t'])
    assert.deepEqual([client.metadata.partition('t', 0)?.leaderId, client.metadata.partition('t', 0)?.leaderEpoch], [1, 2])
  })

  test('a partition index of 2147483647 is refused with a ProtocolError at once, and the cache keeps its dense view', async () => {
    const { cluster, client } = await setup(1, [{ name: 't', partitions: 2 }])
    await client.metadata.refresh(['t'])
    const remove = rewriteTopic(cluster, 't', t => ({ ...t, partitions: t.partitions.map(p => p.partitionIndex === 1 ? { ...p, partitionIndex: 2147483647 } : p) }))
    const started = Date.now()
    await assert.rejects(client.metadata.refresh(['t']), (error: unknown) => {
      assert.ok(error instanceof ProtocolError, String(error))
      assert.match((error as Error).message, /topic "t" lists 2 partitions but has partition number 2147483647: partitions must be numbered 0 to 1/)
      return true
    })
    assert.ok(Date.now() - started < 1000, `refused after ${Date.now() - started} ms`)
    assert.equal(client.metadata.topic('t')?.partitions.length, 2)
    // A keyed walk over the partitions stays cheap: the array is dense.
    assert.deepEqual(Object.keys(client.metadata.topic('t')!.partitions), ['0', '1'])
    remove()
    rewriteTopic(cluster, 't', t => ({ ...t, partitions: t.partitions.map(p => ({ ...p, partitionIndex: 0 })) }))
    await assert.rejects(client.metadata.refresh(['t']), /has partition number 0 twice/)
  })

  test('one topic\'s TOPIC_AUTHORIZATION_FAILED fails only that topic\'s waiters, and the topic is no longer tracked', async () => {
    const { cluster, client } = await setup(1, [{ name: 't', partitions: 1 }, { name: 'secret', partitions: 1 }])
    rewriteTopic(cluster, 'secret', t => ({ ...t, errorCode: 29, partitions: [] }))
    const started = Date.now()
    await assert.rejects(client.metadata.waitForTopic('secret', 5000), (error: unknown) => error instanceof BrokerError && error.code === 29 && /Metadata for topic "secret"/.test(error.message))
    assert.ok(Date.now() - started < 1000, `waitForTopic('secret') failed after ${Date.now() - started} ms, not at once`)
    // Every later refresh (for other topics) succeeds, and does not ask about 'secret' again.
    cluster.clearRequests()
    await client.metadata.refresh(['t'])
    const asked = cluster.requests(Metadata).flatMap(r => (r.request.topics ?? []).map(t => t.name))
    assert.deepEqual(asked, ['t'])
    assert.equal((await client.metadata.waitForTopic('t', 1000)).name, 't')
    // A direct consumer of 't' on the same client starts.
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 50 })
    cleanups.push(async () => await consumer.close())
    assert.equal((await consumer.nextBatch())?.batch.records.length, 1)
    // Asked about again, the topic gets a fresh answer.
    cluster.clearInterceptors()
    assert.equal((await client.metadata.waitForTopic('secret', 1000)).name, 'secret')
  })

  test('a leaderless partition does not hold up the topic: the others are usable, it waits on its own', async () => {
    const { cluster, client } = await setup(2, [{ name: 't', partitions: 2, replicationFactor: 1 }])
    const remove = rewriteTopic(cluster, 't', t => ({ ...t, partitions: t.partitions.map(p => p.partitionIndex === 1 ? { ...p, errorCode: 5, leaderId: -1 } : p) }))
    const started = Date.now()
    const topic = await client.metadata.waitForTopic('t', 3000)
    assert.ok(Date.now() - started < 1000, `waitForTopic took ${Date.now() - started} ms`)
    assert.deepEqual(topic.partitions.map(p => p.leaderId >= 0), [true, false])
    const offset = await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('p0') }] })
    assert.equal(offset.baseOffset, 0n)
    // Partition 1 waits for its leader, and gets it once there is one.
    let settled = false
    const p1 = client.produceRaw({ topic: 't', partition: 1, records: [{ value: Buffer.from('p1') }] }).finally(() => { settled = true })
    await new Promise(resolve => setTimeout(resolve, 300))
    assert.equal(settled, false, 'the leaderless partition did not wait')
    remove()
    assert.equal((await p1).baseOffset, 0n)
    await assert.rejects(client.metadata.waitForTopic('t', 1000, undefined, { allLeaders: true }).then(() => client.metadata.waitForLeader('t', 5, 100)), /has 2 partitions, there is no partition 5/)
  })
})

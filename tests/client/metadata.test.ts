// The metadata cache against the fake cluster: a topic is its topic id, partitions are
// stored densely and inconsistent answers refused, one topic's error stays that topic's,
// and a leaderless partition holds up only itself.
import { afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { AbortedError, ConnectionError, RequestTimeoutError, UnknownTopicError } from '../../client/errors'
import { Consumer } from '../../consumer/consumer'
import { Metadata } from '../../protocol/apis/metadata'
import { BrokerError } from '../../protocol/errors'
import { FakeClock, FakeCluster, withClock } from '../../testing/index'
import { closedPort } from '../support/ports'
import { outcomeWithin, waitFor } from '../support/wait'

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
})

/** `clock`: the client's; a FakeClock that the test does not move holds every retry and deadline, so what happens happens at once. */
async function setup (brokers: number, topics: Array<{ name: string, partitions: number, replicationFactor?: number }>, clock?: FakeClock): Promise<{ cluster: FakeCluster, client: Client }> {
  const cluster = await FakeCluster.start({ log: false, brokers, topics })
  cleanups.push(async () => await cluster.close())
  const options = { bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 2000 }
  const client = new Client(clock === undefined ? options : withClock(options, clock))
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
    const clock = new FakeClock()
    const client = new Client(withClock({ bootstrap: `127.0.0.1:${port}`, requestTimeoutMs: 500, retryBackoff: { initialMs: 10, maxMs: 50 } }, clock))
    cleanups.push(async () => await client.close())
    const started = clock.now()
    let outcome: unknown = 'still waiting'
    void client.metadata.refresh().then(() => 'answered', (error: unknown) => error).then(value => { outcome = value })
    // Each attempt is refused at once; the backoffs between them wait on the clock: move it
    // through them (up to 2 s, four times the deadline) until the refresh ends.
    const backoffWaits = (): boolean => (clock.nextDueAt ?? Infinity) - started <= 2000
    while (outcome === 'still waiting' && backoffWaits()) {
      await waitFor('the refresh to end or back off', () => outcome !== 'still waiting' || backoffWaits())
      if (outcome === 'still waiting') await clock.advance(Math.max(0, (clock.nextDueAt ?? clock.now()) - clock.now()))
    }
    await waitFor('the refresh to end', () => outcome !== 'still waiting')
    assert.ok(outcome instanceof ConnectionError, String(outcome))
    // Ended at the deadline, give or take the last backoff (maxMs 50) cut to it.
    assert.ok(clock.now() - started <= 500 + 50, `failed at ${clock.now() - started} ms on the client's clock (requestTimeoutMs 500)`)
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

  test('a refresh whose last attempt only ran out of the time its deadline left reports the earlier real failure, not that timeout', { timeout: 15_000 }, async () => {
    // Under load the last attempt of a refresh can start with 1 ms left; "no response within
    // 1 ms" then hid the real reason (the broker closed every connection). Here the first
    // Metadata loses its connection and the next is held: the retry has less than a full
    // request timeout before the deadline, so its no-answer says nothing about the broker.
    const { cluster } = await setup(1, [{ name: 't', partitions: 1 }])
    const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 400 })
    cleanups.push(async () => await client.close())
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    cleanups.push(async () => { release() })
    let seen = 0
    cluster.intercept(Metadata, () => seen++ === 0 ? { drop: 'before-apply' } : { hold: gate })
    await assert.rejects(client.metadata.refresh(), (error: unknown) => {
      assert.ok(seen >= 2, `the refresh retried (${seen} Metadata request(s))`)
      assert.ok(error instanceof ConnectionError && !(error instanceof RequestTimeoutError), String(error))
      assert.match(error.message, /Metadata reached no broker within 400 ms \(requestTimeoutMs\)/)
      assert.doesNotMatch(error.message, /had no response within/)
      return true
    })
  })

  /** The first Metadata request is held until `release()`; `held()` once it reached the broker. */
  function holdFirstMetadata (cluster: FakeCluster): { held: () => boolean, release: () => void } {
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    let seen = 0
    cluster.intercept(Metadata, () => seen++ === 0 ? { hold: gate } : undefined)
    return { held: () => seen > 0, release }
  }

  test('the refresh that follows a running one is shared: a caller whose deadline passed meanwhile does not cut it short for a caller with a later one', async () => {
    const { cluster, client } = await setup(1, [{ name: 't', partitions: 1 }])
    const first = holdFirstMetadata(cluster)
    const running = client.metadata.refresh()
    await waitFor('the first Metadata at the broker', first.held)
    const now = client.clock.now()
    const short = client.metadata.refresh(['t'], undefined, now + 100)
    const long = client.metadata.refresh(['t'], undefined, now + 30_000)
    await assert.rejects(short, RequestTimeoutError)
    first.release()
    await running
    await long
    assert.equal(client.metadata.topic('t')?.partitions.length, 1)
  })

  test('the refresh that follows a running one is shared: one caller\'s abort fails only that caller', async () => {
    const { cluster, client } = await setup(1, [{ name: 't', partitions: 1 }])
    const first = holdFirstMetadata(cluster)
    const running = client.metadata.refresh()
    await waitFor('the first Metadata at the broker', first.held)
    const abort = new AbortController()
    const aborted = client.metadata.refresh(['t'], abort.signal)
    const other = client.metadata.refresh(['t'], undefined, client.clock.now() + 30_000)
    abort.abort(new Error('the caller gave up'))
    await assert.rejects(aborted, (error: unknown) => error instanceof AbortedError && /the caller gave up/.test(error.message))
    first.release()
    await running
    await other
    assert.equal(client.metadata.topic('t')?.partitions.length, 1)
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
    // The clock stands still: a retry would wait on it for ever, so a refusal is a refusal at once.
    const { cluster, client } = await setup(1, [{ name: 't', partitions: 2 }], new FakeClock())
    await client.metadata.refresh(['t'])
    const remove = rewriteTopic(cluster, 't', t => ({ ...t, partitions: t.partitions.map(p => p.partitionIndex === 1 ? { ...p, partitionIndex: 2147483647 } : p) }))
    assert.match(await outcomeWithin(client.metadata.refresh(['t']), 30_000), /^rejected ProtocolError: .*topic "t" lists 2 partitions but has partition number 2147483647: partitions must be numbered 0 to 1/)
    assert.equal(client.metadata.topic('t')?.partitions.length, 2)
    // A keyed walk over the partitions stays cheap: the array is dense.
    assert.deepEqual(Object.keys(client.metadata.topic('t')!.partitions), ['0', '1'])
    remove()
    rewriteTopic(cluster, 't', t => ({ ...t, partitions: t.partitions.map(p => ({ ...p, partitionIndex: 0 })) }))
    await assert.rejects(client.metadata.refresh(['t']), /has partition number 0 twice/)
  })

  test('one topic\'s TOPIC_AUTHORIZATION_FAILED fails only that topic\'s waiters, and the topic is no longer tracked', async () => {
    // The clock stands still: a retry would wait on it for ever, so failing at all is failing at once.
    const { cluster, client } = await setup(1, [{ name: 't', partitions: 1 }, { name: 'secret', partitions: 1 }], new FakeClock())
    rewriteTopic(cluster, 'secret', t => ({ ...t, errorCode: 29, partitions: [] }))
    const secret = client.metadata.waitForTopic('secret', 5000)
    assert.match(await outcomeWithin(secret, 30_000), /^rejected BrokerError/)
    await assert.rejects(secret, (error: unknown) => error instanceof BrokerError && error.code === 29 && /Metadata for topic "secret"/.test(error.message))
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
    // The clock moves only when the test moves it: waiting for the leader would be waiting for ever.
    const clock = new FakeClock()
    const { cluster, client } = await setup(2, [{ name: 't', partitions: 2, replicationFactor: 1 }], clock)
    const remove = rewriteTopic(cluster, 't', t => ({ ...t, partitions: t.partitions.map(p => p.partitionIndex === 1 ? { ...p, errorCode: 5, leaderId: -1 } : p) }))
    const waiting = client.metadata.waitForTopic('t', 3000)
    assert.equal(await outcomeWithin(waiting, 30_000), 'resolved')
    const topic = await waiting
    assert.deepEqual(topic.partitions.map(p => p.leaderId >= 0), [true, false])
    const offset = await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('p0') }] })
    assert.equal(offset.baseOffset, 0n)
    // Partition 1 waits for its leader, and gets it once there is one.
    let settled = false
    const asked = cluster.requests(Metadata).length
    const p1 = client.produceRaw({ topic: 't', partition: 1, records: [{ value: Buffer.from('p1') }] }).finally(() => { settled = true })
    // It asked again, was told there is no leader, and backs off on the clock (maxMs 50).
    await waitFor('partition 1 to back off, or to end', () => settled || (cluster.requests(Metadata).length > asked && (clock.nextDueAt ?? Infinity) - clock.now() <= 50))
    assert.equal(settled, false, 'the leaderless partition did not wait')
    remove()
    await clock.advance(50)
    assert.equal((await p1).baseOffset, 0n)
    await assert.rejects(client.metadata.waitForTopic('t', 1000, undefined, { allLeaders: true }).then(() => client.metadata.waitForLeader('t', 5, 100)), /has 2 partitions, there is no partition 5/)
  })

  test('a topic still missing when the wait ends is an UnknownTopicError when the broker answered it is missing, though a later ask went unanswered', async () => {
    // The broker answered that the topic does not exist; the next Metadata was not answered
    // before the wait ended (on a loaded machine the backoff leaves the last ask next to no
    // time, so the producer's metadataWaitMs ended this way nearly every time). The broker was
    // reached: "reached no broker within metadataWaitMs" would be false.
    const { cluster, client } = await setup(1, [{ name: 't', partitions: 1 }])
    let asked = 0
    const never = new Promise<never>(() => {})
    cluster.intercept(Metadata, () => ++asked === 1 ? undefined : { hold: never })
    const error = await client.metadata.waitForTopic('missing', 300).then(() => 'resolved', (e: unknown) => e)
    assert.ok(asked >= 2, `asked ${asked} time(s)`)
    assert.ok(error instanceof UnknownTopicError, String(error))
    assert.equal(error.topic, 'missing')
    assert.match(error.message, /is not available after waiting 300 ms: it does not exist in the cluster/)
  })

})

// A Fetch long poll in flight never keeps a partition or close() waiting. A partition that
// gets its fetch position while its broker holds a poll without it (the first Fetch after a
// join went out with partition 0 alone, the others' ListOffsets answered a moment later)
// joins at once: the poll is ended and the next Fetch carries it. close() ends the poll
// rather than wait it out, and closes the fetch session. Against the fake cluster with
// maxWaitMs of ten minutes: without this, what each test waits for (bounded well below
// that) would come only when the poll ran out. The proof is in the requests the fake saw:
// the poll that left the partition out was never answered.
import { afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { Consumer } from '../../consumer/consumer'
import { GroupConsumer } from '../../group/group-consumer'
import { Fetch, type FetchRequest } from '../../protocol/apis/fetch'
import { ListOffsets } from '../../protocol/apis/list-offsets'
import { FakeCluster, type RequestLogEntry } from '../../testing/index'
import { outcomeWithin, waitFor } from '../support/wait'
import { protocols } from '../group/support'

/** Longer than any test may take: a poll that runs out did not end early. */
const TEN_MINUTES = 600_000
/** How long a test waits for what it expects (a bound for a busy machine, far below TEN_MINUTES). */
const BOUND_MS = 20_000

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
})

async function setup (): Promise<{ cluster: FakeCluster, client: Client }> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 3 }] })
  cleanups.push(async () => await cluster.close())
  const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 20, maxMs: 200 } })
  cleanups.push(async () => await client.close())
  return { cluster, client }
}

/** The partitions a Fetch names (a full one: all it fetches; an incremental one: those added or moved). */
const partitionsOf = (entry: RequestLogEntry<FetchRequest>): number[] => entry.request.topics.flatMap(t => t.partitions.map(p => p.partition)).sort()

/** A long poll: a Fetch that may wait maxWaitMs (the one opening a session asks for no wait). */
const isLongPoll = (entry: RequestLogEntry<FetchRequest>): boolean => entry.request.maxWaitMs === TEN_MINUTES

/** Holds every ListOffsets until the first long poll came: the partitions positioned by a spec get their offsets while it waits. */
function holdListOffsetsUntilLongPoll (cluster: FakeCluster): Promise<RequestLogEntry<FetchRequest>> {
  const poll = cluster.waitForRequest(Fetch, isLongPoll, BOUND_MS)
  cluster.intercept(ListOffsets, () => ({ hold: poll }))
  return poll
}

/** The next batch's record values, or what happened instead within BOUND_MS. */
async function nextValues (consumer: Consumer): Promise<string> {
  const handed = consumer.nextBatch().then(h => {
    h?.finish()
    return h === undefined ? 'closed' : h.batch.records.map(r => r.value?.toString()).join(',')
  })
  const outcome = await outcomeWithin(handed, BOUND_MS)
  return outcome === 'resolved' ? await handed : `${outcome} after ${BOUND_MS} ms`
}

/**
 * The long poll left partitions 1 and 2 out and was ended, not answered; a later Fetch
 * carried partition 2, with no storm of requests in between: each turn that positioned
 * partitions ends a poll once, and costs a Fetch that opens a new session (answered at
 * once) and the next poll.
 */
function assertPollEnded (cluster: FakeCluster, poll: RequestLogEntry<FetchRequest>): void {
  const fetches = cluster.requests(Fetch)
  const shown = JSON.stringify(fetches.map(e => [partitionsOf(e), e.request.maxWaitMs, e.outcome]))
  const at = fetches.indexOf(poll)
  assert.deepEqual([...new Set(fetches.slice(0, at + 1).flatMap(partitionsOf))], [0], `the scenario: partition 0 alone in the session when the poll began: ${shown}`)
  assert.notEqual(poll.outcome, 'answered', `the long poll that left partitions 1 and 2 out was answered (they waited for it): ${shown}`)
  const carrying2 = fetches.findIndex(e => partitionsOf(e).includes(2))
  assert.ok(carrying2 > at, `no Fetch carried partition 2 after the poll: ${shown}`)
  // Partitions 1 and 2 were positioned by two ListOffsets answers: at most two ended polls.
  assert.ok(carrying2 - at <= 3, `Fetches between the poll and the one carrying partition 2: ${shown}`)
}

/** Closes the consumer: no fetch session is left on the broker, not even one of a poll that was ended. */
async function assertNoSessionLeft (cluster: FakeCluster, consumer: Consumer): Promise<void> {
  await consumer.close()
  assert.deepEqual(cluster.fetchSessions(), [], 'a fetch session was left to the broker')
}

describe('a partition positioned while its broker long-polls joins the fetch at once', { timeout: 120_000 }, () => {
  test('direct consumer: partitions resolved by ListOffsets while the long poll of partition 0 alone waits are fetched at once; the record in partition 2 comes without waiting out maxWaitMs', async () => {
    const { cluster, client } = await setup()
    await client.produceRaw({ topic: 't', partition: 2, records: [{ value: Buffer.from('a') }] })
    const poll = holdListOffsetsUntilLongPoll(cluster)
    const consumer = Consumer.assigned(client, {
      assign: [{ topic: 't', partition: 0, offset: 0n }, { topic: 't', partition: 1, offset: 'earliest' }, { topic: 't', partition: 2, offset: 'earliest' }],
      maxWaitMs: TEN_MINUTES
    })
    cleanups.push(async () => await consumer.close())
    assert.equal(await nextValues(consumer), 'a')
    assertPollEnded(cluster, await poll)
    await assertNoSessionLeft(cluster, consumer)
  })

  test('seek during a long poll: the partition is fetched from its new position at once, not after the poll', async () => {
    const { cluster, client } = await setup()
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    // At the end of the log: the Fetch long-polls.
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 1n }], maxWaitMs: TEN_MINUTES })
    cleanups.push(async () => await consumer.close())
    const poll = await cluster.waitForRequest(Fetch, isLongPoll, BOUND_MS)
    consumer.seek({ topic: 't', partition: 0, offset: 0n })
    assert.equal(await nextValues(consumer), 'a')
    assert.notEqual(poll.outcome, 'answered', 'the long poll from offset 1 was answered: the seek waited for it')
  })

  for (const protocol of protocols) {
    test(`group consumer (${protocol}): partitions resolved while the first Fetch after the join long-polls are fetched at once; the record in partition 2 comes without waiting out maxWaitMs`, async () => {
      const { cluster, client } = await setup()
      await client.produceRaw({ topic: 't', partition: 2, records: [{ value: Buffer.from('a') }] })
      // Partition 0 starts from a committed offset (known with the join), 1 and 2 from 'earliest' (ListOffsets).
      await client.admin.alterGroupOffsets('g', [{ topic: 't', partition: 0, offset: 0n }])
      const poll = holdListOffsetsUntilLongPoll(cluster)
      const consumer = new GroupConsumer(client, { groupId: 'g', topics: ['t'], fromBeginning: true, groupProtocol: protocol, maxWaitMs: TEN_MINUTES })
      cleanups.push(async () => await consumer.close())
      assert.equal(await nextValues(consumer), 'a')
      assertPollEnded(cluster, await poll)
      await assertNoSessionLeft(cluster, consumer)
    })
  }
})

describe('close() ends the long poll in flight instead of waiting it out', { timeout: 120_000 }, () => {
  /** A long poll the fake has not answered. */
  const pendingPoll = (cluster: FakeCluster): RequestLogEntry<FetchRequest> | undefined =>
    cluster.requests(Fetch).find(e => e.outcome === 'pending' && isLongPoll(e))

  test('direct consumer: close() resolves while the poll is unanswered (its connection is closed: no answer can be handed out), and closes the fetch session with the final epoch', async () => {
    const { cluster, client } = await setup()
    // A record first: the poll close() meets is then one of an open session, whose closing request would queue behind it.
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: TEN_MINUTES })
    cleanups.push(async () => await consumer.close())
    assert.equal(await nextValues(consumer), 'a')
    const poll = await waitFor('a Fetch long-polling', () => pendingPoll(cluster))
    assert.equal(await outcomeWithin(consumer.close(), BOUND_MS), 'resolved')
    assert.notEqual(poll.outcome, 'answered')
    assert.equal(await consumer.nextBatch(), undefined)
    assert.deepEqual(cluster.fetchSessions(), [], 'the fetch session was left to the broker')
    const last = cluster.requests(Fetch).at(-1)!.request
    assert.equal(last.sessionEpoch, -1, 'the last Fetch is the final epoch, which closes the session')
  })

  for (const protocol of protocols) {
    test(`group consumer (${protocol}): close() leaves the group and resolves while the poll is unanswered; the fetch session is closed`, async () => {
      const { cluster, client } = await setup()
      await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
      const consumer = new GroupConsumer(client, { groupId: 'g', topics: ['t'], fromBeginning: true, groupProtocol: protocol, maxWaitMs: TEN_MINUTES })
      cleanups.push(async () => await consumer.close())
      assert.equal(await nextValues(consumer), 'a')
      const poll = await waitFor('a Fetch long-polling', () => pendingPoll(cluster))
      assert.equal(await outcomeWithin(consumer.close(), BOUND_MS), 'resolved')
      assert.notEqual(poll.outcome, 'answered')
      assert.deepEqual(cluster.groupMembers('g'), [], 'the member did not leave')
      assert.deepEqual(cluster.fetchSessions(), [], 'the fetch session was left to the broker')
    })
  }
})

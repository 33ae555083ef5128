// The first record after a join comes after as few round trips as the Java client and
// franz-go make: the partitions that start from a spec ('earliest', 'latest', a
// timestamp; a group member's partitions without a committed offset) are looked up with
// one ListOffsets per broker, not one per partition, and the connection the first Fetch
// goes on is set up while the lookups run (a group member's OffsetFetch, the
// ListOffsets), not after them.
// Before this, a consumer assigned N partitions sent N ListOffsets on a connection of
// their own and only then opened its fetch connection (connect + ApiVersions): about
// twice kafkajs 2.2.4's first-record latency (issue 29). The proof is in the fake
// cluster's request log: which requests came, on which connection, in which order.
import { afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { Consumer } from '../../consumer/consumer'
import type { OffsetSpec } from '../../consumer/cursor'
import { GroupConsumer } from '../../group/group-consumer'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { Fetch } from '../../protocol/apis/fetch'
import { ListOffsets, type ListOffsetsRequest } from '../../protocol/apis/list-offsets'
import { OffsetFetch } from '../../protocol/apis/offset-fetch'
import { FakeCluster, type RequestLogEntry } from '../../testing/index'
import { outcomeWithin } from '../support/wait'
import { protocols } from '../group/support'

/** How long a test waits for what it expects (a bound for a busy machine). */
const BOUND_MS = 20_000

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
})

async function setup (brokers: number, partitions: number): Promise<{ cluster: FakeCluster, client: Client }> {
  const cluster = await FakeCluster.start({ brokers, log: false, topics: [{ name: 't', partitions }] })
  cleanups.push(async () => await cluster.close())
  const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 20, maxMs: 200 } })
  cleanups.push(async () => await client.close())
  return { cluster, client }
}

/** The partitions of topic t a ListOffsets asks for, sorted. */
const partitionsOf = (entry: RequestLogEntry<ListOffsetsRequest>): number[] =>
  entry.request.topics.flatMap(t => t.partitions.map(p => p.partitionIndex)).sort((a, b) => a - b)

/** The record values of the next batch that has records, or what happened instead within BOUND_MS. */
async function firstValues (next: () => Promise<{ values: string[], finish: () => void } | undefined>): Promise<string> {
  const taken = (async () => {
    for (;;) {
      const handed = await next()
      if (handed === undefined) return 'closed'
      handed.finish()
      if (handed.values.length > 0) return handed.values.join(',')
    }
  })()
  const outcome = await outcomeWithin(taken, BOUND_MS)
  return outcome === 'resolved' ? await taken : `${outcome} after ${BOUND_MS} ms`
}

function nextOf (consumer: Pick<Consumer, 'nextBatch'>): () => Promise<{ values: string[], finish: () => void } | undefined> {
  return async () => {
    const h = await consumer.nextBatch()
    return h === undefined ? undefined : { values: h.batch.records.map(r => String(r.value)), finish: () => h.finish() }
  }
}

/**
 * The connection that carried the first Fetch was set up (its ApiVersions received) while
 * the offset lookup (ListOffsets, or a group's OffsetFetch) was held unanswered:
 * connecting overlapped the lookup instead of following its answer. `connectedBefore` is
 * the set of connections that had sent their ApiVersions by then.
 */
function assertFetchConnectionNotAfterLookup (cluster: FakeCluster, connectedBefore: ReadonlySet<number>): void {
  const fetch = cluster.requests(Fetch)[0]
  const shown = JSON.stringify(cluster.requests().map(e => [e.apiName, e.connectionId]))
  assert.ok(fetch !== undefined, `no Fetch: ${shown}`)
  assert.ok(connectedBefore.has(fetch.connectionId), `the first Fetch went on connection ${fetch.connectionId}, set up only after the offset lookup was answered (requests as [api, connection]: ${shown})`)
}

/** Holds every ListOffsets until the test releases them, and gives the connections set up (ApiVersions received) when the first one came. */
function watchLookup (cluster: FakeCluster): { connectedAtLookup: Promise<Set<number>>, release: () => void } {
  let release!: () => void
  const held = new Promise<void>(resolve => { release = resolve })
  cluster.intercept(ListOffsets, () => ({ hold: held }))
  const connectedAtLookup = cluster.waitForRequest(ListOffsets, undefined, BOUND_MS)
    .then(() => new Set(cluster.requests(ApiVersions).map(e => e.connectionId)))
  return { connectedAtLookup, release }
}

describe('the partitions of a new assignment get their start offsets in one ListOffsets per broker, beside the fetch connection\'s setup', { timeout: 120_000 }, () => {
  test('direct consumer assigned 3 partitions of one broker from \'earliest\': one ListOffsets names all three, and the first Fetch goes on a connection set up before it', async () => {
    const { cluster, client } = await setup(1, 3)
    await client.produceRaw({ topic: 't', partition: 2, records: [{ value: Buffer.from('a') }] })
    const lookup = watchLookup(cluster)
    const consumer = Consumer.assigned(client, { assign: [0, 1, 2].map(partition => ({ topic: 't', partition, offset: 'earliest' as OffsetSpec })) })
    cleanups.push(async () => await consumer.close())
    const connectedBefore = await lookup.connectedAtLookup
    lookup.release()
    assert.equal(await firstValues(nextOf(consumer)), 'a')
    assertFetchConnectionNotAfterLookup(cluster, connectedBefore)
    assert.deepEqual(cluster.requests(ListOffsets).map(partitionsOf), [[0, 1, 2]], 'one ListOffsets for the three partitions')
  })

  test('direct consumer over 3 brokers (6 partitions, two led by each): one ListOffsets per broker, naming the partitions it leads; every record comes', async () => {
    const { cluster, client } = await setup(3, 6)
    for (let p = 0; p < 6; p++) await client.produceRaw({ topic: 't', partition: p, records: [{ value: Buffer.from(`v${p}`) }] })
    const consumer = Consumer.assigned(client, { assign: [0, 1, 2, 3, 4, 5].map(partition => ({ topic: 't', partition, offset: 'earliest' as OffsetSpec })) })
    cleanups.push(async () => await consumer.close())
    const seen = new Set<string>()
    const next = nextOf(consumer)
    while (seen.size < 6) {
      const values = await firstValues(next)
      assert.match(values, /^v\d/, 'a record came')
      for (const v of values.split(',')) seen.add(v)
    }
    // [broker, partitions] of each ListOffsets, against [broker, the partitions it leads] once per broker.
    const sent = cluster.requests(ListOffsets).map(e => [e.brokerId, partitionsOf(e)] as const).sort(([a], [b]) => a - b)
    const expected = cluster.brokerIds.map(b => [b, [0, 1, 2, 3, 4, 5].filter(p => cluster.leaderOf('t', p) === b)] as const)
    assert.deepEqual(sent, expected, 'one ListOffsets per broker, for the partitions it leads')
  })

  test('a timestamp after the last record, beside \'earliest\' partitions: one ListOffsets for all, then the end of the log for the timestamp\'s partition', async () => {
    const { cluster, client } = await setup(1, 3)
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('old') }] })
    await client.produceRaw({ topic: 't', partition: 2, records: [{ value: Buffer.from('a') }] })
    const consumer = Consumer.assigned(client, {
      assign: [{ topic: 't', partition: 0, offset: { timestamp: Date.now() + 3_600_000 } }, { topic: 't', partition: 1, offset: 'earliest' }, { topic: 't', partition: 2, offset: 'earliest' }]
    })
    cleanups.push(async () => await consumer.close())
    assert.equal(await firstValues(nextOf(consumer)), 'a')
    const lookups = cluster.requests(ListOffsets)
    assert.deepEqual(lookups.map(partitionsOf), [[0, 1, 2], [0]], 'the three together, then partition 0 again')
    assert.equal(lookups[1].request.topics[0].partitions[0].timestamp, -1n, 'the second asks for the end of the log')
    // Partition 0 starts at its end: its old record is not handed out.
    assert.equal(consumer.lag().find(l => l.partition === 0)?.fetchOffset, 1n)
  })

  for (const protocol of protocols) {
    test(`group consumer (${protocol}) joining a group with no committed offsets: its fetch connection is set up while the committed offsets are looked up, then one ListOffsets for its 3 partitions, and the first Fetch on that connection`, async () => {
      const { cluster, client } = await setup(1, 3)
      await client.produceRaw({ topic: 't', partition: 2, records: [{ value: Buffer.from('a') }] })
      // The OffsetFetch is held until a connection made after it sent its ApiVersions (or a bound passed: the test then fails below).
      let release!: () => void
      const held = new Promise<void>(resolve => { release = resolve })
      cluster.intercept(OffsetFetch, () => ({ hold: held }))
      const connectedWhileHeld = cluster.waitForRequest(OffsetFetch, undefined, BOUND_MS)
        .then(async lookup => await cluster.waitForRequest(ApiVersions, e => e.connectionId > lookup.connectionId, 5_000).catch(() => undefined))
        .then(() => {
          const connected = new Set(cluster.requests(ApiVersions).map(e => e.connectionId))
          release()
          return connected
        })
      const consumer = new GroupConsumer(client, { groupId: 'g', topics: ['t'], fromBeginning: true, groupProtocol: protocol })
      cleanups.push(async () => await consumer.close())
      assert.equal(await firstValues(nextOf(consumer)), 'a')
      assertFetchConnectionNotAfterLookup(cluster, await connectedWhileHeld)
      assert.deepEqual(cluster.requests(ListOffsets).map(partitionsOf), [[0, 1, 2]], 'one ListOffsets for the three partitions')
      assert.equal(cluster.requests(OffsetFetch).length, 1, 'one OffsetFetch for the assignment')
    })
  }
})

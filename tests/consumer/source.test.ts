// The fetch path against the fake cluster: what a Source does with answers it cannot use
// (per-partition errors, undecodable bytes, partitions or topics that were not asked for),
// fetch sessions, and the prefetch accounting. Each answer that cannot be used must back
// off (no Fetch loop at full speed), be reported (a `fetchError` event), and never cost
// the other partitions their progress; only what no retry can fix fails the consumer.
import { afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { Consumer, type FetchErrorEvent } from '../../consumer/consumer'
import { PrefetchAccount, type BufferedBatch } from '../../consumer/cursor'
import { Fetch, type FetchRequest, type FetchResponse } from '../../protocol/apis/fetch'
import { OffsetFetch, type OffsetFetchResponsePartition } from '../../protocol/apis/offset-fetch'
import type { ScannedBatch } from '../../protocol/record-batch'
import { GroupConsumer } from '../../group/group-consumer'
import { BrokerError, ProtocolError } from '../../protocol/errors'
import { FakeClock, FakeCluster, withClock } from '../../testing/index'
import { crc32c } from '../../protocol/crc32c'
import { sleep, waitFor } from '../support/wait'
import { consumerInternals } from '../../consumer/consumer'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
})

/** `clock`: the client's (a FakeClock holds every backoff until the test moves it). */
async function setup (partitions = 1, clock?: FakeClock): Promise<{ cluster: FakeCluster, client: Client }> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions }] })
  cleanups.push(async () => await cluster.close())
  const options = { bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 20, maxMs: 200 } }
  const client = new Client(clock === undefined ? options : withClock(options, clock))
  cleanups.push(async () => await client.close())
  return { cluster, client }
}

/** `times`: the client's clock when each fetchError event came. */
function consumerOf (client: Client, partitions: number[]): { consumer: Consumer, events: FetchErrorEvent[], times: number[] } {
  const consumer = Consumer.assigned(client, { assign: partitions.map(partition => ({ topic: 't', partition, offset: 0n })), maxWaitMs: 50 })
  cleanups.push(async () => await consumer.close())
  const events: FetchErrorEvent[] = []
  const times: number[] = []
  consumer.on('fetchError', (event: FetchErrorEvent) => {
    events.push(event)
    times.push(client.clock.now())
  })
  return { consumer, events, times }
}

/**
 * Moves `clock` past the end of each backoff in turn (reported by a fetchError event or not:
 * some failures are retried quietly at first) until `count` fetchError events came. Time
 * moves only here, and only once a backoff waits, so an event that came sooner than its
 * predecessor's retryInMs (see assertBackedOff) was not held by a backoff.
 */
async function throughBackoffs (clock: FakeClock, events: FetchErrorEvent[], count: number): Promise<void> {
  // Backoffs (retryBackoff.maxMs 200, a reconnect's included) end within 210 ms; deadlines are requestTimeoutMs away.
  const backoffWaits = (): boolean => (clock.nextDueAt ?? Infinity) - clock.now() <= 210
  while (events.length < count) {
    await waitFor(`a backoff to wait out, or fetchError event ${count} (${events.length} so far)`, () => events.length >= count || backoffWaits())
    // 3 ms past it: the wake-up that follows the backoff runs too.
    if (events.length < count) await clock.advance((clock.nextDueAt ?? clock.now()) - clock.now() + 3)
  }
}

/** Each fetchError event came no sooner (on the client's clock) than the retry the one before it announced. */
function assertBackedOff (events: FetchErrorEvent[], times: number[]): void {
  assert.ok(events.length >= 2, `${events.length} fetchError event(s)`)
  for (let k = 1; k < events.length; k++) {
    const gap = times[k] - times[k - 1]
    // retryInMs is the delay rounded; the retry is due at the delay rounded up.
    assert.ok(gap >= events[k - 1].retryInMs - 1, `fetchError event ${k + 1} came ${gap} ms after event ${k}, which announced a retry in ${events[k - 1].retryInMs} ms: ${JSON.stringify(events.map((e, i) => [times[i] - times[0], e.retryInMs]))}`)
  }
}

/** The next batch's record values, or a description of what happened instead within `ms` (a bound for a busy machine, not a proof). */
async function nextValues (consumer: Consumer, ms = 10_000): Promise<string> {
  return await Promise.race([
    consumer.nextBatch().then(handed => {
      handed?.finish()
      return handed === undefined ? 'closed' : handed.batch.records.map(r => r.value?.toString()).join(',')
    }, (error: Error) => `failed: ${error.message}`),
    sleep(ms).then(() => `nothing after ${ms} ms`)
  ])
}

/**
 * The records with the record batch at `baseOffset` (every batch when undefined) broken
 * under a good CRC: its records section's first byte (a record length, or the start of
 * the compressed data) is overwritten and the CRC computed again, so only decoding the
 * records finds it (as for a producer that wrote bad bytes).
 */
function breakRecordsUnderGoodCrc (records: Buffer, baseOffset?: bigint): Buffer {
  const copy = Buffer.from(records)
  for (let pos = 0; pos + 61 <= copy.length;) {
    const end = pos + 12 + copy.readInt32BE(pos + 8)
    if (end > copy.length) break
    if (baseOffset === undefined || copy.readBigInt64BE(pos) === baseOffset) {
      copy[pos + 61] = 0x01
      copy.writeUInt32BE(crc32c(copy, pos + 21, end), pos + 17)
    }
    pos = end
  }
  return copy
}

/** Rewrites partition `partition`'s records in every Fetch answer. */
function rewriteRecords (cluster: FakeCluster, partition: number, rewrite: (records: Buffer) => Buffer): () => void {
  return cluster.intercept(Fetch, () => ({
    modify: (r: FetchResponse) => ({
      ...r,
      responses: r.responses.map(t => ({ ...t, partitions: t.partitions.map(p => p.partitionIndex !== partition || p.records === null || p.records.length === 0 ? p : { ...p, records: rewrite(p.records) }) }))
    })
  }))
}

describe('fetch answers that cannot be used', { timeout: 30_000 }, () => {
  test('a partition answered UNKNOWN_SERVER_ERROR once is fetched again after a backoff, reported, and its records arrive', async () => {
    const { cluster, client } = await setup()
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    cluster.intercept(Fetch, () => ({ error: -1 }), { times: 1 })
    const { consumer, events } = consumerOf(client, [0])
    assert.equal(await nextValues(consumer), 'a')
    assert.equal(events.length, 1)
    assert.equal(events[0].topic, 't')
    assert.equal(events[0].partition, 0)
    assert.ok(events[0].error instanceof BrokerError && events[0].error.code === -1, String(events[0].error))
  })

  test('a partition that keeps failing (CORRUPT_MESSAGE) backs off with a growing delay, and the other partition keeps flowing', async () => {
    const clock = new FakeClock()
    const { cluster, client } = await setup(2, clock)
    cluster.intercept(Fetch, () => ({
      modify: (r: FetchResponse) => ({ ...r, responses: r.responses.map(t => ({ ...t, partitions: t.partitions.map(p => p.partitionIndex === 0 ? { ...p, errorCode: 2, records: null } : p) })) })
    }))
    const { consumer, events, times } = consumerOf(client, [0, 1])
    // The clock stands still: partition 0 waits out its first backoff while partition 1's records come through.
    for (let i = 0; i < 3; i++) {
      await client.produceRaw({ topic: 't', partition: 1, records: [{ value: Buffer.from(`p1-${i}`) }] })
      assert.equal(await nextValues(consumer), `p1-${i}`)
    }
    const p0Fetches = (): number => cluster.requests(Fetch).filter(f => f.request.topics.some(t => t.partitions.some(p => p.partition === 0))).length
    assert.deepEqual([p0Fetches(), events.length], [1, 1], 'partition 0 is fetched again only once its backoff is over')
    await throughBackoffs(clock, events, 5)
    assertBackedOff(events, times)
    // Backoff 20 ms doubling up to 200 ms (each drawn from its upper half).
    assert.ok(events.every((e, k) => e.partition === 0 && e.retryInMs >= Math.min(200, 20 * 2 ** k) / 2 && e.retryInMs <= Math.min(200, 20 * 2 ** k)), JSON.stringify(events.map(e => [e.partition, e.retryInMs])))
  })

  test('TOPIC_AUTHORIZATION_FAILED on a partition fails the consumer with the broker\'s error', async () => {
    const { cluster, client } = await setup()
    cluster.intercept(Fetch, () => ({ error: 29 }))
    const { consumer } = consumerOf(client, [0])
    assert.match(await nextValues(consumer), /^failed: .*TOPIC_AUTHORIZATION_FAILED/)
  })

  for (const [name, rewrite, codec] of [
    ['a batch length beyond the answer', (records: Buffer): Buffer => {
      const copy = Buffer.from(records)
      copy.writeInt32BE(0x7fff0000, 8)
      return copy
    }],
    ['a corrupt batch (CRC mismatch)', (records: Buffer): Buffer => {
      const copy = Buffer.from(records)
      copy[copy.length - 1] ^= 0xff
      return copy
    }],
    ['bad records under a good CRC (found when the batch is handed out)', (records: Buffer): Buffer => breakRecordsUnderGoodCrc(records)],
    ['gzip data that does not decompress, under a good CRC (found when the batch is handed out)', (records: Buffer): Buffer => breakRecordsUnderGoodCrc(records), 'gzip']
  ] as Array<[string, (records: Buffer) => Buffer, 'gzip'?]>) {
    test(`${name}: the partition backs off and the consumer reports it, then reads on once the answers are good`, async () => {
      const clock = new FakeClock()
      const { cluster, client } = await setup(1, clock)
      await client.produceRaw({ topic: 't', partition: 0, compression: codec ?? 'none', records: [{ value: Buffer.from('a') }] })
      const stop = rewriteRecords(cluster, 0, rewrite)
      const { consumer, events, times } = consumerOf(client, [0])
      const got = consumer.nextBatch()
      await throughBackoffs(clock, events, 3)
      assertBackedOff(events, times)
      assert.ok(events.every(e => e.partition === 0 && e.error instanceof ProtocolError), events.map(e => e.error.message).join('; '))
      stop()
      await clock.advance(events[events.length - 1].retryInMs + 3)
      const handed = await got
      assert.equal(handed?.batch.records[0].value?.toString(), 'a')
    })
  }

  test('a batch that cannot be decoded when handed out is fetched again from its own offset: what came before it was handed out once, nothing after it is lost', async () => {
    const clock = new FakeClock()
    const { cluster, client } = await setup(1, clock)
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    // Offset 1 is broken in every answer until `stop`; 0 and 2 come in good.
    const stop = rewriteRecords(cluster, 0, records => breakRecordsUnderGoodCrc(records, 1n))
    const { consumer, events, times } = consumerOf(client, [0])
    const seen: string[] = []
    const first = await consumer.nextBatch(AbortSignal.timeout(10_000))
    for (const r of first!.batch.records) seen.push(`${r.offset}:${r.value?.toString()}`)
    first!.finish()
    // Whether 1 and 2 come in one answer or two, fetching starts again at 1: not at 0 (handed out) nor past 1.
    for (const v of ['b', 'c']) await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from(v) }] })
    const next = consumer.nextBatch(AbortSignal.timeout(30_000))
    await throughBackoffs(clock, events, 3)
    assertBackedOff(events, times)
    assert.ok(events.every(e => e.partition === 0 && e.error instanceof ProtocolError && /base offset 1 /.test(e.error.message)), events.map(e => e.error.message).join('; '))
    stop()
    await clock.advance(events[events.length - 1].retryInMs + 3)
    for (let handed = await next; ; handed = await consumer.nextBatch(AbortSignal.timeout(10_000))) {
      for (const r of handed!.batch.records) seen.push(`${r.offset}:${r.value?.toString()}`)
      handed!.finish()
      if (seen.length >= 3) break
    }
    assert.deepEqual(seen, ['0:a', '1:b', '2:c'])
  })

  for (const [name, modify] of [
    ['a partition that was not asked for', (r: FetchResponse): FetchResponse => ({ ...r, responses: r.responses.map(t => ({ ...t, partitions: t.partitions.map(p => ({ ...p, partitionIndex: 1 })) })) })],
    ['a topic that was not asked for', (r: FetchResponse): FetchResponse => ({ ...r, responses: r.responses.map(t => ({ ...t, topic: t.topic === '' ? '' : 'other', topicId: '0b0e0b0e-0000-4000-8000-000000000000' })) })]
  ] as const) {
    test(`an answer carrying ${name} is refused: backoff and a fetchError event, no records from it`, async () => {
      const clock = new FakeClock()
      const { cluster, client } = await setup(2, clock)
      await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
      const stop = cluster.intercept(Fetch, () => ({ modify }))
      const { consumer, events, times } = consumerOf(client, [0])
      const got = consumer.nextBatch()
      await throughBackoffs(clock, events, 3)
      assertBackedOff(events, times)
      assert.ok(events.every(e => e.topic === undefined && e.error instanceof ProtocolError), events.map(e => e.error.message).join('; '))
      assert.match(events[0].error.message, /not asked for/)
      stop()
      await clock.advance(events[events.length - 1].retryInMs + 3)
      const handed = await got
      assert.equal(handed?.batch.partition, 0)
      assert.equal(handed?.batch.records[0].value?.toString(), 'a')
    })
  }
})

/** The (fetchOffset, lastFetchedEpoch) of partition `partition` of topic 't' in each Fetch so far. */
function fetchPositions (cluster: FakeCluster, partition = 0): Array<[bigint, number]> {
  const out: Array<[bigint, number]> = []
  for (const entry of cluster.requests(Fetch)) {
    for (const t of (entry.request as FetchRequest).topics) {
      for (const p of t.partitions) if (p.partition === partition) out.push([p.fetchOffset, p.lastFetchedEpoch ?? -1])
    }
  }
  return out
}

describe('positions with a leader epoch (KIP-320): the first fetch from them carries the epoch, so the broker checks the log did not diverge below them', { timeout: 30_000 }, () => {
  test('assign with { offset, leaderEpoch } and seek({ offset, leaderEpoch })', async () => {
    const { cluster, client } = await setup()
    for (let i = 0; i < 4; i++) await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from(`v${i}`) }] })
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 1n, leaderEpoch: 7 }], maxWaitMs: 50 })
    cleanups.push(async () => await consumer.close())
    const first = await consumer.nextBatch()
    first?.finish()
    assert.deepEqual(fetchPositions(cluster)[0], [1n, 7])
    consumer.seek({ topic: 't', partition: 0, offset: 2n, leaderEpoch: 5 })
    await consumer.nextBatch()
    assert.ok(fetchPositions(cluster).some(([offset, epoch]) => offset === 2n && epoch === 5), JSON.stringify(fetchPositions(cluster).map(([o, e]) => [String(o), e])))
    assert.throws(() => consumer.seek({ topic: 't', partition: 0, offset: 2n, leaderEpoch: -3 }), RangeError)
  })

  test('a group member starting from a committed offset sends its committed leader epoch', async () => {
    const { cluster, client } = await setup()
    for (let i = 0; i < 4; i++) await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from(`v${i}`) }] })
    // The group committed offset 2 under leader epoch 9.
    cluster.intercept(OffsetFetch, () => ({
      modify: r => {
        const fix = <T extends { partitions: OffsetFetchResponsePartition[] }>(topics: T[]): T[] => topics.map(t => ({ ...t, partitions: t.partitions.map(p => ({ ...p, committedOffset: 2n, committedLeaderEpoch: 9, errorCode: 0 })) }))
        return (r.groups?.length ?? 0) > 0 ? { ...r, groups: r.groups.map(g => ({ ...g, topics: fix(g.topics) })) } : { ...r, topics: fix(r.topics) }
      }
    }))
    await client.metadata.refresh(['t'])
    const consumer = new GroupConsumer(client, { groupId: 'g', topics: ['t'], maxWaitMs: 50, heartbeatIntervalMs: 50 })
    cleanups.push(async () => await consumer.close())
    const handed = await consumer.nextBatch()
    assert.equal(handed?.batch.records[0].offset, 2n)
    assert.deepEqual(fetchPositions(cluster)[0], [2n, 9])
  })
})

/**
 * What the buffered batches of a consumer keep in memory: the fetched bytes of their record
 * batches (compressed or not; records are decoded only when a batch is handed out), the
 * records the batch headers claim, records already decoded, and every distinct buffer the
 * fetched bytes are views into.
 */
function retained (consumer: Consumer): { fetched: number, records: number, decoded: number, buffers: number } {
  let fetched = 0
  let records = 0
  let decoded = 0
  const buffers = new Set<ArrayBufferLike>()
  for (const cursor of consumerInternals(consumer).cursors) {
    for (const entry of cursor.buffered) {
      for (const scanned of entry.pending) {
        records += scanned.batch.recordCount
        decoded += scanned.batch.records.length
        fetched += scanned.data.length
        buffers.add(scanned.data.buffer)
      }
    }
  }
  let bytes = 0
  for (const b of buffers) bytes += b.byteLength
  return { fetched, records, decoded, buffers: bytes }
}

async function settle (consumer: Consumer): Promise<void> {
  await waitFor('something buffered', () => retained(consumer).records > 0)
  // Then until fetching stopped: no partition in a Fetch (a source marks the next one's
  // partitions before it awaits anything, so between two Fetches none is seen unmarked).
  // A consumer that never stops fails the wait.
  await waitFor('fetching to stop (the buffer full)', () => consumerInternals(consumer).cursors.every(cursor => !cursor.inFetch))
}

describe('prefetch memory is bounded by what memory holds: fetched bytes until a batch is handed out, decoded records only from then on', { timeout: 60_000 }, () => {
  const MiB = 1024 * 1024

  test('zstd data: a consumer that hands nothing out holds the compressed batches only, within maxBufferedBytes; records are made when a batch is handed out', async () => {
    const { client } = await setup()
    // 64 batches of 100 records of 10 KiB that compress ~100×: 64 MiB decompressed, well under 1 MiB on the wire.
    const value = Buffer.alloc(10 * 1024, 'abcdefgh')
    for (let b = 0; b < 64; b++) await client.produceRaw({ topic: 't', partition: 0, compression: 'zstd', records: Array.from({ length: 100 }, () => ({ value })) })
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 50, maxBufferedBytes: 4 * MiB, maxPartitionBytes: 64 * MiB })
    cleanups.push(async () => await consumer.close())
    await settle(consumer)
    const held = retained(consumer)
    assert.ok(held.records > 0 && held.decoded === 0, `${held.records} records buffered, ${held.decoded} of them decoded`)
    assert.ok(held.buffers <= 4 * MiB, `buffered batches keep ${(held.buffers / MiB).toFixed(1)} MiB of answers with maxBufferedBytes 4 MiB`)
    assert.ok(consumerInternals(consumer).cursors[0].account.bytes <= 4 * MiB, `the account holds ${consumerInternals(consumer).cursors[0].account.bytes} bytes`)
    const handed = await consumer.nextBatch()
    assert.ok(handed !== undefined && handed.batch.records.length > 0 && handed.batch.records.every(r => r.value?.equals(value) === true))
    handed.finish()
  })

  test('one answer of four zstd batches that decompress to 16 MiB each: a hand-out decompresses one of them, not all four (maxBufferedBytes 8 MiB); the rest is fetched again later', async () => {
    const { cluster, client } = await setup()
    const value = Buffer.alloc(16 * MiB)
    for (let b = 0; b < 4; b++) await client.produceRaw({ topic: 't', partition: 0, compression: 'zstd', records: [{ value }] })
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 50, maxBufferedBytes: 8 * MiB, maxPartitionBytes: 64 * MiB, maxBatchRecords: 1 })
    cleanups.push(async () => await consumer.close())
    await settle(consumer)
    assert.deepEqual(consumerInternals(consumer).cursors[0].buffered.map(e => e.pending.length), consumerInternals(consumer).cursors[0].buffered.map(() => 1), 'record batches per buffered batch')
    assert.ok(fetchPositions(cluster).some(([offset]) => offset === 1n), 'a Fetch from offset 1')
    // Handing out moves on, batch by batch.
    const offsets: bigint[] = []
    for (let i = 0; i < 4; i++) {
      const handed = await consumer.nextBatch()
      offsets.push(...handed!.batch.records.map(r => r.offset))
      handed!.finish()
    }
    assert.deepEqual(offsets, [0n, 1n, 2n, 3n])
  })

  test('a partition left out of a Fetch for want of room is not kept waiting maxWaitMs by the long poll of a caught-up partition', async () => {
    const { cluster, client } = await setup(2)
    const value = Buffer.alloc(200, 'x')
    for (let b = 0; b < 6; b++) await client.produceRaw({ topic: 't', partition: 0, records: Array.from({ length: 5 }, () => ({ value })) })
    // Partition 1 stays empty: its Fetch is a long poll of maxWaitMs (kafkajs's default 5 s, 500 ms
    // here), and the broker holds every poll of partition 1 alone until the end of the test: a
    // batch of partition 0 that waited for one would never come.
    let endPolls!: () => void
    const pollsEnd = new Promise<void>(resolve => { endPolls = resolve })
    const pollOfPartition1Alone = (request: FetchRequest): boolean => request.maxWaitMs === 500 && request.topics.every(t => t.partitions.every(p => p.partition === 1))
    cluster.intercept(Fetch, ({ request }) => pollOfPartition1Alone(request as FetchRequest) ? { hold: pollsEnd } : undefined)
    const consumer = Consumer.assigned(client, { assign: [0, 1].map(partition => ({ topic: 't', partition, offset: 0n })), maxWaitMs: 500, maxPartitionBytes: 1024 })
    cleanups.push(async () => await consumer.close())
    cleanups.push(async () => endPolls())
    let read = 0
    while (read < 30) {
      // An application a little slower than a Fetch: partition 0's next batch waits in the buffer when the source asks again.
      await sleep(50)
      const handed = await consumer.nextBatch()
      assert.ok(handed !== undefined)
      read += handed.batch.records.length
      handed.finish()
    }
    // Each batch of partition 0 fills its 1 KiB: without the short poll, every one after the first waits out a whole poll of partition 1.
    assert.equal(read, 30)
    const waits = cluster.requests(Fetch).map(r => (r.request as FetchRequest).maxWaitMs)
    assert.ok(waits.includes(100) && waits.includes(500), `Fetch waits asked for: ${[...new Set(waits)].join(', ')}`)
  })

  test('maxPartitionBytes is the wire limit each Fetch asks for: batches just over half of it and within it come in one answer', async () => {
    const { cluster, client } = await setup()
    // kafkajs's maxBytesPerPartition 180 for an aborted record and its marker (~150 bytes): asking for
    // half of it (the memory a wire byte costs) brought the record alone, then the marker in a second Fetch.
    const value = Buffer.alloc(150, 'x')
    await client.produceRaw({ topic: 't', partition: 0, records: Array.from({ length: 3 }, () => ({ value })) })
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value }] })
    const [first, second] = cluster.produceAttempts('t').map(a => a.bytes)
    const maxPartitionBytes = first + second
    assert.ok(first > maxPartitionBytes / 2, `first batch ${first} bytes of ${maxPartitionBytes}`)
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 50, maxPartitionBytes })
    cleanups.push(async () => await consumer.close())
    const offsets: bigint[] = []
    while (offsets.length < 4) {
      const handed = await consumer.nextBatch(AbortSignal.timeout(5000))
      offsets.push(...handed!.batch.records.map(r => r.offset))
      handed!.finish()
    }
    assert.deepEqual(offsets, [0n, 1n, 2n, 3n])
    assert.deepEqual(fetchPositions(cluster).filter(([offset]) => offset === 3n), [], 'a Fetch for the second batch alone')
    const asked = cluster.requests(Fetch).flatMap(r => (r.request as FetchRequest).topics.flatMap(t => t.partitions.map(p => p.partitionMaxBytes)))
    assert.equal(asked[0], maxPartitionBytes, 'partitionMaxBytes of the first Fetch')
  })

  test('small records: buffered as fetched (~110 bytes each, no record objects) until handed out, within maxBufferedBytes', async () => {
    const { client } = await setup()
    const value = Buffer.alloc(100, 'x')
    for (let b = 0; b < 40; b++) await client.produceRaw({ topic: 't', partition: 0, records: Array.from({ length: 1000 }, () => ({ value })) })
    const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 50, maxBufferedBytes: 2 * MiB, maxPartitionBytes: 64 * MiB, maxBytes: 256 * 1024 })
    cleanups.push(async () => await consumer.close())
    await settle(consumer)
    const held = retained(consumer)
    // Each record: ~110 bytes on the wire, ~300 more once decoded. 2 MiB holds ~19,000 undecoded (and one answer of 256 KiB may pass the bound).
    assert.equal(held.decoded, 0, 'records decoded while buffered')
    assert.ok(held.records > 8000 && held.records <= 22_000, `${held.records} records buffered with maxBufferedBytes 2 MiB`)
    assert.ok(held.buffers <= 2 * MiB + 256 * 1024, `buffered batches keep ${(held.buffers / MiB).toFixed(1)} MiB of answers`)
  })

  test('small records and no maxBytes set: each Fetch asks for no more than the room left, so a slow application\'s consumer holds about maxBufferedBytes, not one whole answer', async () => {
    const { cluster, client } = await setup(2)
    // 2 × 20 batches of 1,000 records of 100 bytes: ~110 KB each on the wire, ~410 KB in memory.
    const value = Buffer.alloc(100, 'x')
    for (let b = 0; b < 20; b++) {
      for (const partition of [0, 1]) await client.produceRaw({ topic: 't', partition, records: Array.from({ length: 1000 }, (_, i) => ({ value, key: Buffer.from(String(b * 1000 + i)) })) })
    }
    const limit = 2 * MiB
    const consumer = Consumer.assigned(client, { assign: [0, 1].map(partition => ({ topic: 't', partition, offset: 0n })), maxWaitMs: 50, maxBufferedBytes: limit, maxPartitionBytes: 64 * MiB })
    cleanups.push(async () => await consumer.close())
    const errors: FetchErrorEvent[] = []
    consumer.on('fetchError', (event: FetchErrorEvent) => errors.push(event))
    let most = 0
    consumer.on('fetch', () => { most = Math.max(most, consumerInternals(consumer).cursors[0].account.bytes) })
    let fetchedBytes = 0
    cluster.intercept(Fetch, () => ({ modify: (r: FetchResponse) => { for (const t of r.responses) for (const p of t.partitions) fetchedBytes += p.records?.length ?? 0; return r } }))
    // Stalled first: fetching stops at the bound.
    await settle(consumer)
    const stalled = consumerInternals(consumer).cursors[0].account.bytes
    // Then slow: a batch every 5 ms, until every record was read, in order per partition.
    const next = [0, 0]
    while (next[0] + next[1] < 40_000) {
      const handed = await consumer.nextBatch(AbortSignal.timeout(5000))
      for (const r of handed!.batch.records) assert.equal(r.key?.toString(), String(next[handed!.batch.partition]++))
      handed!.finish()
      await sleep(5)
    }
    // One batch (~410 KB) may pass the bound: the first batch of an answer always comes whole.
    const bound = limit + 500 * 1024
    assert.ok(stalled > 0 && stalled <= bound, `stalled: ${(stalled / MiB).toFixed(2)} MiB buffered with maxBufferedBytes 2 MiB`)
    assert.ok(most <= bound, `at most ${(most / MiB).toFixed(2)} MiB buffered with maxBufferedBytes 2 MiB`)
    const asked = cluster.requests(Fetch).map(r => (r.request as FetchRequest).maxBytes ?? Infinity)
    assert.ok(asked.every(bytes => bytes <= limit), `Fetch maxBytes asked: ${Math.max(...asked)}`)
    assert.deepEqual(errors.map(e => e.error.message), [])
    // Asked by what a wire byte costs in memory (~4× here), answers hold about what fits: little is fetched twice.
    const written = cluster.produceAttempts('t').reduce((n, a) => n + a.bytes, 0)
    assert.ok(fetchedBytes < 1.5 * written, `${(fetchedBytes / MiB).toFixed(1)} MiB fetched for ${(written / MiB).toFixed(1)} MiB of records`)
  })

  test('a batch copied out of its answer is counted as the copy it holds, and nothing once it is handed out', () => {
    const account = new PrefetchAccount(1000)
    const answer = new ArrayBuffer(2000)
    const scanned = { batch: { records: [] }, data: Buffer.from(answer, 0, 100), maxBytes: 0, cost: 300, decoded: false } as unknown as ScannedBatch
    const entry: BufferedBatch = { highWatermark: 1n, nextOffset: 1n, bytes: 0, ownBytes: 0, viewBytes: 0, pins: [], version: 0, pending: [scanned], recordCount: 1, fetchedFrom: 0n, fetchedEpoch: -1, moreOfAnswer: false }
    // As Cursor.push counts it: 300 bytes of its own, 100 viewing the 2,000-byte answer (counted whole).
    entry.bytes = 400
    entry.ownBytes = 300
    entry.viewBytes = 100
    account.add(entry, 300, answer, 100)
    assert.equal(account.bytes, 2300)
    // Full: the mostly unused answer is let go, the record's 100 bytes copied out.
    assert.equal(account.full, false)
    assert.equal(account.bytes, 400)
    account.remove(entry)
    assert.equal(account.bytes, 0)
  })

  test('a stalled partition does not pin the answers its records came with: they are copied out once the rest of the answer is handed out', async () => {
    const { cluster, client } = await setup(2)
    const small = Buffer.alloc(100, 's')
    const big = Buffer.alloc(1000, 'b')
    const consumer = Consumer.assigned(client, {
      assign: [{ topic: 't', partition: 0, offset: 0n }, { topic: 't', partition: 1, offset: 0n }],
      maxWaitMs: 50, maxBufferedBytes: 2 * MiB, maxPartitionBytes: 1 * MiB, maxBatchRecords: 1_000_000, maxBatchBytes: 64 * MiB
    })
    cleanups.push(async () => await consumer.close())
    // Partition 0 gets a trickle and its batch is never finished; partition 1 gets bulk and is read.
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: small }] })
    const stuck = await consumer.nextBatch()
    assert.equal(stuck?.batch.partition, 0)
    // Each round's records of both partitions come in one answer: Fetch requests wait at a gate while they are written.
    let gate: Promise<void> | undefined
    cluster.intercept(Fetch, () => gate === undefined ? undefined : { hold: gate })
    let read = 0
    for (let round = 0; round < 30; round++) {
      let open!: () => void
      gate = new Promise(resolve => { open = resolve })
      // The long poll in flight ends; the next Fetch waits at the gate.
      const asked = cluster.requests(Fetch).length
      await waitFor('the next Fetch to wait at the gate', () => cluster.requests(Fetch).slice(asked).some(entry => entry.action === 'hold'))
      await client.produceRaw({ topic: 't', partition: 0, records: [{ value: small }] })
      await client.produceRaw({ topic: 't', partition: 1, records: Array.from({ length: 500 }, () => ({ value: big })) })
      gate = undefined
      open()
      // Until this round's records are in (not until 300 ms without a batch: on a loaded machine that cut rounds short and ran out the test's time).
      while (read < (round + 1) * 500) {
        const handed = await consumer.nextBatch(AbortSignal.timeout(10_000))
        assert.equal(handed?.batch.partition, 1)
        read += handed!.batch.records.length
        handed!.finish()
      }
    }
    assert.equal(read, 30 * 500, 'partition 1 records read')
    const held = retained(consumer)
    assert.ok(held.records >= 20, `partition 0 buffered ${held.records} records`)
    // Its ~30 records of 100 bytes must not keep ~30 answers of ~500 KB alive.
    assert.ok(held.buffers <= 2 * MiB, `partition 0's ${held.records} buffered records (${held.fetched} bytes) keep ${(held.buffers / MiB).toFixed(1)} MiB of answers alive`)
  })
})

describe('fetch sessions (KIP-227) are closed, never left to the broker to evict', { timeout: 30_000 }, () => {
  const sessionOf = (entry: { request: unknown }): [number, number] => [(entry.request as FetchRequest).sessionId ?? 0, (entry.request as FetchRequest).sessionEpoch ?? -1]

  test('fetches after the first are incremental in one session; close() ends it with the final epoch', async () => {
    const { cluster, client } = await setup()
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    const { consumer } = consumerOf(client, [0])
    assert.equal(await nextValues(consumer), 'a')
    await waitFor('three Fetches', () => cluster.requests(Fetch).length >= 3)
    const sessions = cluster.fetchSessions()
    assert.equal(sessions.length, 1)
    const seen = cluster.requests(Fetch).map(sessionOf)
    assert.deepEqual(seen[0], [0, 0])
    assert.deepEqual(seen.slice(1, 3), [[sessions[0].id, 1], [sessions[0].id, 2]])
    await consumer.close()
    assert.deepEqual(cluster.requests(Fetch).map(sessionOf).at(-1), [sessions[0].id, -1])
    assert.deepEqual(cluster.fetchSessions(), [])
  })

  test('after a failed Fetch the next one closes the old session as it makes a new one (old id, epoch 0)', async () => {
    const { cluster, client } = await setup()
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    const { consumer } = consumerOf(client, [0])
    assert.equal(await nextValues(consumer), 'a')
    const [first] = cluster.fetchSessions()
    cluster.intercept(Fetch, () => ({ drop: 'before-apply' }), { times: 1 })
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('b') }] })
    assert.equal(await nextValues(consumer), 'b')
    const seen = cluster.requests(Fetch).map(sessionOf)
    assert.ok(seen.some(([id, epoch]) => id === first.id && epoch === 0), JSON.stringify(seen))
    const now = cluster.fetchSessions()
    assert.equal(now.length, 1, JSON.stringify(now))
    assert.notEqual(now[0].id, first.id)
  })
})

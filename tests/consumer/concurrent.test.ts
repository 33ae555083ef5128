// run({ eachRecord, concurrency }) on a direct consumer against the fake cluster, and the
// offset map it commits: records of one key in offset order under random handler
// latencies (a seeded property test), the concurrency bound, backpressure, retries and the
// dead-letter hook; the offset map's encoding round-trips, and its size limit only ever
// drops knowledge (records processed again), never claims an unfinished record finished.
//
// The failure stories behind the mode: Node services whose handlers wait on I/O wrote their
// own worker pools over kafkajs and committed the highest offset any worker finished, so
// a crash skipped the records still running below it.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { Consumer, consumerInternals } from '../../consumer/consumer'
import { decodeOffsetMap, encodeOffsetMap, isFinished, type FinishedRanges } from '../../consumer/concurrent/offset-map'
import { FakeCluster } from '../../testing/index'
import { SeededRandom } from '../support/random'
import { waitFor } from '../support/wait'

/** A random set of finished offsets in [base, top) as ranges, `density` the chance of each offset. */
function randomMap (random: SeededRandom, base: bigint, span: number, density: number): FinishedRanges {
  const ranges: Array<[bigint, bigint]> = []
  let start = -1
  for (let i = 0; i <= span; i++) {
    const finished = i < span && i > 0 && random.chance(density)
    if (finished && start < 0) start = i
    if (!finished && start >= 0) {
      ranges.push([base + BigInt(start), base + BigInt(i)])
      start = -1
    }
  }
  return { base, top: base + BigInt(span), ranges }
}

function finishedSet (map: FinishedRanges): Set<bigint> {
  const set = new Set<bigint>()
  for (const [start, end] of map.ranges) for (let o = start; o < end; o++) set.add(o)
  return set
}

describe('offset map (commit metadata of records finished above the committed offset)', () => {
  test('round-trips: run lengths and bitmaps, sparse and dense, small and large offsets (seeded)', () => {
    const seed = 31
    const random = new SeededRandom(seed)
    const kinds = new Set<string>()
    for (let round = 0; round < 300; round++) {
      const base = random.chance(0.5) ? BigInt(random.below(1000)) : 2n ** 40n + BigInt(random.below(1_000_000))
      const map = randomMap(random, base, 1 + random.below(3000), random.pick([0.01, 0.3, 0.5, 0.9, 0.999]))
      const encoded = encodeOffsetMap(map, 1 << 20)
      if (map.ranges.length === 0) {
        assert.equal(encoded, null)
        continue
      }
      assert.ok(encoded !== null && /^[\x20-\x7e]+$/.test(encoded), 'metadata is printable ASCII')
      kinds.add(encoded.split(';')[3][0])
      const decoded = decodeOffsetMap(encoded, base)
      assert.ok(decoded !== undefined, `seed ${seed} round ${round}: not decoded`)
      assert.deepEqual(decoded.ranges, map.ranges, `seed ${seed} round ${round}`)
      assert.equal(decoded.top, map.top)
    }
    assert.deepEqual([...kinds].sort(), ['B', 'R'], 'both encodings were chosen for some maps')
  })

  test('over the size limit it keeps a prefix: never an offset that was not finished, always within the limit (seeded)', () => {
    const random = new SeededRandom(7)
    let cut = 0
    for (let round = 0; round < 200; round++) {
      const map = randomMap(random, 1000n, 1 + random.below(20_000), random.pick([0.05, 0.5, 0.95]))
      const limit = 40 + random.below(400)
      const encoded = encodeOffsetMap(map, limit)
      if (encoded === null) continue
      assert.ok(encoded.length <= limit, `${encoded.length} characters over a limit of ${limit}`)
      const decoded = decodeOffsetMap(encoded, 1000n)!
      const truth = finishedSet(map)
      const kept = finishedSet(decoded)
      for (const offset of kept) assert.ok(truth.has(offset), `offset ${offset} claimed finished`)
      if (kept.size < truth.size) {
        cut++
        // What is kept is everything finished below the map's top: a prefix, not a sample.
        for (const offset of truth) if (offset < decoded.top) assert.ok(kept.has(offset), `offset ${offset} below the top dropped`)
      }
    }
    assert.ok(cut > 20, `the limit cut only ${cut} maps`)
  })

  test('a map is trusted only at the offset it was committed with, and damaged metadata is ignored', () => {
    const map: FinishedRanges = { base: 10n, top: 20n, ranges: [[12n, 15n], [17n, 20n]] }
    const encoded = encodeOffsetMap(map, 4096)!
    assert.equal(decodeOffsetMap(encoded, 11n), undefined, 'a map of another offset (someone committed since)')
    assert.equal(decodeOffsetMap('something else', 10n), undefined)
    assert.equal(decodeOffsetMap(null, 10n), undefined)
    assert.equal(decodeOffsetMap(encoded.slice(0, -2), 10n), undefined, 'truncated')
    assert.equal(decodeOffsetMap(encoded.replace(';20;', ';2000;'), 10n), undefined, 'runs that do not cover the span')
    const decoded = decodeOffsetMap(encoded, 10n)!
    assert.deepEqual([10n, 11n, 12n, 14n, 15n, 16n, 17n, 19n, 20n].map(o => isFinished(decoded, o)), [false, false, true, true, false, false, true, true, false])
  })
})

describe('run({ concurrency }) on a direct consumer', { timeout: 60_000 }, () => {
  let cluster: FakeCluster
  let client: Client
  let topicNo = 0

  before(async () => {
    cluster = await FakeCluster.start({ log: false, topics: Array.from({ length: 10 }, (_, i) => ({ name: `concurrent-${i + 1}`, partitions: 3 })) })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'concurrent', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  })

  after(async () => {
    await client.close()
    await cluster.close()
  })

  /** A fresh 3-partition topic with `perPartition` records in each, keyed by `keyOf(partition, i)`, 50 per record batch. */
  async function keyedTopic (perPartition: number, keyOf: (partition: number, i: number) => string): Promise<string> {
    const topic = `concurrent-${++topicNo}`
    await client.metadata.refresh([topic])
    for (let partition = 0; partition < 3; partition++) {
      for (let i = 0; i < perPartition; i += 50) {
        const records = Array.from({ length: Math.min(50, perPartition - i) }, (_, j) => ({ key: Buffer.from(keyOf(partition, i + j)), value: Buffer.from(`${partition}:${i + j}`) }))
        await client.produceRaw({ topic, partition, records })
      }
    }
    return topic
  }

  function assigned (topic: string, options: { maxBatchRecords?: number } = {}): Consumer {
    return Consumer.assigned(client, { assign: [0, 1, 2].map(partition => ({ topic, partition, offset: 0n })), maxWaitMs: 10, ...options })
  }

  /** Turns of the event loop (setImmediate): a handler "latency" whose interleavings the seed decides, not the machine's timers. */
  async function turns (n: number): Promise<void> {
    for (let i = 0; i < n; i++) await new Promise(resolve => setImmediate(resolve))
  }

  for (const ordering of ['key', 'partition'] as const) {
    test(`ordering '${ordering}': records of one ${ordering} start in offset order, each after the one before finished, under random latencies (seeded)`, async () => {
      const seed = ordering === 'key' ? 1031 : 2047
      const random = new SeededRandom(seed)
      const perPartition = 400
      const topic = await keyedTopic(perPartition, (_p, i) => `k${i % 23}`)
      const consumer = assigned(topic, { maxBatchRecords: 60 })
      /** Per ordering unit, the offsets started, and whether one is running. */
      const started = new Map<string, bigint[]>()
      const busy = new Set<string>()
      let inFlight = 0
      let maxInFlight = 0
      let done = 0
      const violations: string[] = []
      const latencies = Array.from({ length: 3 * perPartition }, () => random.below(12))
      const running = consumer.run({
        concurrency: 16,
        ordering,
        maxWaiting: { records: 200 },
        eachRecord: async (record, batch) => {
          const unit = ordering === 'key' ? `${batch.partition}/${record.key!.toString()}` : String(batch.partition)
          if (busy.has(unit)) violations.push(`${unit}: offset ${record.offset} started while an earlier record ran`)
          const list = started.get(unit) ?? []
          if (list.length > 0 && list[list.length - 1] >= record.offset) violations.push(`${unit}: offset ${record.offset} after ${list[list.length - 1]}`)
          list.push(record.offset)
          started.set(unit, list)
          busy.add(unit)
          maxInFlight = Math.max(maxInFlight, ++inFlight)
          await turns(latencies[batch.partition * perPartition + Number(record.offset)])
          inFlight--
          busy.delete(unit)
          done++
        }
      })
      try {
        await waitFor('every record handled', () => done === 3 * perPartition, { timeoutMs: 30_000 })
        assert.deepEqual(violations, [], `seed ${seed}`)
        assert.ok(maxInFlight <= 16, `${maxInFlight} records at once over concurrency 16`)
        assert.ok(maxInFlight > (ordering === 'key' ? 8 : 2), `only ${maxInFlight} at once: different ${ordering}s did not run together`)
        for (const [unit, offsets] of started) assert.equal(new Set(offsets).size, offsets.length, `${unit}: a record handled twice`)
        for (let p = 0; p < 3; p++) assert.equal(consumerInternals(consumer).cursor(topic, p)?.processedOffset, BigInt(perPartition), `partition ${p} processed offset`)
      } finally {
        await consumer.close()
        await running
      }
    })
  }

  test('the processed offset never passes a record that has not finished, and finished-above records are counted', async () => {
    const topic = await keyedTopic(100, (_p, i) => `k${i}`)
    const consumer = assigned(topic)
    let releaseSlow!: () => void
    const slow = new Promise<void>(resolve => { releaseSlow = resolve })
    const finished = new Set<string>()
    const unsafe: string[] = []
    const running = consumer.run({
      concurrency: 32,
      ordering: 'none',
      eachRecord: async (record, batch) => {
        if (batch.partition === 0 && record.offset === 10n) await slow
        finished.add(`${batch.partition}:${record.offset}`)
        // After every finish, the processed offset of each partition may only cover finished records.
        for (const cursor of consumerInternals(consumer).cursors) {
          for (let o = 0n; o < (cursor.processedOffset ?? 0n); o++) if (!finished.has(`${cursor.partition}:${o}`)) unsafe.push(`${cursor.partition}:${o} under ${cursor.processedOffset}`)
        }
      }
    })
    try {
      await waitFor('everything but the slow record finished', () => finished.size === 299)
      const cursor = consumerInternals(consumer).cursor(topic, 0)!
      assert.equal(cursor.processedOffset, 10n, 'partition 0 stops at its unfinished record')
      const lag = consumer.lag().find(l => l.partition === 0)!
      assert.equal(lag.finishedAbove, 89, 'records finished above the unfinished one')
      const metrics = client.metrics().consumer
      assert.equal(metrics.recordsInFlight, 1)
      assert.equal(metrics.recordsWaiting, 0)
      assert.match(client.metrics().toPrometheus(), /kafkats_consumer_finished_above\{[^}]*partition="0"\} 89/)
      const map = decodeOffsetMap(cursor.progress!.metadataFor(10n), 10n)!
      assert.deepEqual(map.ranges, [[11n, 100n]], 'the offset map of a commit at 10')
      releaseSlow()
      await waitFor('partition 0 processed', () => cursor.processedOffset === 100n)
      assert.deepEqual(unsafe, [])
    } finally {
      releaseSlow()
      await consumer.close()
      await running
    }
  })

  test('backpressure: a hot key fills its partition\'s share and that partition stops taking batches; the other partitions go on', async () => {
    // Partition 0: every record has the same key; partitions 1 and 2: all different keys.
    const topic = await keyedTopic(600, (p, i) => p === 0 ? 'hot' : `k${i}`)
    const consumer = assigned(topic, { maxBatchRecords: 50 })
    let releaseHot!: () => void
    const hot = new Promise<void>(resolve => { releaseHot = resolve })
    const handled = [0, 0, 0]
    let maxWaiting = 0
    const running = consumer.run({
      concurrency: 8,
      maxWaiting: { records: 300 },
      eachRecord: async (_record, batch) => {
        maxWaiting = Math.max(maxWaiting, client.metrics().consumer.recordsWaiting)
        if (batch.partition === 0) await hot
        handled[batch.partition]++
      }
    })
    try {
      await waitFor('the other partitions handled', () => handled[1] === 600 && handled[2] === 600, { timeoutMs: 20_000 })
      assert.equal(handled[0], 0)
      // Partition 0's share is 300 / 3 = 100 waiting records; one batch (50) may pass it.
      const waiting = client.metrics().consumer.recordsWaiting
      assert.ok(waiting >= 99 && waiting <= 150, `${waiting} records of the hot partition waiting`)
      assert.ok(maxWaiting <= 300 + 50, `${maxWaiting} records waited at once`)
      releaseHot()
      await waitFor('the hot key handled', () => handled[0] === 600, { timeoutMs: 20_000 })
    } finally {
      releaseHot()
      await consumer.close()
      await running
    }
  })

  test('a throwing handler is retried with backoff while other keys go on; its own key waits; after the limit the dead-letter hook gets it', async () => {
    const topic = await keyedTopic(20, (_p, i) => i % 2 === 0 ? 'even' : 'odd')
    const consumer = assigned(topic)
    const order: string[] = []
    const deadLetters: string[] = []
    const events: Array<{ outcome: string, attempt: number, offset: bigint }> = []
    consumer.on('handlerError', event => { if (event.partition === 0) events.push({ outcome: event.outcome, attempt: event.attempt, offset: event.offset }) })
    let attempts = 0
    const running = consumer.run({
      concurrency: 4,
      retry: { maxRetries: 2, initialMs: 20, maxMs: 40 },
      onDeadLetter: (record, error, batch) => { deadLetters.push(`${batch.partition}:${record.offset}:${(error as Error).message}`) },
      eachRecord: async (record, batch) => {
        if (batch.partition !== 0) return
        if (record.offset === 4n) {
          attempts++
          throw new Error('always fails')
        }
        order.push(`${record.key!.toString()}:${record.offset}`)
      }
    })
    try {
      await waitFor('partition 0 handled', () => order.length === 19)
      assert.equal(attempts, 3, 'the first try and two retries')
      assert.deepEqual(deadLetters, ['0:4:always fails'])
      assert.deepEqual(events.map(e => [e.outcome, e.attempt]), [['retry', 1], ['retry', 2], ['dead-letter', 2]])
      const even = order.filter(o => o.startsWith('even'))
      assert.deepEqual(even, ['even:0', 'even:2', ...Array.from({ length: 7 }, (_, i) => `even:${6 + 2 * i}`)], 'the failing key\'s later records waited for it')
      // The odd key did not wait for the retries.
      assert.ok(order.indexOf('odd:19') < order.indexOf('even:6'), `odd records waited for the failing even one: ${order.join(' ')}`)
      await waitFor('partition 0 processed', () => consumerInternals(consumer).cursor(topic, 0)?.processedOffset === 20n)
    } finally {
      await consumer.close()
      await running
    }
  })

  test('without a dead-letter hook, a record that fails past the retry limit fails run() with its error', async () => {
    const topic = await keyedTopic(10, (_p, i) => `k${i}`)
    const consumer = assigned(topic)
    const running = consumer.run({
      concurrency: 4,
      retry: { maxRetries: 1, initialMs: 5 },
      eachRecord: (record, batch) => { if (batch.partition === 1 && record.offset === 3n) throw new Error('bad record') }
    })
    await assert.rejects(running, /bad record/)
    assert.equal(consumer.closed, true)
  })

  test('the run\'s signal stops it gracefully: records taken in are handled, nothing more is taken, run() resolves', async () => {
    const topic = await keyedTopic(200, (_p, i) => `k${i % 5}`)
    const consumer = assigned(topic, { maxBatchRecords: 20 })
    const stop = new AbortController()
    let handled = 0
    const running = consumer.run({
      concurrency: 4,
      maxWaiting: { records: 30 },
      signal: stop.signal,
      eachRecord: async () => {
        if (++handled === 50) stop.abort()
        await turns(2)
      }
    })
    await running
    assert.ok(handled >= 50 && handled < 600, `${handled} handled`)
    assert.equal(client.metrics().consumer.recordsInFlight, 0)
    for (const cursor of consumerInternals(consumer).cursors) {
      const progress = cursor.progress
      assert.equal(progress?.running ?? 0, 0)
    }
    assert.equal(consumer.closed, false, 'the consumer stays open')
    await consumer.close()
  })

  test('options: concurrency excludes eachBatch and partitionsConcurrently; its own options need it', async () => {
    const consumer = assigned('concurrent-1')
    try {
      await assert.rejects(consumer.run({ concurrency: 4, eachBatch: () => {} }), /concurrency: works per record, with eachRecord/)
      await assert.rejects(consumer.run({ concurrency: 4, partitionsConcurrently: 2, eachRecord: () => {} }), /partitionsConcurrently: not with concurrency/)
      await assert.rejects(consumer.run({ ordering: 'key', eachRecord: () => {} }), /run\(\) option ordering: applies only with concurrency/)
      await assert.rejects(consumer.run({ concurrency: 0, eachRecord: () => {} }), RangeError)
      await assert.rejects(consumer.run({ concurrency: 2, ordering: 'keys' as 'key', eachRecord: () => {} }), /ordering/)
      await assert.rejects(consumer.run({ concurrency: 2, maxWaiting: { count: 3 } as never, eachRecord: () => {} }), /count/)
      // One run({ concurrency }) per consumer, and no other run() beside it: a batch another loop finishes would move the processed offset past running records.
      const running = consumer.run({ concurrency: 2, eachRecord: () => {} })
      await assert.rejects(consumer.run({ concurrency: 2, eachRecord: () => {} }), /already runs a run\(\{ concurrency \}\)/)
      await assert.rejects(consumer.run({ eachRecord: () => {} }), /already runs a run\(\{ concurrency \}\)/)
      await consumer.close()
      await running
      const other = assigned('concurrent-1')
      const batchRun = other.run({ eachRecord: () => {} })
      await assert.rejects(other.run({ concurrency: 2, eachRecord: () => {} }), /already runs a run\(\) without concurrency/)
      await other.close()
      await batchRun
    } finally {
      await consumer.close()
    }
  })
})

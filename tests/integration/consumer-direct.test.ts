// Direct consumption (Consumer.assigned) against a real Kafka 4.4 broker: seek, pause and
// resume, record timestamps and timestamp start offsets, read_committed over a log that
// the Java client wrote with committed and aborted transactions, and truncation detection
// (KIP-320) after an unclean leader change in a three-node cluster.
import { after, afterEach, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { Consumer, type AssignOptions, type TruncationEvent } from '../../consumer/consumer'
import type { KafkaRecord } from '../../protocol/record-batch'
import { sharedBootstrap, startCluster, type KafkaCluster } from '../broker/kafka'
import { requireJavaOrSkip, uniqueName } from './support'
import { compileJavaTool, contiguousFrom, mustTakeBatch, offsetsOf, openSockets, takeBatch, valuesOf, writeTransactionally, type WrittenRecord } from './consumer-support'
import { waitFor, sleep } from '../support/wait'
import { consumerInternals } from '../../consumer/consumer'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false

/** Record timestamps the tests choose: an hour ago, one second apart per offset. */
const BASE_TIMESTAMP = BigInt(Date.now()) - 3_600_000n
const timestampAt = (offset: bigint): bigint => BASE_TIMESTAMP + offset * 1000n

describe('direct consumption against a real broker', { skip, timeout: 300_000 }, () => {
  let client: Client
  const topics: string[] = []
  const consumers: Consumer[] = []
  let socketsBefore: Set<unknown>

  before(async () => {
    socketsBefore = new Set(openSockets())
    client = new Client({ bootstrap: bootstrap!, clientId: 'consumer-direct' })
  })

  // Consumers of one client share its fetch connection to each broker, where an idle
  // consumer's long poll holds up the next one's fetches: none outlives its test.
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map(async c => await c.close()))
  })

  after(async () => {
    if (topics.length > 0) await client.admin.deleteTopics(topics, { ignoreMissing: true }).catch(() => {})
    await client?.close()
    // A connection leaked by the bug the 'closing a consumer…' test shows would keep this
    // process (and the whole test run) alive: end it here; that test reports the bug.
    await sleep(200)
    for (const socket of openSockets()) if (!socketsBefore.has(socket)) socket.destroy?.()
  })

  async function newTopic (name: string, numPartitions = 1, configs?: Record<string, string>): Promise<string> {
    const topic = uniqueName(name)
    await client.admin.createTopics([{ topic, numPartitions, replicationFactor: 1, configs }])
    topics.push(topic)
    return topic
  }

  function assigned (options: AssignOptions): Consumer {
    const consumer = Consumer.assigned(client, { maxWaitMs: 100, ...options })
    consumers.push(consumer)
    return consumer
  }

  /**
   * Appends `batches` record batches of `perBatch` records to a partition; record values are
   * "<partition>:<offset>" and timestamps timestampAt(offset) (the offsets are predicted from
   * the log end, so the partition must have no other writer).
   */
  async function produce (topic: string, partition: number, batches: number, perBatch: number): Promise<void> {
    let next = (await client.listOffsets({ topic, partition, spec: 'latest' })).offset
    for (let b = 0; b < batches; b++) {
      const records = Array.from({ length: perBatch }, (_, i) => {
        const offset = next + BigInt(i)
        return { key: null, value: Buffer.from(`${partition}:${offset}`), timestamp: timestampAt(offset) }
      })
      const { baseOffset } = await client.produceRaw({ topic, partition, records })
      assert.equal(baseOffset, next)
      next += BigInt(perBatch)
    }
  }

  test('seek to an offset, earliest, a timestamp and latest: the next batch starts exactly there, and buffered batches are dropped', async () => {
    const topic = await newTopic('seek')
    await produce(topic, 0, 20, 5) // offsets 0–99
    // A small per-partition limit: each fetch brings a batch or two, and more are prefetched while one is processed.
    const consumer = assigned({ assign: [{ topic, partition: 0, offset: 0n }], maxPartitionBytes: 300 })
    const cursor = consumerInternals(consumer).cursor(topic, 0)!

    const first = await mustTakeBatch(consumer)
    assert.ok(contiguousFrom(first.batch.records, 0n), `first batch starts at ${String(first.batch.records[0]?.offset)}`)
    assert.equal(first.batch.records[0].value?.toString(), '0:0')

    // Seek while a batch is processed and more are buffered: what was buffered is dropped.
    await waitFor('a prefetched batch', () => cursor.buffered.length > 0)
    consumer.seek({ topic, partition: 0, offset: 37n })
    assert.equal(cursor.buffered.length, 0)
    assert.equal(cursor.bufferedBytes, 0)
    first.finish()
    const afterSeek = await mustTakeBatch(consumer)
    assert.ok(contiguousFrom(afterSeek.batch.records, 37n), `after seek(37) the batch starts at ${String(afterSeek.batch.records[0]?.offset)}`)
    assert.equal(afterSeek.batch.records[0].value?.toString(), '0:37')

    // 37 is inside a batch (35–39): the records before it are not handed out.
    await waitFor('a prefetched batch', () => cursor.buffered.length > 0)
    consumer.seek({ topic, partition: 0, offset: 'earliest' })
    afterSeek.finish()
    const earliest = await mustTakeBatch(consumer)
    assert.ok(contiguousFrom(earliest.batch.records, 0n), `after seek('earliest') the batch starts at ${String(earliest.batch.records[0]?.offset)}`)
    earliest.finish()

    // A timestamp between two records: the first record at or after it.
    consumer.seek({ topic, partition: 0, offset: { timestamp: timestampAt(63n) - 500n } })
    const byTimestamp = await mustTakeBatch(consumer)
    assert.ok(contiguousFrom(byTimestamp.batch.records, 63n), `after seek({ timestamp }) the batch starts at ${String(byTimestamp.batch.records[0]?.offset)}`)
    assert.equal(byTimestamp.batch.records[0].timestamp, timestampAt(63n))
    byTimestamp.finish()
    // An exact timestamp, as a Date.
    consumer.seek({ topic, partition: 0, offset: { timestamp: new Date(Number(timestampAt(80n))) } })
    const byDate = await mustTakeBatch(consumer)
    assert.ok(contiguousFrom(byDate.batch.records, 80n), `after seek({ timestamp: Date }) the batch starts at ${String(byDate.batch.records[0]?.offset)}`)
    byDate.finish()

    // 'latest': nothing until something new is written, then exactly that.
    consumer.seek({ topic, partition: 0, offset: 'latest' })
    assert.equal(await takeBatch(consumer, 1000), undefined)
    assert.equal(cursor.fetchOffset, 100n)
    await produce(topic, 0, 1, 3) // offsets 100–102
    const latest = await mustTakeBatch(consumer)
    assert.deepEqual(offsetsOf(latest.batch.records), [100n, 101n, 102n])
    assert.equal(latest.batch.nextOffset, 103n)
    latest.finish()

    // A timestamp after every record: the end of the log.
    consumer.seek({ topic, partition: 0, offset: { timestamp: timestampAt(10_000n) } })
    assert.equal(await takeBatch(consumer, 1000), undefined)
    assert.equal(cursor.fetchOffset, 103n)
    await produce(topic, 0, 1, 1)
    const end = await mustTakeBatch(consumer)
    assert.deepEqual(offsetsOf(end.batch.records), [103n])
    end.finish()

    // Seeking back to an offset already read reads it again.
    consumer.seek({ topic, partition: 0, offset: 99n })
    const again: KafkaRecord[] = []
    while (again.length < 5) {
      const handed = await mustTakeBatch(consumer)
      again.push(...handed.batch.records)
      handed.finish()
    }
    assert.deepEqual(offsetsOf(again), [99n, 100n, 101n, 102n, 103n])

    assert.throws(() => consumer.seek({ topic, partition: 1, offset: 0n }), /not assigned/)
    await consumer.close()
  })

  test('start positions: an offset, earliest, latest and { timestamp } as bigint, number and Date; for await reads in order', async () => {
    const topic = await newTopic('start', 6)
    for (let p = 0; p < 6; p++) await produce(topic, p, 4, 5) // offsets 0–19 on every partition
    const starts = [17n, 'earliest', 'latest', { timestamp: timestampAt(12n) }, { timestamp: Number(timestampAt(5n)) - 1 }, { timestamp: new Date(Number(timestampAt(19n))) }] as const
    const expectedStart = [17n, 0n, 20n, 12n, 5n, 19n]
    const consumer = assigned({ assign: starts.map((offset, partition) => ({ topic, partition, offset })) })
    // 'latest' resolved to 20: what is written after that is read.
    await waitFor("partition 2's start offset", () => consumerInternals(consumer).cursor(topic, 2)?.fetchOffset !== undefined)
    await produce(topic, 2, 1, 5) // offsets 20–24 on partition 2

    const got = new Map<number, KafkaRecord[]>()
    const expectedCount = (p: number): number => (p === 2 ? 5 : 20 - Number(expectedStart[p]))
    const complete = (): boolean => [0, 1, 2, 3, 4, 5].every(p => (got.get(p)?.length ?? 0) >= expectedCount(p))
    // The loop ends by break once everything came, or by close() if it takes too long.
    const timer = setTimeout(() => { void consumer.close() }, 30_000)
    for await (const batch of consumer) {
      const list = got.get(batch.partition) ?? []
      list.push(...batch.records)
      got.set(batch.partition, list)
      if (complete()) break
    }
    clearTimeout(timer)
    assert.ok(consumer.closed, 'leaving the for await loop closes the consumer')
    for (let p = 0; p < 6; p++) {
      const records = got.get(p) ?? []
      assert.ok(contiguousFrom(records, expectedStart[p]), `partition ${p} (expected start ${expectedStart[p]}) read from ${String(records[0]?.offset)}`)
      assert.equal(records.length, expectedCount(p), `partition ${p}: ${records.length} records`)
      for (const r of records) assert.equal(r.value?.toString(), `${p}:${r.offset}`)
    }
  })

  test('record timestamps round-trip: create time (in any order) and log-append time', async () => {
    const topic = await newTopic('timestamps')
    const chosen = [5n, 1n, 3n, 3n, 0n, 7n].map(s => BASE_TIMESTAMP + s * 1000n + 123n)
    await client.produceRaw({ topic, partition: 0, records: chosen.map((timestamp, i) => ({ value: Buffer.from(String(i)), timestamp })) })
    await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('epoch'), timestamp: 0n }] })

    const appendTopic = await newTopic('append-time', 1, { 'message.timestamp.type': 'LogAppendTime' })
    const before = BigInt(Date.now())
    await client.produceRaw({ topic: appendTopic, partition: 0, records: [{ value: Buffer.from('a'), timestamp: 1000n }, { value: Buffer.from('b'), timestamp: 2000n }] })
    const afterProduce = BigInt(Date.now())

    const consumer = assigned({ assign: [{ topic, partition: 0, offset: 'earliest' }, { topic: appendTopic, partition: 0, offset: 'earliest' }] })
    const records = new Map<string, KafkaRecord[]>([[topic, []], [appendTopic, []]])
    await waitFor('every record', async () => {
      const handed = await takeBatch(consumer, 500)
      if (handed !== undefined) {
        records.get(handed.batch.topic)!.push(...handed.batch.records)
        handed.finish()
      }
      return records.get(topic)!.length >= 7 && records.get(appendTopic)!.length >= 2
    }, { timeoutMs: 30_000, intervalMs: 0 })
    assert.deepEqual(records.get(topic)!.map(r => r.timestamp), [...chosen, 0n])
    const appended = records.get(appendTopic)!
    assert.equal(appended.length, 2)
    for (const r of appended) {
      assert.ok(r.timestamp >= before - 1000n && r.timestamp <= afterProduce + 1000n, `log-append timestamp ${r.timestamp} not in [${before}, ${afterProduce}]`)
      assert.equal(r.timestamp, appended[0].timestamp, 'one batch, one append time')
    }
    // { timestamp } start offsets use the broker's time index: a log-append topic is searched by append time.
    const { offset } = await client.listOffsets({ topic: appendTopic, partition: 0, spec: { timestamp: appended[0].timestamp } })
    assert.equal(offset, 0n)
  })

  test('pause and resume: a paused partition yields nothing while the others flow, and resumes where it stopped', async () => {
    const topic = await newTopic('pause', 3)
    for (const p of [0, 1, 2]) await produce(topic, p, 1, 5) // 0–4 everywhere
    const consumer = assigned({ assign: [0, 1, 2].map(partition => ({ topic, partition, offset: 0n })) })
    consumer.pause([{ topic, partition: 1 }])
    const got = new Map<number, KafkaRecord[]>([[0, []], [1, []], [2, []]])
    const drain = async (done: () => boolean, what: string): Promise<void> => {
      await waitFor(what, async () => {
        const handed = await takeBatch(consumer, 200)
        if (handed !== undefined) {
          got.get(handed.batch.partition)!.push(...handed.batch.records)
          handed.finish()
        }
        return done()
      }, { timeoutMs: 30_000, intervalMs: 0 })
    }
    const count = (p: number): number => got.get(p)!.length

    await drain(() => count(0) === 5 && count(2) === 5, 'partitions 0 and 2')
    for (const p of [0, 1, 2]) await produce(topic, p, 1, 5) // 5–9 everywhere
    await drain(() => count(0) === 10 && count(2) === 10, 'partitions 0 and 2 to go on while 1 is paused')
    // And for a while longer: still nothing of partition 1, which was never fetched.
    const quietUntil = Date.now() + 1000
    await drain(() => Date.now() > quietUntil, 'a quiet second')
    assert.equal(count(1), 0)
    // assigned() starts the first fetch at once, so pause() right after it can come too late
    // for that one (its records stay buffered, not handed out); nothing after it is fetched.
    assert.ok(consumerInternals(consumer).cursor(topic, 1)!.fetchOffset! <= 5n, `partition 1 fetched up to ${String(consumerInternals(consumer).cursor(topic, 1)!.fetchOffset)} while paused`)

    // Pause partition 2 with data already fetched: the buffered batch is held back too.
    await produce(topic, 2, 1, 5) // 10–14 on partition 2
    await waitFor('a buffered batch of partition 2', () => consumerInternals(consumer).cursor(topic, 2)!.buffered.length > 0)
    consumer.pause([{ topic, partition: 2 }])
    consumer.resume([{ topic, partition: 1 }])
    await drain(() => count(1) === 10, 'partition 1 after resume')
    await produce(topic, 2, 1, 5) // 15–19 on partition 2
    await produce(topic, 0, 1, 5) // 10–14 on partition 0
    await drain(() => count(0) === 15, 'partition 0')
    assert.equal(count(2), 10, 'a paused partition handed out a buffered batch')

    consumer.resume([{ topic, partition: 2 }])
    await drain(() => count(2) === 20, 'partition 2 after resume')
    for (const p of [0, 1, 2]) {
      const expected = p === 0 ? 15 : p === 1 ? 10 : 20
      assert.ok(contiguousFrom(got.get(p)!, 0n), `partition ${p}: offsets ${offsetsOf(got.get(p)!).join(',')}`)
      assert.equal(count(p), expected)
      for (const r of got.get(p)!) assert.equal(r.value?.toString(), `${p}:${r.offset}`)
    }
  })

  test('emptyBatches: an answer of only aborted data and its marker is handed out as a batch without records, covering them', async () => {
    const topic = await newTopic('empty-batches')
    const producer = client.producer({ transactionalId: uniqueName('empty-batches'), lingerMs: 1 })
    try {
      await producer.beginTransaction()
      await producer.send({ topic, partition: 0, value: 'aborted' })
      await producer.abortTransaction()
    } finally {
      await producer.close()
    }
    const plain = assigned({ assign: [{ topic, partition: 0, offset: 0n }], isolation: 'read_committed' })
    assert.equal(await takeBatch(plain, 1500), undefined, 'without the option nothing is handed out')
    assert.equal(consumerInternals(plain).cursor(topic, 0)!.fetchOffset, 2n, 'the position moved past the marker all the same')
    await plain.close()
    const consumer = assigned({ assign: [{ topic, partition: 0, offset: 0n }], isolation: 'read_committed', emptyBatches: true })
    const handed = await mustTakeBatch(consumer)
    assert.deepEqual(handed.batch.records, [])
    assert.equal(handed.batch.skippedFrom, 0n, 'from the aborted record')
    assert.equal(handed.batch.nextOffset, 2n, 'past the abort marker')
    handed.finish()
    assert.equal(await takeBatch(consumer, 500), undefined, 'one batch for the answer')
    assert.throws(() => Consumer.assigned(client, { assign: [], emptyBatches: 'yes' as unknown as boolean }), /emptyBatches/)
  })

  test('closing a consumer while its source starts a fetch leaves no connection open', async () => {
    const topic = await newTopic('close-leak')
    const before = new Set(openSockets())
    const own = new Client({ bootstrap: bootstrap!, clientId: 'consumer-direct-close' })
    try {
      // A ready 'fetch' connection in the pool and the topic's metadata: assigned() then
      // starts its first fetch at once, and close() aborts it while it takes that connection.
      await own.listOffsets({ topic, partition: 0, spec: 'latest' })
      const consumer = Consumer.assigned(own, { assign: [{ topic, partition: 0, offset: 0n }] })
      await consumer.close()
    } finally {
      await own.close()
    }
    await sleep(300)
    const leaked = openSockets().filter(socket => !before.has(socket))
    for (const socket of leaked) socket.destroy?.()
    assert.equal(leaked.length, 0, `${leaked.length} connection(s) still open after consumer.close() and client.close()`)
  })

  describe('read_committed over a log written by the Java transactional producer', { skip: requireJavaOrSkip() }, () => {
    let classes: string
    let removeClasses: (() => void) | undefined

    before(async () => {
      ({ classes, remove: removeClasses } = await compileJavaTool('TransactionalWriter'))
    })

    after(() => removeClasses?.())

    /** Reads a partition from 0 until the consumer's position reaches `end`; fails on anything after it. */
    async function readToEnd (consumer: Consumer, topic: string, end: bigint): Promise<KafkaRecord[]> {
      const records: KafkaRecord[] = []
      const cursor = consumerInternals(consumer).cursor(topic, 0)!
      await waitFor(`the consumer to reach offset ${end}`, async () => {
        const handed = await takeBatch(consumer, 200)
        if (handed !== undefined) {
          records.push(...handed.batch.records)
          handed.finish()
        }
        return handed === undefined && cursor.fetchOffset !== undefined && cursor.fetchOffset >= end && cursor.buffered.length === 0
      }, { timeoutMs: 30_000, intervalMs: 0 })
      return records
    }

    async function fetchRawAll (topic: string, isolation: 'read_committed' | 'read_uncommitted', end: bigint): Promise<{ records: KafkaRecord[], controlSeen: boolean }> {
      const records: KafkaRecord[] = []
      let offset = 0n
      let controlSeen = false
      while (offset < end) {
        // One batch per fetch as well as many: the abort marker then comes in a later response than its records.
        const fetched = await client.fetchRaw({ topic, partition: 0, offset, isolation, maxBytes: records.length % 2 === 0 ? 1 : 1 << 20 })
        assert.ok(fetched.nextOffset > offset, `fetchRaw made no progress at ${offset}`)
        if (fetched.batches.some(b => b.isControl)) controlSeen = true
        records.push(...fetched.records)
        offset = fetched.nextOffset
      }
      return { records, controlSeen }
    }

    test('committed and aborted transactions of two producers, interleaved with plain records; an open transaction holds read_committed back', async () => {
      const topic = await newTopic('txn')
      const open = assigned({ assign: [{ topic, partition: 0, offset: 0n }], isolation: 'read_committed' })
      const steps = [
        'n:2', 'b1', 't1:3', 'n:1', 'b2', 't2:2', 'c1', 't2:1', 'a2', 'n:1', // a commit lands inside an aborted transaction
        'b1', 't1:2', 'b2', 't2:2', 'a1', 'n:1', 'c2', // an abort inside a committed one
        'b2', 't2:4', 'a2', 'b1', 't1:1', 'n:2', 'hold', 'c1', 'n:1' // a transaction held open over plain records
      ]
      let lastStableWhileOpen = -1n
      const seenWhileOpen: KafkaRecord[] = []
      const written = await writeTransactionally(classes, {
        bootstrap: bootstrap!,
        topic,
        partition: 0,
        transactionalIdPrefix: uniqueName('kafkats-txn'),
        steps,
        // While the last transaction is open, read_committed stops at its first record
        // (the last stable offset), even though plain records after it are in the log.
        onHold: async (sofar: WrittenRecord[]) => {
          const { offset: logEnd } = await client.listOffsets({ topic, partition: 0, spec: 'latest' })
          const raw = await client.fetchRaw({ topic, partition: 0, offset: 0n, isolation: 'read_committed' })
          lastStableWhileOpen = raw.lastStableOffset
          assert.ok(lastStableWhileOpen < logEnd, `LSO ${lastStableWhileOpen} with a transaction open, log end ${logEnd}`)
          const visible = [...sofar].sort((a, b) => (a.offset < b.offset ? -1 : 1)).filter(r => r.status !== 'aborted' && r.offset < lastStableWhileOpen).map(r => r.value)
          const seen = seenWhileOpen
          await waitFor('read_committed records below the LSO', async () => {
            const handed = await takeBatch(open, 200)
            if (handed !== undefined) {
              seen.push(...handed.batch.records)
              handed.finish()
            }
            return seen.length >= visible.length
          }, { timeoutMs: 30_000, intervalMs: 0 })
          // Nothing at or after the LSO comes out while the transaction is open.
          const more = await takeBatch(open, 1000)
          more?.finish()
          assert.equal(more, undefined, `read_committed handed out ${more === undefined ? '' : valuesOf(more.batch.records).join(',')} past the LSO`)
          assert.deepEqual(valuesOf(seen), visible)
          assert.ok(consumerInternals(open).cursor(topic, 0)!.fetchOffset! <= lastStableWhileOpen)
        }
      })
      assert.ok(lastStableWhileOpen >= 0n, 'the hold step ran')
      const { offset: end } = await client.listOffsets({ topic, partition: 0, spec: 'latest' })
      const committed = written.filter(r => r.status !== 'aborted')
      assert.ok(written.some(r => r.status === 'aborted') && written.some(r => r.status === 'committed') && written.some(r => r.status === 'plain'))
      // Markers take offsets: the log is longer than the records.
      assert.ok(end > BigInt(written.length), `log end ${end}, ${written.length} records`)

      // The consumer that watched the open transaction goes on to the end.
      const openRest = await readToEnd(open, topic, end)
      assert.deepEqual(valuesOf([...seenWhileOpen, ...openRest]), committed.map(r => r.value))
      // (Closed first: its long poll would hold up the next consumers' fetches, see afterEach.)
      await open.close()

      // Fresh consumers from the start, with many batches per fetch and with one.
      for (const maxPartitionBytes of [1 << 20, 1]) {
        const readCommitted = assigned({ assign: [{ topic, partition: 0, offset: 0n }], isolation: 'read_committed', maxPartitionBytes })
        const got = await readToEnd(readCommitted, topic, end)
        assert.deepEqual(valuesOf(got), committed.map(r => r.value), `read_committed with maxPartitionBytes ${maxPartitionBytes}`)
        assert.deepEqual(offsetsOf(got), committed.map(r => r.offset))
        await readCommitted.close()

        const readUncommitted = assigned({ assign: [{ topic, partition: 0, offset: 0n }], isolation: 'read_uncommitted', maxPartitionBytes })
        const all = await readToEnd(readUncommitted, topic, end)
        // Every record, aborted ones included, at the offsets the Java client reported; no control record.
        assert.deepEqual(valuesOf(all), written.map(r => r.value), `read_uncommitted with maxPartitionBytes ${maxPartitionBytes}`)
        assert.deepEqual(offsetsOf(all), written.map(r => r.offset))
        await readUncommitted.close()
      }

      // The low-level fetchRaw filters the same way.
      const rawCommitted = await fetchRawAll(topic, 'read_committed', end)
      assert.deepEqual(valuesOf(rawCommitted.records), committed.map(r => r.value))
      assert.equal(rawCommitted.controlSeen, false, 'fetchRaw returned a control batch')
      const rawAll = await fetchRawAll(topic, 'read_uncommitted', end)
      assert.deepEqual(valuesOf(rawAll.records), written.map(r => r.value))
      assert.equal(rawAll.controlSeen, false, 'fetchRaw returned a control batch')
    })
  })
})

describe('truncation detection (KIP-320) after an unclean leader change on a three-node cluster', { skip: requireJavaOrSkip(), timeout: 400_000 }, () => {
  let cluster: KafkaCluster
  let client: Client
  let socketsBefore: Set<unknown>
  /** Set by the truncation test when the consumer needed a wake-up to fetch from the new leader. */
  let stalledAfterFailover: boolean | undefined

  before(async () => {
    socketsBefore = new Set(openSockets())
    cluster = await startCluster({
      nodes: 3,
      portBase: 'free',
      brokerOverrides: {
        // The controller looks for leaderless partitions to elect an unclean leader for every
        // 5 minutes by default; and a dead broker is fenced after its session timeout (9 s).
        'unclean.leader.election.interval.ms': 200,
        'broker.session.timeout.ms': 3000,
        'broker.heartbeat.interval.ms': 500
      }
    })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'consumer-truncation', requestTimeoutMs: 10_000, retryBackoff: { initialMs: 100, maxMs: 1000 } })
  })

  after(async () => {
    await client?.close()
    await cluster?.stop()
    await sleep(200)
    for (const socket of openSockets()) if (!socketsBefore.has(socket)) socket.destroy?.()
  })

  async function partitionState (topic: string): Promise<{ leader: number, leaderEpoch: number, isr: number[] } | undefined> {
    await client.metadata.refresh([topic]).catch(() => {})
    const p = client.metadata.partition(topic, 0)
    return p === undefined ? undefined : { leader: p.leaderId, leaderEpoch: p.leaderEpoch, isr: p.isr }
  }

  test('the consumer is told of the truncation, resumes at the new leader\'s end of its last epoch, and reads the new leader\'s records', async () => {
    // Replicas [1, 2]: node 1 leads, node 2 follows. Node 3 holds no replica (it keeps the
    // controller quorum alive while 1 and 2 are down).
    const topic = uniqueName('truncation')
    await client.admin.createTopics([{ topic, assignments: { 0: [1, 2] }, configs: { 'unclean.leader.election.enable': 'true', 'min.insync.replicas': '1' } }])
    const initial = await partitionState(topic)
    assert.equal(initial?.leader, 1)
    assert.deepEqual([...initial!.isr].sort(), [1, 2])

    // Ten records on both replicas.
    for (let i = 0; i < 10; i++) await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from(`both-${i}`) }], acks: 'all' })
    const consumer = Consumer.assigned(client, { maxWaitMs: 200, assign: [{ topic, partition: 0, offset: 0n }] })
    const truncations: TruncationEvent[] = []
    consumer.on('truncation', (event: TruncationEvent) => truncations.push(event))
    const records: KafkaRecord[] = []
    const readUntil = async (count: number, timeoutMs: number): Promise<boolean> => {
      const deadline = Date.now() + timeoutMs
      while (records.length < count && Date.now() < deadline) {
        const handed = await takeBatch(consumer, Math.min(1000, Math.max(1, deadline - Date.now())))
        if (handed === undefined) continue
        records.push(...handed.batch.records)
        handed.finish()
      }
      return records.length >= count
    }
    try {
      assert.ok(await readUntil(10, 30_000), `read ${records.length} of the first 10 records`)

      // Node 2 dies; once it left the ISR, five more records go to node 1 alone, and the consumer reads them.
      await cluster.node(2).kill()
      await waitFor('the ISR to shrink to [1]', async () => (await partitionState(topic))?.isr.join() === '1', { timeoutMs: 60_000, intervalMs: 200 })
      for (let i = 0; i < 5; i++) await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from(`lost-${i}`) }], acks: 1 })
      assert.ok(await readUntil(15, 30_000), `read ${records.length} of the first 15 records`)
      const cursor = consumerInternals(consumer).cursor(topic, 0)!
      assert.equal(cursor.fetchOffset, 15n)
      const epochBefore = cursor.lastFetchedEpoch
      assert.ok(epochBefore >= 0, `last fetched epoch ${epochBefore}`)

      // Node 1 dies and node 2 comes back: the only replica alive is out of sync, and the
      // topic allows it to lead. Its log ends at 10: offsets 10–14 are gone.
      await cluster.node(1).kill()
      await cluster.node(2).restart()
      await waitFor('node 2 to be elected (unclean) leader', async () => (await partitionState(topic))?.leader === 2, { timeoutMs: 120_000, intervalMs: 250 })
      const elected = (await partitionState(topic))!
      assert.ok(elected.leaderEpoch > epochBefore, `leader epoch ${elected.leaderEpoch} after the election, ${epochBefore} before`)
      assert.equal((await client.listOffsets({ topic, partition: 0, spec: 'latest' })).offset, 10n)
      for (let i = 0; i < 3; i++) {
        const { baseOffset } = await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from(`new-${i}`) }], acks: 1 })
        assert.equal(baseOffset, 10n + BigInt(i))
      }

      // The consumer's next fetch (offset 15, last fetched epoch epochBefore) gets a diverging
      // epoch back. A source that failed against the dead leader can leave the partition
      // unfetched (see the next test): then a resume() wakes the sources.
      stalledAfterFailover = !await readUntil(18, 15_000) && truncations.length === 0
      if (stalledAfterFailover) {
        consumer.resume([{ topic, partition: 0 }])
        assert.ok(await readUntil(18, 30_000), `read ${records.length} records after the leader change`)
      }
      assert.deepEqual(truncations, [{ topic, partition: 0, fetchOffset: 15n, resumeOffset: 10n }])
      assert.deepEqual(offsetsOf(records), Array.from({ length: 18 }, (_, i) => BigInt(i < 15 ? i : i - 5)))
      assert.deepEqual(valuesOf(records), [
        ...Array.from({ length: 10 }, (_, i) => `both-${i}`),
        ...Array.from({ length: 5 }, (_, i) => `lost-${i}`),
        ...Array.from({ length: 3 }, (_, i) => `new-${i}`)
      ])
      assert.equal(cursor.fetchOffset, 13n)
      // Nothing more comes: the lost records are not read again.
      assert.equal(await takeBatch(consumer, 1000), undefined)
    } finally {
      await consumer.close()
    }
  })

  test('after the leader dies, the partition is fetched from the new leader without a nudge', () => {
    assert.notEqual(stalledAfterFailover, undefined, 'the truncation test did not get that far')
    assert.equal(stalledAfterFailover, false, 'the consumer fetched nothing from the new leader for 15 s, until resume() woke its sources')
  })

  test('a consumer that was away during an unclean election starts (or seeks) at its offset and leader epoch: it resumes at the truncation point, not at the log end', async () => {
    // After the test above node 1 is down. Bring it back; replicas [3, 1] this time.
    await cluster.node(1).restart()
    const topic = uniqueName('truncation-away')
    await waitFor('node 1 to take replicas again', async () => await client.admin.createTopics([{ topic, assignments: { 0: [3, 1] }, configs: { 'unclean.leader.election.enable': 'true', 'min.insync.replicas': '1' } }]).then(() => true, () => false), { timeoutMs: 60_000, intervalMs: 500 })
    await waitFor('both replicas in sync', async () => (await partitionState(topic))?.isr.length === 2, { timeoutMs: 60_000, intervalMs: 200 })
    for (let i = 0; i < 10; i++) await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from(`both-${i}`) }], acks: 'all' })
    await cluster.node(1).kill()
    await waitFor('the ISR to shrink to [3]', async () => (await partitionState(topic))?.isr.join() === '3', { timeoutMs: 60_000, intervalMs: 200 })
    for (let i = 0; i < 5; i++) await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from(`lost-${i}`) }], acks: 1 })

    // The consumer reads all 15 and goes away, remembering its position and that batch's epoch.
    const reader = Consumer.assigned(client, { maxWaitMs: 200, assign: [{ topic, partition: 0, offset: 0n }] })
    const read: KafkaRecord[] = []
    const deadline = Date.now() + 30_000
    while (read.length < 15 && Date.now() < deadline) {
      const handed = await takeBatch(reader, 1000)
      if (handed === undefined) continue
      read.push(...handed.batch.records)
      handed.finish()
    }
    const leaderEpoch = consumerInternals(reader).cursor(topic, 0)!.lastFetchedEpoch
    await reader.close()
    assert.equal(read.length, 15)
    assert.ok(leaderEpoch >= 0, `epoch ${leaderEpoch}`)

    // Node 3 dies, node 1 comes back alone and is elected (unclean): its log ends at 10.
    await cluster.node(3).kill()
    await cluster.node(1).restart()
    await waitFor('node 1 to be elected (unclean) leader', async () => (await partitionState(topic))?.leader === 1, { timeoutMs: 120_000, intervalMs: 250 })
    await waitFor('the new leader to take writes', async () => await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('new-0') }], acks: 1 }).then(r => { assert.equal(r.baseOffset, 10n); return true }, () => false), { timeoutMs: 30_000, intervalMs: 200 })
    for (let i = 1; i < 3; i++) await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from(`new-${i}`) }], acks: 1 })
    // Offset 15 is past the new log end (13): without the epoch check the consumer would
    // reset to the end and never see new-0..2.

    const resumeFrom = async (start: (consumer: Consumer) => void, initial: bigint): Promise<{ truncations: TruncationEvent[], values: string[] }> => {
      const consumer = Consumer.assigned(client, { maxWaitMs: 200, assign: [{ topic, partition: 0, offset: initial, ...(initial === 15n ? { leaderEpoch } : {}) }] })
      const truncations: TruncationEvent[] = []
      consumer.on('truncation', (event: TruncationEvent) => truncations.push(event))
      const values: string[] = []
      try {
        start(consumer)
        const until = Date.now() + 20_000
        while (values.length < 3 && Date.now() < until) {
          const handed = await takeBatch(consumer, 1000)
          if (handed === undefined) continue
          values.push(...valuesOf(handed.batch.records))
          handed.finish()
        }
      } finally {
        await consumer.close()
      }
      return { truncations, values }
    }
    // Started from the remembered offset and epoch (as a committed offset with its leader epoch).
    const started = await resumeFrom(() => {}, 15n)
    assert.deepEqual(started.truncations, [{ topic, partition: 0, fetchOffset: 15n, resumeOffset: 10n }])
    assert.deepEqual(started.values, ['new-0', 'new-1', 'new-2'])
    // Seeked to it (the consumer started at the log end, 13).
    const seeked = await resumeFrom(consumer => consumer.seek({ topic, partition: 0, offset: 15n, leaderEpoch }), 13n)
    assert.deepEqual(seeked.truncations, [{ topic, partition: 0, fetchOffset: 15n, resumeOffset: 10n }])
    assert.deepEqual(seeked.values, ['new-0', 'new-1', 'new-2'])
  })
})

// The producer against the fake cluster: deterministic versions of the faults that made
// other clients lose or misreport records, plus the everyday contract (batching,
// ordering, backpressure, timeouts, close).
//
// The cancelled-send story (franz-go #1217): batch A is written and answered
// REQUEST_TIMED_OUT — the broker did append it. The caller aborts A. A client that then
// fails A and gives A's sequence numbers to the next batch B gets B deduplicated against
// A by the broker: B is "acknowledged" at A's offset and B's value is nowhere in the log.
import { ErrorCode } from '../../protocol/error-codes'
import { afterEach, beforeEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { getEventListeners } from 'node:events'
import { Client } from '../../index'
import { AbortedError, ClientClosedError } from '../../client/errors'
import { Produce, type ProduceRequest, type ProduceResponse } from '../../protocol/apis/produce'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { InitProducerId } from '../../protocol/apis/init-producer-id'
import { Metadata } from '../../protocol/apis/metadata'
import { Producer, type ProducerOptions, type ProducerRecord } from '../../producer/producer'
import { BufferFullError, DeliveryTimeoutError, OutcomeUnknownError, ProducerClosedError, RecordTooLargeError, SendError, TopicDeletedError } from '../../producer/errors'
import type { RecordMetadata } from '../../producer/batch'
import { FakeClock, FakeCluster, withClock, type InterceptAction } from '../../testing/index'
import { channels, type RequestTrace } from '../../client/instrumentation'
import { waitFor, outcomeWithin } from '../support/wait'
import { internal } from '../../client/internal'

const TOPIC = 't'

let cluster: FakeCluster
let client: Client
let producers: Producer[] = []
/** Clients of clockedProducer(), closed after each test. */
let ownClients: Client[] = []
let unsubscribes: Array<() => void> = []

beforeEach(async () => {
  cluster = await FakeCluster.start({ brokers: 2, topics: [{ name: TOPIC, partitions: 2, replicationFactor: 2 }], log: false })
  client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 2000 })
})

afterEach(async () => {
  for (const p of producers) await p.close({ force: true })
  producers = []
  for (const own of ownClients) await own.close()
  ownClients = []
  for (const unsubscribe of unsubscribes) unsubscribe()
  unsubscribes = []
  await client.close()
  await cluster.close()
})

function producer (options: ProducerOptions = {}): Producer {
  const p = new Producer(client, { lingerMs: 0, ...options })
  producers.push(p)
  return p
}

let clockedClients = 0

/**
 * A producer on a client of its own whose clock (a FakeClock) moves only when the test
 * moves it: its linger, backoffs and delivery timeout wait for `clock.advance`. `writes`
 * holds the clock's time at each Produce request the client writes (the public
 * 'kafkats:request' channel, published as the request goes to the socket).
 */
function clockedProducer (options: ProducerOptions = {}, retryBackoff = { initialMs: 10, maxMs: 50 }): { p: Producer, clock: FakeClock, own: Client, writes: number[] } {
  const clock = new FakeClock()
  const clientId = `clocked-${++clockedClients}`
  const own = new Client(withClock({ bootstrap: cluster.bootstrap, clientId, retryBackoff, requestTimeoutMs: 2000 }, clock))
  ownClients.push(own)
  const p = new Producer(own, { lingerMs: 0, ...options })
  producers.push(p)
  const writes: number[] = []
  const onRequest = (trace: RequestTrace): void => { if (trace.clientId === clientId && trace.api === 'Produce') writes.push(clock.now()) }
  channels.request.start.subscribe(onRequest as (message: unknown) => void)
  unsubscribes.push(() => channels.request.start.unsubscribe(onRequest as (message: unknown) => void))
  return { p, clock, own, writes }
}

/** Moves `clock` `stepMs` at a time (each step lets I/O and promise chains run) until `check()` holds; fails after `maxMs` on the clock. */
async function advanceUntil (clock: FakeClock, what: string, check: () => boolean, stepMs = 100, maxMs = 600_000): Promise<void> {
  for (let moved = 0; !check(); moved += stepMs) {
    if (moved >= maxMs) throw new Error(`${what}: not so after moving the clock ${moved} ms`)
    await clock.advance(stepMs)
  }
}

/** Whether the producer is getting a producer id (InitProducerId, retried while records wait for one). */
const acquiringIdentity = (p: Producer): boolean => (p[internal].debugState() as { acquiringIdentity: boolean }).acquiringIdentity

/** Whether the producer has answered every batch it sent (debugState's in-flight count). */
const nothingInFlight = (p: Producer): boolean => (p[internal].debugState() as { inFlightBatches: number }).inFlightBatches === 0

/** The partition of the first batch in a Produce request. */
const partitionIn = (request: ProduceRequest): number => request.topicData[0].partitionData[0].index

function values (partition = 0): string[] {
  return cluster.log(TOPIC, partition).map(r => r.value?.toString() ?? '')
}

const never = new Promise<never>(() => {})

/** The record at `result.offset` in the fake's log holds `value`. */
function assertLanded (result: RecordMetadata, value: string): void {
  const record = cluster.log(result.topic, result.partition).find(r => r.offset === result.offset)
  assert.equal(record?.value?.toString(), value, `${value} acknowledged at offset ${result.offset}, the log has ${record?.value?.toString()} there`)
}

describe('the cancelled send: an aborted record whose outcome is unknown', () => {
  const ambiguousFaults: Array<[string, () => InterceptAction<ProduceResponse>]> = [
    ['REQUEST_TIMED_OUT after the append', () => ({ error: 7, apply: true })],
    ['NOT_ENOUGH_REPLICAS_AFTER_APPEND', () => ({ error: 20, apply: true })],
    ['the connection dropped after the write', () => ({ drop: 'after-apply' })]
  ]
  for (const [name, fault] of ambiguousFaults) {
    test(`${name}: B is never reported at A's offset, and the log holds A and B`, async () => {
      const { p, clock } = clockedProducer()
      await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
      let released!: () => void
      const gate = new Promise<void>(resolve => { released = resolve })
      // A's first attempt fails ambiguously; its retries are held until the test releases them.
      cluster.intercept(Produce, fault, { times: 1 })
      cluster.intercept(Produce, () => ({ hold: gate }), { times: 1 })
      const controller = new AbortController()
      let aSettled = false
      const a = p.send({ topic: TOPIC, partition: 0, value: 'A' }, { signal: controller.signal }).finally(() => { aSettled = true })
      await advanceUntil(clock, 'the retry of A', () => cluster.produceAttempts(TOPIC, 0).length >= 3, 10)
      controller.abort(new Error('the caller gave up on A'))
      const b = p.send({ topic: TOPIC, partition: 0, value: 'B' })
      // Time passes (backoffs, timers) and the event loop runs: nothing settles A while its outcome is unknown.
      await clock.advance(1000)
      assert.equal(aSettled, false, 'A settled while its outcome was unknown')
      released()
      const [resultA, resultB] = await Promise.all([a, b])
      assertLanded(resultA, 'A')
      assertLanded(resultB, 'B')
      assert.notEqual(resultB.offset, resultA.offset)
      assert.deepEqual(values(), ['warm-up', 'A', 'B'])
      // Every attempt of A carried the same producer id, epoch and sequence.
      const attemptsOfA = cluster.produceAttempts(TOPIC, 0).filter(at => at.recordCount === 1).slice(1, 3)
      assert.equal(new Set(attemptsOfA.map(at => `${at.producerId}/${at.producerEpoch}/${at.baseSequence}`)).size, 1)
    })
  }

  test("abortUnknownOutcome 'settle': A settles at once as unknown, and the producer moves to a new epoch before B is sent", async t => {
    const p = producer({ abortUnknownOutcome: 'settle' })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    const firstIdentity = p.producerIdentity
    // Every attempt of A answers REQUEST_TIMED_OUT after appending: its outcome stays unknown.
    // By identity, not until A settles: a retry of A still in flight then reached the broker
    // after the fault was gone once (a loaded machine), succeeded, and so needed no new epoch.
    const underFirstIdentity = (records: Buffer | null): boolean => records !== null && records.readBigInt64BE(43) === firstIdentity.producerId && records.readInt16BE(51) === firstIdentity.producerEpoch
    const removeFault = cluster.intercept(Produce, ({ request }) => request.topicData[0].partitionData[0].index === 0 && underFirstIdentity(request.topicData[0].partitionData[0].records) ? { error: 7, apply: true } : undefined)
    t.after(removeFault)
    const controller = new AbortController()
    const a = p.send({ topic: TOPIC, partition: 0, value: 'A' }, { signal: controller.signal })
    await waitFor('A written', () => cluster.produceAttempts(TOPIC, 0).length >= 2)
    controller.abort()
    await assert.rejects(a, OutcomeUnknownError)
    const b = await p.send({ topic: TOPIC, partition: 0, value: 'B' })
    assertLanded(b, 'B')
    const identity = p.producerIdentity
    assert.ok(identity.producerId !== firstIdentity.producerId || identity.producerEpoch !== firstIdentity.producerEpoch, `no new epoch; log ${values().join(',')}; attempts ${cluster.produceAttempts(TOPIC, 0).map(at => `${at.producerEpoch}/${at.baseSequence}:${at.entry.action ?? ''}`).join(' ')}`)
    // B went out under the new identity, so it could not be deduplicated against A.
    const attemptOfB = cluster.produceAttempts(TOPIC, 0).at(-1)!
    assert.equal(attemptOfB.producerId, identity.producerId)
    assert.equal(attemptOfB.producerEpoch, identity.producerEpoch)
    assert.equal(attemptOfB.baseSequence, 0)
    // The new InitProducerId came before B's Produce.
    const init = cluster.requests(InitProducerId).at(-1)!
    assert.ok(init.receivedAt <= attemptOfB.receivedAt)
    assert.deepEqual(values().filter(v => v !== 'A'), ['warm-up', 'B'])
  })

  test("abortUnknownOutcome 'settle': an abort while the first attempt is in flight settles as unknown once the answer makes it unknown", async () => {
    const p = producer({ abortUnknownOutcome: 'settle' })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    let release!: () => void
    const held = new Promise<void>(resolve => { release = resolve })
    cluster.intercept(Produce, async () => { await held; return { error: 7, apply: true } }, { times: 1 })
    const removeFault = cluster.intercept(Produce, () => ({ error: 7 })) // every retry times out too
    const controller = new AbortController()
    const a = p.send({ topic: TOPIC, partition: 0, value: 'A' }, { signal: controller.signal })
    await waitFor('A in flight', () => cluster.produceAttempts(TOPIC, 0).length >= 2)
    controller.abort(new Error('caller gave up'))
    release()
    assert.match(await outcomeWithin(a, 3000), /^rejected OutcomeUnknownError/)
    removeFault()
    // The dropped batch's sequence is not reused: B goes out under a new identity.
    assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'B' }), 'B')
    assert.equal(cluster.produceAttempts(TOPIC, 0).at(-1)!.baseSequence, 0)
  })

  test('an ambiguous batch is not failed by the delivery timeout or the retry limit', async () => {
    const { p, clock } = clockedProducer({ deliveryTimeoutMs: 2000, requestTimeoutMs: 1000, maxRetries: 1 }, { initialMs: 100, maxMs: 400 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    // Timed out, not appended: the producer cannot know, so it must keep trying.
    const removeFault = cluster.intercept(Produce, () => ({ error: 7 }))
    let settled = false
    const a = p.send({ topic: TOPIC, partition: 0, value: 'A' }).finally(() => { settled = true })
    // Five times deliveryTimeoutMs on the producer's clock, retrying all along.
    await clock.advance(10_000)
    assert.equal(settled, false)
    assert.ok(cluster.produceAttempts(TOPIC, 0).length > 3, 'A was not retried')
    removeFault()
    await advanceUntil(clock, 'A answered', () => settled)
    assertLanded(await a, 'A')
    assert.deepEqual(values(), ['warm-up', 'A'])
  })

  test('a later attempt of an ambiguous batch that fails before it is written leaves it unknown, not failed', async () => {
    const { p, clock } = clockedProducer({ deliveryTimeoutMs: 10_000, requestTimeoutMs: 5000 }, { initialMs: 500, maxMs: 2000 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    // A's first attempt is appended but answered REQUEST_TIMED_OUT; the next one loses its
    // connection, and the broker it reconnects to no longer offers Produce: every later
    // attempt fails before anything is written, with an error no retry fixes by itself.
    cluster.intercept(Produce, () => ({ error: 7, apply: true }), { times: 1 })
    cluster.intercept(Produce, () => ({ drop: 'before-apply' }), { times: 1 })
    cluster.intercept(ApiVersions, () => ({ modify: response => ({ ...response, apiKeys: response.apiKeys.filter(k => k.apiKey !== Produce.key) }) }))
    let outcome = 'pending'
    const a = p.send({ topic: TOPIC, partition: 0, value: 'A' }).then(() => { outcome = 'acknowledged' }, (error: Error) => { outcome = `rejected ${error.name}` })
    // Three times deliveryTimeoutMs on the producer's clock, its retries failing all along.
    for (let i = 0; i < 30; i++) await clock.advance(1000)
    // A is in the log: reporting it failed would be a lie, and its sequence must not be reused.
    assert.deepEqual(values(), ['warm-up', 'A'])
    assert.equal(outcome, 'pending', 'A was settled although its outcome is unknown')
    await p.close({ force: true })
    await a
    assert.equal(outcome, 'rejected OutcomeUnknownError')
  })
})

describe('epoch bumps (KIP-360)', () => {
  for (const [code, name] of [[45, 'OUT_OF_ORDER_SEQUENCE_NUMBER'], [59, 'UNKNOWN_PRODUCER_ID']] as const) {
    test(`${name} on the first pending batch: the application is told, the producer bumps the epoch and resends`, async () => {
      const p = producer()
      await p.send({ topic: TOPIC, partition: 0, value: 'first' })
      const losses: unknown[] = []
      p.on('dataLoss', event => losses.push(event))
      const bumps: unknown[] = []
      p.on('epochBump', event => bumps.push(event))
      cluster.intercept(Produce, () => ({ error: code }), { times: 1 })
      const result = await p.send({ topic: TOPIC, partition: 0, value: 'second' })
      assertLanded(result, 'second')
      assert.equal(losses.length, 1)
      assert.equal(bumps.length, 1)
      assert.deepEqual(values(), ['first', 'second'])
      const last = cluster.produceAttempts(TOPIC, 0).at(-1)!
      assert.equal(last.baseSequence, 0)
      assert.equal(last.producerId, p.producerIdentity.producerId)
    })
  }

  test('a definite failure of a sent batch resets sequences under a new epoch for the batches behind it', async () => {
    // Tiny batches: 'bad' and 'good' go in separate batches, pipelined.
    const p = producer({ maxBatchBytes: 80 })
    const losses: unknown[] = []
    p.on('dataLoss', event => losses.push(event))
    await p.send({ topic: TOPIC, partition: 0, value: 'first' })
    // INVALID_RECORD (87): the batch is refused for good.
    cluster.intercept(Produce, () => ({ error: 87 }), { times: 1 })
    const bad = p.send({ topic: TOPIC, partition: 0, value: 'bad' })
    const good = p.send({ topic: TOPIC, partition: 0, value: 'good' })
    await assert.rejects(bad, (error: { code?: number, type?: string }) => error.code === 87 && error.type === 'INVALID_RECORD')
    assertLanded(await good, 'good')
    assert.deepEqual(values(), ['first', 'good'])
    // 'good', pipelined behind the gap 'bad' left, was refused as out of order: the producer's own gap, no data loss.
    assert.deepEqual(losses, [])
  })

  test("a bump caused by one partition leaves another partition's ambiguous batch to be resolved under its own identity", async () => {
    // abortUnknownOutcome 'wait' (the default): A's outcome can still be learnt by retrying it.
    const p = producer()
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up0' })
    await p.send({ topic: TOPIC, partition: 1, value: 'warm-up1' })
    const before = p.producerIdentity
    let releaseRetry!: () => void
    const retryHeld = new Promise<void>(resolve => { releaseRetry = resolve })
    let attemptsOfA = 0
    cluster.intercept(Produce, async ({ request }) => {
      if (partitionIn(request) !== 0) return undefined
      attemptsOfA++
      if (attemptsOfA === 1) return { error: 7, apply: true } // A is appended, the answer says timed out
      if (attemptsOfA === 2) { await retryHeld; return { error: 7 } } // the retry times out too
      return undefined // then the broker answers: a duplicate of A, at A's offset
    })
    cluster.intercept(Produce, ({ request }) => partitionIn(request) === 1 ? { error: 87 } : undefined, { times: 1 })
    const a = p.send({ topic: TOPIC, partition: 0, value: 'A' })
    await waitFor("A's retry", () => attemptsOfA >= 2)
    // B fails for good on partition 1: partition 1 needs a new epoch, partition 0 does not.
    await assert.rejects(p.send({ topic: TOPIC, partition: 1, value: 'B' }), (error: { code?: number, type?: string }) => error.code === 87)
    const c = p.send({ topic: TOPIC, partition: 1, value: 'C' })
    releaseRetry()
    assertLanded(await a, 'A')
    assertLanded(await c, 'C')
    assert.deepEqual(values(0), ['warm-up0', 'A'])
    assert.deepEqual(values(1), ['warm-up1', 'C'])
    // Every attempt of A carried the identity A was first sent with.
    for (const attempt of cluster.produceAttempts(TOPIC, 0).slice(1)) {
      assert.deepEqual([attempt.producerId, attempt.producerEpoch, attempt.baseSequence], [before.producerId, before.producerEpoch, 1])
    }
    const after = p.producerIdentity
    assert.notDeepEqual(after, before, 'no new identity')
    const attemptOfC = cluster.produceAttempts(TOPIC, 1).at(-1)!
    assert.deepEqual([attemptOfC.producerId, attemptOfC.producerEpoch, attemptOfC.baseSequence], [after.producerId, after.producerEpoch, 0])
  })

  test('after a bump, a partition with nothing buffered starts its sequences at 0 under the new identity', async () => {
    const p = producer()
    const losses: unknown[] = []
    p.on('dataLoss', event => losses.push(event))
    await p.send({ topic: TOPIC, partition: 1, value: 'p1-first' }) // partition 1's next sequence is 1
    cluster.intercept(Produce, ({ request }) => partitionIn(request) === 0 ? { error: 87 } : undefined, { times: 1 })
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'refused' }), (error: { code?: number, type?: string }) => error.code === 87)
    await waitFor('the bump', () => p.producerIdentity.producerEpoch > 0 || p.producerIdentity.producerId !== cluster.produceAttempts(TOPIC, 1)[0].producerId)
    assertLanded(await p.send({ topic: TOPIC, partition: 1, value: 'p1-second' }), 'p1-second')
    assert.deepEqual(losses, [])
    const attempts = cluster.produceAttempts(TOPIC, 1)
    assert.equal(attempts.length, 2, `partition 1 attempts: ${attempts.map(x => `epoch ${x.producerEpoch} seq ${x.baseSequence}`).join(' | ')}`)
    assert.equal(attempts[1].baseSequence, 0)
    assert.equal(attempts[1].producerEpoch, p.producerIdentity.producerEpoch)
  })
})

describe('ordering and retries', () => {
  test('with several batches in flight, a retriable failure in the middle keeps send order and writes each record once', async () => {
    const p = producer({ lingerMs: 1, maxBatchBytes: 200 })
    let produceCount = 0
    // The third Produce request is dropped before it reaches the log, the fifth after.
    cluster.intercept(Produce, () => {
      produceCount++
      if (produceCount === 3) return { drop: 'before-apply' }
      if (produceCount === 5) return { drop: 'after-apply' }
      if (produceCount === 7) return { error: 6 } // NOT_LEADER_OR_FOLLOWER: definite
      return undefined
    })
    const sends: Array<Promise<RecordMetadata>> = []
    for (let i = 0; i < 200; i++) sends.push(p.send({ topic: TOPIC, partition: 0, value: `v${i}` }))
    const results = await Promise.all(sends)
    results.forEach((r, i) => assertLanded(r, `v${i}`))
    assert.deepEqual(values(), Array.from({ length: 200 }, (_, i) => `v${i}`))
    // Batches really were pipelined.
    const maxInFlight = Math.max(...cluster.requests(Produce).map(r => r.correlationId)) > 5
    assert.ok(maxInFlight)
  })

  test('until a batch of the current producer id and epoch succeeded on a partition, nothing is pipelined behind it', async () => {
    // Kafka accepts any first sequence from a producer it does not know on a partition
    // (KIP-360): a second batch in flight behind a failed first one would land first.
    const p = producer({ lingerMs: 1, maxBatchBytes: 80 })
    cluster.intercept(Produce, () => ({ error: 3 }), { times: 1 }) // UNKNOWN_TOPIC_OR_PARTITION: a fresh topic
    const results = await Promise.all(Array.from({ length: 6 }, async (_, i) => await p.send({ topic: TOPIC, partition: 0, value: `f${i}` })))
    results.forEach((r, i) => assertLanded(r, `f${i}`))
    const sequences = cluster.produceAttempts(TOPIC, 0).map(a => a.baseSequence)
    // The refused first batch is retried before any later sequence is sent.
    assert.equal(sequences[0], 0)
    assert.equal(sequences[1], 0, `sent after the refused first batch: ${sequences.join(',')}`)
    assert.deepEqual(values(), Array.from({ length: 6 }, (_, i) => `f${i}`))
  })

  test('a topic with one leaderless partition: records for partitions with a leader are sent, only the leaderless one\'s wait', async () => {
    const removeLeaderless = cluster.intercept(Metadata, () => ({ modify: r => ({ ...r, topics: r.topics.map(t => t.name !== TOPIC ? t : { ...t, partitions: t.partitions.map(x => x.partitionIndex === 1 ? { ...x, errorCode: 5, leaderId: -1 } : x) }) }) }))
    const { p, clock } = clockedProducer({ metadataWaitMs: 5000 }, { initialMs: 100, maxMs: 400 })
    let settled = false
    const waiting = p.send({ topic: TOPIC, partition: 1, value: 'waits for a leader' }).finally(() => { settled = true })
    assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'p0' }), 'p0')
    // Keyless records go only to partitions that have a leader.
    for (let i = 0; i < 5; i++) assert.equal((await p.send({ topic: TOPIC, value: `any${i}` })).partition, 0)
    // Still waiting after seconds on the producer's clock (its metadata refreshes find no leader).
    await clock.advance(3000)
    assert.equal(settled, false, 'the record of the leaderless partition settled')
    removeLeaderless()
    // The producer's next metadata refresh (a backoff away on its clock) finds the leader.
    await advanceUntil(clock, 'the record sent once the partition has a leader', () => settled)
    assertLanded(await waiting, 'waits for a leader')
  })

  test('a leader move sends the partition to the new leader without reordering or duplicates', async () => {
    const p = producer({ lingerMs: 1, maxBatchBytes: 300 })
    const sends: Array<Promise<RecordMetadata>> = []
    for (let i = 0; i < 300; i++) {
      sends.push(p.send({ topic: TOPIC, partition: 0, value: `m${i}` }))
      if (i === 100) cluster.moveLeader(TOPIC, 0, cluster.leaderOf(TOPIC, 0) === 1 ? 2 : 1)
      if (i % 20 === 0) await new Promise(resolve => setImmediate(resolve))
    }
    const results = await Promise.all(sends)
    results.forEach((r, i) => assertLanded(r, `m${i}`))
    assert.deepEqual(values(), Array.from({ length: 300 }, (_, i) => `m${i}`))
    assert.equal(new Set(cluster.produceAttempts(TOPIC, 0).map(a => a.brokerId)).size, 2)
  })

  test('send([r0, r1, r2]) where r1 fails rejects with one SendError carrying every record\'s outcome by index', async () => {
    const p = producer()
    cluster.intercept(Produce, ({ request }) => partitionIn(request) === 1 ? { error: 87 } : undefined) // INVALID_RECORD on partition 1
    const error = await p.send([
      { topic: TOPIC, partition: 0, value: 'r0' },
      { topic: TOPIC, partition: 1, value: 'r1' },
      { topic: TOPIC, partition: 0, value: 'r2' }
    ]).then(() => undefined, (e: unknown) => e)
    assert.ok(error instanceof SendError, String(error))
    assert.match(error.message, /1 of 3 records of the send failed \(record 1: .*INVALID_RECORD/)
    const [o0, o1, o2] = error.outcomes
    assert.ok(o0.ok && o2.ok && !o1.ok)
    assertLanded(o0.metadata, 'r0')
    assertLanded(o2.metadata, 'r2')
    assert.equal((o1.error as { code?: number }).code, 87)
    assert.deepEqual(error.errors.map(e => e.index), [1])
    assert.deepEqual(values(0), ['r0', 'r2'])
  })

  test('keyed records go to the Java murmur2 partition and keep their order per key', async () => {
    const p = producer({ lingerMs: 2 })
    const results = await p.send(Array.from({ length: 100 }, (_, i) => ({ topic: TOPIC, key: `key-${i % 5}`, value: `${i % 5}:${i}` })))
    for (const r of results) assert.ok(r.partition === 0 || r.partition === 1)
    for (let k = 0; k < 5; k++) {
      const partition = results[k].partition
      const mine = values(partition).filter(v => v.startsWith(`${k}:`))
      assert.deepEqual(mine, Array.from({ length: 20 }, (_, j) => `${k}:${k + 5 * j}`))
    }
  })

  test('the partitioner gets the same frozen availablePartitions array for every record until metadata changes, then a new one', async () => {
    const seen: Array<readonly number[]> = []
    const p = producer({ lingerMs: 2, partitioner: input => { seen.push(input.availablePartitions); return seen.length % 2 } })
    await p.send(Array.from({ length: 50 }, (_, i) => ({ topic: TOPIC, value: `v${i}` })))
    assert.equal(seen.length, 50)
    assert.ok(seen.every(a => a === seen[0]), 'a new array for some record while metadata did not change')
    assert.deepEqual([...seen[0]], [0, 1])
    assert.ok(Object.isFrozen(seen[0]), 'the shared array can be edited by a partitioner')
    await client.metadata.refresh([TOPIC])
    await p.send({ topic: TOPIC, value: 'after' })
    assert.notEqual(seen[50], seen[0], 'the array outlived the metadata it came from')
    assert.deepEqual([...seen[50]], [0, 1])
  })
})

describe('MESSAGE_TOO_LARGE: split, and a record too large on its own fails alone', () => {
  const SMALL = 'small'
  const LIMIT = 1200
  const logOf = (partition = 0): string[] => cluster.log(SMALL, partition).map(r => r.value?.toString().slice(0, 3) ?? '')
  // Records of `size` bytes whose value starts with a 3-character name.
  const value = (name: string, size: number): string => name.padEnd(size, '.')

  for (const [name, options] of [['idempotent', {}], ['acks=1, not idempotent', { acks: 1, idempotent: false }]] as Array<[string, ProducerOptions]>) {
    test(`${name}: a batch over max.message.bytes is split down to single records; the one too large fails with its size and the limit, the others are written in order`, async () => {
      cluster.createTopic({ name: SMALL, partitions: 1, configs: { 'max.message.bytes': String(LIMIT) } })
      const p = producer({ ...options, lingerMs: 20 })
      const sizes = [300, 300, 300, 300, 300, 1500, 300, 300]
      const error = await p.send(sizes.map((size, i) => ({ topic: SMALL, partition: 0, value: value(`r${i}_`, size) }))).then(() => undefined, (e: unknown) => e)
      assert.ok(error instanceof SendError, String(error))
      assert.deepEqual(error.errors.map(e => e.index), [5])
      const tooLarge = error.outcomes[5].ok ? undefined : error.outcomes[5].error
      assert.ok(tooLarge instanceof RecordTooLargeError, String(tooLarge))
      assert.equal(tooLarge.code, 10)
      assert.equal(tooLarge.type, 'MESSAGE_TOO_LARGE')
      assert.equal(tooLarge.maxMessageBytes, LIMIT)
      assert.ok(tooLarge.recordBytes > LIMIT && tooLarge.recordBytes < 1600, String(tooLarge.recordBytes))
      assert.match(tooLarge.message, new RegExp(`${tooLarge.recordBytes} bytes .*max\\.message\\.bytes of ${LIMIT} bytes`))
      // Every other record was acknowledged where it is, once, in send order.
      error.outcomes.forEach((o, i) => { if (o.ok) assertLanded(o.metadata, value(`r${i}_`, sizes[i])) })
      assert.deepEqual(logOf(), ['r0_', 'r1_', 'r2_', 'r3_', 'r4_', 'r6_', 'r7_'])
      assert.deepEqual(p.buffered, { records: 0, bytes: 0 })
      // Every attempt that was refused was over the limit: the batch was halved, not resent whole.
      const refused = cluster.produceAttempts(SMALL, 0).filter(a => a.bytes > LIMIT)
      assert.ok(refused.every(a => a.recordCount <= 8), JSON.stringify(refused.map(a => a.recordCount)))
      assert.deepEqual(refused.map(a => a.recordCount).sort(), [1, 2, 4, 4, 8].sort())
    })
  }

  test('a split keeps sequences: batches pipelined behind the refused one land after its halves, under the same epoch and with no gap', async () => {
    cluster.createTopic({ name: SMALL, partitions: 1, configs: { 'max.message.bytes': String(LIMIT) } })
    const p = producer({ lingerMs: 20, maxBatchBytes: 2000 })
    // A first success, so the broker knows the producer and later batches are pipelined.
    await p.send({ topic: SMALL, partition: 0, value: 'c0_' })
    // Three records fill a batch (the fourth would pass batchMaxBytes): two sealed batches, sent together.
    const results = await p.send(Array.from({ length: 7 }, (_, i) => ({ topic: SMALL, partition: 0, value: value(`s${i}_`, 500) })))
    results.forEach((r, i) => assertLanded(r, value(`s${i}_`, 500)))
    assert.deepEqual(logOf(), ['c0_', 's0_', 's1_', 's2_', 's3_', 's4_', 's5_', 's6_'])
    const log = cluster.log(SMALL, 0)
    assert.equal(new Set(log.map(r => `${r.producerId}/${r.producerEpoch}`)).size, 1, 'no epoch bump')
    assert.deepEqual(log.map(r => r.sequence), [0, 1, 2, 3, 4, 5, 6, 7])
    // The second batch really was in flight behind the first (and refused as out of order).
    const attempts = cluster.produceAttempts(SMALL, 0).map(a => [a.baseSequence, a.recordCount])
    assert.deepEqual(attempts.slice(1, 3), [[1, 3], [4, 3]], JSON.stringify(attempts))
  })

  test('a gap the producer made itself is no data loss: [a, too large, c, d], the refused record fails and the epoch moves while [c, d] is in flight, [c, d] is answered out of order and resent; no dataLoss', async () => {
    cluster.createTopic({ name: SMALL, partitions: 1, configs: { 'max.message.bytes': String(LIMIT) } })
    // Small batches: a, the large record and [c, d] are three batches, the last two pipelined.
    const p = producer({ maxBatchBytes: 1000 })
    const losses: unknown[] = []
    p.on('dataLoss', event => losses.push(event))
    let bumped!: () => void
    const epochMoved = new Promise<void>(resolve => { bumped = resolve })
    p.once('epochBump', () => bumped())
    let produced = 0
    // [c, d] (the third request) is answered only after the large record failed and the epoch moved.
    cluster.intercept(Produce, () => ++produced === 3 ? { hold: epochMoved } : undefined)
    const error = await p.send([
      { topic: SMALL, partition: 0, value: 'a' },
      { topic: SMALL, partition: 0, value: value('big', 1500) },
      { topic: SMALL, partition: 0, value: 'c' },
      { topic: SMALL, partition: 0, value: 'd' }
    ]).then(() => undefined, (e: unknown) => e)
    assert.ok(error instanceof SendError, String(error))
    assert.deepEqual(error.outcomes.map(o => o.ok ? `ok@${o.metadata.offset}` : o.error.name), ['ok@0', 'RecordTooLargeError', 'ok@1', 'ok@2'])
    assert.deepEqual(logOf(), ['a', 'c', 'd'])
    // [c, d] really was refused as out of order under the old epoch before it was resent.
    const attempts = cluster.produceAttempts(SMALL, 0).map(a => `${a.recordCount}@${a.baseSequence}`)
    assert.deepEqual(attempts, ['1@0', '1@1', '2@2', '2@0'])
    assert.deepEqual(losses, [])
  })

  test('a batch whose earlier attempt may be in the log is not split: MESSAGE_TOO_LARGE then ends it as unknown', async () => {
    const p = producer({ lingerMs: 20 })
    let produced = 0
    cluster.intercept(Produce, () => {
      produced++
      // Written, no definite answer (the log has it); the retry is refused as too large.
      if (produced === 1) return { error: 7, apply: true }
      if (produced === 2) return { error: 10 }
      return undefined
    })
    const error = await p.send([{ topic: TOPIC, partition: 0, value: 'u0' }, { topic: TOPIC, partition: 0, value: 'u1' }]).then(() => undefined, (e: unknown) => e)
    assert.ok(error instanceof SendError, String(error))
    assert.ok(error.errors.length === 2 && error.errors.every(e => e.error instanceof OutcomeUnknownError), error.message)
    // Nothing was resent as halves under other sequences.
    assert.deepEqual(values(), ['u0', 'u1'])
    assert.deepEqual(cluster.produceAttempts(TOPIC, 0).map(a => a.recordCount), [2, 2])
    // The partition moved on: later records are written.
    assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'after' }), 'after')
  })
})

describe('limits and lifecycle', () => {
  test('delivery timeout fails records that were never written, and later records still go through', async () => {
    const p = producer({ deliveryTimeoutMs: 300 })
    await p.send({ topic: TOPIC, partition: 0, value: 'first' })
    const removeFault = cluster.intercept(Produce, () => ({ error: 19 })) // NOT_ENOUGH_REPLICAS: definitely not written
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'lost' }), DeliveryTimeoutError)
    removeFault()
    assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'after' }), 'after')
    assert.deepEqual(values(), ['first', 'after'])
  })

  test('InitProducerId down for longer than deliveryTimeoutMs: the records wait, then fail; the producer works again once it is back', async () => {
    const p = producer({ deliveryTimeoutMs: 300 })
    const removeOutage = cluster.intercept(InitProducerId, () => ({ error: 15 })) // COORDINATOR_NOT_AVAILABLE
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'during' }), (error: unknown) =>
      error instanceof DeliveryTimeoutError && /COORDINATOR_NOT_AVAILABLE/.test(error.message))
    // Nothing waits for an id any more: the producer stops asking while the outage lasts.
    await waitFor('the InitProducerId retries to end', () => !acquiringIdentity(p))
    removeOutage()
    assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'after' }), 'after')
    assert.deepEqual(values(), ['after'])
  })

  test("a failed metadata refresh of the producer is logged as a warning, not dropped; the records still go through once it works", async () => {
    const warnings: string[] = []
    const logger = { debug () {}, info () {}, error () {}, warn: (message: string) => { warnings.push(message) } }
    const loggedClient = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 500, logger })
    try {
      const p = new Producer(loggedClient, { lingerMs: 0 })
      await p.send({ topic: TOPIC, partition: 0, value: 'first' })
      // Every Metadata request loses its connection; one Produce does too, which makes the producer refresh.
      const removeOutage = cluster.intercept(Metadata, () => ({ drop: 'before-apply' }))
      cluster.intercept(Produce, () => ({ drop: 'before-apply' }), { times: 1 })
      const second = p.send({ topic: TOPIC, partition: 0, value: 'second' })
      await waitFor('the warning', () => warnings.some(w => w.includes('could not refresh metadata')), { timeoutMs: 20_000 })
      const warning = warnings.find(w => w.includes('could not refresh metadata'))!
      assert.match(warning, /ConnectionError/)
      removeOutage()
      assertLanded(await second, 'second')
      await p.close()
    } finally {
      await loggedClient.close()
    }
  })

  test('close() ends the retries of InitProducerId at once: no sleep outlives it, no InitProducerId is sent after it', async () => {
    // A minute between retries: only close() can end the wait in time.
    const slowClient = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 60_000, maxMs: 60_000 }, requestTimeoutMs: 2000 })
    try {
      let asked = 0
      cluster.intercept(InitProducerId, () => { asked++; return { error: 15 } }) // COORDINATOR_NOT_AVAILABLE
      const p = new Producer(slowClient, { lingerMs: 0 })
      const sent = p.send({ topic: TOPIC, partition: 0, value: 'never' })
      await waitFor('the first InitProducerId', () => asked === 1 && acquiringIdentity(p))
      await p.close({ force: true })
      await assert.rejects(sent, ProducerClosedError)
      await waitFor('the InitProducerId retries to end', () => !acquiringIdentity(p), { timeoutMs: 20_000 })
      assert.equal(asked, 1)
    } finally {
      await slowClient.close()
    }
  })

  test('InitProducerId down during an epoch bump: the partition\'s records fail by the delivery timeout, then it bumps and sends again', async () => {
    const p = producer({ deliveryTimeoutMs: 300 })
    await p.send({ topic: TOPIC, partition: 0, value: 'first' })
    const before = p.producerIdentity
    const removeOutage = cluster.intercept(InitProducerId, () => ({ error: 15 }))
    cluster.intercept(Produce, () => ({ error: 87 }), { times: 1 }) // INVALID_RECORD: partition 0 must bump
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'refused' }), (error: { code?: number, type?: string }) => error.code === 87)
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'during' }), DeliveryTimeoutError)
    // Partition 1 never needed the bump: it goes on under the old identity meanwhile.
    assertLanded(await p.send({ topic: TOPIC, partition: 1, value: 'other partition' }), 'other partition')
    await waitFor('the InitProducerId retries to end', () => !acquiringIdentity(p))
    removeOutage()
    assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'after' }), 'after')
    assert.notDeepEqual(p.producerIdentity, before)
    assert.deepEqual(values(), ['first', 'after'])
  })

  test('an abort before the record is sent removes it: it is never written', async () => {
    const p = producer({ lingerMs: 200 })
    const controller = new AbortController()
    const a = p.send({ topic: TOPIC, partition: 0, value: 'never' }, { signal: controller.signal })
    const b = p.send({ topic: TOPIC, partition: 0, value: 'kept' })
    controller.abort()
    await assert.rejects(a, (error: unknown) => error instanceof AbortedError && !error.written)
    assertLanded(await b, 'kept')
    assert.deepEqual(values(), ['kept'])
  })

  test('50 concurrent sends with one AbortSignal: one listener on the signal, no MaxListenersExceededWarning, and the abort reaches every send', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error): void => { warnings.push(warning) }
    process.on('warning', onWarning)
    try {
      // Nothing is sent while InitProducerId is held: every record is still in the buffer when the abort comes.
      let release!: () => void
      const held = new Promise<void>(resolve => { release = resolve })
      cluster.intercept(InitProducerId, () => ({ hold: held }))
      const p = producer()
      const controller = new AbortController()
      const sends = Array.from({ length: 50 }, async (_, i) => await p.send({ topic: TOPIC, partition: i % 2, value: `v${i}` }, { signal: controller.signal }))
      assert.equal(getEventListeners(controller.signal, 'abort').length, 1)
      controller.abort(new Error('shutting down'))
      const outcomes = await Promise.allSettled(sends)
      assert.deepEqual(outcomes.map(o => o.status === 'rejected' && o.reason instanceof AbortedError && !o.reason.written), outcomes.map(() => true))
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0)
      release()
      assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'after' }), 'after')
      assert.deepEqual(values(0), ['after'])
      // Warnings are emitted on a later tick.
      await new Promise(resolve => setImmediate(resolve))
      assert.deepEqual(warnings.filter(w => w.name === 'MaxListenersExceededWarning').map(w => w.message), [])
    } finally {
      process.off('warning', onWarning)
    }
  })

  test('backpressure: produce() refuses when the buffer is full and send() waits for room', async () => {
    const p = producer({ maxBufferedRecords: 5, lingerMs: 50 })
    const outcomes: Array<Error | null> = []
    const returned: boolean[] = []
    for (let i = 0; i < 8; i++) {
      returned.push(p.produce({ topic: TOPIC, partition: 1, value: `r${i}` }, error => outcomes.push(error)))
      if (i === 3) assert.equal(p.full, false)
    }
    // true: accepted; false: refused, its callback already called with BufferFullError.
    assert.deepEqual(returned, [true, true, true, true, true, false, false, false])
    assert.equal(p.full, true)
    assert.equal(outcomes.length, 3)
    assert.ok(outcomes.every(e => e instanceof BufferFullError))
    const waiting = p.send({ topic: TOPIC, partition: 1, value: 'waited' })
    assertLanded(await waiting, 'waited')
    await p.flush()
    assert.equal(values(1).length, 6)
  })

  /** The most `p.buffered` held, sampled whenever a Produce arrives and every millisecond. */
  function watchBuffered (p: Producer): { max: { records: number, bytes: number }, stop: () => void } {
    const max = { records: 0, bytes: 0 }
    const sample = (): void => {
      max.records = Math.max(max.records, p.buffered.records)
      max.bytes = Math.max(max.bytes, p.buffered.bytes)
    }
    const remove = cluster.intercept(Produce, () => { sample(); return undefined })
    const timer = setInterval(sample, 1)
    return { max, stop: () => { clearInterval(timer); remove() } }
  }

  test('one send() larger than maxBufferedRecords/maxBufferedBytes enters the buffer as records are acknowledged: all written in order, the limits never passed', async () => {
    const p = producer({ maxBufferedRecords: 40, maxBufferedBytes: 3000, lingerMs: 1, maxBatchBytes: 600 })
    const watch = watchBuffered(p)
    const count = 3000
    const sending = p.send(Array.from({ length: count }, (_, i) => ({ topic: TOPIC, partition: i % 2, value: `big-${i}` })))
    // What fits is buffered at once; the rest waits.
    assert.ok(p.buffered.records > 0 && p.buffered.records <= 40, JSON.stringify(p.buffered))
    assert.ok(p.buffered.bytes <= 3000, JSON.stringify(p.buffered))
    // produce() does not wait: it refuses while the buffer is full.
    await waitFor('a full buffer', () => p.full)
    const refused = await new Promise<Error | null>(resolve => assert.equal(p.produce({ topic: TOPIC, partition: 0, value: 'refused' }, error => resolve(error)), false))
    assert.ok(refused instanceof BufferFullError, String(refused))
    const results = await sending
    watch.stop()
    results.forEach((r, i) => assertLanded(r, `big-${i}`))
    for (const partition of [0, 1]) assert.deepEqual(values(partition), Array.from({ length: count / 2 }, (_, k) => `big-${2 * k + partition}`))
    assert.ok(watch.max.records <= 40 && watch.max.bytes <= 3000, `buffered at most ${JSON.stringify(watch.max)}`)
    assert.ok(watch.max.records > 10, `the buffer was used: ${JSON.stringify(watch.max)}`)
    assert.deepEqual(p.buffered, { records: 0, bytes: 0 })
  })

  test('sends waiting for room keep call order; an abort of a waiting send settles what was not buffered as not written; close() waits for a send still entering', async () => {
    const p = producer({ maxBufferedRecords: 10, lingerMs: 1 })
    cluster.intercept(Produce, () => ({ delayMs: 5 }))
    const first = p.send(Array.from({ length: 60 }, (_, i) => ({ topic: TOPIC, partition: 0, value: `a${i}` })))
    const second = p.send(Array.from({ length: 5 }, (_, i) => ({ topic: TOPIC, partition: 0, value: `b${i}` })))
    const controller = new AbortController()
    const aborted = p.send(Array.from({ length: 200 }, (_, i) => ({ topic: TOPIC, partition: 1, value: `c${i}` })), { signal: controller.signal })
    // Abort once part of it is written.
    await waitFor('part of the third send written', () => values(1).length >= 10)
    controller.abort()
    const error = await aborted.then(() => undefined, (e: unknown) => e)
    assert.ok(error instanceof SendError, String(error))
    const ok = error.outcomes.flatMap((o, i) => o.ok ? [i] : [])
    const failed = error.errors
    assert.ok(ok.length >= 10 && failed.length > 0, `${ok.length} written, ${failed.length} failed`)
    assert.ok(failed.every(f => f.error instanceof AbortedError && !f.error.written), failed[0].error.message)
    // Acknowledged records are the first ones, and the log holds exactly them.
    assert.deepEqual(ok, Array.from({ length: ok.length }, (_, i) => i))
    await p.flush()
    assert.deepEqual(values(1), ok.map(i => `c${i}`))
    const last = p.send(Array.from({ length: 50 }, (_, i) => ({ topic: TOPIC, partition: 0, value: `d${i}` })))
    await p.close()
    assert.equal((await last).length, 50)
    assert.equal((await first).length, 60)
    assert.equal((await second).length, 5)
    assert.deepEqual(values(0), [
      ...Array.from({ length: 60 }, (_, i) => `a${i}`),
      ...Array.from({ length: 5 }, (_, i) => `b${i}`),
      ...Array.from({ length: 50 }, (_, i) => `d${i}`)
    ])
    assert.deepEqual(p.buffered, { records: 0, bytes: 0 })
  })

  test('every record of a batch is acknowledged with its own offset and timestamp, produce() and send() alike', async () => {
    const p = producer({ lingerMs: 20 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    const results: Array<RecordMetadata | null> = []
    for (let i = 0; i < 30; i++) p.produce({ topic: TOPIC, partition: 0, value: `r${i}`, timestamp: 1_700_000_000_000 + i }, (error, result) => { results[i] = error === null ? result : null })
    const sent = await p.send(Array.from({ length: 10 }, (_, i) => ({ topic: TOPIC, partition: 1, value: `s${i}` })))
    await p.flush()
    assert.equal(cluster.produceAttempts(TOPIC, 0).length, 2, 'the 30 records went in one batch')
    for (let i = 0; i < 10; i++) {
      assertLanded(sent[i], `s${i}`)
      assert.equal(sent[i].offset, BigInt(i))
    }
    for (let i = 0; i < 30; i++) {
      assert.ok(results[i] !== null && results[i] !== undefined, `record ${i} acknowledged`)
      assertLanded(results[i]!, `r${i}`)
      assert.equal(results[i]!.offset, results[0]!.offset + BigInt(i))
      assert.equal(results[i]!.timestamp, 1_700_000_000_000n + BigInt(i))
    }
  })

  for (const compression of ['none', 'lz4'] as const) test(`full batches (compression ${compression}) reuse the encode buffers of answered ones without mixing records: every value lands once, in order, intact`, { timeout: 30_000 }, async () => {
    // Batches of about batchMaxBytes are encoded into reused buffers (BatchBuffers): a
    // buffer handed back before the socket was done with it, or to two batches at once,
    // would put one batch's bytes in another's request (a CRC error, or wrong values).
    // A compressed batch is compressed from its buffer and its compressed bytes written
    // back over the records: a buffer still being compressed must be no one else's.
    const p = producer({ maxBatchBytes: 128 * 1024, lingerMs: 5, compression })
    const expected: string[][] = [[], []]
    for (let round = 0; round < 4; round++) {
      const sends: Array<Promise<unknown>> = []
      for (let i = 0; i < 600; i++) {
        const partition = i % 2
        const value = `${round}:${i}:`.padEnd(1000, String.fromCharCode(97 + ((round * 7 + i) % 26)))
        expected[partition].push(value)
        sends.push(p.send({ topic: TOPIC, partition, value }))
      }
      await Promise.all(sends)
    }
    for (const partition of [0, 1]) {
      const log = values(partition)
      assert.equal(log.length, expected[partition].length, `partition ${partition}: ${log.length} records in the log`)
      for (let i = 0; i < log.length; i++) assert.equal(log[i], expected[partition][i], `partition ${partition}, record ${i}`)
    }
  })

  test('a record without a timestamp gets its send time: the clock is read again after each synchronous run and within a long one, and follows a wall clock stepped back', async () => {
    const p = producer({ lingerMs: 20 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    const stamps: bigint[] = []
    const produceOne = (): void => {
      const i = stamps.length
      stamps.push(-1n)
      p.produce({ topic: TOPIC, partition: 0, value: `c${i}` }, (error, result) => { stamps[i] = error === null ? result!.timestamp : -2n })
    }
    // One synchronous run: the first record, a busy wait of 20 ms, then 100 more records:
    // the last of them must not carry the first one's time.
    const before = BigInt(Date.now())
    produceOne()
    const spinUntil = Date.now() + 20
    while (Date.now() < spinUntil);
    const afterSpin = BigInt(Date.now())
    for (let i = 0; i < 100; i++) produceOne()
    // A later turn reads the clock again for its first record.
    await new Promise(resolve => setTimeout(resolve, 30))
    const nextTurn = BigInt(Date.now())
    produceOne()
    // A wall clock stepped back an hour: the next turn's records get the stepped-back time,
    // not the time read before the step (which would now be an hour in the future).
    await new Promise(resolve => setImmediate(resolve))
    const realNow = Date.now
    const stepBack = 3_600_000
    let steppedFrom: bigint
    Date.now = () => realNow() - stepBack
    try {
      steppedFrom = BigInt(Date.now())
      produceOne()
      produceOne()
    } finally {
      Date.now = realNow
    }
    const steppedTo = BigInt(Date.now()) - BigInt(stepBack)
    await p.flush()
    assert.ok(stamps.every(s => s >= 0n), 'every record acknowledged')
    assert.ok(stamps[0] >= before && stamps[0] < afterSpin, `the first record's time (${stamps[0]}) is its produce() call's`)
    assert.ok(stamps[100] >= afterSpin, `the last record of the run (${stamps[100]}) is not stamped with the run's start (${stamps[0]})`)
    assert.ok(stamps[101] >= nextTurn, `a record of a later turn (${stamps[101]}) gets that turn's time (${nextTurn})`)
    for (let i = 1; i <= 101; i++) assert.ok(stamps[i] >= stamps[i - 1], `timestamps of a steady clock never go backwards (record ${i})`)
    for (const i of [102, 103]) assert.ok(stamps[i] >= steppedFrom && stamps[i] <= steppedTo, `record ${i} after the wall clock stepped back an hour is stamped with the clock's new time (${stamps[i]}, expected ${steppedFrom}..${steppedTo})`)
  })

  test('an unknown topic waits for metadata, then fails naming the topic', async () => {
    const p = producer({ metadataWaitMs: 300 })
    await assert.rejects(p.send({ topic: 'no-such-topic', value: 'x' }), /no-such-topic/)
  })

  test('a topic created while records wait for it receives them', async () => {
    const p = producer({ metadataWaitMs: 5000 })
    const pending = p.send({ topic: 'late-topic', value: 'early' })
    await waitFor('the producer to look for late-topic', () => cluster.requests(Metadata).some(r => JSON.stringify(r.request).includes('late-topic')))
    cluster.createTopic({ name: 'late-topic', partitions: 1 })
    const result = await pending
    assert.equal(cluster.log('late-topic', 0)[0].value?.toString(), 'early')
    assert.equal(result.offset, 0n)
  })

  test('a produce() callback that throws does not stop the callbacks of the records after it; the error is emitted', async () => {
    const p = producer({ lingerMs: 50 })
    const thrown: unknown[] = []
    p.on('callbackError', error => thrown.push(error))
    const answered: number[] = []
    for (let i = 0; i < 10; i++) {
      p.produce({ topic: TOPIC, partition: 0, value: `r${i}` }, () => {
        answered.push(i)
        if (i === 3) throw new Error('the application failed on r3')
      })
    }
    assert.equal(await outcomeWithin(p.flush(), 2000), 'resolved')
    assert.deepEqual(answered, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert.equal(thrown.length, 1)
    assert.match((thrown[0] as Error).message, /failed on r3/)
  })

  test('close() flushes; close({ force }) fails what was never sent', async () => {
    const p = producer({ lingerMs: 10_000 })
    const flushed = p.send({ topic: TOPIC, partition: 0, value: 'flushed' })
    await p.close()
    assertLanded(await flushed, 'flushed')
    await assert.rejects(p.send({ topic: TOPIC, value: 'late' }), ProducerClosedError)

    const q = producer({ lingerMs: 10_000 })
    const dropped = q.send({ topic: TOPIC, partition: 1, value: 'dropped' })
    await q.close({ force: true })
    await assert.rejects(dropped, ProducerClosedError)
    assert.deepEqual(values(1), [])
  })

  test('close({ force: true }) with a batch in flight answers its record once and releases the buffer once', async () => {
    const p = producer()
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    let release!: () => void
    cluster.intercept(Produce, () => ({ hold: new Promise<void>(resolve => { release = resolve }) }), { times: 1 })
    const calls: string[] = []
    p.produce({ topic: TOPIC, partition: 0, value: 'x' }, (error, result) => calls.push(error !== null ? error.name : `offset ${String(result?.offset)}`))
    await waitFor('x in flight', () => cluster.produceAttempts(TOPIC, 0).length >= 2)
    await p.close({ force: true })
    assert.deepEqual(calls, ['OutcomeUnknownError'])
    release()
    await waitFor('the held write', () => cluster.log(TOPIC, 0).length === 2)
    // The late answer reached the producer (its in-flight count went down) and answered nothing again.
    await waitFor('the late answer', () => nothingInFlight(p))
    assert.deepEqual(calls, ['OutcomeUnknownError'])
    assert.deepEqual(p.buffered, { records: 0, bytes: 0 })
  })

  test('a non-idempotent producer (acks=1) fails an ambiguous record by the delivery timeout: nothing can be deduplicated', async () => {
    const p = producer({ acks: 1, deliveryTimeoutMs: 300 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    // Every attempt is written and answered without a definite outcome.
    const removeFault = cluster.intercept(Produce, () => ({ error: 7 })) // REQUEST_TIMED_OUT
    assert.match(await outcomeWithin(p.send({ topic: TOPIC, partition: 0, value: 'x' }), 2500), /^rejected OutcomeUnknownError: .*deliveryTimeoutMs \(300 ms\)/)
    removeFault()
    assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'after' }), 'after')
  })

  for (const [name, options] of [['idempotent', {}], ['acks=1, not idempotent', { acks: 1, idempotent: false }]] as Array<[string, ProducerOptions]>) {
    test(`${name}: a broker that closes the connection on every Produce of a batch ends it after a bounded number of tries, as unknown, with a warning; other partitions' batches are not failed with it`, async () => {
      const warnings: string[] = []
      const logger = { debug () {}, info () {}, error () {}, warn: (message: string) => { warnings.push(message) } }
      const loggedClient = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 2000, logger })
      try {
        const p = new Producer(loggedClient, { lingerMs: 0, ...options })
        await p.send([{ topic: TOPIC, partition: 0, value: 'warm-up0' }, { topic: TOPIC, partition: 1, value: 'warm-up1' }])
        // Both partitions' leaders on one broker, so their batches share requests and connections.
        cluster.moveLeader(TOPIC, 1, cluster.leaderOf(TOPIC, 0))
        await loggedClient.metadata.refresh([TOPIC])
        const before = p.producerIdentity
        // The broker closes the connection on any request that carries partition 0 (as on a request over socket.request.max.bytes).
        const carriesPartition0 = (request: ProduceRequest): boolean => request.topicData.some(t => t.partitionData.some(d => d.index === 0))
        const removeFault = cluster.intercept(Produce, ({ request }) => carriesPartition0(request) ? { drop: 'before-apply' } : undefined)
        const poisoned = p.send({ topic: TOPIC, partition: 0, value: 'poison' })
        const healthy = p.send({ topic: TOPIC, partition: 1, value: 'healthy' })
        const outcome = await outcomeWithin(poisoned, 20_000)
        assert.match(outcome, /^rejected OutcomeUnknownError: .*closed 5 times in a row.*socket\.request\.max\.bytes/)
        assertLanded(await healthy, 'healthy')
        // Five tries: the first with partition 1's batch in the same request, four alone on the connection.
        const dropped = cluster.requests(Produce).filter(r => r.outcome === 'dropped')
        assert.equal(dropped.length, 5)
        assert.ok(dropped.slice(1).every(r => r.request.topicData.length === 1 && r.request.topicData[0].partitionData.length === 1), 'retries were not alone')
        assert.equal(warnings.filter(w => w.includes('socket.request.max.bytes')).length, 1, warnings.join('\n'))
        removeFault()
        assertLanded(await p.send({ topic: TOPIC, partition: 0, value: 'after' }), 'after')
        // Idempotent: the partition moved to a new identity, so nothing can be deduplicated against the unknown batch.
        if (options.acks === undefined) assert.notDeepEqual(p.producerIdentity, before)
        await p.close()
      } finally {
        await loggedClient.close()
      }
    })
  }

  test('a batch whose topic was deleted while its outcome was unknown fails with TopicDeletedError, and flush() ends', async () => {
    const p = producer({ deliveryTimeoutMs: 300 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    cluster.intercept(Produce, () => ({ error: 7 }), { times: 1 }) // ambiguous
    const pending = p.send({ topic: TOPIC, partition: 0, value: 'x' })
    await waitFor('x written', () => cluster.produceAttempts(TOPIC, 0).length >= 2)
    // The topic is gone: Metadata no longer lists it, its partitions answer UNKNOWN_TOPIC_OR_PARTITION.
    cluster.intercept(Metadata, () => ({ modify: r => ({ ...r, topics: r.topics.map(t => t.name === TOPIC ? { ...t, errorCode: 3, partitions: [] } : t) }) }))
    cluster.intercept(Produce, () => ({ error: 3 }))
    assert.match(await outcomeWithin(pending, 3000), /^rejected TopicDeletedError: Topic "t" was deleted/)
    const error = await pending.catch((e: unknown) => e)
    assert.ok(error instanceof TopicDeletedError && error.topic === TOPIC && error.type === 'UNKNOWN_TOPIC_OR_PARTITION')
    assert.equal(await outcomeWithin(p.flush(), 2000), 'resolved')
    assert.deepEqual(p.buffered, { records: 0, bytes: 0 })
  })

  test('an answer is matched to the topic id its request carried, even when metadata dropped the topic meanwhile', async () => {
    const p = producer()
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    let release!: () => void
    const held = new Promise<void>(resolve => { release = resolve })
    cluster.intercept(Produce, async () => { await held; return { error: 3 } }, { times: 1 })
    const pending = p.send({ topic: TOPIC, partition: 0, value: 'x' })
    await waitFor('x in flight', () => cluster.produceAttempts(TOPIC, 0).length >= 2)
    // While x's request is out, the topic is deleted and the client's metadata learns it.
    cluster.intercept(Metadata, () => ({ modify: r => ({ ...r, topics: r.topics.map(t => t.name === TOPIC ? { ...t, errorCode: 3, partitions: [] } : t) }) }))
    await client.metadata.refresh([TOPIC])
    assert.equal(client.metadata.topic(TOPIC), undefined)
    release()
    // The answer (UNKNOWN_TOPIC_OR_PARTITION for the id x was sent to) is x's: a definite "not written".
    assert.match(await outcomeWithin(pending, 3000), /^rejected TopicDeletedError: .*it was not written/)
    assert.deepEqual(values(), ['warm-up'])
  })

  test('client.close() ends its producers: pending records fail at once with ClientClosedError, later calls too', async () => {
    // On a clock that does not move: the records end by the close, not by a timeout.
    const { p, own, clock } = clockedProducer({ metadataWaitMs: 60_000 })
    const startedAt = clock.now()
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    cluster.intercept(Produce, () => ({ hold: never }), { times: 1 })
    const inFlight = p.send({ topic: TOPIC, partition: 0, value: 'in flight' })
    await waitFor('the held request', () => cluster.produceAttempts(TOPIC, 0).length >= 2)
    const unseenTopic = p.send({ topic: 'not-created-yet', value: 'waits for metadata' })
    await own.close()
    assert.match(await outcomeWithin(unseenTopic, 5000), /^rejected ClientClosedError/)
    assert.match(await outcomeWithin(inFlight, 5000), /^rejected OutcomeUnknownError/)
    assert.equal(clock.now(), startedAt)
    assert.match(await outcomeWithin(p.send({ topic: TOPIC, value: 'after' }), 100), /^rejected ClientClosedError/)
    const calls: Array<Error | null> = []
    assert.equal(p.produce({ topic: TOPIC, value: 'after' }, error => calls.push(error)), false)
    assert.ok(calls[0] instanceof ClientClosedError)
  })

  test('acks=0 and non-idempotent producers', async () => {
    assert.throws(() => new Producer(client, { acks: 1, idempotent: true }), /idempotent producer needs acks='all'/)
    const p = producer({ acks: 0, idempotent: false })
    const result = await p.send({ topic: TOPIC, partition: 1, value: 'fire' })
    assert.equal(result.offset, -1n)
    await waitFor('the acks=0 record', () => values(1).length === 1)
    // Like the Java client: acks other than 'all' without an explicit idempotent: true turns idempotence off.
    const q = producer({ acks: 1 })
    assertLanded(await q.send({ topic: TOPIC, partition: 1, value: 'one' }), 'one')
    assert.equal(cluster.produceAttempts(TOPIC, 1).at(-1)!.producerId, -1n)
  })

  test('string values, headers as an object, explicit timestamps', async () => {
    const p = producer()
    const result = await p.send({ topic: TOPIC, partition: 0, key: 'k', value: 'v', headers: { h: 'x', n: null }, timestamp: 1234 })
    assert.equal(result.timestamp, 1234n)
    const record = cluster.log(TOPIC, 0)[0]
    assert.equal(record.key?.toString(), 'k')
    assert.deepEqual(record.headers.map(h => [h.key, h.value?.toString() ?? null]), [['h', 'x'], ['n', null]])
    assert.equal(record.timestamp, 1234n)
  })
})

describe('time on the client\'s clock: linger, backoff and delivery timeout move with a FakeClock', () => {
  test('a batch is not sent before lingerMs, and is sent when its linger ends', async () => {
    const { p, clock, writes } = clockedProducer({ lingerMs: 1000 })
    // flush() sends without lingering: the producer has its id and the topic's metadata after this.
    await Promise.all([p.send({ topic: TOPIC, partition: 0, value: 'warm-up' }), p.flush()])
    writes.length = 0
    const opened = clock.now()
    const sending = p.send({ topic: TOPIC, partition: 0, value: 'lingered' })
    await clock.advance(999)
    assert.deepEqual(writes.map(t => t - opened), [], 'sent before lingerMs')
    await clock.advance(1)
    await waitFor('the lingered batch to be sent', () => writes.length === 1)
    assert.equal(writes[0] - opened, 1000, 'sent at its linger\'s end')
    assertLanded(await sending, 'lingered')
  })

  test('a retry waits out its backoff (retryBackoff, with jitter), not less and not much more', async () => {
    const { p, clock, writes } = clockedProducer({}, { initialMs: 1000, maxMs: 1000 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    writes.length = 0
    cluster.intercept(Produce, () => ({ error: 19 }), { times: 2 }) // NOT_ENOUGH_REPLICAS: definitely not written, retried
    let settled = false
    const sending = p.send({ topic: TOPIC, partition: 0, value: 'retried' }).finally(() => { settled = true })
    for (let attempt = 1; attempt <= 2; attempt++) {
      // The refusal is in before time moves, so its backoff starts at the time the attempt was written.
      await waitFor(`refusal ${attempt}`, () => writes.length === attempt && nothingInFlight(p))
      await clock.advance(1000)
      await waitFor(`attempt ${attempt + 1}`, () => writes.length === attempt + 1)
    }
    const gaps = writes.slice(1).map((t, i) => t - writes[i])
    // A backoff of 1000 ms with full jitter lasts 500 to 1000 ms.
    assert.ok(gaps.every(gap => gap >= 500 && gap <= 1000), `retried after ${gaps.join(', ')} ms`)
    await advanceUntil(clock, 'the record answered', () => settled)
    assertLanded(await sending, 'retried')
  })

  test('a record that cannot be sent fails at deliveryTimeoutMs, not a millisecond before, naming the last error', async () => {
    const { p, clock, own, writes } = clockedProducer({ deliveryTimeoutMs: 5000, requestTimeoutMs: 1000 }, { initialMs: 500, maxMs: 1000 })
    await own.metadata.refresh([TOPIC])
    // No producer id: nothing can be sent, nothing is in flight; InitProducerId is retried meanwhile.
    cluster.intercept(InitProducerId, () => ({ error: 15 })) // COORDINATOR_NOT_AVAILABLE
    const opened = clock.now()
    let failedAt: number | undefined
    const lost = p.send({ topic: TOPIC, partition: 0, value: 'lost' }).then(() => undefined, (error: unknown) => { failedAt = clock.now(); return error })
    await clock.advance(4999)
    assert.equal(failedAt, undefined, 'failed before deliveryTimeoutMs')
    await clock.advance(1)
    const error = await lost
    assert.ok(error instanceof DeliveryTimeoutError, String(error))
    assert.match(error.message, /deliveryTimeoutMs \(5000 ms\).*COORDINATOR_NOT_AVAILABLE/)
    assert.equal(failedAt! - opened, 5000)
    assert.deepEqual(writes, [])
  })

  test('a producer holds no timer once idle, and none survives its client', async () => {
    const { p, clock, own } = clockedProducer({ lingerMs: 5, deliveryTimeoutMs: 5000, requestTimeoutMs: 1000 })
    // The client's own timer (the metadata max age) is there from the start; nothing buffered adds none.
    const clientTimers = clock.pendingTimers
    assert.ok(clientTimers <= 1, `${clientTimers} timer(s) before anything was sent`)
    const sending = p.send({ topic: TOPIC, partition: 1, value: 'r' })
    await advanceUntil(clock, 'the record written', () => values(1).length === 1, 5)
    await sending
    // The delivery deadline's timer runs out once, then nothing is left (no polling while idle).
    await clock.advance(5000)
    assert.equal(clock.pendingTimers, clientTimers, `${clock.pendingTimers - clientTimers} timer(s) of an idle producer`)
    // A record left buffered holds timers; closing the client ends them (and its own).
    p.send({ topic: TOPIC, partition: 1, value: 'left' }).catch(() => {})
    assert.ok(clock.pendingTimers > clientTimers)
    await own.close()
    assert.equal(clock.pendingTimers, 0, `${clock.pendingTimers} timer(s) survived the client`)
  })
})

describe('input is checked where it is passed', () => {
  const refuses = (make: () => unknown, kind: typeof TypeError | typeof RangeError, message: RegExp): void => {
    assert.throws(make, (error: unknown) => {
      assert.ok(error instanceof kind, `${String(error)} is not a ${kind.name}`)
      assert.match((error as Error).message, message)
      return true
    })
  }

  test('every producer option: type, range, allowed values, unknown keys', () => {
    const make = (options: unknown) => () => new Producer(client, options as ProducerOptions)
    refuses(make({ lingerMs: '5' }), TypeError, /producer option lingerMs: expected an integer from 0 to 2147483647, got "5" \(a string\)/)
    refuses(make({ compression: 'brotli' }), RangeError, /producer option compression: expected one of 'none', 'gzip', 'snappy', 'lz4', 'zstd', got "brotli"/)
    refuses(make({ acks: 2 }), RangeError, /producer option acks: expected one of 'all', -1, 0, 1, got 2 \(a number\)/)
    refuses(make({ maxBatchBytes: 0 }), RangeError, /producer option maxBatchBytes: expected an integer ≥ 1, got 0/)
    refuses(make({ batchMaxBytes: 0 }), RangeError, /producer option batchMaxBytes: expected an integer ≥ 1, got 0/)
    refuses(make({ maxBufferedBytes: -1 }), RangeError, /maxBufferedBytes: .*got -1/)
    refuses(make({ maxBufferedRecords: 1.5 }), TypeError, /maxBufferedRecords: .*got 1.5/)
    refuses(make({ deliveryTimeoutMs: 0 }), RangeError, /deliveryTimeoutMs: expected an integer from 1 to 2147483647, got 0/)
    refuses(make({ requestTimeoutMs: 5000, deliveryTimeoutMs: 1000 }), RangeError, /deliveryTimeoutMs: expected at least requestTimeoutMs/)
    refuses(make({ maxRetries: -1 }), RangeError, /producer option maxRetries: expected an integer ≥ 0, got -1/)
    refuses(make({ retries: -1 }), RangeError, /producer option retries: expected an integer ≥ 0, got -1/)
    refuses(make({ retries: 1, maxRetries: 2 }), TypeError, /producer option retries is the old name of maxRetries; give only maxRetries/)
    refuses(make({ idempotent: 'yes' }), TypeError, /idempotent: expected true or false/)
    refuses(make({ partitioner: 'murmur' }), RangeError, /partitioner: expected one of 'default', 'round-robin'/)
    refuses(make({ partitioner: 42 }), TypeError, /partitioner: .*a function or an object with partition\(\), got 42/)
    refuses(make({ compressionByTopic: { logs: 'brotli' } }), RangeError, /compressionByTopic\["logs"\]/)
    refuses(make({ abortUnknownOutcome: 'drop' }), RangeError, /abortUnknownOutcome: expected one of 'wait', 'settle'/)
    refuses(make({ linger: 5 }), TypeError, /producer option linger is not an option; did you mean lingerMs\?/)
    refuses(make('fast'), TypeError, /new Producer options: expected an object, got "fast"/)
    // Valid edge values pass.
    producer({ lingerMs: 0, maxRetries: 0, acks: 0, idempotent: false, partitioner: () => 0 })
  })

  test('the old names batchMaxBytes and retries still work as maxBatchBytes and maxRetries, with one warning per client through its logger', async () => {
    const warnings: string[] = []
    const logger = { debug: () => {}, info: () => {}, warn: (message: string) => { warnings.push(message) }, error: () => {} }
    const logged = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 2000, logger })
    try {
      const p = new Producer(logged, { retries: 0, batchMaxBytes: 80 })
      // retries: 0 is maxRetries: 0: a definite retriable refusal (NOT_ENOUGH_REPLICAS) fails the send at once.
      cluster.intercept(Produce, () => ({ error: ErrorCode.NOT_ENOUGH_REPLICAS }), { times: 1 })
      await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'x' }), (error: { code?: number }) => error.code === ErrorCode.NOT_ENOUGH_REPLICAS)
      await p.close()
      await new Producer(logged, { retries: 0 }).close()
      assert.deepEqual(warnings.filter(w => /deprecated/.test(w)).map(w => /option (\w+) is deprecated.*called (\w+)/.exec(w)?.slice(1, 3)), [['batchMaxBytes', 'maxBatchBytes'], ['retries', 'maxRetries']])
    } finally {
      await logged.close()
    }
  })

  test('records: value, key, headers, topic, partition and timestamp are checked before anything is buffered', async () => {
    const p = producer({ lingerMs: 20 })
    const bad: Array<[unknown, RegExp]> = [
      [{ topic: TOPIC, value: 42 }, /send\(\) record 1 value: expected a Buffer, Uint8Array, string or null \(null for a tombstone\), got 42 \(a number\)/],
      [{ topic: TOPIC, value: { a: 1 } }, /record 1 value: .*got an object/],
      [{ topic: TOPIC }, /record 1 value: .*got undefined/],
      [{ topic: TOPIC, value: 'v', key: 7 }, /record 1 key: expected a Buffer, Uint8Array, string or null, got 7/],
      [{ value: 'v' }, /record 1 topic: expected a non-empty string, got undefined/],
      [{ topic: TOPIC, value: 'v', headers: { h: 5 } }, /record 1 headers\["h"\]: expected a Buffer, Uint8Array, string or null.*got 5/],
      [{ topic: TOPIC, value: 'v', headers: [{ key: 'h', value: {} }] }, /record 1 headers\[0\]\.value: .*got an object/],
      [{ topic: TOPIC, value: 'v', timestamp: '2024-01-01' }, /record 1 timestamp: expected milliseconds since the epoch as a number or bigint, or a Date, got "2024-01-01"/],
      [{ topic: TOPIC, value: 'v', partition: -1 }, /record 1 partition: expected an integer from 0 to 2147483647, got -1/]
    ]
    for (const [record, message] of bad) {
      await assert.rejects(p.send([{ topic: TOPIC, partition: 0, value: 'good' }, record as ProducerRecord]), (error: unknown) => {
        // TypeError for the wrong kind of value, RangeError for a number out of range (partition -1).
        assert.ok(error instanceof TypeError || error instanceof RangeError, String(error))
        assert.match((error as Error).message, message)
        return true
      })
    }
    refuses(() => p.produce({ topic: TOPIC, value: 1 } as unknown as ProducerRecord, () => {}), TypeError, /produce\(\) record value: .*got 1/)
    await p.flush()
    assert.deepEqual(values(), [], 'a record of a refused call was written')
    assert.deepEqual(p.buffered, { records: 0, bytes: 0 })
  })

  test('accepted shapes: Uint8Array and string bytes, headers as an array or a kafkajs-style object with repeated values', async () => {
    const p = producer()
    const result = await p.send({ topic: TOPIC, partition: 0, key: new Uint8Array([107]), value: new TextEncoder().encode('v'), headers: { a: 'x', b: ['1', Buffer.from('2')], c: null } })
    assertLanded(result, 'v')
    await p.send({ topic: TOPIC, partition: 0, value: null, headers: [{ key: 'z', value: new Uint8Array([65]) }] })
    const [first, second] = cluster.log(TOPIC, 0)
    assert.equal(first.key?.toString(), 'k')
    assert.deepEqual(first.headers.map(h => [h.key, h.value?.toString() ?? null]), [['a', 'x'], ['b', '1'], ['b', '2'], ['c', null]])
    assert.equal(second.value, null)
    assert.deepEqual(second.headers.map(h => [h.key, h.value?.toString()]), [['z', 'A']])
  })

  test('an invalid topic name fails at once, never retried, and does not hold up sends to other topics', async () => {
    // On a clock that does not move: no wait for the name to appear (metadataWaitMs) ends it.
    const { p, clock } = clockedProducer({ metadataWaitMs: 30_000 })
    const startedAt = clock.now()
    const metadataBefore = cluster.requests(Metadata).length
    const invalid = p.send({ topic: 'no spaces allowed!', value: 'x' })
    const valid = p.send({ topic: TOPIC, partition: 0, value: 'ok' })
    assert.match(await outcomeWithin(invalid, 5000), /^rejected RangeError: send\(\) record topic: expected a Kafka topic name .*INVALID_TOPIC_EXCEPTION/)
    assertLanded(await valid, 'ok')
    assert.equal(clock.now(), startedAt)
    assert.ok(!cluster.requests(Metadata).slice(metadataBefore).some(r => JSON.stringify(r.request).includes('no spaces allowed')), 'the invalid name reached the broker')
    for (const name of ['.', '..', 'x'.repeat(250)]) await assert.rejects(p.send({ topic: name, value: 'x' }), RangeError)
  })

  test("the kafkajs call shape send({ topic, messages }) is refused with the shape to use", async () => {
    const p = producer()
    await assert.rejects(p.send({ topic: TOPIC, messages: [{ value: 'x' }] } as unknown as ProducerRecord), (error: unknown) =>
      error instanceof TypeError && /not the kafkajs shape \{ topic, messages \}/.test(error.message) && /kafkats\/kafkajs/.test(error.message))
  })

  test('calls on a closed producer fail at once', async () => {
    const p = producer()
    await p.close()
    assert.match(await outcomeWithin(p.send({ topic: TOPIC, value: 'x' }), 100), /^rejected ProducerClosedError/)
    assert.match(await outcomeWithin(p.send({ topic: 'never-seen', value: 'x' }), 100), /^rejected ProducerClosedError/)
  })
})

// Answers that cannot change are not retried without end (invariant 9).
//
// A Kafka broker before 2.1 speaks Produce up to v6 and cannot read a zstd batch (zstd came
// with Produce v7, KIP-110): it answers every attempt UNKNOWN_SERVER_ERROR ("Unknown
// compression type id: 4" in its log). kafkats took that as an unknown outcome and retried
// it for ever, past the delivery timeout, and close() hung with it. The fake cluster plays
// that broker: its ApiVersions lists Produce up to v6, and it refuses zstd batches below v7.
import { test, describe, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../client/client'
import { UnsupportedVersionError } from '../../client/errors'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { Produce } from '../../protocol/apis/produce'
import { ErrorCode } from '../../protocol/error-codes'
import { Producer, type ProducerOptions } from '../../producer/producer'
import { OutcomeUnknownError } from '../../producer/errors'
import { FakeClock, FakeCluster, withClock } from '../../testing/index'
import { outcomeWithin } from '../support/wait'
import { moveThroughBackoffs } from '../support/clock'

const TOPIC = 't'
/** Codec id in a record batch's attributes (bits 0–2 of the int16 at byte 21). */
const codecOf = (batch: Buffer | null): number => batch === null ? 0 : batch.readInt16BE(21) & 7

let cluster: FakeCluster
/** The codec of every batch of every Produce request the broker received. */
let codecsReceived: number[] = []
let clients: Client[] = []
let producers: Producer[] = []

beforeEach(async () => {
  cluster = await FakeCluster.start({ brokers: 1, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }], log: false })
  codecsReceived = []
  cluster.intercept(Produce, ({ request }) => {
    for (const t of request.topicData) for (const d of t.partitionData) codecsReceived.push(codecOf(d.records))
    return undefined
  })
})

afterEach(async () => {
  for (const p of producers) await p.close({ force: true })
  producers = []
  for (const c of clients) await c.close()
  clients = []
  await cluster.close()
})

function clockedProducer (options: ProducerOptions, retryBackoff = { initialMs: 10, maxMs: 50 }): { p: Producer, clock: FakeClock } {
  const clock = new FakeClock()
  const client = new Client(withClock({ bootstrap: cluster.bootstrap, retryBackoff, requestTimeoutMs: 2000 }, clock))
  clients.push(client)
  const p = new Producer(client, { lingerMs: 0, ...options })
  producers.push(p)
  return { p, clock }
}

/** The broker speaks Produce up to v6 (Kafka 2.0) and answers a zstd batch UNKNOWN_SERVER_ERROR, as Kafka 2.0 does. */
function actAsKafka20 (): void {
  cluster.intercept(ApiVersions, () => ({ modify: response => ({ ...response, apiKeys: response.apiKeys.map(k => k.apiKey === Produce.key ? { ...k, maxVersion: 6 } : k) }) }))
  cluster.intercept(Produce, ({ request, version }) =>
    version < 7 && request.topicData.some(t => t.partitionData.some(d => codecOf(d.records) === 4)) ? { error: ErrorCode.UNKNOWN_SERVER_ERROR } : undefined)
}

/**
 * Moves `clock` while `pending()`, at most `maxMs` on it, and only while the producer waits on
 * it (a timer due within `stepMs`: a retry's backoff): its I/O with the fake broker is real, and
 * on a loaded machine it takes real time that must not count as the producer's.
 */
async function advanceWhile (clock: FakeClock, pending: () => boolean, maxMs: number, stepMs = 100): Promise<void> {
  const start = clock.now()
  // The calls are watched through `pending`, not through a promise of their own.
  const unwatched = new Promise<never>(() => {})
  await moveThroughBackoffs(clock, unwatched, () => !pending() || clock.now() - start >= maxMs, { stepMs })
}

describe('zstd to a broker before Kafka 2.1 (Produce up to v6)', () => {
  for (const [name, options] of [['idempotent', {}], ['acks=1, not idempotent', { acks: 1, idempotent: false }], ['transactional', { transactionalId: 'tx-zstd' }]] as Array<[string, ProducerOptions]>) {
    test(`${name}: the record fails at once with an error naming the codec, the versions and the alternatives; nothing is sent; close() returns`, async () => {
      actAsKafka20()
      const { p, clock } = clockedProducer({ ...options, compression: 'zstd', deliveryTimeoutMs: 120_000 })
      if (options.transactionalId !== undefined) await p.beginTransaction()
      let outcome = 'pending'
      const sent = p.send({ topic: TOPIC, partition: 0, value: 'z' }).then(() => { outcome = 'acknowledged' }, (error: Error) => { outcome = `rejected ${error.name}: ${error.message}` })
      // A tenth of the delivery timeout, on the producer's clock: no retry may be needed to know.
      await advanceWhile(clock, () => outcome === 'pending', 12_000)
      assert.notEqual(outcome, 'pending', 'still retrying after 12 s')
      await sent
      assert.match(outcome, /^rejected UnsupportedVersionError: /)
      assert.match(outcome, /compression 'zstd' needs Produce v7 or later \(Kafka 2\.1 or later\)/)
      assert.match(outcome, /speaks Produce up to v6/)
      assert.match(outcome, /'gzip', 'snappy', 'lz4' or 'none'/)
      assert.match(outcome, /not in the log/)
      // Refused before the write: the broker never saw a zstd batch.
      assert.deepEqual(codecsReceived, [])
      assert.deepEqual(cluster.log(TOPIC, 0), [])
      if (options.transactionalId !== undefined) await p.abortTransaction()
      assert.equal(await outcomeWithin(p.close(), 5000), 'resolved')
    })
  }

  test('another codec on the same producer still goes through (compressionByTopic), and zstd goes through on a broker with Produce v7+', async () => {
    actAsKafka20()
    const { p } = clockedProducer({ compression: 'zstd', compressionByTopic: { [TOPIC]: 'lz4' } })
    const result = await p.send({ topic: TOPIC, partition: 0, value: 'lz4 is fine' })
    assert.equal(result.offset, 0n)
    cluster.clearInterceptors()
    codecsReceived.push(-1)
    cluster.intercept(Produce, ({ request }) => { codecsReceived.push(codecOf(request.topicData[0].partitionData[0].records)); return undefined })
    const modern = new Client({ bootstrap: cluster.bootstrap })
    clients.push(modern)
    const zstd = new Producer(modern, { compression: 'zstd', lingerMs: 0 })
    producers.push(zstd)
    assert.equal((await zstd.send({ topic: TOPIC, partition: 0, value: 'zstd' })).offset, 1n)
    assert.deepEqual(codecsReceived, [3, -1, 4])
  })

  test('the UnsupportedVersionError is the one kafkats exports', () => {
    assert.equal(new UnsupportedVersionError('x').kind, 'UNSUPPORTED_VERSION')
  })
})

describe('the same refusal from a live broker (UNKNOWN_SERVER_ERROR) is not retried without end', () => {
  for (const [name, options] of [['idempotent', {}], ['acks=1, not idempotent', { acks: 1, idempotent: false }]] as Array<[string, ProducerOptions]>) {
    test(`${name}: after a bounded number of tries the record ends as unknown, the partition moves on, close() returns`, async () => {
      const { p, clock } = clockedProducer({ ...options, deliveryTimeoutMs: 600_000 })
      await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
      const before = p.producerIdentity
      const removeFault = cluster.intercept(Produce, () => ({ error: ErrorCode.UNKNOWN_SERVER_ERROR }))
      let outcome = 'pending'
      const sent = p.send({ topic: TOPIC, partition: 0, value: 'refused' }).then(() => { outcome = 'acknowledged' }, (error: Error) => { outcome = `rejected ${error.name}: ${error.message}` })
      // Far less than the delivery timeout: the bound is the number of tries.
      await advanceWhile(clock, () => outcome === 'pending', 60_000)
      assert.notEqual(outcome, 'pending', 'still retrying after 60 s')
      await sent
      assert.match(outcome, /^rejected OutcomeUnknownError: .*answered UNKNOWN_SERVER_ERROR \(-1\) 5 times in a row/)
      assert.equal(cluster.produceAttempts(TOPIC, 0).length, 1 + 5)
      removeFault()
      // What follows is sent (under a new epoch when idempotent: nothing is deduplicated against the refused batch).
      let after = 'pending'
      const next = p.send({ topic: TOPIC, partition: 0, value: 'after' }).then(result => { after = `offset ${result.offset}` }, (error: Error) => { after = `rejected ${error.message}` })
      await advanceWhile(clock, () => after === 'pending', 60_000)
      await next
      assert.equal(after, 'offset 1')
      if (options.idempotent !== false) {
        const identity = p.producerIdentity
        assert.ok(identity.producerId !== before.producerId || identity.producerEpoch !== before.producerEpoch, 'no new epoch after giving up on a batch whose outcome is unknown')
      }
      assert.equal(await outcomeWithin(p.close(), 5000), 'resolved')
    })
  }

  test('the delivery timeout ends a refused batch too, when it comes before the last try', async () => {
    // Backoffs of 4 s and a delivery timeout of 5 s: the second or third try is past it.
    const { p, clock } = clockedProducer({ deliveryTimeoutMs: 5000 }, { initialMs: 4000, maxMs: 4000 })
    await p.send({ topic: TOPIC, partition: 0, value: 'warm-up' })
    cluster.intercept(Produce, () => ({ error: ErrorCode.UNKNOWN_SERVER_ERROR }))
    let outcome = 'pending'
    const sent = p.send({ topic: TOPIC, partition: 0, value: 'refused' }).then(() => { outcome = 'acknowledged' }, (error: Error) => { outcome = `rejected ${error.name}: ${error.message}` })
    let closed = 'pending'
    const closing = p.close().then(() => { closed = 'closed' })
    await advanceWhile(clock, () => outcome === 'pending' || closed === 'pending', 60_000, 4999)
    assert.notEqual(outcome, 'pending', 'still retrying after 60 s')
    assert.equal(closed, 'closed', 'close() still waiting after 60 s')
    await sent
    await closing
    assert.match(outcome, /^rejected OutcomeUnknownError: .*deliveryTimeoutMs \(5000 ms\).*The broker refused every attempt since the same way; the partition moves to a new producer epoch/)
    assert.ok(cluster.produceAttempts(TOPIC, 0).length < 1 + 5, 'ended by the number of tries, not the delivery timeout')
    assert.ok(outcome.includes('UNKNOWN_SERVER_ERROR'))
    assert.ok(new OutcomeUnknownError('x') instanceof OutcomeUnknownError)
  })
})

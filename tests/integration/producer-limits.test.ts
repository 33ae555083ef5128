// The producer's size limits against a real broker: a batch over the topic's
// max.message.bytes is split (one record too large fails alone, naming its size and the
// limit), and one send() larger than the producer's buffer waits for room as earlier
// records are acknowledged.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, Producer, RecordTooLargeError, SendError } from '../../index'
import { sharedBootstrap } from '../broker/kafka'
import { forEachLogRecord } from './chaos-support'
import { uniqueName } from './support'

const bootstrap = sharedBootstrap()
/** Records of the one big send (PRODUCER_LIMITS_RECORDS=1000000 for the full size). */
const BIG_SEND = Number(process.env.PRODUCER_LIMITS_RECORDS ?? 100_000)
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false

describe('producer size limits against a real broker', { skip, timeout: 120_000 }, () => {
  let client: Client
  const topics: string[] = []
  before(async () => { client = new Client({ bootstrap: bootstrap!, clientId: 'producer-limits' }) })
  after(async () => {
    if (topics.length > 0) await client.admin.deleteTopics(topics, { ignoreMissing: true }).catch(() => {})
    await client?.close()
  })
  async function newTopic (name: string, configs: Record<string, string> = {}): Promise<string> {
    const topic = uniqueName(name)
    await client.admin.createTopics([{ topic, numPartitions: 1, replicationFactor: 1, configs }])
    topics.push(topic)
    return topic
  }
  async function logValues (topic: string): Promise<string[]> {
    const values: string[] = []
    await forEachLogRecord(client, topic, 0, r => values.push(r.value?.toString() ?? ''))
    return values
  }

  test('max.message.bytes 2000: a batch of 12 records is split; the one record over the limit fails alone with its size and the limit, the other 11 are written in order', async () => {
    const limit = 2000
    const topic = await newTopic('too-large', { 'max.message.bytes': String(limit) })
    const producer = new Producer(client, { lingerMs: 50 })
    try {
      const values = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}:`.padEnd(i === 7 ? 3000 : 400, 'x'))
      const error = await producer.send(values.map(value => ({ topic, partition: 0, value }))).then(() => undefined, (e: unknown) => e)
      assert.ok(error instanceof SendError, String(error))
      assert.deepEqual(error.errors.map(e => e.index), [7])
      const tooLarge = error.errors[0].error
      assert.ok(tooLarge instanceof RecordTooLargeError, String(tooLarge))
      assert.equal(tooLarge.maxMessageBytes, limit)
      assert.ok(tooLarge.recordBytes > 3000, String(tooLarge.recordBytes))
      assert.match(tooLarge.message, new RegExp(`${tooLarge.recordBytes} bytes .*max\\.message\\.bytes of ${limit} bytes`))
      const written = values.filter((_, i) => i !== 7)
      assert.deepEqual(await logValues(topic), written)
      // Each acknowledgement names the offset its record is at.
      const offsets = error.outcomes.flatMap(o => o.ok ? [o.metadata.offset] : [])
      assert.deepEqual(offsets, written.map((_, i) => BigInt(i)))
    } finally {
      await producer.close()
    }
  })

  test(`one send() of ${BIG_SEND} records with maxBufferedRecords 2,000 / maxBufferedBytes 128 KiB waits for room: every record written once, in order, the buffer never over its limits`, async () => {
    const topic = await newTopic('big-send')
    const maxBufferedRecords = 2000
    const maxBufferedBytes = 128 * 1024
    const producer = new Producer(client, { maxBufferedRecords, maxBufferedBytes })
    const max = { records: 0, bytes: 0 }
    const sample = (): void => {
      max.records = Math.max(max.records, producer.buffered.records)
      max.bytes = Math.max(max.bytes, producer.buffered.bytes)
    }
    const timer = setInterval(sample, 1)
    try {
      const started = Date.now()
      const heapBefore = process.memoryUsage().heapUsed
      const sending = producer.send(Array.from({ length: BIG_SEND }, (_, i) => ({ topic, partition: 0, value: String(i).padStart(40, '0') })))
      sample()
      const results = await sending
      clearInterval(timer)
      console.log(`${BIG_SEND} records in ${Date.now() - started} ms; buffered at most ${JSON.stringify(max)}; heap +${Math.round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20)} MB (the results included)`)
      assert.ok(max.records <= maxBufferedRecords && max.bytes <= maxBufferedBytes, `buffered at most ${JSON.stringify(max)}`)
      assert.ok(max.records > maxBufferedRecords / 4, `the buffer was used: ${JSON.stringify(max)}`)
      assert.ok(results.every((r, i) => r.offset === BigInt(i)), 'acknowledged at offsets 0..n-1 in send order')
      let next = 0
      let wrong = 0
      const { count } = await forEachLogRecord(client, topic, 0, r => { if (r.value?.toString() !== String(next++).padStart(40, '0')) wrong++ })
      assert.equal(count, BIG_SEND)
      assert.equal(wrong, 0, `${wrong} records out of place`)
    } finally {
      clearInterval(timer)
      await producer.close()
    }
  })

  test('a record larger than one request can carry (100 MiB, over maxRequestBytes) fails at once with RecordTooLargeError naming maxRequestBytes; send() and close() settle, later records are written', async () => {
    const topic = await newTopic('over-request')
    const producer = new Producer(client)
    try {
      const huge = Buffer.alloc(100 * 1024 * 1024, 'x')
      const started = Date.now()
      const error = await producer.send({ topic, value: huge }).then(() => undefined, (e: unknown) => e)
      assert.ok(error instanceof RecordTooLargeError, String(error))
      assert.equal(error.producerOption, 'maxRequestBytes')
      assert.ok(error.recordBytes > huge.length, String(error.recordBytes))
      assert.match(error.message, /over the producer's maxRequestBytes of 33554432 bytes\. It was not sent/)
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`)
      let callbackError: unknown
      assert.equal(producer.produce({ topic, value: huge }, e => { callbackError = e }), false)
      assert.ok(callbackError instanceof RecordTooLargeError)
      // A record over the buffer (and under the request limit) names maxBufferedBytes.
      const small = new Producer(client, { maxBufferedBytes: 1024 * 1024 })
      const overBuffer = await small.send({ topic, value: Buffer.alloc(2 * 1024 * 1024) }).then(() => undefined, (e: unknown) => e)
      assert.ok(overBuffer instanceof RecordTooLargeError && overBuffer.producerOption === 'maxBufferedBytes', String(overBuffer))
      await small.close()
      await producer.send({ topic, partition: 0, value: 'after' })
      assert.deepEqual(await logValues(topic), ['after'])
    } finally {
      await producer.close()
    }
  })

  test('maxRequestBytes raised over the broker\'s socket.request.max.bytes (100 MiB): the broker closes the connection on the request each time, and the send ends as OutcomeUnknownError after a bounded number of tries', async () => {
    const topic = await newTopic('over-socket-limit', { 'max.message.bytes': String(200 * 1024 * 1024) })
    const producer = new Producer(client, { maxRequestBytes: 200 * 1024 * 1024, maxBufferedBytes: 256 * 1024 * 1024, maxBatchBytes: 200 * 1024 * 1024 })
    try {
      const error = await producer.send({ topic, partition: 0, value: Buffer.alloc(101 * 1024 * 1024, 'y') }).then(() => undefined, (e: unknown) => e)
      assert.ok(error instanceof Error && error.name === 'OutcomeUnknownError', String(error))
      assert.match(error.message, /closed 5 times in a row.*socket\.request\.max\.bytes/)
      await producer.send({ topic, partition: 0, value: 'after' })
      assert.deepEqual(await logValues(topic), ['after'])
    } finally {
      await producer.close()
    }
  })

  test('a topic that does not exist: without allowAutoTopicCreation the send fails within metadataWaitMs with an UnknownTopicError that says creation was not asked for; with it, the broker creates the topic and the send succeeds', async () => {
    const missing = uniqueName('missing')
    topics.push(missing)
    // A client of its own: the test before leaves the shared client's metadata refresh (started
    // by its producer's closed connections) waiting on a broker still reading 100 MiB requests,
    // and a wait queued behind it got only the rest of its deadline for its own request
    // ("reached no broker within 8000 ms: 1 attempt … no response within 1 ms", twice under load).
    const own = new Client({ bootstrap: bootstrap!, clientId: 'producer-limits-missing' })
    const producer = new Producer(own, { metadataWaitMs: 8000 })
    try {
      const started = Date.now()
      const error = await producer.send({ topic: missing, value: 'x' }).then(() => undefined, (e: unknown) => e)
      const took = Date.now() - started
      assert.ok(error instanceof Error && error.name === 'UnknownTopicError', String(error))
      assert.match(error.message, new RegExp(`Topic "${missing}" does not exist \\(waited metadataWaitMs, 8000 ms.*did not ask the broker to create it \\(allowAutoTopicCreation is off\\)`))
      assert.ok(took >= 7900, `failed after ${took} ms, before metadataWaitMs`)
      assert.ok(!(await client.admin.listTopics()).includes(missing), 'the topic was created')
    } finally {
      await producer.close()
      await own.close()
    }
    const creating = new Producer(client, { metadataWaitMs: 30_000, allowAutoTopicCreation: true })
    try {
      const result = await creating.send({ topic: missing, value: 'created' })
      assert.equal(result.offset, 0n)
      assert.ok((await client.admin.listTopics()).includes(missing))
    } finally {
      await creating.close()
    }
  })
})

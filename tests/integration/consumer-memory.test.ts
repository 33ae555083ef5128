// The consumer's prefetch bound against a real broker, measured: a stalled application
// (it takes no batch) with maxBufferedBytes 16 MiB, in a child process for a clean RSS.
// zstd data (buffered compressed: records are decoded when a batch is handed out), one
// answer of four large zstd batches (one hand-out decompresses at most maxBufferedBytes
// beyond its first batch), and a slow application reading 100-byte
// records with maxBufferedBytes 1 MiB (each Fetch asks only for the room left).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import * as path from 'node:path'
import { Client, Producer } from '../../index'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false
const MiB = 1024 * 1024
const LIMIT = 16 * MiB

interface Measure { rssMB: number, heapMB: number, arrayBuffersMB: number, records: number, bufferedAtMostMB: number, fetchErrors: number }

/** Runs the child consumer: stalled, or (`msPerBatch`) slow, reading until nothing more comes. */
async function measure (topic: string, partitions: number, limit = LIMIT, msPerBatch?: number): Promise<Measure> {
  const args = [path.join(__dirname, 'consumer-memory-child.js'), bootstrap!.join(','), topic, String(limit), String(partitions)]
  if (msPerBatch !== undefined) args.push(String(msPerBatch))
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', ...args], { timeout: 120_000 }, (error, out) => { if (error !== null) reject(error); else resolve(String(out)) })
  })
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Measure
  console.log(`${topic}: ${JSON.stringify(result)}`)
  return result
}

describe('consumer memory with a stalled application, maxBufferedBytes 16 MiB', { skip, timeout: 300_000 }, () => {
  let client: Client
  const topics: string[] = []
  before(async () => { client = new Client({ bootstrap: bootstrap!, clientId: 'consumer-memory' }) })
  after(async () => {
    if (topics.length > 0) await client.admin.deleteTopics(topics, { ignoreMissing: true }).catch(() => {})
    await client?.close()
  })
  async function newTopic (name: string, partitions = 1): Promise<string> {
    const topic = uniqueName(name)
    await client.admin.createTopics([{ topic, numPartitions: partitions, replicationFactor: 1, configs: { 'max.message.bytes': String(8 * MiB) } }])
    topics.push(topic)
    return topic
  }

  test('zstd records (160 MiB decompressed, a few MiB on the wire): RSS grows by about the bound, not by what 16 MiB of compressed data holds', async () => {
    const topic = await newTopic('memory-zstd', 2)
    const value = Buffer.alloc(10 * 1024, 'kafkats memory test ')
    for (let b = 0; b < 80; b++) await client.produceRaw({ topic, partition: b % 2, compression: 'zstd', records: Array.from({ length: 200 }, () => ({ value })) })
    const m = await measure(topic, 2)
    assert.ok(m.records > 0)
    assert.ok(m.rssMB < 3 * 16 + 40, `RSS +${m.rssMB} MB (heap +${m.heapMB}, buffers +${m.arrayBuffersMB}) for ${m.records} buffered records`)
  })

  test('100-byte records, a slow application, maxBufferedBytes 1 MiB: each Fetch asks only for the room left, so the consumer holds about the bound, not a whole answer', async () => {
    const topic = await newTopic('memory-small-records', 3)
    const count = 150_000
    const producer = new Producer(client, { maxBatchBytes: 16 * 1024 })
    const value = Buffer.alloc(100, 'r')
    await producer.send(Array.from({ length: count }, (_, i) => ({ topic, partition: i % 3, value })))
    await producer.close()
    const m = await measure(topic, 3, MiB, 2)
    assert.equal(m.records, count, 'every record read')
    // Partitions the broker cut mid-batch at the small limits asked for are fetched again whole, not reported.
    assert.equal(m.fetchErrors, 0)
    // One batch (16 KiB of records, ~60 KiB in memory) may pass the bound: the first batch of an answer comes whole.
    assert.ok(m.bufferedAtMostMB <= 1.25, `buffered at most ${m.bufferedAtMostMB} MiB with maxBufferedBytes 1 MiB`)
    assert.ok(m.heapMB < 64, `heap +${m.heapMB} MB at most while reading (RSS +${m.rssMB} MB)`)
  })

  test('one answer of four 64 MiB zstd records: only the first is decompressed while the buffer is full', async () => {
    const topic = await newTopic('memory-zstd-big')
    const value = Buffer.alloc(64 * MiB)
    for (let b = 0; b < 4; b++) await client.produceRaw({ topic, partition: 0, compression: 'zstd', records: [{ value }] })
    const m = await measure(topic, 1)
    assert.equal(m.records, 1)
    assert.ok(m.rssMB < 64 + 90, `RSS +${m.rssMB} MB (heap +${m.heapMB}, buffers +${m.arrayBuffersMB})`)
  })
})

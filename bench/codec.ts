/**
 * Record batch codec benchmark: kafkats and kafkajs side by side, in the same process.
 *
 * Encodes and decodes batches of 1,000 records (keys of 10 bytes, values of 100 B or 1 KiB,
 * no headers), uncompressed and lz4. No broker is involved: this measures the bytes layer
 * alone. Run with `node dist/bench/codec.js` (add `--quick` for a short run).
 *
 * kafkajs ships no lz4 codec; for the lz4 rows its CompressionCodecs[LZ4] is registered
 * with a small adapter over lz4-napi's frame functions (the same library kafkats uses), so
 * both clients pay the same compression cost and the rows compare the batch code.
 */
import { encodeRecordBatch, decodeRecordBatches, type RecordInput } from '../protocol/record-batch'
import type { CompressionCodec } from '../protocol/compression'

/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs's internals and native codecs have no types: required as untyped modules */
const kafkajs = require('kafkajs')
const lz4 = require('lz4-napi')
const KafkaJsDecoder = require('kafkajs/src/protocol/decoder')
const kafkaJsDecodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder')
const KafkaJsRecord = require('kafkajs/src/protocol/recordBatch/record/v0')
const { RecordBatch: kafkaJsRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0')

kafkajs.CompressionCodecs[kafkajs.CompressionTypes.LZ4] = () => ({
  compress: async (encoder: { buffer: Buffer }) => await lz4.compressFrame(encoder.buffer),
  decompress: async (buffer: Buffer) => await lz4.decompressFrame(buffer)
})

const quick = process.argv.includes('--quick')
const WARMUP_MS = quick ? 150 : 1000
const ROUND_MS = quick ? 200 : 1000
const ROUNDS = quick ? 2 : 3
const RECORDS_PER_BATCH = 1000

interface Case {
  name: string
  operation: 'encode' | 'decode'
  codec: CompressionCodec
  valueSize: number
  payloadBytes: number
  kafkats: () => Promise<unknown>
  kafkajs: () => Promise<unknown>
  /** Decode only: kafkats without the CRC-32C check (kafkajs does not check CRCs). */
  kafkatsNoCrc?: () => Promise<unknown>
}

function makeValue (size: number, seed: number): Buffer {
  const value = Buffer.allocUnsafe(size)
  // Text-like bytes: compressible, but not trivially.
  let x = seed * 2654435761 >>> 0
  for (let i = 0; i < size; i++) {
    x = (x * 1664525 + 1013904223) >>> 0
    value[i] = 32 + ((x >>> 24) % 64)
  }
  return value
}

async function buildCases (): Promise<Case[]> {
  const cases: Case[] = []
  for (const valueSize of [100, 1024]) {
    const now = Date.now()
    const inputs: RecordInput[] = []
    const kafkaJsMessages: Array<{ key: Buffer, value: Buffer, timestamp: number }> = []
    for (let i = 0; i < RECORDS_PER_BATCH; i++) {
      const key = Buffer.from(`key-${String(i).padStart(6, '0')}`)
      const value = makeValue(valueSize, i)
      inputs.push({ key, value, timestamp: BigInt(now + i) })
      kafkaJsMessages.push({ key, value, timestamp: now + i })
    }
    const payloadBytes = inputs.reduce((sum, r) => sum + (r.key?.length ?? 0) + (r.value?.length ?? 0), 0)
    for (const codec of ['none', 'lz4'] as const) {
      const kafkaJsCodec = codec === 'lz4' ? kafkajs.CompressionTypes.LZ4 : kafkajs.CompressionTypes.None
      const label = `${RECORDS_PER_BATCH} × ${valueSize === 1024 ? '1 KiB' : `${valueSize} B`} ${codec}`
      cases.push({
        name: `encode ${label}`,
        operation: 'encode',
        codec,
        valueSize,
        payloadBytes,
        kafkats: async () => await encodeRecordBatch({ records: inputs, compression: codec }),
        // What kafkajs's Produce request does per partition: build each Record, then the batch.
        kafkajs: async () => {
          const first = kafkaJsMessages[0].timestamp
          let max = first
          const records = kafkaJsMessages.map((message, i) => {
            if (message.timestamp > max) max = message.timestamp
            return KafkaJsRecord({ ...message, offsetDelta: i, timestampDelta: message.timestamp - first })
          })
          const batch = await kafkaJsRecordBatch({ compression: kafkaJsCodec, records, firstTimestamp: first, maxTimestamp: max, lastOffsetDelta: records.length - 1 })
          return batch.buffer
        }
      })
      // Both decoders read the same bytes.
      const encoded = await encodeRecordBatch({ records: inputs, compression: codec })
      const check = await kafkaJsDecodeBatch(new KafkaJsDecoder(encoded))
      if (check.records.length !== RECORDS_PER_BATCH) throw new Error('kafkajs decoded the wrong number of records')
      cases.push({
        name: `decode ${label}`,
        operation: 'decode',
        codec,
        valueSize,
        payloadBytes,
        kafkats: async () => await decodeRecordBatches(encoded),
        kafkatsNoCrc: async () => await decodeRecordBatches(encoded, { checkCrc: false }),
        kafkajs: async () => await kafkaJsDecodeBatch(new KafkaJsDecoder(encoded))
      })
    }
  }
  return cases
}

/** Runs `fn` back to back for about `ms`; returns operations per second. */
async function measure (fn: () => Promise<unknown>, ms: number): Promise<number> {
  let operations = 0
  const start = process.hrtime.bigint()
  const budget = BigInt(ms) * 1_000_000n
  let elapsed = 0n
  while (elapsed < budget) {
    for (let i = 0; i < 5; i++) await fn()
    operations += 5
    elapsed = process.hrtime.bigint() - start
  }
  return operations / (Number(elapsed) / 1e9)
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function pad (text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width)
}

async function main (): Promise<void> {
  const cases = await buildCases()
  console.log(`Record batch codec benchmark: node ${process.version}, ${RECORDS_PER_BATCH} records per batch, 10-byte keys, no headers`)
  console.log(`warm-up ${WARMUP_MS} ms per client, then ${ROUNDS} rounds of ${ROUND_MS} ms (median shown); MB/s counts key + value bytes (1 MB = 10^6 B)`)
  console.log('kafkajs does not verify CRCs when decoding; kafkats does by default (rows "kafkats, CRC check off" show the cost)')
  console.log('kafkajs lz4: kafkajs has no lz4 codec of its own; it was registered with an adapter over lz4-napi compressFrame/decompressFrame (the library kafkats uses)')
  console.log('')
  const header = `${pad('case', 28)} ${pad('client', 22)} ${pad('records/s', 12, true)} ${pad('MB/s', 9, true)} ${pad('kafkats/kafkajs', 16, true)}`
  console.log(header)
  console.log('-'.repeat(header.length))
  for (const c of cases) {
    const clients: Array<[string, () => Promise<unknown>]> = [['kafkats', c.kafkats], ['kafkajs', c.kafkajs]]
    if (c.kafkatsNoCrc !== undefined) clients.push(['kafkats, CRC check off', c.kafkatsNoCrc])
    for (const [, fn] of clients) await measure(fn, WARMUP_MS)
    const samples: number[][] = clients.map(() => [])
    // Alternate the clients so drift (thermal, GC pressure) hits them alike.
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < clients.length; i++) samples[i].push(await measure(clients[i][1], ROUND_MS))
    }
    const kafkajsRate = median(samples[1])
    clients.forEach(([client], i) => {
      const batchesPerSecond = median(samples[i])
      const recordsPerSecond = batchesPerSecond * RECORDS_PER_BATCH
      const megabytesPerSecond = batchesPerSecond * c.payloadBytes / 1e6
      const ratio = client === 'kafkajs' ? '' : `${(batchesPerSecond / kafkajsRate).toFixed(2)}×`
      console.log(`${pad(i === 0 ? c.name : '', 28)} ${pad(client, 22)} ${pad(Math.round(recordsPerSecond).toLocaleString('en-US'), 12, true)} ${pad(megabytesPerSecond.toFixed(1), 9, true)} ${pad(ratio, 16, true)}`)
    })
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})

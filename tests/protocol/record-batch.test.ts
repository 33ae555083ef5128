import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  encodeRecordBatch, encodeRecordBatchSync, decodeRecordBatches, decodeRecordBatchesSync,
  recordSizeUpperBound, controlRecordInput, CompressedBatchError, RECORD_BATCH_OVERHEAD,
  type RecordInput, type RecordBatch, type KafkaRecord
} from '../../protocol/record-batch'
import { crc32c } from '../../protocol/crc32c'
import { Writer } from '../../protocol/writer'
import { ProtocolError } from '../../protocol/errors'
import { compress, type CompressionCodec } from '../../protocol/compression'
import * as zlib from 'node:zlib'
import { legacyMessage, legacyWrapper } from '../support/legacy-messages'

/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs's internals and native codecs have no types: required as untyped modules */
const KafkaJsDecoder = require('kafkajs/src/protocol/decoder')
const kafkaJsDecodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder')
const KafkaJsRecord = require('kafkajs/src/protocol/recordBatch/record/v0')
const { RecordBatch: kafkaJsRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0')
const { Types: KafkaJsCompression } = require('kafkajs/src/protocol/message/compression')

const CODECS: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
const T0 = 1700000000000n

/** One record with a null key, one with headers (one of them null), one with a null value; timestamps +0, +5, -1. */
const GOLDEN_RECORDS: RecordInput[] = [
  { key: null, value: Buffer.from('v1'), timestamp: T0 },
  { key: Buffer.from('k2'), value: Buffer.from('v2'), headers: [{ key: 'h', value: Buffer.from('x') }, { key: 'n', value: null }], timestamp: T0 + 5n },
  { key: Buffer.from('k3'), value: null, timestamp: T0 - 1n }
]

/*
 * The golden batch, worked out field by field from the v2 format. (The Java client, 4.4.0
 * MemoryRecords.withRecords with the same records and base offset 100, writes these exact
 * bytes, CRC included.)
 */
const GOLDEN_HEX = [
  '0000000000000064', // baseOffset 100
  '00000055', // batchLength 85: 97 bytes - 12 (baseOffset and batchLength)
  'ffffffff', // partitionLeaderEpoch -1
  '02', // magic 2
  '42306e37', // crc: CRC-32C of the bytes from attributes to the end
  '0000', // attributes: no codec, create time, not transactional, not control
  '00000002', // lastOffsetDelta 2
  '0000018bcfe56800', // baseTimestamp 1700000000000 (the first record's)
  '0000018bcfe56805', // maxTimestamp 1700000000005
  'ffffffffffffffff', // producerId -1
  'ffff', // producerEpoch -1
  'ffffffff', // baseSequence -1
  '00000003', // recordCount 3
  // record 0
  '10', // length 8 (zigzag 16)
  '00', // attributes
  '00', // timestampDelta 0
  '00', // offsetDelta 0
  '01', // keyLength -1: null key
  '04', '7631', // valueLength 2, 'v1'
  '00', // headerCount 0
  // record 1
  '22', // length 17 (zigzag 34)
  '00', // attributes
  '0a', // timestampDelta 5
  '02', // offsetDelta 1
  '04', '6b32', // key 'k2'
  '04', '7632', // value 'v2'
  '04', // headerCount 2
  '02', '68', '02', '78', // header 'h' = 'x'
  '02', '6e', '01', // header 'n' = null
  // record 2
  '10', // length 8
  '00', // attributes
  '01', // timestampDelta -1 (zigzag 1)
  '04', // offsetDelta 2
  '04', '6b33', // key 'k3'
  '01', // valueLength -1: null value
  '00' // headerCount 0
].join('')

/*
 * The same records compressed by the Java client (kafka-clients 4.4.0,
 * MemoryRecords.withRecords(magic 2, 100, Compression.<codec>().build(), CREATE_TIME, ...)),
 * so each codec is checked against bytes the Java side wrote.
 */
const JAVA_COMPRESSED_HEX: Record<string, string> = {
  gzip: '000000000000006400000068ffffffff02aaf80a6a0001000000020000018bcfe568000000018bcfe56805ffffffffffffffffffffffffffff000000031f8b08000000000000ff1360606060642933645062e06262c9366229336261ca60aa60ca6314004ab0641b333200007ca3779f24000000',
  snappy: '00000000000000640000006bffffffff023e739e2d0002000000020000018bcfe568000000018bcfe56805ffffffffffffffffffffffffffff0000000382534e4150505900000000010000000100000026248c10000000010476310022000a02046b320476320402680278026e0110000104046b330100',
  lz4: '000000000000006400000064ffffffff0278abc9300003000000020000018bcfe568000000018bcfe56805ffffffffffffffffffffffffffff0000000304224d186040822400008010000000010476310022000a02046b320476320402680278026e0110000104046b33010000000000',
  zstd: '000000000000006400000061ffffffff026f1d30aa0004000000020000018bcfe568000000018bcfe56805ffffffffffffffffffffffffffff0000000328b52ffd005820010010000000010476310022000a02046b320476320402680278026e0110000104046b330100010000'
}

function plain (record: KafkaRecord): unknown {
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: record.key === null ? null : Buffer.from(record.key).toString('hex'),
    value: record.value === null ? null : Buffer.from(record.value).toString('hex'),
    headers: record.headers.map(h => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value).toString('hex') }))
  }
}

function assertGoldenRecords (batch: RecordBatch): void {
  assert.deepEqual(batch.records.map(plain), [
    { offset: 100n, timestamp: T0, key: null, value: '7631', headers: [] },
    { offset: 101n, timestamp: T0 + 5n, key: '6b32', value: '7632', headers: [{ key: 'h', value: '78' }, { key: 'n', value: null }] },
    { offset: 102n, timestamp: T0 - 1n, key: '6b33', value: null, headers: [] }
  ])
}

/** Rewrites batchLength and the CRC of a single batch after a test edited it. */
function reseal (batch: Buffer): Buffer {
  batch.writeInt32BE(batch.length - 12, 8)
  batch.writeUInt32BE(crc32c(batch, 21), 17)
  return batch
}

async function decodeOutcome (buffer: Buffer): Promise<'ok' | ProtocolError> {
  try {
    await decodeRecordBatches(buffer, { topic: 't', partition: 0 })
    return 'ok'
  } catch (error) {
    if (error instanceof ProtocolError) return error
    throw new assert.AssertionError({ message: `expected a ProtocolError or a decode, got ${String(error)}: ${(error as Error)?.stack}` })
  }
}

describe('CRC-32C', () => {
  test('check value of "123456789" is 0xe3069283', () => {
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283)
  })
  test('over a range equals over a copy of the range', () => {
    const data = Buffer.from('xx123456789yy')
    assert.equal(crc32c(data, 2, 11), 0xe3069283)
  })
})

describe('record batch v2 encoding', () => {
  test('golden bytes worked out from the spec', async () => {
    const options = { records: GOLDEN_RECORDS, baseOffset: 100n }
    assert.equal(encodeRecordBatchSync(options).toString('hex'), GOLDEN_HEX)
    assert.equal((await encodeRecordBatch(options)).toString('hex'), GOLDEN_HEX)
  })

  test('offsets with gaps (a compacted batch) and timestamp deltas small, negative, repeated and past 32 bits decode to their values', () => {
    const timestamps = [T0, T0 + 5n, T0 + 5n, T0 + 2n ** 40n, T0 - 3n, T0 + 5n]
    const buf = encodeRecordBatchSync({ records: timestamps.map((timestamp, i) => ({ value: Buffer.from(`v${i}`), timestamp })), baseOffset: 7000n })
    // Move records 3 and after up by 4 offsets, as compaction leaves them: patch each
    // one-byte offsetDelta (zigzag 2d: d and d + 4 both below 64), then the CRC.
    const offsetDeltas = [0, 1, 2, 7, 8, 9]
    let pos = RECORD_BATCH_OVERHEAD
    for (let i = 0; i < timestamps.length; i++) {
      const length = buf[pos] >> 1 // one-byte zigzag varint
      let p = pos + 2 // past length and attributes
      while (buf[p] >= 0x80) p++ // timestamp delta
      p++
      assert.equal(buf[p], 2 * i, `record ${i}'s offsetDelta byte`)
      buf[p] = 2 * offsetDeltas[i]
      pos += 1 + length
    }
    buf.writeInt32BE(9, 23) // lastOffsetDelta
    buf.writeUInt32BE(crc32c(buf, 21, buf.length), 17)
    const [batch] = decodeRecordBatchesSync(buf)
    assert.deepEqual(batch.records.map(r => r.offset), offsetDeltas.map(d => 7000n + BigInt(d)))
    assert.deepEqual(batch.records.map(r => r.timestamp), timestamps)
    assert.deepEqual(batch.records.map(r => r.value?.toString()), timestamps.map((_, i) => `v${i}`))
  })

  test('lengths and deltas at the edges of one-, two- and three-byte varints decode to their values', () => {
    // Zigzag: 63 and -64 are the last one-byte values, 8191 and -8192 the last two-byte ones.
    const sizes = [0, 1, 31, 32, 63, 64, 4095, 4096, 8191, 8192, 70_000]
    const deltas = [0n, 63n, -64n, 64n, -65n, 8191n, -8192n, 8192n, -8193n, 2n ** 27n, 2n ** 40n]
    const records = sizes.map((size, i) => ({
      key: size === 0 ? null : Buffer.alloc(size, 1 + i),
      value: Buffer.alloc(sizes[sizes.length - 1 - i], 100 + i),
      headers: Array.from({ length: i * 7 }, (_, h) => ({ key: `h${h}`, value: Buffer.alloc(h, h) })),
      timestamp: T0 + deltas[i]
    }))
    const buf = encodeRecordBatchSync({ records, baseOffset: 10n })
    const [batch] = decodeRecordBatchesSync(buf)
    assert.deepEqual(batch.records.map(plain), records.map((r, i) => plain({ ...r, offset: 10n + BigInt(i) })))
  })

  test('golden bytes decode to the records and header fields', async () => {
    const [batch] = await decodeRecordBatches(Buffer.from(GOLDEN_HEX, 'hex'))
    assert.equal(batch.baseOffset, 100n)
    assert.equal(batch.batchLength, 85)
    assert.equal(batch.partitionLeaderEpoch, -1)
    assert.equal(batch.magic, 2)
    assert.equal(batch.crc, 0x42306e37)
    assert.equal(batch.compression, 'none')
    assert.equal(batch.timestampType, 'create')
    assert.equal(batch.isTransactional, false)
    assert.equal(batch.isControl, false)
    assert.equal(batch.lastOffsetDelta, 2)
    assert.equal(batch.baseTimestamp, T0)
    assert.equal(batch.maxTimestamp, T0 + 5n)
    assert.equal(batch.producerId, -1n)
    assert.equal(batch.producerEpoch, -1)
    assert.equal(batch.baseSequence, -1)
    assert.equal(batch.recordCount, 3)
    assert.equal(batch.controlRecord, undefined)
    assertGoldenRecords(batch)
    assertGoldenRecords(decodeRecordBatchesSync(Buffer.from(GOLDEN_HEX, 'hex'))[0])
  })

  for (const [codec, hex] of Object.entries(JAVA_COMPRESSED_HEX)) {
    test(`a ${codec} batch written by the Java client decodes`, async () => {
      const [batch] = await decodeRecordBatches(Buffer.from(hex, 'hex'))
      assert.equal(batch.compression, codec)
      assertGoldenRecords(batch)
    })
  }

  test('records without headers share one frozen empty headers array; records with headers have their own', async () => {
    const records: RecordInput[] = [
      { value: Buffer.from('a'), timestamp: T0 },
      { value: Buffer.from('b'), timestamp: T0, headers: [{ key: 'h', value: Buffer.from('1') }] },
      { value: Buffer.from('c'), timestamp: T0 }
    ]
    for (const codec of ['none', 'lz4'] as const) {
      const [batch] = await decodeRecordBatches(await encodeRecordBatch({ records, compression: codec }))
      const [a, b, c] = batch.records
      assert.deepEqual(a.headers, [])
      assert.equal(a.headers, c.headers)
      assert.ok(Object.isFrozen(a.headers))
      // A push into the shared array fails loudly rather than giving the header to every record.
      assert.throws(() => a.headers.push({ key: 'x', value: null }), TypeError)
      assert.deepEqual(c.headers, [])
      assert.deepEqual(b.headers, [{ key: 'h', value: Buffer.from('1') }])
      assert.ok(!Object.isFrozen(b.headers))
      // The record stays a plain object of own data properties: spreads and keys are as before.
      assert.deepEqual(Object.keys({ ...a }), ['offset', 'timestamp', 'key', 'value', 'headers'])
    }
  })

  test('producer fields, attributes and offsets deltas', async () => {
    const records = Array.from({ length: 5 }, (_, i) => ({ value: Buffer.from(`v${i}`), timestamp: T0 + BigInt(i * 10) }))
    const buf = encodeRecordBatchSync({ records, baseOffset: 7n, partitionLeaderEpoch: 3, producerId: 42n, producerEpoch: 2, baseSequence: 1000, transactional: true })
    assert.equal(buf.readInt16BE(21), 0x10)
    const [batch] = await decodeRecordBatches(buf)
    assert.equal(batch.isTransactional, true)
    assert.equal(batch.partitionLeaderEpoch, 3)
    assert.equal(batch.producerId, 42n)
    assert.equal(batch.producerEpoch, 2)
    assert.equal(batch.baseSequence, 1000)
    assert.equal(batch.lastOffsetDelta, 4)
    assert.equal(batch.maxTimestamp, T0 + 40n)
    assert.deepEqual(batch.records.map(r => r.offset), [7n, 8n, 9n, 10n, 11n])
  })

  test('records without a timestamp get the encode time', async () => {
    const before = BigInt(Date.now())
    const buf = encodeRecordBatchSync({ records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }] })
    const after = BigInt(Date.now())
    const [batch] = await decodeRecordBatches(buf)
    for (const record of batch.records) assert.ok(record.timestamp >= before && record.timestamp <= after)
    assert.equal(batch.baseTimestamp, batch.records[0].timestamp)
  })

  test('baseTimestamp may be given, and far-away timestamps take the 64-bit delta path', async () => {
    const records = [{ value: null, timestamp: 5n }, { value: null, timestamp: -(2n ** 62n) }, { value: null, timestamp: 2n ** 62n }]
    const [batch] = await decodeRecordBatches(encodeRecordBatchSync({ records, baseTimestamp: 1n }))
    assert.equal(batch.baseTimestamp, 1n)
    assert.equal(batch.maxTimestamp, 2n ** 62n)
    assert.deepEqual(batch.records.map(r => r.timestamp), [5n, -(2n ** 62n), 2n ** 62n])
  })

  test('appends to a given Writer and returns a view of the batch', async () => {
    const writer = new Writer(16)
    writer.int32(0x01020304)
    const view = encodeRecordBatchSync({ records: GOLDEN_RECORDS, baseOffset: 100n }, writer)
    assert.equal(writer.offset, 4 + view.length)
    assert.equal(writer.finish().subarray(4).toString('hex'), GOLDEN_HEX)
    assert.equal(view.toString('hex'), GOLDEN_HEX)
    const zstdView = await encodeRecordBatch({ records: GOLDEN_RECORDS, baseOffset: 100n, compression: 'zstd' }, writer)
    assert.equal(writer.offset, 4 + view.length + zstdView.length)
    assertGoldenRecords((await decodeRecordBatches(writer.finish().subarray(4 + view.length)))[0])
  })

  test('encodeRecordBatchSync refuses a codec', () => {
    assert.throws(() => encodeRecordBatchSync({ records: [], compression: 'gzip' }), TypeError)
  })

  test('RECORD_BATCH_OVERHEAD is the size of an empty batch', () => {
    assert.equal(RECORD_BATCH_OVERHEAD, 61)
    assert.equal(encodeRecordBatchSync({ records: [] }).length, 61)
  })
})

describe('record batch v2 and kafkajs', () => {
  const records: RecordInput[] = [
    { key: Buffer.from('key-a'), value: Buffer.from('hello'), timestamp: T0, headers: [{ key: 'trace', value: Buffer.from('abc') }, { key: 'ünïcode', value: Buffer.from([0, 255]) }] },
    { key: null, value: Buffer.from('no key'), timestamp: T0 + 1n },
    { key: Buffer.from('null value'), value: null, timestamp: T0 + 2n },
    { key: Buffer.alloc(0), value: Buffer.alloc(300, 7), timestamp: T0 + 100000n }
  ]

  for (const codec of ['none', 'gzip'] as const) {
    test(`kafkats-encoded ${codec} batches decode in kafkajs`, async () => {
      const buf = await encodeRecordBatch({ records, compression: codec, baseOffset: 50n })
      const decoded = await kafkaJsDecodeBatch(new KafkaJsDecoder(buf))
      assert.equal(decoded.firstOffset, '50')
      assert.equal(decoded.maxTimestamp, String(T0 + 100000n))
      assert.deepEqual(decoded.records.map((r: { offset: string, timestamp: string, key: Buffer, value: Buffer, headers: object }) => ({ offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers })), [
        { offset: '50', timestamp: String(T0), key: Buffer.from('key-a'), value: Buffer.from('hello'), headers: { trace: Buffer.from('abc'), ünïcode: Buffer.from([0, 255]) } },
        { offset: '51', timestamp: String(T0 + 1n), key: null, value: Buffer.from('no key'), headers: {} },
        { offset: '52', timestamp: String(T0 + 2n), key: Buffer.from('null value'), value: null, headers: {} },
        { offset: '53', timestamp: String(T0 + 100000n), key: Buffer.alloc(0), value: Buffer.alloc(300, 7), headers: {} }
      ])
    })

    test(`kafkajs-encoded ${codec} batches decode in kafkats`, async () => {
      const first = Number(T0)
      const kafkaJsRecords = records.map((r, i) => KafkaJsRecord({
        offsetDelta: i,
        timestampDelta: Number(r.timestamp) - first,
        key: r.key,
        value: r.value,
        headers: Object.fromEntries((r.headers ?? []).map(h => [h.key, h.value]))
      }))
      const encoder = await kafkaJsRecordBatch({
        compression: codec === 'gzip' ? KafkaJsCompression.GZIP : KafkaJsCompression.None,
        records: kafkaJsRecords,
        firstTimestamp: first,
        maxTimestamp: first + 100000,
        lastOffsetDelta: records.length - 1
      })
      const [batch] = await decodeRecordBatches(encoder.buffer)
      assert.equal(batch.compression, codec)
      assert.deepEqual(batch.records.map(plain), records.map((r, i) => plain({ offset: BigInt(i), timestamp: r.timestamp as bigint, key: r.key ?? null, value: r.value, headers: r.headers ?? [] })))
    })
  }
})

describe('record batch v2 codecs', () => {
  for (const codec of CODECS) {
    test(`round trip with ${codec}, large enough for several compression blocks`, async () => {
      const records: RecordInput[] = Array.from({ length: 400 }, (_, i) => ({
        key: Buffer.from(`key-${i}`),
        value: Buffer.from(`value ${i} `.repeat(40)),
        headers: i % 7 === 0 ? [{ key: 'i', value: Buffer.from(String(i)) }] : [],
        timestamp: T0 + BigInt(i)
      }))
      const buf = await encodeRecordBatch({ records, compression: codec, baseOffset: 1000n })
      assert.equal(buf.readInt16BE(21) & 7, CODECS.indexOf(codec))
      const [batch] = await decodeRecordBatches(buf)
      assert.equal(batch.compression, codec)
      assert.equal(batch.records.length, 400)
      assert.deepEqual(batch.records.map(plain), records.map((r, i) => plain({ offset: 1000n + BigInt(i), timestamp: r.timestamp as bigint, key: r.key ?? null, value: r.value, headers: r.headers ?? [] })))
    })
  }

  test('concatenated batches of mixed codecs decode in order', async () => {
    const parts = await Promise.all(CODECS.map((compression, i) => encodeRecordBatch({ records: GOLDEN_RECORDS, compression, baseOffset: BigInt(i * 3) })))
    const batches = await decodeRecordBatches(Buffer.concat(parts))
    assert.deepEqual(batches.map(b => b.compression), CODECS)
    assert.deepEqual(batches.flatMap(b => b.records.map(r => r.offset)), Array.from({ length: 15 }, (_, i) => BigInt(i)))
  })

  test('compressed batches encoded at the same time, and after one another, each keep their own bytes (the staging buffers are reused)', async () => {
    const batchOf = (n: number): RecordInput[] => Array.from({ length: 50 + n * 40 }, (_, i) => ({ value: Buffer.from(`batch ${n} record ${i} `.repeat(3 + n)), timestamp: T0 }))
    for (const codec of CODECS.filter(c => c !== 'none')) {
      const inputs = Array.from({ length: 8 }, (_, n) => batchOf(n))
      const together = await Promise.all(inputs.map(async (records, n) => await encodeRecordBatch({ records, compression: codec, baseOffset: BigInt(n) })))
      const copies = together.map(b => Buffer.from(b))
      // More batches reuse the staging buffers the first ones used: the first results must not change.
      for (let round = 0; round < 3; round++) await Promise.all(inputs.map(async records => await encodeRecordBatch({ records: records.slice(1), compression: codec })))
      for (let n = 0; n < inputs.length; n++) {
        assert.ok(together[n].equals(copies[n]), `${codec} batch ${n} changed after later encodes`)
        const [batch] = await decodeRecordBatches(together[n])
        assert.deepEqual(batch.records.map(r => r.value?.toString()), inputs[n].map(r => r.value?.toString()), `${codec} batch ${n}`)
      }
    }
  })

  test('decodeRecordBatchesSync refuses compressed batches with a typed error', async () => {
    const buf = await encodeRecordBatch({ records: GOLDEN_RECORDS, compression: 'gzip' })
    assert.throws(() => decodeRecordBatchesSync(buf), CompressedBatchError)
  })

  test('maxDecompressedBytes is enforced per batch', async () => {
    const buf = await encodeRecordBatch({ records: [{ value: Buffer.alloc(1 << 20) }], compression: 'zstd' })
    await assert.rejects(decodeRecordBatches(buf, { maxDecompressedBytes: 64 * 1024, topic: 'big', partition: 1 }), (error: unknown) => {
      assert.ok(error instanceof ProtocolError)
      assert.match(error.message, /topic big partition 1/)
      assert.match(error.message, /zstd/)
      return true
    })
    assert.equal((await decodeRecordBatches(buf))[0].records[0].value?.length, 1 << 20)
  })
})

describe('record batch v2 decoding of bad and partial data', () => {
  test('a CRC mismatch names the topic, partition and base offset', async () => {
    const buf = Buffer.from(GOLDEN_HEX, 'hex')
    buf[buf.length - 5] ^= 0x01
    await assert.rejects(decodeRecordBatches(buf, { topic: 'orders', partition: 4 }), (error: unknown) => {
      assert.ok(error instanceof ProtocolError)
      assert.match(error.message, /CRC mismatch/)
      assert.match(error.message, /topic orders partition 4/)
      assert.match(error.message, /base offset 100/)
      assert.match(error.message, /stored 0x42306e37/)
      return true
    })
  })

  test('checkCrc: false skips the checksum (and only the checksum)', async () => {
    const buf = Buffer.from(GOLDEN_HEX, 'hex')
    buf.writeUInt32BE(0, 17)
    assertGoldenRecords((await decodeRecordBatches(buf, { checkCrc: false }))[0])
    await assert.rejects(decodeRecordBatches(buf), ProtocolError)
  })

  test('a truncated trailing batch is ignored, at every cut point', async () => {
    const first = encodeRecordBatchSync({ records: GOLDEN_RECORDS, baseOffset: 0n })
    const second = encodeRecordBatchSync({ records: GOLDEN_RECORDS, baseOffset: 3n })
    const both = Buffer.concat([first, second])
    for (let cut = 0; cut < second.length; cut++) {
      const batches = await decodeRecordBatches(both.subarray(0, first.length + cut))
      assert.equal(batches.length, 1, `cut ${cut}`)
      assert.equal(batches[0].baseOffset, 0n)
    }
    assert.equal((await decodeRecordBatches(both)).length, 2)
    assert.deepEqual(await decodeRecordBatches(Buffer.alloc(0)), [])
  })

  test('a batch with no records is not decompressed (as in the Java client)', async () => {
    const buf = await encodeRecordBatch({ records: GOLDEN_RECORDS, compression: 'gzip', baseOffset: 9n })
    buf.writeInt32BE(0, 57)
    buf.fill(0x55, 61)
    const [batch] = await decodeRecordBatches(reseal(buf))
    assert.equal(batch.baseOffset, 9n)
    assert.deepEqual(batch.records, [])
    assert.deepEqual(decodeRecordBatchesSync(buf)[0].records, [])
  })

  test('magic other than 0, 1 or 2 is a ProtocolError; a v2 batch read as a legacy message fails its CRC-32', async () => {
    const buf = Buffer.from(GOLDEN_HEX, 'hex')
    buf[16] = 3
    await assert.rejects(decodeRecordBatches(buf), (error: unknown) => error instanceof ProtocolError && /magic 3/.test(error.message))
    buf[16] = 1
    await assert.rejects(decodeRecordBatches(buf), (error: unknown) => error instanceof ProtocolError && /CRC-32 mismatch/.test(error.message))
  })

  test('a length shorter than the header, or negative, is a ProtocolError', async () => {
    const buf = Buffer.from(GOLDEN_HEX, 'hex')
    buf.writeInt32BE(30, 8)
    await assert.rejects(decodeRecordBatches(buf), ProtocolError)
    buf.writeInt32BE(-5, 8)
    await assert.rejects(decodeRecordBatches(buf), ProtocolError)
  })

  test('a record count the bytes cannot hold is refused before allocating', async () => {
    const buf = Buffer.from(GOLDEN_HEX, 'hex')
    buf.writeInt32BE(0x7fffffff, 57)
    await assert.rejects(decodeRecordBatches(reseal(buf)), (error: unknown) => error instanceof ProtocolError && /Record count 2147483647/.test(error.message))
    buf.writeInt32BE(-1, 57)
    await assert.rejects(decodeRecordBatches(reseal(buf)), (error: unknown) => error instanceof ProtocolError && /negative record count/.test(error.message))
    buf.writeInt32BE(2, 57) // fewer than there are: bytes left over
    await assert.rejects(decodeRecordBatches(reseal(buf)), (error: unknown) => error instanceof ProtocolError && /remain after/.test(error.message))
  })

  test('bad key, value and header lengths are ProtocolErrors', async () => {
    const golden = Buffer.from(GOLDEN_HEX, 'hex')
    const record1 = 61 + 9 // first byte of record 1 (its length)
    const edits: Array<[number, number, RegExp]> = [
      [record1 + 4, 0x7e, /key/], // key length 63, past the record
      [record1 + 4, 0x03, /Negative length -2 for key/],
      [record1 + 10, 0x7f, /header count/], // header count -64
      [record1 + 10, 0x20, /header count 16/],
      [record1 + 11, 0x01, /header key length -1/],
      [record1 + 11, 0x40, /header key/],
      [record1, 0x7e, /Record 1 of 3 claims 63 bytes/]
    ]
    for (const [at, byte, pattern] of edits) {
      const buf = Buffer.from(golden)
      buf[at] = byte
      await assert.rejects(decodeRecordBatches(reseal(buf)), (error: unknown) => {
        assert.ok(error instanceof ProtocolError, `edit at ${at}: ${String(error)}`)
        assert.match(error.message, pattern)
        assert.match(error.message, /base offset 100/)
        return true
      })
    }
  })

  test('every truncation point inside the records gives a ProtocolError or a decode', async () => {
    for (const codec of CODECS) {
      const full = await encodeRecordBatch({ records: GOLDEN_RECORDS, compression: codec })
      for (let cut = RECORD_BATCH_OVERHEAD; cut < full.length; cut++) {
        // The length and CRC are fixed up so the cut reaches the record (or decompression) code.
        const outcome = await decodeOutcome(reseal(Buffer.from(full.subarray(0, cut))))
        assert.ok(outcome instanceof ProtocolError, `${codec} cut at ${cut} decoded`)
        // Without the fix-up the batch is merely partial, and ignored.
        assert.deepEqual(await decodeRecordBatches(full.subarray(0, cut)), [])
      }
    }
  })

  test('random byte flips give a ProtocolError or a decode, never another error', async () => {
    const bases = await Promise.all(CODECS.map(codec => encodeRecordBatch({ records: GOLDEN_RECORDS, compression: codec })))
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...bases.keys()),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      async (which, flips, fixCrc) => {
        const buf = Buffer.from(bases[which])
        for (const [at, mask] of flips) buf[at % buf.length] ^= mask
        if (fixCrc && buf.length >= 21) buf.writeUInt32BE(crc32c(buf, 21), 17)
        await decodeOutcome(buf)
      }
    ), { numRuns: 2000 })
  })

  test('random bytes give a ProtocolError or a decode', async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 200 }), async (bytes) => {
      const buf = Buffer.from(bytes)
      if (buf.length >= 61) {
        buf.writeInt32BE(buf.length - 12, 8)
        buf[16] = 2
        buf.writeUInt32BE(crc32c(buf, 21), 17)
      }
      await decodeOutcome(buf)
    }), { numRuns: 2000 })
  })
})

describe('record batch v2 special batches', () => {
  test('control record: a commit marker of a transactional batch', async () => {
    const buf = encodeRecordBatchSync({ records: [controlRecordInput('commit', 7, T0)], control: true, transactional: true, producerId: 9n, producerEpoch: 1, baseOffset: 20n })
    assert.equal(buf.readInt16BE(21), 0x30)
    const [batch] = await decodeRecordBatches(buf)
    assert.equal(batch.isControl, true)
    assert.equal(batch.isTransactional, true)
    assert.deepEqual(batch.controlRecord, { type: 'commit', typeId: 1, version: 0, coordinatorEpoch: 7 })
    assert.equal(batch.records.length, 1)
    assert.equal(batch.records[0].offset, 20n)
    assert.equal(batch.records[0].key?.toString('hex'), '00000001')

    const [abort] = await decodeRecordBatches(encodeRecordBatchSync({ records: [controlRecordInput('abort', 3)], control: true, transactional: true }))
    assert.deepEqual(abort.controlRecord, { type: 'abort', typeId: 0, version: 0, coordinatorEpoch: 3 })
  })

  test('a control record with a short key is a ProtocolError', async () => {
    const buf = encodeRecordBatchSync({ records: [{ key: Buffer.from([0, 0]), value: Buffer.alloc(6) }], control: true })
    await assert.rejects(decodeRecordBatches(buf), (error: unknown) => error instanceof ProtocolError && /Control record key/.test(error.message))
  })

  test('log-append time: every record reports the batch maxTimestamp', async () => {
    const buf = encodeRecordBatchSync({ records: GOLDEN_RECORDS, timestampType: 'log-append' })
    // The broker overwrites maxTimestamp with its own clock (and recomputes the CRC).
    buf.writeBigInt64BE(1800000000000n, 35)
    reseal(buf)
    const [batch] = await decodeRecordBatches(buf)
    assert.equal(batch.timestampType, 'log-append')
    assert.deepEqual(batch.records.map(r => r.timestamp), [1800000000000n, 1800000000000n, 1800000000000n])
  })
})

describe('record batch v2 properties', () => {
  const bytes = fc.oneof(fc.constant(null), fc.constant(Buffer.alloc(0)), fc.uint8Array({ maxLength: 300 }).map(a => Buffer.from(a)))
  const header = fc.record({ key: fc.string({ unit: 'binary', maxLength: 20 }), value: bytes })
  const timestamp = fc.bigInt({ min: -(2n ** 63n) / 2n, max: (2n ** 63n - 1n) / 2n })
  const record = fc.record({
    key: bytes,
    value: bytes,
    headers: fc.array(header, { maxLength: 4 }),
    timestamp: fc.oneof(timestamp, fc.bigInt({ min: T0 - 100000n, max: T0 + 100000n }))
  })

  test('encode then decode gives the records back (uncompressed)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(record, { maxLength: 30 }), fc.bigInt({ min: 0n, max: 2n ** 62n }), async (records, baseOffset) => {
      const buf = encodeRecordBatchSync({ records, baseOffset })
      const [batch] = decodeRecordBatchesSync(buf)
      assert.deepEqual(batch.records.map(plain), records.map((r, i) => plain({ ...r, offset: baseOffset + BigInt(i) })))
      if (records.length > 0) {
        assert.equal(batch.maxTimestamp, records.reduce((max, r) => r.timestamp > max ? r.timestamp : max, records[0].timestamp))
      }
      assert.deepEqual((await decodeRecordBatches(buf))[0].records.map(plain), batch.records.map(plain))
    }), { numRuns: 300 })
  })

  test('encode then decode gives the records back (every codec)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(record, { maxLength: 10 }), fc.constantFrom(...CODECS), async (records, compression) => {
      const [batch] = await decodeRecordBatches(await encodeRecordBatch({ records, compression }))
      assert.deepEqual(batch.records.map(plain), records.map((r, i) => plain({ ...r, offset: BigInt(i) })))
    }), { numRuns: 100 })
  })

  test('recordSizeUpperBound bounds what a record takes in a batch', () => {
    fc.assert(fc.property(record, (r) => {
      const alone = encodeRecordBatchSync({ records: [r], baseTimestamp: 0n }).length - RECORD_BATCH_OVERHEAD
      assert.ok(recordSizeUpperBound(r) >= alone, `${recordSizeUpperBound(r)} < ${alone}`)
    }), { numRuns: 500 })
  })
})

describe('legacy message sets (magic 0 and 1), as old segments still hold them', () => {
  const b = (s: string): Buffer => Buffer.from(s)

  test('uncompressed v0 and v1 messages, then a v2 batch: each message is a one-record batch with its offset, key, value and timestamp', async () => {
    const v2 = encodeRecordBatchSync({ baseOffset: 3n, records: [{ value: b('v2'), timestamp: 7n }] })
    const input = Buffer.concat([
      legacyMessage(0, { offset: 0n, key: b('k0'), value: b('v0') }),
      legacyMessage(1, { offset: 1n, value: null, timestamp: 1000n }),
      legacyMessage(1, { offset: 2n, key: b(''), value: b('v1'), timestamp: 1001n, flags: 0x08 }),
      v2
    ])
    for (const batches of [await decodeRecordBatches(input), decodeRecordBatchesSync(input)]) {
      assert.deepEqual(batches.map(x => [x.magic, x.baseOffset, x.lastOffsetDelta, x.timestampType]), [[0, 0n, 0, 'create'], [1, 1n, 0, 'create'], [1, 2n, 0, 'log-append'], [2, 3n, 0, 'create']])
      const records = batches.flatMap(x => x.records)
      assert.deepEqual(records.map(r => [r.offset, r.timestamp, r.key?.toString() ?? null, r.value?.toString() ?? null]), [[0n, -1n, 'k0', 'v0'], [1n, 1000n, null, null], [2n, 1001n, '', 'v1'], [3n, 7n, null, 'v2']])
    }
  })

  for (const codec of ['gzip', 'snappy', 'lz4'] as const) {
    test(`a v1 ${codec} wrapper: inner relative offsets become absolute (the wrapper holds the last), create and log-append times`, async () => {
      const inner = [{ key: b('a'), value: b('1'), timestamp: 10n }, { value: b('2'), timestamp: 12n }, { value: b('3'), timestamp: 11n }]
      const create = await legacyWrapper(1, codec, 102n, inner, { timestamp: 12n })
      const appended = await legacyWrapper(1, codec, 105n, inner, { timestamp: 99n, flags: 0x08 })
      const batches = await decodeRecordBatches(Buffer.concat([create, appended]))
      assert.deepEqual(batches.map(x => [x.baseOffset, x.lastOffsetDelta, x.recordCount, x.compression, x.maxTimestamp]), [[100n, 2, 3, codec, 12n], [103n, 2, 3, codec, 99n]])
      assert.deepEqual(batches.flatMap(x => x.records).map(r => [r.offset, r.timestamp, r.value?.toString()]), [
        [100n, 10n, '1'], [101n, 12n, '2'], [102n, 11n, '3'], [103n, 99n, '1'], [104n, 99n, '2'], [105n, 99n, '3']
      ])
      assert.throws(() => decodeRecordBatchesSync(create), /compressed/)
    })
  }

  test('a v0 gzip wrapper: inner offsets are absolute; no timestamps (-1)', async () => {
    const batches = await decodeRecordBatches(await legacyWrapper(0, 'gzip', 51n, [{ value: b('x') }, { value: b('y') }]))
    assert.deepEqual(batches[0].records.map(r => [r.offset, r.timestamp, r.value?.toString()]), [[50n, -1n, 'x'], [51n, -1n, 'y']])
  })

  test('bad legacy bytes are ProtocolErrors: CRC-32, lengths, nested compression, offsets, an empty wrapper; a partial message at the end is left for the next fetch', async () => {
    const good = legacyMessage(1, { offset: 5n, key: b('key'), value: b('value'), timestamp: 1n })
    const flipped = Buffer.from(good)
    flipped[good.length - 1] ^= 1
    await assert.rejects(decodeRecordBatches(flipped), (e: unknown) => e instanceof ProtocolError && /CRC-32 mismatch/.test(e.message))
    const longKey = Buffer.from(good)
    longKey.writeInt32BE(1000, 26) // the key length of a v1 message
    longKey.writeUInt32BE(zlib.crc32(longKey.subarray(16)), 12)
    await assert.rejects(decodeRecordBatches(longKey), (e: unknown) => e instanceof ProtocolError && /key length 1000/.test(e.message))
    const nested = legacyMessage(1, { offset: 0n, value: await compress('gzip', await legacyWrapper(1, 'gzip', 0n, [{ value: b('x') }])) }, 'gzip')
    await assert.rejects(decodeRecordBatches(nested), (e: unknown) => e instanceof ProtocolError && /compressed again/.test(e.message))
    const empty = legacyMessage(1, { offset: 0n, value: await compress('gzip', Buffer.alloc(0)) }, 'gzip')
    await assert.rejects(decodeRecordBatches(empty), (e: unknown) => e instanceof ProtocolError && /no messages/.test(e.message))
    const wrongLast = await legacyWrapper(1, 'gzip', 7n, [{ value: b('x') }])
    wrongLast.writeBigInt64BE(7n, 0)
    assert.equal((await decodeRecordBatches(wrongLast))[0].records[0].offset, 7n)
    assert.deepEqual(await decodeRecordBatches(Buffer.concat([good, good.subarray(0, 20)])).then(x => x.length), 1)
  })

  test('a consumer reads a partition whose answers hold legacy messages (fetched through the fake broker)', async () => {
    const { FakeCluster } = await import('../../testing/index')
    const { Client } = await import('../../client/client')
    const { Consumer } = await import('../../consumer/consumer')
    const { Fetch } = await import('../../protocol/apis/fetch')
    const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 1 }] })
    const client = new Client({ bootstrap: cluster.bootstrap })
    try {
      await client.produceRaw({ topic: 't', partition: 0, records: [{ value: b('placeholder') }, { value: b('placeholder') }, { value: b('placeholder') }] })
      const legacy = Buffer.concat([legacyMessage(0, { offset: 0n, value: b('old-0') }), await legacyWrapper(1, 'gzip', 2n, [{ value: b('old-1') }, { value: b('old-2') }], { timestamp: 5n })])
      // The broker serves the old segment's bytes for offset 0.
      cluster.intercept(Fetch, () => ({ modify: r => ({ ...r, responses: r.responses.map(t => ({ ...t, partitions: t.partitions.map(p => (p.records?.length ?? 0) > 0 ? { ...p, records: legacy } : p) })) }) }), { times: 1 })
      const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 50 })
      try {
        const handed = await consumer.nextBatch()
        assert.deepEqual(handed?.batch.records.map(r => [r.offset, r.value?.toString()]), [[0n, 'old-0'], [1n, 'old-1'], [2n, 'old-2']])
        assert.equal(handed?.batch.nextOffset, 3n)
      } finally {
        await consumer.close()
      }
    } finally {
      await client.close()
      await cluster.close()
    }
  })
})

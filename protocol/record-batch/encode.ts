/**
 * Encoding record batches v2. The job of this file: records in, the batch's bytes out.
 *
 * It writes the header and every record into one growing Writer, then patches the
 * length, maxTimestamp and CRC in place; each record's size is computed up front so its
 * length prefix is written first (no per-record buffers).
 */
import { Writer } from '../writer'
import { crc32c } from '../crc32c'
import { SMALL_VARLONG_MAX, SMALL_VARLONG_MIN, sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from '../varint'
import { COMPRESSION_CODEC_IDS, compress, type CompressionCodec } from '../compression'
import {
  ATTRIBUTE_CONTROL, ATTRIBUTE_LOG_APPEND_TIME, ATTRIBUTE_TRANSACTIONAL, LOG_OVERHEAD, MAGIC, OFFSET_ATTRIBUTES, OFFSET_BASE_SEQUENCE,
  OFFSET_BASE_TIMESTAMP, OFFSET_CRC, OFFSET_EPOCH, OFFSET_LAST_OFFSET_DELTA, OFFSET_LENGTH, OFFSET_MAGIC, OFFSET_MAX_TIMESTAMP,
  OFFSET_PRODUCER_EPOCH, OFFSET_PRODUCER_ID, OFFSET_RECORD_COUNT, RECORD_BATCH_OVERHEAD,
  type EncodeRecordBatchOptions, type RecordHeader, type RecordInput
} from './types'

/** Bytes a record can take at most in a batch (before compression), for batch sizing. */
export function recordSizeUpperBound (record: RecordInput): number {
  // length (5) + attributes (1) + timestampDelta (10) + offsetDelta (5) + key and value
  // lengths (5 + 5) + headerCount (5)
  let size = 36 + (record.key?.length ?? 0) + (record.value?.length ?? 0)
  const headers = record.headers
  if (headers !== undefined) {
    for (let i = 0; i < headers.length; i++) {
      // A UTF-16 code unit takes at most 3 UTF-8 bytes.
      size += 10 + headers[i].key.length * 3 + (headers[i].value?.length ?? 0)
    }
  }
  return size
}

/**
 * Encodes a batch; compressed batches compress the records section only. With `writer`,
 * the batch is appended to it (do not write to it until the promise settles); the result
 * is a view of the batch's bytes either way.
 */
export async function encodeRecordBatch (options: EncodeRecordBatchOptions, writer?: Writer): Promise<Buffer> {
  const codec = options.compression ?? 'none'
  if (codec === 'none') return encodeRecordBatchSync(options, writer)
  if (writer === undefined) return await encodeCompressedBatch(options, codec)
  const w = writer
  const start = w.offset
  writeUncompressedBatch(w, options, COMPRESSION_CODEC_IDS[codec])
  const recordsStart = start + RECORD_BATCH_OVERHEAD
  // compress() copies into a new buffer, so the records can then be overwritten in place.
  const compressed = await compress(codec, w.buffer.subarray(recordsStart, w.offset))
  w.offset = recordsStart
  w.raw(compressed)
  return sealBatch(w, start)
}

/**
 * Writers for the uncompressed records of a batch being compressed, reused: compress()
 * copies its output, so once it settles the records are garbage, and allocating a new
 * batch-sized buffer for each (about batchMaxBytes, outside the V8 heap) is what made
 * compressed produce spend a third of its time in the garbage collector. Each encode
 * takes its own writer, so batches compressed at the same time never share one.
 */
const stagingWriters: Writer[] = []
const MAX_STAGING_WRITERS = 4
/** A writer that grew past this (a huge batch) is not kept. */
const MAX_STAGING_BYTES = 4 * 1024 * 1024

/**
 * A compressed batch in a buffer of its exact size: the header and records are written
 * to a reused staging writer, the records compressed, then header and compressed records
 * copied into the result (as many copies as appending the compressed bytes in place).
 */
async function encodeCompressedBatch (options: EncodeRecordBatchOptions, codec: CompressionCodec): Promise<Buffer> {
  const staging = stagingWriters.pop() ?? new Writer(options.sizeHint ?? initialBatchSize(options.records))
  staging.offset = 0
  try {
    writeUncompressedBatch(staging, options, COMPRESSION_CODEC_IDS[codec])
    const compressed = await compress(codec, staging.buffer.subarray(RECORD_BATCH_OVERHEAD, staging.offset))
    const batch = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + compressed.length)
    staging.buffer.copy(batch, 0, 0, RECORD_BATCH_OVERHEAD)
    batch.set(compressed, RECORD_BATCH_OVERHEAD)
    sealBatchBytes(batch, 0, batch.length)
    return batch
  } finally {
    if (stagingWriters.length < MAX_STAGING_WRITERS && staging.buffer.length <= MAX_STAGING_BYTES) stagingWriters.push(staging)
  }
}

/** Encodes an uncompressed batch synchronously (see `encodeRecordBatch`). */
export function encodeRecordBatchSync (options: EncodeRecordBatchOptions, writer?: Writer): Buffer {
  const codec = options.compression ?? 'none'
  if (codec !== 'none') throw new TypeError(`encodeRecordBatchSync only writes uncompressed batches, not ${codec}; use encodeRecordBatch`)
  const w = writer ?? new Writer(options.sizeHint ?? initialBatchSize(options.records))
  const start = w.offset
  writeUncompressedBatch(w, options, 0)
  return sealBatch(w, start)
}

function initialBatchSize (records: readonly RecordInput[]): number {
  let size = RECORD_BATCH_OVERHEAD
  for (let i = 0; i < records.length; i++) size += recordSizeUpperBound(records[i])
  return size
}

/** Patches batchLength and the CRC of the batch that starts at `start` and ends at the writer's offset. */
function sealBatch (w: Writer, start: number): Buffer {
  sealBatchBytes(w.buffer, start, w.offset)
  return w.buffer.subarray(start, w.offset)
}

function sealBatchBytes (buf: Buffer, start: number, end: number): void {
  buf.writeInt32BE(end - start - LOG_OVERHEAD, start + OFFSET_LENGTH)
  buf.writeUInt32BE(crc32c(buf, start + OFFSET_ATTRIBUTES, end), start + OFFSET_CRC)
}

/** Writes the header (length, CRC left for sealBatch) and the records, uncompressed. */
function writeUncompressedBatch (w: Writer, options: EncodeRecordBatchOptions, codecId: number): void {
  const records = options.records
  const count = records.length
  let now: bigint | undefined
  const baseTimestamp = options.baseTimestamp ?? records[0]?.timestamp ?? (now = BigInt(Date.now()))

  let attributes = codecId
  if (options.timestampType === 'log-append') attributes |= ATTRIBUTE_LOG_APPEND_TIME
  if (options.transactional === true) attributes |= ATTRIBUTE_TRANSACTIONAL
  if (options.control === true) attributes |= ATTRIBUTE_CONTROL

  const start = w.reserve(RECORD_BATCH_OVERHEAD)
  const header = w.buffer
  header.writeBigInt64BE(options.baseOffset ?? 0n, start)
  header.writeInt32BE(options.partitionLeaderEpoch ?? -1, start + OFFSET_EPOCH)
  header[start + OFFSET_MAGIC] = MAGIC
  header.writeInt16BE(attributes, start + OFFSET_ATTRIBUTES)
  header.writeInt32BE(count - 1, start + OFFSET_LAST_OFFSET_DELTA)
  header.writeBigInt64BE(baseTimestamp, start + OFFSET_BASE_TIMESTAMP)
  header.writeBigInt64BE(options.producerId ?? -1n, start + OFFSET_PRODUCER_ID)
  header.writeInt16BE(options.producerEpoch ?? -1, start + OFFSET_PRODUCER_EPOCH)
  header.writeInt32BE(options.baseSequence ?? -1, start + OFFSET_BASE_SEQUENCE)
  header.writeInt32BE(count, start + OFFSET_RECORD_COUNT)

  let maxTimestamp = count === 0 ? baseTimestamp : -0x8000000000000000n
  // Records of a batch mostly share one timestamp bigint (the producer's clock stamps a run
  // of records with one): its delta is worked out once, not a bigint subtraction and range
  // checks per record.
  let lastTimestamp: bigint | undefined
  let delta = 0
  let bigDelta: bigint | undefined
  for (let i = 0; i < count; i++) {
    const record = records[i]
    let timestamp = record.timestamp
    if (timestamp === undefined) timestamp = now ??= BigInt(Date.now())
    if (timestamp !== lastTimestamp) {
      lastTimestamp = timestamp
      if (timestamp > maxTimestamp) maxTimestamp = timestamp
      const difference = timestamp - baseTimestamp
      const small = difference >= SMALL_VARLONG_MIN && difference <= SMALL_VARLONG_MAX
      delta = small ? Number(difference) : 0
      bigDelta = small ? undefined : difference
    }
    writeRecord(w, record, i, delta, bigDelta)
  }
  // The buffer may have grown while writing records: patch through w.buffer.
  w.buffer.writeBigInt64BE(maxTimestamp, start + OFFSET_MAX_TIMESTAMP)
}

/** `bigDelta` is the timestamp delta when it does not fit 31 bits; otherwise it is undefined and `timestampDelta` holds it. */
function writeRecord (w: Writer, record: RecordInput, offsetDelta: number, timestampDelta: number, bigDelta: bigint | undefined): void {
  const key = record.key ?? null
  const value = record.value ?? null
  const headers = record.headers
  const keyLength = key === null ? -1 : key.length
  const valueLength = value === null ? -1 : value.length
  const headerCount = headers === undefined ? 0 : headers.length

  let bodySize = 1 +
    (bigDelta === undefined ? sizeOfVarint(timestampDelta) : sizeOfVarlong(bigDelta)) +
    sizeOfVarint(offsetDelta) +
    sizeOfVarint(keyLength) + (keyLength > 0 ? keyLength : 0) +
    sizeOfVarint(valueLength) + (valueLength > 0 ? valueLength : 0) +
    sizeOfVarint(headerCount)
  for (let h = 0; h < headerCount; h++) {
    const header = (headers as RecordHeader[])[h]
    const headerKeyLength = Buffer.byteLength(header.key, 'utf8')
    const headerValueLength = header.value === null ? -1 : header.value.length
    bodySize += sizeOfVarint(headerKeyLength) + headerKeyLength + sizeOfVarint(headerValueLength) + (headerValueLength > 0 ? headerValueLength : 0)
  }

  w.ensure(5 + bodySize)
  const buf = w.buffer
  let pos = writeVarint(buf, w.offset, bodySize)
  buf[pos++] = 0 // record attributes: unused
  pos = bigDelta === undefined ? writeVarint(buf, pos, timestampDelta) : writeVarlong(buf, pos, bigDelta)
  pos = writeVarint(buf, pos, offsetDelta)
  pos = writeVarint(buf, pos, keyLength)
  if (keyLength > 0) {
    buf.set(key as Uint8Array, pos)
    pos += keyLength
  }
  pos = writeVarint(buf, pos, valueLength)
  if (valueLength > 0) {
    buf.set(value as Uint8Array, pos)
    pos += valueLength
  }
  pos = writeVarint(buf, pos, headerCount)
  for (let h = 0; h < headerCount; h++) {
    const header = (headers as RecordHeader[])[h]
    const headerKeyLength = Buffer.byteLength(header.key, 'utf8')
    pos = writeVarint(buf, pos, headerKeyLength)
    pos += buf.write(header.key, pos, headerKeyLength, 'utf8')
    const headerValue = header.value
    if (headerValue === null) {
      pos = writeVarint(buf, pos, -1)
    } else {
      pos = writeVarint(buf, pos, headerValue.length)
      buf.set(headerValue, pos)
      pos += headerValue.length
    }
  }
  w.offset = pos
}

/** Key and value of a control record: a transaction marker (abort or commit). */
export function controlRecordInput (type: 'abort' | 'commit', coordinatorEpoch: number, timestamp?: bigint): RecordInput {
  const key = Buffer.alloc(4)
  key.writeInt16BE(0, 0) // version
  key.writeInt16BE(type === 'abort' ? 0 : 1, 2)
  const value = Buffer.alloc(6)
  value.writeInt16BE(0, 0) // version
  value.writeInt32BE(coordinatorEpoch, 2)
  return timestamp === undefined ? { key, value } : { key, value, timestamp }
}

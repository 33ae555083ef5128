/**
 * Record batch v2 (magic 2), the format Kafka 4 writes; and, read-only, the legacy
 * message sets of magic 0 and 1 that old segments may still hold (see "Legacy message
 * sets" below).
 *
 *   RecordBatch =>                       offset in the batch
 *     baseOffset           int64          0
 *     batchLength          int32          8   bytes after this field
 *     partitionLeaderEpoch int32         12
 *     magic                int8          16   always 2
 *     crc                  uint32        17   CRC-32C of bytes [21, end)
 *     attributes           int16         21   bits 0-2 codec, 3 log-append time, 4 transactional, 5 control
 *     lastOffsetDelta      int32         23
 *     baseTimestamp        int64         27
 *     maxTimestamp         int64         35
 *     producerId           int64         43
 *     producerEpoch        int16         51
 *     baseSequence         int32         53
 *     recordCount          int32         57
 *     records              ...           61   compressed as one unit when the codec is not none
 *
 *   Record =>
 *     length varint, attributes int8, timestampDelta varlong, offsetDelta varint,
 *     keyLength varint (-1 = null), key, valueLength varint (-1 = null), value,
 *     headerCount varint, [headerKeyLength varint, headerKey, headerValueLength varint (-1 = null), headerValue]
 *
 * Encoding writes the header and every record into one growing Writer, then patches the
 * length, maxTimestamp and CRC in place; each record's size is computed up front so its
 * length prefix is written first (no per-record buffers). Decoding returns keys, values
 * and header values as views into the input buffer (no copies), checking every length
 * against the bytes that exist, so bad bytes are a ProtocolError and never a RangeError.
 */
import { Writer } from './writer'
import { KafkaTsError, ProtocolError } from './errors'
import { crc32c } from './crc32c'
import { buf as crc32Signed } from 'crc-32'
import { COMPRESSION_CODEC_IDS, DEFAULT_MAX_DECOMPRESSED_BYTES, codecFromId, compress, decompress, decompressedSizeHint, type CompressionCodec } from './compression'

export interface RecordHeader {
  key: string
  value: Buffer | null
}

/** A record to write. A record without a timestamp gets the time the batch is encoded. */
export interface RecordInput {
  key?: Buffer | null
  value: Buffer | null
  headers?: RecordHeader[]
  timestamp?: bigint
}

/** A decoded record. key, value and header values are views into the fetched bytes. */
export interface KafkaRecord {
  offset: bigint
  timestamp: bigint
  key: Buffer | null
  value: Buffer | null
  headers: RecordHeader[]
}

/** The record of a control batch: a transaction marker (abort/commit) or a KRaft-only type. */
export interface ControlRecord {
  type: 'abort' | 'commit' | 'unknown'
  /** The type number from the key (0 abort, 1 commit; others are KRaft metadata log types). */
  typeId: number
  /** Version of the control record key. */
  version: number
  /** For abort/commit markers: the epoch of the transaction coordinator; -1 otherwise. */
  coordinatorEpoch: number
}

export interface RecordBatch {
  baseOffset: bigint
  batchLength: number
  partitionLeaderEpoch: number
  magic: number
  crc: number
  attributes: number
  compression: CompressionCodec
  timestampType: 'create' | 'log-append'
  isTransactional: boolean
  isControl: boolean
  lastOffsetDelta: number
  baseTimestamp: bigint
  maxTimestamp: bigint
  producerId: bigint
  producerEpoch: number
  baseSequence: number
  recordCount: number
  records: KafkaRecord[]
  /** Bytes of the records section once decompressed; 0 when uncompressed (the records are views into the input). */
  decompressedBytes: number
  /** Set on control batches: their (single) record decoded. The record is in `records` too. */
  controlRecord: ControlRecord | undefined
}

export interface EncodeRecordBatchOptions {
  records: readonly RecordInput[]
  compression?: CompressionCodec
  baseOffset?: bigint
  partitionLeaderEpoch?: number
  producerId?: bigint
  producerEpoch?: number
  baseSequence?: number
  transactional?: boolean
  control?: boolean
  timestampType?: 'create' | 'log-append'
  /** Defaults to the first record's timestamp, or now. */
  baseTimestamp?: bigint
  /**
   * The batch's size as RECORD_BATCH_OVERHEAD plus each record's recordSizeUpperBound, when
   * the caller has added it up already (the producer has): the first size of the buffer
   * the batch is written to, which grows if it is short.
   */
  sizeHint?: number
}

export interface DecodeContext {
  /** Named in error messages. */
  topic?: string
  /** Named in error messages. */
  partition?: number
  /** Refuse a compressed batch whose records decompress to more bytes than this (default 256 MiB). */
  maxDecompressedBytes?: number
  /**
   * Verify each batch's CRC-32C (default true, like the Java consumer's check.crcs). On large
   * uncompressed batches the checksum is most of the decoding time.
   */
  checkCrc?: boolean
  /**
   * Bounds what one call adds to memory: decoding stops before a batch (never the first)
   * whose decompressed bytes (an upper bound until decompressed) plus
   * RECORD_MEMORY_OVERHEAD per record would take the call's total past this. Batches left
   * out are like a partial batch at the end: the caller fetches them again later.
   */
  memoryBudget?: number
  /**
   * What each record of a data batch is made into instead of a KafkaRecord (decodeRecordBatches
   * and decodeScannedBatches; decodeRecordBatchesSync ignores it): the batch's `records` then
   * hold what it made. Control batches stay KafkaRecords.
   */
  recordMaker?: RecordMaker
}

/**
 * Makes the objects a batch's records are decoded into when a consumer hands out another
 * shape than KafkaRecord (the kafkajs drop-in's messages): one object per record instead of
 * a KafkaRecord and its copy, and no offset or timestamp bigint per record. Offsets and
 * timestamps come as deltas from the batch's (startBatch gets the batch first).
 */
export interface RecordMaker<R = unknown> {
  /** Before the records of `batch` (its baseOffset, baseTimestamp, timestampType and maxTimestamp are read). */
  startBatch (batch: RecordBatch): void
  /** `timestampDelta` from baseTimestamp is a bigint only when it needs more than 27 bits. Log-append batches: the record's time is maxTimestamp. */
  make (offsetDelta: number, timestampDelta: number | bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]): R
  /** What it makes of a record decoded as a KafkaRecord (legacy message sets, magic 0 and 1). */
  fromRecord (record: KafkaRecord): R
  /** The offset of a record it made. */
  offsetOf (record: R): bigint
}

/**
 * Heap bytes a decoded record costs besides the bytes of its key, value and headers (the
 * record object, two bigints, Buffer views, the headers array), rounded up from a
 * measurement on Node 20/22 (~220 bytes for a record with a value only).
 */
export const RECORD_MEMORY_OVERHEAD = 300

/** Bytes of a batch header (up to and including recordCount): what a batch costs besides its records. */
export const RECORD_BATCH_OVERHEAD = 61

/** baseOffset and batchLength: the bytes not counted by batchLength. */
const LOG_OVERHEAD = 12
const MAGIC = 2

const OFFSET_LENGTH = 8
const OFFSET_EPOCH = 12
const OFFSET_MAGIC = 16
const OFFSET_CRC = 17
const OFFSET_ATTRIBUTES = 21
const OFFSET_LAST_OFFSET_DELTA = 23
const OFFSET_BASE_TIMESTAMP = 27
const OFFSET_MAX_TIMESTAMP = 35
const OFFSET_PRODUCER_ID = 43
const OFFSET_PRODUCER_EPOCH = 51
const OFFSET_BASE_SEQUENCE = 53
const OFFSET_RECORD_COUNT = 57

const ATTRIBUTE_CODEC_MASK = 0x07
const ATTRIBUTE_LOG_APPEND_TIME = 0x08
const ATTRIBUTE_TRANSACTIONAL = 0x10
const ATTRIBUTE_CONTROL = 0x20

/**
 * The fewest bytes a record can take: length, attributes, timestampDelta, offsetDelta,
 * keyLength, valueLength and headerCount, one byte each. Bounds a claimed record count.
 */
const MIN_RECORD_SIZE = 7

const SMALL_VARLONG_MIN = -0x40000000n
const SMALL_VARLONG_MAX = 0x3fffffffn

// ---------------------------------------------------------------------------------------
// Encoding

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
    (bigDelta === undefined ? sizeOfVarint(timestampDelta) : sizeOfBigVarlong(bigDelta)) +
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
  pos = bigDelta === undefined ? writeVarint(buf, pos, timestampDelta) : writeBigVarlong(buf, pos, bigDelta)
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

/** Bytes of the zigzag varint of a signed 32-bit value. */
function sizeOfVarint (value: number): number {
  const zigzag = ((value << 1) ^ (value >> 31)) >>> 0
  return zigzag < 0x80 ? 1 : zigzag < 0x4000 ? 2 : zigzag < 0x200000 ? 3 : zigzag < 0x10000000 ? 4 : 5
}

/** Writes the zigzag varint of a signed 32-bit value at `pos`; returns the position after it. */
function writeVarint (buf: Buffer, pos: number, value: number): number {
  let zigzag = ((value << 1) ^ (value >> 31)) >>> 0
  while (zigzag > 0x7f) {
    buf[pos++] = (zigzag & 0x7f) | 0x80
    zigzag >>>= 7
  }
  buf[pos++] = zigzag
  return pos
}

function zigzag64 (value: bigint): bigint {
  return BigInt.asUintN(64, (value << 1n) ^ (value >> 63n))
}

function sizeOfBigVarlong (value: bigint): number {
  let zigzag = zigzag64(value)
  let size = 1
  while (zigzag > 0x7fn) {
    zigzag >>= 7n
    size++
  }
  return size
}

function writeBigVarlong (buf: Buffer, pos: number, value: bigint): number {
  let zigzag = zigzag64(value)
  while (zigzag > 0x7fn) {
    buf[pos++] = Number(zigzag & 0x7fn) | 0x80
    zigzag >>= 7n
  }
  buf[pos++] = Number(zigzag)
  return pos
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

// ---------------------------------------------------------------------------------------
// Decoding

/** A compressed batch given to decodeRecordBatchesSync, which only decodes uncompressed ones. */
export class CompressedBatchError extends KafkaTsError {
  constructor (codec: CompressionCodec) {
    super('COMPRESSED_BATCH', `decodeRecordBatchesSync met a ${codec}-compressed record batch; decode compressed data with decodeRecordBatches`, { retriable: false })
    this.name = 'CompressedBatchError'
  }
}

/**
 * Decodes the concatenated batches of a records field (as in a Fetch response). A partial
 * batch at the end, which brokers leave when they cut a response at its byte limit, is
 * ignored. Compressed batches are decompressed concurrently.
 */
export async function decodeRecordBatches (buffer: Buffer, context: DecodeContext = {}): Promise<RecordBatch[]> {
  const scanned = scanRecordBatches(buffer, context)
  const complete = await decodeScannedBatches(scanned, context)
  const batches: RecordBatch[] = new Array(complete)
  for (let i = 0; i < complete; i++) batches[i] = scanned[i].batch
  return batches
}

/**
 * A record batch whose header was read and checked (bounds, magic, codec and, unless
 * `checkCrc` is false, its CRC-32C) and whose records are not decoded yet:
 * decodeScannedBatches makes them. `data` is its records section as it came (compressed
 * or not), a view into the scanned bytes.
 */
export interface ScannedBatch {
  /** The header's fields; `records` stays empty until decoded (`decoded`). */
  batch: RecordBatch
  data: Buffer
  /** The decompressed size its records may take (a limit for decompression). */
  maxBytes: number
  /** What decoding it may add to memory: decompressed bytes (an upper bound until decompressed) and RECORD_MEMORY_OVERHEAD per record. */
  cost: number
  /** Records decoded already (uncompressed legacy messages, uncompressed control batches, empty batches). */
  decoded: boolean
}

/**
 * Reads and checks the headers of the complete batches in `buffer` without decoding their
 * records (memoryBudget as for decodeRecordBatches: it stops before a batch, never the
 * first, whose cost would pass it). Uncompressed control batches are decoded at once, so
 * read_committed filtering can tell aborts from commits.
 */
export function scanRecordBatches (buffer: Buffer, context: DecodeContext = {}): ScannedBatch[] {
  const scanned: ScannedBatch[] = []
  const budget = context.memoryBudget ?? Infinity
  const maxDecompressed = context.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
  let reserved = 0
  let pos = 0
  for (;;) {
    const end = completeBatchEnd(buffer, pos, context)
    if (end < 0) break
    const first = scanned.length === 0
    if (buffer[pos + OFFSET_MAGIC] < MAGIC) {
      const legacy = decodeLegacyEntry(buffer, pos, end, context)
      if (legacy.compression === 'none') {
        scanned.push({ batch: legacy, data: EMPTY, maxBytes: 0, cost: RECORD_MEMORY_OVERHEAD, decoded: true })
      } else {
        const data = legacy.records[0].value!
        const cost = budget !== Infinity && !first ? sizeHintInContext(legacy, data, context, maxDecompressed) : 0
        if (!first && reserved + cost > budget) break
        reserved += cost
        scanned.push({ batch: legacy, data, maxBytes: maxDecompressed, cost, decoded: false })
      }
      pos = end
      continue
    }
    const batch = decodeBatchHeader(buffer, pos, end, context)
    const data = buffer.subarray(pos + RECORD_BATCH_OVERHEAD, end)
    // Like the Java client, a batch with no records (compaction can leave one) is not read further.
    if (batch.recordCount === 0) {
      scanned.push({ batch, data, maxBytes: 0, cost: 0, decoded: true })
      pos = end
      continue
    }
    const compressed = batch.compression !== 'none'
    let maxBytes = maxDecompressed
    const hint = compressed ? sizeHintInContext(batch, data, context, maxDecompressed) : 0
    const cost = hint + batch.recordCount * RECORD_MEMORY_OVERHEAD
    if (budget !== Infinity) {
      if (!first && reserved + cost > budget) break
      reserved += cost
      // A gzip trailer is only a claim: past the first batch, hold it to what it claimed.
      if (!first && batch.compression === 'gzip') maxBytes = hint
    }
    const entry: ScannedBatch = { batch, data, maxBytes, cost, decoded: false }
    if (batch.isControl && !compressed) decodeScanned(entry, context)
    scanned.push(entry)
    pos = end
  }
  return scanned
}

const EMPTY = Buffer.alloc(0)

function decodeScanned (scanned: ScannedBatch, context: DecodeContext): void {
  decodeRecordsInContext(scanned.batch, scanned.data, 0, scanned.data.length, context, context.recordMaker)
  scanned.decoded = true
}

/**
 * Decodes the records of scanned batches (decompressing concurrently) into each one's
 * `batch.records`. Returns how many of them, from the first, were decoded: a batch held
 * to its size hint (memoryBudget) that decompressed past it is left out with those after
 * it, to be fetched again. Bad bytes are a ProtocolError. With `context.recordMaker`, each
 * data batch must be decoded by one call only (its legacy records are made over at the end).
 */
export async function decodeScannedBatches (scanned: readonly ScannedBatch[], context: DecodeContext = {}): Promise<number> {
  let pending: Array<Promise<void>> | undefined
  let overLimitAt = scanned.length
  const maxDecompressed = context.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
  try {
    for (let i = 0; i < scanned.length; i++) {
      const s = scanned[i]
      if (s.decoded) continue
      const batch = s.batch
      if (batch.compression === 'none') {
        decodeScanned(s, context)
        continue
      }
      const decoding = batch.magic < MAGIC ? decodeLegacyWrapper(batch, s.data, context, s.maxBytes) : decodeCompressedRecords(batch, s.data, context, s.maxBytes)
      ;(pending ??= []).push(decoding.then(() => { s.decoded = true }, (error: unknown) => {
        if (!(error instanceof DecompressedTooLargeError) || s.maxBytes === maxDecompressed) throw error
        overLimitAt = Math.min(overLimitAt, i)
      }))
    }
  } catch (error) {
    // A later batch is bad while earlier ones are still decompressing: their failures must
    // not surface as unhandled rejections (which end a Node process).
    if (pending !== undefined) for (const p of pending) p.catch(() => {})
    throw error
  }
  if (pending !== undefined) await Promise.all(pending)
  const maker = context.recordMaker
  if (maker !== undefined) {
    for (let i = 0; i < overLimitAt; i++) {
      const batch = scanned[i].batch
      if (batch.magic < MAGIC) batch.records = batch.records.map(record => maker.fromRecord(record)) as KafkaRecord[]
    }
  }
  return overLimitAt
}

/** A batch decompressed past the limit it was given (its own size hint). */
class DecompressedTooLargeError extends ProtocolError {}

function sizeHintInContext (batch: RecordBatch, data: Buffer, context: DecodeContext, maxBytes: number): number {
  try {
    return decompressedSizeHint(batch.compression, data, maxBytes)
  } catch (error) {
    if (error instanceof ProtocolError) throw inBatch(batch, context, error)
    throw error
  }
}

/** Synchronous decodeRecordBatches for uncompressed data; a compressed batch is a CompressedBatchError. */
export function decodeRecordBatchesSync (buffer: Buffer, context: DecodeContext = {}): RecordBatch[] {
  const batches: RecordBatch[] = []
  let pos = 0
  for (;;) {
    const end = completeBatchEnd(buffer, pos, context)
    if (end < 0) break
    if (buffer[pos + OFFSET_MAGIC] < MAGIC) {
      const legacy = decodeLegacyEntry(buffer, pos, end, context)
      if (legacy.compression !== 'none') throw new CompressedBatchError(legacy.compression)
      batches.push(legacy)
      pos = end
      continue
    }
    const batch = decodeBatchHeader(buffer, pos, end, context)
    if (batch.recordCount > 0) {
      if (batch.compression !== 'none') throw new CompressedBatchError(batch.compression)
      decodeRecordsInContext(batch, buffer, pos + RECORD_BATCH_OVERHEAD, end, context)
    }
    batches.push(batch)
    pos = end
  }
  return batches
}

function where (context: DecodeContext): string {
  const topic = context.topic ?? '?'
  const partition = context.partition ?? '?'
  return `topic ${topic} partition ${partition}`
}

/**
 * The end of the complete batch that starts at `pos`, or -1 when none is left (no bytes,
 * or a partial batch cut off by the broker). Throws for what can't be a v2 batch.
 */
function completeBatchEnd (buffer: Buffer, pos: number, context: DecodeContext): number {
  const remaining = buffer.length - pos
  if (remaining < LOG_OVERHEAD) return -1
  const length = buffer.readInt32BE(pos + OFFSET_LENGTH)
  if (length < 0) throw new ProtocolError(`Record batch at byte ${pos} of ${where(context)} has a negative length ${length}`)
  if (remaining - LOG_OVERHEAD < length) return -1
  if (length < OFFSET_MAGIC + 1 - LOG_OVERHEAD) throw new ProtocolError(`Record batch at byte ${pos} of ${where(context)} is ${length} bytes long, too short to hold a magic byte`)
  const magic = buffer.readInt8(pos + OFFSET_MAGIC)
  if (magic === 0 || magic === 1) {
    if (length < LEGACY_HEADER_SIZE[magic]) throw new ProtocolError(`Legacy message (magic ${magic}) at offset ${buffer.readBigInt64BE(pos)} of ${where(context)} is ${length} bytes long, less than its ${LEGACY_HEADER_SIZE[magic]}-byte header`)
    return pos + LOG_OVERHEAD + length
  }
  if (magic !== MAGIC) {
    throw new ProtocolError(`Record batch at base offset ${buffer.readBigInt64BE(pos)} of ${where(context)} has magic ${magic}: not a record batch (magic 2) nor a legacy message (magic 0 or 1)`)
  }
  if (length < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
    throw new ProtocolError(`Record batch at base offset ${buffer.readBigInt64BE(pos)} of ${where(context)} is ${length} bytes long, less than its ${RECORD_BATCH_OVERHEAD - LOG_OVERHEAD}-byte header`)
  }
  return pos + LOG_OVERHEAD + length
}

/** Reads and checks the header of the complete batch [start, end); records are left empty. */
function decodeBatchHeader (buffer: Buffer, start: number, end: number, context: DecodeContext): RecordBatch {
  const baseOffset = buffer.readBigInt64BE(start)
  const storedCrc = buffer.readUInt32BE(start + OFFSET_CRC)
  const computedCrc = context.checkCrc === false ? storedCrc : crc32c(buffer, start + OFFSET_ATTRIBUTES, end)
  if (storedCrc !== computedCrc) {
    throw new ProtocolError(`CRC mismatch in the record batch at base offset ${baseOffset} of ${where(context)}: stored 0x${storedCrc.toString(16).padStart(8, '0')}, computed 0x${computedCrc.toString(16).padStart(8, '0')} (corrupt data)`)
  }
  const attributes = buffer.readInt16BE(start + OFFSET_ATTRIBUTES)
  const recordCount = buffer.readInt32BE(start + OFFSET_RECORD_COUNT)
  if (recordCount < 0) throw new ProtocolError(`Record batch at base offset ${baseOffset} of ${where(context)} has a negative record count ${recordCount}`)
  let compression: CompressionCodec
  try {
    compression = codecFromId(attributes & ATTRIBUTE_CODEC_MASK)
  } catch (error) {
    throw new ProtocolError(`Record batch at base offset ${baseOffset} of ${where(context)}: ${(error as Error).message}`)
  }
  return {
    baseOffset,
    batchLength: end - start - LOG_OVERHEAD,
    partitionLeaderEpoch: buffer.readInt32BE(start + OFFSET_EPOCH),
    magic: MAGIC,
    crc: storedCrc,
    attributes,
    compression,
    timestampType: (attributes & ATTRIBUTE_LOG_APPEND_TIME) !== 0 ? 'log-append' : 'create',
    isTransactional: (attributes & ATTRIBUTE_TRANSACTIONAL) !== 0,
    isControl: (attributes & ATTRIBUTE_CONTROL) !== 0,
    lastOffsetDelta: buffer.readInt32BE(start + OFFSET_LAST_OFFSET_DELTA),
    baseTimestamp: buffer.readBigInt64BE(start + OFFSET_BASE_TIMESTAMP),
    maxTimestamp: buffer.readBigInt64BE(start + OFFSET_MAX_TIMESTAMP),
    producerId: buffer.readBigInt64BE(start + OFFSET_PRODUCER_ID),
    producerEpoch: buffer.readInt16BE(start + OFFSET_PRODUCER_EPOCH),
    baseSequence: buffer.readInt32BE(start + OFFSET_BASE_SEQUENCE),
    recordCount,
    records: [],
    decompressedBytes: 0,
    controlRecord: undefined
  }
}

async function decodeCompressedRecords (batch: RecordBatch, compressed: Buffer, context: DecodeContext, maxBytes: number): Promise<void> {
  let records: Buffer
  try {
    records = await decompress(batch.compression, compressed, { maxBytes })
  } catch (error) {
    if (maxBytes !== (context.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES) && error instanceof ProtocolError) throw new DecompressedTooLargeError(error.message)
    if (error instanceof ProtocolError) throw inBatch(batch, context, error)
    throw error
  }
  batch.decompressedBytes = records.length
  decodeRecordsInContext(batch, records, 0, records.length, context, context.recordMaker)
}

function inBatch (batch: RecordBatch, context: DecodeContext, error: ProtocolError): ProtocolError {
  return new ProtocolError(`Record batch at base offset ${batch.baseOffset} of ${where(context)}: ${error.message}`, { cause: error })
}

function decodeRecordsInContext (batch: RecordBatch, buf: Buffer, start: number, end: number, context: DecodeContext, maker?: RecordMaker): void {
  try {
    decodeRecords(batch, buf, start, end, batch.isControl ? undefined : maker)
    if (batch.isControl) batch.controlRecord = decodeControlRecord(batch)
  } catch (error) {
    if (error instanceof ProtocolError) throw inBatch(batch, context, error)
    throw error
  }
}

/*
 * The record decoder reads with module-level functions that advance `cursor`, so the hot
 * loop makes no Reader or closure per record. decodeRecords is synchronous, so no other
 * decode can run between its reads.
 */
let cursor = 0

function truncatedRecord (what: string): ProtocolError {
  return new ProtocolError(`Truncated record: ${what} at byte ${cursor} runs past the end of its record`)
}

/**
 * A zigzag varint (signed 32-bit) at `cursor`, not reading at or past `end`. One and two
 * bytes (values -8192..8191: lengths, deltas and counts of most records) are read
 * without the loop.
 */
function readVarint (buf: Buffer, end: number, what: string): number {
  const at = cursor
  if (at + 1 < end) {
    const b0 = buf[at]
    if (b0 < 0x80) {
      cursor = at + 1
      return (b0 >>> 1) ^ -(b0 & 1)
    }
    const b1 = buf[at + 1]
    if (b1 < 0x80) {
      const result = (b0 & 0x7f) | (b1 << 7)
      cursor = at + 2
      return (result >>> 1) ^ -(result & 1)
    }
  }
  return readLongVarint(buf, end, what)
}

function readLongVarint (buf: Buffer, end: number, what: string): number {
  let pos = cursor
  let result = 0
  for (let shift = 0; ; shift += 7) {
    if (pos >= end) throw truncatedRecord(what)
    const byte = buf[pos++]
    if (shift === 28) {
      if (byte > 0x0f) throw new ProtocolError(`Malformed varint for ${what} at byte ${cursor}: longer than 32 bits`)
      result |= byte << 28
      break
    }
    result |= (byte & 0x7f) << shift
    if (byte < 0x80) break
  }
  cursor = pos
  return (result >>> 1) ^ -(result & 1)
}

/** Timestamp deltas below this share their timestamp bigint within a batch. */
const SHARED_TIMESTAMPS = 1024
/** What readSmallVarlong returns for a value that needs a bigint: the value is in `largeVarlong`. */
const LARGE_VARLONG = 2 ** 31
let largeVarlong = 0n

/**
 * A zigzag varlong at `cursor` as a number when it takes at most 4 bytes (|value| < 2^27,
 * almost every delta), so no bigint is made for it; otherwise LARGE_VARLONG, with the
 * value in `largeVarlong`.
 */
function readSmallVarlong (buf: Buffer, end: number, what: string): number {
  if (cursor < end && buf[cursor] < 0x80) {
    const b0 = buf[cursor++]
    return (b0 >>> 1) ^ -(b0 & 1)
  }
  let pos = cursor
  let small = 0
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw truncatedRecord(what)
    const byte = buf[pos++]
    small |= (byte & 0x7f) << shift
    if (byte < 0x80) {
      cursor = pos
      return (small >>> 1) ^ -(small & 1)
    }
  }
  largeVarlong = readVarlong(buf, end, what)
  return LARGE_VARLONG
}

/** A zigzag varlong (signed 64-bit) at `cursor`, not reading at or past `end`. */
function readVarlong (buf: Buffer, end: number, what: string): bigint {
  let pos = cursor
  // Values below 2^28 (almost all deltas) decode without BigInt arithmetic per byte.
  let small = 0
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw truncatedRecord(what)
    const byte = buf[pos++]
    small |= (byte & 0x7f) << shift
    if (byte < 0x80) {
      cursor = pos
      return BigInt((small >>> 1) ^ -(small & 1))
    }
  }
  let result = BigInt(small >>> 0)
  for (let shift = 28n; ; shift += 7n) {
    if (pos >= end) throw truncatedRecord(what)
    if (shift > 63n) throw new ProtocolError(`Malformed varlong for ${what} at byte ${cursor}: longer than 64 bits`)
    const byte = buf[pos++]
    result |= BigInt(byte & 0x7f) << shift
    if (byte < 0x80) break
  }
  cursor = pos
  result = BigInt.asUintN(64, result)
  return (result >> 1n) ^ -(result & 1n)
}

/** Nullable bytes: a varint length (-1 = null), then that many bytes, as a view. */
function readNullableBytes (buf: Buffer, end: number, what: string): Buffer | null {
  const length = readVarint(buf, end, what)
  if (length === -1) return null
  if (length < -1) throw new ProtocolError(`Negative length ${length} for ${what} at byte ${cursor}`)
  if (length > end - cursor) throw truncatedRecord(`${what} of ${length} bytes`)
  const view = buf.subarray(cursor, cursor + length)
  cursor += length
  return view
}

/**
 * The `headers` of every decoded record that has none: one frozen empty array, not a new
 * one per record (a record's own array was a tenth of its memory). Frozen, so a push
 * into it throws instead of giving the header to every record.
 */
export const NO_HEADERS: RecordHeader[] = Object.freeze([]) as unknown as RecordHeader[]

/** The records of a record batch whose records were moved on (a consumer's hand-out holds them now): frozen and empty. */
export const NO_RECORDS: KafkaRecord[] = Object.freeze([]) as unknown as KafkaRecord[]

/** Into KafkaRecords, or into what `maker` makes (then no offset or timestamp bigints are made here). */
function decodeRecords (batch: RecordBatch, buf: Buffer, start: number, end: number, maker: RecordMaker | undefined): void {
  const count = batch.recordCount
  if (count > (end - start) / MIN_RECORD_SIZE) {
    throw new ProtocolError(`Record count ${count} cannot fit in the ${end - start} bytes of records (each takes at least ${MIN_RECORD_SIZE})`)
  }
  const records: KafkaRecord[] = new Array(count)
  const baseOffset = batch.baseOffset
  const baseTimestamp = batch.baseTimestamp
  // Log-append time: the broker's time is the batch's maxTimestamp, for every record.
  const logAppendTimestamp = batch.timestampType === 'log-append' ? batch.maxTimestamp : undefined
  // bigints are immutable, so records may share them: the timestamps of small deltas (a
  // batch spans a few milliseconds) are made once per batch, and an offset one past the
  // previous record's is that one + 1n; values are the same, allocations fewer.
  const timestamps: Array<bigint | undefined> = []
  let previousOffset = -1n
  let previousDelta = NaN // matches no first delta
  maker?.startBatch(batch)
  cursor = start
  for (let i = 0; i < count; i++) {
    const length = readVarint(buf, end, 'record length')
    if (length < MIN_RECORD_SIZE - 1) throw new ProtocolError(`Bad record length ${length} at byte ${cursor}`)
    if (length > end - cursor) throw new ProtocolError(`Record ${i} of ${count} claims ${length} bytes at byte ${cursor}, but only ${end - cursor} remain`)
    const recordEnd = cursor + length
    cursor++ // record attributes: unused
    const smallDelta = readSmallVarlong(buf, recordEnd, 'timestamp delta')
    const timestampDelta = smallDelta === LARGE_VARLONG ? largeVarlong : smallDelta
    const offsetDelta = readVarint(buf, recordEnd, 'offset delta')
    const key = readNullableBytes(buf, recordEnd, 'key')
    const value = readNullableBytes(buf, recordEnd, 'value')
    const headerCount = readVarint(buf, recordEnd, 'header count')
    let headers: RecordHeader[]
    if (headerCount === 0) {
      headers = NO_HEADERS
    } else {
      // A header takes at least 2 bytes (two length varints).
      if (headerCount < 0 || headerCount > (recordEnd - cursor) / 2) throw new ProtocolError(`Bad header count ${headerCount} at byte ${cursor}: ${recordEnd - cursor} bytes remain in the record`)
      headers = new Array(headerCount)
      for (let h = 0; h < headerCount; h++) {
        const keyLength = readVarint(buf, recordEnd, 'header key length')
        if (keyLength < 0) throw new ProtocolError(`Bad header key length ${keyLength} at byte ${cursor}`)
        if (keyLength > recordEnd - cursor) throw truncatedRecord(`header key of ${keyLength} bytes`)
        const headerKey = buf.toString('utf8', cursor, cursor + keyLength)
        cursor += keyLength
        headers[h] = { key: headerKey, value: readNullableBytes(buf, recordEnd, 'header value') }
      }
    }
    if (cursor !== recordEnd) throw new ProtocolError(`Record ${i} declares ${length} bytes but its fields take ${length - (recordEnd - cursor)}`)
    if (maker !== undefined) {
      records[i] = maker.make(offsetDelta, timestampDelta, key, value, headers) as KafkaRecord
      continue
    }
    const offset = offsetDelta === previousDelta + 1 ? previousOffset + 1n : baseOffset + BigInt(offsetDelta)
    previousOffset = offset
    previousDelta = offsetDelta
    let timestamp: bigint
    if (logAppendTimestamp !== undefined) timestamp = logAppendTimestamp
    else if (typeof timestampDelta === 'bigint') timestamp = baseTimestamp + timestampDelta
    else if (timestampDelta >= 0 && timestampDelta < SHARED_TIMESTAMPS) timestamp = timestamps[timestampDelta] ??= baseTimestamp + BigInt(timestampDelta)
    else timestamp = baseTimestamp + BigInt(timestampDelta)
    records[i] = { offset, timestamp, key, value, headers }
  }
  if (cursor !== end) throw new ProtocolError(`${end - cursor} bytes remain after the ${count} records the batch declares`)
  batch.records = records
}

const CONTROL_TYPES: Record<number, 'abort' | 'commit'> = { 0: 'abort', 1: 'commit' }

function decodeControlRecord (batch: RecordBatch): ControlRecord | undefined {
  const record = batch.records[0]
  if (record === undefined) return undefined
  const key = record.key
  if (key === null || key.length < 4) throw new ProtocolError(`Control record key is ${key === null ? 'null' : `${key.length} bytes`}; it needs a version and a type (4 bytes)`)
  const version = key.readInt16BE(0)
  const typeId = key.readInt16BE(2)
  const type = CONTROL_TYPES[typeId]
  if (type === undefined) return { type: 'unknown', typeId, version, coordinatorEpoch: -1 }
  const value = record.value
  if (value === null || value.length < 6) throw new ProtocolError(`Transaction marker value is ${value === null ? 'null' : `${value.length} bytes`}; it needs a version and a coordinator epoch (6 bytes)`)
  return { type, typeId, version, coordinatorEpoch: value.readInt32BE(2) }
}

// ---------------------------------------------------------------------------------------
// Legacy message sets (magic 0 and 1), read-only
//
//   LogEntry => offset int64, messageSize int32, Message
//   Message =>                       offset in the entry
//     crc        uint32              12   CRC-32 (IEEE, not C) of bytes [16, end)
//     magic      int8                16   0 or 1
//     attributes int8                17   bits 0-2 codec (gzip, snappy, lz4), bit 3 log-append time (v1)
//     timestamp  int64               18   v1 only
//     key        int32 length + bytes     -1 = null
//     value      int32 length + bytes     -1 = null
//
// A compressed message is a wrapper: its value, decompressed, is a message set of inner
// messages (never compressed themselves). Magic 1 wrappers carry the offset of the last
// inner message, and the inner ones relative offsets 0..n-1; magic 0 inner messages carry
// absolute offsets. With log-append time, the wrapper's timestamp is every inner record's.
// Each entry becomes one RecordBatch (magic 0 or 1), so consumers treat it as a batch.
// lz4 of magic 0 used a broken frame-header checksum (Kafka's KafkaLZ4BlockInputStream
// skips it); such data is refused as malformed lz4.

/** Bytes of the message header after the log overhead (crc, magic, attributes[, timestamp], key and value lengths). */
const LEGACY_HEADER_SIZE = [14, 22]
const LEGACY_CODECS: ReadonlyArray<CompressionCodec | undefined> = ['none', 'gzip', 'snappy', 'lz4']
const NO_TIMESTAMP = -1n

function legacyError (offset: bigint, context: DecodeContext, what: string): ProtocolError {
  return new ProtocolError(`Legacy message at offset ${offset} of ${where(context)}: ${what}`)
}

/** One legacy message [start, end) as a one-record RecordBatch; a wrapper's record value is its compressed inner set. */
function decodeLegacyEntry (buffer: Buffer, start: number, end: number, context: DecodeContext, inner = false): RecordBatch {
  const offset = buffer.readBigInt64BE(start)
  const magic = buffer[start + OFFSET_MAGIC]
  const storedCrc = buffer.readUInt32BE(start + LOG_OVERHEAD)
  if (context.checkCrc !== false) {
    const computed = crc32Signed(buffer.subarray(start + OFFSET_MAGIC, end)) >>> 0
    if (computed !== storedCrc) throw legacyError(offset, context, `CRC-32 mismatch: stored 0x${storedCrc.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')} (corrupt data)`)
  }
  const attributes = buffer[start + OFFSET_MAGIC + 1]
  const compression = LEGACY_CODECS[attributes & ATTRIBUTE_CODEC_MASK]
  if (compression === undefined) throw legacyError(offset, context, `unknown compression codec id ${attributes & ATTRIBUTE_CODEC_MASK}`)
  if (inner && compression !== 'none') throw legacyError(offset, context, 'a message inside a compressed message is compressed again')
  let pos = start + OFFSET_MAGIC + 2
  let timestamp = NO_TIMESTAMP
  if (magic === 1) {
    timestamp = buffer.readBigInt64BE(pos)
    pos += 8
  }
  const key = readLegacyBytes(buffer, pos, end, offset, context, 'key')
  pos += 4 + (key?.length ?? 0)
  const value = readLegacyBytes(buffer, pos, end, offset, context, 'value')
  pos += 4 + (value?.length ?? 0)
  if (pos !== end) throw legacyError(offset, context, `${end - pos} bytes after its value`)
  if (compression !== 'none' && value === null) throw legacyError(offset, context, `a ${compression} wrapper without a value`)
  const logAppend = magic === 1 && (attributes & ATTRIBUTE_LOG_APPEND_TIME) !== 0
  return {
    baseOffset: offset,
    batchLength: end - start - LOG_OVERHEAD,
    partitionLeaderEpoch: -1,
    magic,
    crc: storedCrc,
    attributes,
    compression,
    timestampType: logAppend ? 'log-append' : 'create',
    isTransactional: false,
    isControl: false,
    lastOffsetDelta: 0,
    baseTimestamp: timestamp,
    maxTimestamp: timestamp,
    producerId: -1n,
    producerEpoch: -1,
    baseSequence: -1,
    recordCount: 1,
    records: [{ offset, timestamp, key, value, headers: NO_HEADERS }],
    decompressedBytes: 0,
    controlRecord: undefined
  }
}

function readLegacyBytes (buffer: Buffer, pos: number, end: number, offset: bigint, context: DecodeContext, what: string): Buffer | null {
  if (end - pos < 4) throw legacyError(offset, context, `truncated ${what} length`)
  const length = buffer.readInt32BE(pos)
  if (length === -1) return null
  if (length < -1 || length > end - pos - 4) throw legacyError(offset, context, `${what} length ${length} with ${end - pos - 4} bytes left`)
  return buffer.subarray(pos + 4, pos + 4 + length)
}

/** Decompresses a wrapper's inner message set into `wrapper.records` (absolute offsets, timestamps per the wrapper). */
async function decodeLegacyWrapper (wrapper: RecordBatch, compressed: Buffer, context: DecodeContext, maxBytes: number): Promise<void> {
  let data: Buffer
  try {
    data = await decompress(wrapper.compression, compressed, { maxBytes })
  } catch (error) {
    if (error instanceof ProtocolError) throw legacyError(wrapper.baseOffset, context, error.message)
    throw error
  }
  wrapper.decompressedBytes = data.length
  const inner: RecordBatch[] = []
  for (let pos = 0; pos < data.length;) {
    if (data.length - pos < LOG_OVERHEAD + 1 + OFFSET_MAGIC - LOG_OVERHEAD) throw legacyError(wrapper.baseOffset, context, `truncated inner message at byte ${pos} of ${data.length}`)
    const size = data.readInt32BE(pos + OFFSET_LENGTH)
    const magic = data[pos + OFFSET_MAGIC]
    if (magic !== wrapper.magic) throw legacyError(wrapper.baseOffset, context, `inner message of magic ${magic} in a magic ${wrapper.magic} wrapper`)
    if (size < LEGACY_HEADER_SIZE[magic] || size > data.length - pos - LOG_OVERHEAD) throw legacyError(wrapper.baseOffset, context, `inner message size ${size} at byte ${pos}, ${data.length - pos - LOG_OVERHEAD} bytes left`)
    const end = pos + LOG_OVERHEAD + size
    inner.push(decodeLegacyEntry(data, pos, end, context, true))
    pos = end
  }
  if (inner.length === 0) throw legacyError(wrapper.baseOffset, context, 'a compressed message with no messages inside')
  // Magic 1: the wrapper holds the last inner offset, inner offsets are relative.
  const base = wrapper.magic === 1 ? wrapper.baseOffset - inner[inner.length - 1].baseOffset : 0n
  const logAppend = wrapper.timestampType === 'log-append'
  const records: KafkaRecord[] = new Array(inner.length)
  let maxTimestamp = NO_TIMESTAMP
  for (let i = 0; i < inner.length; i++) {
    const record = inner[i].records[0]
    record.offset += base
    if (logAppend) record.timestamp = wrapper.maxTimestamp
    if (i > 0 && record.offset <= records[i - 1].offset) throw legacyError(wrapper.baseOffset, context, `inner offsets out of order (${records[i - 1].offset}, then ${record.offset})`)
    if (record.timestamp > maxTimestamp) maxTimestamp = record.timestamp
    records[i] = record
  }
  const last = records[records.length - 1].offset
  if (last !== wrapper.baseOffset && wrapper.magic === 1) throw legacyError(wrapper.baseOffset, context, `last inner offset ${last} is not the wrapper's`)
  const first = records[0].offset
  wrapper.lastOffsetDelta = Number(last - first)
  wrapper.baseOffset = first
  wrapper.baseTimestamp = records[0].timestamp
  if (!logAppend) wrapper.maxTimestamp = maxTimestamp
  wrapper.recordCount = records.length
  wrapper.records = records
}

/**
 * Scanning fetched bytes for record batches: framing (where each complete batch ends, a
 * partial one at the end left alone), each header read and checked (magic, codec, the
 * CRC-32C), and the memory budget. The job of this file: batches found and checked,
 * their records not decoded yet (decode.ts does that).
 */
import { ProtocolError } from '../errors'
import { crc32c } from '../crc32c'
import { DEFAULT_MAX_DECOMPRESSED_BYTES, codecFromId, decompressedSizeHint, type CompressionCodec } from '../compression'
import {
  ATTRIBUTE_CODEC_MASK, ATTRIBUTE_CONTROL, ATTRIBUTE_LOG_APPEND_TIME, ATTRIBUTE_TRANSACTIONAL, LOG_OVERHEAD, MAGIC, OFFSET_ATTRIBUTES,
  OFFSET_BASE_SEQUENCE, OFFSET_BASE_TIMESTAMP, OFFSET_CRC, OFFSET_EPOCH, OFFSET_LAST_OFFSET_DELTA, OFFSET_LENGTH, OFFSET_MAGIC,
  OFFSET_MAX_TIMESTAMP, OFFSET_PRODUCER_EPOCH, OFFSET_PRODUCER_ID, OFFSET_RECORD_COUNT, RECORD_BATCH_OVERHEAD, RECORD_MEMORY_OVERHEAD,
  where, type DecodeContext, type RecordBatch
} from './types'
import { LEGACY_HEADER_SIZE, decodeLegacyEntry } from './legacy'
import { decodeRecordsInContext, inBatch } from './records'

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

export function decodeScanned (scanned: ScannedBatch, context: DecodeContext): void {
  decodeRecordsInContext(scanned.batch, scanned.data, 0, scanned.data.length, context, context.recordMaker)
  scanned.decoded = true
}

export function sizeHintInContext (batch: RecordBatch, data: Buffer, context: DecodeContext, maxBytes: number): number {
  try {
    return decompressedSizeHint(batch.compression, data, maxBytes)
  } catch (error) {
    if (error instanceof ProtocolError) throw inBatch(batch, context, error)
    throw error
  }
}

/**
 * The end of the complete batch that starts at `pos`, or -1 when none is left (no bytes,
 * or a partial batch cut off by the broker). Throws for what can't be a v2 batch.
 */
export function completeBatchEnd (buffer: Buffer, pos: number, context: DecodeContext): number {
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
export function decodeBatchHeader (buffer: Buffer, start: number, end: number, context: DecodeContext): RecordBatch {
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

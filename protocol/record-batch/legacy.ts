/**
 * Reading the legacy message sets of magic 0 and 1 that old segments may still hold, each
 * entry as a one-record RecordBatch. The job of this file: old bytes in, batches out;
 * kafkats never writes them.
 *
 *   LogEntry => offset int64, messageSize int32, Message
 *   Message =>                       offset in the entry
 *     crc        uint32              12   CRC-32 (IEEE, not C) of bytes [16, end)
 *     magic      int8                16   0 or 1
 *     attributes int8                17   bits 0-2 codec (gzip, snappy, lz4), bit 3 log-append time (v1)
 *     timestamp  int64               18   v1 only
 *     key        int32 length + bytes     -1 = null
 *     value      int32 length + bytes     -1 = null
 *
 * A compressed message is a wrapper: its value, decompressed, is a message set of inner
 * messages (never compressed themselves). Magic 1 wrappers carry the offset of the last
 * inner message, and the inner ones relative offsets 0..n-1; magic 0 inner messages carry
 * absolute offsets. With log-append time, the wrapper's timestamp is every inner record's.
 * Each entry becomes one RecordBatch (magic 0 or 1), so consumers treat it as a batch.
 * lz4 of magic 0 used a broken frame-header checksum (Kafka's KafkaLZ4BlockInputStream
 * skips it); such data is refused as malformed lz4.
 */
import { buf as crc32Signed } from 'crc-32'
import { ProtocolError } from '../errors'
import { decompress, type CompressionCodec } from '../compression'
import { ATTRIBUTE_CODEC_MASK, ATTRIBUTE_LOG_APPEND_TIME, LOG_OVERHEAD, NO_HEADERS, OFFSET_LENGTH, OFFSET_MAGIC, where, type DecodeContext, type KafkaRecord, type RecordBatch } from './types'

/** Bytes of the message header after the log overhead (crc, magic, attributes[, timestamp], key and value lengths). */
export const LEGACY_HEADER_SIZE = [14, 22]
const LEGACY_CODECS: ReadonlyArray<CompressionCodec | undefined> = ['none', 'gzip', 'snappy', 'lz4']
const NO_TIMESTAMP = -1n

function legacyError (offset: bigint, context: DecodeContext, what: string): ProtocolError {
  return new ProtocolError(`Legacy message at offset ${offset} of ${where(context)}: ${what}`)
}

/** One legacy message [start, end) as a one-record RecordBatch; a wrapper's record value is its compressed inner set. */
export function decodeLegacyEntry (buffer: Buffer, start: number, end: number, context: DecodeContext, inner = false): RecordBatch {
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
export async function decodeLegacyWrapper (wrapper: RecordBatch, compressed: Buffer, context: DecodeContext, maxBytes: number): Promise<void> {
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

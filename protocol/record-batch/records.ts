/**
 * Decoding the records section of one v2 batch (uncompressed, or once decompressed) into
 * KafkaRecords or what a RecordMaker makes, and the control record of a control batch.
 * The job of this file: the per-record hot loop.
 *
 * Keys, values and header values are views into the input buffer (no copies); every
 * length is checked against the bytes that exist, so bad bytes are a ProtocolError and
 * never a RangeError.
 */
import { ProtocolError } from '../errors'
import { LARGE_VARLONG, readEnd, readSmallVarlong, readVarint, readVarlong } from '../varint'
import { NO_HEADERS, where, type ControlRecord, type DecodeContext, type KafkaRecord, type RecordBatch, type RecordHeader, type RecordMaker } from './types'

/**
 * The fewest bytes a record can take: length, attributes, timestampDelta, offsetDelta,
 * keyLength, valueLength and headerCount, one byte each. Bounds a claimed record count.
 */
const MIN_RECORD_SIZE = 7

export function inBatch (batch: RecordBatch, context: DecodeContext, error: ProtocolError): ProtocolError {
  return new ProtocolError(`Record batch at base offset ${batch.baseOffset} of ${where(context)}: ${error.message}`, { cause: error })
}

export function decodeRecordsInContext (batch: RecordBatch, buf: Buffer, start: number, end: number, context: DecodeContext, maker?: RecordMaker): void {
  try {
    decodeRecords(batch, buf, start, end, batch.isControl ? undefined : maker)
    if (batch.isControl) batch.controlRecord = decodeControlRecord(batch)
  } catch (error) {
    if (error instanceof ProtocolError) throw inBatch(batch, context, error)
    throw error
  }
}

/*
 * The record decoder reads at a module-level `cursor` (each varint read is followed by
 * `cursor = readEnd()`), so the hot loop makes no Reader or closure per record.
 * decodeRecords is synchronous, so no other decode can run between its reads.
 */
let cursor = 0

function truncatedRecord (what: string): ProtocolError {
  return new ProtocolError(`Truncated record: ${what} at byte ${cursor} runs past the end of its record`)
}

/**
 * The class of Node's Buffers (`Buffer[Symbol.species]`, what `subarray` makes): a view
 * made with it directly skips subarray's species lookup and argument checks, about half
 * the cost of decoding and reading a 100 B record (bench/README.md, session 18). Checked
 * once at load; a Node without it gets `Buffer.from(arrayBuffer, offset, length)`.
 */
type ViewClass = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => Buffer
const BufferView: ViewClass = bufferViewClass()

function bufferViewClass (): ViewClass {
  const species = (Buffer as unknown as Record<symbol, unknown>)[Symbol.species] as ViewClass | undefined
  if (typeof species === 'function') {
    try {
      const probe = new species(new ArrayBuffer(4), 1, 2)
      if (Buffer.isBuffer(probe) && Object.getPrototypeOf(probe) === Buffer.prototype && probe.byteOffset === 1 && probe.length === 2) return species
    } catch {}
  }
  return function view (buffer: ArrayBufferLike, byteOffset: number, length: number): Buffer {
    return Buffer.from(buffer, byteOffset, length)
  } as unknown as ViewClass
}

/** Timestamp deltas below this share their timestamp bigint within a batch. */
const SHARED_TIMESTAMPS = 1024

/** Nullable bytes: a varint length (-1 = null), then that many bytes, as a view. */
function readNullableBytes (buf: Buffer, memory: ArrayBufferLike, memoryOffset: number, end: number, what: string): Buffer | null {
  const length = readVarint(buf, cursor, end, what)
  cursor = readEnd()
  if (length === -1) return null
  if (length < -1) throw new ProtocolError(`Negative length ${length} for ${what} at byte ${cursor}`)
  if (length > end - cursor) throw truncatedRecord(`${what} of ${length} bytes`)
  const view = new BufferView(memory, memoryOffset + cursor, length)
  cursor += length
  return view
}

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
  // The memory under `buf` and where it starts, read once (getters), for the views made per record.
  const memory = buf.buffer
  const memoryOffset = buf.byteOffset
  cursor = start
  for (let i = 0; i < count; i++) {
    const length = readVarint(buf, cursor, end, 'record length')
    cursor = readEnd()
    if (length < MIN_RECORD_SIZE - 1) throw new ProtocolError(`Bad record length ${length} at byte ${cursor}`)
    if (length > end - cursor) throw new ProtocolError(`Record ${i} of ${count} claims ${length} bytes at byte ${cursor}, but only ${end - cursor} remain`)
    const recordEnd = cursor + length
    cursor++ // record attributes: unused
    const smallDelta = readSmallVarlong(buf, cursor, recordEnd, 'timestamp delta')
    const timestampDelta = smallDelta === LARGE_VARLONG ? readVarlong(buf, cursor, recordEnd, 'timestamp delta') : smallDelta
    cursor = readEnd()
    const offsetDelta = readVarint(buf, cursor, recordEnd, 'offset delta')
    cursor = readEnd()
    const key = readNullableBytes(buf, memory, memoryOffset, recordEnd, 'key')
    const value = readNullableBytes(buf, memory, memoryOffset, recordEnd, 'value')
    const headerCount = readVarint(buf, cursor, recordEnd, 'header count')
    cursor = readEnd()
    let headers: RecordHeader[]
    if (headerCount === 0) {
      headers = NO_HEADERS
    } else {
      // A header takes at least 2 bytes (two length varints).
      if (headerCount < 0 || headerCount > (recordEnd - cursor) / 2) throw new ProtocolError(`Bad header count ${headerCount} at byte ${cursor}: ${recordEnd - cursor} bytes remain in the record`)
      headers = new Array(headerCount)
      for (let h = 0; h < headerCount; h++) {
        const keyLength = readVarint(buf, cursor, recordEnd, 'header key length')
        cursor = readEnd()
        if (keyLength < 0) throw new ProtocolError(`Bad header key length ${keyLength} at byte ${cursor}`)
        if (keyLength > recordEnd - cursor) throw truncatedRecord(`header key of ${keyLength} bytes`)
        const headerKey = buf.toString('utf8', cursor, cursor + keyLength)
        cursor += keyLength
        headers[h] = { key: headerKey, value: readNullableBytes(buf, memory, memoryOffset, recordEnd, 'header value') }
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

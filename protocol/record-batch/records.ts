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

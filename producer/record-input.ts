/**
 * Record input: the record shape users hand send()/produce(), and its conversion into the
 * RecordInput a batch encodes (bytes as Buffers, headers as an array, a timestamp as a
 * bigint). Runs once per record on the append path: no closures, no copies beyond the
 * one object toRecordInput makes (adoptAsRecordInput makes none).
 */
import type { RecordHeader, RecordInput } from '../protocol/record-batch'

/** Bytes of a key, value or header value: strings are written as UTF-8. */
export type ProducerBytes = Buffer | Uint8Array | string

/**
 * Record headers, in either shape: an array of `{ key, value }` (order and repeated keys
 * kept), or a kafkajs-style object `{ name: value }` where an array value repeats the header.
 */
export type ProducerHeaders =
  | Array<{
    /** The header's key. */
    key: string
    /** The header's value; null for none. */
    value: ProducerBytes | null
  }>
  | Record<string, ProducerBytes | null | ProducerBytes[]>

/** K and V are the types the `serializers` take (bytes without serializers). */
export interface ProducerRecord<K = ProducerBytes, V = ProducerBytes> {
  /** The topic to write to. */
  topic: string
  /** The record's key (it picks the partition with the default partitioner); none by default. */
  key?: K | null
  /** Required: null writes a tombstone. */
  value: V | null
  /** The record's headers; none by default. */
  headers?: ProducerHeaders
  /** Chosen by the partitioner when omitted. */
  partition?: number
  /** Milliseconds since the epoch; now when omitted. */
  timestamp?: bigint | number | Date
}

// A record without its own timestamp gets a coarse clock's: Date.now() (about 70 ns a call
// here, one per record was 4-7% of a produce profile) is read by the first record of a
// synchronous run of produce()/send() calls, then again after every CLOCK_READ_EVERY
// records of that run, and the run's end (a microtask) makes the next record read it again.
// Each read takes Date.now() as it is, also when it is behind the time read before: a wall
// clock stepped back gives the records the new time at once, as one Date.now() a record did
// (holding the old time would stamp records in the future until the clock caught up).
// This is the wall clock on purpose, not client.clock: it stamps records with the time they
// were produced, the log's CreateTime; no timing logic (linger, backoffs, timeouts) reads it.
const CLOCK_READ_EVERY = 64
let clockMs = 0
let clockBig = 0n
/** Records stamped since the clock was last read; 0: read it for the next record. */
let clockUses = 0
function expireClock (): void {
  clockUses = 0
}
function recordTimestamp (): bigint {
  if (clockUses === 0 || clockUses >= CLOCK_READ_EVERY) {
    if (clockUses === 0) queueMicrotask(expireClock)
    clockUses = 0
    const now = Date.now()
    if (now !== clockMs) {
      clockMs = now
      clockBig = BigInt(now)
    }
  }
  clockUses++
  return clockBig
}

function toBuffer (value: ProducerBytes | null | undefined): Buffer | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'string') return Buffer.from(value, 'utf8')
  // A view of the same memory, not a copy.
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)
}

export function toRecordInput (record: ProducerRecord): RecordInput {
  return { key: toBuffer(record.key), value: toBuffer(record.value), headers: headersOf(record.headers), timestamp: timestampOf(record.timestamp) }
}

/**
 * toRecordInput's conversions made on the record itself, which then is its RecordInput
 * (sendTo's records are the producer's to change): no second object per record. Converting
 * a record again changes nothing.
 */
export function adoptAsRecordInput (record: ProducerRecord): RecordInput {
  const input = record as unknown as { key: Buffer | null, value: Buffer | null, headers: RecordHeader[] | undefined, timestamp: bigint }
  input.key = toBuffer(record.key)
  input.value = toBuffer(record.value)
  if (record.headers !== undefined) input.headers = headersOf(record.headers)
  input.timestamp = timestampOf(record.timestamp)
  return input
}

function headersOf (headers: ProducerHeaders | null | undefined): RecordHeader[] | undefined {
  if (headers === undefined || headers === null) return undefined
  if (Array.isArray(headers)) return headers.map(h => ({ key: h.key, value: toBuffer(h.value) }))
  const out: RecordHeader[] = []
  for (const [key, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) out.push({ key, value: toBuffer(v) })
    else out.push({ key, value: toBuffer(value) })
  }
  return out
}

function timestampOf (ts: bigint | number | Date | undefined): bigint {
  return ts === undefined ? recordTimestamp() : typeof ts === 'bigint' ? ts : BigInt(ts instanceof Date ? ts.getTime() : Math.trunc(ts))
}

/** A rough size of a record that is not encoded yet. */
export function waitingSize (record: ProducerRecord): number {
  const size = (value: ProducerBytes | null | undefined): number => value === null || value === undefined ? 0 : value.length
  return 36 + size(record.key) + size(record.value)
}

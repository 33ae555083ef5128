/**
 * PartitionLog: the record batches of one partition, as a leader stores them.
 *
 * Batches are kept as the bytes the producer sent, with the broker-owned fields that
 * sit outside the CRC patched in: baseOffset (bytes 0–8) and partitionLeaderEpoch
 * (bytes 12–16). Fetch returns these bytes as they are, so a consumer reads exactly
 * what a real broker would serve. Each batch also keeps its decoded records, so tests
 * can assert on the log without decoding (and without awaiting a decompression).
 *
 * Every replica is always in sync, so the high watermark is the log end offset.
 */
import type { RecordBatch, RecordHeader } from '../protocol/record-batch'

/** A record in the log, with the producer identity of its batch (for idempotence assertions). */
export interface LogRecord {
  /** The record's offset. */
  offset: bigint
  /** Its key; null when it has none. */
  key: Buffer | null
  /** Its value; null for a tombstone. */
  value: Buffer | null
  /** Its headers, in order. */
  headers: RecordHeader[]
  /** Its timestamp in ms since the epoch, as its batch says. */
  timestamp: bigint
  /** Its batch's producer id (-1 for a non-idempotent batch). */
  producerId: bigint
  /** Its batch's producer epoch (-1 for a non-idempotent batch). */
  producerEpoch: number
  /** The batch's base sequence (-1 for a non-idempotent batch). */
  baseSequence: number
  /** This record's own sequence: baseSequence + its offset delta, wrapping at 2^31 (-1 if none). */
  sequence: number
  /** The base offset of the batch the record came in. */
  batchBaseOffset: bigint
}

export interface StoredBatch {
  baseOffset: bigint
  /** baseOffset + lastOffsetDelta. */
  lastOffset: bigint
  /** The batch as served to fetches (baseOffset and leader epoch patched). */
  bytes: Buffer
  records: LogRecord[]
  maxTimestamp: bigint
}

const OFFSET_PARTITION_LEADER_EPOCH = 12

export class PartitionLog {
  readonly #batches: StoredBatch[] = []
  #logStartOffset = 0n
  #logEndOffset = 0n
  // Fetches waiting for data (maxWaitMs); woken by every append.
  readonly #appendWaiters = new Set<() => void>()

  get logStartOffset (): bigint {
    return this.#logStartOffset
  }

  /** The next offset to be assigned. */
  get logEndOffset (): bigint {
    return this.#logEndOffset
  }

  /** All replicas are in sync: everything appended is committed. */
  get highWatermark (): bigint {
    return this.#logEndOffset
  }

  get batches (): readonly StoredBatch[] {
    return this.#batches
  }

  /**
   * Appends a batch that has been validated and decoded. `bytes` must be the caller's own
   * copy (it is patched in place and kept); `decoded` must have been decoded from it.
   * Returns the assigned base offset.
   */
  append (bytes: Buffer, decoded: RecordBatch, leaderEpoch: number): bigint {
    const baseOffset = this.#logEndOffset
    bytes.writeBigInt64BE(baseOffset, 0)
    bytes.writeInt32BE(leaderEpoch, OFFSET_PARTITION_LEADER_EPOCH)
    // The records were decoded relative to whatever baseOffset the producer wrote.
    const shift = baseOffset - decoded.baseOffset
    const records: LogRecord[] = new Array(decoded.records.length)
    for (let i = 0; i < decoded.records.length; i++) {
      const r = decoded.records[i]
      const delta = Number(r.offset - decoded.baseOffset)
      records[i] = {
        offset: r.offset + shift,
        key: r.key,
        value: r.value,
        headers: r.headers,
        timestamp: r.timestamp,
        producerId: decoded.producerId,
        producerEpoch: decoded.producerEpoch,
        baseSequence: decoded.baseSequence,
        sequence: decoded.baseSequence < 0 ? -1 : addSequence(decoded.baseSequence, delta),
        batchBaseOffset: baseOffset
      }
    }
    const lastOffset = baseOffset + BigInt(decoded.lastOffsetDelta)
    this.#batches.push({ baseOffset, lastOffset, bytes, records, maxTimestamp: decoded.maxTimestamp })
    this.#logEndOffset = lastOffset + 1n
    for (const wake of [...this.#appendWaiters]) wake()
    return baseOffset
  }

  /**
   * Whole batches from the one holding `fetchOffset`, up to `maxBytes` in total; the
   * first batch is returned even when larger if `atLeastOneBatch`. Empty when
   * `fetchOffset` is the log end. The caller checks the offset range first.
   */
  read (fetchOffset: bigint, maxBytes: number, atLeastOneBatch: boolean): Buffer {
    let i = this.#firstBatchEndingAtOrAfter(fetchOffset)
    const parts: Buffer[] = []
    let size = 0
    for (; i < this.#batches.length; i++) {
      const bytes = this.#batches[i].bytes
      if (size + bytes.length > maxBytes && !(atLeastOneBatch && parts.length === 0)) break
      parts.push(bytes)
      size += bytes.length
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, size)
  }

  /** The first record with a timestamp at or after `timestamp`, or undefined. */
  offsetForTimestamp (timestamp: bigint): { offset: bigint, timestamp: bigint } | undefined {
    for (const batch of this.#batches) {
      if (batch.maxTimestamp < timestamp) continue
      for (const r of batch.records) {
        if (r.offset >= this.#logStartOffset && r.timestamp >= timestamp) return { offset: r.offset, timestamp: r.timestamp }
      }
    }
    return undefined
  }

  /** The record with the largest timestamp (the first of equals), or undefined when empty. */
  maxTimestampRecord (): { offset: bigint, timestamp: bigint } | undefined {
    let best: { offset: bigint, timestamp: bigint } | undefined
    for (const batch of this.#batches) {
      for (const r of batch.records) {
        if (r.offset < this.#logStartOffset) continue
        if (best === undefined || r.timestamp > best.timestamp) best = { offset: r.offset, timestamp: r.timestamp }
      }
    }
    return best
  }

  /** Every record still in the log (at or after the log start offset), in offset order. */
  records (): LogRecord[] {
    const out: LogRecord[] = []
    for (const batch of this.#batches) {
      for (const r of batch.records) if (r.offset >= this.#logStartOffset) out.push(r)
    }
    return out
  }

  /** Moves the log start forward (like DeleteRecords); batches wholly below it are dropped. */
  setLogStartOffset (offset: bigint): void {
    if (offset < this.#logStartOffset || offset > this.#logEndOffset) {
      throw new RangeError(`log start offset ${offset} must be within [${this.#logStartOffset}, ${this.#logEndOffset}]`)
    }
    this.#logStartOffset = offset
    while (this.#batches.length > 0 && this.#batches[0].lastOffset < offset) this.#batches.shift()
  }

  /** Used by waitForAnyAppend. */
  addAppendWaiter (wake: () => void): void {
    this.#appendWaiters.add(wake)
  }

  /** Used by waitForAnyAppend. */
  removeAppendWaiter (wake: () => void): void {
    this.#appendWaiters.delete(wake)
  }

  #firstBatchEndingAtOrAfter (offset: bigint): number {
    let low = 0
    let high = this.#batches.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.#batches[mid].lastOffset < offset) low = mid + 1
      else high = mid
    }
    return low
  }
}

/** Resolves at the next append to any of `logs`, after `ms`, or when `until` settles. */
export async function waitForAnyAppend (logs: PartitionLog[], ms: number, until: Promise<unknown>): Promise<void> {
  let wake!: () => void
  const woken = new Promise<void>(resolve => { wake = resolve })
  const timer = setTimeout(wake, ms)
  for (const log of logs) log.addAppendWaiter(wake)
  try {
    await Promise.race([woken, until.then(() => {}, () => {})])
  } finally {
    clearTimeout(timer)
    for (const log of logs) log.removeAppendWaiter(wake)
  }
}

/** A producer sequence plus `delta`, wrapping from 2^31-1 to 0 as Kafka does. */
export function addSequence (sequence: number, delta: number): number {
  return (sequence + delta) % 0x80000000
}

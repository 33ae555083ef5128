/**
 * Idempotent-producer state of one partition: for each producer id, its epoch and the
 * last 5 batches it wrote (epoch, first and last sequence, base offset), as Kafka's
 * ProducerStateManager keeps them. This is what makes a retried batch come back with
 * its original offset instead of being written twice — and what makes a *different*
 * batch that reuses those sequence numbers come back with someone else's offset, the
 * hazard behind invariant 1: an acknowledged record is in the log, at the offset reported.
 *
 * The rules, checked in this order for a batch (producerId ≥ 0):
 * 1. same epoch and the same first/last sequence as one of the last 5 batches → duplicate:
 *    success with that batch's base offset, nothing appended;
 * 2. no state for the producer id: sequence 0 appends, anything else is
 *    OUT_OF_ORDER_SEQUENCE_NUMBER (stricter than Kafka 4, which accepts any sequence
 *    from an unknown producer since KIP-360 — tests want the gap to show);
 * 3. a lower epoch → INVALID_PRODUCER_EPOCH;
 * 4. a higher epoch must start at sequence 0 (else OUT_OF_ORDER_SEQUENCE_NUMBER), and
 *    replaces the producer's state;
 * 5. same epoch: firstSeq = lastSeq + 1 (wrapping 2^31-1 → 0) appends, anything else is
 *    OUT_OF_ORDER_SEQUENCE_NUMBER.
 */
import { ErrorCode } from './error-codes'

/** Kafka keeps this many batches per producer and partition (so at most 5 in flight). */
export const PRODUCER_BATCHES_KEPT = 5

const MAX_SEQUENCE = 0x7fffffff

export interface ProducerBatchMetadata {
  epoch: number
  firstSeq: number
  lastSeq: number
  baseOffset: bigint
}

export interface ProducerEntry {
  producerId: bigint
  epoch: number
  /** Oldest first, at most PRODUCER_BATCHES_KEPT. */
  batches: ProducerBatchMetadata[]
}

export type SequenceVerdict =
  | { kind: 'append' }
  | { kind: 'duplicate', baseOffset: bigint }
  | { kind: 'error', errorCode: number, message: string }

export class ProducerStateTable {
  readonly #entries = new Map<bigint, ProducerEntry>()

  entry (producerId: bigint): ProducerEntry | undefined {
    return this.#entries.get(producerId)
  }

  /** What to do with a batch of this producer; changes nothing (see `recordAppend`). */
  check (producerId: bigint, epoch: number, firstSeq: number, lastSeq: number): SequenceVerdict {
    const entry = this.#entries.get(producerId)
    if (entry === undefined) {
      if (firstSeq !== 0) return outOfOrder(`producer ${producerId} has no state on this partition and its first batch starts at sequence ${firstSeq}, not 0`)
      return { kind: 'append' }
    }
    const duplicate = entry.batches.find(b => b.epoch === epoch && b.firstSeq === firstSeq && b.lastSeq === lastSeq)
    if (duplicate !== undefined) return { kind: 'duplicate', baseOffset: duplicate.baseOffset }
    if (epoch < entry.epoch) {
      return { kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, message: `producer ${producerId} epoch ${epoch} is older than the current epoch ${entry.epoch}` }
    }
    if (epoch > entry.epoch) {
      if (firstSeq !== 0) return outOfOrder(`producer ${producerId} moved to epoch ${epoch} (from ${entry.epoch}) with sequence ${firstSeq}; a new epoch starts at 0`)
      return { kind: 'append' }
    }
    const last = entry.batches[entry.batches.length - 1]
    const expected = last === undefined ? 0 : last.lastSeq === MAX_SEQUENCE ? 0 : last.lastSeq + 1
    if (firstSeq !== expected) return outOfOrder(`producer ${producerId} epoch ${epoch} sent sequence ${firstSeq}, expected ${expected}`)
    return { kind: 'append' }
  }

  /** Records an appended batch; a new epoch replaces the producer's batches. */
  recordAppend (producerId: bigint, epoch: number, firstSeq: number, lastSeq: number, baseOffset: bigint): void {
    let entry = this.#entries.get(producerId)
    if (entry === undefined || epoch !== entry.epoch) {
      entry = { producerId, epoch, batches: [] }
      this.#entries.set(producerId, entry)
    }
    entry.batches.push({ epoch, firstSeq, lastSeq, baseOffset })
    if (entry.batches.length > PRODUCER_BATCHES_KEPT) entry.batches.shift()
  }
}

function outOfOrder (message: string): SequenceVerdict {
  return { kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, message }
}

/**
 * ProducerBatch: records bound for one partition, sent together in one record batch.
 *
 * Life of a batch (fields change only on the producer's event-loop turns noted here):
 *   open     — accepting records (the partition's last batch; `sealed` false)
 *   sealed   — full, lingered long enough or flushed; waiting to be sent
 *   sent     — `baseSequence` assigned at its first send and never changed after, so
 *              every retry carries the same producer id, epoch and sequence
 *   inFlight — a Produce request carrying it is on the wire
 *   ambiguous (poisoned) — an attempt was written and got no definite answer
 *              (REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS_AFTER_APPEND, a connection that
 *              died after the write): it is retried until its outcome is definite and
 *              no timeout, retry limit or abort may fail it (invariant 1)
 */
import type { RecordInput } from '../protocol/record-batch'
import { RECORD_BATCH_OVERHEAD, recordSizeUpperBound } from '../protocol/record-batch'

/** Where the broker wrote a record: what `send()` resolves with, per record, once the broker acknowledged it. */
export interface RecordMetadata {
  /** The record's topic. */
  topic: string
  /** The partition it was written to. */
  partition: number
  /** Its offset in the partition (-1 with acks=0, which gets no answer). */
  offset: bigint
  /** Its timestamp in ms since the epoch: the create time, or the broker's append time for a log-append-time topic. */
  timestamp: bigint
  /** The partition's log start offset when the broker appended the record (-1 if not known, e.g. acks=0). */
  logStartOffset: bigint
}

/** The callback of `producer.produce(record, callback)`: called once, with the error or with where the record was written. */
export type RecordCallback = (error: Error | null, result: RecordMetadata | null) => void

/** Receives the outcome of records of one `send` call, by their index in that call. */
export interface SendTracker {
  settle: (index: number, error: Error | null, result: RecordMetadata | null) => void
  /** The batches holding the call's records (what an abort of the call looks through). */
  batches?: Set<ProducerBatch>
}

/**
 * What the records of one send call are answered into (Producer#sendTo; send() keeps an
 * array of results): each record's outcome by its index in the call, then, once every
 * record was answered, the call's result (or its error, thrown).
 */
export interface SendAnswer<T> {
  settle: (index: number, error: Error | null, result: RecordMetadata | null) => void
  finish: () => T
}

export type Waiter = RecordCallback | SendTracker

/**
 * Answers one record. A callback that throws must not stop the callbacks of the records
 * after it (nor leave the batch half-settled): its error goes to `onThrow`.
 */
export function notifyWaiter (waiter: Waiter, index: number, error: Error | null, result: RecordMetadata | null, onThrow: (error: unknown) => void): void {
  if (typeof waiter !== 'function') {
    waiter.settle(index, error, result)
    return
  }
  try {
    waiter(error, result)
  } catch (thrown) {
    onThrow(thrown)
  }
}

export class ProducerBatch {
  readonly topic: string
  readonly partition: number
  readonly createdAt: number
  records: RecordInput[] = []
  /** Who waits for each record, and the record's index in its `send` call. */
  waiters: Waiter[] = []
  waiterIndexes: number[] = []
  /** Records already answered early (an abort settled them as outcome-unknown). */
  settledEarly: boolean[] | undefined
  bytes = RECORD_BATCH_OVERHEAD
  sealed = false

  // Idempotence: fixed at the first send, reused by every retry.
  baseSequence = -1
  producerId = -1n
  producerEpoch = -1
  /** The encoded batch of the last send; reused by retries under the same epoch. */
  encoded: Buffer | undefined

  inFlight = false
  /** Attempts that ended in a definite, retriable error. */
  attempts = 0
  ambiguous = false
  /** Every waiter was answered early: the batch is dropped once it is not in flight. */
  abandoned = false
  lastError: Error | undefined
  /**
   * Attempts in a row whose connection died after the request was written (no answer, no
   * timeout). From the first one the batch is sent alone, with nothing else in flight to
   * its broker (sink.ts), so each further death is this request's own; see
   * MAX_CONNECTION_DEATHS in producer.ts.
   */
  connectionDeaths = 0
  /**
   * The refusal (an answer that waiting does not change, outcomes.ts `isRefusal`) the broker
   * gave this batch's last attempts, and how many times in a row; any other outcome ends the
   * streak. See MAX_SAME_REFUSALS in producer.ts.
   */
  refusalCode: number | undefined
  sameRefusals = 0
  /** Every record was answered and the batch left its queue; a late outcome changes nothing. */
  finished = false
  /** The topic's id when the batch was first sent: a different id later means the topic was deleted. */
  topicId: string | undefined
  /** Sends aborted while the batch was in flight and not yet ambiguous ('settle' mode settles them once it is). */
  pendingAborts: SendTracker[] | undefined

  /** Where an error thrown by a record's callback goes (the producer's 'callbackError'). */
  readonly onCallbackThrow: (error: unknown) => void

  constructor (topic: string, partition: number, now: number, onCallbackThrow: (error: unknown) => void) {
    this.topic = topic
    this.partition = partition
    this.createdAt = now
    this.onCallbackThrow = onCallbackThrow
  }

  get sent (): boolean {
    return this.baseSequence >= 0 || this.encoded !== undefined
  }

  get recordCount (): number {
    return this.records.length
  }

  add (record: RecordInput, bytes: number, waiter: Waiter, index: number): void {
    this.records.push(record)
    this.waiters.push(waiter)
    this.waiterIndexes.push(index)
    this.bytes += bytes
  }

  /** Answers every record not answered yet. `offsetOf(i)` gives record i's result. */
  settleAll (error: Error | null, resultOf: ((i: number) => RecordMetadata) | null): void {
    const early = this.settledEarly
    for (let i = 0; i < this.records.length; i++) {
      if (early?.[i] === true) continue
      const waiter = this.waiters[i]
      notifyWaiter(waiter, this.waiterIndexes[i], error, resultOf === null ? null : resultOf(i), this.onCallbackThrow)
    }
  }

  /** Answers record i early; returns true when every record of the batch is now answered. */
  settleEarly (i: number, error: Error): boolean {
    this.settledEarly ??= new Array(this.records.length).fill(false)
    if (this.settledEarly[i]) return this.settledEarly.every(Boolean)
    this.settledEarly[i] = true
    notifyWaiter(this.waiters[i], this.waiterIndexes[i], error, null, this.onCallbackThrow)
    return this.settledEarly.every(Boolean)
  }

  /**
   * Moves the records from `at` on into a new batch that follows this one (MESSAGE_TOO_LARGE:
   * the batch was definitely not written). With a sequence, this batch keeps its base
   * sequence and the new one takes the sequences right after this one's records, so the
   * two cover exactly the range the broker never accepted, in the same order.
   */
  splitOff (at: number): ProducerBatch {
    const rest = new ProducerBatch(this.topic, this.partition, this.createdAt, this.onCallbackThrow)
    rest.records = this.records.splice(at)
    rest.waiters = this.waiters.splice(at)
    rest.waiterIndexes = this.waiterIndexes.splice(at)
    if (this.settledEarly !== undefined) rest.settledEarly = this.settledEarly.splice(at)
    let moved = 0
    for (const record of rest.records) moved += recordSizeUpperBound(record)
    // The buffer accounting releases batch.bytes: the two halves still add up to the original.
    moved = Math.min(moved, this.bytes - RECORD_BATCH_OVERHEAD)
    rest.bytes = RECORD_BATCH_OVERHEAD + moved
    this.bytes -= moved
    this.sealed = rest.sealed = true
    this.encoded = undefined
    if (this.baseSequence >= 0) {
      rest.baseSequence = (this.baseSequence + this.records.length) % 0x80000000
      rest.producerId = this.producerId
      rest.producerEpoch = this.producerEpoch
    }
    rest.attempts = this.attempts
    rest.lastError = this.lastError
    rest.topicId = this.topicId
    if (this.pendingAborts !== undefined) rest.pendingAborts = [...this.pendingAborts]
    for (const waiter of new Set(rest.waiters)) if (typeof waiter !== 'function') waiter.batches?.add(rest)
    return rest
  }

  /** Removes the records waited for by `waiter` (only before the first send); returns their indexes in the send call. */
  removeWaiter (waiter: Waiter): number[] {
    const removed: number[] = []
    let kept = 0
    for (let i = 0; i < this.records.length; i++) {
      if (this.waiters[i] === waiter) {
        removed.push(this.waiterIndexes[i])
        continue
      }
      this.records[kept] = this.records[i]
      this.waiters[kept] = this.waiters[i]
      this.waiterIndexes[kept] = this.waiterIndexes[i]
      kept++
    }
    this.records.length = kept
    this.waiters.length = kept
    this.waiterIndexes.length = kept
    return removed
  }
}

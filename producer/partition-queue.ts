/**
 * PartitionQueue: the batches waiting for one partition, in the order they must land,
 * and the partition's idempotence state.
 *
 * Its state changes only through the methods below (on the event loop, called from
 * producer.ts); everything else reads it. Ordering rules:
 * - `batches` is in append order; only the last one may be open.
 * - Sequences are handed out at a batch's first send, in queue order, so the broker
 *   sees sequences in the order records were appended.
 * - At most `maxInFlight` batches are in flight, all to one broker: when the leader
 *   moves, nothing goes to the new leader until the old one answered everything.
 * - After any failure the queue is `serial`: one batch at a time, from the head, until
 *   everything that failed has succeeded. This keeps order across retries, because the
 *   broker rejects a later sequence until the earlier one is in — once it knows this
 *   producer on the partition (`confirmed`); before that, one batch at a time as well.
 */
import type { ProducerBatch } from './batch'
import { NO_IDENTITY, type Identity } from './identity'

/** Batches of one partition in flight at once, at most (Kafka's limit for idempotence). */
const MAX_IN_FLIGHT = 5

export class PartitionQueue {
  readonly topic: string
  readonly partition: number
  readonly #batches: ProducerBatch[] = []
  /** The sequence the next never-sent batch gets (wraps at 2^31 like Kafka's). */
  #nextSequence = 0
  #inFlight = 0
  /** The broker the in-flight batches went to. */
  #inFlightNode = -1
  /** Do not send before this time (retry backoff). -Infinity, a double, when not backing off: a Smi 0 turned into a time would change the queue's hidden class and deoptimise the append path. */
  #retryAt = Number.NEGATIVE_INFINITY
  #serial = false
  /**
   * A batch of this partition succeeded under the current producer id and epoch. Until
   * then the broker has no state for us on the partition and accepts any first sequence
   * (KIP-360): a second batch in flight could be appended before a first one that failed
   * and is retried. So one batch at a time until the first success.
   */
  #confirmed = false
  /**
   * The producer identity this partition's sequences belong to (NO_IDENTITY before its
   * first batch). It moves to the producer's current identity only when nothing of the old
   * one is in flight or ambiguous, so ambiguous batches are retried under their own id.
   */
  #identity: Identity = NO_IDENTITY
  /**
   * The partition must leave `identity` before it issues another sequence: a sent batch
   * was dropped, so its sequences have a gap (or the broker lost them).
   */
  #leaving = false
  /** The broker answered UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID (that code): the next metadata refresh tells whether the topic is gone. */
  #topicMissingCode = 0

  constructor (topic: string, partition: number) {
    this.topic = topic
    this.partition = partition
  }

  get key (): string {
    return `${this.topic}-${this.partition}`
  }

  /** In append order; only the last one may be open. */
  get batches (): readonly ProducerBatch[] { return this.#batches }
  get nextSequence (): number { return this.#nextSequence }
  get inFlight (): number { return this.#inFlight }
  get inFlightNode (): number { return this.#inFlightNode }
  get retryAt (): number { return this.#retryAt }
  /** One batch at a time, from the head: set by any failure, cleared when nothing that failed is left. */
  get serial (): boolean { return this.#serial }
  get confirmed (): boolean { return this.#confirmed }
  get identity (): Identity { return this.#identity }
  get leaving (): boolean { return this.#leaving }

  /** The batch still accepting records, if any. */
  get openBatch (): ProducerBatch | undefined {
    const last = this.#batches[this.#batches.length - 1]
    return last !== undefined && !last.sealed ? last : undefined
  }

  /** Appends a new (open) batch. */
  push (batch: ProducerBatch): void {
    this.#batches.push(batch)
  }

  /** Puts `next` right after `batch` (the second half of a split batch). */
  insertAfter (batch: ProducerBatch, next: ProducerBatch): void {
    this.#batches.splice(this.#batches.indexOf(batch) + 1, 0, next)
  }

  remove (batch: ProducerBatch): void {
    const at = this.#batches.indexOf(batch)
    if (at !== -1) this.#batches.splice(at, 1)
  }

  /** Whether a batch before `batch` is still waiting for its outcome. */
  hasUnresolvedBefore (batch: ProducerBatch): boolean {
    for (const b of this.#batches) {
      if (b === batch) return false
      if (b.sent) return true
    }
    return false
  }

  /**
   * Whether another batch may go in flight to `nodeId` now: up to MAX_IN_FLIGHT, all to one
   * broker, and only one while the queue is serial or (idempotent) not confirmed.
   */
  mayAddInFlight (nodeId: number, idempotent: boolean): boolean {
    if (this.#inFlight === 0) return true
    if (this.#serial || (idempotent && !this.#confirmed) || this.#inFlightNode !== nodeId) return false
    return this.#inFlight < MAX_IN_FLIGHT
  }

  /** Seals `batch`, gives it its sequence at its first send (`withSequence`: idempotent), and counts it in flight to `nodeId`. */
  markSent (batch: ProducerBatch, nodeId: number, withSequence: boolean): void {
    batch.sealed = true
    if (batch.baseSequence < 0 && withSequence) {
      const sequence = this.#nextSequence
      this.#nextSequence = (sequence + batch.recordCount) % 0x80000000
      batch.baseSequence = sequence
      batch.producerId = this.#identity.producerId
      batch.producerEpoch = this.#identity.producerEpoch
    }
    this.hold(batch)
    this.#inFlightNode = nodeId
  }

  /** Counts `batch` as in flight without sending it, so nothing overtakes it (a single record too large, while its topic's limit is read). */
  hold (batch: ProducerBatch): void {
    batch.inFlight = true
    this.#inFlight++
  }

  /** The in-flight `batch` got its outcome (or its hold ended); false when it was not in flight. */
  markAnswered (batch: ProducerBatch): boolean {
    if (!batch.inFlight) return false
    batch.inFlight = false
    this.#inFlight--
    return true
  }

  /** `batch` was written: once nothing that failed is left the queue pipelines again, and a success under its own identity confirms it. */
  onWritten (batch: ProducerBatch): void {
    if (!this.#batches.some(b => b.sent && !b.inFlight)) this.#serial = false
    if (batch.producerEpoch === this.#identity.producerEpoch && batch.producerId === this.#identity.producerId) this.#confirmed = true
  }

  /** Something failed: one batch at a time from the head until it succeeded. */
  becomeSerial (): void {
    this.#serial = true
  }

  /** Serial, and nothing sent before `time`. */
  backOffUntil (time: number): void {
    this.#serial = true
    this.#retryAt = time
  }

  /** Issue no further sequence under the current identity: adopt a new one first. */
  leaveIdentity (): void {
    this.#leaving = true
  }

  /**
   * Moves the partition to `identity`: sequences restart at 0, and batches sent under the
   * old identity (all definitely not written: none is in flight or ambiguous) lose theirs.
   */
  adopt (identity: Identity): void {
    this.#identity = identity
    this.#leaving = false
    this.#nextSequence = 0
    this.#confirmed = false
    this.#serial = false
    this.#retryAt = Number.NEGATIVE_INFINITY
    for (const batch of this.#batches) {
      if (!batch.sent) continue
      batch.baseSequence = -1
      batch.producerId = -1n
      batch.producerEpoch = -1
      batch.encoded = undefined
    }
  }

  /** Whether a batch is in flight or its outcome is unknown: the identity cannot change yet. */
  get holdsIdentity (): boolean {
    return this.#inFlight > 0 || this.#batches.some(b => b.ambiguous)
  }

  /** The broker said the topic or partition is unknown (`code`): the next metadata refresh checks the topic. */
  noteTopicMissing (code: number): void {
    this.#topicMissingCode = code
  }

  /** The code noted by noteTopicMissing (0 if none), cleared. */
  takeTopicMissingCode (): number {
    const code = this.#topicMissingCode
    this.#topicMissingCode = 0
    return code
  }
}

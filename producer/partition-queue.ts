/**
 * PartitionQueue: the batches waiting for one partition, in the order they must land,
 * and the partition's idempotence state.
 *
 * Ordering rules (all changed on the event loop by producer.ts and sink.ts only):
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

export class PartitionQueue {
  readonly topic: string
  readonly partition: number
  readonly batches: ProducerBatch[] = []
  /** The sequence the next never-sent batch gets (wraps at 2^31 like Kafka's). */
  nextSequence = 0
  inFlight = 0
  /** The broker the in-flight batches went to. */
  inFlightNode = -1
  /** Do not send before this time (retry backoff). -Infinity, a double, when not backing off: a Smi 0 turned into a time would change the queue's hidden class and deoptimise the append path. */
  retryAt = Number.NEGATIVE_INFINITY
  serial = false
  /**
   * A batch of this partition succeeded under the current producer id and epoch. Until
   * then the broker has no state for us on the partition and accepts any first sequence
   * (KIP-360): a second batch in flight could be appended before a first one that failed
   * and is retried. So one batch at a time until the first success.
   */
  confirmed = false
  /**
   * The producer identity this partition's sequences belong to (NO_IDENTITY before its
   * first batch). It moves to the producer's current identity only when nothing of the old
   * one is in flight or ambiguous, so ambiguous batches are retried under their own id.
   */
  identity: Identity = NO_IDENTITY
  /**
   * The partition must leave `identity` before it issues another sequence: a sent batch
   * was dropped, so its sequences have a gap (or the broker lost them).
   */
  leaving = false
  /** The broker answered UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID (that code): the next metadata refresh tells whether the topic is gone. */
  topicMissingCode = 0
  lingerTimer: NodeJS.Timeout | undefined

  constructor (topic: string, partition: number) {
    this.topic = topic
    this.partition = partition
  }

  get key (): string {
    return `${this.topic}-${this.partition}`
  }

  /** The batch still accepting records, if any. */
  get openBatch (): ProducerBatch | undefined {
    const last = this.batches[this.batches.length - 1]
    return last !== undefined && !last.sealed ? last : undefined
  }

  /** Puts `next` right after `batch` (the second half of a split batch). */
  insertAfter (batch: ProducerBatch, next: ProducerBatch): void {
    this.batches.splice(this.batches.indexOf(batch) + 1, 0, next)
  }

  remove (batch: ProducerBatch): void {
    const at = this.batches.indexOf(batch)
    if (at !== -1) this.batches.splice(at, 1)
  }

  /** Whether a batch before `batch` is still waiting for its outcome. */
  hasUnresolvedBefore (batch: ProducerBatch): boolean {
    for (const b of this.batches) {
      if (b === batch) return false
      if (b.sent) return true
    }
    return false
  }

  /** Whether a batch is in flight or its outcome is unknown: the identity cannot change yet. */
  get holdsIdentity (): boolean {
    return this.inFlight > 0 || this.batches.some(b => b.ambiguous)
  }

  /**
   * Moves the partition to `identity`: sequences restart at 0, and batches sent under the
   * old identity (all definitely not written: none is in flight or ambiguous) lose theirs.
   */
  adopt (identity: Identity): void {
    this.identity = identity
    this.leaving = false
    this.nextSequence = 0
    this.confirmed = false
    this.serial = false
    this.retryAt = Number.NEGATIVE_INFINITY
    for (const batch of this.batches) {
      if (!batch.sent) continue
      batch.baseSequence = -1
      batch.producerId = -1n
      batch.producerEpoch = -1
      batch.encoded = undefined
    }
  }

  /** Assigns the sequence of a batch at its first send. */
  takeSequence (count: number): number {
    const sequence = this.nextSequence
    this.nextSequence = (sequence + count) % 0x80000000
    return sequence
  }
}

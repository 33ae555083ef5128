/**
 * Sequencing: the idempotence policy, beside identity.ts (which only gets ids and epochs).
 * Decides under which producer id and epoch each partition's next batch goes, and when a
 * partition needs a new epoch (KIP-360): a partition whose sent batch was dropped leaves
 * its identity and issues no further sequence under it; it adopts the producer's current
 * identity once none of its batches is in flight or ambiguous. Other partitions are not
 * affected. A transactional producer's new epochs come from its transaction instead.
 */
import type { ProducerBatch } from './batch'
import { sameIdentity, type ProducerIdentity } from './identity'
import type { PartitionQueue } from './partition-queue'
import type { TransactionManager } from './transaction'

/** What Sequencing needs of the producer. */
export interface SequencingHost {
  /** An identity arrived (or a partition must wait for one): look for sendable batches again. */
  wake: () => void
  /** The producer moved to a new epoch after a partition left its identity for `reason`. */
  epochBumped: (producerId: bigint, producerEpoch: number, reason: string) => void
  /** InitProducerId failed for good: what waits for an identity cannot be sent. */
  identityFailed: (error: Error) => void
}

export class Sequencing {
  readonly #identity: ProducerIdentity
  readonly #txn: TransactionManager | undefined
  readonly #host: SequencingHost
  /** Why the last partition left its identity: the reason an epoch bump reports. */
  #bumpReason = ''

  constructor (identity: ProducerIdentity, txn: TransactionManager | undefined, host: SequencingHost) {
    this.#identity = identity
    this.#txn = txn
    this.#host = host
  }

  /**
   * Whether `batch` may be sent now as far as the partition's identity goes:
   * - an ambiguous batch is always retried under the identity it was first sent with;
   * - a partition whose identity is not the current one (a bump happened, or it has none
   *   yet) adopts the current one once nothing of the old is in flight or ambiguous;
   * - until then it keeps sending under its old identity, unless it is `leaving` it.
   */
  allows (queue: PartitionQueue, batch: ProducerBatch): boolean {
    if (batch.ambiguous) return true
    if (!this.#identity.ready) {
      this.acquire()
      return false
    }
    const current = this.#identity.current
    if (sameIdentity(queue.identity, current)) {
      if (!queue.leaving) return true
      this.acquire(queue)
      return false
    }
    if (!queue.holdsIdentity) {
      queue.adopt(current)
      return true
    }
    return !queue.leaving
  }

  /** Gets the first identity, or (with `queue`) one to replace the queue's; wakes the producer once it is there. */
  acquire (queue?: PartitionQueue): void {
    // A transactional producer's identity comes from its transaction manager only (begin, EndTxn, abort).
    if (this.#identity.acquiring || this.#txn !== undefined) return
    const replacing = queue?.identity
    const bumping = replacing !== undefined
    this.#identity.acquire(replacing).then(identity => {
      if (bumping) this.#host.epochBumped(identity.producerId, identity.producerEpoch, this.#bumpReason)
      this.#host.wake()
    }, (error: Error) => {
      // Retriable failures were retried while records waited; what waits now cannot be sent.
      this.#host.identityFailed(error)
      this.#host.wake()
    })
  }

  /**
   * A sent batch of `queue` was dropped (or the broker lost its sequences): the partition
   * must not issue another sequence under its identity. It gets a new one (KIP-360) once
   * nothing of the old is in flight or ambiguous; other partitions are not affected.
   * The caller checks that the producer is idempotent.
   */
  leave (queue: PartitionQueue, reason: string): void {
    queue.leaveIdentity()
    if (this.#txn !== undefined) {
      // In a transaction the new epoch comes with the abort (EndTxn v5, or InitProducerId on version 1).
      this.#txn.onEpochBumpNeeded(reason)
      return
    }
    this.#bumpReason = reason
    if (sameIdentity(queue.identity, this.#identity.current)) this.acquire(queue)
    this.#host.wake()
  }

  /** Whether `queue` has batches that cannot be sent until the producer gets an identity. */
  waitsForIdentity (queue: PartitionQueue): boolean {
    if (!this.#identity.ready) return queue.batches.length > 0
    return queue.leaving && sameIdentity(queue.identity, this.#identity.current) && queue.batches.some(b => !b.ambiguous && !b.inFlight)
  }
}

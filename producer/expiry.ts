/**
 * Expiry: records that end without an answer from the broker, by time or by their caller.
 *
 * - The delivery timeout (Java's RecordAccumulator.expiredBatches): a batch that waited
 *   deliveryTimeoutMs since it was opened fails with DeliveryTimeoutError, unless it is in
 *   flight (it is checked again once answered) or its outcome is unknown under idempotence
 *   (poisoned, invariant 1: never failed by a timeout). An unknown one whose last attempt
 *   the broker refused (outcomes.ts `isRefusal`: an answer waiting does not change) ends
 *   as unknown, its partition moving to a new epoch (`failUnknown`). One timer on the
 *   client's clock, set for the next batch's deadline; none once nothing waits for one.
 * - Aborts (a send's AbortSignal): records not sent yet leave their batches, not written;
 *   records of a sent batch wait for its outcome, or, with abortUnknownOutcome 'settle',
 *   settle as unknown once it is unknown (the batch is then dropped by the producer).
 */
import type { Clock } from '../client/clock'
import { AbortedError } from '../client/errors'
import type { Accumulator } from './accumulator'
import type { ProducerBatch, SendTracker } from './batch'
import { DueTimer } from './due-timer'
import { DeliveryTimeoutError, OutcomeUnknownError } from './errors'
import type { PartitionQueue } from './partition-queue'
import type { TopicWaits } from './topic-wait'

/** What Expiry needs of the producer. */
export interface ExpiryHost {
  /** `batch` ends with `error` (it was never sent, or its outcome is unknown without idempotence). */
  fail: (queue: PartitionQueue, batch: ProducerBatch, error: Error) => void
  /** `batch`'s outcome is unknown and it is given up on: it ends with `error`, and its partition leaves its identity (invariant 1). */
  failUnknown: (queue: PartitionQueue, batch: ProducerBatch, error: OutcomeUnknownError) => void
  /** `batch` was sent and is definitely not written: it ends with `error`, and a sequence it had leaves a gap. */
  failSent: (queue: PartitionQueue, batch: ProducerBatch, error: Error) => void
  /** Every waiter of ambiguous `batch` was answered: the producer drops it (see retryAmbiguous). */
  dropAbandoned: (queue: PartitionQueue, batch: ProducerBatch, error: Error) => void
  /** An abort emptied `batch`: whoever waits for it (a flush) goes on. */
  emptied: (batch: ProducerBatch) => void
  /** The last error behind a batch of `queue` that never got an answer (an identity or metadata failure), for its timeout's message. */
  waitReason: (queue: PartitionQueue) => Error | undefined
  /** Something was removed: look for sendable batches again. */
  wake: () => void
}

export interface ExpiryOptions {
  deliveryTimeoutMs: number
  idempotent: boolean
  abortUnknownOutcome: 'wait' | 'settle'
}

/** A send call's records, and the batches they went into (for an abort). */
export type AbortableTracker = SendTracker & { batches: Set<ProducerBatch> }

export class Expiry {
  readonly #clock: Clock
  readonly #accumulator: Accumulator
  readonly #topicWaits: TopicWaits
  readonly #options: ExpiryOptions
  readonly #host: ExpiryHost
  readonly #timer: DueTimer

  constructor (clock: Clock, accumulator: Accumulator, topicWaits: TopicWaits, options: ExpiryOptions, host: ExpiryHost) {
    this.#clock = clock
    this.#accumulator = accumulator
    this.#topicWaits = topicWaits
    this.#options = options
    this.#host = host
    // Not kept alive: what waits for its deadline waits for something else that holds the process (a send, a retry).
    this.#timer = new DueTimer(clock, () => { this.#expire() }, false)
  }

  /** `batch` was opened: its deadline is `createdAt + deliveryTimeoutMs` (the timer is already set for an earlier batch's, unless none waits). */
  batchOpened (batch: ProducerBatch): void {
    this.#timer.at(batch.createdAt + this.#options.deliveryTimeoutMs)
  }

  /** An attempt of `batch` was answered and it stays (a retry): past its deadline, it is expired now, not at the next batch's. */
  answered (batch: ProducerBatch): void {
    const now = this.#clock.now()
    if (now - batch.createdAt >= this.#options.deliveryTimeoutMs) this.#timer.at(now)
  }

  /** The producer closed. */
  stop (): void {
    this.#timer.stop()
  }

  /** Fails every batch past its deadline that may fail, and sets the timer for the next deadline. */
  #expire (): void {
    const now = this.#clock.now()
    const timeoutMs = this.#options.deliveryTimeoutMs
    let next = Number.POSITIVE_INFINITY
    for (const queue of [...this.#accumulator.active]) {
      for (const batch of [...queue.batches]) {
        const deadline = batch.createdAt + timeoutMs
        if (now < deadline) {
          if (deadline < next) next = deadline
          continue
        }
        // In flight: checked again when answered (`answered`).
        if (batch.inFlight) continue
        if (batch.ambiguous) {
          // Poisoned only where sequences could deduplicate a later batch against it, and
          // while the answer may still change: a refusal from a live broker will not.
          const refused = batch.sameRefusals > 0
          if (this.#options.idempotent && !refused) continue
          const error = new OutcomeUnknownError(`Record for ${queue.key} was not acknowledged within deliveryTimeoutMs (${timeoutMs} ms); an attempt was written without a definite answer (${batch.lastError?.message ?? 'no answer'}), so it may or may not be in the log${refused && this.#options.idempotent ? '. The broker refused every attempt since the same way; the partition moves to a new producer epoch' : ''}.`, { cause: batch.lastError })
          if (this.#options.idempotent) this.#host.failUnknown(queue, batch, error)
          else this.#host.fail(queue, batch, error)
          continue
        }
        const lastError = batch.lastError ?? this.#host.waitReason(queue)
        const error = new DeliveryTimeoutError(`Record for ${queue.key} was not delivered within deliveryTimeoutMs (${timeoutMs} ms)${lastError !== undefined ? `; last error: ${lastError.message}` : ''}. It is not in the log.`, { cause: lastError })
        if (batch.sent) this.#host.failSent(queue, batch, error)
        else this.#host.fail(queue, batch, error)
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.#timer.at(next)
  }

  /** `signal` aborted the send of `tracker`: its records leave what they are in, as far as they still can. */
  abort (tracker: AbortableTracker, signal: AbortSignal): void {
    // Records still waiting for their topic's metadata were never in a batch.
    this.#topicWaits.release(tracker, index => tracker.settle(index, new AbortedError('Aborted while waiting for the topic\'s metadata: the record is not in the log', { written: false, cause: signal.reason }), null))
    for (const batch of tracker.batches) {
      const queue = this.#accumulator.queueOf(batch)
      if (!batch.sent && !batch.inFlight) {
        const removed = this.#accumulator.removeWaiter(queue, batch, tracker)
        if (batch.recordCount === 0) this.#host.emptied(batch)
        for (const index of removed) tracker.settle(index, new AbortedError('Aborted before the record was sent: it is not in the log', { written: false, cause: signal.reason }), null)
        continue
      }
      if (this.#options.abortUnknownOutcome === 'settle') {
        if (batch.ambiguous) this.settleAbortedUnknown(queue, batch, tracker)
        // Sent, outcome not unknown yet: honoured if it becomes unknown (the producer's retryAmbiguous).
        else (batch.pendingAborts ??= []).push(tracker)
      }
      // Otherwise the batch was (or is being) sent: the send settles with its outcome.
    }
    this.#host.wake()
  }

  /** 'settle' mode: the aborted send's records of an ambiguous batch settle as unknown; a batch nobody waits for is dropped. */
  settleAbortedUnknown (queue: PartitionQueue, batch: ProducerBatch, tracker: SendTracker): void {
    let allSettled = false
    for (let i = 0; i < batch.records.length; i++) {
      if (batch.waiters[i] !== tracker) continue
      allSettled = batch.settleEarly(i, new OutcomeUnknownError(`Aborted while the outcome of ${queue.key}'s batch (sequence ${batch.baseSequence}) was unknown: the record may or may not be in the log`, { cause: batch.lastError }))
    }
    if (allSettled) {
      batch.abandoned = true
      if (!batch.inFlight) this.#host.dropAbandoned(queue, batch, batch.lastError ?? new Error('abandoned'))
    }
  }
}

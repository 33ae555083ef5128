/**
 * The processing timeout (maxProcessingMs, the Java client's max.poll.interval.ms): while
 * any batch is out with the application, a timer checks how long each has been out and
 * reports each one past the limit once (Processing.overdue). Owns only its timer; which
 * batches are out, and what a timeout leads to (the 'processingTimeout' event, a group
 * member leaving), are the consumer's, through ProcessingTimeoutHost.
 */
import type { Clock, ClockTimer } from '../client/clock'
import type { Cursor, Processing } from './cursor'

/** A handler that took longer than `maxProcessingMs` ('processingTimeout' event). */
export interface ProcessingTimeoutEvent {
  /** The batch's topic. */
  topic: string
  /** The batch's partition. */
  partition: number
  /** The offset of the batch's first record; undefined for a batch without records. */
  firstOffset: bigint | undefined
  /** The offset after the batch. */
  nextOffset: bigint
  /** How long the batch has been out with the application, in ms. */
  elapsedMs: number
}

export interface ProcessingTimeoutHost {
  /** Every cursor that may have a batch out: those held and those removed while their batch was out. */
  processingCursors: () => Cursor[]
  /** `processing` passed the limit (called once per batch). */
  overdue: (cursor: Cursor, processing: Processing, event: ProcessingTimeoutEvent) => void
}

export class ProcessingTimeout {
  readonly #maxProcessingMs: number
  readonly #host: ProcessingTimeoutHost
  /** Set while some batch is out (the check re-arms itself until none is). */
  #timer: ClockTimer | undefined
  /** The consumer closed: no check is armed again. */
  #stopped = false
  /** The client's clock: what `Processing.startedAt` was read from. */
  readonly #clock: Clock

  constructor (maxProcessingMs: number, host: ProcessingTimeoutHost, clock: Clock) {
    this.#maxProcessingMs = maxProcessingMs
    this.#host = host
    this.#clock = clock
  }

  /** A batch went out: checks batches against the limit while any is out. */
  watch (): void {
    if (this.#timer !== undefined || this.#stopped) return
    const every = Math.max(10, Math.min(1000, Math.floor(this.#maxProcessingMs / 4)))
    this.#timer = this.#clock.setTimer(() => {
      this.#timer = undefined
      const now = this.#clock.now()
      let out = false
      for (const cursor of this.#host.processingCursors()) {
        const processing = cursor.processing
        if (processing === undefined) continue
        out = true
        if (processing.overdue || now - processing.startedAt < this.#maxProcessingMs) continue
        processing.overdue = true
        const batch = processing.batch
        this.#host.overdue(cursor, processing, { topic: batch.topic, partition: batch.partition, firstOffset: processing.firstOffset, nextOffset: batch.nextOffset, elapsedMs: now - processing.startedAt })
      }
      if (out) this.watch()
    }, every)
  }

  stop (): void {
    this.#stopped = true
    this.#timer?.cancel()
  }

  /** Resolves once no batch that passed the limit is out with the application any more. */
  async returned (): Promise<void> {
    for (;;) {
      const overdue: Array<Promise<void>> = []
      for (const cursor of this.#host.processingCursors()) {
        if (cursor.processing?.overdue === true) overdue.push(cursor.processing.finished)
      }
      if (overdue.length === 0) return
      await Promise.all(overdue)
    }
  }
}

/**
 * DrainSchedule: when the producer looks for sendable batches again. `soon()` runs the
 * drain once on the next turn of the event loop however many callers ask in this one
 * (appends, answers, identities, metadata); `at(time)` runs it at the earliest time any
 * caller asked for (a retry backoff or a linger ending), with one timer on the client's
 * clock (DueTimer). What a drain does is drain.ts's.
 */
import type { Clock } from '../client/clock'
import { DueTimer } from './due-timer'

export class DrainSchedule {
  readonly #drain: () => void
  readonly #timer: DueTimer
  #scheduled = false
  /** `soon` as a value, made once: the accumulator, Sequencing and the producer's helpers call it. */
  readonly soon = (): void => {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(this.#run)
  }

  readonly #run = (): void => {
    this.#scheduled = false
    this.#drain()
  }

  constructor (clock: Clock, drain: () => void) {
    this.#drain = drain
    // Kept alive: a script awaiting a send whose batch lingers or backs off must not exit before it goes.
    this.#timer = new DueTimer(clock, this.soon, true)
  }

  /** Drains at `time` (ms since the epoch, on the clock), unless a drain is already due by then. */
  at (time: number): void {
    this.#timer.at(time)
  }

  /** Clears the timer (the producer closed). */
  stop (): void {
    this.#timer.stop()
  }
}

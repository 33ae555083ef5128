/**
 * DueTimer: one timer on a clock for the earliest time any caller asked for. Asking for a
 * later time than the one set costs one comparison, so it may be asked per batch; the
 * callback is made once by the owner (no closure per request).
 */
import type { Clock, ClockTimer } from '../client/clock'

export class DueTimer {
  readonly #clock: Clock
  readonly #run: () => void
  readonly #options: { keepAlive: boolean }
  #timer: ClockTimer | undefined
  /** A double from the start (a time since the epoch is no Smi): a field that turns from Smi to double changes the object's hidden class, and every optimised function that reads it deoptimised ("wrong map") once a retry or linger set it. */
  #time = Number.POSITIVE_INFINITY
  readonly #fire = (): void => {
    this.#timer = undefined
    this.#time = Number.POSITIVE_INFINITY
    this.#run()
  }

  /** `keepAlive`: the timer keeps the process alive on the system clock (see Clock.setTimer). */
  constructor (clock: Clock, run: () => void, keepAlive: boolean) {
    this.#clock = clock
    this.#run = run
    this.#options = { keepAlive }
  }

  /** Runs the callback at `time` (ms since the epoch, on the clock), unless it is due by then already. */
  at (time: number): void {
    if (time >= this.#time) return
    this.#timer?.cancel()
    this.#time = time
    this.#timer = this.#clock.setTimer(this.#fire, time - this.#clock.now(), this.#options)
  }

  /** Clears the timer. */
  stop (): void {
    this.#timer?.cancel()
    this.#timer = undefined
    this.#time = Number.POSITIVE_INFINITY
  }
}

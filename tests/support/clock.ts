// A FakeClock that also lists the timers started on it, so a test can wait for the one that
// matters (a retry's backoff) instead of sleeping until it has probably started.
import { FakeClock, type ClockTimer } from '../../testing/index'

export interface StartedTimer {
  delayMs: number
  /** Started with `keepAlive`: client/backoff.ts's sleep (a request's retry backoff) is. */
  keepAlive: boolean
}

export class WatchedClock extends FakeClock {
  /** Every timer started, oldest first. */
  readonly started: StartedTimer[] = []

  override setTimer (run: () => void, delayMs: number, options?: { keepAlive?: boolean }): ClockTimer {
    this.started.push({ delayMs, keepAlive: options?.keepAlive === true })
    return super.setTimer(run, delayMs)
  }

  /**
   * Whether a timer of `minMs` to `maxMs` (with `keepAlive` only, if asked) started after the
   * first `since` ones: with a backoff range no other timer of the call falls in, its retry
   * is waiting then.
   */
  timerStarted (minMs: number, since = 0, { keepAlive = false, maxMs = Infinity } = {}): boolean {
    return this.started.slice(since).some(timer => timer.delayMs >= minMs && timer.delayMs <= maxMs && (!keepAlive || timer.keepAlive))
  }
}

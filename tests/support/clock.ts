// A FakeClock that also lists the timers started on it, so a test can wait for the one that
// matters (a retry's backoff) instead of sleeping until it has probably started.
import { FakeClock, type ClockTimer } from '../../testing/index'
import { waitFor } from './wait'

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

/**
 * Moves `clock` through the waits of `call` (a call whose I/O is real but whose backoffs wait
 * on the clock) until it settles or `enough()` holds: each step waits, on real time with a
 * generous bound, until a timer is due within `stepMs` (a backoff: the client's other timers,
 * such as the metadata refresh, are further off), then runs it. Time moves only while the
 * call waits on the clock, so nothing depends on the machine's speed.
 */
export async function moveThroughBackoffs (clock: FakeClock, call: Promise<unknown>, enough: () => boolean, { stepMs = 50, maxSteps = 1000 } = {}): Promise<void> {
  let settled = false
  void call.then(() => { settled = true }, () => { settled = true })
  const backoffDue = (): boolean => (clock.nextDueAt ?? Infinity) - clock.now() <= stepMs
  for (let step = 0; step < maxSteps; step++) {
    await waitFor('the call to settle or to back off', () => settled || enough() || backoffDue())
    if (settled || enough()) return
    await clock.advance(clock.nextDueAt! - clock.now())
  }
  throw new Error(`moved the clock through ${maxSteps} backoffs and the call still waits`)
}

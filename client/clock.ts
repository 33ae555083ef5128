/**
 * The time the library's timing logic reads: the current time and timers. Code that decides
 * when something is due (heartbeats, linger, backoffs, delivery and transaction timeouts)
 * takes a Clock rather than calling Date.now()/setTimeout itself, so a test can move time
 * with a fake clock (kafkats/testing's FakeClock) instead of sleeping (Java's Time/MockTime).
 * A client's clock is `client.clock`; everything made from the client uses it.
 */
import { onAbort } from './abort-signal'

/** A timer the clock started; `cancel()` stops it (no-op once it ran). */
export interface ClockTimer {
  /** Stops the timer; does nothing once it ran. */
  cancel: () => void
}

/** What the client times retries, timeouts and linger on: the wall clock by default, or a fake clock in tests. */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now: () => number
  /**
   * Runs `run` once after `delayMs`. The timer does not keep the process alive (unref)
   * unless `keepAlive` is set: a retry's backoff does, so a script awaiting a call that is
   * backing off does not exit half-way (nothing else may hold the event loop then).
   */
  setTimer: (run: () => void, delayMs: number, options?: { keepAlive?: boolean }) => ClockTimer
}

/** The wall clock and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer (run, delayMs, options) {
    const timer = setTimeout(run, Math.max(0, delayMs))
    if (options?.keepAlive !== true) timer.unref()
    return { cancel: () => clearTimeout(timer) }
  }
}

/**
 * Resolves after `delayMs` on `clock`, or as soon as `signal` aborts (resolving, not
 * rejecting: loops that wait check their own signal afterwards). `wake`, when given, is a
 * promise that ends the wait early too (e.g. a Signal's `wait()`).
 */
export async function waitOn (clock: Clock, delayMs: number, signal?: AbortSignal, wake?: Promise<unknown>): Promise<void> {
  if (signal?.aborted === true) return
  await new Promise<void>(resolve => {
    let stopWaiting: (() => void) | undefined
    const timer = clock.setTimer(done, delayMs)
    function done (): void {
      timer.cancel()
      stopWaiting?.()
      resolve()
    }
    if (signal !== undefined) stopWaiting = onAbort(signal, done)
    wake?.then(done, done)
  })
}

/** The symbol under which a ClientOptions object may carry a Clock (kafkats/testing's `withClock`). */
export const clockOption: unique symbol = Symbol.for('kafkats.clock')

/**
 * An AbortSignal that aborts after `delayMs` on `clock`, with a TimeoutError DOMException as
 * its reason: AbortSignal.timeout's shape, on the client's time. Like AbortSignal.timeout
 * it does not keep the process alive.
 */
export function clockTimeout (clock: Clock, delayMs: number): AbortSignal {
  const controller = new AbortController()
  clock.setTimer(() => { controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')) }, delayMs)
  return controller.signal
}

/**
 * A clock that moves only when a test moves it. Give it to a client with
 * `withClock(options, clock)`; then `await clock.advance(ms)` runs every timer due on the
 * way, in due order, letting promise chains and loopback I/O settle after each, so a test
 * proves "nothing happens before the heartbeat interval" by moving time, not by sleeping.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { clockOption, type Clock, type ClockTimer } from '../client/clock'

interface PendingTimer {
  readonly dueAt: number
  readonly order: number
  readonly run: () => void
}

/** A clock that moves only when the test moves it (`await clock.advance(ms)`); give it to a client with `withClock(options, clock)`. */
export class FakeClock implements Clock {
  #now: number
  #order = 0
  readonly #timers = new Set<PendingTimer>()

  /** `startAt`: the time it reads at first (default: the wall clock's now). */
  constructor (startAt: number = Date.now()) {
    this.#now = startAt
  }

  now (): number {
    return this.#now
  }

  setTimer (run: () => void, delayMs: number): ClockTimer {
    const timer: PendingTimer = { dueAt: this.#now + Math.max(0, delayMs), order: this.#order++, run }
    this.#timers.add(timer)
    return { cancel: () => { this.#timers.delete(timer) } }
  }

  /** How many timers wait to run. */
  get pendingTimers (): number {
    return this.#timers.size
  }

  /** When the next timer is due, or undefined if none waits. */
  get nextDueAt (): number | undefined {
    return this.#next()?.dueAt
  }

  /**
   * Moves time forward by `ms`, running each timer due meanwhile at its due time (timers
   * that those start run too if due within the step), settling after each.
   */
  async advance (ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be a number >= 0, got ${String(ms)}`)
    const until = this.#now + ms
    await this.settle()
    for (let next = this.#next(); next !== undefined && next.dueAt <= until; next = this.#next()) {
      this.#timers.delete(next)
      this.#now = Math.max(this.#now, next.dueAt)
      next.run()
      await this.settle()
    }
    this.#now = until
    await this.settle()
  }

  /** Lets pending promise chains and loopback I/O run: a few turns of the event loop. */
  async settle (turns = 5): Promise<void> {
    for (let i = 0; i < turns; i++) await nextTurn()
  }

  #next (): PendingTimer | undefined {
    let first: PendingTimer | undefined
    for (const timer of this.#timers) {
      if (first === undefined || timer.dueAt < first.dueAt || (timer.dueAt === first.dueAt && timer.order < first.order)) first = timer
    }
    return first
  }
}

/** `options` with `clock` as the client's clock (the options object itself is not changed). */
export function withClock<T extends object> (options: T, clock: Clock): T {
  return { ...options, [clockOption]: clock }
}

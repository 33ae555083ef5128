/**
 * The timing every group heartbeat runs on (classic, KIP-848 and KIP-932): a heartbeat, then
 * one timer on the client's clock for the next one, due an interval after the answer, or a
 * backoff after a failure; `wake()` makes it due at once; `stop()` ends it and awaits the
 * heartbeat in flight. What a heartbeat sends and what its answer means stay with each
 * membership (`beat`); the loop only hears what to do next (`BeatOutcome`). As Java's
 * Heartbeat class: timing as plain state over an injected clock, so tests move the clock.
 */
import { waitOn, type Clock } from '../client/clock'
import { Signal } from '../client/signal'

/**
 * What the loop does after a beat: 'sent' (answered: the next one an interval later),
 * 'failed' (backoff, doubling with each failure in a row), 'again' (at once: the member
 * was fenced and rejoins), 'done' (the loop ends).
 */
export type BeatOutcome = 'sent' | 'failed' | 'again' | 'done'

export interface HeartbeatLoopOptions {
  readonly clock: Clock
  /** Until the membership learns the coordinator's (`intervalMs` is writable). */
  readonly intervalMs: number
  /** How long before the first beat: 0 to join at once (KIP-848, KIP-932), the interval after a SyncGroup (classic). */
  readonly firstAfterMs: number
  /** One heartbeat and what its answer means. A throw counts as 'failed' (the loop never dies of one). */
  readonly beat: (signal: AbortSignal) => Promise<BeatOutcome>
}

/** How long to wait after `failures` failures in a row: 200 ms doubling, at most an interval (Java's retry.backoff.ms with its exponential growth). */
export function heartbeatBackoffMs (intervalMs: number, failures: number): number {
  return Math.min(intervalMs, 100 * 2 ** failures)
}

export class HeartbeatLoop {
  /** The coordinator's heartbeat interval, from its last answer. */
  intervalMs: number
  readonly #clock: Clock
  readonly #firstAfterMs: number
  readonly #beat: (signal: AbortSignal) => Promise<BeatOutcome>
  readonly #stop = new AbortController()
  /** Notified by `wake()`: ends the wait for the next due time. */
  readonly #woken = new Signal()
  /** A wake that came while a heartbeat was in flight: the next one goes at once. */
  #wakeRequested = false
  #running: Promise<void> | undefined

  constructor (options: HeartbeatLoopOptions) {
    this.#clock = options.clock
    this.intervalMs = options.intervalMs
    this.#firstAfterMs = options.firstAfterMs
    this.#beat = options.beat
  }

  start (): void {
    if (this.#stop.signal.aborted) return
    this.#running ??= this.#run(this.#stop.signal)
  }

  /** Heartbeat now rather than at the due time. */
  wake (): void {
    this.#wakeRequested = true
    this.#woken.notify()
  }

  /** How long to wait after `failures` failures in a row (of a heartbeat, or of work it started). */
  backoffMs (failures: number): number {
    return heartbeatBackoffMs(this.intervalMs, failures)
  }

  /** Ends the loop: the heartbeat in flight is aborted and awaited; none is sent after. */
  async stop (): Promise<void> {
    this.#stop.abort()
    this.#woken.notify()
    await this.#running
  }

  async #run (signal: AbortSignal): Promise<void> {
    let delayMs = this.#firstAfterMs
    let failures = 0
    while (!signal.aborted) {
      await this.#waitDue(delayMs, signal)
      if (signal.aborted) return
      let outcome: BeatOutcome
      try {
        outcome = await this.#beat(signal)
      } catch {
        outcome = 'failed'
      }
      if (signal.aborted || outcome === 'done') return
      if (outcome === 'again') {
        delayMs = 0
        continue
      }
      failures = outcome === 'failed' ? failures + 1 : 0
      delayMs = failures > 0 ? this.backoffMs(failures) : this.intervalMs
    }
  }

  /** One timer for the due time, ended early by `wake()` or `stop()`. */
  async #waitDue (delayMs: number, signal: AbortSignal): Promise<void> {
    if (delayMs > 0 && !this.#wakeRequested) {
      const waited = new AbortController()
      await waitOn(this.#clock, delayMs, signal, this.#woken.wait(waited.signal).catch(() => {}))
      waited.abort()
    }
    this.#wakeRequested = false
  }
}

/**
 * Named timers for the group coordinator (session timeouts, join/sync deadlines,
 * rebalance timeouts), after Kafka's coordinator timer: scheduling a key replaces the
 * timer already under it, so "reschedule the member's heartbeat" is one call. Timers are
 * unref'd (they never keep a test process alive) and all cleared when the cluster closes.
 */
export class GroupTimers {
  readonly #timers = new Map<string, NodeJS.Timeout>()
  readonly #onError: (key: string, error: unknown) => void
  #closed = false

  constructor (onError: (key: string, error: unknown) => void) {
    this.#onError = onError
  }

  schedule (key: string, delayMs: number, run: () => void): void {
    this.cancel(key)
    if (this.#closed) return
    const timer = setTimeout(() => {
      if (this.#timers.get(key) !== timer) return
      this.#timers.delete(key)
      try {
        run()
      } catch (error) {
        this.#onError(key, error)
      }
    }, Math.max(0, delayMs))
    timer.unref()
    this.#timers.set(key, timer)
  }

  cancel (key: string): void {
    const timer = this.#timers.get(key)
    if (timer === undefined) return
    clearTimeout(timer)
    this.#timers.delete(key)
  }

  /** Cancels every timer whose key starts with `prefix`. */
  cancelPrefix (prefix: string): void {
    for (const key of [...this.#timers.keys()]) {
      if (key.startsWith(prefix)) this.cancel(key)
    }
  }

  has (key: string): boolean {
    return this.#timers.has(key)
  }

  close (): void {
    this.#closed = true
    for (const timer of this.#timers.values()) clearTimeout(timer)
    this.#timers.clear()
  }
}

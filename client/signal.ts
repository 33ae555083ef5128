/**
 * "Wake whoever waits": a condition changed, and every waiter rechecks it. Waiters loop on
 * their own condition (`while (!ready()) await changed.wait(signal)`) and whoever changes
 * the state calls `notify()`; a notify with nobody waiting is a no-op, so the condition,
 * not the notification, is what a waiter trusts (Go's sync.Cond.Broadcast, Java's
 * Condition.signalAll). See INTERNALS.md, "Async patterns".
 */
import { onAbort } from './abort-signal'

export class Signal {
  readonly #waiters = new Set<() => void>()

  /** Wakes every current waiter. */
  notify (): void {
    if (this.#waiters.size === 0) return
    const waking = [...this.#waiters]
    this.#waiters.clear()
    for (const wake of waking) wake()
  }

  /**
   * Resolves at the next `notify()`; rejects with `signal.reason` when `signal` aborts
   * first (and then leaves nothing behind, so a waiter per turn of a loop does not pile up).
   */
  wait (signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason)
        return
      }
      const stopWaiting = signal === undefined
        ? undefined
        : onAbort(signal, () => {
          this.#waiters.delete(wake)
          reject(signal.reason)
        })
      const wake = (): void => {
        stopWaiting?.()
        resolve()
      }
      this.#waiters.add(wake)
    })
  }
}

/**
 * Waiting on an AbortSignal with one 'abort' listener per signal, whatever the number of
 * waiters. An application passes its one shutdown signal to every call; a listener per
 * call passed Node's limit of 10 on an EventTarget with 11 concurrent sends
 * (MaxListenersExceededWarning). Every wait in the library on a signal that may be shared
 * goes through `onAbort`.
 */

interface SignalWaiters {
  readonly waiters: Set<{ run: () => void }>
  readonly listener: () => void
}

const waitersOf = new WeakMap<AbortSignal, SignalWaiters>()

/**
 * Runs `run` once when `signal` aborts (not if it aborted already: check `signal.aborted`
 * first). Returns the function that stops waiting; the signal's one listener goes when its
 * last waiter does.
 */
export function onAbort (signal: AbortSignal, run: () => void): () => void {
  let entry = waitersOf.get(signal)
  if (entry === undefined) {
    const waiters = new Set<{ run: () => void }>()
    const listener = (): void => {
      waitersOf.delete(signal)
      // A copy: a waiter may stop another one while they run.
      for (const waiter of [...waiters]) if (waiters.delete(waiter)) waiter.run()
    }
    entry = { waiters, listener }
    waitersOf.set(signal, entry)
    signal.addEventListener('abort', listener, { once: true })
  }
  const registered = entry
  const waiter = { run }
  registered.waiters.add(waiter)
  return () => {
    if (!registered.waiters.delete(waiter) || registered.waiters.size > 0) return
    if (waitersOf.get(signal) === registered) waitersOf.delete(signal)
    signal.removeEventListener('abort', registered.listener)
  }
}

/**
 * Waiting between attempts: capped exponential backoff with full jitter, and a
 * sleep that an AbortSignal ends early.
 */
import { AbortedError } from './errors'

export interface BackoffOptions {
  /** First delay, before jitter. */
  initialMs: number
  /** Upper bound of any delay. */
  maxMs: number
}

export const defaultBackoff: BackoffOptions = { initialMs: 100, maxMs: 10_000 }

/** Delay before attempt `attempt` (0-based): random in [base/2, base], base = min(max, initial·2^attempt). */
export function backoffDelay (attempt: number, options: BackoffOptions = defaultBackoff): number {
  const base = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 30))
  return base / 2 + Math.random() * base / 2
}

/** Resolves after `ms`, or rejects with AbortedError when `signal` aborts first. */
export function sleep (ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortError(signal, 'while waiting to retry'))
      return
    }
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(abortError(signal!, 'while waiting to retry'))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export function abortError (signal: AbortSignal, doing: string, written = false): AbortedError {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted')
  return new AbortedError(`Aborted ${doing}: ${reason}`, { written, cause: signal.reason })
}

/**
 * Waiting between attempts: capped exponential backoff with full jitter, and a
 * sleep that an AbortSignal ends early.
 */
import { onAbort } from './abort-signal'
import { systemClock, type Clock } from './clock'
import { AbortedError } from './errors'

/** How retries are spaced: exponential from `initialMs` up to `maxMs`, with jitter. */
export interface BackoffOptions {
  /** First delay, before jitter. */
  initialMs: number
  /** Upper bound of any delay. */
  maxMs: number
}

export const defaultBackoff: BackoffOptions = { initialMs: 100, maxMs: 10_000 }

/**
 * The least time left before a deadline for which a retry is started. An attempt with less
 * could only time out on a busy machine (a backoff timer that fired late left a
 * FindCoordinator 1 ms), closing its connection and reporting that timeout instead of the
 * refusal that kept the call from succeeding.
 */
export const MIN_ATTEMPT_MS = 100

/** Delay before attempt `attempt` (0-based): random in [base/2, base], base = min(max, initial·2^attempt). */
export function backoffDelay (attempt: number, options: BackoffOptions = defaultBackoff): number {
  const base = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 30))
  return base / 2 + Math.random() * base / 2
}

/**
 * Resolves after `ms` on `clock`, or rejects with AbortedError when `signal` aborts first.
 * `retrying` is the error that made the caller wait: the AbortedError names it (as
 * `lastError` and in its message), since "aborted while waiting" alone hides why nothing
 * had succeeded.
 */
export function sleep (ms: number, signal?: AbortSignal, retrying?: unknown, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortError(signal, 'while waiting to retry', false, retrying))
      return
    }
    // Kept alive: a script awaiting a call that is backing off must not exit half-way.
    const timer = clock.setTimer(() => {
      stopWaiting?.()
      resolve()
    }, ms, { keepAlive: true })
    const stopWaiting = signal === undefined
      ? undefined
      : onAbort(signal, () => {
        timer.cancel()
        reject(abortError(signal, 'while waiting to retry', false, retrying))
      })
  })
}

/** The AbortedError of `signal`; `lastError` (the failure being retried, if any) is named in it. */
export function abortError (signal: AbortSignal, doing: string, written = false, lastError?: unknown): AbortedError {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted')
  const last = lastError === undefined ? '' : `; the last attempt had failed with ${describeError(lastError)}`
  return new AbortedError(`Aborted ${doing}: ${reason}${last}`, { written, cause: signal.reason, lastError })
}

/** An error for a message: its class, its Kafka `type` and `code` when it has them, its message. */
export function describeError (error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const { type, code } = error as { type?: unknown, code?: unknown }
  const kafka = typeof type === 'string' && typeof code === 'number' && !error.message.includes(type) ? ` ${type} (${code})` : ''
  return `${error.name}${kafka}: ${error.message}`
}

/** The delay of a timer that fires at `deadline` (epoch ms on `clock`): never negative, and within setTimeout's range (a longer one would fire at once). */
export function timerDelay (deadline: number, clock: Clock = systemClock): number {
  return Math.min(Math.max(0, deadline - clock.now()), 0x7fffffff)
}

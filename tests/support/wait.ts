// Waiting in tests, with bounds that fail the test instead of hanging it: the one place for it
// (unit and real-broker tests alike).
import { inspect } from 'node:util'

export interface WaitOptions {
  /** How long to keep checking before failing; generous, as the machine may be busy. Default 30 s. */
  timeoutMs?: number
  /** Pause between checks. Default 5 ms (checks of in-process state are cheap); probes that ask a broker pass more. */
  intervalMs?: number
}

/** What `check` returns while the wait goes on. */
type NotYet = undefined | false

/**
 * Calls `check` until it returns something other than `undefined` or `false`, and resolves with
 * that. An error thrown by `check` ends the wait with that error. After `timeoutMs` it throws
 * an Error naming `what` (say what is awaited: "the member to join") and `check`'s last value.
 */
export async function waitFor<T> (what: string, check: () => T | Promise<T>, options: WaitOptions = {}): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 30_000, intervalMs = 5 } = options
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value as Exclude<T, NotYet>
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (the last check returned ${inspect(value)})`)
    await sleep(intervalMs)
  }
}

/**
 * Reads until `done(value)` or `timeoutMs` pass, and gives the last value read (the test asserts it). For
 * what a broker applies shortly after a call (config changes, deletions, lazily persisted offsets):
 * bounded by time, not by a count of tries, so a loaded machine slows the broker without failing the test.
 */
export async function pollUntil<T> (read: () => T | Promise<T>, done: (value: T) => boolean, options: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 100 } = options
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await sleep(intervalMs)
  }
}

export const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

/** How `promise` settled within `ms`: 'resolved', 'rejected <ErrorName>: <message>' or 'pending'. */
export async function outcomeWithin (promise: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>(resolve => { timer = setTimeout(() => resolve('pending'), ms) })
  const settled = promise.then(() => 'resolved', (error: Error) => `rejected ${error.name}: ${error.message}`)
  try {
    return await Promise.race([settled, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Lets `turns` turns of the event loop run (promise chains, loopback I/O), with no timer: after
 * what would start a request with no timer on its way, that request has reached an in-process
 * fake broker by then. For proving that something did not follow the event that would cause it.
 */
export async function eventLoopTurns (turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise(resolve => setImmediate(resolve))
}

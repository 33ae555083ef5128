/**
 * DrainSchedule: when the producer looks for sendable batches again. `soon()` runs the
 * drain once on the next turn of the event loop however many callers ask in this one
 * (appends, answers, identities, metadata); `at(time)` runs it at the earliest time any
 * caller asked for (a retry backoff or a linger ending), with one timer. What a drain does
 * is the producer's (producer.ts #drain, takeSendable).
 */
export class DrainSchedule {
  readonly #drain: () => void
  #scheduled = false
  #timer: NodeJS.Timeout | undefined
  /** A double from the start (a time since the epoch is no Smi): a field that turns from Smi to double changes the object's hidden class, and every optimised function that reads it deoptimised ("wrong map") once a retry or linger set it. */
  #time = Number.POSITIVE_INFINITY
  /** `soon` as a value, made once: linger timers and the producer's helpers call it. */
  readonly soon = (): void => {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(this.#run)
  }

  readonly #run = (): void => {
    this.#scheduled = false
    this.#drain()
  }

  constructor (drain: () => void) {
    this.#drain = drain
  }

  /** Drains at `time` (ms since the epoch), unless a drain is already due by then. */
  at (time: number): void {
    if (this.#timer !== undefined && this.#time <= time) return
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#time = time
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.soon()
    }, Math.max(0, time - Date.now()))
  }

  /** Clears the timer (the producer closed). */
  stop (): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }
}

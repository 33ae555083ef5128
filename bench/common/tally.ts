/** What a consuming runner (consume, share) reports, the part of its result every row is made from. */
export interface ConsumedResult {
  /** Set instead of the numbers when the client cannot run (e.g. not written yet). */
  unavailable?: string
  /** Records received (share: distinct ones). */
  received: number
  /** Value bytes received. */
  valueBytes: number
  /** From the start (client creation) to the N-th record received. */
  wallSeconds: number
  /** From the start to the first record received (joining the group, first fetch). */
  firstRecordSeconds: number | null
  /** process.cpuUsage() from client creation to close: user + system seconds. */
  cpuSeconds: number
  /** What the checks found wrong: missing, duplicated or out-of-order offsets, a stall. */
  problems: string[]
  /** The settings used, for the table's notes. */
  settings: string
  runtime: string
}

/**
 * What the consuming runners' tallies share (consume/runner.ts's Tally, share/runner.ts's
 * DistinctTally): the clock from the runner's start, the first and the target-th arrival,
 * value bytes, the first few problems, `done` at the target-th record, and the stall
 * watch. Each subclass checks offsets its own way and calls `arrived` per record (or run).
 */
export class RecordTally {
  readonly started = performance.now()
  received = 0
  valueBytes = 0
  firstAt = -1
  lastAt = -1
  readonly problems: string[] = []
  readonly done: Promise<void>
  readonly #target: number
  #resolve!: () => void

  constructor (target: number) {
    this.#target = target
    this.done = new Promise(resolve => { this.#resolve = resolve })
  }

  get target (): number {
    return this.#target
  }

  /** `count` records arrived (checked by the subclass). */
  protected arrived (count: number): void {
    if (this.received === 0) this.firstAt = performance.now()
    this.received += count
    if (this.received >= this.#target && this.lastAt < 0) {
      this.lastAt = performance.now()
      this.#resolve()
    }
  }

  protected problem (text: string): void {
    // A broken run could find millions; the first few say enough.
    if (this.problems.length < 5) this.problems.push(text)
  }

  /** From the start to the target-th record (or now, short of it), and to the first. */
  timing (): { wallSeconds: number, firstRecordSeconds: number | null } {
    const end = this.lastAt >= 0 ? this.lastAt : performance.now()
    return { wallSeconds: (end - this.started) / 1000, firstRecordSeconds: this.firstAt < 0 ? null : (this.firstAt - this.started) / 1000 }
  }
}

/**
 * Ends the run early when nothing new arrives for `stallSeconds`: `report` prints what
 * arrived (a "stalled" problem added), then the process exits, so a client that stops
 * short gives a row, not just a timeout.
 */
export function watchTallyForStall (tally: RecordTally, stallSeconds: number, report: () => void): NodeJS.Timeout {
  let seen = -1
  let since = performance.now()
  const timer = setInterval(() => {
    if (tally.received !== seen) {
      seen = tally.received
      since = performance.now()
      return
    }
    if (performance.now() - since < stallSeconds * 1000) return
    tally.problems.push(`stalled: nothing new for ${stallSeconds} s`)
    report()
    process.exit(0)
  }, 500)
  timer.unref()
  return timer
}

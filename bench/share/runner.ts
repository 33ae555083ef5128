/**
 * What the share benchmark's orchestrator (run.ts) and its kafkats runner (kafkats.ts)
 * share: the runner's config and result, and DistinctTally, which counts what several
 * consumers receive together. Members of one share group read the same partitions side by
 * side, so offsets do not arrive in order per partition: each offset is marked in a
 * bitmap, and a second arrival counts as a duplicate (a redelivery; none is expected when
 * nobody fails).
 */
import { readConfigArgument, reportResult, runtime, type BaseRunnerConfig } from '../common/runner'

export { cpuSecondsSince, runMain } from '../common/runner'

export type ShareBenchMode = 'share' | 'group'

export interface ShareBenchConfig extends BaseRunnerConfig {
  mode: ShareBenchMode
  /** Consumers in the group, each on its own Client (as separate applications would be). */
  consumers: number
  /** A group id no one used before (a share group's share.auto.offset.reset is set to earliest by the orchestrator). */
  groupId: string
  /** Per partition, as decimal strings: the log start and end offsets after the fill. */
  startOffsets: string[]
  endOffsets: string[]
  /** Give up and report after this long without a new record. */
  stallSeconds: number
}

export interface ShareBenchResult {
  unavailable?: string
  /** Distinct records received. */
  received: number
  duplicates: number
  valueBytes: number
  /** From the start (client creation) to the last distinct record. */
  wallSeconds: number
  firstRecordSeconds: number | null
  /** process.cpuUsage() from client creation to close, all consumers together. */
  cpuSeconds: number
  /** Records each consumer received (duplicates included). */
  perConsumer: number[]
  problems: string[]
  settings: string
  runtime: string
}

export function readConfig (): ShareBenchConfig {
  return readConfigArgument<ShareBenchConfig>()
}

/** Distinct offsets per partition (a bitmap over each partition's offsets after the fill). */
export class DistinctTally {
  readonly started = performance.now()
  received = 0
  duplicates = 0
  valueBytes = 0
  firstAt = -1
  lastAt = -1
  readonly problems: string[] = []
  readonly done: Promise<void>
  readonly #target: number
  readonly #start: number[]
  readonly #seen: Uint8Array[]
  #resolve!: () => void

  constructor (config: ShareBenchConfig) {
    this.#target = config.records
    this.#start = config.startOffsets.map(Number)
    this.#seen = config.endOffsets.map((end, p) => new Uint8Array(Number(end) - this.#start[p]))
    this.done = new Promise(resolve => { this.#resolve = resolve })
  }

  add (partition: number, offset: bigint, value: Buffer | null): void {
    const seen = this.#seen[partition]
    const index = Number(offset) - this.#start[partition]
    if (seen === undefined || index < 0 || index >= seen.length) {
      if (this.problems.length < 5) this.problems.push(`partition ${partition}: offset ${offset} outside the filled range`)
      return
    }
    if (seen[index] !== 0) { this.duplicates++; return }
    seen[index] = 1
    if (value !== null) this.valueBytes += value.length
    if (this.received === 0) this.firstAt = performance.now()
    if (++this.received === this.#target) {
      this.lastAt = performance.now()
      this.#resolve()
    }
  }

  result (cpuSeconds: number, perConsumer: number[], settings: string): ShareBenchResult {
    if (this.received !== this.#target) this.problems.push(`${this.received} distinct records received, not ${this.#target}`)
    const end = this.lastAt >= 0 ? this.lastAt : performance.now()
    return {
      received: this.received,
      duplicates: this.duplicates,
      valueBytes: this.valueBytes,
      wallSeconds: (end - this.started) / 1000,
      firstRecordSeconds: this.firstAt < 0 ? null : (this.firstAt - this.started) / 1000,
      cpuSeconds,
      perConsumer,
      problems: this.problems,
      settings,
      runtime: runtime()
    }
  }
}

export function report (result: ShareBenchResult): void {
  reportResult(result)
}

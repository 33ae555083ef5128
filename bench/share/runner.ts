/**
 * What the share benchmark's orchestrator (run.ts) and its kafkats runner (kafkats.ts)
 * share: the runner's config and result, and DistinctTally (a RecordTally, as the consume
 * benchmark's Tally), which counts what several consumers receive together. Members of one share group read the same partitions side by
 * side, so offsets do not arrive in order per partition: each offset is marked in a
 * bitmap, and a second arrival counts as a duplicate (a redelivery; none is expected when
 * nobody fails).
 */
import { readConfigArgument, reportResult, runtime, type BaseRunnerConfig } from '../common/runner'
import { RecordTally, type ConsumedResult } from '../common/tally'

export { cpuSecondsSince, runMain } from '../common/runner'
export { watchTallyForStall } from '../common/tally'

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

/** `received` counts distinct records; `cpuSeconds` is all consumers' together. */
export interface ShareBenchResult extends ConsumedResult {
  duplicates: number
  /** Records each consumer received (duplicates included). */
  perConsumer: number[]
}

export function readConfig (): ShareBenchConfig {
  return readConfigArgument<ShareBenchConfig>()
}

/** Distinct offsets per partition (a bitmap over each partition's offsets after the fill). */
export class DistinctTally extends RecordTally {
  duplicates = 0
  readonly #start: number[]
  readonly #seen: Uint8Array[]

  constructor (config: ShareBenchConfig) {
    super(config.records)
    this.#start = config.startOffsets.map(Number)
    this.#seen = config.endOffsets.map((end, p) => new Uint8Array(Number(end) - this.#start[p]))
  }

  add (partition: number, offset: bigint, value: Buffer | null): void {
    const seen = this.#seen[partition]
    const index = Number(offset) - this.#start[partition]
    if (seen === undefined || index < 0 || index >= seen.length) {
      this.problem(`partition ${partition}: offset ${offset} outside the filled range`)
      return
    }
    if (seen[index] !== 0) { this.duplicates++; return }
    seen[index] = 1
    if (value !== null) this.valueBytes += value.length
    this.arrived(1)
  }

  result (cpuSeconds: number, perConsumer: number[], settings: string): ShareBenchResult {
    if (this.received !== this.target) this.problems.push(`${this.received} distinct records received, not ${this.target}`)
    return {
      received: this.received,
      duplicates: this.duplicates,
      valueBytes: this.valueBytes,
      ...this.timing(),
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

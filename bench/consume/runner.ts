/**
 * What the consume benchmark's runners share. The orchestrator (run.ts) fills a topic,
 * then starts each runner as its own process with a ConsumeConfig as JSON in argv[2]; the
 * runner reads the topic from the beginning until it has `records` records, checks them
 * with a Tally, and prints one `BENCH-RESULT {json}` line (../common/runner.ts). The .mjs
 * runners of other clients do the same with this module, compiled, which
 * ../common/runner.mjs's setup() loads.
 */
import { cpuSecondsSince, readConfigArgument, reportResult, runtime, type BaseRunnerConfig } from '../common/runner'
import { RecordTally, watchTallyForStall, type ConsumedResult } from '../common/tally'

export { cpuSecondsSince, RESULT_PREFIX, runMain, runtime } from '../common/runner'

export interface ConsumeConfig extends BaseRunnerConfig {
  /** Records in the topic, and how many to read. */
  records: number
  /** A group id no one used before. */
  groupId: string
  /** Per partition, as decimal strings: the log start and end offsets after the fill. */
  startOffsets: string[]
  endOffsets: string[]
  /** A run that receives nothing for this long gives up and reports what it has. */
  stallSeconds: number
}

export interface ConsumeResult extends ConsumedResult {
  /** With the option retainRecords N: the memory the first N records take while the runner holds them. */
  heldMemory?: HeldMemory
}

/** Memory held per record: live heap plus buffers after a full GC, less the same before the client existed, over the records held. */
export interface HeldMemory {
  records: number
  bytesPerRecord: number
}

/**
 * Memory per record the application holds, for the option retainRecords N: the runner
 * keeps the first N records it receives (the objects as delivered), then measures the live
 * heap plus ArrayBuffer memory after a full collection, less the same taken before the
 * client was made. Records the consumer has fetched but not handed out yet count too
 * (a few MiB at most).
 */
export class HeldRecords {
  readonly #target: number
  #held: unknown[] | undefined
  #count = 0
  readonly #baseline: number
  result: HeldMemory | undefined

  constructor (target: number) {
    this.#target = target
    this.#baseline = liveMemory()
    // Its slots (8 bytes each) are taken off the result: they are the runner's, not the client's.
    this.#held = new Array<unknown>(target)
  }

  hold (record: unknown): void {
    if (this.#held === undefined) return
    this.#held[this.#count++] = record
    if (this.#count < this.#target) return
    this.result = { records: this.#count, bytesPerRecord: (liveMemory() - this.#baseline - 8 * this.#target) / this.#count }
    this.#held = undefined
  }
}

let collect: (() => void) | undefined

/** Live heap + ArrayBuffer bytes after a full collection. */
function liveMemory (): number {
  if (collect === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('node:v8').setFlagsFromString('--expose-gc')
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    collect = require('node:vm').runInNewContext('gc') as () => void
  }
  collect()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

export function readConfig (): ConsumeConfig {
  return readConfigArgument<ConsumeConfig>()
}

/**
 * Counts what a consumer receives and checks it, cheaply enough to run on every record:
 * per partition, offsets must rise strictly, and at the end the count must equal the
 * partition's records and the last offset be its end offset - 1. Together that means
 * every offset arrived exactly once, in order (a topic with no transactions or
 * compaction has no gaps). `done` resolves at the `records`-th record.
 */
export class Tally extends RecordTally {
  readonly #counts: number[]
  readonly #first: bigint[]
  readonly #last: bigint[]

  constructor (config: ConsumeConfig) {
    super(config.records)
    this.#counts = new Array<number>(config.partitions).fill(0)
    this.#first = new Array<bigint>(config.partitions).fill(-1n)
    this.#last = new Array<bigint>(config.partitions).fill(-1n)
  }

  /** One record. */
  add (partition: number, offset: bigint, value: Buffer | null | undefined): void {
    const last = this.#last[partition]
    if (offset <= last) this.problem(`partition ${partition}: offset ${offset} after ${last}`)
    else if (last === -1n) this.#first[partition] = offset
    this.#last[partition] = offset
    this.#counts[partition]++
    if (value !== null && value !== undefined) this.valueBytes += value.length
    this.arrived(1)
  }

  /**
   * A run of `count` records of a partition from `firstOffset` to `lastOffset`, for
   * clients whose offsets are costly to read per record (kafkajs's are strings): the
   * run must follow the previous one and hold one record per offset.
   */
  addRun (partition: number, firstOffset: bigint, lastOffset: bigint, count: number, valueBytes: number): void {
    const last = this.#last[partition]
    if (last === -1n) this.#first[partition] = firstOffset
    else if (firstOffset !== last + 1n) this.problem(`partition ${partition}: offset ${firstOffset} after ${last}`)
    if (lastOffset - firstOffset + 1n !== BigInt(count)) this.problem(`partition ${partition}: ${count} records from offset ${firstOffset} to ${lastOffset}`)
    this.#last[partition] = lastOffset
    this.#counts[partition] += count
    this.valueBytes += valueBytes
    this.arrived(count)
  }

  /** The end-of-run checks against the topic's offsets; returns the problems found. */
  check (config: ConsumeConfig): string[] {
    for (let p = 0; p < config.partitions; p++) {
      const start = BigInt(config.startOffsets[p])
      const end = BigInt(config.endOffsets[p])
      const expected = Number(end - start)
      if (this.#counts[p] !== expected) this.problem(`partition ${p}: ${this.#counts[p]} records, not ${expected}`)
      else if (expected > 0 && (this.#first[p] !== start || this.#last[p] !== end - 1n)) this.problem(`partition ${p}: offsets ${this.#first[p]}..${this.#last[p]}, not ${start}..${end - 1n}`)
    }
    if (this.received !== config.records) this.problem(`${this.received} records received, not ${config.records}`)
    return this.problems
  }
}

/**
 * Ends the run early, reporting what arrived, when nothing arrives for
 * `config.stallSeconds` — so a client that stops short gives a row, not just a timeout.
 */
export function watchForStall (config: ConsumeConfig, tally: Tally, cpuStart: NodeJS.CpuUsage, settings: () => string): NodeJS.Timeout {
  return watchTallyForStall(tally, config.stallSeconds, () => { finish(config, tally, cpuSecondsSince(cpuStart), settings()) })
}

/** Runs the end-of-run checks and prints the result line. */
export function finish (config: ConsumeConfig, tally: Tally, cpuSeconds: number, settings: string, heldMemory?: HeldMemory): void {
  const result: ConsumeResult = {
    received: tally.received,
    valueBytes: tally.valueBytes,
    ...tally.timing(),
    cpuSeconds,
    problems: tally.check(config),
    settings,
    runtime: runtime(),
    heldMemory
  }
  reportResult(result)
}

export function reportUnavailable (why: string): void {
  const result: ConsumeResult = { unavailable: why, received: 0, valueBytes: 0, wallSeconds: 0, firstRecordSeconds: null, cpuSeconds: 0, problems: [], settings: '', runtime: runtime() }
  reportResult(result)
}

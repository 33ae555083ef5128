/**
 * The protocol between a benchmark's orchestrator and its runners, shared by
 * bench/produce, bench/consume and bench/share: the orchestrator starts each runner as its own process
 * with its config as JSON in argv[2]; the runner prints one `BENCH-RESULT {json}` line.
 * The .mjs runners of other clients speak it through runner.mjs, its twin.
 */
import * as fs from 'node:fs'

export const RESULT_PREFIX = 'BENCH-RESULT '

/** What every runner's config holds; produce/runner.ts and consume/runner.ts add their own. */
export interface BaseRunnerConfig {
  bootstrap: string
  topic: string
  partitions: number
  records: number
  valueSize: number
  compression: string
  /** Client-specific settings that replace the runner's defaults (from --options-<client>). */
  options: Record<string, unknown>
  /** The benchmark's runner module, compiled: the .mjs runners load it (runner.mjs's setup()). */
  runnerModule: string
  /** What the kafkajs runners require: 'kafkajs', or the compiled kafkats/kafkajs for the kafkats-kafkajs rows. */
  kafkajsModule: string
}

/** The runner's config, from argv[2]. */
export function readConfigArgument<T> (): T {
  const text = process.argv[2]
  if (text === undefined) throw new Error('A benchmark runner takes its config as JSON in argv[2]; run it through the benchmark\'s run.js')
  return JSON.parse(text) as T
}

export function cpuSecondsSince (start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1e6
}

export function reportResult (result: object): void {
  process.stdout.write(RESULT_PREFIX + JSON.stringify(result) + '\n')
}

export function runtime (): string {
  return `node ${process.version}`
}

/** Runs a runner's main, reporting a crash as a failed run instead of a bare stack trace. */
export function runMain (main: () => Promise<void>): void {
  main().catch(error => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`)
    process.exitCode = 1
  })
}

/** The values of a payload file: views into it, read once. */
export function readPayloadValues (file: string, size: number): Buffer[] {
  const bytes = fs.readFileSync(file)
  const values: Buffer[] = []
  for (let start = 0; start + size <= bytes.length; start += size + 1) values.push(bytes.subarray(start, start + size))
  if (values.length === 0) throw new Error(`No ${size}-byte values in ${file}`)
  return values
}

/** Each partition's share of `records`, as even as can be (the first ones get the rest). */
export function partitionShares (records: number, partitions: number): number[] {
  const base = Math.floor(records / partitions)
  const extra = records % partitions
  return Array.from({ length: partitions }, (_, p) => base + (p < extra ? 1 : 0))
}

/**
 * The in-flight loop of the runners that send arrays of records (kafkajs's and
 * @platformatic/kafka's send(), produceRaw) and of the consume benchmark's fill: each
 * `send` hands over its records in calls of up to `perCall`, with `inFlight` calls
 * awaited at once. Values cycle through `values` across every send of one sender, and
 * every record of a call gets the call's latency (from the call to its promise settling)
 * in `latencies`, in the order calls are acknowledged.
 */
export class CallSender<M> {
  acknowledged = 0
  failed = 0
  firstError: string | undefined
  readonly latencies: Float32Array | undefined
  readonly #values: Buffer[]
  readonly #toMessage: (value: Buffer) => M
  #nextValue = 0

  constructor (values: Buffer[], toMessage: (value: Buffer) => M, latencies?: Float32Array) {
    this.#values = values
    this.#toMessage = toMessage
    this.latencies = latencies
  }

  /** Sends `records` records through `call`; a failed call counts its records as failed. */
  async send (records: number, perCall: number, inFlight: number, call: (messages: M[]) => Promise<unknown>): Promise<void> {
    let left = records
    const worker = async (): Promise<void> => {
      while (left > 0) {
        const count = Math.min(perCall, left)
        left -= count
        const messages = new Array<M>(count)
        for (let i = 0; i < count; i++) {
          messages[i] = this.#toMessage(this.#values[this.#nextValue])
          if (++this.#nextValue === this.#values.length) this.#nextValue = 0
        }
        const sentAt = performance.now()
        try {
          await call(messages)
          this.latencies?.fill(performance.now() - sentAt, this.acknowledged, this.acknowledged + count)
          this.acknowledged += count
        } catch (error) {
          this.failed += count
          this.firstError ??= String((error as Error)?.message ?? error)
        }
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
  }
}

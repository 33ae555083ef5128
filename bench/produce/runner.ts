/**
 * What the produce benchmark's runners share: the orchestrator (run.ts) starts each
 * runner as its own process with a RunnerConfig as JSON in argv[2]; the runner produces,
 * writes one latency per acknowledged record (milliseconds, Float32 little-endian) to
 * `latencyFile`, and prints one `BENCH-RESULT {json}` line. The .mjs runners for other
 * clients speak the same protocol through common.mjs.
 */
import * as fs from 'node:fs'

export const RESULT_PREFIX = 'BENCH-RESULT '

export interface RunnerConfig {
  bootstrap: string
  topic: string
  partitions: number
  records: number
  valueSize: number
  /** Distinct values of valueSize random capital letters, one per line, made once per size (see run.ts). */
  payloadFile: string
  compression: string
  latencyFile: string
  /** Client-specific settings that replace the runner's defaults (from --options-<client>). */
  options: Record<string, unknown>
}

export interface RunnerResult {
  /** Set instead of the numbers when the client cannot run (e.g. not written yet). */
  unavailable?: string
  wallSeconds: number
  acknowledged: number
  failed: number
  /** process.cpuUsage() over client creation, producing and close: user + system seconds. */
  cpuSeconds: number
  /** 'record': each record's own acknowledgement; 'batch': the acknowledgement of the call that carried it. */
  latencyPer: 'record' | 'batch'
  /** The settings used, for the table's notes. */
  settings: string
  runtime: string
  firstError?: string
}

export function readConfig (): RunnerConfig {
  const text = process.argv[2]
  if (text === undefined) throw new Error('A produce runner takes its RunnerConfig as JSON in argv[2]; run it through bench/produce/run.js')
  return JSON.parse(text) as RunnerConfig
}

/**
 * The values to produce, cycled through record by record: views into the payload file,
 * which is read once. They are many and distinct, so compression finds no more repeats
 * than in the Java client's fresh random payloads.
 */
export function readValues (config: RunnerConfig): Buffer[] {
  const bytes = fs.readFileSync(config.payloadFile)
  const values: Buffer[] = []
  for (let start = 0; start + config.valueSize <= bytes.length; start += config.valueSize + 1) values.push(bytes.subarray(start, start + config.valueSize))
  if (values.length === 0) throw new Error(`No ${config.valueSize}-byte values in ${config.payloadFile}`)
  return values
}

export function cpuSecondsSince (start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1e6
}

export function writeLatencies (file: string, latencies: Float32Array, count: number): void {
  fs.writeFileSync(file, Buffer.from(latencies.buffer, latencies.byteOffset, count * 4))
}

export function report (result: RunnerResult): void {
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

/**
 * What the produce benchmark's runners share: the orchestrator (run.ts) starts each
 * runner as its own process with a RunnerConfig as JSON in argv[2]; the runner produces,
 * writes one latency per acknowledged record (milliseconds, Float32 little-endian) to
 * `latencyFile`, and prints one `BENCH-RESULT {json}` line (../common/runner.ts). The
 * .mjs runners for other clients speak the same protocol through common.mjs.
 */
import * as fs from 'node:fs'
import { readConfigArgument, readPayloadValues, reportResult } from '../common/runner'

export { cpuSecondsSince, RESULT_PREFIX, runMain, runtime } from '../common/runner'

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
  return readConfigArgument<RunnerConfig>()
}

/**
 * The values to produce, cycled through record by record: views into the payload file,
 * which is read once. They are many and distinct, so compression finds no more repeats
 * than in the Java client's fresh random payloads.
 */
export function readValues (config: RunnerConfig): Buffer[] {
  return readPayloadValues(config.payloadFile, config.valueSize)
}

export function writeLatencies (file: string, latencies: Float32Array, count: number): void {
  fs.writeFileSync(file, Buffer.from(latencies.buffer, latencies.byteOffset, count * 4))
}

export function report (result: RunnerResult): void {
  reportResult(result)
}

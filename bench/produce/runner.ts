/**
 * What the produce benchmark's runners share: the orchestrator (run.ts) starts each
 * runner as its own process with a RunnerConfig as JSON in argv[2]; the runner produces,
 * writes one latency per acknowledged record (milliseconds, Float32 little-endian) to
 * `latencyFile`, and prints one `BENCH-RESULT {json}` line (../common/runner.ts). The
 * .mjs runners for other clients load this module, compiled, through
 * ../common/runner.mjs's setup(), so they send and report with the same code.
 */
import * as fs from 'node:fs'
import { readConfigArgument, readPayloadValues, reportResult, runtime, type BaseRunnerConfig, type CallSender } from '../common/runner'

export { CallSender, cpuSecondsSince, partitionShares, RESULT_PREFIX, runMain, runtime } from '../common/runner'

export interface RunnerConfig extends BaseRunnerConfig {
  /** Distinct values of valueSize random capital letters, one per line, made once per size (see run.ts). */
  payloadFile: string
  latencyFile: string
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

/** How many records one call carries so that each partition's batch holds about `batchBytes`. */
export function recordsPerCall (valueSize: number, partitions: number, batchBytes: number): number {
  return Math.max(1, Math.floor(partitions * batchBytes / (valueSize + 20)))
}

/**
 * Writes the latencies of a runner that sent through a CallSender and prints its result
 * line (latency per call: each record has the latency of the call that carried it).
 */
export function reportSent (config: RunnerConfig, sender: CallSender<unknown>, wallSeconds: number, cpuSeconds: number, settings: string): void {
  if (sender.latencies === undefined) throw new Error('reportSent takes a CallSender that keeps latencies')
  writeLatencies(config.latencyFile, sender.latencies, sender.acknowledged)
  report({
    wallSeconds,
    acknowledged: sender.acknowledged,
    failed: sender.failed,
    cpuSeconds,
    latencyPer: 'batch',
    settings,
    runtime: runtime(),
    firstError: sender.firstError
  })
}

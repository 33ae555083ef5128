/**
 * What the steady-rate latency benchmark's runners share (bench/latency/run.ts starts each
 * as its own process with a LatencyConfig as JSON in argv[2]): the record layout every
 * client writes and reads, the schedule, and the files and result line a runner leaves.
 * franz-go's runner (bench/franz/latency.go) and the Java one (LatencyBench.java) follow
 * the same layout and write the same files.
 *
 * A record's value (valueSize bytes): bytes 0–7 its scheduled send time, a float64 LE of
 * milliseconds on the process's monotonic clock (producer and consumer are one process);
 * bytes 8–11 its sequence number, uint32 LE (READY_SEQUENCE for the readiness record);
 * the rest capital letters. Its key: `key-<sequence mod KEYS>`, so every client's murmur2
 * partitioner spreads the records over the partitions the same way.
 */
import * as fs from 'node:fs'
import { readConfigArgument, type BaseRunnerConfig } from '../common/runner'

export { cpuSecondsSince, reportResult, runMain, runtime } from '../common/runner'

/** The sequence number of the record produced and consumed before the schedule starts. */
export const READY_SEQUENCE = 0xffffffff
/** Distinct keys: `key-0` … `key-1023`. */
export const KEYS = 1024

export interface LatencyConfig extends BaseRunnerConfig {
  /** Records per second, on the schedule: record i is due at start + i / rate. */
  rate: number
  /** The measured part of the schedule. */
  durationSeconds: number
  /** Scheduled, produced and consumed before the measured part, and left out of the figures. */
  warmupSeconds: number
  lingerMs: number
  /** How long to wait after the schedule for the last acknowledgements and records. */
  drainSeconds: number
  /** Where the end-to-end latencies of the measured records go (ms, Float32 LE, in arrival order). */
  e2eFile: string
  /** Where their produce acknowledgement latencies go (ms, Float32 LE, in acknowledgement order). */
  ackFile: string
}

export interface LatencyResult {
  /** Set instead of the numbers when the client cannot run. */
  unavailable?: string
  /** Records of the measured part (after the warm-up). */
  scheduled: number
  acknowledged: number
  failed: number
  /** Measured records consumed (each once). */
  received: number
  duplicates: number
  /** The most the sender fell behind the schedule (ms): a record sent later than due still counts from when it was due. */
  maxSendLagMs: number
  /** From the first due time to the last measured record received or the drain's end. */
  wallSeconds: number
  /** User + system CPU from client creation to close. */
  cpuSeconds: number
  settings: string
  runtime: string
  firstError?: string
}

export function readConfig (): LatencyConfig {
  return readConfigArgument<LatencyConfig>()
}

/** The records scheduled in the warm-up and in the measured part. */
export function scheduleCounts (config: LatencyConfig): { warmup: number, measured: number } {
  return { warmup: Math.round(config.warmupSeconds * config.rate), measured: Math.round(config.durationSeconds * config.rate) }
}

/** The keys, made once: `key-<i>` for i < KEYS. */
export function makeKeys (): Buffer[] {
  return Array.from({ length: KEYS }, (_, i) => Buffer.from(`key-${i}`))
}

/** A value of `size` bytes (at least 12) with the stamp and sequence filled in. */
export function stampedValue (size: number, sequence: number, dueMs: number): Buffer {
  const value = Buffer.allocUnsafe(size)
  value.writeDoubleLE(dueMs, 0)
  value.writeUInt32LE(sequence, 8)
  // The letters after the stamp: the same filler as the other clients write.
  value.fill(65 + (sequence % 26), 12)
  return value
}

export function writeLatencies (file: string, latencies: Float32Array, count: number): void {
  fs.writeFileSync(file, Buffer.from(latencies.buffer, latencies.byteOffset, count * 4))
}

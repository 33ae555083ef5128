/**
 * What the partition-scaling benchmark's runners share (bench/partitions/run.ts starts each
 * as its own process with a PartitionsConfig as JSON in argv[2]): the config, the result
 * line, the keys and values, and reading a process's memory. franz-go's runner
 * (bench/franz/partitions.go) and the Java one (PartitionBench.java) do the same.
 *
 * A run: (1) note the memory before any client exists; (2) a producer client writes
 * `records` keyed records as fast as its backpressure lets it, record i with key `key-<i>`
 * to topic i mod topics (the murmur2 partitioner spreads them over the partitions),
 * acks=all, idempotent, the given linger; (3) a second client's consumer, assigned every
 * partition of every topic from the start (no group), reads them back; (4) with both
 * clients still open, the memory again; then both close.
 */
import * as fs from 'node:fs'
import { readConfigArgument, type BaseRunnerConfig } from '../common/runner'

export { cpuSecondsSince, reportResult, runMain, runtime } from '../common/runner'

export interface PartitionsConfig extends BaseRunnerConfig {
  /** The topics, each with `partitions` partitions (BaseRunnerConfig's `topic` is the first). */
  topics: string[]
  lingerMs: number
  /** The consume phase gives up after this long without a new record. */
  stallSeconds: number
}

export interface PhaseResult {
  /** Records acknowledged (produce) or received (consume). */
  records: number
  /** From the client's creation to the last record acknowledged / received. */
  seconds: number
  /** From the client's creation to the first record acknowledged / received. */
  firstRecordSeconds: number | null
  /** User + system CPU of the process over the phase (client creation included). */
  cpuSeconds: number
}

export interface MemoryResult {
  /** Before any client, after a full collection: bytes. */
  baselineRss: number
  baselineHeap: number
  /** With the producer and consumer clients open after the run, after a full collection. */
  rss: number
  heap: number
  /** The process's peak RSS (VmHWM). */
  peakRss: number
}

export interface PartitionsResult {
  unavailable?: string
  produce: PhaseResult
  consume: PhaseResult
  memory: MemoryResult
  failed: number
  firstError?: string
  problems: string[]
  settings: string
  runtime: string
}

export function readConfig (): PartitionsConfig {
  return readConfigArgument<PartitionsConfig>()
}

/** A field of /proc/self/status in bytes (VmRSS, VmHWM), or 0 off Linux. */
export function procStatusBytes (field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'))
    return match === null ? 0 : Number(match[1]) * 1024
  } catch {
    return 0
  }
}

/** A value of `size` capital letters, the same for every record (compression is off). */
export function letters (size: number): Buffer {
  return Buffer.alloc(size, 'K')
}

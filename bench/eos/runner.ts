/**
 * What the exactly-once benchmark's runners share (see run.ts): each runner is its own
 * process with a RunnerConfig as JSON in argv[2] and prints one `BENCH-RESULT {json}` line
 * (../common/runner.ts). Two modes:
 *
 * - 'produce': `records` records to `topic` in transactions of `txnSize` records each
 *   (begin, send them, commit), one transactional producer.
 * - 'ctp' (consume-transform-produce): `records` records read from `inputTopic` by a group
 *   member (read_committed) and written to `topic`, each transaction carrying up to
 *   `txnSize` records and the input offsets they came from (sendOffsets).
 *
 * The .mjs runner of kafkajs loads this module, compiled, through ../common/runner.mjs.
 */
import type { BaseRunnerConfig } from '../common/runner'

// What the runners use from the shared protocol (the .mjs runner gets these through setup()).
export { cpuSecondsSince, readConfigArgument, readPayloadValues, reportResult, runMain, runtime } from '../common/runner'

export type EosMode = 'produce' | 'ctp'

export interface RunnerConfig extends BaseRunnerConfig {
  mode: EosMode
  /** Records per transaction (ctp: at most; a transaction never waits for more input). */
  txnSize: number
  /** Distinct values, one per line (produce mode). */
  payloadFile: string
  /** ctp: the filled input topic and the group to read it with. */
  inputTopic: string
  groupId: string
  transactionalId: string
}

export interface RunnerResult {
  unavailable?: string
  /** From the first transaction's begin (ctp: the consumer's start) to the last commit. */
  wallSeconds: number
  /** Records in committed transactions. */
  committed: number
  transactions: number
  aborted: number
  /** process.cpuUsage() from client creation to close (Java: the JVM's process CPU time over the same span). */
  cpuSeconds: number
  settings: string
  runtime: string
  firstError?: string
}

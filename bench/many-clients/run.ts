/**
 * The many-clients benchmark, side by side: what 100 producers and 100 consumers cost one
 * process (Node, franz-go's Go, the JVM).
 *
 *   node dist/bench/many-clients/run.js [--producers 100] [--consumers 100] [--burst 20] [--idle-seconds 30]
 *                                       [--clients kafkats,kafkajs,franz,java] [--json FILE] [--chart FILE]
 *
 * For every client it creates a topic (4 partitions) and runs the client in its own
 * process (runner.ts has the timeline; franz-go's runner is bench/franz/manyclients.go, the
 * Java client's ManyClientsBench.java): every producer and consumer a client of its own,
 * each consumer alone in its own group reading the topic from the start. Once all are
 * connected (every consumer has a record of every producer), and again after a burst (each
 * producer sends `burst` records, every consumer reads them all), the runner rests and
 * reports memory (RSS, heap), the resources that keep the event loop alive (timers,
 * sockets …; Go: goroutines, Java: threads), open sockets, and its CPU (and Node's
 * event-loop use) over an idle window. It prints
 * a markdown table, and writes the rows as JSON and a bar chart as SVG. The broker is
 * KAFKA_BOOTSTRAP's, or a single node started with Kafka's own group timings and stopped
 * at the end. See bench/README.md.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { throwFirstError } from '../../index'
import { renderPanels } from '../chart'
import {
  ALL_CLIENTS, BenchHarness, benchBroker, defaultBenchOptions, formatNumber, KAFKA_GROUP_DEFAULTS, parseBenchArgs, positiveInt, settingsLines, writeResults,
  type BenchBroker, type BenchOptions, type BenchRow, type ChildOutcome, type ClientName
} from '../common/harness'
import { runMain } from '../common/runner'
import type { IdleSnapshot, ManyClientsConfig, ManyClientsResult, ProcessSnapshot } from './runner'

const CLIENTS: ClientName[] = ['kafkats', 'kafkajs', 'franz', 'java', 'kafkats-kafkajs']
const MIB = 1024 * 1024

interface Options extends BenchOptions {
  producers: number
  consumers: number
  burst: number
  idleSeconds: number
  boundSeconds: number
  chart: string | undefined
}

/** One row per (client, phase). */
export interface Row extends BenchRow {
  phase: string
  producers: number
  consumers: number
  connectSeconds?: number
  burstSeconds?: number
  before?: ProcessSnapshot
  snapshot?: IdleSnapshot
}

const USAGE = `usage: node dist/bench/many-clients/run.js [options]
  --producers N         producers, a client each (default 100)
  --consumers N         consumers, a client and a group each (default 100)
  --burst N             records each producer sends in the burst (default 20)
  --idle-seconds N      the window over which idle CPU is measured, per phase (default 30)
  --bound-seconds N     how long to wait for every consumer to have every record (default 120)
  --clients LIST        of ${CLIENTS.join(', ')} (default kafkats,kafkajs,franz,java)
  --partitions N        partitions of the topic (default 4)
  --sizes N             the records' value size (default 100)
  --options-CLIENT JSON settings that replace a runner's consumer defaults (java: consumer properties)
  --timeout SECONDS     per run (default: 2 bounds + 2 idle windows + 60)
  --json FILE           also write the rows as JSON
  --chart FILE          also draw the rows as an SVG bar chart (default: beside --json, .svg)
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker with Kafka's default group timings.`

function parseArgs (argv: string[]): Options {
  const options: Options = {
    ...defaultBenchOptions(),
    clients: ['kafkats', 'kafkajs', 'franz', 'java'],
    sizes: [100],
    compressions: ['none'],
    partitions: 4,
    producers: 100,
    consumers: 100,
    burst: 20,
    idleSeconds: 30,
    boundSeconds: 120,
    chart: undefined
  }
  parseBenchArgs(argv, USAGE, options, (arg, value) => {
    if (arg === '--producers') options.producers = positiveInt(arg, value)
    else if (arg === '--consumers') options.consumers = positiveInt(arg, value)
    else if (arg === '--burst') options.burst = positiveInt(arg, value)
    else if (arg === '--idle-seconds') options.idleSeconds = positiveInt(arg, value)
    else if (arg === '--bound-seconds') options.boundSeconds = positiveInt(arg, value)
    else if (arg === '--chart') options.chart = value
    else return false
    return true
  })
  const unsupported = options.clients.filter(c => !CLIENTS.includes(c))
  if (unsupported.length > 0) throw new Error(`bench/many-clients has runners for ${CLIENTS.join(', ')} only, not ${unsupported.join(', ')} (of ${ALL_CLIENTS.join(', ')})`)
  if (options.repeat > 1) throw new Error('bench/many-clients runs each client once (--repeat is not supported): run it again to see the spread')
  if (options.sizes.length !== 1) throw new Error('--sizes takes one value size here')
  if (options.json !== undefined && options.chart === undefined) options.chart = options.json.replace(/\.json$/, '') + '.svg'
  return options
}

class Bench extends BenchHarness<Options> {
  constructor (options: Options, broker: BenchBroker) {
    super('many-clients', options, broker)
  }

  override timeoutMs (): number {
    return (this.options.timeoutSeconds ?? 2 * this.options.boundSeconds + 2 * (this.options.idleSeconds + 10) + 60) * 1000
  }

  async run (client: ClientName): Promise<Row[]> {
    const { producers, consumers } = this.options
    const base: Row = { client, phase: '', producers, consumers, size: this.options.sizes[0], compression: 'none', records: producers * (1 + this.options.burst), notes: [] }
    const stamp = `${client}-${Date.now()}`
    const topic = `bench-many-${stamp}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: this.options.partitions }]))
    try {
      await this.admin.metadata.waitForTopic(topic, 30_000)
      const config = (): ManyClientsConfig => ({
        ...this.runnerConfig(base, topic), producers, consumers, groupId: `bench-many-${stamp}`, burst: this.options.burst, idleSeconds: this.options.idleSeconds, boundSeconds: this.options.boundSeconds
      })
      const run = client === 'java' ? await this.runJava(base, config()) : await this.runNodeRunner<ManyClientsResult>(base, config)
      if (run === undefined) return [{ ...base, phase: 'failed' }]
      const result = run.result
      if (result.problems.length > 0) base.notes.push(`PROBLEMS: ${result.problems.join('; ')}`)
      base.connectSeconds = result.connectSeconds ?? undefined
      base.burstSeconds = result.burstSeconds ?? undefined
      base.before = result.before
      if (result.phases.length === 0) return [{ ...base, phase: 'failed' }]
      return result.phases.map(snapshot => ({ ...base, notes: [...base.notes], phase: snapshot.phase, snapshot }))
    } finally {
      await this.deleteTopic(topic)
    }
  }

  /** Runs ManyClientsBench.java (compiled once by the harness) with the config as its arguments. */
  async runJava (row: Row, config: ManyClientsConfig): Promise<{ result: ManyClientsResult, outcome: ChildOutcome } | undefined> {
    const properties = Object.entries(this.options.clientOptions.java ?? {}).map(([k, v]) => `${k}=${String(v)}`)
    return await this.runJavaRunner<ManyClientsResult>(row, path.join('many-clients', 'ManyClientsBench.java'), 'ManyClientsBench', [
      config.bootstrap, config.topic, String(config.producers), String(config.consumers), config.groupId, String(config.valueSize), String(config.burst),
      String(config.idleSeconds), String(config.boundSeconds), ...properties
    ])
  }
}

const mib = (bytes: number | undefined): string => formatNumber(bytes === undefined ? undefined : bytes / MIB, 1)

/**
 * The resource in the "timers" column: for Node the timers that keep the loop alive (Node
 * names them 'Timeout'); Go and the JVM have no such thing, and their runners report what
 * grows per client in their place: franz-go's goroutines, the Java client's live threads.
 */
function timerResource (client: ClientName): string {
  return client === 'franz' ? 'goroutines' : client === 'java' ? 'threads' : 'Timeout'
}

const timers = (row: Row): number | undefined => row.snapshot === undefined ? undefined : row.snapshot.resources[timerResource(row.client)] ?? 0

/** The other resource types, e.g. "TCPSocketWrap 400, FSReqCallback 1" (Go and Java: "OS threads 212"). */
function otherResources (row: Row): string {
  if (row.snapshot === undefined) return '—'
  return Object.entries(row.snapshot.resources).filter(([type]) => type !== timerResource(row.client)).map(([type, n]) => `${type} ${n}`).join(', ') || 'none'
}

function renderTable (rows: Row[], options: Options, brokerSettings: string): string {
  const clients = options.producers + options.consumers
  const lines = [
    `Many-clients benchmark: ${options.producers} producers and ${options.consumers} consumers in one process, a client each, each consumer alone in its own group; a topic of ${options.partitions} partitions, ${options.sizes[0]}-byte values; burst ${options.burst} records per producer (each consumer reads all ${(options.producers * (1 + options.burst)).toLocaleString('en-US')}); idle window ${options.idleSeconds} s per phase. Broker: ${brokerSettings}.`,
    '',
    '| client | phase | RSS MiB | heap used MiB | heap / client KiB | timers (ref\'d) · goroutines · threads | other resources | open sockets | idle CPU % of a core | event loop use % | connect s | burst s | notes |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |'
  ]
  for (const row of rows) {
    const s = row.snapshot
    const perClient = s === undefined || row.before === undefined ? undefined : (s.heapUsedBytes - row.before.heapUsedBytes) / clients / 1024
    lines.push(`| ${[
      row.client, row.phase, mib(s?.rssBytes), mib(s?.heapUsedBytes), formatNumber(perClient, 1), formatNumber(timers(row), 0), otherResources(row), formatNumber(s?.sockets, 0),
      formatNumber(s?.idleCpuPercent, 2), formatNumber(s?.eventLoopUtilization === undefined ? undefined : s.eventLoopUtilization * 100, 2),
      formatNumber(row.connectSeconds, 1), formatNumber(row.burstSeconds, 1), row.notes.join('; ')
    ].join(' | ')} |`)
  }
  lines.push(...settingsLines(rows))
  lines.push('', 'Each phase rests 2 s, then takes memory after a full collection (process.memoryUsage()), process.getActiveResourcesInfo() (timers that keep the event loop alive: unref\'d ones are not counted there) and the open socket descriptors, then CPU (process.cpuUsage(), user + system) and event-loop utilization over the idle window. heap / client: heap used less the same before any client, over the producers and consumers. The JSON has every figure, the baseline before any client included.')
  lines.push('', 'franz (Go) and java (the JVM) take the same measures with their runtime\'s figures: heap used is HeapAlloc after runtime.GC() (Go) or total - free after System.gc() (Java, -Xmx512M), RSS from /proc/self/status, CPU from getrusage (Go) or OperatingSystemMXBean (Java), user + system of every thread. Neither has an event loop or timers that keep a process alive: their "timers" column counts what grows per client in their place, goroutines (runtime.NumGoroutine()) for franz-go and live Java threads (ThreadMXBean) for Java, and "other resources" gives the OS threads (/proc/self/status).')
  return lines.join('\n')
}

/** The rows as a bar chart: a panel per phase, a bar per client. */
function renderManyClientsChart (rows: Row[]): string {
  const phases = new Map<string, Row[]>()
  for (const row of rows) phases.set(row.phase, [...(phases.get(row.phase) ?? []), row])
  return renderPanels('Many clients in one process: memory, timers, sockets and idle CPU', 'lower is better in every column · RSS and heap after a full collection · timers: those keeping the event loop alive (franz: goroutines, java: threads) · idle CPU: percent of one core', [
    { name: 'RSS (MiB)', format: value => value.toFixed(0), missing: 'failed' },
    { name: 'heap used (MiB)', format: value => value.toFixed(1), missing: '–' },
    { name: 'timers (ref\'d) · goroutines · threads', format: value => value.toFixed(0), missing: '–' },
    { name: 'open sockets', format: value => value.toFixed(0), missing: '–' },
    { name: 'idle CPU (% of a core)', format: value => value.toFixed(2), missing: '–' }
  ], [...phases].map(([phase, phaseRows]) => ({
    title: `${phaseRows[0].producers} producers + ${phaseRows[0].consumers} consumers: ${phase}`,
    rows: phaseRows.map(row => {
      const s = row.snapshot
      return { label: row.client, client: row.client, values: [s === undefined ? undefined : s.rssBytes / MIB, s === undefined ? undefined : s.heapUsedBytes / MIB, timers(row), s?.sockets, s?.idleCpuPercent] }
    })
  })))
}

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker(KAFKA_GROUP_DEFAULTS))
  const rows: Row[] = []
  // groupSettings() does not throw: what it could not read, it says.
  const brokerSettings = await bench.groupSettings()
  process.stderr.write(`bench: broker ${brokerSettings}\n`)
  try {
    for (const client of options.clients) {
      process.stderr.write(`bench: ${client}, ${options.producers} producers + ${options.consumers} consumers …`)
      const clientRows = await bench.run(client)
      rows.push(...clientRows)
      process.stderr.write(` ${clientRows.map(row => `${row.phase}: RSS ${mib(row.snapshot?.rssBytes)} MiB, idle CPU ${formatNumber(row.snapshot?.idleCpuPercent, 2)} %`).join('; ')}; ${clientRows[0].notes.join('; ')}\n`)
    }
  } finally {
    await bench.close()
  }
  writeResults(renderTable(rows, options, brokerSettings), rows, options.json)
  if (options.chart !== undefined) fs.writeFileSync(options.chart, renderManyClientsChart(rows))
})

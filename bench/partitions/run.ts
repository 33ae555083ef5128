/**
 * The partition-scaling benchmark, side by side: kafkats, franz-go and the Java client.
 *
 *   node dist/bench/partitions/run.js [--quick | --full | --records N] [--shapes 1,100,1000,10000,1000x10]
 *                                     [--clients kafkats,franz,java] [--json FILE] [--chart FILE.svg]
 *
 * A shape is a partition count of one topic (`1000`) or topics × partitions (`1000x10`).
 * For every (shape, client) it creates fresh topics of that shape (not timed), runs the
 * client in its own process — a producer writes N keyed records over all the partitions
 * (acks=all, idempotent, linger 5 ms), then a second client's consumer, assigned every
 * partition from the start, reads them back (bench/partitions/runner.ts) — and deletes the
 * topics. Each row: records/s and CPU µs/record of each phase, the time from client
 * creation to the first acknowledgement and to the first record, and the memory the open
 * clients hold (RSS and heap after a full collection, less the process's before any
 * client, per partition). Prints a markdown table, writes the rows as JSON and the chart.
 * The broker is KAFKA_BOOTSTRAP's, or a single node started here with BROKER_SETTINGS.
 * See bench/README.md.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { throwFirstError } from '../../index'
import { formatRate, renderPanels } from '../chart'
import {
  BenchHarness, benchBroker, defaultBenchOptions, formatNumber, parseBenchArgs, positiveInt, splitList, settingsLines, writeResults,
  type BenchBroker, type BenchOptions, type BenchRow, type ChildOutcome, type ClientName
} from '../common/harness'
import { runMain } from '../common/runner'
import type { PartitionsConfig, PartitionsResult, PhaseResult } from './runner'

const CLIENTS: ClientName[] = ['kafkats', 'franz', 'java']

/** `topics` topics of `partitions` partitions each. */
interface Shape { topics: number, partitions: number }

interface Options extends BenchOptions {
  shapes: Shape[]
  lingerMs: number
  stallSeconds: number
  chart: string | undefined
}

interface Row extends BenchRow {
  shape: string
  topics: number
  /** Per topic. */
  partitions: number
  totalPartitions: number
  produce?: PhaseResult
  consume?: PhaseResult
  /** Bytes per partition the open clients hold, over the process before any client. */
  heapPerPartition?: number
  rssPerPartition?: number
  peakRss?: number
  topicSeconds?: number
}

const QUICK_RECORDS = 20_000
const FULL_RECORDS = 200_000
/**
 * The broker settings a run needs when this harness starts the broker (give them to your
 * own with tests/broker/cli.ts's --config): a deleted topic's log files stay open for
 * log.segment.delete.delay.ms (default 60 s; file.delete.delay.ms is its per-topic name and
 * does nothing in the broker's own settings), and the next shape's 10,000 partitions on top
 * of the last one's can pass a 20,000 open-file limit. The harness also waits, after each
 * run, until a broker it started has closed the deleted files (waitForClosedFiles).
 */
export const BROKER_SETTINGS = { 'log.segment.delete.delay.ms': 1000 }
/** Partitions per CreateTopics/CreatePartitions request: a KRaft controller refuses more than 10,000 records in one. */
const PARTITIONS_PER_REQUEST = 5000

const USAGE = `usage: node dist/bench/partitions/run.js [options]
  --shapes LIST           partitions of one topic (1000) or topics x partitions (1000x10) (default 1,100,1000,10000,1000x10)
  --quick                 ${QUICK_RECORDS.toLocaleString('en-US')} records per run (the default)
  --full                  ${FULL_RECORDS.toLocaleString('en-US')} records per run
  --records N             records per run, spread over every partition
  --clients LIST          of kafkats, franz, java (default all three)
  --sizes 100             value size in bytes (default 100)
  --linger-ms N           every producer's linger (default 5)
  --stall SECONDS         a consumer gives up after this long without a record (default 60)
  --repeat N              run each case N times and show the median run by produce records/s
  --timeout SECONDS       per run (default 300 + records/1000)
  --options-CLIENT JSON   settings that replace a runner's (kafkats: producer options and {"consumer":{…}}; franz: {"maxBufferedRecords":N}; java: key=value producer properties, consumer.key=value)
  --json FILE             also write the rows as JSON
  --chart FILE            also draw the rows as an SVG
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker.`

function parseShape (text: string): Shape {
  const match = /^(?:(\d+)x)?(\d+)$/.exec(text.replace(/_/g, ''))
  if (match === null) throw new Error(`--shapes takes partition counts (1000) or topics x partitions (1000x10), not "${text}"`)
  const shape = { topics: match[1] === undefined ? 1 : Number(match[1]), partitions: Number(match[2]) }
  if (shape.topics < 1 || shape.partitions < 1) throw new Error(`--shapes: "${text}" has no partitions`)
  return shape
}

const shapeLabel = (shape: Shape): string => shape.topics === 1 ? `${shape.partitions.toLocaleString('en-US')} partitions` : `${shape.topics.toLocaleString('en-US')} topics × ${shape.partitions}`

function parseArgs (argv: string[]): Options {
  const options: Options = {
    ...defaultBenchOptions(),
    records: QUICK_RECORDS,
    sizes: [100],
    compressions: ['none'],
    clients: CLIENTS,
    shapes: ['1', '100', '1000', '10000', '1000x10'].map(parseShape),
    lingerMs: 5,
    stallSeconds: 60,
    chart: undefined
  }
  // --quick (the default) and --full are the two options without a value; --records after them wins.
  if (argv.includes('--full')) options.records = FULL_RECORDS
  parseBenchArgs(argv.filter(arg => arg !== '--full' && arg !== '--quick'), USAGE, options, (arg, value) => {
    if (arg === '--shapes') options.shapes = splitList(value).map(parseShape)
    else if (arg === '--linger-ms') options.lingerMs = Number(value)
    else if (arg === '--stall') options.stallSeconds = positiveInt(arg, value)
    else if (arg === '--chart') options.chart = value
    else return false
    return true
  })
  const unsupported = options.clients.filter(c => !CLIENTS.includes(c))
  if (unsupported.length > 0) throw new Error(`bench/partitions has runners for ${CLIENTS.join(', ')} only, not ${unsupported.join(', ')}`)
  options.timeoutSeconds ??= 300 + Math.ceil(options.records / 1000)
  return options
}

class Bench extends BenchHarness<Options> {
  constructor (options: Options, broker: BenchBroker) {
    super('partitions', options, broker)
  }

  /** Creates the shape's topics, in requests of at most PARTITIONS_PER_REQUEST partitions, and waits until the metadata has them. */
  async createTopics (prefix: string, shape: Shape): Promise<string[]> {
    const topics = Array.from({ length: shape.topics }, (_, i) => shape.topics === 1 ? prefix : `${prefix}-${i}`)
    const options = { timeoutMs: 300_000 }
    const first = Math.min(shape.partitions, PARTITIONS_PER_REQUEST)
    const perRequest = Math.max(1, Math.floor(PARTITIONS_PER_REQUEST / first))
    for (let i = 0; i < topics.length; i += perRequest) {
      throwFirstError(await this.admin.admin.createTopics(topics.slice(i, i + perRequest).map(topic => ({ topic, numPartitions: first })), options))
    }
    for (let count = first + PARTITIONS_PER_REQUEST; count - PARTITIONS_PER_REQUEST < shape.partitions; count += PARTITIONS_PER_REQUEST) {
      throwFirstError(await this.admin.admin.createPartitions(topics.map(topic => ({ topic, count: Math.min(count, shape.partitions) })), options))
    }
    for (const topic of topics) await this.admin.metadata.waitForTopic(topic, 300_000)
    return topics
  }

  async deleteTopics (topics: string[]): Promise<void> {
    for (let i = 0; i < topics.length; i += 100) await this.admin.admin.deleteTopics(topics.slice(i, i + 100), { ignoreMissing: true, timeoutMs: 300_000 }).catch(() => {})
  }

  /** Open files of the broker this harness started (undefined for KAFKA_BOOTSTRAP's). */
  brokerOpenFiles (): number | undefined {
    if (this.broker.pid === undefined) return undefined
    try {
      return fs.readdirSync(`/proc/${this.broker.pid}/fd`).length
    } catch {
      return undefined
    }
  }

  /**
   * Waits (at most 120 s) until the broker has closed the deleted topics' files. Deleting is
   * asynchronous on the broker: a shape of 10,000 partitions holds about 20,000 files, and
   * the next shape's topics created on top of them passed this machine's open-file limit
   * of 20,000 and stopped the broker.
   */
  async waitForClosedFiles (before: number | undefined): Promise<number> {
    const started = performance.now()
    if (before === undefined) return 0
    while (performance.now() - started < 120_000) {
      const now = this.brokerOpenFiles()
      if (now === undefined || now <= before + 200) break
      await new Promise(resolve => setTimeout(resolve, 500))
    }
    return (performance.now() - started) / 1000
  }

  async run (client: ClientName, shape: Shape, size: number): Promise<Row> {
    const totalPartitions = shape.topics * shape.partitions
    const row: Row = { client, shape: shapeLabel(shape), topics: shape.topics, partitions: shape.partitions, totalPartitions, size, compression: 'none', records: this.options.records, notes: [] }
    const filesBefore = this.brokerOpenFiles()
    const created = performance.now()
    const topics = await this.createTopics(`bench-partitions-${client}-${shape.topics}x${shape.partitions}-${Date.now()}`, shape)
    row.topicSeconds = (performance.now() - created) / 1000
    const config = (): PartitionsConfig => ({
      ...this.runnerConfig(row, topics[0]),
      partitions: shape.partitions,
      topics,
      lingerMs: this.options.lingerMs,
      stallSeconds: this.options.stallSeconds
    })
    try {
      await this.withBrokerCpu(row, async () => {
        const run = client === 'java' ? await this.runJava(row, config()) : await this.runNodeRunner<PartitionsResult>(row, config)
        if (run === undefined) return
        const { result } = run
        row.produce = result.produce
        row.consume = result.consume
        if (result.produce.records === this.options.records) {
          row.recordsPerSecond = result.produce.records / result.produce.seconds
          row.mbPerSecond = row.recordsPerSecond * size / (1024 * 1024)
        }
        row.cpuSeconds = result.produce.cpuSeconds + result.consume.cpuSeconds
        const m = result.memory
        row.heapPerPartition = (m.heap - m.baselineHeap) / totalPartitions
        row.rssPerPartition = (m.rss - m.baselineRss) / totalPartitions
        row.peakRss = m.peakRss
        if (result.failed > 0) row.notes.push(`${result.failed} records failed${result.firstError === undefined ? '' : ` (${result.firstError})`}`)
        row.notes.push(result.problems.length === 0 ? 'every record acknowledged and received ✓' : `CHECK FAILED: ${result.problems.join('; ')}`)
        if (run.outcome.totalCpuSeconds !== undefined) row.notes.push(`process CPU ${run.outcome.totalCpuSeconds.toFixed(2)} s`)
      })
    } finally {
      await this.deleteTopics(topics)
    }
    const waited = await this.waitForClosedFiles(filesBefore)
    row.notes.push(`topics created in ${row.topicSeconds.toFixed(1)} s (not measured)`)
    if (waited >= 1) row.notes.push(`${waited.toFixed(0)} s for the broker to close the deleted topics' files (not measured)`)
    return row
  }

  async runJava (row: Row, config: PartitionsConfig): Promise<{ result: PartitionsResult, outcome: ChildOutcome } | undefined> {
    const topicsFile = path.join(this.scratch, `topics-${Date.now()}.txt`)
    fs.writeFileSync(topicsFile, config.topics.join('\n') + '\n')
    const properties = Object.entries(this.options.clientOptions.java ?? {}).map(([k, v]) => `${k}=${String(v)}`)
    try {
      return await this.runJavaRunner<PartitionsResult>(row, path.join('partitions', 'PartitionBench.java'), 'PartitionBench', [
        config.bootstrap, topicsFile, String(config.partitions), String(config.records), String(config.valueSize), String(config.lingerMs), String(config.stallSeconds), ...properties
      ])
    } finally {
      fs.rmSync(topicsFile, { force: true })
    }
  }
}

const rate = (phase: PhaseResult | undefined): number | undefined => phase === undefined || phase.records === 0 ? undefined : phase.records / phase.seconds
const cpuPerRecord = (phase: PhaseResult | undefined): number | undefined => phase === undefined || phase.records === 0 ? undefined : phase.cpuSeconds * 1e6 / phase.records
const kib = (bytes: number | undefined): number | undefined => bytes === undefined ? undefined : bytes / 1024

function renderTable (rows: Row[], options: Options): string {
  const lines = [
    `Partition scaling: ${options.records.toLocaleString('en-US')} keyed records (key-0 … key-${options.records - 1}, ${options.sizes.join('/')} B values) per run over every partition of fresh topics, acks=all, idempotent, linger ${options.lingerMs} ms; consumed back by a second client assigned every partition from the start (no group).`,
    '',
    '| shape | client | produce records/s | produce CPU µs/record | first ack s | consume records/s | consume CPU µs/record | first record s | heap KiB/partition | RSS KiB/partition | peak RSS MiB | notes |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |'
  ]
  for (const row of rows) {
    lines.push(`| ${[
      row.shape, row.client,
      formatNumber(rate(row.produce), 0), formatNumber(cpuPerRecord(row.produce), 2), formatNumber(row.produce?.firstRecordSeconds ?? undefined, 2),
      formatNumber(rate(row.consume), 0), formatNumber(cpuPerRecord(row.consume), 2), formatNumber(row.consume?.firstRecordSeconds ?? undefined, 2),
      formatNumber(kib(row.heapPerPartition), 2), formatNumber(kib(row.rssPerPartition), 2), formatNumber(row.peakRss === undefined ? undefined : row.peakRss / (1024 * 1024), 0),
      row.notes.join('; ')
    ].join(' | ')} |`)
  }
  lines.push(...settingsLines(rows))
  lines.push('', 'Each phase counts from its client\'s creation (metadata for every partition included) to its last record acknowledged / received; first ack / first record: from the creation to the first. CPU µs/record: the process\'s user+system CPU over the phase per record (Java: the JVM\'s process CPU, measured inside it, so JVM start is not counted). heap and RSS per partition: with both clients open after the run, after a full collection (Node: heapUsed + arrayBuffers, so Buffers count as Go\'s and Java\'s byte arrays do; Go: HeapAlloc; Java: total − free after System.gc()), less the same before any client existed, over the partitions; peak RSS is the process\'s VmHWM.')
  return lines.join('\n')
}

/** One panel per shape: produce and consume records/s and CPU µs/record, heap per partition, first record. */
function renderPartitionsChart (rows: Row[], options: Options): string {
  const panels = options.shapes.map(shape => ({
    title: shapeLabel(shape),
    rows: rows.filter(r => r.shape === shapeLabel(shape)).map(r => ({
      label: r.client,
      client: r.client,
      values: [rate(r.produce), cpuPerRecord(r.produce), rate(r.consume), cpuPerRecord(r.consume), kib(r.heapPerPartition), r.consume?.firstRecordSeconds ?? undefined]
    }))
  }))
  const micro = (v: number): string => `${v.toFixed(2)} µs`
  return renderPanels(
    `Partition scaling: ${options.records.toLocaleString('en-US')} keyed records of ${options.sizes.join('/')} B per run, acks=all, idempotent, linger ${options.lingerMs} ms`,
    'records/s: higher is better · CPU µs/record, heap KiB per partition (open clients, after GC, over the baseline) and time to first record: lower is better',
    [
      { name: 'produce records/s', format: formatRate, missing: 'failed' },
      { name: 'produce CPU µs/record', format: micro, opacity: 0.75 },
      { name: 'consume records/s', format: formatRate, missing: 'failed' },
      { name: 'consume CPU µs/record', format: micro, opacity: 0.75 },
      { name: 'heap KiB/partition', format: v => `${v.toFixed(2)} KiB` },
      { name: 'first record s', format: v => `${v.toFixed(2)} s`, opacity: 0.75 }
    ],
    panels
  )
}

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker(BROKER_SETTINGS))
  const rows: Row[] = []
  await bench.forEachCase(async size => {
    for (const shape of options.shapes) {
      rows.push(...await bench.measure(options.clients, size, shapeLabel(shape), async client => await bench.run(client, shape, size)))
    }
  })
  writeResults(renderTable(rows, options), rows, options.json)
  if (options.chart !== undefined) fs.writeFileSync(options.chart, renderPartitionsChart(rows, options))
})

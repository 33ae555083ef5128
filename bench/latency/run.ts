/**
 * The steady-rate latency benchmark, side by side: kafkats, franz-go and the Java client.
 *
 *   node dist/bench/latency/run.js [--rates 1000,10000,100000] [--duration 10] [--warmup 2] [--linger-ms 5]
 *                                  [--clients kafkats,franz,java] [--json FILE] [--chart FILE.svg]
 *
 * For every (rate, client) it creates a fresh topic (6 partitions) and runs the client in
 * its own process: a consumer assigned every partition from the start, then a producer in
 * the same process (acks=all, idempotent, the same linger for every client) that sends
 * 1 KiB keyed records on a schedule — record i is due at start + i / rate — each stamped
 * with its due time. The end-to-end latency (consumer hand-out − due time) and the produce
 * acknowledgement latency (callback − due time) both count from the due time, so a
 * sender that falls behind its schedule is charged for it (no coordinated omission). The
 * runner writes every measured record's latencies to two files; this process reads them,
 * takes the percentiles, prints a markdown table and writes the rows as JSON and the chart.
 * The broker is KAFKA_BOOTSTRAP's, or a single node started here. See bench/README.md.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { throwFirstError } from '../../index'
import { renderPanels } from '../chart'
import {
  BenchHarness, benchBroker, defaultBenchOptions, formatNumber, parseBenchArgs, positiveInt, renderTable as renderBenchTable, splitList, writeResults,
  type BenchBroker, type BenchOptions, type BenchRow, type ClientName
} from '../common/harness'
import { runMain } from '../common/runner'
import type { LatencyConfig, LatencyResult } from './runner'

const CLIENTS: ClientName[] = ['kafkats', 'franz', 'java']

interface Options extends BenchOptions {
  rates: number[]
  durationSeconds: number
  warmupSeconds: number
  lingerMs: number
  drainSeconds: number
  chart: string | undefined
}

/** Percentiles of one latency, in ms. */
interface Percentiles { p50?: number, p99?: number, p999?: number, max?: number, count: number }

interface Row extends BenchRow {
  rate: number
  e2e: Percentiles
  ack: Percentiles
  maxSendLagMs?: number
}

const USAGE = `usage: node dist/bench/latency/run.js [options]
  --rates 1000,10000,100000   records per second, each a case (default the three)
  --duration SECONDS          the measured part of each run (default 10)
  --warmup SECONDS            scheduled and sent before it, not counted (default 2)
  --linger-ms N               every client's linger (default 5)
  --drain SECONDS             how long to wait for the last records after the schedule (default 30)
  --clients LIST              of kafkats, franz, java (default all three)
  --partitions N              of each run's topic (default 6)
  --sizes 1024                value size in bytes (default 1024; at least 12)
  --repeat N                  run each case N times and show the median run
  --timeout SECONDS           per run (default warm-up + duration + drain + 120)
  --options-CLIENT JSON       settings that replace a runner's (kafkats: producer options; java: key=value producer properties, consumer.key=value)
  --json FILE                 also write the rows as JSON
  --chart FILE                also draw the percentiles as an SVG
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker.`

function parseArgs (argv: string[]): Options {
  const options: Options = {
    ...defaultBenchOptions(),
    sizes: [1024],
    compressions: ['none'],
    clients: CLIENTS,
    rates: [1000, 10_000, 100_000],
    durationSeconds: 10,
    warmupSeconds: 2,
    lingerMs: 5,
    drainSeconds: 30,
    chart: undefined
  }
  parseBenchArgs(argv, USAGE, options, (arg, value) => {
    if (arg === '--rates') options.rates = splitList(value).map(s => positiveInt(arg, s))
    else if (arg === '--duration') options.durationSeconds = positiveInt(arg, value)
    else if (arg === '--warmup') options.warmupSeconds = Number(value)
    else if (arg === '--linger-ms') options.lingerMs = Number(value)
    else if (arg === '--drain') options.drainSeconds = positiveInt(arg, value)
    else if (arg === '--chart') options.chart = value
    else return false
    return true
  })
  const unsupported = options.clients.filter(c => !CLIENTS.includes(c))
  if (unsupported.length > 0) throw new Error(`bench/latency has runners for ${CLIENTS.join(', ')} only, not ${unsupported.join(', ')}`)
  if (options.sizes.some(size => size < 12)) throw new Error('bench/latency needs values of at least 12 bytes (the stamp and the sequence number)')
  if (!Number.isFinite(options.warmupSeconds) || options.warmupSeconds < 0) throw new Error('--warmup takes seconds ≥ 0')
  if (!Number.isFinite(options.lingerMs) || options.lingerMs < 0) throw new Error('--linger-ms takes milliseconds ≥ 0')
  options.timeoutSeconds ??= Math.ceil(options.warmupSeconds + options.durationSeconds + options.drainSeconds + 120)
  return options
}

function readLatencies (file: string): Float32Array {
  if (!fs.existsSync(file)) return new Float32Array(0)
  const bytes = fs.readFileSync(file)
  const copy = new Float32Array(bytes.length / 4)
  new Uint8Array(copy.buffer).set(bytes)
  fs.rmSync(file, { force: true })
  return copy.sort()
}

/** Nearest-rank percentiles of a latency file's values. */
function percentiles (file: string): Percentiles {
  const sorted = readLatencies(file)
  const at = (q: number): number | undefined => sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999), max: sorted.length === 0 ? undefined : sorted[sorted.length - 1], count: sorted.length }
}

class Bench extends BenchHarness<Options> {
  constructor (options: Options, broker: BenchBroker) {
    super('latency', options, broker)
  }

  async run (client: ClientName, rate: number, size: number): Promise<Row> {
    const records = Math.round(this.options.durationSeconds * rate)
    const row: Row = { client, rate, size, compression: 'none', records, e2e: { count: 0 }, ack: { count: 0 }, notes: [] }
    const topic = `bench-latency-${client}-${rate}-${Date.now()}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: this.options.partitions }]))
    await this.admin.metadata.waitForTopic(topic, 30_000)
    const e2eFile = path.join(this.scratch, `e2e-${client}.f32`)
    const ackFile = path.join(this.scratch, `ack-${client}.f32`)
    const config = (): LatencyConfig => ({
      ...this.runnerConfig(row, topic),
      records,
      rate,
      durationSeconds: this.options.durationSeconds,
      warmupSeconds: this.options.warmupSeconds,
      lingerMs: this.options.lingerMs,
      drainSeconds: this.options.drainSeconds,
      e2eFile,
      ackFile
    })
    try {
      await this.withBrokerCpu(row, async () => {
        const run = client === 'java' ? await this.runJava(row, config()) : await this.runNodeRunner<LatencyResult>(row, config)
        if (run === undefined) return
        const { result } = run
        row.e2e = percentiles(e2eFile)
        row.ack = percentiles(ackFile)
        row.maxSendLagMs = result.maxSendLagMs
        row.cpuSeconds = result.cpuSeconds
        row.recordsPerSecond = result.received / result.wallSeconds
        row.mbPerSecond = row.recordsPerSecond * size / (1024 * 1024)
        const problems: string[] = []
        if (result.received < result.scheduled) problems.push(`${result.scheduled - result.received} of ${result.scheduled} records NOT RECEIVED within the ${this.options.drainSeconds} s drain`)
        if (result.acknowledged < result.scheduled) problems.push(`${result.scheduled - result.acknowledged} records not acknowledged`)
        if (result.duplicates > 0) problems.push(`${result.duplicates} duplicates`)
        if (result.failed > 0) problems.push(`${result.failed} failed${result.firstError === undefined ? '' : ` (${result.firstError})`}`)
        row.notes.push(problems.length === 0 ? 'every record acknowledged and received once ✓' : `CHECK FAILED: ${problems.join('; ')}`)
        row.notes.push(`sender at most ${result.maxSendLagMs.toFixed(1)} ms behind schedule`)
      })
    } finally {
      await this.deleteTopic(topic)
    }
    return row
  }

  async runJava (row: Row, config: LatencyConfig): Promise<{ result: LatencyResult } | undefined> {
    const properties = Object.entries(this.options.clientOptions.java ?? {}).map(([k, v]) => `${k}=${String(v)}`)
    return await this.runJavaRunner<LatencyResult>(row, path.join('latency', 'LatencyBench.java'), 'LatencyBench', [
      config.bootstrap, config.topic, String(config.partitions), String(config.valueSize), String(config.rate), String(config.durationSeconds),
      String(config.warmupSeconds), String(config.lingerMs), String(config.drainSeconds), config.e2eFile, config.ackFile, ...properties
    ])
  }
}

const ms = (value: number | undefined): string => formatNumber(value, value !== undefined && value < 10 ? 2 : 1)

function renderTable (rows: Row[], options: Options): string {
  return renderBenchTable(
    `Latency at a steady rate: ${options.durationSeconds} s measured per run after a ${options.warmupSeconds} s warm-up, ${options.partitions} partitions, keyed records (key-0 … key-1023), acks=all, idempotent, linger ${options.lingerMs} ms for every client; producer and consumer in one process.`,
    ['rate/s', 'e2e p50 ms', 'e2e p99', 'e2e p99.9', 'e2e max', 'ack p50 ms', 'ack p99', 'ack p99.9', 'ack max'], rows,
    row => [row.rate.toLocaleString('en-US'), ms(row.e2e.p50), ms(row.e2e.p99), ms(row.e2e.p999), ms(row.e2e.max), ms(row.ack.p50), ms(row.ack.p99), ms(row.ack.p999), ms(row.ack.max)],
    ['Latencies count from each record\'s due time on the schedule (record i at start + i / rate), not from when the sender got to it, so a sender that falls behind is charged for the wait (no coordinated omission). e2e: until the consumer in the same process handed the record out; ack: until the producer\'s callback. records/s is the measured records received over the time from the first due time to the last arrival (≈ the rate when the client keeps up). CPU s is the client process\'s user+system CPU from client creation to close, warm-up and drain included (Java: the JVM\'s process CPU over the same span).']
  )
}

/** One panel per (latency, rate), a bar per client for p50, p99, p99.9 and max, each column on one scale. */
function renderLatencyChart (rows: Row[], options: Options): string {
  const panels = options.rates.flatMap(rate => (['e2e', 'ack'] as const).map(kind => ({
    title: `${kind === 'e2e' ? 'end-to-end (produce → consume)' : 'produce acknowledgement'}, ${rate.toLocaleString('en-US')} records/s`,
    rows: rows.filter(r => r.rate === rate).map(r => ({ label: r.client, client: r.client, values: [r[kind].p50, r[kind].p99, r[kind].p999, r[kind].max] }))
  })))
  const format = (v: number): string => `${ms(v)} ms`
  return renderPanels(
    `Latency at a steady rate: ${options.partitions} partitions, 1 KiB keyed records, acks=all, idempotent, linger ${options.lingerMs} ms`,
    `ms from each record's due time (no coordinated omission), ${options.durationSeconds} s per run: lower is better`,
    [{ name: 'p50', format, missing: 'failed' }, { name: 'p99', format }, { name: 'p99.9', format }, { name: 'max', format, opacity: 0.75 }],
    panels
  )
}

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker())
  const rows: Row[] = []
  await bench.forEachCase(async size => {
    for (const rate of options.rates) {
      rows.push(...await bench.measure(options.clients, size, `${rate.toLocaleString('en-US')} records/s`, async client => await bench.run(client, rate, size)))
    }
  })
  writeResults(renderTable(rows, options), rows, options.json)
  if (options.chart !== undefined) fs.writeFileSync(options.chart, renderLatencyChart(rows, options))
})

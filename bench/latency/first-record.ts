/**
 * First-record latency after a group join, and close time, side by side in one run:
 * kafkats's native group consumer and its kafkajs drop-in (this build, and optionally
 * another build given with --before, e.g. main's), and npm kafkajs 2.2.4.
 *
 *   npx tsc -p . && KAFKA_BOOTSTRAP=127.0.0.1:19092 node dist/bench/latency/first-record.js [--runs 10] [--before OTHER/dist] [--clients kafkats,kafkats-kafkajs,kafkajs]
 *
 * Each run, for each client in turn (so load changes touch every client alike):
 * 1. a fresh topic of 3 partitions holding one record, in partition 2 (a first Fetch that
 *    carries partition 0 alone finds nothing and long-polls);
 * 2. a fresh group: the consumer subscribes from the beginning; the latency is from the
 *    client's own "joined" event (kafkajs GROUP_JOIN, native 'assigned') to the record's
 *    handler call;
 * 3. 300 ms later (the consumer idles in a long poll on the empty partitions), the time
 *    its close takes: kafkajs `disconnect()`, native `consumer.close()` then `client.close()`.
 * Every client runs with its defaults (maxWaitTime 5000 ms for kafkajs and the drop-in,
 * maxWaitMs 500 ms native), unless --max-wait-ms sets them all.
 */
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Client } from '../../index'
import { benchBroker } from '../common/harness'

type KafkatsModule = typeof import('../../index')
type DropInModule = typeof import('../../kafkajs/index')

interface Sample { firstMs: number | undefined, closeMs: number }

interface Variant {
  name: string
  /** One run: joins, waits for the record, closes. */
  run: (bootstrap: string, topic: string, groupId: string) => Promise<Sample>
}

const FIRST_RECORD_BOUND_MS = 30_000
const IDLE_BEFORE_CLOSE_MS = 300

function arg (name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}

const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

/** Resolves with the time from `joined` to `first`, or undefined when no record came within the bound. */
async function firstRecordAfterJoin (joined: Promise<number>, first: Promise<number>): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<undefined>(resolve => { timer = setTimeout(() => resolve(undefined), FIRST_RECORD_BOUND_MS) })
  try {
    const at = await Promise.race([first, bound])
    return at === undefined ? undefined : at - await joined
  } finally {
    clearTimeout(timer)
  }
}

function deferred (): { promise: Promise<number>, resolve: () => void } {
  let resolve!: (at: number) => void
  const promise = new Promise<number>(r => { resolve = r })
  return { promise, resolve: () => resolve(performance.now()) }
}

function nativeVariant (name: string, kafkats: KafkatsModule, maxWaitMs: number | undefined): Variant {
  return {
    name,
    run: async (bootstrap, topic, groupId) => {
      const client = new kafkats.Client({ bootstrap, clientId: 'latency-bench' })
      const consumer = client.consumer({ groupId, topics: [topic], fromBeginning: true, ...(maxWaitMs !== undefined ? { maxWaitMs } : {}) })
      const joined = deferred()
      const first = deferred()
      consumer.once('assigned', joined.resolve)
      const running = consumer.run({ eachBatch: batch => { if (batch.records.length > 0) first.resolve() } })
      const firstMs = await firstRecordAfterJoin(joined.promise, first.promise)
      await sleep(IDLE_BEFORE_CLOSE_MS)
      const start = performance.now()
      await consumer.close()
      await client.close()
      const closeMs = performance.now() - start
      await running.catch(() => {})
      return { firstMs, closeMs }
    }
  }
}

function kafkajsVariant (name: string, kafkajs: DropInModule, maxWaitMs: number | undefined): Variant {
  return {
    name,
    run: async (bootstrap, topic, groupId) => {
      const kafka = new kafkajs.Kafka({ clientId: 'latency-bench', brokers: bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
      const consumer = kafka.consumer({ groupId, ...(maxWaitMs !== undefined ? { maxWaitTimeInMs: maxWaitMs } : {}) })
      const joined = deferred()
      const first = deferred()
      consumer.on(consumer.events.GROUP_JOIN, joined.resolve)
      await consumer.connect()
      await consumer.subscribe({ topics: [topic], fromBeginning: true })
      await consumer.run({ eachMessage: async () => { first.resolve() } })
      const firstMs = await firstRecordAfterJoin(joined.promise, first.promise)
      await sleep(IDLE_BEFORE_CLOSE_MS)
      const start = performance.now()
      await consumer.disconnect()
      return { firstMs, closeMs: performance.now() - start }
    }
  }
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const ms = (value: number): string => value >= 100 ? value.toFixed(0) : value.toFixed(1)

async function main (): Promise<void> {
  const runs = Number(arg('runs') ?? 10)
  const before = arg('before')
  const maxWaitArg = arg('max-wait-ms')
  const maxWaitMs = maxWaitArg === undefined ? undefined : Number(maxWaitArg)
  const wanted = new Set((arg('clients') ?? 'kafkats,kafkats-kafkajs,kafkajs').split(','))
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = <T>(id: string): T => require(id) as T
  const variants: Variant[] = []
  if (wanted.has('kafkats')) {
    variants.push(nativeVariant('kafkats (this build)', load<KafkatsModule>('../../index'), maxWaitMs))
    if (before !== undefined) variants.push(nativeVariant('kafkats (--before)', load<KafkatsModule>(path.resolve(before, 'index.js')), maxWaitMs))
  }
  if (wanted.has('kafkats-kafkajs')) {
    variants.push(kafkajsVariant('kafkats/kafkajs (this build)', load<DropInModule>('../../kafkajs/index'), maxWaitMs))
    if (before !== undefined) variants.push(kafkajsVariant('kafkats/kafkajs (--before)', load<DropInModule>(path.resolve(before, 'kafkajs/index.js')), maxWaitMs))
  }
  if (wanted.has('kafkajs')) variants.push(kafkajsVariant('kafkajs 2.2.4', load<DropInModule>('kafkajs'), maxWaitMs))

  const broker = await benchBroker()
  const admin = new Client({ bootstrap: broker.bootstrap, clientId: 'latency-bench-admin' })
  const samples = new Map<string, Sample[]>(variants.map(v => [v.name, []]))
  try {
    for (let round = 0; round < runs; round++) {
      for (const variant of variants) {
        const topic = `latency-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
        await admin.admin.createTopics([{ topic, numPartitions: 3 }])
        const producer = admin.producer()
        await producer.send({ topic, partition: 2, value: 'first' })
        await producer.close()
        const sample = await variant.run(broker.bootstrap, topic, `${topic}-group`)
        samples.get(variant.name)!.push(sample)
        process.stderr.write(`round ${round + 1}/${runs} ${variant.name}: first record ${sample.firstMs === undefined ? 'none' : ms(sample.firstMs)} ms, close ${ms(sample.closeMs)} ms\n`)
        await admin.admin.deleteTopics([topic]).catch(() => {})
      }
    }
  } finally {
    await admin.close()
    await broker.stop()
  }

  const reference = samples.get('kafkajs 2.2.4')
  const refFirst = reference === undefined ? undefined : median(reference.flatMap(s => s.firstMs ?? []))
  const refClose = reference === undefined ? undefined : median(reference.map(s => s.closeMs))
  const ratio = (value: number, ref: number | undefined): string => ref === undefined || ref === 0 ? '' : `${(value / ref).toFixed(1)}×`
  console.log(`First record after a group join (3 partitions, the record in partition 2) and close time, ${runs} runs each, ${maxWaitMs === undefined ? 'each client\'s default max wait' : `max wait ${maxWaitMs} ms`}\n`)
  console.log('| client | first record: median ms | max ms | / kafkajs | close: median ms | max ms | / kafkajs | no record |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const [name, list] of samples) {
    const firsts = list.flatMap(s => s.firstMs ?? [])
    const closes = list.map(s => s.closeMs)
    const firstMedian = firsts.length > 0 ? median(firsts) : NaN
    const closeMedian = median(closes)
    console.log(`| ${name} | ${ms(firstMedian)} | ${firsts.length > 0 ? ms(Math.max(...firsts)) : '–'} | ${ratio(firstMedian, refFirst)} | ${ms(closeMedian)} | ${ms(Math.max(...closes))} | ${ratio(closeMedian, refClose)} | ${list.length - firsts.length} |`)
  }
}

main().catch(error => {
  console.error(error)
  process.exitCode = 1
})

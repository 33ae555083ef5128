/**
 * kafkats's runner of the partition-scaling benchmark (runner.ts says what a run does):
 * a Client whose producer writes the keyed records (produce(record, callback), waiting
 * for waitForSpace() when the buffer is full), then a second Client whose consumer is
 * assigned every partition from 'earliest' and reads them back, for await over batches.
 * The heap (V8's, plus the ArrayBuffers outside it) is read after a full collection
 * (gc exposed at run time through the V8 flag).
 */
import { setImmediate as yieldToIo } from 'node:timers/promises'
import * as v8 from 'node:v8'
import * as vm from 'node:vm'
import { Client } from '../../index'
import { cpuSecondsSince, letters, procStatusBytes, readConfig, reportResult, runMain, runtime, type MemoryResult, type PartitionsResult } from './runner'

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void

function heapAfterGc (): { heap: number, rss: number } {
  gc()
  gc()
  // Buffers live outside V8's heap; counted in, as Go's and Java's byte slices are in theirs.
  const usage = process.memoryUsage()
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: procStatusBytes('VmRSS') }
}

runMain(async () => {
  const config = readConfig()
  const value = letters(config.valueSize)
  const keys = Array.from({ length: config.records }, (_, i) => Buffer.from(`key-${i}`))
  const baseline = heapAfterGc()
  const problems: string[] = []

  // Produce.
  let cpuStart = process.cpuUsage()
  let started = performance.now()
  // --options-kafkats: producer options, and `consumer` for the consumer's.
  const { consumer: consumerOptions, ...producerOptions } = config.options as { consumer?: Record<string, unknown> }
  const settings = { acks: 'all' as const, idempotent: true, lingerMs: config.lingerMs, ...producerOptions }
  const producerClient = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats-partitions-producer' })
  const producer = producerClient.producer(settings)
  let acknowledged = 0
  let failed = 0
  let firstError: string | undefined
  let firstAck: number | undefined
  let lastAck = 0
  let allAcked!: () => void
  const acked = new Promise<void>(resolve => { allAcked = resolve })
  const onSettled = (error: unknown): void => {
    if (error === null || error === undefined) {
      acknowledged++
      lastAck = performance.now()
      firstAck ??= lastAck
    } else {
      failed++
      firstError ??= (error as Error).message ?? String(error)
    }
    if (acknowledged + failed === config.records) allAcked()
  }
  const topics = config.topics
  for (let i = 0; i < config.records;) {
    const end = Math.min(config.records, i + 1000)
    for (; i < end; i++) {
      if (producer.full) await producer.waitForSpace()
      producer.produce({ topic: topics[i % topics.length], key: keys[i], value }, onSettled)
    }
    await yieldToIo()
  }
  await producer.flush()
  await acked
  const produce = { records: acknowledged, seconds: (lastAck - started) / 1000, firstRecordSeconds: firstAck === undefined ? null : (firstAck - started) / 1000, cpuSeconds: cpuSecondsSince(cpuStart) }

  // Consume.
  cpuStart = process.cpuUsage()
  started = performance.now()
  const consumerClient = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats-partitions-consumer' })
  const assign = topics.flatMap(topic => Array.from({ length: config.partitions }, (_, partition) => ({ topic, partition, offset: 'earliest' as const })))
  const consumer = consumerClient.consumer({ assign, ...consumerOptions })
  let received = 0
  let firstRecord: number | undefined
  let lastRecord = 0
  let lastProgress = performance.now()
  const stallTimer = setInterval(() => {
    if (performance.now() - lastProgress < config.stallSeconds * 1000) return
    problems.push(`stalled: nothing new for ${config.stallSeconds} s after ${received} records`)
    clearInterval(stallTimer)
    void consumer.close()
  }, 500)
  for await (const batch of consumer) {
    if (batch.records.length === 0) continue
    lastRecord = lastProgress = performance.now()
    firstRecord ??= lastRecord
    received += batch.records.length
    if (received >= config.records) break
  }
  clearInterval(stallTimer)
  const consume = { records: received, seconds: ((received >= config.records ? lastRecord : performance.now()) - started) / 1000, firstRecordSeconds: firstRecord === undefined ? null : (firstRecord - started) / 1000, cpuSeconds: cpuSecondsSince(cpuStart) }
  if (received !== config.records) problems.push(`${received} records received, not ${config.records}`)
  if (acknowledged !== config.records) problems.push(`${acknowledged} records acknowledged, not ${config.records}`)

  const after = heapAfterGc()
  const memory: MemoryResult = { baselineRss: baseline.rss, baselineHeap: baseline.heap, rss: after.rss, heap: after.heap, peakRss: procStatusBytes('VmHWM') }
  await consumer.close()
  await producer.close()
  await consumerClient.close()
  await producerClient.close()

  const shown = Object.entries(settings).map(([key, v]) => `${key}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ')
  const result: PartitionsResult = {
    produce,
    consume,
    memory,
    failed,
    firstError,
    problems,
    settings: `producer.produce(record, callback), waitForSpace() when full (${shown}; other settings: the producer's defaults); a second Client's consumer({ assign: every partition from 'earliest' }), for await over batches (${consumerOptions === undefined ? 'the consumer\'s defaults' : JSON.stringify(consumerOptions)})`,
    runtime: runtime()
  }
  reportResult(result)
})

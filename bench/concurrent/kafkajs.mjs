// kafkajs 2.2.4 runner of the concurrent-processing benchmark: a group consumer,
// subscribe({ fromBeginning: true }) and run({ eachMessage, partitionsConsumedConcurrently })
// — kafkajs's way to handle several partitions at once (one message at a time per
// partition). The handler awaits config.handlerMs per message, as the kafkats runner's.
import { require, runMain } from '../common/runner.mjs'

runMain(async () => {
  const config = JSON.parse(process.argv[2])
  const { OrderTally, cpuSecondsSince, report } = require(config.runnerModule)
  const { Kafka, logLevel } = require('kafkajs')
  const concurrently = config.mode.partitionsConsumedConcurrently ?? config.partitions
  const settings = `kafkajs ${require('kafkajs/package.json').version}: consumer({ groupId }), subscribe({ fromBeginning: true }), run({ eachMessage, partitionsConsumedConcurrently: ${concurrently} }) with auto-commit`
  const cpuStart = process.cpuUsage()
  const tally = new OrderTally(config)
  const kafka = new Kafka({ clientId: 'bench-concurrent-kafkajs', brokers: config.bootstrap.split(','), logLevel: logLevel.ERROR })
  const consumer = kafka.consumer({ groupId: config.groupId, allowAutoTopicCreation: false })
  await consumer.connect()
  await consumer.subscribe({ topics: [config.topic], fromBeginning: true })
  await consumer.run({
    partitionsConsumedConcurrently: concurrently,
    eachMessage: async ({ partition, message }) => {
      const end = tally.start(partition, message.key?.toString() ?? '', BigInt(message.offset))
      await new Promise(resolve => setTimeout(resolve, config.handlerMs))
      end()
    }
  })
  await tally.done
  const cpuSeconds = cpuSecondsSince(cpuStart)
  await consumer.disconnect()
  report(tally.result(settings, cpuSeconds))
})

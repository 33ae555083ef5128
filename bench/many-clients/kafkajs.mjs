// kafkajs 2.2.4 runner of the many-clients benchmark (and, unchanged, kafkats/kafkajs's:
// config.kafkajsModule): every producer and every consumer is a Kafka instance of its own —
// producer() with its defaults and send({ topic, messages }), consumer({ groupId }) with
// subscribe({ fromBeginning: true }) and run({ eachBatch }), each consumer alone in its own
// group (see runner.ts for the timeline).
import { require, runMain, setup } from '../common/runner.mjs'

runMain(async () => {
  const { config, runManyClients } = setup()
  const { Kafka, logLevel } = require(config.kafkajsModule)
  const shown = Object.entries(config.options).map(([key, value]) => `, ${key}: ${JSON.stringify(value)}`).join('')
  const settings = `a Kafka instance per producer and per consumer; producer() (its defaults: not idempotent, acks=all), send({ topic, messages }); consumer({ groupId (one group per consumer)${shown} }), subscribe({ fromBeginning: true }), run({ eachBatch }) (other settings: the defaults: classic protocol, autoCommit)`
  const value = Buffer.alloc(config.valueSize, 'x')
  const kafka = (clientId) => new Kafka({ clientId, brokers: config.bootstrap.split(','), logLevel: logLevel.NOTHING })
  await runManyClients(config, settings, {
    producer: index => {
      const producer = kafka(`bench-many-producer-${index}`).producer({ allowAutoTopicCreation: false })
      let connected
      return {
        send: async count => {
          await (connected ??= producer.connect())
          await producer.send({ topic: config.topic, messages: Array.from({ length: count }, () => ({ value })) })
        },
        close: async () => { await producer.disconnect() }
      }
    },
    consumer: (index, received) => {
      const consumer = kafka(`bench-many-consumer-${index}`).consumer({ groupId: `${config.groupId}-${index}`, allowAutoTopicCreation: false, ...config.options })
      return {
        start: async () => {
          await consumer.connect()
          await consumer.subscribe({ topics: [config.topic], fromBeginning: true })
          await consumer.run({ eachBatch: async ({ batch }) => { received(batch.messages.length) } })
        },
        close: async () => { await consumer.disconnect() }
      }
    }
  })
})

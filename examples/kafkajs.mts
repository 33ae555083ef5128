// kafkats/kafkajs: kafkajs 2.2.4's API on kafkats's engine. Change the import, keep the code.
//
//   node dist/examples/kafkajs.mjs
import { Kafka } from 'kafkats/kafkajs'   // was: from 'kafkajs'

const topic = process.env.TOPIC ?? 'kafkajs-style'
// #region kafkajs
const kafka = new Kafka({ clientId: 'my-app', brokers: [process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092'] })
const producer = kafka.producer()
await producer.connect()
await producer.send({ topic, messages: [{ key: 'k', value: 'hello from kafkajs code' }] })
await producer.disconnect()

const consumer = kafka.consumer({ groupId: `${topic}-group` })
await consumer.connect()
await consumer.subscribe({ topic, fromBeginning: true })
await new Promise<void>(resolve => {
  void consumer.run({
    eachMessage: async ({ partition, message }) => {
      console.log(`partition ${partition} offset ${message.offset}: ${message.value?.toString()}`)
      resolve()
    }
  })
})
await consumer.disconnect()
// #endregion kafkajs

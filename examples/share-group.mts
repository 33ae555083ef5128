// A share group (KIP-932, Kafka 4.2+): a queue. Members read the same partitions side by side;
// each record is locked for one member and acknowledged one by one: accepted when the handler
// returns, released for another delivery when it throws.
//
//   node dist/examples/share-group.mjs
import { Client, throwFirstError } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'share-example' })
const topic = process.env.TOPIC ?? 'jobs'
const groupId = `${topic}-workers`
await client.admin.createTopics([{ topic, numPartitions: 2 }], { ignoreExisting: true })

// A new share group starts at the end of the log; this one reads what is already there.
throwFirstError(await client.admin.alterConfigs([{ type: 'group', name: groupId, set: { 'share.auto.offset.reset': 'earliest' } }]))

const producer = client.producer()
await producer.send(Array.from({ length: 10 }, (_, i) => ({ topic, value: `job ${i}` })))
await producer.close()

// #region run
const queue = client.shareConsumer({ groupId, topics: [topic] })   // acknowledgement: 'implicit'
const stop = new AbortController()
process.once('SIGTERM', () => stop.abort())
let done = 0
let failedOnce = false
await queue.run({
  concurrency: 4,
  signal: stop.signal,
  eachRecord: async record => {
    if (record.value?.toString() === 'job 3' && !failedOnce) {
      failedOnce = true
      throw new Error('job 3 failed')   // released: delivered again, its deliveryCount raised
    }
    console.log(`${record.value?.toString()} (delivery ${record.deliveryCount})`)
    if (++done === 10) stop.abort()
  }
})
await queue.close()   // releases what is acquired and not acknowledged, leaves the group
// #endregion run

await client.close()

// Getting started: make a topic, write three records, read them back as a consumer group,
// and stop. Run it with a broker at localhost:9092 (or KAFKA_BOOTSTRAP=host:port):
//
//   node dist/examples/getting-started.mjs
import { Client } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'getting-started' })
const topic = process.env.TOPIC ?? 'greetings'

// Fail fast when no broker answers, rather than at the first send.
await client.connect({ timeoutMs: 10_000 })
await client.admin.createTopics([{ topic, numPartitions: 3 }], { ignoreExisting: true })

// #region produce
// Produce: idempotent, acks=all by default. send() resolves once the broker has the records.
const producer = client.producer()
const written = await producer.send([
  { topic, key: 'alice', value: 'hello' },
  { topic, key: 'bob', value: 'hi' },
  { topic, key: 'alice', value: 'bye' }
])
for (const { partition, offset } of written) console.log(`wrote partition ${partition} offset ${offset}`)
// #endregion produce

// #region consume
// Consume as a member of a group, from the beginning of the topic.
const consumer = client.consumer({ groupId: `${topic}-readers`, topics: [topic], fromBeginning: true })
const reading = new AbortController()
let read = 0
for await (const batch of consumer.batches({ signal: reading.signal })) {
  for (const record of batch.records) {
    console.log(`read partition ${batch.partition} offset ${record.offset}: ${record.key?.toString()} = ${record.value?.toString()}`)
    read++
  }
  if (read >= written.length) reading.abort()   // ends the loop after this batch, which counts as processed
}

await consumer.close()   // commits what was processed and leaves the group
// #endregion consume
await producer.close()
await client.close()

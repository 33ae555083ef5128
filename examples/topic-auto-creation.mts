// A send to a topic that does not exist. kafkats does not create topics behind your back:
// the send waits up to the producer's metadataWaitMs for the topic to appear, then fails with
// UnknownTopicError. allowAutoTopicCreation: true asks the broker to create it (the broker must
// have auto.create.topics.enable=true, its default), with the broker's default partitions.
//
//   node dist/examples/topic-auto-creation.mjs
import { Client, UnknownTopicError } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'auto-creation-example' })
const missing = process.env.TOPIC ?? 'a-topic-nobody-made'

// #region strict
// The default: no auto-creation. Wait 2 s (default 60 s) for the topic, then fail.
const strict = client.producer({ metadataWaitMs: 2_000 })
try {
  await strict.send({ topic: missing, value: 'x' })
} catch (error) {
  if (!(error instanceof UnknownTopicError)) throw error
  console.log(`not created: ${error.topic} (retriable: ${error.retriable})`)
}
// #endregion strict

// #region create
// Opt in: the broker creates the topic on the first send's metadata request.
const creating = client.producer({ allowAutoTopicCreation: true })
const { partition, offset } = await creating.send({ topic: missing, value: 'x' })
console.log(`created by the broker; written at partition ${partition} offset ${offset}`)
// #endregion create

await strict.close()
await creating.close()
await client.close()

// A consumer group member with run(): partitions handled in parallel, each in order, until
// SIGTERM (or Ctrl-C); handlers running then finish their batch, and close() commits it.
//
//   node dist/examples/consume-run.mjs              # then: kill -TERM <pid>
import { Client } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'run-example' })
const topic = process.env.TOPIC ?? 'orders'
const consumer = client.consumer({ groupId: process.env.GROUP ?? 'order-workers', topics: [topic], fromBeginning: true })

consumer.on('assigned', ({ added }) => console.log(`assigned ${added.length} partition(s)`))

// #region stop
const shutdown = new AbortController()
process.once('SIGTERM', () => shutdown.abort())
process.once('SIGINT', () => shutdown.abort())

let processed = 0
await consumer.run({
  partitionsConcurrently: 3,
  signal: shutdown.signal,
  // The batch counts as processed when this returns (eachRecord: each record when it returns).
  eachBatch: async batch => {
    for (const record of batch.records) console.log(`${batch.topic}[${batch.partition}]@${record.offset} ${record.value?.toString()}`)
    processed += batch.records.length
  }
})
// run() resolved at the signal, after the handlers running finished their batch.
await consumer.close()   // commits what was processed and leaves the group
await client.close()
console.log(`stopped after ${processed} records`)
// #endregion stop

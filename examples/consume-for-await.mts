// A consumer group member that reads with for await until SIGTERM (or Ctrl-C), then commits
// what it processed and leaves the group, so another member takes its partitions at once.
//
//   node dist/examples/consume-for-await.mjs        # then: kill -TERM <pid>
import { Client } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'for-await-example' })
const topic = process.env.TOPIC ?? 'orders'
const consumer = client.consumer({ groupId: process.env.GROUP ?? 'order-printers', topics: [topic], fromBeginning: true })

// #region stop
// The signal stops the hand-out: no batch is handed out after it aborts, and the batch in
// hand finishes and counts as processed. (A `break` would instead drop the batch in hand:
// it is read again by the partition's next owner.)
const shutdown = new AbortController()
process.once('SIGTERM', () => shutdown.abort())
process.once('SIGINT', () => shutdown.abort())

let processed = 0
for await (const batch of consumer.batches({ signal: shutdown.signal })) {
  for (const record of batch.records) {
    processed++
    console.log(`${batch.topic}[${batch.partition}]@${record.offset} ${record.value?.toString()}`)
  }
}
// The loop ended at the signal: commit what was processed and leave the group.
await consumer.close()
await client.close()
console.log(`stopped after ${processed} records`)
// #endregion stop

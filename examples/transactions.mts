// Exactly once, consume-transform-produce: each input batch's output records and its input
// offsets commit in one transaction. A crash, a rebalance or a fence aborts the transaction,
// and the batch is read again by the partition's owner; read_committed readers never see
// aborted output.
//
//   node dist/examples/transactions.mjs
import { Client, runTransactional } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'eos-example' })
const input = process.env.TOPIC ?? 'orders'
const output = `${input}-uppercased`
await client.admin.createTopics([{ topic: input, numPartitions: 3 }, { topic: output, numPartitions: 3 }], { ignoreExisting: true })

// Some input to work on.
const seed = client.producer()
await seed.send(['tea', 'coffee', 'cake', 'bread', 'jam'].map(item => ({ topic: input, key: item, value: item })))
await seed.close()

// #region loop
// One transactional id per instance of the application; a new instance with the same id
// fences the old one (its producer fails with ProducerFencedError).
const producer = client.producer({ transactionalId: `${input}-uppercaser-1` })
const consumer = client.consumer({ groupId: `${input}-uppercaser`, topics: [input], fromBeginning: true, isolation: 'read_committed' })

const stop = new AbortController()
process.once('SIGTERM', () => stop.abort())
let transformed = 0
const stats = await runTransactional(consumer, producer, {
  signal: stop.signal,   // the batch in hand commits, then the loop resolves
  eachBatch: async (batch, tx) => {
    await tx.send(batch.records.map(record => ({ topic: output, key: record.key, value: record.value?.toString().toUpperCase() ?? null })))
    transformed += batch.records.length
    if (transformed >= 5) stop.abort()   // this example stops once it has done its input
  }
})
console.log(`transactions committed: ${stats.committed}, aborted: ${stats.aborted}`)
await consumer.close()   // leaves the group; commits nothing itself (the transactions did)
await producer.close()
// #endregion loop

// Read the output as a read_committed consumer sees it.
const reader = client.consumer({ assign: [0, 1, 2].map(partition => ({ topic: output, partition, offset: 'earliest' as const })), isolation: 'read_committed' })
const seen: string[] = []
const reading = new AbortController()
for await (const batch of reader.batches({ signal: reading.signal })) {
  for (const record of batch.records) seen.push(record.value?.toString() ?? '')
  if (seen.length >= 5) reading.abort()
}
console.log(`output: ${seen.sort().join(' ')}`)
await reader.close()
await client.close()

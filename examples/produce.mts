// Producing: keys and partitions, one record or many per send, produce() with a callback for
// high rates, typed values with serializers, and what a failed send tells you.
//
//   node dist/examples/produce.mjs
import { Client, SendError, serializers } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'produce-example' })
const topic = process.env.TOPIC ?? 'orders'
await client.admin.createTopics([{ topic, numPartitions: 6 }], { ignoreExisting: true })

// #region send
// Records of one key go to one partition (Java's murmur2), so they stay in order.
const producer = client.producer({ lingerMs: 5, compression: 'lz4' })
const one = await producer.send({ topic, key: 'customer-42', value: 'first order', headers: { source: 'web' } })
console.log(`one record: partition ${one.partition}, offset ${one.offset}`)

// An array send resolves with each record's metadata, in order.
const many = await producer.send([
  { topic, key: 'customer-42', value: 'second order' },
  { topic, key: 'customer-7', value: 'an order', timestamp: new Date() },
  { topic, partition: 0, value: 'to partition 0, whatever the key' }
])
console.log(`three records: partitions ${many.map(m => m.partition).join(', ')}`)
// #endregion send

// #region produce
// produce(): no promise per record; the callback gets the outcome. false = refused at once
// (the callback already has the reason, e.g. BufferFullError: await waitForSpace() and retry).
let acknowledged = 0
for (let i = 0; i < 1000; i++) {
  const accepted = producer.produce({ topic, key: `k${i % 10}`, value: `event ${i}` }, error => {
    if (error !== null) console.error('not written:', error.message)
    else acknowledged++
  })
  if (!accepted) await producer.waitForSpace()
}
await producer.flush()
console.log(`produce(): ${acknowledged} acknowledged`)
// #endregion produce

// #region serializers
interface Order { id: number, item: string }
const orders = client.producer({ serializers: { key: serializers.string(), value: serializers.json<Order>() } })
await orders.send({ topic, key: 'o-1', value: { id: 1, item: 'tea' } })   // value must be an Order
// #endregion serializers

// #region errors
// A send of many records that fails for some rejects with one SendError: outcomes[i] is record i's.
try {
  await producer.send([{ topic, value: 'fine' }, { topic, partition: 99, value: 'no such partition' }])
} catch (error) {
  if (!(error instanceof SendError)) throw error
  error.outcomes.forEach((outcome, i) => console.log(`record ${i}: ${outcome.ok ? 'written' : `failed: ${outcome.error.message}`}`))
}
// #endregion errors

await orders.close()
await producer.close()   // flushes what is buffered first
await client.close()

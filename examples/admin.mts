// Administration: every call on many items answers each item; throwFirstError turns the first
// refusal into an exception for all-or-nothing callers.
//
//   node dist/examples/admin.mjs
import { Client, throwFirstError } from 'kafkats'

const client = new Client({ bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092', clientId: 'admin-example' })
const admin = client.admin
const topic = process.env.TOPIC ?? 'audit-log'

// #region topics
const created = await admin.createTopics([{ topic, numPartitions: 3, configs: { 'retention.ms': '86400000' } }], { ignoreExisting: true })
for (const result of created) console.log(`${result.topic}: ${result.error?.type ?? (result.existed ? 'existed' : 'created')}`)

// A second create of the same topic: the item's error, not an exception.
const again = await admin.createTopics([{ topic }])
console.log(`again: ${again[0].error?.type}`)   // TOPIC_ALREADY_EXISTS

const [described] = throwFirstError(await admin.describeTopics([topic]))
console.log(`${described.name} has ${described.partitions.length} partitions`)

const [config] = throwFirstError(await admin.describeConfigs([{ type: 'topic', name: topic, keys: ['retention.ms'] }]))
console.log(`retention.ms = ${config.configs.get('retention.ms')?.value}`)
// #endregion topics

// #region lag
// Commit an offset for a group (no member is active), then ask for its lag.
const producer = client.producer()
await producer.send(Array.from({ length: 5 }, (_, i) => ({ topic, partition: 0, value: `entry ${i}` })))
await producer.close()
throwFirstError(await admin.alterGroupOffsets(`${topic}-auditors`, [{ topic, partition: 0, offset: 2n }]))
for (const p of await admin.lag(`${topic}-auditors`)) console.log(`partition ${p.partition}: committed ${p.committed}, end ${p.end}, lag ${p.lag}`)
// #endregion lag

throwFirstError(await admin.deleteTopics([topic]))
await client.close()

/**
 * A share-group worker with a dead-letter topic: records that failed too often (their
 * deliveryCount went past 3) are produced to `<topic>.dlq` with the reason in a header,
 * then rejected so the group never delivers them again.
 *
 *   KAFKA_BOOTSTRAP=host:9092 node dist/examples/share-dead-letter.js jobs
 */
import { Client, type ShareRecord } from '../index'

const topic = process.argv[2] ?? 'jobs'
const client = new Client({ bootstrap: (process.env.KAFKA_BOOTSTRAP ?? '127.0.0.1:9092').split(','), clientId: 'share-dead-letter' })
const producer = client.producer()
const stop = new AbortController()
process.once('SIGINT', () => stop.abort())

async function work (record: ShareRecord): Promise<void> {
  // The application's processing; a throw releases the record for another delivery.
  if (record.value === null) throw new Error('empty job')
}

const worker = client.shareConsumer({
  groupId: `${topic}-workers`,
  topics: [topic],
  signal: stop.signal,
  deadLetter: {
    afterDeliveries: 3,
    // Resolving rejects the record; throwing (the DLQ is down) releases it for later.
    handler: async record => {
      await producer.send({
        topic: `${topic}.dlq`,
        key: record.key,
        value: record.value,
        headers: [...record.headers, { key: 'dlq.source', value: `${record.topic}-${record.partition}@${record.offset}` }, { key: 'dlq.deliveries', value: String(record.deliveryCount) }]
      })
    }
  }
})
worker.on('handlerError', ({ error }) => { console.error('job failed, released for another try:', (error as Error).message) })

void (async () => {
  await worker.run({ eachRecord: work, concurrency: 4 })
  await producer.close()
  await client.close()
})()

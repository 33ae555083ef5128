/**
 * A share-group worker with a dead-letter topic. A job that fails is released and
 * delivered again (to any worker); at its last delivery — the group's
 * share.delivery.count.limit, after which the broker would archive it unseen — it is
 * produced to `<topic>.dlq` with where it came from and how often it was tried, then
 * rejected, so the group never delivers it again.
 *
 *   KAFKA_BOOTSTRAP=host:9092 node dist/examples/share-dead-letter.js jobs            # work until Ctrl-C
 *   KAFKA_BOOTSTRAP=host:9092 node dist/examples/share-dead-letter.js jobs --demo 20  # produce 20 jobs (every 5th fails), work them off, exit
 *
 * The group is `<topic>-workers`; a new share group starts at the log end, so the example
 * sets its share.auto.offset.reset to earliest.
 */
import { Client, throwFirstError, type ShareRecord } from '../index'

const topic = process.argv[2] ?? 'jobs'
const demoJobs = process.argv[3] === '--demo' ? Number(process.argv[4] ?? 20) : 0
const dlqTopic = `${topic}.dlq`
const groupId = `${topic}-workers`
const client = new Client({ bootstrap: (process.env.KAFKA_BOOTSTRAP ?? '127.0.0.1:9092').split(','), clientId: 'share-dead-letter' })
const producer = client.producer()
const stop = new AbortController()
process.once('SIGINT', () => stop.abort())

async function work (record: ShareRecord): Promise<void> {
  // The application's processing; a throw releases the record for another delivery.
  if (record.value?.toString().startsWith('bad') === true) throw new Error(`job ${record.value.toString()} cannot be done`)
}

async function main (): Promise<void> {
  throwFirstError(await client.admin.createTopics([{ topic, numPartitions: 1 }, { topic: dlqTopic, numPartitions: 1 }], { ignoreExisting: true }))
  throwFirstError(await client.admin.alterConfigs([{ type: 'group', name: groupId, set: { 'share.auto.offset.reset': 'earliest' } }]))
  // #region limit
  // The broker archives a record once it was delivered this many times: dead-letter it at that delivery.
  const [{ configs }] = throwFirstError(await client.admin.describeConfigs([{ type: 'group', name: groupId, keys: ['share.delivery.count.limit'] }]))
  const limit = Number(configs.get('share.delivery.count.limit')?.value ?? 5)
  // #endregion limit
  if (demoJobs > 0) {
    await producer.send(Array.from({ length: demoJobs }, (_, i) => ({ topic, value: (i % 5 === 4 ? 'bad-' : 'job-') + String(i) })))
  }
  let done = 0
  let deadLettered = 0
  // #region dead-letter
  const worker = client.shareConsumer({
    groupId,
    topics: [topic],
    signal: stop.signal,
    deadLetter: {
      afterDeliveries: limit - 1,
      // Resolving rejects the record; throwing (the DLQ is down) releases it, and the broker archives it at the limit.
      handler: async record => {
        await producer.send({
          topic: dlqTopic,
          key: record.key,
          value: record.value,
          headers: [...record.headers, { key: 'dlq.source', value: `${record.topic}-${record.partition}@${record.offset}` }, { key: 'dlq.deliveries', value: String(record.deliveryCount) }]
        })
        console.log(`dead-lettered ${record.value?.toString() ?? 'null'} after ${record.deliveryCount} deliveries`)
        if (++deadLettered + done === demoJobs) stop.abort()
      }
    }
  })
  // #endregion dead-letter
  worker.on('handlerError', ({ error }) => { console.error('released for another try:', (error as Error).message) })
  await worker.run({
    eachRecord: async record => {
      await work(record)
      if (++done + deadLettered === demoJobs) stop.abort()
    },
    concurrency: 4
  })
  console.log(`${done} jobs done, ${deadLettered} dead-lettered to ${dlqTopic}`)
}

main().catch(error => {
  console.error(error)
  process.exitCode = 1
}).finally(async () => {
  await producer.close()
  await client.close()
})

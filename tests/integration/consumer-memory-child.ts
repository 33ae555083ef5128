// A consumer whose application stalls (it takes no batch), in a process of its own so its
// memory can be measured cleanly: node consumer-memory-child.js <bootstrap> <topic>
// <maxBufferedBytes> <partitions>. Prints one JSON line: the growth of RSS, heap and
// array buffers from before the consumer started to when fetching had stopped.
import { Client } from '../../client/client'
import { Consumer } from '../../consumer/consumer'

const [bootstrap, topic, maxBufferedBytes, partitions] = process.argv.slice(2)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

async function main (): Promise<void> {
  const client = new Client({ bootstrap: bootstrap.split(',') })
  await client.metadata.refresh([topic])
  gc()
  const before = process.memoryUsage()
  const consumer = Consumer.assigned(client, {
    assign: Array.from({ length: Number(partitions) }, (_, partition) => ({ topic, partition, offset: 0n })),
    maxBufferedBytes: Number(maxBufferedBytes),
    maxPartitionBytes: 64 * 1024 * 1024,
    maxWaitMs: 100
  })
  // The application is stalled: no batch is taken. Fetching stops at the bound; give it time.
  let buffered = -1
  for (let i = 0; i < 40; i++) {
    await sleep(250)
    const now = consumer.cursors.reduce((n, c) => n + c.buffered.reduce((m, e) => m + e.batch.records.length, 0), 0)
    if (now === buffered && now > 0) break
    buffered = now
  }
  gc()
  const after = process.memoryUsage()
  const MB = 1024 * 1024
  console.log(JSON.stringify({
    rssMB: Math.round((after.rss - before.rss) / MB),
    heapMB: Math.round((after.heapUsed - before.heapUsed) / MB),
    arrayBuffersMB: Math.round((after.arrayBuffers - before.arrayBuffers) / MB),
    records: buffered
  }))
  await consumer.close()
  await client.close()
}

main().catch(error => {
  console.error(error)
  process.exit(1)
})

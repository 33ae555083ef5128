// A consumer whose application stalls (it takes no batch) or is slow, in a process of its
// own so its memory can be measured cleanly: node consumer-memory-child.js <bootstrap>
// <topic> <maxBufferedBytes> <partitions> [<ms per batch>]. Without the last argument the
// application takes nothing; with it, it takes a batch, waits that long, and so on until
// nothing more comes. Prints one JSON line: the growth of RSS, heap and array buffers from
// before the consumer started to when fetching had stopped (stalled) or to the highest
// heap seen while reading (slow), the records buffered or read, and the most the prefetch
// account held after any Fetch answer, and how many fetchError events came.
import { Client } from '../../index'
import { Consumer } from '../../consumer/consumer'
import { sleep } from '../support/wait'
import { consumerInternals } from '../../consumer/consumer'

const [bootstrap, topic, maxBufferedBytes, partitions, msPerBatch] = process.argv.slice(2)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})

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
  let bufferedAtMost = 0
  let fetchErrors = 0
  consumer.on('fetchError', () => { fetchErrors++ })
  consumer.on('fetch', () => { bufferedAtMost = Math.max(bufferedAtMost, consumerInternals(consumer).cursors[0]?.account.bytes ?? 0) })
  let records = -1
  let heapAtMost = before.heapUsed
  if (msPerBatch === undefined) {
    // The application is stalled: no batch is taken. Fetching stops at the bound; give it time.
    for (let i = 0; i < 40; i++) {
      await sleep(250)
      // Buffered batches are decoded when handed out: count the records their headers claim.
      const now = consumerInternals(consumer).cursors.reduce((n, c) => n + c.buffered.reduce((m, e) => m + e.pending.reduce((k, p) => k + p.batch.recordCount, 0), 0), 0)
      if (now === records && now > 0) break
      records = now
    }
  } else {
    records = 0
    const heapTimer = setInterval(() => { heapAtMost = Math.max(heapAtMost, process.memoryUsage().heapUsed) }, 20)
    for (;;) {
      const handed = await consumer.nextBatch(AbortSignal.timeout(3000)).catch(() => undefined)
      if (handed === undefined) break
      records += handed.batch.records.length
      handed.finish()
      await sleep(Number(msPerBatch))
    }
    clearInterval(heapTimer)
  }
  gc()
  const after = process.memoryUsage()
  const MB = 1024 * 1024
  console.log(JSON.stringify({
    rssMB: Math.round((after.rss - before.rss) / MB),
    heapMB: Math.round((Math.max(after.heapUsed, heapAtMost) - before.heapUsed) / MB),
    arrayBuffersMB: Math.round((after.arrayBuffers - before.arrayBuffers) / MB),
    records,
    bufferedAtMostMB: Math.round(bufferedAtMost / MB * 100) / 100,
    fetchErrors
  }))
  await consumer.close()
  await client.close()
}

main().catch(error => {
  console.error(error)
  process.exit(1)
})

/**
 * kafkats runner of the share benchmark: `consumers` consumers, each on its own Client,
 * reading the filled topic together until every record arrived once —
 * - share: `client.shareConsumer({ groupId, topics })` and `for await` over batches
 *   (implicit acknowledgement: a batch is accepted when the next is asked for);
 * - group: `client.consumer({ groupId, topics, fromBeginning: true })` (KIP-848) and
 *   `for await` over batches, at-least-once.
 * The clock runs from the first client's creation to the last distinct record; CPU is the
 * whole process's, all consumers together.
 */
import { Client } from '../../index'
import { cpuSecondsSince, DistinctTally, readConfig, report, runMain, watchTallyForStall } from './runner'

interface BenchConsumer extends AsyncIterable<{ partition: number, records: Array<{ offset: bigint, value: Buffer | null }> }> {
  close: () => Promise<void>
}

runMain(async () => {
  const config = readConfig()
  const tally = new DistinctTally(config)
  const cpuStart = process.cpuUsage()
  const clients = Array.from({ length: config.consumers }, (_, i) => new Client({ bootstrap: config.bootstrap.split(','), clientId: `bench-share-${i}` }))
  const options = config.options
  const consumers: BenchConsumer[] = clients.map(client => config.mode === 'share'
    ? client.shareConsumer({ groupId: config.groupId, topics: [config.topic], ...options })
    : client.consumer({ groupId: config.groupId, topics: [config.topic], fromBeginning: true, delivery: 'at-least-once', ...options }))
  const perConsumer = consumers.map(() => 0)
  const settings = config.mode === 'share'
    ? `client.shareConsumer({ groupId, topics${Object.keys(options).length > 0 ? `, ${JSON.stringify(options)}` : ''} }) ×${config.consumers}, one Client each, for await over batches (implicit acceptance; other settings: the defaults, maxRecords 500)`
    : `client.consumer({ groupId, topics, fromBeginning: true, delivery: 'at-least-once'${Object.keys(options).length > 0 ? `, ${JSON.stringify(options)}` : ''} }) ×${config.consumers} (KIP-848), one Client each, for await over batches`
  const stall = watchTallyForStall(tally, config.stallSeconds, () => { report(tally.result(cpuSecondsSince(cpuStart), perConsumer, settings)) })
  await Promise.all(consumers.map(async (consumer, i) => {
    const reading = (async () => {
      for await (const batch of consumer) {
        const { partition, records } = batch
        perConsumer[i] += records.length
        for (let r = 0; r < records.length; r++) tally.add(partition, records[r].offset, records[r].value)
      }
    })()
    await Promise.race([reading, tally.done])
  }))
  // Everything arrived: the last batches are accepted (share) or committed as the consumers close.
  await Promise.all(consumers.map(async consumer => await consumer.close()))
  await Promise.all(clients.map(async client => await client.close()))
  clearInterval(stall)
  report(tally.result(cpuSecondsSince(cpuStart), perConsumer, settings))
})

/**
 * kafkats's low-level fetch path: one loop per partition, each awaiting
 * `client.fetchRaw` from the offset after the last batch, all loops at once (their
 * fetches share the leader's one fetch connection, pipelined). No group: no join, no
 * offset commits — it reads from each partition's log start offset. fetchRaw decodes
 * every record (and checks batch CRCs).
 */
import { Client } from '../../client/client'
import { cpuSecondsSince, finish, readConfig, runMain, Tally, watchForStall } from './runner'

runMain(async () => {
  const config = readConfig()
  const settings = { maxBytes: 1024 * 1024, maxWaitMs: 500, ...config.options } as { maxBytes: number, maxWaitMs: number }
  const describe = (): string => `fetchRaw, one loop per partition (${config.partitions} at once), maxBytes=${settings.maxBytes} per fetch, maxWaitMs=${settings.maxWaitMs}, no group`

  const cpuStart = process.cpuUsage()
  const tally = new Tally(config)
  watchForStall(config, tally, cpuStart, describe)
  const client = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats-raw' })

  const partitionLoop = async (partition: number): Promise<void> => {
    let offset = BigInt(config.startOffsets[partition])
    const end = BigInt(config.endOffsets[partition])
    while (offset < end) {
      const fetched = await client.fetchRaw({ topic: config.topic, partition, offset, maxBytes: settings.maxBytes, maxWaitMs: settings.maxWaitMs })
      const records = fetched.records
      for (let i = 0; i < records.length; i++) tally.add(partition, records[i].offset, records[i].value)
      offset = fetched.nextOffset
    }
  }
  await Promise.all(Array.from({ length: config.partitions }, (_, p) => partitionLoop(p)))
  await client.close()
  finish(config, tally, cpuSecondsSince(cpuStart), describe())
})

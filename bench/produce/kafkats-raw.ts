/**
 * kafkats's low-level produce path: `client.produceRaw` writes one batch to one partition.
 * Each partition gets its share of the records in batches of up to 1,000, with several
 * batches in flight per partition (pipelined on the one produce connection). produceRaw
 * has no producer id, so this path is not idempotent. Latency is per batch.
 */
import { Client } from '../../client/client'
import type { CompressionCodec } from '../../protocol/compression'
import type { RecordInput } from '../../protocol/record-batch'
import { CallSender, cpuSecondsSince, partitionShares, readConfig, readValues, reportSent, runMain } from './runner'

/** Stays under the broker's default message.max.bytes (1 MiB + 12) for any value size. */
const MAX_BATCH_BYTES = 900 * 1024

runMain(async () => {
  const config = readConfig()
  const settings = { batchRecords: 1000, inFlightPerPartition: 4, ...config.options } as { batchRecords: number, inFlightPerPartition: number }
  const batchRecords = Math.max(1, Math.min(settings.batchRecords, Math.floor(MAX_BATCH_BYTES / (config.valueSize + 40))))
  const compression = config.compression as CompressionCodec
  // One sender for every partition: the values cycle and the latencies fill across them all.
  const sender = new CallSender<RecordInput>(readValues(config), value => ({ value }), new Float32Array(config.records))

  const cpuStart = process.cpuUsage()
  const client = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats-raw' })
  await client.metadata.waitForTopic(config.topic, 30_000)

  const started = performance.now()
  await Promise.all(partitionShares(config.records, config.partitions).map((share, partition) =>
    sender.send(share, batchRecords, settings.inFlightPerPartition, records => client.produceRaw({ topic: config.topic, partition, records, acks: 'all', compression }))
  ))
  const wallSeconds = (performance.now() - started) / 1000
  await client.close()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  reportSent(config, sender, wallSeconds, cpuSeconds, `produceRaw, acks=all, not idempotent, ${batchRecords} records per batch, ${settings.inFlightPerPartition} batches in flight per partition`)
})

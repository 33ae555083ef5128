/**
 * kafkats's low-level produce path: `client.produceRaw` writes one batch to one partition.
 * Each partition gets its share of the records in batches of up to 1,000, with several
 * batches in flight per partition (pipelined on the one produce connection). produceRaw
 * has no producer id, so this path is not idempotent. Latency is per batch.
 */
import { Client } from '../../client/client'
import type { CompressionCodec } from '../../protocol/compression'
import type { RecordInput } from '../../protocol/record-batch'
import { cpuSecondsSince, readConfig, readValues, report, runMain, runtime, writeLatencies } from './runner'

/** Stays under the broker's default message.max.bytes (1 MiB + 12) for any value size. */
const MAX_BATCH_BYTES = 900 * 1024

runMain(async () => {
  const config = readConfig()
  const settings = { batchRecords: 1000, inFlightPerPartition: 4, ...config.options } as { batchRecords: number, inFlightPerPartition: number }
  const batchRecords = Math.max(1, Math.min(settings.batchRecords, Math.floor(MAX_BATCH_BYTES / (config.valueSize + 40))))
  const compression = config.compression as CompressionCodec
  const values = readValues(config)
  let nextValue = 0
  const latencies = new Float32Array(config.records)

  const cpuStart = process.cpuUsage()
  const client = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats-raw' })
  await client.metadata.waitForTopic(config.topic, 30_000)

  let acknowledged = 0
  let failed = 0
  let firstError: string | undefined
  const started = performance.now()
  const partitionRun = async (partition: number, share: number): Promise<void> => {
    let left = share
    const worker = async (): Promise<void> => {
      while (left > 0) {
        const count = Math.min(batchRecords, left)
        left -= count
        const records: RecordInput[] = new Array(count)
        for (let i = 0; i < count; i++) {
          records[i] = { value: values[nextValue] }
          if (++nextValue === values.length) nextValue = 0
        }
        const sentAt = performance.now()
        try {
          await client.produceRaw({ topic: config.topic, partition, records, acks: 'all', compression })
          latencies.fill(performance.now() - sentAt, acknowledged, acknowledged + count)
          acknowledged += count
        } catch (error) {
          failed += count
          firstError ??= (error as Error).message
        }
      }
    }
    await Promise.all(Array.from({ length: settings.inFlightPerPartition }, worker))
  }
  const base = Math.floor(config.records / config.partitions)
  const extra = config.records % config.partitions
  await Promise.all(Array.from({ length: config.partitions }, (_, p) => partitionRun(p, base + (p < extra ? 1 : 0))))
  const wallSeconds = (performance.now() - started) / 1000
  await client.close()
  const cpuSeconds = cpuSecondsSince(cpuStart)

  writeLatencies(config.latencyFile, latencies, acknowledged)
  report({
    wallSeconds,
    acknowledged,
    failed,
    cpuSeconds,
    latencyPer: 'batch',
    settings: `produceRaw, acks=all, not idempotent, ${batchRecords} records per batch, ${settings.inFlightPerPartition} batches in flight per partition`,
    runtime: runtime(),
    firstError
  })
})

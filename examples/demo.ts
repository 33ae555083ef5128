/**
 * The demo: writes records to a topic through the low-level API and reads them back,
 * with a progress line and a throughput summary.
 *
 *   npm run demo                      # starts a local Kafka 4.4 broker, then stops it
 *   KAFKA_BOOTSTRAP=host:9092 npm run demo
 *   npm run demo -- --records 500000 --value-bytes 1024 --compression lz4
 */
import { Client, throwFirstError } from '../index'
import type { CompressionCodec } from '../protocol/compression'
import type { RecordInput } from '../protocol/record-batch'
import { sharedBootstrap, startCluster, type KafkaCluster } from '../tests/broker/kafka'

function argument (name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`)
  return at !== -1 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
}

const totalRecords = Number(argument('records', '200000'))
const valueBytes = Number(argument('value-bytes', '100'))
const compression = argument('compression', 'none') as CompressionCodec
const partitions = 6
const recordsPerBatch = 1000

function progress (label: string, done: number, total: number, startedAt: number): void {
  const seconds = (Date.now() - startedAt) / 1000
  const rate = seconds > 0 ? Math.round(done / seconds) : 0
  process.stdout.write(`\r${label}: ${done.toLocaleString('en')} / ${total.toLocaleString('en')} records (${rate.toLocaleString('en')} records/s)   `)
}

async function main (): Promise<void> {
  let cluster: KafkaCluster | undefined
  let bootstrap = sharedBootstrap()
  if (bootstrap === undefined) {
    console.log('No KAFKA_BOOTSTRAP set: starting a local Kafka 4.4 broker (the first run downloads its jars through Maven)...')
    cluster = await startCluster({ nodes: 1, portBase: 'free' })
    bootstrap = cluster.bootstrap
  }
  console.log(`Broker: ${bootstrap.join(',')}`)
  const client = new Client({ bootstrap, clientId: 'kafkats-demo' })
  const topic = `kafkats-demo-${Date.now().toString(36)}`
  try {
    throwFirstError(await client.admin.createTopics([{ topic, numPartitions: partitions, replicationFactor: 1 }]))
    console.log(`Created topic ${topic} with ${partitions} partitions; writing ${totalRecords.toLocaleString('en')} records of ${valueBytes} B (compression: ${compression}, acks=all)`)

    const value = Buffer.alloc(valueBytes, 'k')
    const writeStart = Date.now()
    let written = 0
    let batchNumber = 0
    // Keep a few produce requests in flight per partition, one batch of 1,000 records each.
    const inFlight = new Set<Promise<void>>()
    while (written < totalRecords) {
      const count = Math.min(recordsPerBatch, totalRecords - written)
      const records: RecordInput[] = new Array(count)
      for (let i = 0; i < count; i++) records[i] = { key: Buffer.from(String(written + i)), value }
      const partition = batchNumber++ % partitions
      const request = client.produceRaw({ topic, partition, records, compression }).then(() => {
        inFlight.delete(request)
      })
      inFlight.add(request)
      written += count
      if (inFlight.size >= partitions * 2) await Promise.race(inFlight)
      if (batchNumber % 20 === 0) progress('write', written, totalRecords, writeStart)
    }
    await Promise.all(inFlight)
    progress('write', written, totalRecords, writeStart)
    const writeSeconds = (Date.now() - writeStart) / 1000
    process.stdout.write('\n')

    const readStart = Date.now()
    let read = 0
    let checked = 0
    await Promise.all(Array.from({ length: partitions }, async (_, partition) => {
      let offset = 0n
      const { offset: end } = await client.listOffsets({ topic, partition, spec: 'latest' })
      while (offset < end) {
        const fetched = await client.fetchRaw({ topic, partition, offset, maxBytes: 4 * 1024 * 1024 })
        for (const record of fetched.records) {
          if (record.value === null || record.value.length !== valueBytes) throw new Error(`Record at ${topic}-${partition}@${record.offset} has a wrong value`)
          checked++
        }
        read += fetched.records.length
        offset = fetched.nextOffset
        progress('read ', read, totalRecords, readStart)
      }
    }))
    const readSeconds = (Date.now() - readStart) / 1000
    process.stdout.write('\n')
    if (read !== totalRecords) throw new Error(`Read ${read} records back, expected ${totalRecords}`)

    const mb = (totalRecords * valueBytes) / 1e6
    console.log('Summary:')
    console.log(`  write: ${totalRecords.toLocaleString('en')} records in ${writeSeconds.toFixed(2)} s = ${Math.round(totalRecords / writeSeconds).toLocaleString('en')} records/s, ${(mb / writeSeconds).toFixed(1)} MB/s of values`)
    console.log(`  read:  ${read.toLocaleString('en')} records in ${readSeconds.toFixed(2)} s = ${Math.round(read / readSeconds).toLocaleString('en')} records/s, ${(mb / readSeconds).toFixed(1)} MB/s of values`)
    console.log(`  every record read back, ${checked.toLocaleString('en')} values checked`)
    await client.admin.deleteTopics([topic])
  } finally {
    await client.close()
    await cluster?.stop()
  }
}

main().catch(error => {
  console.error('\nDemo failed:', error instanceof Error ? error.message : error)
  process.exitCode = 1
})

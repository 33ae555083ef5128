/**
 * kafkats runner of the exactly-once benchmark.
 *
 * - produce: per transaction, beginTransaction, `produce(record, callback)` for each of its
 *   records (the producer's own batching; waitForSpace when its buffer is full), then
 *   commitTransaction (which flushes).
 * - ctp: runTransactional over a GroupConsumer (read_committed, KIP-848): one transaction
 *   per handed-out batch, whose size is capped at txnSize records by maxBatchRecords.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '../../index'
import { GroupConsumer } from '../../group/group-consumer'
import { runTransactional } from '../../group/transactional'
import type { Producer } from '../../producer/producer'
import { cpuSecondsSince, readConfigArgument, readPayloadValues, reportResult, runMain, runtime, type RunnerConfig, type RunnerResult } from './runner'

runMain(async () => {
  const config = readConfigArgument<RunnerConfig>()
  const cpuStart = process.cpuUsage()
  const client = new Client({ bootstrap: config.bootstrap.split(','), clientId: 'bench-eos-kafkats' })
  const settings = { transactionalId: config.transactionalId, compression: config.compression, lingerMs: 5, ...config.options }
  const producer = client.producer(settings as Parameters<Client['producer']>[0])
  let result: Omit<RunnerResult, 'cpuSeconds' | 'runtime'>
  try {
    result = config.mode === 'produce' ? await produce(client, producer, config, settings) : await consumeTransformProduce(client, producer, config, settings)
  } finally {
    await producer.close()
    await client.close()
  }
  reportResult({ ...result, cpuSeconds: cpuSecondsSince(cpuStart), runtime: runtime() })
})

async function produce (client: Client, producer: Producer, config: RunnerConfig, settings: Record<string, unknown>): Promise<Omit<RunnerResult, 'cpuSeconds' | 'runtime'>> {
  const values = readPayloadValues(config.payloadFile, config.valueSize)
  await client.metadata.waitForTopic(config.topic, 30_000)
  let nextValue = 0
  let committed = 0
  let transactions = 0
  let firstError: string | undefined
  const onRecord = (error: unknown): void => { if (error !== null && error !== undefined) firstError ??= String((error as Error).message ?? error) }
  // The clock starts after the first begin (InitProducerId), as Java's after initTransactions().
  await producer.beginTransaction()
  const started = performance.now()
  while (committed < config.records) {
    const count = Math.min(config.txnSize, config.records - committed)
    if (transactions > 0) await producer.beginTransaction()
    for (let i = 0; i < count; i++) {
      if (producer.full) await producer.waitForSpace()
      producer.produce({ topic: config.topic, value: values[nextValue] }, onRecord)
      if (++nextValue === values.length) nextValue = 0
    }
    await producer.commitTransaction()
    committed += count
    transactions++
  }
  const wallSeconds = (performance.now() - started) / 1000
  return { wallSeconds, committed, transactions, aborted: 0, firstError, settings: `produce() per record, ${JSON.stringify(settings).replace(/"transactionalId":"[^"]*",?/, '')}` }
}

async function consumeTransformProduce (client: Client, producer: Producer, config: RunnerConfig, settings: Record<string, unknown>): Promise<Omit<RunnerResult, 'cpuSeconds' | 'runtime'>> {
  const consumer = new GroupConsumer(client, {
    groupId: config.groupId,
    topics: [config.inputTopic],
    groupProtocol: 'consumer',
    fromBeginning: true,
    isolation: 'read_committed',
    // One transaction per handed-out batch: fetch answers of about txnSize records (the
    // input's batches hold at most that many), never merged past it.
    maxBatchRecords: config.txnSize,
    maxBatchBytes: 64 * 1024 * 1024,
    maxPartitionBytes: config.txnSize * (config.valueSize + 12),
    autoCommitIntervalMs: 600_000
  })
  const stop = new AbortController()
  let copied = 0
  const started = performance.now()
  let finishedAt = started
  const stats = await runTransactional(consumer, producer, {
    signal: stop.signal,
    eachBatch: async (batch, tx) => {
      for (const record of batch.records) tx.produce({ topic: config.topic, key: record.key, value: record.value }, () => {})
      copied += batch.records.length
      if (copied < config.records) return
      // The last transaction: stop the loop once it committed (the signal would abort it while it commits).
      void (async () => {
        while (producer.transactionState !== 'ready') await sleep(1)
        finishedAt = performance.now()
        stop.abort()
      })()
    }
  })
  await consumer.close()
  return {
    wallSeconds: (finishedAt - started) / 1000,
    committed: copied,
    transactions: stats.committed,
    aborted: stats.aborted,
    settings: `runTransactional, GroupConsumer (KIP-848, read_committed, maxBatchRecords ${config.txnSize}, maxPartitionBytes ${config.txnSize * (config.valueSize + 12)}), ${JSON.stringify(settings).replace(/"transactionalId":"[^"]*",?/, '')}`
  }
}

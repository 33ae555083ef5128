// kafkajs 2.2.4 runner of the exactly-once benchmark.
// produce: per transaction, producer.transaction(), send() of its records in calls of up
// to `recordsPerCall`, commit().
// ctp: consumer.run({ eachBatch }) (classic protocol, read_committed, autoCommit off); each
// fetched batch goes out in transactions of up to txnSize records: send(), sendOffsets()
// with the next offset, commit(), resolveOffset().
import { cpuSecondsSince, require, runMain, setup } from '../common/runner.mjs'

runMain(async () => {
  const { config, readPayloadValues, reportResult, runtime } = setup()
  const { Kafka, logLevel, CompressionTypes } = require('kafkajs')
  const settings = { recordsPerCall: 10_000, ...config.options }
  const compression = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP }[config.compression]
  if (compression === undefined) throw new Error(`The kafkajs eos runner does not do ${config.compression} compression`)

  const cpuStart = process.cpuUsage()
  const kafka = new Kafka({ clientId: 'bench-eos-kafkajs', brokers: config.bootstrap.split(','), logLevel: logLevel.ERROR })
  const producer = kafka.producer({ transactionalId: config.transactionalId, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
  await producer.connect()
  let committed = 0
  let transactions = 0
  let wallSeconds
  let described
  if (config.mode === 'produce') {
    const values = readPayloadValues(config.payloadFile, config.valueSize)
    let nextValue = 0
    // The clock starts after the first transaction() (InitProducerId), as Java's after initTransactions().
    let tx = await producer.transaction()
    const started = performance.now()
    while (committed < config.records) {
      const count = Math.min(config.txnSize, config.records - committed)
      if (transactions > 0) tx = await producer.transaction()
      for (let sent = 0; sent < count;) {
        const n = Math.min(settings.recordsPerCall, count - sent)
        const messages = new Array(n)
        for (let i = 0; i < n; i++) {
          messages[i] = { value: values[nextValue] }
          if (++nextValue === values.length) nextValue = 0
        }
        await tx.send({ topic: config.topic, acks: -1, compression, messages })
        sent += n
      }
      await tx.commit()
      committed += count
      transactions++
    }
    wallSeconds = (performance.now() - started) / 1000
    described = `transaction() → send() of up to ${settings.recordsPerCall} records per call → commit(); idempotent, maxInFlightRequests 1`
  } else {
    const started = performance.now()
    const consumer = kafka.consumer({ groupId: config.groupId, readUncommitted: false, maxBytesPerPartition: 16 * 1024 * 1024, maxBytes: 64 * 1024 * 1024 })
    await consumer.connect()
    await consumer.subscribe({ topic: config.inputTopic, fromBeginning: true })
    let finished
    const done = new Promise(resolve => { finished = resolve })
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning }) => {
        const messages = batch.messages
        for (let from = 0; from < messages.length && isRunning(); from += config.txnSize) {
          const chunk = messages.slice(from, from + config.txnSize)
          const last = chunk[chunk.length - 1].offset
          const tx = await producer.transaction()
          await tx.send({ topic: config.topic, acks: -1, compression, messages: chunk.map(m => ({ key: m.key, value: m.value })) })
          await tx.sendOffsets({ consumerGroupId: config.groupId, topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: String(BigInt(last) + 1n) }] }] })
          await tx.commit()
          resolveOffset(last)
          committed += chunk.length
          transactions++
          await heartbeat()
        }
        if (committed >= config.records) finished()
      }
    })
    await done
    wallSeconds = (performance.now() - started) / 1000
    await consumer.disconnect()
    described = `consumer.run({ eachBatch }) (classic protocol, read_committed, autoCommit off, maxBytesPerPartition 16 MiB) → transaction() per up to ${config.txnSize} records of a batch → send(), sendOffsets(), commit(); idempotent, maxInFlightRequests 1`
  }
  await producer.disconnect()
  reportResult({ wallSeconds, committed, transactions, aborted: 0, cpuSeconds: cpuSecondsSince(cpuStart), settings: described, runtime: runtime() })
})

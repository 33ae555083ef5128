// kafkajs programs run unchanged on kafkats/kafkajs and on npm kafkajs 2.2.4, against the
// same real broker (each run on its own topics and groups): what each program prints —
// partitions chosen, offsets written and committed, records delivered — must be the same.
// Each program takes the module (`require('kafkajs')` or `require('kafkats/kafkajs')`) and
// returns its output with the run's own names replaced by placeholders.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { useBroker } from './support'
import * as kafkats from '../../kafkajs/index'
import { waitFor } from '../support/wait'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkajs = require('kafkajs')

type Module = typeof kafkats
type Program = (module: Module, brokers: string[], names: Names) => Promise<unknown>

interface Names { topic: string, group: string }

let brokers: string[] = []
let run = 0

useBroker(bootstrap => {
  brokers = bootstrap
})

const quiet = { logLevel: 0 } as const

async function createTopic (module: Module, names: Names, numPartitions: number): Promise<void> {
  const admin = new module.Kafka({ brokers, clientId: 'setup', ...quiet }).admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic: names.topic, numPartitions }], waitForLeaders: true })
  await admin.disconnect()
}

/** Runs a program with both modules and compares what they print. */
async function sideBySide (program: Program): Promise<{ kafkats: unknown, kafkajs: unknown }> {
  const names = (label: string): Names => {
    run++
    const suffix = `${process.pid}-${run}-${label}-${Date.now().toString(36)}`
    return { topic: `kjs-topic-${suffix}`, group: `kjs-group-${suffix}` }
  }
  const normalize = (value: unknown, n: Names): unknown => JSON.parse(JSON.stringify(value, (_k, v) => {
    if (typeof v === 'string') return v.split(n.topic).join('<topic>').split(n.group).join('<group>')
    if (typeof v === 'object' && v !== null && v.type === 'Buffer' && Array.isArray(v.data)) return Buffer.from(v.data).toString()
    return v
  }))
  const a = names('kafkats')
  const ours = normalize(await program(kafkats, brokers, a), a)
  const b = names('kafkajs')
  const theirs = normalize(await program(kafkajs as Module, brokers, b), b)
  return { kafkats: ours, kafkajs: theirs }
}

// A producer: keys (partitions chosen by kafkajs's DefaultPartitioner), headers, gzip, several
// sends and one sendBatch over two topics.
const producerProgram: Program = async (module, brokers, names) => {
  await createTopic(module, names, 6)
  await createTopic(module, { ...names, topic: `${names.topic}-b` }, 3)
  const kafka = new module.Kafka({ brokers, clientId: 'producer-program', ...quiet })
  const producer = kafka.producer()
  await producer.connect()
  const results: Array<Array<{ topicName: string, partition: number, errorCode: number, baseOffset?: string }>> = []
  for (let round = 0; round < 3; round++) {
    const messages = Array.from({ length: 10 }, (_, i) => ({
      key: `key-${round * 10 + i}`,
      value: `value-${round}-${i}`,
      headers: { 'x-round': String(round), 'x-tags': ['a', 'b'] }
    }))
    results.push(await producer.send({ topic: names.topic, messages, compression: module.CompressionTypes.GZIP }))
  }
  results.push(await producer.sendBatch({
    topicMessages: [
      { topic: names.topic, messages: [{ key: 'k-batch', value: 'one', partition: 5 }] },
      { topic: `${names.topic}-b`, messages: [{ key: 'k1', value: 'x' }, { key: 'k2', value: 'y' }, { key: null, value: 'z', partition: 2 }] }
    ]
  }))
  await producer.disconnect()
  const sorted = <R extends { topicName: string, partition: number }>(list: R[]): R[] => [...list].sort((x, y) => x.topicName.localeCompare(y.topicName) || x.partition - y.partition)
  return results.map(r => sorted(r).map(({ topicName, partition, errorCode, baseOffset }) => ({ topicName, partition, errorCode, baseOffset })))
}

async function produceKeyed (module: Module, names: Names, count: number): Promise<void> {
  const producer = new module.Kafka({ brokers, clientId: 'feeder', ...quiet }).producer()
  await producer.connect()
  await producer.send({ topic: names.topic, messages: Array.from({ length: count }, (_, i) => ({ key: `key-${i}`, value: `v${i}`, headers: { n: String(i) } })) })
  await producer.disconnect()
}

async function committed (module: Module, names: Names): Promise<unknown> {
  const admin = new module.Kafka({ brokers, clientId: 'checker', ...quiet }).admin()
  await admin.connect()
  const offsets = await admin.fetchOffsets({ groupId: names.group, topics: [names.topic] })
  await admin.disconnect()
  return offsets
}

/** Waits until the group's committed offsets reach the end of every partition (what the broker shows, not a pause). */
async function commitsReachTheEnd (module: Module, names: Names): Promise<void> {
  const admin = new module.Kafka({ brokers, clientId: 'checker', ...quiet }).admin()
  await admin.connect()
  try {
    const ends = new Map((await admin.fetchTopicOffsets(names.topic)).map(p => [p.partition, p.high]))
    await waitFor('the group\'s commits to reach the end of every partition', async () => {
      const [{ partitions }] = await admin.fetchOffsets({ groupId: names.group, topics: [names.topic] })
      return partitions.length === ends.size && partitions.every(p => p.offset === ends.get(p.partition))
    }, { timeoutMs: 60_000, intervalMs: 100 })
  } finally {
    await admin.disconnect()
  }
}

// eachMessage with manual commits (autoCommit: false), a pause and resume, and one seek back.
const eachMessageProgram: Program = async (module, brokers, names) => {
  await createTopic(module, names, 3)
  await produceKeyed(module, names, 30)
  const consumer = new module.Kafka({ brokers, clientId: 'each-message', ...quiet }).consumer({ groupId: names.group, heartbeatInterval: 1000, sessionTimeout: 10_000 })
  await consumer.connect()
  await consumer.subscribe({ topics: [names.topic], fromBeginning: true })
  const delivered: string[] = []
  let sought = false
  let paused = false
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      delivered.push(`${partition}:${message.offset}:${String(message.key)}:${String(message.value)}:${String(message.headers?.n)}`)
      await consumer.commitOffsets([{ topic, partition, offset: String(BigInt(message.offset) + 1n) }])
      if (!paused && partition === 1 && message.offset === '1') {
        paused = true
        consumer.pause([{ topic, partitions: [1] }])
        // The program resumes a while later, as an application does (pacing, not a wait for an outcome).
        setTimeout(() => consumer.resume([{ topic, partitions: [1] }]), 300)
      }
      if (!sought && partition === 0 && message.offset === '4') {
        sought = true
        consumer.seek({ topic, partition: 0, offset: '2' })
      }
    }
  })
  await waitFor('every record', () => new Set(delivered).size >= 30 && sought, { timeoutMs: 60_000 })
  await commitsReachTheEnd(module, names)
  await consumer.disconnect()
  return { delivered: [...delivered].sort(), committed: await committed(module, names) }
}

// eachBatch without auto-resolve: resolves every other batch's records up to its middle first,
// then the rest, and commits through commitOffsetsIfNecessary.
const eachBatchProgram: Program = async (module, brokers, names) => {
  await createTopic(module, names, 2)
  await produceKeyed(module, names, 40)
  const consumer = new module.Kafka({ brokers, clientId: 'each-batch', ...quiet }).consumer({ groupId: names.group, heartbeatInterval: 1000, sessionTimeout: 10_000 })
  await consumer.connect()
  await consumer.subscribe({ topic: names.topic, fromBeginning: true })
  const delivered = new Set<string>()
  await consumer.run({
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, isRunning, isStale }) => {
      for (const message of batch.messages) {
        if (!isRunning() || isStale()) break
        delivered.add(`${batch.partition}:${message.offset}:${String(message.value)}`)
        resolveOffset(message.offset)
      }
      await commitOffsetsIfNecessary()
    }
  })
  await waitFor('every record', () => delivered.size >= 40, { timeoutMs: 60_000 })
  await commitsReachTheEnd(module, names)
  await consumer.disconnect()
  return { delivered: [...delivered].sort(), committed: await committed(module, names) }
}

// Consume-transform-produce in transactions: each record's transform and its consumed offset
// commit together; a read_committed reader sees each output once.
const transactionalProgram: Program = async (module, brokers, names) => {
  const output = `${names.topic}-out`
  await createTopic(module, names, 2)
  await createTopic(module, { ...names, topic: output }, 2)
  await produceKeyed(module, names, 10)
  const kafka = new module.Kafka({ brokers, clientId: 'ctp', ...quiet })
  const producer = kafka.producer({ transactionalId: `${names.group}-txn`, idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  const consumer = kafka.consumer({ groupId: names.group, heartbeatInterval: 1000, sessionTimeout: 10_000 })
  await consumer.connect()
  await consumer.subscribe({ topic: names.topic, fromBeginning: true })
  let transformed = 0
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      const transaction = await producer.transaction()
      await transaction.send({ topic: output, messages: [{ key: message.key, value: String(message.value).toUpperCase() }] })
      await transaction.sendOffsets({ consumerGroupId: names.group, topics: [{ topic, partitions: [{ partition, offset: String(BigInt(message.offset) + 1n) }] }] })
      await transaction.commit()
      transformed++
    }
  })
  await waitFor('every record transformed', () => transformed >= 10, { timeoutMs: 60_000 })
  await consumer.disconnect()
  await producer.disconnect()
  const reader = kafka.consumer({ groupId: `${names.group}-reader`, heartbeatInterval: 1000, sessionTimeout: 10_000 })
  await reader.connect()
  await reader.subscribe({ topic: output, fromBeginning: true })
  const read: string[] = []
  await reader.run({ eachMessage: async ({ partition, message }) => { read.push(`${partition}:${message.offset}:${String(message.key)}:${String(message.value)}`) } })
  await waitFor('every output record', () => read.length >= 10, { timeoutMs: 60_000 })
  await reader.disconnect()
  return { read: read.sort(), committed: await committed(module, names) }
}

// An admin script: topics, partitions, configs, offsets, groups.
const adminProgram: Program = async (module, brokers, names) => {
  const kafka = new module.Kafka({ brokers, clientId: 'admin-program', ...quiet })
  const admin = kafka.admin()
  await admin.connect()
  const out: Record<string, unknown> = {}
  out.created = await admin.createTopics({ topics: [{ topic: names.topic, numPartitions: 2, configEntries: [{ name: 'retention.ms', value: '3600000' }] }] })
  out.createdAgain = await admin.createTopics({ topics: [{ topic: names.topic, numPartitions: 2 }] })
  out.listed = (await admin.listTopics()).includes(names.topic)
  await admin.createPartitions({ topicPartitions: [{ topic: names.topic, count: 4 }] })
  // The new partitions reach the metadata a moment later (npm kafkajs once read 2 of the 4).
  const metadata = await waitFor('the metadata to show 4 partitions', async () => {
    const answer = await admin.fetchTopicMetadata({ topics: [names.topic] })
    return answer.topics[0].partitions.length >= 4 && answer
  }, { timeoutMs: 30_000, intervalMs: 100 })
  out.partitions = metadata.topics.map(t => ({ name: t.name, partitions: t.partitions.map(p => p.partitionId).sort() }))
  // Idempotent: partition 3 may have no leader yet, and npm kafkajs then resends the whole
  // request, partition 0's records too; without idempotence that wrote them twice (its
  // offsets read 4 where 2 were written), a difference in kafkajs, not in the drop-in.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  await producer.send({ topic: names.topic, messages: [{ value: 'a', partition: 0 }, { value: 'b', partition: 0 }, { value: 'c', partition: 3 }] })
  await producer.disconnect()
  out.offsets = (await admin.fetchTopicOffsets(names.topic)).sort((a, b) => a.partition - b.partition)
  await admin.alterConfigs({ validateOnly: false, resources: [{ type: module.ConfigResourceTypes.TOPIC, name: names.topic, configEntries: [{ name: 'retention.ms', value: '7200000' }, { name: 'cleanup.policy', value: 'compact' }] }] })
  // Config changes reach DescribeConfigs a moment later: ask until both show.
  const configs = await waitFor('DescribeConfigs to show the altered configs', async () => {
    const answer = await admin.describeConfigs({ resources: [{ type: module.ConfigResourceTypes.TOPIC, name: names.topic, configNames: ['retention.ms', 'cleanup.policy'] }], includeSynonyms: false })
    const values = new Map(answer.resources[0].configEntries.map(e => [e.configName, e.configValue]))
    return values.get('retention.ms') === '7200000' && values.get('cleanup.policy') === 'compact' && answer
  }, { timeoutMs: 30_000, intervalMs: 100 })
  out.configs = configs.resources.map(r => ({ resourceName: r.resourceName, resourceType: r.resourceType, entries: r.configEntries.map(e => [e.configName, e.configValue, e.configSource]).sort() }))
  await admin.setOffsets({ groupId: names.group, topic: names.topic, partitions: [{ partition: 0, offset: '1' }] })
  out.groupOffsets = await admin.fetchOffsets({ groupId: names.group, topics: [names.topic] })
  const groups = await admin.listGroups()
  out.groupListed = groups.groups.some(g => g.groupId === names.group)
  await admin.deleteGroups([names.group])
  await admin.deleteTopics({ topics: [names.topic] })
  await admin.disconnect()
  return out
}

describe('kafkajs programs: kafkats/kafkajs and kafkajs 2.2.4 print the same', { timeout: 240_000 }, () => {
  for (const [name, program] of [['producer with keys, headers and gzip', producerProgram], ['eachMessage with manual commits, pause and seek', eachMessageProgram], ['eachBatch with resolveOffset and commitOffsetsIfNecessary', eachBatchProgram], ['admin script', adminProgram], ['consume-transform-produce in transactions', transactionalProgram]] as const) {
    test(name, async () => {
      const outputs = await sideBySide(program)
      if (process.env.KJS_PRINT_OUTPUTS !== undefined) console.log(JSON.stringify(outputs, null, 1))
      assert.deepEqual(outputs.kafkats, outputs.kafkajs)
    })
  }
})

// kafkajs behaviours applications rely on, through kafkats/kafkajs against a real broker:
// seek/pause right after an un-awaited run(), resetOffsets' -1/-2 and their resolution, group
// join details, partitions assigned of unsubscribed topics, errors kafkajs gives (invalid
// topic names, missing partitions, unknown groups), and acks 1 on a transactional producer.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import { tracingChannel } from 'node:diagnostics_channel'
import { useBroker } from './support'
import { Kafka, KafkaJSNotImplemented, CompressionTypes, ConfigResourceTypes, KafkaJSAggregateError, type KafkaJSCreateTopicError, type KafkaJSDeleteTopicRecordsError, type KafkaJSProtocolError } from '../../kafkajs/index'
import type { EachBatchPayload, InstrumentationEvent } from '../../kafkajs/index'
import type { BatchProcessEventPayload, ConsumerEventPayloads, RequestEventPayload } from '../../kafkajs/instrumentation'
import { setCodecPackageLoaderForTests } from '../../protocol/compression'
import type { ProducerSendTrace } from '../../client/instrumentation'
import { eventLoopTurns, pollUntil, waitFor } from '../support/wait'

type GroupJoin = ConsumerEventPayloads['consumer.group_join']
type UnsubscribedTopics = ConsumerEventPayloads['consumer.received_unsubscribed_topics']

let brokers: string[] = []
let kafka: Kafka
let run = 0

useBroker(bootstrap => {
  brokers = bootstrap
  kafka = new Kafka({ brokers, clientId: 'kjs-behaviour', logLevel: 0 })
})

const unique = (label: string): string => `kjs-${label}-${process.pid}-${++run}-${Date.now().toString(36)}`

async function topicWith (partitions: number, values: string[] = []): Promise<string> {
  const topic = unique('topic')
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
  await admin.disconnect()
  if (values.length > 0) await produceTo(topic, values.map(value => ({ value, partition: 0 })))
  return topic
}

async function produceTo (topic: string, messages: Array<{ value: string, partition: number }>): Promise<void> {
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages })
  await producer.disconnect()
}

/** The group's committed offset of partition 0, polled until it is `expected` (or 30 s pass): what the last poll saw. */
async function committedOffsetOnceItIs (groupId: string, topic: string, expected: string): Promise<string | undefined> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return await pollUntil(async () => (await admin.fetchOffsets({ groupId, topics: [topic] }))[0].partitions[0].offset, committed => committed === expected)
  } finally {
    await admin.disconnect()
  }
}

describe('kafkats/kafkajs behaves as kafkajs does', { timeout: 300_000 }, () => {
  test('seek and pause called right after an un-awaited run() apply once the partitions are assigned', async () => {
    const topic = await topicWith(1, ['a', 'b', 'c', 'd'])
    const other = await topicWith(1, ['x'])
    const consumer = kafka.consumer({ groupId: unique('group'), heartbeatInterval: 1000, sessionTimeout: 10_000 })
    await consumer.connect()
    await consumer.subscribe({ topics: [topic, other], fromBeginning: true })
    const seen: string[] = []
    void consumer.run({ eachMessage: async ({ topic: t, message }) => { seen.push(`${t === topic ? 'topic' : 'other'}:${message.offset}`) } })
    consumer.seek({ topic, partition: 0, offset: '2' })
    consumer.pause([{ topic: other }])
    await waitFor('the records after the seek', () => seen.length >= 2, { timeoutMs: 60_000 })
    // A record written now comes after the consumer fetched on: the paused topic's record,
    // there from the start, would have come before it.
    await produceTo(topic, [{ value: 'e', partition: 0 }])
    await waitFor('the record written after the first two', () => seen.includes('topic:4'), { timeoutMs: 60_000 })
    assert.deepEqual(seen, ['topic:2', 'topic:3', 'topic:4'], 'from the seek on, and nothing of the paused topic')
    assert.deepEqual(consumer.paused(), [{ topic: other, partitions: [0] }])
    consumer.resume([{ topic: other }])
    await waitFor('the resumed topic', () => seen.includes('other:0'), { timeoutMs: 60_000 })
    await consumer.disconnect()
  })

  test('seek past the end right after run(): the reset reads the record once, and its offset is committed', async () => {
    const topic = await topicWith(1, ['a'])
    const groupId = unique('group')
    const consumer = kafka.consumer({ groupId, heartbeatInterval: 1000, sessionTimeout: 10_000 })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    const seen: string[] = []
    void consumer.run({ eachMessage: async ({ message }) => { seen.push(message.offset) } })
    // Committed at once (autoCommit), out of range, reset to the earliest offset: 0.
    consumer.seek({ topic, partition: 0, offset: '100' })
    await waitFor('the record after the reset', () => seen.length >= 1, { timeoutMs: 60_000 })
    const committed = await committedOffsetOnceItIs(groupId, topic, '1')
    // The seek's offset (100) stood above the record's: its resolve did not count, and offset 0 was handed out again and again.
    assert.equal(committed, '1', 'committed after the record')
    assert.deepEqual(seen.slice(0, 5), ['0'])
    await consumer.disconnect()
  })

  test('resetOffsets commits -1 / -2 as kafkajs does; fetchOffsets({ resolveOffsets }) turns them into offsets and commits those', async () => {
    const topic = await topicWith(1, ['a', 'b', 'c'])
    const admin = kafka.admin()
    await admin.connect()
    const groupId = unique('group')
    const fetch = async (resolveOffsets = false): Promise<string | undefined> => (await admin.fetchOffsets({ groupId, topics: [topic], resolveOffsets }))[0].partitions[0].offset
    await admin.resetOffsets({ groupId, topic, earliest: false })
    assert.equal(await fetch(), '-1')
    assert.equal(await fetch(true), '3')
    assert.equal(await fetch(), '3')
    await admin.resetOffsets({ groupId, topic, earliest: true })
    assert.equal(await fetch(), '-2')
    assert.equal(await fetch(true), '0')
    assert.equal(await fetch(), '0')
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '-1' }] })
    assert.equal(await fetch(), '-1')
    await admin.disconnect()
  })

  test('admin: an unknown group is described as Dead without error; deleting records of a missing partition fails before deleting anything', async () => {
    const topic = await topicWith(1, ['a', 'b', 'c'])
    const admin = kafka.admin()
    await admin.connect()
    const groupId = unique('nobody')
    const { groups } = await admin.describeGroups([groupId])
    assert.deepEqual(groups.map(g => ({ groupId: g.groupId, errorCode: (g as unknown as { errorCode: number }).errorCode, state: g.state })), [{ groupId, errorCode: 0, state: 'Dead' }])
    await assert.rejects(admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '2' }, { partition: 1, offset: '1' }] }), (error: KafkaJSDeleteTopicRecordsError) => {
      assert.equal(error.name, 'KafkaJSDeleteTopicRecordsError')
      assert.equal(error.retriable, false)
      assert.deepEqual(error.partitions.map(p => [p.partition, p.offset, p.error.name]), [[1, '1', 'KafkaJSBrokerNotFound']])
      return true
    })
    const offsets = await admin.fetchTopicOffsets(topic)
    assert.equal(offsets[0].low, '0', 'nothing was deleted')
    await admin.disconnect()
  })

  test('admin answers as kafkajs\'s: createPartitions undefined, describeConfigs without throttleTime and with errorMessage \'\', a failed createTopics a KafkaJSAggregateError, setOffsets and resetOffsets a consumer group', async () => {
    const topic = await topicWith(1, ['a'])
    const admin = kafka.admin()
    await admin.connect()
    try {
      assert.equal(await admin.createPartitions({ topicPartitions: [{ topic, count: 2 }] }), undefined)
      const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy'] }], includeSynonyms: false })
      assert.deepEqual(Object.keys(described), ['resources'])
      assert.equal(described.resources[0].errorMessage, '')
      assert.equal(described.resources[0].errorCode, 0)
      const fresh = unique('topic')
      await assert.rejects(admin.createTopics({ topics: [{ topic: fresh, numPartitions: -5 }, { topic }] }), (error: KafkaJSAggregateError) => {
        assert.ok(error instanceof KafkaJSAggregateError, `a KafkaJSAggregateError, not ${error.name}`)
        assert.equal(error.message, 'Topic creation errors')
        // Every topic's error, by name, as kafkajs's CreateTopics answer gives them (the existing topic's too).
        const errors = (error.errors as KafkaJSCreateTopicError[]).map(e => [e.name, e.topic, e.type])
        assert.deepEqual(errors, [[fresh, 'INVALID_PARTITIONS'], [topic, 'TOPIC_ALREADY_EXISTS']].sort((a, b) => a[0] < b[0] ? -1 : 1).map(([t, type]) => ['KafkaJSCreateTopicError', t, type]))
        return true
      })
      const byOffsets = unique('group')
      await admin.setOffsets({ groupId: byOffsets, topic, partitions: [{ partition: 0, offset: '1' }] })
      const byReset = unique('group')
      await admin.resetOffsets({ groupId: byReset, topic, earliest: true })
      const { groups } = await admin.describeGroups([byOffsets, byReset])
      assert.deepEqual(groups.map(g => [g.groupId, g.state, g.protocolType]), [[byOffsets, 'Empty', 'consumer'], [byReset, 'Empty', 'consumer']])
      assert.equal((await admin.fetchOffsets({ groupId: byOffsets, topics: [topic] }))[0].partitions[0].offset, '1')
    } finally {
      await admin.disconnect()
    }
  })

  test('producer: an invalid topic name is INVALID_TOPIC_EXCEPTION and the producer goes on; a transactional producer sends with acks 1 outside a transaction', async () => {
    const topic = await topicWith(1)
    const producer = kafka.producer()
    await producer.connect()
    await assert.rejects(producer.send({ topic: `${topic}-with a space`, messages: [{ value: 'x' }] }), (error: KafkaJSProtocolError) => {
      assert.equal(error.name, 'KafkaJSProtocolError')
      assert.equal(error.type, 'INVALID_TOPIC_EXCEPTION')
      return true
    })
    assert.equal((await producer.send({ topic, messages: [{ value: 'ok' }] }))[0].errorCode, 0)
    await producer.disconnect()
    const transactional = kafka.producer({ transactionalId: unique('txn'), maxInFlightRequests: 1 })
    await transactional.connect()
    const [result] = await transactional.send({ acks: 1, topic, messages: [{ value: 'acks-1' }] })
    assert.equal(result.baseOffset, '1')
    await assert.rejects(kafka.producer({ idempotent: true }).send({ acks: 1, topic, messages: [{ value: 'x' }] }), /invalidates the idempotent producer/)
    await transactional.disconnect()
  })

  test('producer: send() calls made one after another land in call order even when the first outgrows the buffer; a call with a bad record writes none of it', async () => {
    const topic = await topicWith(1)
    const producer = kafka.producer()
    await producer.connect()
    try {
      // 72 MiB: past the native producer's 64 MiB buffer, so the first call waits for room and the second must wait behind it.
      const big = Buffer.alloc(512 * 1024, 'b')
      const first = producer.send({ topic, messages: Array.from({ length: 144 }, () => ({ value: big, partition: 0 })) })
      const second = producer.send({ topic, messages: [{ value: 'after-1', partition: 0 }, { value: 'after-2', partition: 0 }] })
      const [[firstAnswer], [secondAnswer]] = await Promise.all([first, second])
      assert.equal(firstAnswer.baseOffset, '0')
      assert.equal(secondAnswer.baseOffset, '144')
      await assert.rejects(producer.send({ topic, messages: [{ value: 'good', partition: 0 }, { value: 5 as unknown as string, partition: 0 }] }), /send\(\) record 1 value/)
      const [afterBad] = await producer.send({ topic, messages: [{ value: 'last', partition: 0 }] })
      assert.equal(afterBad.baseOffset, '146', 'the refused call wrote nothing')
    } finally {
      await producer.disconnect()
    }
  })

  test('producer: each send() is one kafkats:producer:send trace answered with kafkajs\'s result; a call with a bad record is refused once, naming the record', async () => {
    const topic = await topicWith(2)
    const seen: Array<[string, ProducerSendTrace]> = []
    const channel = tracingChannel<unknown, ProducerSendTrace>('kafkats:producer:send')
    const phase = (name: string) => (context: ProducerSendTrace): void => { if (context.topic === topic) seen.push([name, context]) }
    const handlers = { start: phase('start'), end: phase('end'), asyncStart: phase('asyncStart'), asyncEnd: phase('asyncEnd'), error: phase('error') }
    channel.subscribe(handlers)
    const producer = kafka.producer()
    await producer.connect()
    let answer: unknown
    let refusal: unknown
    try {
      answer = await producer.send({ topic, messages: [{ value: 'a', partition: 0 }, { value: 'b', partition: 1 }, { value: 'c', partition: 0 }] })
      await assert.rejects(producer.send({ topic, messages: [{ value: 'good', partition: 0 }, { value: 5 as unknown as string, partition: 0 }] }), (error: unknown) => {
        refusal = error
        return error instanceof TypeError && /^send\(\) record 1 value: expected a Buffer, Uint8Array, string or null/.test(error.message)
      })
    } finally {
      channel.unsubscribe(handlers)
      await producer.disconnect()
    }
    const calls = [...new Set(seen.map(([, context]) => context))]
    assert.equal(calls.length, 2, 'one trace per send() call')
    const phasesOf = (context: ProducerSendTrace): string[] => seen.filter(([, c]) => c === context).map(([phase]) => phase)
    const [sent, refused] = calls
    assert.deepEqual(phasesOf(sent), ['start', 'end', 'asyncStart', 'asyncEnd'])
    assert.equal(sent.records, 3)
    assert.deepEqual(sent.result, answer)
    assert.deepEqual(answer, [
      { topicName: topic, partition: 0, errorCode: 0, baseOffset: '0', logAppendTime: '-1', logStartOffset: '0' },
      { topicName: topic, partition: 1, errorCode: 0, baseOffset: '0', logAppendTime: '-1', logStartOffset: '0' }
    ])
    assert.deepEqual(phasesOf(refused), ['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
    assert.equal(refused.records, 2)
    assert.equal(refused.error, refusal, 'the trace carries the error the call was refused with')
  })

  test('socketFactory opens every broker socket, with kafkajs\'s arguments (ssl undefined for plaintext, onConnect)', async () => {
    const topic = await topicWith(1)
    const asked: Array<{ host: string, port: number, ssl: unknown }> = []
    const viaFactory = new Kafka({
      brokers,
      clientId: 'kjs-socket-factory',
      logLevel: 0,
      socketFactory: ({ host, port, ssl, onConnect }) => {
        asked.push({ host, port, ssl })
        return net.connect({ host, port }, onConnect)
      }
    })
    const producer = viaFactory.producer()
    await producer.connect()
    const [sent] = await producer.send({ topic, messages: [{ value: 'through the factory' }] })
    await producer.disconnect()
    assert.equal(sent.errorCode, 0)
    assert.ok(asked.length >= 1, 'the factory opened the sockets')
    const [host, port] = brokers[0].split(':')
    assert.deepEqual(asked[0], { host, port: Number(port), ssl: undefined })
  })

  test('a codec whose package does not load is KafkaJSNotImplemented before anything is sent', async () => {
    const topic = await topicWith(1)
    const producer = kafka.producer()
    await producer.connect()
    setCodecPackageLoaderForTests(name => { throw new Error(`${name} is not installed here`) })
    try {
      await assert.rejects(producer.send({ topic, compression: CompressionTypes.Snappy, messages: [{ value: 'x' }] }), KafkaJSNotImplemented)
    } finally {
      setCodecPackageLoaderForTests(undefined)
    }
    assert.equal((await producer.send({ topic, messages: [{ value: 'plain' }] }))[0].baseOffset, '0', 'nothing was written by the refused send')
    await producer.disconnect()
  })

  test('consumer: subscribe({ topic: null }) is refused; run() without a subscription connects, runs and stops; heartbeatInterval 0 is taken', async () => {
    const consumer = kafka.consumer({ groupId: unique('group'), heartbeatInterval: 0 })
    await assert.rejects(consumer.subscribe({ topic: null as unknown as string }), /Missing required argument "topics"/)
    const events: string[] = []
    for (const name of [consumer.events.CONNECT, consumer.events.STOP, consumer.events.DISCONNECT]) consumer.on(name, e => { events.push(e.type) })
    await consumer.connect()
    await consumer.run()
    await consumer.disconnect()
    await waitFor('three events', () => events.length === 3, { timeoutMs: 60_000 })
    assert.deepEqual(events, ['consumer.connect', 'consumer.stop', 'consumer.disconnect'])
  })

  test('network.request events carry kafkajs\'s payload (connect\'s ApiVersions included); HEARTBEAT comes with each heartbeat sent', async () => {
    const admin = kafka.admin()
    const requests: Array<InstrumentationEvent<RequestEventPayload>> = []
    admin.on(admin.events.REQUEST, e => { requests.push(e) })
    await admin.connect()
    await admin.listTopics()
    await waitFor('a Metadata request event', () => requests.some(r => r.payload.apiName === 'Metadata'), { timeoutMs: 60_000 })
    const apiVersions = requests.find(r => r.payload.apiName === 'ApiVersions')
    assert.ok(apiVersions !== undefined, requests.map(r => r.payload.apiName).join(', '))
    assert.equal(apiVersions.type, 'admin.network.request')
    assert.deepEqual(Object.keys(apiVersions.payload).sort(), ['apiKey', 'apiName', 'apiVersion', 'broker', 'clientId', 'correlationId', 'createdAt', 'duration', 'pendingDuration', 'sentAt', 'size'])
    assert.equal(apiVersions.payload.apiKey, 18)
    assert.equal(apiVersions.payload.clientId, 'kjs-behaviour')
    await admin.disconnect()
    const topic = await topicWith(1)
    const consumer = kafka.consumer({ groupId: unique('group'), heartbeatInterval: 200, sessionTimeout: 10_000 })
    const heartbeats: Array<ConsumerEventPayloads['consumer.heartbeat']> = []
    consumer.on(consumer.events.HEARTBEAT, e => { heartbeats.push(e.payload) })
    await consumer.connect()
    await consumer.subscribe({ topic })
    void consumer.run({ eachMessage: async () => {} })
    await waitFor('two heartbeats', () => heartbeats.length >= 2, { timeoutMs: 60_000 })
    assert.equal(typeof heartbeats[0].memberId, 'string')
    assert.ok(heartbeats[0].groupGenerationId >= 1)
    await consumer.disconnect()
  })

  test('group join: the leader says so; records are v2 (magicByte 2); partitions of unsubscribed topics are left out and not consumed', async () => {
    const [a, b] = [await topicWith(2, ['a0', 'a1']), await topicWith(2, ['b0', 'b1'])]
    const groupId = unique('group')
    const first = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10_000, rebalanceTimeout: 5000 })
    const joins: GroupJoin[] = []
    first.on(first.events.GROUP_JOIN, e => { joins.push(e.payload) })
    const magic: unknown[] = []
    await first.connect()
    await first.subscribe({ topics: [a, b], fromBeginning: true })
    void first.run({ eachMessage: async ({ message }) => { magic.push((message as { magicByte?: number }).magicByte) } })
    await waitFor('the first member joined and read everything', () => joins.length >= 1 && magic.length >= 4, { timeoutMs: 60_000 })
    assert.equal(joins[0].isLeader, true)
    assert.equal(joins[0].leaderId, joins[0].memberId)
    assert.deepEqual(magic, [2, 2, 2, 2])
    const second = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10_000, rebalanceTimeout: 5000 })
    const secondJoins: GroupJoin[] = []
    const unsubscribed: UnsubscribedTopics[] = []
    const consumedBySecond: string[] = []
    second.on(second.events.GROUP_JOIN, e => { secondJoins.push(e.payload) })
    second.on(second.events.RECEIVED_UNSUBSCRIBED_TOPICS, e => { unsubscribed.push(e.payload) })
    await second.connect()
    await second.subscribe({ topic: a, fromBeginning: true })
    // A group-wide round robin over both topics gives the second member partitions of b too.
    void second.run({ eachMessage: async ({ topic, partition }) => { consumedBySecond.push(`${topic === a ? 'a' : topic === b ? 'b' : topic}-${partition}`) } })
    await waitFor('the second member joined', () => secondJoins.length >= 1, { timeoutMs: 60_000 })
    assert.equal(secondJoins[0].isLeader, false)
    assert.equal(secondJoins[0].memberAssignment[b], undefined)
    assert.deepEqual(unsubscribed.map(u => u.topicsNotSubscribed), [[b]])
    const ownA = secondJoins[0].memberAssignment[a] as number[]
    assert.ok(ownA.length > 0, JSON.stringify(secondJoins[0].memberAssignment))
    // New records in every partition of b, then in the second member's partitions of a: once
    // it consumed the latter, it fetched on past the time b's would have come.
    await produceTo(b, [0, 1].map(partition => ({ value: 'b-late', partition })))
    await produceTo(a, ownA.map(partition => ({ value: 'a-late', partition })))
    await waitFor('the second member to consume its new records of a', () => ownA.every(p => consumedBySecond.includes(`a-${p}`)), { timeoutMs: 60_000 })
    assert.ok(!consumedBySecond.some(c => c.startsWith('b-')), `nothing of the unsubscribed topic is consumed: ${consumedBySecond.join(', ')}`)
    await second.disconnect()
    await first.disconnect()
  })

  test('run() returns once the member joined: the group is Stable at once, and setOffsets refuses a running group', async () => {
    const topic = await topicWith(1)
    const groupId = unique('group')
    const consumer = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10_000 })
    await consumer.connect()
    await consumer.subscribe({ topic })
    await consumer.run({ eachMessage: async () => {} })
    const described = await consumer.describeGroup()
    assert.equal(described?.state, 'Stable')
    const admin = kafka.admin()
    await admin.connect()
    await assert.rejects(admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '1' }] }), { message: 'The consumer group must have no running instances, current state: Stable' })
    await admin.disconnect()
    await consumer.disconnect()
  })

  test('the leader assigns the topics it subscribes to (kafkajs), and a member left without partitions still reports FETCH', async () => {
    const [t0, t2] = [await topicWith(2), await topicWith(2)]
    const groupId = unique('group')
    const options = { groupId, heartbeatInterval: 500, sessionTimeout: 10_000, rebalanceTimeout: 5000, maxWaitTimeInMs: 100 }
    const leader = kafka.consumer(options)
    await leader.connect()
    await leader.subscribe({ topics: [t0] })
    await leader.run({ eachMessage: async () => {} })
    const second = kafka.consumer(options)
    const unsubscribed: UnsubscribedTopics[] = []
    const joins: GroupJoin[] = []
    second.on(second.events.RECEIVED_UNSUBSCRIBED_TOPICS, e => { unsubscribed.push(e.payload) })
    second.on(second.events.GROUP_JOIN, e => { joins.push(e.payload) })
    await second.connect()
    await second.subscribe({ topics: [t2] })
    void second.run({ eachMessage: async () => {} })
    await waitFor('the second member joined', () => joins.length >= 1 && unsubscribed.length >= 1, { timeoutMs: 60_000 })
    // Round robin over the leader's topic t0 between two members: one partition each; t2 is nobody's
    // (over both members' topics, the second would get a partition of t2 too).
    assert.deepEqual(unsubscribed[0].assignedTopics, [t0])
    assert.deepEqual(unsubscribed[0].topicsNotSubscribed, [t0])
    assert.deepEqual(joins[0].memberAssignment, {}, 'what it got is of a topic it does not subscribe to')
    const fetches: Array<{ numberOfBatches: number, nodeId: unknown }> = []
    second.on(second.events.FETCH, e => { fetches.push(e.payload) })
    await waitFor('FETCH events of the member without partitions', () => fetches.length >= 2, { timeoutMs: 10_000 })
    assert.equal(fetches[0].numberOfBatches, 0)
    assert.equal(typeof fetches[0].nodeId, 'string')
    await second.disconnect()
    await leader.disconnect()
  })

  // 180 is kafkajs's own test's maxBytesPerPartition: the aborted record and its marker (~150 bytes) come in one answer, so one batch.
  for (const maxBytesPerPartition of [undefined, 180]) {
    test(`a batch of only an aborted transaction is reported (START/END_BATCH_PROCESS, batchSize 0) and committed past its marker (maxBytesPerPartition ${maxBytesPerPartition ?? 'default'})`, async () => {
      const topic = await topicWith(1)
      const producer = kafka.producer({ transactionalId: unique('txn'), maxInFlightRequests: 1, idempotent: true })
      await producer.connect()
      const transaction = await producer.transaction()
      await transaction.send({ topic, messages: [{ key: 'k', value: 'aborted' }] })
      await transaction.abort()
      await producer.disconnect()
      const groupId = unique('group')
      const consumer = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10_000, maxWaitTimeInMs: 100, maxBytesPerPartition })
      const starts: BatchProcessEventPayload[] = []
      const ends: BatchProcessEventPayload[] = []
      const messages: string[] = []
      consumer.on(consumer.events.START_BATCH_PROCESS, e => { starts.push(e.payload) })
      consumer.on(consumer.events.END_BATCH_PROCESS, e => { ends.push(e.payload) })
      await consumer.connect()
      await consumer.subscribe({ topic, fromBeginning: true })
      await consumer.run({ eachMessage: async ({ message }) => { messages.push(String(message.value)) } })
      await waitFor('END_BATCH_PROCESS', () => ends.length >= 1, { timeoutMs: 60_000 })
      assert.deepEqual(starts[0], { topic, partition: 0, highWatermark: '2', offsetLag: '0', offsetLagLow: '1', batchSize: 0, firstOffset: '0', lastOffset: '1' })
      assert.equal(ends[0].lastOffset, '1')
      assert.deepEqual(messages, [])
      const committed = await committedOffsetOnceItIs(groupId, topic, '2')
      assert.equal(committed, '2', 'committed past the abort marker')
      await consumer.disconnect()
    })
  }

  test('a big fetch answer comes in parts, committed once after its last part; a pause in a part commits what it resolved at once', async () => {
    // 600 messages of 10 KB (6 MB) in one fetch answer: parts of about 2 MiB of messages.
    const topic = await topicWith(1)
    const producer = kafka.producer()
    await producer.connect()
    for (let i = 0; i < 12; i++) {
      await producer.send({ topic, messages: Array.from({ length: 50 }, (_, j) => ({ partition: 0, value: `${i * 50 + j}:`.padEnd(10_000, 'x') })) })
    }
    await producer.disconnect()
    const consumerOf = (groupId: string): ReturnType<Kafka['consumer']> => kafka.consumer({ groupId, maxBytesPerPartition: 16 * 1024 * 1024, maxBytes: 32 * 1024 * 1024, maxWaitTimeInMs: 100 })
    const committedOffsets = (consumer: ReturnType<Kafka['consumer']>): string[] => {
      const offsets: string[] = []
      consumer.on(consumer.events.COMMIT_OFFSETS, e => { offsets.push(e.payload.topics[0].partitions[0].offset) })
      return offsets
    }

    const consumer = consumerOf(unique('group'))
    const commits = committedOffsets(consumer)
    const parts: Array<[string, string]> = []
    const values: number[] = []
    await consumer.connect()
    try {
      await consumer.subscribe({ topic, fromBeginning: true })
      await consumer.run({
        eachBatch: async ({ batch }) => {
          parts.push([batch.firstOffset()!, batch.lastOffset()])
          for (const m of batch.messages) values.push(Number(String(m.value).split(':')[0]))
        }
      })
      // A commit per part would come before the last part's: all there by the time of 600's.
      await waitFor('every message and the commit of 600', () => values.length === 600 && commits.includes('600'), { timeoutMs: 60_000 })
      assert.deepEqual(values, Array.from({ length: 600 }, (_, i) => i))
      assert.ok(parts.length >= 3, `the answer was not split: ${JSON.stringify(parts)}`)
      assert.deepEqual(commits, ['600'], `a commit per part rather than per answer (parts ${JSON.stringify(parts)})`)
    } finally {
      await consumer.disconnect()
    }

    const paused = consumerOf(unique('group'))
    const pausedCommits = committedOffsets(paused)
    const pausedParts: Array<[string, string]> = []
    let resume: (() => void) | undefined
    await paused.connect()
    try {
      await paused.subscribe({ topic, fromBeginning: true })
      await paused.run({
        eachBatch: async ({ batch, pause }) => {
          pausedParts.push([batch.firstOffset()!, batch.lastOffset()])
          if (resume === undefined) resume = pause()
        }
      })
      await waitFor('the first part', () => pausedParts.length > 0, { timeoutMs: 60_000 })
      // The pause commits the part it resolved; the rest of the answer, already in hand, would
      // be handed out in the turns the commit took and the few after (no fetch, no timer).
      await waitFor('the commit of the paused part', () => pausedCommits.length > 0, { timeoutMs: 60_000 })
      await eventLoopTurns(20)
      const firstEnd = String(Number(pausedParts[0][1]) + 1)
      assert.ok(Number(firstEnd) < 600, `the first part was the whole answer: ${JSON.stringify(pausedParts)}`)
      assert.deepEqual(pausedCommits, [firstEnd], 'the paused part\'s offsets waited for the rest of the answer')
      assert.equal(pausedParts.length, 1, 'parts handed out while paused')
      resume!()
      await waitFor('the rest after resume', () => pausedCommits[pausedCommits.length - 1] === '600', { timeoutMs: 60_000 })
      assert.equal(pausedParts[1][0], firstEnd)
    } finally {
      await paused.disconnect()
    }
  })

  test('createPartitions places new partitions on the brokers given in assignments, and refuses a broker that does not exist', async () => {
    const topic = await topicWith(1)
    const admin = kafka.admin()
    await admin.connect()
    const { brokers: [broker] } = await admin.describeCluster()
    await assert.rejects(admin.createPartitions({ topicPartitions: [{ topic, count: 2, assignments: [[broker.nodeId + 1000]] }] }), { name: 'KafkaJSProtocolError', type: 'INVALID_REPLICA_ASSIGNMENT', message: 'Replica assignment is invalid' })
    assert.equal(await admin.createPartitions({ topicPartitions: [{ topic, count: 2, assignments: [[broker.nodeId]] }] }), undefined, 'kafkajs resolves undefined')
    const { topics: [described] } = await admin.fetchTopicMetadata({ topics: [topic] })
    assert.deepEqual(described.partitions.map(p => p.replicas).sort(), [[broker.nodeId], [broker.nodeId]])
    await admin.disconnect()
  })

  test('offsets a transaction of the same Kafka instance committed leave the consumer\'s uncommittedOffsets()', async () => {
    const topic = await topicWith(1, ['a', 'b', 'c'])
    const groupId = unique('group')
    const producer = kafka.producer({ transactionalId: unique('txn'), maxInFlightRequests: 1, idempotent: true })
    await producer.connect()
    const consumer = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10_000 })
    let uncommitted: EachBatchPayload['uncommittedOffsets'] | undefined
    let seen = 0
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, resolveOffset, uncommittedOffsets }) => {
        for (const message of batch.messages) { resolveOffset(message.offset); seen++ }
        uncommitted = uncommittedOffsets
      }
    })
    await waitFor('the three records', () => seen === 3, { timeoutMs: 60_000 })
    const pending = uncommitted!()
    assert.deepEqual(pending, { topics: [{ topic, partitions: [{ partition: '0', offset: '3' }] }] })
    const transaction = await producer.transaction()
    await transaction.sendOffsets({ consumerGroupId: groupId, topics: pending.topics })
    assert.deepEqual(uncommitted!().topics.length, 1, 'not before the commit')
    await transaction.commit()
    assert.deepEqual(uncommitted!(), { topics: [] })
    await producer.disconnect()
    await consumer.disconnect()
  })

  test('autoCommit: false with a transaction\'s sendOffsets: the consumer commits nothing itself, not for a seek, not at stop (as kafkajs)', async () => {
    const topic = await topicWith(1, ['a', 'b', 'c'])
    const out = await topicWith(1)
    const groupId = unique('group')
    const producer = kafka.producer({ transactionalId: unique('txn'), maxInFlightRequests: 1, idempotent: true })
    await producer.connect()
    const consumer = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10_000 })
    const offsetCommits: unknown[] = []
    consumer.on(consumer.events.REQUEST, e => { if (e.payload.apiName === 'OffsetCommit') offsetCommits.push(e.payload) })
    let seen = 0
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, resolveOffset }) => {
        const transaction = await producer.transaction()
        await transaction.send({ topic: out, messages: batch.messages.map(m => ({ value: m.value })) })
        const next = String(BigInt(batch.lastOffset()) + 1n)
        await transaction.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: batch.partition, offset: next }] }] })
        await transaction.commit()
        for (const message of batch.messages) resolveOffset(message.offset)
        seen += batch.messages.length
        // kafkajs: with autoCommit off a seek only moves the position (and the resolved offset); it commits nothing.
        if (seen === 3) consumer.seek({ topic, partition: 0, offset: '3' })
      }
    })
    await waitFor('the three records', () => seen === 3, { timeoutMs: 60_000 })
    assert.equal(await committedOffsetOnceItIs(groupId, topic, '3'), '3', 'the transaction committed the offsets')
    await consumer.disconnect()
    await producer.disconnect()
    assert.deepEqual(offsetCommits, [], 'no OffsetCommit from the consumer')
    assert.equal(await committedOffsetOnceItIs(groupId, topic, '3'), '3')
  })

  test('run() without a subscription joins the group as a member of no topic, as kafkajs does (describeGroup shows it)', async () => {
    const consumer = kafka.consumer({ groupId: unique('group') })
    const requests: string[] = []
    const joins: Array<{ memberId: string, memberAssignment: Record<string, number[]> }> = []
    consumer.on(consumer.events.REQUEST, e => { requests.push(e.payload.apiName) })
    consumer.on(consumer.events.GROUP_JOIN, e => { joins.push(e.payload) })
    await consumer.connect()
    await consumer.run({ eachMessage: async () => {} })
    try {
      for (const api of ['GroupCoordinator', 'JoinGroup', 'SyncGroup']) assert.ok(requests.includes(api), `${api} in ${requests.join(', ')}`)
      assert.equal(joins.length, 1)
      assert.deepEqual(joins[0].memberAssignment, {})
      const group = await consumer.describeGroup()
      assert.equal(group?.state, 'Stable')
      assert.deepEqual(group.members.map(m => m.memberId), [joins[0].memberId])
    } finally {
      await consumer.disconnect()
    }
  })
})

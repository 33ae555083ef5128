// The kafkajs drop-in against the in-process fake cluster, for what needs a deterministic
// broker: the idle FETCH loop ending with disconnect(), a failed rewind after a partition
// was lost mid-batch (logged, not dropped), and a long poll in flight that neither the first
// record after a join nor disconnect() waits for (tests/consumer/long-poll.test.ts has the
// native consumer's).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AssignerProtocol, Kafka, logLevel, type Assigner, type LogEntry } from '../../kafkajs/index'
import { FakeCluster } from '../../testing/index'
import { Client } from '../../index'
import { JoinGroup } from '../../protocol/apis/join-group'
import { Fetch, type FetchRequest } from '../../protocol/apis/fetch'
import { ListOffsets } from '../../protocol/apis/list-offsets'
import type { RequestLogEntry } from '../../testing/index'
import { trackTimers } from '../support/timers'
import { outcomeWithin, waitFor } from '../support/wait'


async function withCluster (body: (cluster: FakeCluster, kafka: Kafka, logs: LogEntry[]) => Promise<void>, partitions = 1): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions }] })
  const logs: LogEntry[] = []
  const kafka = new Kafka({ brokers: cluster.bootstrap, clientId: 'kjs-fake', logLevel: logLevel.INFO, logCreator: () => entry => { logs.push(entry) } })
  try {
    await body(cluster, kafka, logs)
  } finally {
    await cluster.close()
  }
}

test('disconnect() ends the idle FETCH loop of a member without partitions at once: its wait leaves no timer behind', async () => {
  await withCluster(async (_cluster, kafka) => {
    // An assigner that gives nobody anything: the member only waits out empty fetches.
    const nothing = (): Assigner => ({
      name: 'Nothing',
      version: 0,
      assign: async ({ members }) => members.map(m => ({ memberId: m.memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: {} }) })),
      protocol: ({ topics }) => ({ name: 'Nothing', metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics }) })
    })
    // The member's FETCH wait, told apart by its length (kafkajs waits maxWaitTimeInMs per empty fetch).
    const waits = trackTimers('timeout', 123_457)
    try {
      const idle = kafka.consumer({ groupId: 'g', heartbeatInterval: 100, sessionTimeout: 3000, maxWaitTimeInMs: 123_457, partitionAssigners: [nothing] })
      let fetchesStarted = 0
      idle.on(idle.events.FETCH_START, () => { fetchesStarted++ })
      await idle.connect()
      await idle.subscribe({ topic: 't', fromBeginning: true })
      await idle.run({ eachMessage: async () => {} })
      await waitFor('the member waiting out an empty fetch', () => fetchesStarted > 0 && waits.live.size > 0)
      await idle.disconnect()
      assert.equal(waits.live.size, 0, 'the idle loop\'s wait outlived disconnect()')
    } finally {
      waits.restore()
    }
  })
})

test('a partition lost while its batch was in the handler: the failed rewind to the unresolved messages is logged', async () => {
  await withCluster(async (cluster, kafka, logs) => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 't', messages: [{ value: 'a' }, { value: 'b' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'g', heartbeatInterval: 100, sessionTimeout: 3000, maxWaitTimeInMs: 100 })
    let memberId = ''
    consumer.on(consumer.events.GROUP_JOIN, event => { memberId = event.payload.memberId })
    let release!: () => void
    const held = new Promise<void>(resolve => { release = resolve })
    let noteLogged!: () => void
    const logged = new Promise<void>(resolve => { noteLogged = resolve })
    let inHandler = false
    let lost = false
    consumer.on(consumer.events.REBALANCING, () => { lost = true })
    await consumer.connect()
    await consumer.subscribe({ topic: 't', fromBeginning: true })
    await consumer.run({
      eachBatchAutoResolve: false,
      eachBatch: async () => {
        inHandler = true
        await held
      }
    })
    try {
      await waitFor('a batch in the handler', () => inHandler && memberId !== '')
      // The coordinator forgets the member: its next heartbeat learns it, and the partition is
      // lost. Its rejoin is held, so the partition is not back when the handler returns.
      cluster.intercept(JoinGroup, () => ({ hold: held.then(async () => await logged) }))
      cluster.fenceMember('g', memberId)
      await waitFor('the partition lost', () => lost)
      release()
      await waitFor('the failed rewind logged', () => logs.some(l => /Could not rewind/.test(l.log.message)))
      noteLogged()
      const entry = logs.find(l => /Could not rewind/.test(l.log.message))!
      assert.equal(entry.level, logLevel.WARN)
      assert.equal(entry.log.topic, 't')
      assert.equal(entry.log.partition, 0)
      assert.match(String(entry.log.error), /not assigned/)
    } finally {
      release()
      noteLogged()
      await consumer.disconnect()
    }
  })
})

/** Longer than any test may take: a poll that runs out did not end early. */
const TEN_MINUTES = 600_000
/** How long a test waits for what it expects (a bound for a busy machine, far below TEN_MINUTES). */
const BOUND_MS = 20_000
const isLongPoll = (entry: RequestLogEntry<FetchRequest>): boolean => entry.request.maxWaitMs === TEN_MINUTES

test('the first record after a join comes without waiting out maxWaitTimeInMs: partitions positioned while the long poll of partition 0 waits end it and are fetched at once', async () => {
  await withCluster(async (cluster, kafka) => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 't', messages: [{ partition: 2, value: 'a' }] })
    await producer.disconnect()
    // Partition 0 starts from a committed offset, 1 and 2 from the beginning (ListOffsets, held until the long poll of partition 0 came).
    // (kafkats's admin: the drop-in's setOffsets asks ShareGroupDescribe first, which the fake does not answer.)
    const client = new Client({ bootstrap: cluster.bootstrap })
    await client.admin.alterGroupOffsets('g', [{ topic: 't', partition: 0, offset: 0n }])
    await client.close()
    const poll = cluster.waitForRequest(Fetch, isLongPoll, BOUND_MS)
    cluster.intercept(ListOffsets, () => ({ hold: poll }))
    const consumer = kafka.consumer({ groupId: 'g', maxWaitTimeInMs: TEN_MINUTES })
    let received!: () => void
    const first = new Promise<string>(resolve => { received = () => resolve('received') })
    try {
      await consumer.connect()
      await consumer.subscribe({ topic: 't', fromBeginning: true })
      await consumer.run({ eachMessage: async () => { received() } })
      assert.equal(await outcomeWithin(first, BOUND_MS), 'resolved', 'the record in partition 2 waited for the long poll of partition 0')
      const fetches = cluster.requests(Fetch)
      const partitionsOf = (e: RequestLogEntry<FetchRequest>): number[] => e.request.topics.flatMap(t => t.partitions.map(p => p.partition))
      const shown = JSON.stringify(fetches.map(e => [partitionsOf(e), e.request.maxWaitMs, e.outcome]))
      const ended = await poll
      assert.deepEqual([...new Set(fetches.slice(0, fetches.indexOf(ended) + 1).flatMap(partitionsOf))], [0], `the scenario: partition 0 alone in the session when the poll began: ${shown}`)
      assert.notEqual(ended.outcome, 'answered', `the long poll was answered: ${shown}`)
    } finally {
      await consumer.disconnect()
    }
  }, 3)
})

test('disconnect() during a long poll resolves without waiting it out: the poll is never answered, the fetch session is closed', async () => {
  await withCluster(async (cluster, kafka) => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 't', messages: [{ value: 'a' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'g', maxWaitTimeInMs: TEN_MINUTES })
    let received = false
    await consumer.connect()
    await consumer.subscribe({ topic: 't', fromBeginning: true })
    await consumer.run({ eachMessage: async () => { received = true } })
    // After the record, the consumer's long poll is one of an open fetch session.
    const poll = await waitFor('a long poll after the record', () => received && cluster.requests(Fetch).find(e => e.outcome === 'pending' && isLongPoll(e)))
    assert.equal(await outcomeWithin(consumer.disconnect(), BOUND_MS), 'resolved')
    assert.notEqual(poll.outcome, 'answered')
    assert.deepEqual(cluster.fetchSessions(), [], 'the fetch session was left to the broker')
    assert.deepEqual(cluster.groupMembers('g'), [], 'the member did not leave')
  })
})

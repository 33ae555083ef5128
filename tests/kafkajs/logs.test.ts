// What kafkats/kafkajs logs and reports of its requests, as kafkajs 2.2.4 does, against the
// in-process fake cluster: the consumer's join, start, stop and rebalance lines at kafkajs's
// levels under its namespaces, the Connection namespace's DEBUG lines per request, and
// kafkajs's API names (GroupCoordinator, not FindCoordinator) in request events and log lines.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Kafka, logLevel, type LogEntry } from '../../kafkajs/index'
import { FakeCluster } from '../../testing/index'
import { waitFor } from '../support/wait'

const entry = (logs: LogEntry[], namespace: string, message: string): LogEntry | undefined =>
  logs.find(e => e.namespace === namespace && e.log.message === message)

/** A fake cluster with topic t of `partitions`, and a Kafka at `level` whose entries are kept in `logs`. */
async function withLogs (level: logLevel, partitions: number, body: (kafka: Kafka, logs: LogEntry[]) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions }] })
  const logs: LogEntry[] = []
  try {
    await body(new Kafka({ brokers: cluster.bootstrap, clientId: 'kjs-logs', logLevel: level, logCreator: () => e => { logs.push(e) } }), logs)
  } finally {
    await cluster.close()
  }
}

test('the consumer logs kafkajs\'s join, start, rebalance and stop lines; requests are logged and reported under kafkajs\'s API names', { timeout: 120_000 }, async () => {
  await withLogs(logLevel.DEBUG, 2, async (kafka, logs) => {
    const admin = kafka.admin()
    await admin.connect()
    await admin.disconnect()
    const connecting = entry(logs, 'Connection', 'Connecting')
    assert.ok(connecting !== undefined, 'the admin\'s connection says Connecting')
    assert.equal(connecting.label, 'DEBUG')
    assert.equal(connecting.log.clientId, 'kjs-logs')
    assert.deepEqual([connecting.log.ssl, connecting.log.sasl], [false, false])

    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 't', messages: [{ value: 'a', partition: 0 }] })
    await producer.disconnect()
    const produce = logs.find(e => e.namespace === 'Connection' && /^Request Produce\(key: 0, version: \d+\)$/.test(e.log.message))
    assert.ok(produce !== undefined, 'a DEBUG line for the Produce request')
    assert.equal(produce.level, logLevel.DEBUG)
    assert.ok(logs.some(e => e.namespace === 'Connection' && e.log.message === produce.log.message.replace('Request', 'Response') && e.log.correlationId === produce.log.correlationId), 'and one for its response')

    const apiNames = new Set<string>()
    const first = kafka.consumer({ groupId: 'g', heartbeatInterval: 100, sessionTimeout: 3000, maxWaitTimeInMs: 100 })
    first.on(first.events.REQUEST, event => { apiNames.add(event.payload.apiName) })
    let joins = 0
    first.on(first.events.GROUP_JOIN, () => { joins++ })
    await first.connect()
    await first.subscribe({ topic: 't', fromBeginning: true })
    await first.run({ eachMessage: async () => {} })
    await waitFor('the first member joined', () => joins >= 1)

    const starting = entry(logs, 'Consumer', 'Starting')
    assert.equal(starting?.label, 'INFO')
    assert.equal(starting.log.groupId, 'g')
    const joined = entry(logs, 'ConsumerGroup', 'Consumer has joined the group')
    assert.ok(joined !== undefined, 'INFO "Consumer has joined the group" under ConsumerGroup')
    assert.equal(joined.level, logLevel.INFO)
    assert.equal(joined.label, 'INFO')
    const { groupId, memberId, leaderId, isLeader, memberAssignment, groupProtocol, duration } = joined.log
    assert.deepEqual({ groupId, leaderId, isLeader, memberAssignment, groupProtocol }, { groupId: 'g', leaderId: memberId, isLeader: true, memberAssignment: { t: [0, 1] }, groupProtocol: 'RoundRobinAssigner' })
    assert.equal(typeof memberId, 'string')
    assert.equal(typeof duration, 'number')

    assert.ok(apiNames.has('GroupCoordinator'), `kafkajs calls FindCoordinator GroupCoordinator: ${[...apiNames].join(', ')}`)
    assert.ok(!apiNames.has('FindCoordinator'))
    assert.ok(logs.some(e => e.namespace === 'Connection' && /^Request GroupCoordinator\(key: 10, version: \d+\)$/.test(e.log.message)))
    assert.ok(!logs.some(e => /FindCoordinator/.test(e.log.message)))

    // A second member: the first learns of the rebalance, warns as kafkajs's Runner does, and rejoins.
    const second = kafka.consumer({ groupId: 'g', heartbeatInterval: 100, sessionTimeout: 3000, maxWaitTimeInMs: 100 })
    await second.connect()
    await second.subscribe({ topic: 't', fromBeginning: true })
    await second.run({ eachMessage: async () => {} })
    await waitFor('the first member warned of the rebalance', () => entry(logs, 'Runner', 'The group is rebalancing, re-joining') !== undefined, { timeoutMs: 30_000 })
    const rebalancing = entry(logs, 'Runner', 'The group is rebalancing, re-joining')!
    assert.equal(rebalancing.label, 'WARN')
    assert.equal(rebalancing.level, logLevel.WARN)
    assert.deepEqual([rebalancing.log.groupId, rebalancing.log.memberId], ['g', memberId])

    await second.disconnect()
    await first.stop()
    const stopped = entry(logs, 'Consumer', 'Stopped')
    assert.equal(stopped?.label, 'INFO')
    assert.equal(stopped.log.groupId, 'g')
    await first.disconnect()
  })
})

test('at INFO, no DEBUG line is written: the per-request lines cost nothing unless asked for', { timeout: 60_000 }, async () => {
  await withLogs(logLevel.INFO, 1, async (kafka, logs) => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 't', messages: [{ value: 'a' }] })
    await producer.disconnect()
    assert.deepEqual(logs.filter(e => e.level === logLevel.DEBUG), [])
    // Raised with setLogLevel, the lines come.
    kafka.logger().setLogLevel(logLevel.DEBUG)
    const later = kafka.producer()
    await later.connect()
    await later.send({ topic: 't', messages: [{ value: 'b' }] })
    await later.disconnect()
    assert.ok(logs.some(e => e.namespace === 'Connection' && e.log.message.startsWith('Request Produce(')))
  })
})

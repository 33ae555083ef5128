// Typed events: a misspelt event name or a wrong listener does not compile (the lines
// marked as expected errors below fail the build when the events are untyped), and the
// Client reports connections, reconnects, throttling, metadata changes and retries.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import '../../index'
import type { Client } from '../../client/client'
import { ConnectionError } from '../../client/errors'
import { internal } from '../../client/internal'
import type { ClientEvents } from '../../client/events'
import { Metadata, type MetadataResponse } from '../../protocol/apis/metadata'
import { BrokerError } from '../../protocol/errors'
import type { Consumer, FetchErrorEvent, HandlerErrorEvent } from '../../consumer/consumer'
import type { GroupConsumer } from '../../group/group-consumer'
import type { Producer } from '../../producer/producer'
import type { ShareConsumer } from '../../group/share-consumer'
import { fast, fixtures } from './fake-support'
import { waitFor } from '../support/wait'

const { cluster, client } = fixtures()

/** Every event of these names the client emits, in order. */
function record<K extends keyof ClientEvents & string> (k: Client, ...names: K[]): Array<{ name: K, event: ClientEvents[K][0] }> {
  const seen: Array<{ name: K, event: ClientEvents[K][0] }> = []
  for (const name of names) k.on(name, ((event: ClientEvents[K][0]) => { seen.push({ name, event }) }) as never)
  return seen
}

/**
 * Never called: it only has to compile. Each @ts-expect-error line must be an error, so
 * the build fails if event names or payloads stop being checked.
 */
export function eventTypesAreChecked (client: Client, producer: Producer, consumer: Consumer, group: GroupConsumer, share: ShareConsumer): void {
  // @ts-expect-error: misspelt
  share.on('acknowleged', () => {})
  share.on('fetchError', event => event.error.message)
  // One payload type per event, the same for every consumer: a listener written for one fits all.
  const onFetchError = (event: FetchErrorEvent): number => event.retryInMs + event.nodeId
  const onHandlerError = (event: HandlerErrorEvent): string => `${event.topic}-${event.partition}@${event.offset} ${event.outcome} ${event.attempt} ${event.retryInMs}`
  consumer.on('fetchError', onFetchError).on('handlerError', onHandlerError)
  group.on('fetchError', onFetchError).on('handlerError', onHandlerError)
  share.on('fetchError', onFetchError).on('handlerError', onHandlerError)
  // @ts-expect-error: misspelt event name
  client.on('protcolViolation', () => {})
  // @ts-expect-error: the payload has throttleTimeMs, a number
  client.on('throttle', (event: { throttleMs: string }) => event)
  client.on('throttle', event => event.throttleTimeMs.toFixed())
  client.on('leaderChange', event => event.leaderEpoch + event.partition)
  // @ts-expect-error: misspelt
  producer.on('ambigous', () => {})
  // @ts-expect-error: 'drain' has no payload
  producer.emit('drain', 1)
  producer.on('epochBump', event => event.producerId.toString())
  // @ts-expect-error: misspelt
  consumer.on('fetchErorr', () => {})
  // @ts-expect-error: a group's event on a direct consumer
  consumer.on('assigned', () => {})
  consumer.on('fetchError', event => event.retryInMs)
  // @ts-expect-error: misspelt
  group.once('asigned', () => {})
  group.on('assigned', event => event.added.length + event.identity.generation)
  group.on('truncation', event => event.resumeOffset)
  // @ts-expect-error: commitRefused carries an array
  group.on('commitRefused', (refused: { topic: string }) => refused)
  // A group member is a Consumer.
  const asConsumer: Consumer = group
  asConsumer.off('warning', () => {})
}

describe('the Client reports its connections', () => {
  test('connect and disconnect name the broker and the connection purpose', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    const seen = record(k, 'connect', 'disconnect')
    await k.metadata.refresh(['t'])
    await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    const connects = seen.filter(s => s.name === 'connect').map(s => s.event as ClientEvents['connect'][0])
    assert.deepEqual(connects.map(e => [e.nodeId, e.purpose]), [[-1, 'admin'], [1, 'produce']])
    assert.match(connects[1].broker, /^broker 1 \(127\.0\.0\.1:\d+\)$/)
    c.closeConnections()
    await waitFor('two disconnect events', () => seen.filter(s => s.name === 'disconnect').length === 2)
    const disconnects = seen.filter(s => s.name === 'disconnect').map(s => s.event as ClientEvents['disconnect'][0])
    // The bootstrap address's connection was closed by the client once broker 1 was known (no error); the broker closed the other.
    assert.deepEqual(disconnects.map(e => [e.nodeId, e.purpose, e.error instanceof ConnectionError]), [[-1, 'admin', false], [1, 'produce', true]])
    assert.equal(disconnects[0].error, undefined)
  })

  test('a bootstrap address\'s connection is closed once the cluster\'s brokers are known, and the client goes on through them', async () => {
    const c = await cluster({ brokers: 2, topics: [{ name: 't', partitions: 2 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    const seen = record(k, 'connect', 'disconnect')
    await k.metadata.refresh(['t'])
    await waitFor('the bootstrap connection closed', () => seen.some(s => s.name === 'disconnect'))
    assert.deepEqual(seen.map(s => [s.name, (s.event as ClientEvents['connect'][0]).nodeId]), [['connect', -1], ['disconnect', -1]])
    assert.equal(k[internal].brokers.openConnectionCount, 0)
    // Later requests go to the brokers the metadata named, not to the bootstrap address again.
    await k.metadata.refresh(['t'])
    await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    const connected = seen.filter(s => s.name === 'connect').map(s => (s.event as ClientEvents['connect'][0]).nodeId)
    assert.equal(connected.filter(id => id < 0).length, 1, `connections: ${connected.join(', ')}`)
    assert.ok(connected.slice(1).every(id => id > 0), `connections: ${connected.join(', ')}`)
  })

  test('a broker that cannot be reached is retried after a backoff: reconnect carries the attempt, the backoff and the reason', async () => {
    const port = await closedPort()
    const k = client({ bootstrap: [`127.0.0.1:${port}`], requestTimeoutMs: 400, retryBackoff: { initialMs: 20, maxMs: 40 } })
    const seen = record(k, 'reconnect', 'connect')
    await assert.rejects(k.request(Metadata, { topics: null }))
    const reconnects = seen.map(s => s.event as ClientEvents['reconnect'][0])
    assert.ok(reconnects.length >= 2, `${reconnects.length} reconnect events`)
    assert.deepEqual(reconnects.slice(0, 2).map(e => [e.nodeId, e.attempt]), [[-1, 1], [-1, 2]])
    assert.ok(reconnects.every(e => e.reason instanceof ConnectionError && /refused/.test(e.reason.message)))
    assert.ok(reconnects.every(e => e.backoffMs > 0 && e.backoffMs <= 40), reconnects.map(e => e.backoffMs).join(', '))
    assert.match(reconnects[0].broker, new RegExp(`127\\.0\\.0\\.1:${port}`))
  })

  test('a throttled answer is reported with the broker\'s throttleTimeMs', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    c.intercept(Metadata, () => ({ modify: (response: MetadataResponse) => ({ ...response, throttleTimeMs: 250 }) }), { times: 1 })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    const seen = record(k, 'throttle')
    await k.metadata.refresh(['t'])
    await k.metadata.refresh(['t'])
    assert.deepEqual(seen.map(s => s.event), [{ nodeId: -1, broker: `bootstrap broker ${c.bootstrap[0]} (admin)`, api: 'Metadata', throttleTimeMs: 250 }])
  })
})

describe('the Client reports metadata changes and retries', () => {
  test('a moved leader: requestRetry for the refused Produce, then leaderChange from the refresh', async () => {
    const c = await cluster({ brokers: 2, topics: [{ name: 't', partitions: 2 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    const seen = record(k, 'leaderChange', 'requestRetry', 'partitionCountChange')
    await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    assert.equal(c.leaderOf('t', 0), 1)
    c.moveLeader('t', 0, 2)
    await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('b') }] })
    const names = seen.map(s => s.name)
    assert.deepEqual(names, ['leaderChange', 'requestRetry'])
    assert.deepEqual(seen[0].event, { topic: 't', partition: 0, leaderId: 2, previousLeaderId: 1, leaderEpoch: c.partitionInfo('t', 0).leaderEpoch })
    const retry = seen[1].event as ClientEvents['requestRetry'][0]
    assert.equal(retry.api, 'Produce')
    assert.equal(retry.nodeId, 1)
    assert.equal(retry.topic, 't')
    assert.equal(retry.partition, 0)
    assert.equal(retry.attempt, 1)
    assert.ok(retry.error instanceof BrokerError && retry.error.type === 'NOT_LEADER_OR_FOLLOWER', String(retry.error))
  })

  test('a topic that gains partitions: partitionCountChange with both counts', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    const seen = record(k, 'partitionCountChange', 'leaderChange')
    await k.metadata.refresh(['t'])
    c.intercept(Metadata, () => ({
      modify: (response: MetadataResponse) => ({
        ...response,
        topics: response.topics.map(t => ({ ...t, partitions: [...t.partitions, { ...t.partitions[0], partitionIndex: 1 }] }))
      })
    }), { times: 1 })
    await k.metadata.refresh(['t'])
    assert.deepEqual(seen.map(s => [s.name, s.event]), [['partitionCountChange', { topic: 't', previousCount: 1, count: 2 }]])
  })
})

/** A port nothing listens on (taken, then freed). */
async function closedPort (): Promise<number> {
  const server = net.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise(resolve => server.close(resolve))
  return port
}

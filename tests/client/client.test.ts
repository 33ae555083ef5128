// The Client against the fake cluster: options checked at construction, close() ending
// everything made from it, answers matched to what was asked, and brokers that hang or
// break the protocol left behind instead of stalling every caller.
import { afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import '../../index' // client.admin
import { Client } from '../../index'
import { type ClientOptions } from '../../client/client'
import { Connection } from '../../client/connection'
import { ClientClosedError, ConnectionError, MalformedResponseError } from '../../client/errors'
import type { RequestEvent } from '../../client/events'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { Fetch } from '../../protocol/apis/fetch'
import { Metadata } from '../../protocol/apis/metadata'
import { Produce } from '../../protocol/apis/produce'
import { FakeClock, FakeCluster, withClock } from '../../testing/index'
import { Consumer } from '../../consumer/consumer'
import { GroupConsumer } from '../../group/group-consumer'
import { outcomeWithin, waitFor } from '../support/wait'
import { internal } from '../../client/internal'

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
})
const never = new Promise<never>(() => {})
const fast = { retryBackoff: { initialMs: 10, maxMs: 50 } }

async function cluster (options: Parameters<typeof FakeCluster.start>[0] = {}): Promise<FakeCluster> {
  const c = await FakeCluster.start({ log: false, ...options })
  cleanups.push(async () => await c.close())
  return c
}

function client (options: ClientOptions): Client {
  const c = new Client(options)
  cleanups.push(async () => await c.close())
  return c
}

/** How `promise` settled: its value or its error (no timing: nothing here depends on speed). */
async function settled<T> (promise: Promise<T>): Promise<{ value?: T, error?: unknown }> {
  try {
    return { value: await promise }
  } catch (error) {
    return { error }
  }
}

describe('client options are checked at construction', () => {
  const refuses = (options: unknown, kind: typeof TypeError | typeof RangeError, message: RegExp): void => {
    assert.throws(() => new Client(options as ClientOptions), (error: unknown) => {
      assert.ok(error instanceof kind, `${String(error)} is not a ${kind.name}`)
      assert.match((error as Error).message, message)
      return true
    })
  }

  test('a missing or malformed bootstrap names the option, the value and the expected shape', () => {
    refuses({}, TypeError, /client option bootstrap: expected 'host:port'.*got undefined/)
    refuses(undefined, TypeError, /new Client options: expected an object, got undefined/)
    refuses({ bootstrap: [] }, RangeError, /bootstrap: .*got an empty array/)
    refuses({ bootstrap: ['localhost:abc'] }, RangeError, /bootstrap\[0\]: expected 'host:port' with a port from 1 to 65535, got "localhost:abc"/)
    refuses({ bootstrap: ['a:1', 'b:99999'] }, RangeError, /bootstrap\[1\].*"b:99999"/)
    refuses({ bootstrap: [9092] }, TypeError, /bootstrap\[0\]: expected 'host:port', got 9092 \(a number\)/)
    refuses({ bootstrap: 'a:1,:2' }, RangeError, /bootstrap\[1\]/)
  })

  test('bad timeouts, sizes and backoffs are refused with what is allowed', () => {
    const bootstrap = ['localhost:9092']
    refuses({ bootstrap, requestTimeoutMs: '5000' }, TypeError, /client option requestTimeoutMs: expected an integer from 1 to 2147483647, got "5000" \(a string\)/)
    refuses({ bootstrap, requestTimeoutMs: 0 }, RangeError, /requestTimeoutMs/)
    refuses({ bootstrap, connectTimeoutMs: -1 }, RangeError, /connectTimeoutMs/)
    refuses({ bootstrap, metadataMaxAgeMs: 2 ** 31 }, RangeError, /metadataMaxAgeMs/)
    refuses({ bootstrap, maxResponseBytes: 10 }, RangeError, /maxResponseBytes: expected an integer from 1024 to 2147483647, got 10/)
    refuses({ bootstrap, retryBackoff: { initialMs: 500, maxMs: 100 } }, RangeError, /initialMs \(500\) must not exceed maxMs \(100\)/)
    refuses({ bootstrap, retryBackoff: { initial: 5, maxMs: 100 } }, TypeError, /initial is not an option; did you mean initialMs/)
    refuses({ bootstrap, clientId: 7 }, TypeError, /clientId/)
    refuses({ bootstrap, tls: 'yes' }, TypeError, /client option tls: expected an object/)
    refuses({ bootstrap, sasl: { mechanism: 'PLAIN', username: 'u' } }, TypeError, /sasl.password: expected a string, got undefined/)
    refuses({ bootstrap, sasl: { mechanism: 'GSSAPI', username: 'u', password: 'p' } }, RangeError, /sasl.mechanism/)
  })

  test('an unknown option is refused, with the likely intended name', () => {
    refuses({ bootstrap: ['localhost:9092'], brokers: ['localhost:9092'] }, TypeError, /client option brokers is not an option; did you mean bootstrap\?/)
    refuses({ bootstrap: ['localhost:9092'], requestTimeout: 5 }, TypeError, /requestTimeout is not an option; did you mean requestTimeoutMs\?/)
  })

  test('valid options construct without touching the network', async () => {
    // Every socket a client opens goes through socketFactory: none may be asked for.
    const opened: string[] = []
    const c = new Client({
      bootstrap: 'localhost:1, [::1]:2',
      clientId: 'x',
      requestTimeoutMs: 100,
      connectTimeoutMs: 100,
      retryBackoff: { initialMs: 1, maxMs: 2 },
      metadataMaxAgeMs: 1000,
      maxResponseBytes: 1 << 20,
      tls: false,
      socketFactory: ({ host, port }) => { opened.push(`${host}:${port}`); return new net.Socket() }
    })
    const events: string[] = []
    for (const name of ['connect', 'reconnect', 'disconnect'] as const) c.on(name, () => { events.push(name) })
    assert.deepEqual(opened, [], 'the constructor opened a socket')
    // Let anything the constructor started run, up to the first socket it would open.
    await new Promise(resolve => setImmediate(resolve))
    await c.close()
    assert.deepEqual(opened, [], 'a socket was opened before close()')
    assert.deepEqual(events, [])
    assert.equal(c[internal].brokers.openConnectionCount, 0)
  })
})

describe('many requests waiting for one connection', () => {
  test('are no listener leak: no MaxListenersExceededWarning', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    await k.metadata.refresh(['t'])
    const warnings: Error[] = []
    const onWarning = (warning: Error): void => { warnings.push(warning) }
    process.on('warning', onWarning)
    try {
      // 30 produces at once, before the leader's connection exists: each waits for it.
      await Promise.all(Array.from({ length: 30 }, async (_, i) => await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from(`r${i}`) }] })))
      await new Promise(resolve => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    assert.deepEqual(warnings.filter(w => w.name === 'MaxListenersExceededWarning').map(w => w.message), [])
  })
})

describe('socketFactory opens the brokers\' sockets', () => {
  test('every connection goes through it, with the broker\'s address and no TLS; records round-trip', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const asked: Array<{ host: string, port: number, tls: unknown }> = []
    const k = client({
      bootstrap: c.bootstrap,
      ...fast,
      socketFactory: ({ host, port, tls, onConnect }) => {
        asked.push({ host, port, tls })
        return net.connect({ host, port }, onConnect)
      }
    })
    const { baseOffset } = await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('through the factory') }] })
    const fetched = await k.fetchRaw({ topic: 't', partition: 0, offset: baseOffset })
    assert.deepEqual(fetched.records.map(r => r.value?.toString()), ['through the factory'])
    const [host, port] = c.bootstrap[0].split(':')
    assert.ok(asked.length >= 1)
    for (const a of asked) assert.deepEqual(a, { host, port: Number(port), tls: undefined })
  })

  test('a connection waits for onConnect, and a factory that throws fails the request with a ConnectionError naming it', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    let connectLater: (() => void) | undefined
    let saidConnected = false
    let writtenBefore = 0
    const slow = client({
      bootstrap: c.bootstrap,
      ...fast,
      socketFactory: ({ host, port, onConnect }) => {
        const socket = net.connect({ host, port })
        // Every write is counted as it is made: one before onConnect shows at once, no waiting needed.
        const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
        socket.write = ((...args: unknown[]) => {
          if (!saidConnected) writtenBefore++
          return write(...args)
        }) as typeof socket.write
        socket.once('connect', () => {
          connectLater = () => {
            saidConnected = true
            onConnect()
          }
        })
        return socket
      }
    })
    let answered = false
    const refresh = slow.metadata.refresh(['t']).then(() => { answered = true })
    const connect = await waitFor('the held connection attempt', () => connectLater)
    // The socket's 'connect' has been emitted (to the client's listeners too, if it had any).
    await new Promise(resolve => setImmediate(resolve))
    assert.deepEqual([writtenBefore, answered, c.requests(ApiVersions).length], [0, false, 0], 'nothing is written before the factory says the socket is connected')
    connect()
    await refresh
    assert.equal(answered, true)

    const [h, p] = c.bootstrap[0].split(':')
    await assert.rejects(Connection.connect({ host: h, port: Number(p), clientId: 'test', socketFactory: () => { throw new Error('no route to the proxy') } }), (error: Error) => {
      assert.ok(error instanceof ConnectionError)
      assert.match(error.message, /socketFactory threw: no route to the proxy/)
      return true
    })
  })

  test('a socketFactory that is not a function is refused at construction', () => {
    assert.throws(() => new Client({ bootstrap: ['localhost:9092'], socketFactory: 'net' as never }), /client option socketFactory: expected a function .*got "net"/)
  })
})

describe('close() ends what was made from the client', () => {
  test('registered resources are closed with a ClientClosedError, and waits for metadata end at once', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    // The client's clock stands still: its waits cannot run out, only close() can end them.
    const clock = new FakeClock()
    const k = client(withClock({ bootstrap: c.bootstrap, ...fast }, clock))
    const closedWith: unknown[] = []
    k[internal].register({ closeWithClient: error => { closedWith.push(error) } })
    const unregister = k[internal].register({ closeWithClient: () => { closedWith.push('unregistered one') } })
    unregister()
    // Waits for a topic that does not exist (yet): each one asks, then backs off on the clock.
    const waiting = k.metadata.waitForTopic('unseen', 60_000)
    const leader = k.metadata.waitForLeader('unseen', 0, 60_000)
    await waitFor('the waits to ask for the topic', () => c.requests(Metadata).some(r => (r.request.topics ?? []).some(t => t.name === 'unseen')))
    await k.close()
    for (const wait of [waiting, leader]) {
      assert.match(await outcomeWithin(wait, 30_000), /^rejected ClientClosedError/)
    }
    assert.equal(closedWith.length, 1)
    assert.ok(closedWith[0] instanceof ClientClosedError)
  })

  test('a connection attempt to a silent broker ends at once when the client closes', async () => {
    const silent = await silentServer()
    // Its own bounds are far off: the connect timeout (real) 120 s, the request deadline on a clock that stands still.
    const k = client(withClock({ bootstrap: [`127.0.0.1:${silent.port}`], connectTimeoutMs: 120_000, requestTimeoutMs: 120_000 }, new FakeClock()))
    const pending = k.request(Metadata, { topics: null })
    await waitFor('the connection to the silent broker', () => silent.accepted() > 0)
    const closed = k.close()
    assert.match(await outcomeWithin(pending, 30_000), /^rejected ClientClosedError/)
    assert.equal(await outcomeWithin(closed, 30_000), 'resolved')
  })

  test('every call on a closed client fails at once with ClientClosedError', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    // A call that tried the cluster anyway would find it gone and back off on a clock that stands still: it would never end.
    const k = new Client(withClock({ bootstrap: c.bootstrap, ...fast }, new FakeClock()))
    await k.metadata.refresh(['t'])
    await k.close()
    await c.close()
    assert.equal(k.closed, true)
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['request', async () => await k.request(Metadata, { topics: null })],
      ['produceRaw', async () => await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('x') }] })],
      ['fetchRaw', async () => await k.fetchRaw({ topic: 't', partition: 0, offset: 0n })],
      ['listOffsets', async () => await k.listOffsets({ topic: 't', partition: 0, spec: 'latest' })],
      ['metadata.refresh', async () => await k.metadata.refresh(['t'])],
      ['metadata.refreshAll', async () => await k.metadata.refreshAll()],
      ['metadata.waitForTopic', async () => await k.metadata.waitForTopic('t', 30_000)],
      ['admin.listTopics', async () => await k.admin.listTopics()],
      ['admin.createTopics', async () => await k.admin.createTopics([{ topic: 'n', numPartitions: 1 }])],
      ['connection', async () => await k[internal].connection(1, 'admin')],
      ['register', async () => k[internal].register({ closeWithClient: () => {} })]
    ]
    for (const [name, call] of calls) {
      assert.match(await outcomeWithin(call(), 30_000), /^rejected ClientClosedError/, name)
    }
  })
})

describe('what is made from one long-lived client', () => {
  test('100 rounds of a group consumer and a direct consumer created and closed leave no connections behind', async () => {
    const rounds = Number(process.env.KAFKATS_RESOURCE_ROUNDS ?? 100)
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    const base = c.connectionCount()
    const counts: number[] = []
    for (let i = 0; i < rounds; i++) {
      const group = new GroupConsumer(k, { groupId: `g${i}`, topics: ['t'], groupProtocol: 'classic', fromBeginning: true, sessionTimeoutMs: 1500, rebalanceTimeoutMs: 1500, heartbeatIntervalMs: 50, maxWaitMs: 20 })
      ;(await group.nextBatch())?.finish()
      await group.close()
      const direct = Consumer.assigned(k, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 20 })
      ;(await direct.nextBatch())?.finish()
      await direct.close()
      if (i % 10 === 9) {
        // The broker sees a closed socket a moment later (on a loaded machine, more than 20 ms
        // once): wait for that, so only a connection that stays open counts.
        await waitFor('the closed consumers\' connections to close at the broker', () => c.connectionCount() - base <= 3, { timeoutMs: 30_000 }).catch(() => {})
        counts.push(c.connectionCount() - base)
      }
    }
    // The client's shared connections (ListOffsets' 'fetch', admin to node 1, which FindCoordinator uses too) stay; nothing per consumer.
    assert.ok(counts.every(n => n <= 3), `connections opened by the rounds and still open, every 10 rounds: ${counts.join(', ')}`)
    assert.ok(k[internal].brokers.openConnectionCount <= base + 3, `the client holds ${k[internal].brokers.openConnectionCount} connections`)
  })

  test('a consumer waiting for records ends with ClientClosedError when its client closes', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    const consumer = Consumer.assigned(k, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 20 })
    const waiting = settled(consumer.nextBatch())
    await waitFor('the consumer to fetch', () => c.requests(Fetch).length > 0)
    await k.close()
    const outcome = await waiting
    assert.ok(outcome.error instanceof ClientClosedError, `nextBatch: ${String(outcome.error ?? outcome.value)}`)
    assert.equal(consumer.closed, true)
    assert.throws(() => Consumer.assigned(k, { assign: [{ topic: 't', partition: 0, offset: 0n }] }), ClientClosedError)
  })
})

describe('answers are matched to what was asked', () => {
  test('a Produce answer for another partition is refused, as an ambiguous outcome (written)', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 2 }, { name: 'u', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    await k.produceRaw({ topic: 'u', partition: 0, records: [{ value: Buffer.from('u0') }, { value: Buffer.from('u1') }] })
    // The broker answers as if the request had been for u-0 (baseOffset 2 there).
    c.intercept(Produce, () => ({ modify: r => ({ ...r, responses: r.responses.map(t => ({ ...t, name: 'u', topicId: c.topicId('u') })) }) }), { times: 1 })
    const outcome = await settled(k.produceRaw({ topic: 't', partition: 1, records: [{ value: Buffer.from('t1') }] }))
    assert.ok(outcome.error instanceof MalformedResponseError, `produceRaw resolved ${JSON.stringify(outcome.value, (_, v) => typeof v === 'bigint' ? String(v) : v)} / ${String(outcome.error)}`)
    assert.equal(outcome.error.written, true)
    assert.match(outcome.error.message, /Produce to t-1 .*the answer is for u-1, not for t-1/)
  })

  test('a Fetch answer carrying a partition that was not requested is refused', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 2 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    await k.produceRaw({ topic: 't', partition: 1, records: [{ value: Buffer.from('other') }] })
    // Partition 0 is empty; an answer that also carries partition 1 must not be taken for it.
    c.intercept(Fetch, () => ({
      modify: r => ({ ...r, responses: r.responses.map(t => ({ ...t, partitions: [...t.partitions, { ...t.partitions[0], partitionIndex: 1 }] })) })
    }))
    const extra = await settled(k.fetchRaw({ topic: 't', partition: 0, offset: 0n, maxWaitMs: 10 }))
    assert.ok(extra.error instanceof MalformedResponseError, `fetchRaw: ${String(extra.error ?? JSON.stringify(extra.value?.records.map(r => r.value?.toString())))}`)
    assert.match(extra.error.message, /Fetch of t-0 .*the answer is for .*-0, .*-1, not for t-0 alone/)
    c.clearInterceptors()
    c.intercept(Fetch, () => ({ modify: r => ({ ...r, responses: r.responses.map(t => ({ ...t, partitions: t.partitions.map(p => ({ ...p, partitionIndex: 1 })) })) }) }))
    const relabelled = await settled(k.fetchRaw({ topic: 't', partition: 0, offset: 0n, maxWaitMs: 10 }))
    assert.ok(relabelled.error instanceof MalformedResponseError, String(relabelled.error))
  })
})

describe('the request event', () => {
  test('every answered request is reported with its API, version, size and timing; a request that times out says so', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, clientId: 'observed', requestTimeoutMs: 300, ...fast })
    const events: RequestEvent[] = []
    k.on('request', event => { events.push(event) })
    const before = Date.now()
    await k.request(Metadata, { topics: [{ name: 't' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })
    const apiVersions = events.find(e => e.apiName === 'ApiVersions')
    const metadata = events.find(e => e.apiName === 'Metadata')
    assert.ok(apiVersions !== undefined && metadata !== undefined, events.map(e => e.apiName).join(', '))
    assert.equal(metadata.outcome, 'answered')
    assert.equal(metadata.apiKey, Metadata.key)
    assert.equal(metadata.clientId, 'observed')
    assert.match(metadata.broker, /^127\.0\.0\.1:\d+$/)
    assert.ok(metadata.apiVersion >= Metadata.minVersion && metadata.size > 20 && metadata.sentAt >= before - 1 && metadata.durationMs >= 0)
    assert.equal(metadata.inFlight, 0)
    c.intercept(Metadata, () => ({ delayMs: 1000 }), { times: 1 })
    await assert.rejects(k.request(Metadata, { topics: [{ name: 't' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }))
    const timedOut = events.filter(e => e.apiName === 'Metadata' && e.outcome === 'timeout')
    assert.equal(timedOut.length, 1)
    // Lower bounds only (a timer never fires early; a busy machine makes durations longer, never shorter).
    assert.ok(timedOut[0].durationMs >= 250, String(timedOut[0].durationMs))
  })
})

describe('a broker that accepts TCP but never answers', () => {
  test('a fresh client whose first bootstrap address is silent gets metadata from the next one within the connect timeout', async () => {
    const c = await cluster({ brokers: 2, topics: [{ name: 't', partitions: 2, replicationFactor: 2 }] })
    const silent = await silentServer()
    // Only the connect timeout can leave the silent broker: the request timeout is 120 s, and the
    // wait's own deadline is on a clock that stands still.
    const k = client(withClock({ bootstrap: [`127.0.0.1:${silent.port}`, ...c.bootstrap], connectTimeoutMs: 500, requestTimeoutMs: 120_000, ...fast }, new FakeClock()))
    assert.equal(await outcomeWithin(k.metadata.waitForTopic('t', 10_000), 60_000), 'resolved')
    assert.equal(silent.accepted(), 1)
  })

  test('metadata refreshes and admin calls leave a hung broker behind after it failed once', async () => {
    const c = await cluster({ brokers: 3, topics: [{ name: 't', partitions: 3, replicationFactor: 3 }] })
    const k = client({ bootstrap: c.bootstrap, connectTimeoutMs: 500, requestTimeoutMs: 1500, ...fast })
    await k.metadata.refresh(['t'])
    // Connections to every broker, as a busy client has; then broker 1 hangs (answers nothing, also to new connections).
    for (const nodeId of [1, 2, 3]) await k.request(Metadata, { topics: null }, { nodeId })
    c.intercept(Metadata, r => r.brokerId === 1 ? { hold: never } : undefined)
    c.intercept(ApiVersions, r => r.brokerId === 1 ? { hold: never } : undefined)
    c.clearRequests()
    for (let i = 0; i < 6; i++) await k.metadata.refresh(['t'])
    for (let i = 0; i < 6; i++) await k.admin.listTopics()
    // Broker 1 held one request until it timed out; after that failure nothing more was sent to it.
    const toHungBroker = c.requests().filter(r => r.brokerId === 1).map(r => r.apiName)
    assert.ok(toHungBroker.length <= 1, `12 metadata/admin calls sent ${toHungBroker.join(', ')} to the hung broker 1`)
  })
})

/** A TCP server that accepts connections and never writes a byte (a hung or SIGSTOPped broker). */
/** A server that accepts connections and never answers; `accepted()`: the connections it took. */
async function silentServer (): Promise<{ port: number, accepted: () => number }> {
  const sockets: net.Socket[] = []
  const server = net.createServer(socket => { sockets.push(socket); socket.on('error', () => {}) })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>(resolve => server.close(() => resolve()))
  })
  return { port: (server.address() as net.AddressInfo).port, accepted: () => sockets.length }
}

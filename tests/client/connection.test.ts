// Connection behaviour that a real broker cannot be made to show on demand: a response
// with the wrong correlation id, a malformed body, a broker that never answers, a socket
// that dies with requests in flight. A scripted TCP server plays the broker: it answers
// ApiVersions for real (so the connection comes up) and then does what each test says.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import * as path from 'node:path'
import { execFileSync } from 'node:child_process'
import { Connection } from '../../client/connection'
import { AbortedError, ConnectionError, MalformedResponseError, ProtocolViolationError, RequestTimeoutError, UnsupportedVersionError } from '../../client/errors'
import { Client } from '../../index'
import { PROTOCOL_VIOLATION_LIMIT, type ProtocolViolationEvent } from '../../client/brokers'
import { Consumer } from '../../consumer/consumer'
import { Fetch } from '../../protocol/apis/fetch'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { Metadata } from '../../protocol/apis/metadata'
import { ProtocolError } from '../../protocol/errors'
import { decodeRequestHeader, encodeResponseFrame } from '../../protocol/header'
import { Reader } from '../../protocol/reader'
import { Writer } from '../../protocol/writer'
import { allApis } from '../../protocol/apis/index'
import { closedPort } from '../support/ports'
import { waitFor } from '../support/wait'

interface Received { apiKey: number, apiVersion: number, correlationId: number, socket: net.Socket }
type Script = (request: Received) => void

const isFlexible = (apiKey: number, version: number): boolean => allApis.find(a => a.key === apiKey)?.isFlexible(version) ?? false

/** A server that answers ApiVersions like a 4.x broker and hands every other request to `script`. */
async function scriptedBroker (script: Script, versions = allApis.map(a => ({ apiKey: a.key, minVersion: a.minVersion, maxVersion: a.maxVersion }))): Promise<{ port: number, close: () => Promise<void>, sockets: net.Socket[] }> {
  const sockets: net.Socket[] = []
  const server = net.createServer(socket => {
    sockets.push(socket)
    let pending = Buffer.alloc(0)
    socket.on('error', () => {})
    socket.on('data', chunk => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = pending.readInt32BE(0)
        const frame = pending.subarray(4, 4 + size)
        pending = pending.subarray(4 + size)
        const header = decodeRequestHeader(new Reader(frame), isFlexible)
        if (header.apiKey === ApiVersions.key) {
          socket.write(encodeResponseFrame(ApiVersions, header.apiVersion, header.correlationId, {
            errorCode: 0, apiKeys: versions, throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false
          }))
        } else {
          script({ ...header, socket })
        }
      }
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>(resolve => server.close(() => resolve()))
    }
  }
}

const metadataResponse = { throttleTimeMs: 0, brokers: [{ nodeId: 1, host: 'h', port: 1, rack: null }], clusterId: 'c', controllerId: 1, topics: [], clusterAuthorizedOperations: -2147483648, errorCode: 0 }

function answerMetadata (request: Received, correlationId = request.correlationId): void {
  request.socket.write(encodeResponseFrame(Metadata, request.apiVersion, correlationId, metadataResponse))
}

test('pipelined requests are answered in order and matched by correlation id', async () => {
  const broker = await scriptedBroker(answerMetadata)
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    const results = await Promise.all([1, 2, 3, 4, 5].map(async () => await connection.send(Metadata, { topics: null })))
    assert.equal(results.length, 5)
    for (const r of results) assert.equal(r.clusterId, 'c')
    assert.equal(connection.versionFor(Metadata), Metadata.maxVersion)
  } finally {
    connection.close()
    await broker.close()
  }
})

test('a frame split into single bytes is reassembled', async () => {
  const broker = await scriptedBroker(request => {
    const frame = encodeResponseFrame(Metadata, request.apiVersion, request.correlationId, metadataResponse)
    let i = 0
    const drip = (): void => {
      if (i < frame.length) { request.socket.write(frame.subarray(i, i + 1)); i++; setImmediate(drip) }
    }
    drip()
  })
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    const response = await connection.send(Metadata, { topics: null })
    assert.equal(response.brokers[0].host, 'h')
  } finally {
    connection.close()
    await broker.close()
  }
})

/** A Fetch answer whose one partition's `records` are `size` bytes of `fill` (decoded as a view into the frame). */
function fetchAnswer (version: number, correlationId: number, size: number, fill: number): Buffer {
  const partition = {
    partitionIndex: 0, errorCode: 0, highWatermark: 0n, lastStableOffset: 0n, logStartOffset: 0n, divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 }, snapshotId: { endOffset: -1n, epoch: -1 }, abortedTransactions: null, preferredReadReplica: -1, records: Buffer.alloc(size, fill)
  }
  return encodeResponseFrame(Fetch, version, correlationId, { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: [{ topic: 't', topicId: '00000000-0000-0000-0000-000000000000', partitions: [partition] }], nodeEndpoints: [] })
}

test('each response keeps its bytes while later ones arrive: frames that share a read, and large frames read in pieces', async () => {
  // Sizes of the answers, in request order: two small ones written together (views into
  // one socket read), then large ones written in pieces (read straight into their frames),
  // then small ones again.
  const sizes = [100, 300, 200_000, 20_000, 70_000, 50, 17_000]
  const requests: Received[] = []
  const broker = await scriptedBroker(request => {
    requests.push(request)
    if (requests.length < sizes.length) return
    const frames = requests.map((r, i) => fetchAnswer(r.apiVersion, r.correlationId, sizes[i], i + 1))
    const pieces: Buffer[] = [Buffer.concat([frames[0], frames[1]])]
    for (const frame of frames.slice(2)) for (let at = 0; at < frame.length; at += 30_000) pieces.push(frame.subarray(at, at + 30_000))
    const drip = (): void => {
      const piece = pieces.shift()
      if (piece !== undefined) request.socket.write(piece, () => setTimeout(drip, 2))
    }
    drip()
  })
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    const request = { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [], forgottenTopicsData: [], rackId: '' }
    const responses = await Promise.all(sizes.map(async () => await connection.send(Fetch, request as never)))
    responses.forEach((response, i) => {
      const records = response.responses[0].partitions[0].records!
      assert.equal(records.length, sizes[i], `answer ${i}`)
      assert.ok(records.every(byte => byte === i + 1), `answer ${i} (${sizes[i]} bytes) was overwritten by a later read`)
    })
  } finally {
    connection.close()
    await broker.close()
  }
})

test('a response with an unexpected correlation id fails the request and closes the connection', async () => {
  const broker = await scriptedBroker(request => answerMetadata(request, request.correlationId + 7))
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    await assert.rejects(connection.send(Metadata, { topics: null }), (error: unknown) => {
      assert.ok(error instanceof ConnectionError, `got ${String(error)}`)
      assert.equal(error.written, true)
      assert.match(error.message, /correlation id/)
      return true
    })
    assert.equal(connection.isClosed, true)
  } finally {
    await broker.close()
  }
})

test('a malformed response body fails with ProtocolError and the connection is closed', async () => {
  const broker = await scriptedBroker(request => {
    // A correct header followed by a body whose broker array claims 1,000,000 entries.
    const w = new Writer(64)
    const at = w.reserve(4)
    w.int32(request.correlationId)
    if (Metadata.isFlexible(request.apiVersion)) w.uint8(0)
    w.int32(0)
    w.uvarint(1_000_001)
    w.patchInt32(at, w.offset - 4)
    request.socket.write(w.finish())
  })
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    // The request was written: the broker may have applied it, so the outcome is ambiguous, not a definite failure.
    await assert.rejects(connection.send(Metadata, { topics: null }), (error: unknown) => error instanceof MalformedResponseError && error instanceof ProtocolError && error.written)
    assert.equal(connection.isClosed, true)
  } finally {
    await broker.close()
  }
})

test('a hostile frame size is refused without allocating it', async () => {
  const broker = await scriptedBroker(request => {
    const w = new Writer(8)
    w.int32(0x7fffffff).int32(request.correlationId)
    request.socket.write(w.finish())
  })
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't', maxResponseBytes: 1024 * 1024 })
  try {
    await assert.rejects(connection.send(Metadata, { topics: null }), ConnectionError)
    assert.equal(connection.isClosed, true)
  } finally {
    await broker.close()
  }
})

test('a broker that never answers: the request times out as written, and the connection closes', async () => {
  const broker = await scriptedBroker(() => {})
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    const started = Date.now()
    const first = connection.send(Metadata, { topics: null }, { timeoutMs: 300 })
    const second = connection.send(Metadata, { topics: null }, { timeoutMs: 5000 })
    await assert.rejects(first, (error: unknown) => error instanceof RequestTimeoutError && error.written)
    // The other in-flight request shares the fate of the connection.
    await assert.rejects(second, (error: unknown) => error instanceof ConnectionError && error.written)
    assert.ok(Date.now() - started < 2000)
    assert.equal(connection.isClosed, true)
  } finally {
    await broker.close()
  }
})

test('the connection dying fails in-flight requests marked written', async () => {
  const broker = await scriptedBroker(request => request.socket.destroy())
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  await assert.rejects(connection.send(Metadata, { topics: null }), (error: unknown) => error instanceof ConnectionError && error.written)
  await assert.rejects(connection.send(Metadata, { topics: null }), (error: unknown) => error instanceof ConnectionError && !error.written)
  await broker.close()
})

test('aborting a written request answers the caller at once, and its late response is not given to the next request', async () => {
  const held: Received[] = []
  const broker = await scriptedBroker(request => held.push(request))
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    const controller = new AbortController()
    const first = connection.send(Metadata, { topics: null }, { signal: controller.signal })
    const second = connection.send(Metadata, { topics: null })
    await waitFor('both requests held by the broker', () => held.length >= 2)
    controller.abort(new Error('caller gave up'))
    await assert.rejects(first, (error: unknown) => error instanceof AbortedError && error.written)
    // The broker now answers both, in order: the first answer must be dropped, the second delivered.
    held[0].socket.write(encodeResponseFrame(Metadata, held[0].apiVersion, held[0].correlationId, { ...metadataResponse, clusterId: 'first' }))
    held[1].socket.write(encodeResponseFrame(Metadata, held[1].apiVersion, held[1].correlationId, { ...metadataResponse, clusterId: 'second' }))
    assert.equal((await second).clusterId, 'second')
    assert.equal(connection.isReady, true)
  } finally {
    connection.close()
    await broker.close()
  }
})

test('aborting before sending rejects as not written', async () => {
  const broker = await scriptedBroker(answerMetadata)
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    const controller = new AbortController()
    controller.abort()
    await assert.rejects(connection.send(Metadata, { topics: null }, { signal: controller.signal }), (error: unknown) => error instanceof AbortedError && !error.written)
  } finally {
    connection.close()
    await broker.close()
  }
})

test('versions with no overlap give a clear UnsupportedVersionError', async () => {
  const broker = await scriptedBroker(answerMetadata, [{ apiKey: ApiVersions.key, minVersion: 0, maxVersion: 4 }, { apiKey: Metadata.key, minVersion: 0, maxVersion: -1 }])
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't' })
  try {
    assert.throws(() => connection.versionFor(Metadata), (error: unknown) => error instanceof UnsupportedVersionError && /no version in common/.test((error as Error).message))
    await assert.rejects(connection.send(Metadata, { topics: null }), UnsupportedVersionError)
  } finally {
    connection.close()
    await broker.close()
  }
})

test('connecting to a closed port fails with a ConnectionError that says so', async () => {
  const port = await closedPort()
  await assert.rejects(Connection.connect({ host: '127.0.0.1', port, clientId: 't' }), (error: unknown) => {
    assert.ok(error instanceof ConnectionError)
    assert.match(error.message, /refused/)
    assert.equal(error.written, false)
    return true
  })
})

test('a broker that accepts TCP but never answers ApiVersions fails the connection within the connect timeout, as not written', async () => {
  const sockets: net.Socket[] = []
  const server = net.createServer(socket => { sockets.push(socket) })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  const started = Date.now()
  try {
    await assert.rejects(Connection.connect({ host: '127.0.0.1', port, clientId: 't', connectTimeoutMs: 300, requestTimeoutMs: 30_000 }), (error: unknown) => {
      assert.ok(error instanceof ConnectionError, String(error))
      assert.equal(error.written, false)
      assert.match(error.message, /did not answer ApiVersions within the connect timeout \(300 ms\)/)
      return true
    })
    assert.ok(Date.now() - started < 2000, `failed after ${Date.now() - started} ms (connect timeout 300 ms, request timeout 30 s)`)
  } finally {
    for (const s of sockets) s.destroy()
    await new Promise<void>(resolve => server.close(() => resolve()))
  }
})

/** Metadata naming the scripted broker itself as node 1, leader of t-0. */
function answerMetadataAsLeader (request: Received, port: number): void {
  request.socket.write(encodeResponseFrame(Metadata, request.apiVersion, request.correlationId, {
    ...metadataResponse,
    brokers: [{ nodeId: 1, host: '127.0.0.1', port, rack: null }],
    topics: [{ errorCode: 0, name: 't', topicId: '7f3c2f4e-4f7b-4b0e-9a51-0c1d2e3f4a5b', isInternal: false, topicAuthorizedOperations: -2147483648, partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] }] }]
  }))
}

/** A frame whose size prefix claims 2 GiB - 1. */
function hostileFrame (request: Received): void {
  request.socket.write(new Writer(8).int32(0x7fffffff).int32(request.correlationId).finish())
}

test('a broker that keeps breaking the protocol is reported and refused, not reconnected to silently forever', async () => {
  const broker = await scriptedBroker(request => request.apiKey === Metadata.key ? answerMetadataAsLeader(request, broker.port) : hostileFrame(request))
  const client = new Client({ bootstrap: [`127.0.0.1:${broker.port}`], retryBackoff: { initialMs: 10, maxMs: 2000 }, maxResponseBytes: 1024 * 1024 })
  const events: ProtocolViolationEvent[] = []
  client.on('protocolViolation', event => events.push(event))
  try {
    await client.metadata.refresh(['t'])
    const outcomes: string[] = []
    for (let i = 0; i < PROTOCOL_VIOLATION_LIMIT + 2; i++) {
      outcomes.push(await client.request(Fetch, { replicaId: -1, maxWaitMs: 10, minBytes: 1, maxBytes: 1024, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [], forgottenTopicsData: [], rackId: '' }, { nodeId: 1, purpose: 'fetch' })
        .then(() => 'answered', (error: Error) => `${error.name}${(error as { written?: boolean }).written === true ? ' (written)' : ''}`))
    }
    assert.deepEqual(outcomes, ['ConnectionError (written)', 'ConnectionError (written)', 'ConnectionError (written)', 'ProtocolViolationError', 'ProtocolViolationError'])
    assert.equal(events.length, 1)
    assert.equal(events[0].nodeId, 1)
    assert.equal(events[0].violations, PROTOCOL_VIOLATION_LIMIT)
    assert.match(events[0].error.message, /broker 1 \(127\.0\.0\.1:\d+\) broke the Kafka protocol on 3 connections in a row \(last: .*response frame of 2147483647 bytes \(allowed: 4 to 1048576\).*raise the client option maxResponseBytes/)
    // Other purposes' connections to the broker that answer properly are not affected by the streak's count, but by its refusal.
    await assert.rejects(client.request(Metadata, { topics: null }, { nodeId: 1 }), ProtocolViolationError)
  } finally {
    await client.close()
    await broker.close()
  }
})

test('a consumer whose broker keeps breaking the protocol reports a ProtocolViolationError and stops reconnecting at full speed', async () => {
  const broker = await scriptedBroker(request => request.apiKey === Metadata.key ? answerMetadataAsLeader(request, broker.port) : hostileFrame(request))
  const client = new Client({ bootstrap: [`127.0.0.1:${broker.port}`], retryBackoff: { initialMs: 10, maxMs: 5000 } })
  const consumer = Consumer.assigned(client, { assign: [{ topic: 't', partition: 0, offset: 0n }], maxWaitMs: 10 })
  const errors: Error[] = []
  consumer.on('fetchError', event => errors.push(event.error))
  try {
    await new Promise(resolve => setTimeout(resolve, 2000))
    const violations = errors.filter(e => e instanceof ProtocolViolationError)
    assert.ok(violations.length >= 1, `fetch errors reported: ${errors.map(e => e.name).join(', ') || 'none'}`)
    // Two for metadata (the bootstrap address, then node 1), at most PROTOCOL_VIOLATION_LIMIT for fetching in 2 s (backoff 10 ms: without the limit, dozens).
    assert.ok(broker.sockets.length <= 2 + PROTOCOL_VIOLATION_LIMIT, `${broker.sockets.length} connections in 2 s`)
  } finally {
    await consumer.close()
    await client.close()
    await broker.close()
  }
})

test('requests and group commits work where the global performance is missing (jest 25/26 sandboxes)', () => {
  // A child process without the global: what test runners' sandboxes give the code they load.
  const dist = path.join(__dirname, '..', '..')
  const script = `
    delete globalThis.performance
    const { FakeCluster } = require(${JSON.stringify(path.join(dist, 'testing', 'index.js'))})
    const { Client } = require(${JSON.stringify(path.join(dist, 'index.js'))})
    ;(async () => {
      const cluster = await FakeCluster.start({ log: false, topics: [{ name: 't', partitions: 1 }] })
      const client = new Client({ bootstrap: cluster.bootstrap })
      await client.producer().send({ topic: 't', partition: 0, value: 'a' })
      const group = client.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true })
      const handed = await group.nextBatch()
      handed.finish()
      await group.commit()
      await group.close()
      await client.close()
      await cluster.close()
      console.log('ok', typeof globalThis.performance)
    })().catch(error => { console.error(error); process.exit(1) })`
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 })
  assert.equal(out.trim(), 'ok undefined')
})

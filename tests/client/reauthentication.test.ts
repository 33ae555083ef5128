// KIP-368 re-authentication on one connection, against a scripted broker that grants
// short SASL sessions: the connection authenticates again before each session ends,
// never lets another request in between SaslHandshake and SaslAuthenticate (a real broker
// reads it as part of the SASL exchange and closes the connection), and every request,
// in flight or sent meanwhile, is answered.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import { Connection } from '../../client/connection'
import { AuthenticationError } from '../../client/errors'
import { Client } from '../../index'
import { TypedEmitter, type AuthenticateEvent, type ClientEvents } from '../../client/events'
import { Instrumentation } from '../../client/instrumentation'
import { Log } from '../../client/logger'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { allApis } from '../../protocol/apis/index'
import { Metadata } from '../../protocol/apis/metadata'
import { SaslAuthenticate } from '../../protocol/apis/sasl-authenticate'
import { SaslHandshake } from '../../protocol/apis/sasl-handshake'
import { decodeRequestHeader, encodeResponseFrame } from '../../protocol/header'
import { Reader } from '../../protocol/reader'
import { sleep, waitFor } from '../support/wait'

const SESSION_MS = 300
const isFlexible = (apiKey: number, version: number): boolean => allApis.find(a => a.key === apiKey)?.isFlexible(version) ?? false

/** Answers ApiVersions, SASL (sessions of SESSION_MS) and Metadata (after a delay), and notes what it saw. */
async function saslBroker (options: { refuseReauthentication?: boolean, refuseAll?: boolean } = {}): Promise<{ port: number, events: string[], close: () => void }> {
  const events: string[] = []
  const sockets: net.Socket[] = []
  const server = net.createServer(socket => {
    sockets.push(socket)
    let pending = Buffer.alloc(0)
    let inSasl = false
    // Kafka answers a connection's requests in order; so does this (a chain of writes).
    let answered = Promise.resolve()
    const answer = (delayMs: number, frame: () => Buffer): void => {
      answered = answered.then(async () => { await new Promise(resolve => setTimeout(resolve, delayMs)); if (!socket.destroyed) socket.write(frame()) })
    }
    socket.on('error', () => {})
    socket.on('data', chunk => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const frame = pending.subarray(4, 4 + pending.readInt32BE(0))
        pending = pending.subarray(4 + frame.length)
        const { apiKey, apiVersion, correlationId } = decodeRequestHeader(new Reader(frame), isFlexible)
        if (apiKey === ApiVersions.key) {
          answer(0, () => encodeResponseFrame(ApiVersions, apiVersion, correlationId, { errorCode: 0, apiKeys: allApis.map(a => ({ apiKey: a.key, minVersion: a.minVersion, maxVersion: a.maxVersion })), throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false }))
        } else if (apiKey === SaslHandshake.key) {
          events.push('handshake')
          inSasl = true
          answer(0, () => encodeResponseFrame(SaslHandshake, apiVersion, correlationId, { errorCode: 0, mechanisms: ['PLAIN'] }))
        } else if (apiKey === SaslAuthenticate.key) {
          events.push('authenticate')
          inSasl = false
          if (options.refuseAll === true || (options.refuseReauthentication === true && events.includes('metadata'))) {
            // As Kafka does when a credential was deleted mid-session: refuse, then close the connection (a moment later).
            events.push('refused')
            answer(0, () => encodeResponseFrame(SaslAuthenticate, apiVersion, correlationId, { errorCode: 58, errorMessage: 'Authentication failed during re-authentication due to invalid credentials with SASL mechanism PLAIN', authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n }))
            setTimeout(() => socket.destroy(), 50)
            continue
          }
          answer(0, () => encodeResponseFrame(SaslAuthenticate, apiVersion, correlationId, { errorCode: 0, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: BigInt(SESSION_MS) }))
        } else {
          if (inSasl) events.push('VIOLATION: a request inside the SASL exchange')
          if (events.includes('refused')) events.push('VIOLATION: a request after the refused re-authentication')
          events.push('metadata')
          answer(40, () => encodeResponseFrame(Metadata, apiVersion, correlationId, { throttleTimeMs: 0, brokers: [], clusterId: 'c', controllerId: 1, topics: [], clusterAuthorizedOperations: -2147483648, errorCode: 0 }))
        }
      }
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    events,
    close: () => { for (const s of sockets) s.destroy(); server.close() }
  }
}

test('a connection re-authenticates before each session ends, between requests, and every request is answered', async () => {
  const broker = await saslBroker()
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't', sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } })
  try {
    const answers: Array<Promise<unknown>> = []
    const handshakes = (): number => broker.events.filter(e => e === 'handshake').length
    // A steady stream of requests (paced as an application sends them), several always in
    // flight when a re-authentication is due, until two re-authentications happened: the
    // count decides, not how much time passed. The cap only stops a client that never re-authenticates.
    const cap = 60_000 / 15
    while (handshakes() < 3 && answers.length < cap) {
      answers.push(connection.send(Metadata, { topics: null }))
      await sleep(15)
    }
    const results = await Promise.allSettled(answers)
    assert.deepEqual(results.filter(r => r.status === 'rejected'), [], 'no request failed')
    assert.equal(connection.isClosed, false)
    assert.deepEqual(broker.events.filter(e => e.startsWith('VIOLATION')), [])
    assert.ok(handshakes() >= 3, `authenticated ${handshakes()} time(s) over ${answers.length} requests paced 15 ms apart, with ${SESSION_MS} ms sessions`)
    assert.equal(broker.events.filter(e => e === 'metadata').length, answers.length)
  } finally {
    connection.close()
    broker.close()
  }
})

test('each authentication is reported as the client\'s authenticate event: the first, then the re-authentications', async () => {
  const broker = await saslBroker()
  const events = new TypedEmitter<ClientEvents>()
  const seen: AuthenticateEvent[] = []
  events.on('authenticate', event => { seen.push(event) })
  const instrumentation = new Instrumentation('t', new Log('t'), events)
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't', nodeId: 7, purpose: 'produce', instrumentation, sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } })
  try {
    assert.deepEqual(seen, [{ nodeId: 7, broker: `127.0.0.1:${broker.port}`, purpose: 'produce', mechanism: 'PLAIN', sessionLifetimeMs: SESSION_MS, reauthentication: false }])
    // The re-authentication is due at 85–95 % of the session (a real timer in the connection); the bound only stops a hang.
    await waitFor('a re-authentication', () => seen.length >= 2, { timeoutMs: 30_000 })
    assert.ok(seen.slice(1).every(e => e.reauthentication), 'later ones are re-authentications')
  } finally {
    connection.close()
    broker.close()
  }
})

test('a refused re-authentication (a credential deleted mid-session) fails the requests held for it with the AuthenticationError, without writing them', async () => {
  const broker = await saslBroker({ refuseReauthentication: true })
  const connection = await Connection.connect({ host: '127.0.0.1', port: broker.port, clientId: 't', sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } })
  try {
    const answers: Array<Promise<unknown>> = []
    // Requests keep coming until the session ends; those sent during the re-authentication are held for it.
    while (!connection.isClosed && answers.length < 200) {
      const answer = connection.send(Metadata, { topics: null })
      answer.catch(() => {}) // looked at below, all at once
      answers.push(answer)
      await sleep(15) // paces the requests as an application sends them
    }
    const results = await Promise.allSettled(answers)
    const failed = results.filter(r => r.status === 'rejected').map(r => (r as PromiseRejectedResult).reason as Error)
    assert.ok(failed.length > 0, 'some request waited for the re-authentication')
    for (const error of failed) {
      assert.ok(error instanceof AuthenticationError, `failed with ${String(error)}`)
      assert.equal(error.code, 58)
    }
    assert.deepEqual(broker.events.filter(e => e.startsWith('VIOLATION')), [], 'nothing was written after the refusal')
    await assert.rejects(connection.send(Metadata, { topics: null }), AuthenticationError, 'a later request gets the refusal too')
  } finally {
    connection.close()
    broker.close()
  }
})

test('a refused identity is not announced as a reconnect: no retry follows it', async () => {
  const broker = await saslBroker({ refuseAll: true })
  const client = new Client({ bootstrap: [`127.0.0.1:${broker.port}`], sasl: { mechanism: 'PLAIN', username: 'u', password: 'wrong' } })
  const reconnects: unknown[] = []
  let refusals = 0
  client.on('reconnect', event => { reconnects.push(event) })
  client.on('authenticationError', () => { refusals++ })
  try {
    await assert.rejects(client.admin.describeCluster({ timeoutMs: 30_000 }), AuthenticationError)
    await assert.rejects(client.producer().send({ topic: 't', value: 'x' }), AuthenticationError)
    assert.ok(refusals >= 1)
    assert.deepEqual(reconnects, [])
  } finally {
    await client.close()
    broker.close()
  }
})

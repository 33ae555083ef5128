// Settings that can never work fail at once with an error that names them, instead of being
// retried until a timeout: TLS options node:tls refuses (an encrypted key without its
// passphrase, a CA or certificate that does not parse, an expired client certificate) at
// Client construction, and a client of the wrong security protocol for the listener (a
// plaintext client on a TLS listener, a TLS client on a plaintext one) at the first
// connection. A listener that accepts and closes (a broker starting, a proxy without a
// backend) is retried within the caller's bound by every kind of caller, the group
// consumer included, and the error says what such a close usually means.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client, ConnectionError, GroupConsumer, TlsError } from '../../index'
import { clientCertificateProblem } from '../../client/tls'
import { FakeClock, withClock } from '../../testing/index'
import { moveThroughBackoffs } from '../support/clock'

const openssl = spawnSync('openssl', ['version']).status === 0
const DAY_MS = 24 * 3600 * 1000

describe('TLS options refused at Client construction', { skip: openssl ? false : 'needs openssl to make certificates' }, () => {
  let dir: string
  const read = (name: string): Buffer => fs.readFileSync(path.join(dir, name))
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-tls-'))
    const run = (...args: string[]): void => { assert.equal(spawnSync('openssl', args, { cwd: dir }).status, 0, `openssl ${args.join(' ')}`) }
    run('req', '-x509', '-newkey', 'rsa:2048', '-keyout', 'encrypted.key', '-out', 'client.pem', '-days', '1', '-subj', '/CN=kafkats-client', '-passout', 'pass:secret')
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other.key', '-out', 'other.pem', '-days', '1', '-subj', '/CN=other')
  })
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  const construct = (tls: object): Client => new Client({ bootstrap: ['127.0.0.1:9092'], tls })

  test('an encrypted key without its passphrase, or with a wrong one, is a TypeError naming tls.key and tls.passphrase', async () => {
    assert.throws(() => construct({ cert: read('client.pem'), key: read('encrypted.key') }), (error: unknown) => error instanceof TypeError && /tls\.key/.test(error.message) && /encrypted and no tls\.passphrase/.test(error.message))
    assert.throws(() => construct({ cert: read('client.pem'), key: read('encrypted.key'), passphrase: 'wrong' }), (error: unknown) => error instanceof TypeError && /tls\.passphrase does not decrypt it/.test(error.message))
    await construct({ cert: read('client.pem'), key: read('encrypted.key'), passphrase: 'secret' }).close()
  })

  test('a CA or certificate that does not parse, and a key of another certificate, are TypeErrors naming the option', () => {
    assert.throws(() => construct({ ca: '/etc/kafka/ca.pem' }), (error: unknown) => error instanceof TypeError && /tls\.ca: expected a PEM/.test(error.message) && /file path/.test(error.message))
    assert.throws(() => construct({ ca: [read('other.pem'), 'garbage'] }), (error: unknown) => error instanceof TypeError && /tls\.ca\[1\]/.test(error.message))
    assert.throws(() => construct({ cert: 'not a certificate', key: read('other.key') }), (error: unknown) => error instanceof TypeError && /tls\.cert: expected a PEM/.test(error.message))
    assert.throws(() => construct({ cert: read('other.pem'), key: read('encrypted.key'), passphrase: 'secret' }), (error: unknown) => error instanceof TypeError && /does not belong to the certificate/.test(error.message))
  })

  test('an expired client certificate is a RangeError naming tls.cert and its expiry (its dates also explain a refused handshake)', () => {
    const realNow = Date.now
    // Three days on, the one-day certificate has expired.
    Date.now = () => realNow() + 3 * DAY_MS
    try {
      assert.throws(() => construct({ cert: read('other.pem'), key: read('other.key') }), (error: unknown) => error instanceof RangeError && /tls\.cert: the client certificate \(CN=other\) expired on/.test(error.message))
    } finally {
      Date.now = realNow
    }
    assert.match(clientCertificateProblem({ cert: read('other.pem') }, realNow() + 3 * DAY_MS) ?? '', /expired on/)
    assert.equal(clientCertificateProblem({ cert: read('other.pem') }), undefined)
  })
})

/** A TCP server that does `onSocket` with each connection; counts them. */
async function server (onSocket: (socket: net.Socket) => void): Promise<{ address: string, connections: () => number, close: () => Promise<void> }> {
  let connections = 0
  const sockets = new Set<net.Socket>()
  const srv = net.createServer(socket => {
    connections++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    onSocket(socket)
  })
  await new Promise<void>(resolve => srv.listen(0, '127.0.0.1', resolve))
  return {
    address: `127.0.0.1:${(srv.address() as net.AddressInfo).port}`,
    connections: () => connections,
    close: async () => { for (const s of sockets) s.destroy(); await new Promise(resolve => srv.close(resolve)) }
  }
}

/** What `promise` rejected with (undefined if it resolved). */
async function rejection (promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(() => undefined, (e: unknown) => e)
}

/**
 * What `call` rejected with and how long it took on the client's `clock`, moved through its
 * backoffs (the connections are real, the waits between them on the clock): no machine's speed changes it.
 */
async function onClock (clock: FakeClock, call: () => Promise<unknown>): Promise<{ error: unknown, ms: number }> {
  const started = clock.now()
  const error = rejection(call())
  await moveThroughBackoffs(clock, error, () => false, { stepMs: 200 })
  return { error: await error, ms: clock.now() - started }
}

describe('a client of the wrong security protocol for the listener fails at once, saying so', () => {
  test('a plaintext client on a TLS listener (it answers ApiVersions with a TLS alert, as Kafka does): TlsError, for admin calls and sends alike', async () => {
    // Kafka's SSL listener answers a plaintext request with this alert and closes.
    const tlsListener = await server(socket => socket.once('data', () => socket.end(Buffer.from('15030300020250', 'hex'))))
    const client = new Client({ bootstrap: [tlsListener.address], requestTimeoutMs: 30_000 })
    try {
      for (const call of [() => client.admin.describeCluster({ timeoutMs: 30_000 }), () => client.producer({ deliveryTimeoutMs: 30_000 }).send({ topic: 't', value: 'x' })]) {
        const before = tlsListener.connections()
        const error = await rejection(call())
        assert.ok(error instanceof TlsError, String(error))
        assert.match(error.message, /answered with a TLS record .*the listener expects TLS/)
        assert.equal(tlsListener.connections() - before, 1, 'connections made: more than one, as if retried')
      }
    } finally {
      await client.close()
      await tlsListener.close()
    }
  })

  test('a TLS client on a plaintext listener (it closes on the ClientHello without a word, as Kafka does): TlsError, for admin calls and sends alike', async () => {
    const plaintextListener = await server(socket => socket.once('data', () => socket.destroy()))
    const client = new Client({ bootstrap: [plaintextListener.address], tls: true, requestTimeoutMs: 30_000 })
    try {
      for (const call of [() => client.admin.describeCluster({ timeoutMs: 30_000 }), () => client.producer({ deliveryTimeoutMs: 30_000 }).send({ topic: 't', value: 'x' })]) {
        const before = plaintextListener.connections()
        const error = await rejection(call())
        assert.ok(error instanceof TlsError, String(error))
        assert.match(error.message, /does not speak TLS/)
        assert.equal(plaintextListener.connections() - before, 1, 'connections made: more than one, as if retried')
      }
    } finally {
      await client.close()
      await plaintextListener.close()
    }
  })
})

test('a listener that accepts and closes at once: the group consumer retries within its bound like the admin, and both end with the same ConnectionError saying what such a close means', async () => {
  const closing = await server(socket => socket.destroy())
  const clock = new FakeClock()
  const client = new Client(withClock({ bootstrap: [closing.address], requestTimeoutMs: 3000, retryBackoff: { initialMs: 50, maxMs: 200 } }, clock))
  try {
    const group = new GroupConsumer(client, { groupId: 'g', topics: ['t'] })
    const before = closing.connections()
    const member = await onClock(clock, async () => await group.run({ eachBatch: () => {} }))
    const groupConnections = closing.connections() - before
    await group.close().catch(() => {})
    const admin = await onClock(clock, async () => await client.admin.describeCluster({ timeoutMs: 3000 }))
    for (const [who, { error, ms }] of [['group consumer', member], ['admin', admin]] as const) {
      assert.ok(error instanceof ConnectionError, `${who}: ${String(error)}`)
      assert.match(error.message, /closed the connection before answering ApiVersions/, who)
      assert.match(error.message, /TLS listener .* plaintext client/, who)
      assert.ok(ms <= 3000, `${who}: ended after ${ms} ms on the client's clock, its bound is 3000 ms`)
    }
    assert.ok(groupConnections > 1, `the group consumer tried ${groupConnections} connection(s) before giving up`)
    assert.ok(member.ms >= 2000, `the group consumer gave up after ${member.ms} ms on the client's clock, before its bound`)
  } finally {
    await client.close()
    await closing.close()
  }
})

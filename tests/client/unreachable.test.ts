// A cluster that cannot be reached: every call fails within the bound its message states,
// with one error class for one cause (a ConnectionError naming the brokers tried, the last
// failure as its cause); client.connect() tells at start-up; a lost broker and failures
// of the background metadata refresh are logged at the default level.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import '../../index'
import { type ClientOptions } from '../../client/client'
import type { SocketFactory } from '../../client/connection'
import { AbortedError, ConnectionError } from '../../client/errors'
import type { Logger } from '../../client/logger'
import { Metadata } from '../../protocol/apis/metadata'
import { closedPort } from '../support/ports'
import { fast, fixtures } from './fake-support'
import { outcomeWithin, waitFor } from '../support/wait'
import { moveThroughBackoffs } from '../support/clock'
import { FakeClock, withClock } from '../../testing/index'
import { internal } from '../../client/internal'

const made = fixtures()

type Line = { level: string, message: string, fields: Record<string, unknown> }

/** A console-shaped logger that keeps what it was given. */
function recordingLogger (): Logger & { lines: Line[] } {
  const lines: Line[] = []
  const at = (level: string) => (message: string, fields: Record<string, unknown>) => { lines.push({ level, message, fields }) }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

/**
 * Runs `call`, which must reject, moving the client's `clock` through its backoffs (the
 * connection attempts are real, the waits between them and the call's deadline are on the
 * clock); returns the error and how long it took on that clock, which no machine's speed changes.
 */
async function failure (clock: FakeClock, call: () => Promise<unknown>): Promise<{ error: Error, elapsedMs: number }> {
  const started = clock.now()
  const outcome = call().then(() => new Error('resolved, expected a rejection'), (e: unknown) => e as Error)
  await moveThroughBackoffs(clock, outcome, () => false)
  return { error: await outcome, elapsedMs: clock.now() - started }
}

/** A ConnectionError naming `address`, stating `boundMs` and `option`, with the last connection failure as cause; at the bound on the client's clock. */
function assertUnreachable ({ error, elapsedMs }: { error: Error, elapsedMs: number }, address: string, boundMs: number, option: string, rootCause: RegExp): void {
  assert.ok(error instanceof ConnectionError, `${error.name}: ${error.message}`)
  assert.ok(elapsedMs <= boundMs, `failed after ${elapsedMs} ms on the client's clock, its bound is ${boundMs} ms`)
  assert.ok(error.broker.includes(address), `names the broker tried: ${error.broker}`)
  assert.ok(error.message.includes(`within ${boundMs} ms (${option}`), `states its bound ${boundMs} ms (${option}): ${error.message}`)
  assert.equal(error.written, false)
  assert.ok(error.cause instanceof ConnectionError, `the last failure is the cause: ${String(error.cause)}`)
  assert.match(error.cause.message, rootCause)
}

const DNS_FAILURE = /host not found|ENOTFOUND|EAI_AGAIN/

/** Connects through a resolver that answers ENOTFOUND at once, as getaddrinfo does for a name that does not exist. */
const unresolvable: SocketFactory = ({ host, port, onConnect }) => net.connect({
  host,
  port,
  lookup: (hostname, _options, callback) => {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', errno: -3008, syscall: 'getaddrinfo', hostname }), '', 4)
  }
}, onConnect)

describe('an unreachable cluster: one error class, within the stated bound', () => {
  for (const [name, address, rootCause, socketFactory] of [
    ['a closed port', async () => `127.0.0.1:${await closedPort()}`, /ECONNREFUSED/, undefined],
    // The resolver's answer comes at once: each attempt must end before the clock moves, and a
    // system resolver may take seconds to say that a .invalid name (RFC 6761) does not resolve.
    ['a name that does not resolve', async () => 'kafkats-test.invalid:9092', DNS_FAILURE, unresolvable]
  ] as const) {
    test(`${name}: an admin call, a metadata wait, a request and a producer send each reject with a ConnectionError naming the broker`, { timeout: 60_000 }, async () => {
      const bootstrap = await address()
      const clock = new FakeClock()
      const options: ClientOptions = withClock({ bootstrap, requestTimeoutMs: 1500, logLevel: 'silent', ...fast, socketFactory }, clock)
      const k = made.client(options)
      // The admin call's bound is its timeoutMs (the client's requestTimeoutMs by default).
      assertUnreachable(await failure(clock, async () => await k.admin.listTopics()), bootstrap, 1500, 'timeoutMs', rootCause)
      assertUnreachable(await failure(clock, async () => await k.admin.listTopics({ timeoutMs: 1200 })), bootstrap, 1200, 'timeoutMs', rootCause)
      // Before, a deadline that fell in a backoff made this an AbortedError "aborted due to timeout".
      assertUnreachable(await failure(clock, async () => await k.admin.describeTopics(['t'], { timeoutMs: 1000 })), bootstrap, 1000, 'timeoutMs', rootCause)
      assertUnreachable(await failure(clock, async () => await k.admin.describeGroups(['g'], { timeoutMs: 1000 })), bootstrap, 1000, 'timeoutMs', rootCause)
      assertUnreachable(await failure(clock, async () => await k.admin.listOffsets([{ topic: 't', partition: 0, spec: 'latest' }], { timeoutMs: 1000 })), bootstrap, 1000, 'timeoutMs', rootCause)
      // A metadata wait shorter than requestTimeoutMs ends at its own bound (before: at requestTimeoutMs).
      assertUnreachable(await failure(clock, async () => await k.metadata.waitForTopic('t', 700)), bootstrap, 700, 'the wait for the topic', rootCause)
      assertUnreachable(await failure(clock, async () => await k.request(Metadata, { topics: null })), bootstrap, 1500, 'requestTimeoutMs', rootCause)
      assertUnreachable(await failure(clock, async () => await k.request(Metadata, { topics: null }, { timeoutMs: 900 })), bootstrap, 900, 'timeoutMs', rootCause)
      // A send waits metadataWaitMs for the topic; its error says so (before: 60 s, while the message said requestTimeoutMs).
      const producer = k.producer({ metadataWaitMs: 2500 })
      assertUnreachable(await failure(clock, async () => await producer.send({ topic: 't', value: 'x' })), bootstrap, 2500, 'metadataWaitMs', rootCause)
      await producer.close()
    })
  }

  test('a broker that accepts TCP but never finishes connecting: the wait ends at the call\'s bound, not after connectTimeoutMs', { timeout: 60_000 }, async () => {
    // A socket that never connects (onConnect is never called): only the call's deadline, on
    // the client's clock, can end the wait before connectTimeoutMs (a real timer, 120 s).
    const clock = new FakeClock()
    const k = made.client(withClock({ bootstrap: '127.0.0.1:9', requestTimeoutMs: 800, connectTimeoutMs: 120_000, logLevel: 'silent', ...fast, socketFactory: () => new net.Socket() }, clock))
    const started = clock.now()
    const call = k.admin.describeGroups(['g'], { timeoutMs: 800 })
    const error = call.then(() => new Error('resolved, expected a rejection'), (e: unknown) => e as Error)
    await waitFor('the call\'s deadline timer', () => clock.nextDueAt === started + 800)
    await clock.advance(800)
    // Within a few turns of the deadline; the bound only stops a hang (connectTimeoutMs is far beyond it).
    assert.equal(await outcomeWithin(error, 30_000), 'resolved', 'the call still waits at its deadline')
    const outcome = await error
    assert.ok(outcome instanceof ConnectionError, `${outcome.name}: ${outcome.message}`)
    assert.match(outcome.message, /within 800 ms \(timeoutMs\)/)
  })

  test('the caller\'s own abort is still an AbortedError', async () => {
    const k = made.client({ bootstrap: `127.0.0.1:${await closedPort()}`, logLevel: 'silent', ...fast })
    const controller = new AbortController()
    // Whenever the abort lands (during an attempt or a backoff), the call ends with it: the timing is not asserted.
    setTimeout(() => controller.abort(new Error('shutting down')), 100)
    await assert.rejects(k.admin.listTopics({ signal: controller.signal }), AbortedError)
  })
})

describe('client.connect(): the readiness call', () => {
  test('resolves once a broker answered ApiVersions and Metadata', async () => {
    const c = await made.cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = made.client({ bootstrap: c.bootstrap, ...fast })
    const connected: number[] = []
    k.on('connect', event => { connected.push(event.nodeId) })
    await k.connect({ timeoutMs: 5000 })
    assert.ok(k.metadata.brokers.every(b => b.nodeId >= 0), 'the cluster\'s brokers are known')
    assert.ok(k[internal].brokers.openConnectionCount > 0)
    // The bootstrap address answered first, then a broker at the address the cluster advertises.
    assert.deepEqual(connected, [-1, 1])
  })

  test('rejects when the cluster advertises a broker address that cannot be reached from here', { timeout: 30_000 }, async () => {
    const c = await made.cluster({ topics: [{ name: 't', partitions: 1 }] })
    const port = await closedPort()
    // A wrong advertised listener: the bootstrap address is the broker's, its Metadata answer names a closed port.
    c.intercept(Metadata, () => ({ modify: response => ({ ...response, brokers: response.brokers.map(b => ({ ...b, port })) }) }))
    const k = made.client({ bootstrap: c.bootstrap, logLevel: 'silent', ...fast })
    await assert.rejects(k.connect({ timeoutMs: 1000 }), (error: unknown) => error instanceof ConnectionError && error.message.includes(`127.0.0.1:${port}`))
  })

  test('rejects with a ConnectionError naming the brokers tried within timeoutMs', { timeout: 30_000 }, async () => {
    const ports = [await closedPort(), await closedPort()]
    const clock = new FakeClock()
    const k = made.client(withClock({ bootstrap: ports.map(p => `127.0.0.1:${p}`), requestTimeoutMs: 20_000, logLevel: 'silent', ...fast }, clock))
    const outcome = await failure(clock, async () => await k.connect({ timeoutMs: 1000 }))
    assertUnreachable(outcome, `127.0.0.1:${ports[0]}`, 1000, 'timeoutMs', /ECONNREFUSED/)
    assert.ok(outcome.error instanceof ConnectionError && outcome.error.broker.includes(`127.0.0.1:${ports[1]}`), 'names both brokers')
    await assert.rejects(k.connect({ timeout: 5 } as never), /client.connect option timeout is not an option; did you mean timeoutMs\?/)
    await assert.rejects(k.connect({ timeoutMs: -1 }), RangeError)
  })
})

describe('what an outage logs', () => {
  test('a broker lost for longer than a backoff is one warn line; its return is an info line', { timeout: 30_000 }, async () => {
    const c = await made.cluster({ topics: [{ name: 't', partitions: 1 }] })
    const refused = await closedPort()
    let down = true
    const logger = recordingLogger()
    const k = made.client({
      bootstrap: c.bootstrap,
      logger,
      logLevel: 'info',
      retryBackoff: { initialMs: 20, maxMs: 40 },
      socketFactory: ({ host, port, onConnect }) => net.connect({ host, port: down ? refused : port }, onConnect)
    })
    const answered = k.request(Metadata, { topics: null }, { timeoutMs: 20_000 })
    const lost = (): Line[] => logger.lines.filter(l => l.level === 'warn' && /is unreachable/.test(l.message))
    await waitFor('the warn line of the lost broker', () => lost().length > 0, { timeoutMs: 10_000 })
    down = false
    await answered
    assert.equal(lost().length, 1, 'one warn line per outage, not one per attempt')
    assert.match(lost()[0].message, /^bootstrap broker 127\.0\.0\.1:\d+ is unreachable: \d+ attempts over \d+ ms failed/)
    assert.equal(lost()[0].fields.code, 'KAFKATS_BROKER_UNREACHABLE')
    const back = logger.lines.filter(l => /is reachable again/.test(l.message))
    assert.equal(back.length, 1, JSON.stringify(logger.lines.map(l => `${l.level} ${l.message}`)))
    assert.equal(back[0].level, 'info')
  })

  test('failures of the background metadata refresh are logged, once per distinct error', { timeout: 30_000 }, async () => {
    const c = await made.cluster({ topics: [{ name: 't', partitions: 1 }] })
    const logger = recordingLogger()
    const k = made.client({ bootstrap: c.bootstrap, logger, metadataMaxAgeMs: 30, requestTimeoutMs: 300, ...fast })
    await k.metadata.refresh(['t'])
    let dropped = 0
    const stop = c.intercept(Metadata, () => { dropped++; return { drop: 'before-apply' } })
    const failed = (): Line[] => logger.lines.filter(l => /periodic metadata refresh failed/.test(l.message))
    await waitFor('the warn line of a failed background refresh', () => failed().length > 0, { timeoutMs: 10_000 })
    // Several more refreshes fail the same way: still one line.
    const seen = dropped
    await waitFor('more failed refreshes', () => dropped >= seen + 6, { timeoutMs: 10_000 })
    assert.equal(failed().length, 1, JSON.stringify(failed().map(l => l.message)))
    assert.equal(failed()[0].level, 'warn')
    assert.equal(failed()[0].fields.code, 'KAFKATS_METADATA_REFRESH_FAILED')
    assert.ok(failed()[0].fields.error instanceof Error)
    // Once a refresh succeeds, the next failure is news again.
    stop()
    await k.metadata.refresh()
    const again = c.intercept(Metadata, () => ({ drop: 'before-apply' }))
    await waitFor('a second line after a success', () => failed().length === 2, { timeoutMs: 10_000 })
    again()
  })
})

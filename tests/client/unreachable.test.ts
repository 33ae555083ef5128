// A cluster that cannot be reached: every call fails within the bound its message states,
// with one error class for one cause (a ConnectionError naming the brokers tried, the last
// failure as its cause); client.connect() tells at start-up; a lost broker and failures
// of the background metadata refresh are logged at the default level.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import '../../index'
import { type ClientOptions } from '../../client/client'
import { AbortedError, ConnectionError } from '../../client/errors'
import type { Logger } from '../../client/logger'
import { Metadata } from '../../protocol/apis/metadata'
import { closedPort } from '../support/ports'
import { fast, fixtures } from './fake-support'
import { waitFor } from '../support/wait'
import { internal } from '../../client/internal'

const made = fixtures()

type Line = { level: string, message: string, fields: Record<string, unknown> }

/** A console-shaped logger that keeps what it was given. */
function recordingLogger (): Logger & { lines: Line[] } {
  const lines: Line[] = []
  const at = (level: string) => (message: string, fields: Record<string, unknown>) => { lines.push({ level, message, fields }) }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

/** Runs `call`, which must reject; returns the error and how long it took. */
async function failure (call: () => Promise<unknown>): Promise<{ error: Error, elapsedMs: number }> {
  const started = Date.now()
  const error = await call().then(() => new Error('resolved, expected a rejection'), (e: unknown) => e as Error)
  return { error, elapsedMs: Date.now() - started }
}

/** A ConnectionError naming `address`, stating `boundMs` and `option`, with the last connection failure as cause; within the bound (+5 s for a busy machine). */
function assertUnreachable ({ error, elapsedMs }: { error: Error, elapsedMs: number }, address: string, boundMs: number, option: string, rootCause: RegExp): void {
  assert.ok(error instanceof ConnectionError, `${error.name}: ${error.message}`)
  assert.ok(elapsedMs < boundMs + 5000, `failed after ${elapsedMs} ms, its bound is ${boundMs} ms`)
  assert.ok(error.broker.includes(address), `names the broker tried: ${error.broker}`)
  assert.ok(error.message.includes(`within ${boundMs} ms (${option}`), `states its bound ${boundMs} ms (${option}): ${error.message}`)
  assert.equal(error.written, false)
  assert.ok(error.cause instanceof ConnectionError, `the last failure is the cause: ${String(error.cause)}`)
  assert.match(error.cause.message, rootCause)
}

const DNS_FAILURE = /host not found|ENOTFOUND|EAI_AGAIN/

describe('an unreachable cluster: one error class, within the stated bound', () => {
  for (const [name, address, rootCause] of [
    ['a closed port', async () => `127.0.0.1:${await closedPort()}`, /ECONNREFUSED/],
    ['a name that does not resolve', async () => 'kafkats-test.invalid:9092', DNS_FAILURE]
  ] as const) {
    test(`${name}: an admin call, a metadata wait, a request and a producer send each reject with a ConnectionError naming the broker`, { timeout: 60_000 }, async () => {
      const bootstrap = await address()
      const options: ClientOptions = { bootstrap, requestTimeoutMs: 1500, logLevel: 'silent', ...fast }
      const k = made.client(options)
      // The admin call's bound is its timeoutMs (the client's requestTimeoutMs by default).
      assertUnreachable(await failure(async () => await k.admin.listTopics()), bootstrap, 1500, 'timeoutMs', rootCause)
      assertUnreachable(await failure(async () => await k.admin.listTopics({ timeoutMs: 1200 })), bootstrap, 1200, 'timeoutMs', rootCause)
      // Before, a deadline that fell in a backoff made this an AbortedError "aborted due to timeout".
      assertUnreachable(await failure(async () => await k.admin.describeTopics(['t'], { timeoutMs: 1000 })), bootstrap, 1000, 'timeoutMs', rootCause)
      assertUnreachable(await failure(async () => await k.admin.describeGroups(['g'], { timeoutMs: 1000 })), bootstrap, 1000, 'timeoutMs', rootCause)
      assertUnreachable(await failure(async () => await k.admin.listOffsets([{ topic: 't', partition: 0, spec: 'latest' }], { timeoutMs: 1000 })), bootstrap, 1000, 'timeoutMs', rootCause)
      // A metadata wait shorter than requestTimeoutMs ends at its own bound (before: at requestTimeoutMs).
      assertUnreachable(await failure(async () => await k.metadata.waitForTopic('t', 700)), bootstrap, 700, 'the wait for the topic', rootCause)
      assertUnreachable(await failure(async () => await k.request(Metadata, { topics: null })), bootstrap, 1500, 'requestTimeoutMs', rootCause)
      assertUnreachable(await failure(async () => await k.request(Metadata, { topics: null }, { timeoutMs: 900 })), bootstrap, 900, 'timeoutMs', rootCause)
      // A send waits metadataWaitMs for the topic; its error says so (before: 60 s, while the message said requestTimeoutMs).
      const producer = k.producer({ metadataWaitMs: 2500 })
      assertUnreachable(await failure(async () => await producer.send({ topic: 't', value: 'x' })), bootstrap, 2500, 'metadataWaitMs', rootCause)
      await producer.close()
    })
  }

  test('a broker that accepts TCP but never finishes connecting: the wait ends at the call\'s bound, not after connectTimeoutMs', { timeout: 30_000 }, async () => {
    // A socket that never connects (onConnect is never called).
    const k = made.client({ bootstrap: '127.0.0.1:9', requestTimeoutMs: 800, connectTimeoutMs: 20_000, logLevel: 'silent', ...fast, socketFactory: () => new net.Socket() })
    const outcome = await failure(async () => await k.admin.describeGroups(['g'], { timeoutMs: 800 }))
    assert.ok(outcome.error instanceof ConnectionError, `${outcome.error.name}: ${outcome.error.message}`)
    assert.ok(outcome.elapsedMs < 800 + 5000, `failed after ${outcome.elapsedMs} ms, its bound is 800 ms (connectTimeoutMs 20 s)`)
    assert.match(outcome.error.message, /within 800 ms \(timeoutMs\)/)
  })

  test('the caller\'s own abort is still an AbortedError', async () => {
    const k = made.client({ bootstrap: `127.0.0.1:${await closedPort()}`, logLevel: 'silent', ...fast })
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('shutting down')), 100)
    await assert.rejects(k.admin.listTopics({ signal: controller.signal }), AbortedError)
  })
})

describe('client.connect(): the readiness call', () => {
  test('resolves once a broker answered ApiVersions and Metadata', async () => {
    const c = await made.cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = made.client({ bootstrap: c.bootstrap, ...fast })
    await k.connect({ timeoutMs: 5000 })
    assert.ok(k.metadata.brokers.every(b => b.nodeId >= 0), 'the cluster\'s brokers are known')
    assert.ok(k[internal].brokers.openConnectionCount > 0)
  })

  test('rejects with a ConnectionError naming the brokers tried within timeoutMs', { timeout: 30_000 }, async () => {
    const ports = [await closedPort(), await closedPort()]
    const k = made.client({ bootstrap: ports.map(p => `127.0.0.1:${p}`), requestTimeoutMs: 20_000, logLevel: 'silent', ...fast })
    const outcome = await failure(async () => await k.connect({ timeoutMs: 1000 }))
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

// The `logger` client option: checked at construction, called in the shape each logger
// library expects, filtered by `logLevel`, with structured fields; without a logger only
// warnings are reported (process warnings), and NODE_DEBUG=kafkats prints debug lines.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import * as path from 'node:path'
import '../../index'
import { Client } from '../../index'
import type { Logger } from '../../client/logger'
import { Metadata } from '../../protocol/apis/metadata'
import type { FakeCluster } from '../../testing/index'
import { fixtures } from './fake-support'

const made = fixtures()
const cluster = async (): Promise<FakeCluster> => await made.cluster({ topics: [{ name: 't', partitions: 1 }] })
const client = made.client

type Line = { level: string, args: unknown[] }

/** A console-shaped logger that keeps what it was given. */
function recordingLogger (extra: object = {}): Logger & { lines: Line[] } {
  const lines: Line[] = []
  const at = (level: string) => (...args: unknown[]) => { lines.push({ level, args }) }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), ...extra }
}

describe('logger options are checked at construction', () => {
  const bootstrap = ['localhost:9092']
  test('a logger must have debug, info, warn and error; logLevel is one of the levels', () => {
    assert.throws(() => new Client({ bootstrap, logger: { info () {}, warn () {}, error () {} } as unknown as Logger }), /client option logger: expected an object with debug, info, warn and error methods.*no debug\(\)/)
    assert.throws(() => new Client({ bootstrap, logger: { debug: 1, info () {}, warn () {}, error () {} } as unknown as Logger }), /client option logger.debug: expected a function, got 1/)
    assert.throws(() => new Client({ bootstrap, logger: 'console' as unknown as Logger }), /client option logger: expected an object/)
    assert.throws(() => new Client({ bootstrap, logLevel: 'verbose' as 'debug' }), /client option logLevel: expected one of 'debug', 'info', 'warn', 'error', 'silent', got "verbose"/)
  })

  test('console itself is a logger: its methods get (message, fields)', async () => {
    const c = await cluster()
    const k = client({ bootstrap: c.bootstrap, clientId: 'console-app', logger: console, logLevel: 'debug' })
    // console's own debug method, watched (the client calls whatever console.debug is at the time).
    const original = console.debug
    const calls: unknown[][] = []
    console.debug = (...args: unknown[]) => { calls.push(args) }
    try {
      await k.request(Metadata, { topics: null })
    } finally {
      console.debug = original
    }
    const connected = calls.find(args => args[0] === 'connected')
    assert.ok(connected !== undefined, `console.debug got no 'connected' line: ${JSON.stringify(calls.map(a => a[0]))}`)
    assert.equal((connected[1] as Record<string, unknown>).client, 'console-app')
    assert.match(String((connected[1] as Record<string, unknown>).broker), /127\.0\.0\.1/)
  })
})

describe('what is logged, and how', () => {
  test('at debug: every request and answer, with broker, api and correlationId; console shape is (message, fields)', async () => {
    const c = await cluster()
    const logger = recordingLogger()
    const k = client({ bootstrap: c.bootstrap, clientId: 'logging-app', logger, logLevel: 'debug' })
    await k.request(Metadata, { topics: null })
    const requestLines = logger.lines.filter(l => typeof l.args[0] === 'string' && /^Metadata v\d+ (sent|answered)$/.test(l.args[0]))
    assert.equal(requestLines.length, 2, JSON.stringify(logger.lines.map(l => l.args[0])))
    const [sent, answered] = requestLines.map(l => l.args[1] as Record<string, unknown>)
    assert.equal(sent.client, 'logging-app')
    assert.equal(sent.api, 'Metadata')
    assert.match(String(sent.broker), /127\.0\.0\.1/)
    assert.equal(typeof sent.correlationId, 'number')
    assert.equal(answered.correlationId, sent.correlationId)
    assert.equal(typeof answered.durationMs, 'number')
    assert.ok(logger.lines.some(l => l.args[0] === 'connected'), 'the connection is logged')
  })

  test('the default level is warn: a client that works logs nothing', async () => {
    const c = await cluster()
    const logger = recordingLogger()
    const k = client({ bootstrap: c.bootstrap, logger })
    await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a') }] })
    assert.deepEqual(logger.lines, [])
  })

  test('pino (it has bindings()) gets fields first: logger.warn(fields, message)', async () => {
    const c = await cluster()
    const logger = recordingLogger({ bindings: () => ({}) })
    const k = client({ bootstrap: c.bootstrap, logger })
    const producer = k.producer()
    producer.produce({ topic: 't', value: 'x' }, () => { throw new Error('callback bug') })
    await producer.flush()
    const warning = logger.lines.find(l => l.level === 'warn')
    assert.ok(warning !== undefined, 'a warning was logged')
    const [fields, message] = warning.args as [Record<string, unknown>, string]
    assert.match(message, /a produce\(\) callback threw/)
    assert.equal(fields.code, 'KAFKATS_CALLBACK_ERROR')
    assert.equal((fields.error as Error).message, 'callback bug')
    await producer.close()
  })

  test('without a logger a warning is a process warning with its KAFKATS_ code, and nothing else is printed', async () => {
    const c = await cluster()
    const k = client({ bootstrap: c.bootstrap })
    const warnings: Error[] = []
    const onWarning = (w: Error): void => { warnings.push(w) }
    process.on('warning', onWarning)
    try {
      const producer = k.producer()
      producer.produce({ topic: 't', value: 'x' }, () => { throw new Error('callback bug') })
      await producer.flush()
      await new Promise(resolve => setImmediate(resolve))
      assert.equal(warnings.length, 1, warnings.map(w => w.message).join('\n'))
      assert.equal((warnings[0] as Error & { code?: string }).code, 'KAFKATS_CALLBACK_ERROR')
      assert.match(warnings[0].message, /^kafkats: a produce\(\) callback threw .*: callback bug$/)
      await producer.close()
    } finally {
      process.off('warning', onWarning)
    }
  })

  test('a logger that throws does not break the client', async () => {
    const c = await cluster()
    const boom = (): never => { throw new Error('logger down') }
    const k = client({ bootstrap: c.bootstrap, logger: { debug: boom, info: boom, warn: boom, error: boom }, logLevel: 'debug' })
    await k.request(Metadata, { topics: null })
  })

  test('NODE_DEBUG=kafkats prints debug lines on stderr, as Node\'s own modules do', () => {
    const script = `
      const { Client } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'index.js'))})
      const { Metadata } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'protocol', 'apis', 'metadata.js'))})
      const client = new Client({ bootstrap: ['127.0.0.1:1'], requestTimeoutMs: 200, retryBackoff: { initialMs: 50, maxMs: 50 } })
      client.request(Metadata, { topics: null }).catch(() => {}).finally(() => client.close())`
    const withDebug = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, NODE_DEBUG: 'kafkats' }, encoding: 'utf8', timeout: 20_000 })
    assert.match(withDebug.stderr, /KAFKATS \d+: debug reconnecting in \d+ ms .*broker: 'bootstrap broker 127\.0\.0\.1:1'/)
    const without = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, NODE_DEBUG: '' }, encoding: 'utf8', timeout: 20_000 })
    // Without it no debug line; the broker lost for longer than a backoff is a warning at the default level.
    assert.doesNotMatch(without.stderr, /KAFKATS \d+: debug/)
    assert.match(without.stderr, /\[KAFKATS_BROKER_UNREACHABLE\] Warning: kafkats: bootstrap broker 127\.0\.0\.1:1 is unreachable/)
  })
})

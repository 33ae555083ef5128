// Every program in examples/ (the README's and docs/'s code blocks come from them, checked by
// scripts/examples.mjs) run as a user runs it, against the real broker, with a bounded time and
// its output checked: an example that no longer works fails here, not in a reader's hands.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import * as path from 'node:path'
import { sharedBootstrap } from '../broker/kafka'
import { Client, throwFirstError } from '../../index'
import { uniqueName } from './support'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false
const root = path.join(__dirname, '..', '..', '..')
const examples = path.join(root, 'dist', 'examples')
const boundMs = 90_000

interface Run { code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string }

function start (command: string, args: string[], env: Record<string, string>): { child: ChildProcess, done: Promise<Run>, output: () => string } {
  // Without the test runner's NODE_TEST_CONTEXT, a `node --test` child reports as a user sees it.
  const { NODE_TEST_CONTEXT: _, ...parentEnv } = process.env
  const child = spawn(command, args, { cwd: root, env: { ...parentEnv, KAFKA_BOOTSTRAP: bootstrap?.join(','), KAFKATS_BOOTSTRAP: bootstrap?.join(','), ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', chunk => { stdout += chunk })
  child.stderr?.on('data', chunk => { stderr += chunk })
  const done = new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${args.join(' ')} did not end within ${boundMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`))
    }, boundMs)
    child.on('error', reject)
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }) })
  })
  return { child, done, output: () => stdout }
}

async function runExample (file: string, env: Record<string, string> = {}, args: string[] = []): Promise<string> {
  const command = file.endsWith('.sh') ? 'bash' : process.execPath
  const script = file.endsWith('.sh') ? path.join(root, 'examples', file) : path.join(examples, file)
  const run = await start(command, [script, ...args], env).done
  assert.equal(run.code, 0, `${file} exited ${run.code ?? run.signal}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`)
  return run.stdout
}

describe('examples/ against a real broker', { skip, timeout: 600_000 }, () => {
  test('getting-started: writes three records and reads them back', async () => {
    const out = await runExample('getting-started.mjs', { TOPIC: uniqueName('gs') })
    assert.equal(out.match(/^wrote partition \d offset \d+$/gm)?.length, 3, out)
    assert.deepEqual(out.match(/= \w+$/gm)?.sort(), ['= bye', '= hello', '= hi'], out)
  })

  test('produce: send, produce(), serializers and a SendError with per-record outcomes', async () => {
    const out = await runExample('produce.mjs', { TOPIC: uniqueName('produce') })
    assert.match(out, /^one record: partition \d, offset 0$/m)
    assert.match(out, /^three records: partitions \d, \d, 0$/m)
    assert.match(out, /^produce\(\): 1000 acknowledged$/m)
    assert.match(out, /^record 0: written$/m)
    assert.match(out, /^record 1: failed: .*partition 99 does not exist/m)
  })

  test('topic-auto-creation: UnknownTopicError by default, created with allowAutoTopicCreation', async () => {
    const topic = uniqueName('auto')
    const out = await runExample('topic-auto-creation.mjs', { TOPIC: topic })
    assert.match(out, new RegExp(`^not created: ${topic} \\(retriable: true\\)$`, 'm'))
    assert.match(out, /^created by the broker; written at partition \d+ offset 0$/m)
  })

  for (const file of ['consume-for-await.mjs', 'consume-run.mjs']) {
    test(`${file}: SIGTERM ends it after the batch in hand, which is committed; exits 0`, async () => {
      const topic = uniqueName('consume')
      const group = `${topic}-group`
      const client = new Client({ bootstrap: bootstrap ?? [] })
      try {
        throwFirstError(await client.admin.createTopics([{ topic, numPartitions: 3 }]))
        const producer = client.producer()
        await producer.send(Array.from({ length: 6 }, (_, i) => ({ topic, key: `k${i}`, value: `order ${i}` })))
        await producer.close()
        const example = start(process.execPath, [path.join(examples, file)], { TOPIC: topic, GROUP: group })
        await waitFor(`${file} printing the 6 records`, () => (example.output().match(/ order \d$/gm)?.length ?? 0) === 6, { timeoutMs: boundMs })
        example.child.kill('SIGTERM')
        const run = await example.done
        assert.equal(run.code, 0, `exited ${run.code ?? run.signal}\n${run.stderr}`)
        assert.match(run.stdout, /^stopped after 6 records$/m)
        // Everything processed was committed at close: the group has no lag.
        const lag = await client.admin.lag(group)
        assert.deepEqual(lag.map(p => p.lag), [0n, 0n, 0n], JSON.stringify(lag, (_, v: unknown) => typeof v === 'bigint' ? String(v) : v))
        assert.equal(lag.reduce((sum, p) => sum + (p.committed ?? 0n), 0n), 6n)
      } finally {
        await client.admin.deleteTopics([topic], { ignoreMissing: true }).catch(() => {})
        await client.close()
      }
    })
  }

  test('transactions: runTransactional commits the output and stops at its signal', async () => {
    const out = await runExample('transactions.mjs', { TOPIC: uniqueName('eos') })
    assert.match(out, /^transactions committed: [1-5], aborted: 0$/m)
    assert.match(out, /^output: BREAD CAKE COFFEE JAM TEA$/m)
  })

  test('share-group: ten jobs done, the failed one delivered again', async () => {
    const out = await runExample('share-group.mjs', { TOPIC: uniqueName('share') })
    assert.equal(out.match(/^job \d \(delivery \d\)$/gm)?.length, 10, out)
    assert.match(out, /^job 3 \(delivery 2\)$/m)
  })

  test('admin: per-item results, configs and lag', async () => {
    const topic = uniqueName('admin')
    const out = await runExample('admin.mjs', { TOPIC: topic })
    assert.match(out, new RegExp(`^${topic}: created$`, 'm'))
    assert.match(out, /^again: TOPIC_ALREADY_EXISTS$/m)
    assert.match(out, new RegExp(`^${topic} has 3 partitions$`, 'm'))
    assert.match(out, /^retention.ms = 86400000$/m)
    assert.match(out, /^partition 0: committed 2, end 5, lag 3$/m)
  })

  test('observability: tracing, events and metrics', async () => {
    const topic = uniqueName('observed')
    const out = await runExample('observability.mjs', { TOPIC: topic })
    assert.match(out, /^trace: ApiVersions v\d+ to .*: \d+\.\d ms$/m)
    assert.match(out, /^event: connected to .* for produce$/m)
    assert.match(out, new RegExp(`^metric: kafkats_producer_records_total\\{client="observed",topic="${topic}"\\} 10$`, 'm'))
  })

  test('kafkajs: kafkajs code on kafkats/kafkajs', async () => {
    assert.match(await runExample('kafkajs.mjs', { TOPIC: uniqueName('kafkajs') }), /^partition \d offset 0: hello from kafkajs code$/m)
  })

  test('security: the SASL clients are made (their options checked)', async () => {
    assert.match(await runExample('security.mjs'), /^4 SASL clients configured$/m)
  })

  test('testing: the kafkats/testing example passes under node --test', async () => {
    const run = await start(process.execPath, ['--test', path.join(examples, 'testing.mjs')], {}).done
    assert.equal(run.code, 0, run.stdout + run.stderr)
    assert.match(run.stdout, /# pass 1/)
  })

  test('cli.sh: topics, produce, consume, groups and offsets', async () => {
    const topic = uniqueName('cli')
    const out = await runExample('cli.sh', { TOPIC: topic })
    assert.match(out, /^101$/m)   // 100 lines and one JSON record read back
    assert.match(out, /^0:\d+ u1=\{"n":1\}$/m)   // partition 0 (the record names it), at the end of it
    assert.match(out, /^total lag 0$/m)
    assert.match(out, new RegExp(`^deleted ${topic}$`, 'm'))
  })

  test('opentelemetry.ts and share-dead-letter.ts run to their end', async () => {
    assert.match(await runExample('opentelemetry.js'), /spans:/)
    const topic = uniqueName('dlq')
    assert.match(await runExample('share-dead-letter.js', {}, [topic, '--demo', '10']), /^\d+ jobs done, \d+ dead-lettered to /m)
  })
})

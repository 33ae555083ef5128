// The `kafkats` command (dist/cli/main.js, the package's bin) end to end against a real
// broker, spawned as users run it: produce from stdin, consume in every format and from
// every kind of start, the admin commands, exit codes and error messages.
import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { sharedBootstrap } from '../broker/kafka'
import { Client, GroupConsumer } from '../../index'
import { uniqueName } from './support'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false
const bin = path.join(__dirname, '..', '..', 'cli', 'main.js')

interface Run { code: number | null, stdout: string, stderr: string }

async function kafkats (args: string[], options: { stdin?: string, env?: Record<string, string>, node?: string } = {}): Promise<Run> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, options.node !== undefined ? ['-e', options.node] : [bin, ...args], { env: { ...process.env, KAFKATS_BOOTSTRAP: bootstrap?.join(','), ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => { stdout += chunk })
    child.stderr.on('data', chunk => { stderr += chunk })
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`kafkats ${args.join(' ')} did not end within 60 s; stderr: ${stderr}`)) }, 60_000)
    child.on('error', reject)
    child.on('close', code => { clearTimeout(timer); resolve({ code, stdout, stderr }) })
    child.stdin.end(options.stdin ?? '')
  })
}

async function ok (args: string[], options?: { stdin?: string, env?: Record<string, string> }): Promise<string> {
  const run = await kafkats(args, options)
  assert.equal(run.code, 0, `kafkats ${args.join(' ')} exited ${run.code}:\n${run.stderr}`)
  return run.stdout
}

/** A record as `consume --format json` prints it, one per line. */
interface JsonRecord { partition: number, offset: number, timestamp: number, key: string | null, value: string | null, headers: Record<string, string> }
const jsonLines = (text: string): JsonRecord[] => text.trim().split('\n').filter(l => l !== '').map(l => JSON.parse(l) as JsonRecord)

describe('the kafkats command', { skip, timeout: 240_000 }, () => {
  const topics: string[] = []
  after(async () => {
    if (topics.length > 0) await kafkats(['topics', 'delete', '--if-exists', ...topics])
  })

  test('usage: --help per command, unknown commands and flags exit 2, a missing broker list is named', async () => {
    // Every command's --help in one process (a spawn per command costs seconds on a loaded machine).
    const helps = await kafkats([], {
      node: `const { main } = require(${JSON.stringify(bin)}); const out = {}; const write = process.stdout.write.bind(process.stdout);
        (async () => { for (const c of ['produce', 'consume', 'topics', 'groups', 'offsets', 'acls', 'cluster']) {
          let text = ''; process.stdout.write = chunk => { text += chunk; return true }
          const code = await main([c, '--help']); process.stdout.write = write; out[c] = { code, text } }
          write(JSON.stringify(out)) })()`
    })
    for (const [command, help] of Object.entries(JSON.parse(helps.stdout) as Record<string, { code: number, text: string }>)) {
      assert.equal(help.code, 0)
      assert.match(help.text, new RegExp(`^Usage: kafkats ${command}`))
      assert.match(help.text, /--bootstrap/)
    }
    const top = await kafkats([])
    assert.equal(top.code, 2)
    assert.match(top.stdout, /Commands:/)
    const unknown = await kafkats(['produec'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /unknown command "produec"/)
    const badFlag = await kafkats(['consume', '-t', 'x', '--colour'])
    assert.equal(badFlag.code, 2)
    assert.match(badFlag.stderr, /kafkats consume: Unknown option '--colour'[\s\S]*see kafkats consume --help/)
    const noBroker = await kafkats(['topics', 'list'], { env: { KAFKATS_BOOTSTRAP: '' } })
    assert.equal(noBroker.code, 2)
    assert.match(noBroker.stderr, /no brokers: give --bootstrap/)
    const noTopic = await kafkats(['produce'])
    assert.equal(noTopic.code, 2)
    assert.match(noTopic.stderr, /produce needs --topic/)
  })

  test('an unreachable broker fails with exit code 1 and says what failed', async () => {
    const run = await kafkats(['topics', 'list', '-b', '127.0.0.1:1', '--timeout-ms', '1500'])
    assert.equal(run.code, 1, run.stderr)
    // The lost broker's warning may come first (a process warning: the CLI has no logger).
    assert.match(run.stderr, /^kafkats topics: .*reached no broker within 1500 ms.*ECONNREFUSED/m)
    assert.doesNotMatch(run.stderr, /Aborted/)
  })

  test('topics: create, list, describe with configs, alter-configs, and errors from the broker', async () => {
    const topic = uniqueName('cli-topics')
    topics.push(topic)
    assert.equal(await ok(['topics', 'create', topic, '-p', '3', '-r', '1', '--config', 'retention.ms=3600000']), `created ${topic}\n`)
    assert.ok((await ok(['topics', 'list'])).split('\n').includes(topic))
    const exists = await kafkats(['topics', 'create', topic, '-p', '3'])
    assert.equal(exists.code, 1)
    assert.match(exists.stderr, /TOPIC_ALREADY_EXISTS/)
    assert.equal((await kafkats(['topics', 'create', topic, '--if-not-exists'])).code, 0)
    await ok(['topics', 'alter-configs', topic, '--set', 'cleanup.policy=compact'])
    const [described] = JSON.parse(await ok(['topics', 'describe', topic, '--configs', '--json']))
    assert.equal(described.name, topic)
    assert.deepEqual(described.partitions.map((p: { partition: number }) => p.partition), [0, 1, 2])
    const configs = Object.fromEntries(described.configs.map((c: { name: string, value: string }) => [c.name, c.value]))
    assert.equal(configs['retention.ms'], '3600000')
    assert.equal(configs['cleanup.policy'], 'compact')
    const text = await ok(['topics', 'describe', topic])
    assert.match(text, new RegExp(`topic ${topic} .*partitions 3`))
    assert.match(text, /partition\s+leader\s+epoch\s+replicas\s+isr/)
  })

  test('produce lines, keys and JSON lines with headers and partitions; consume them as values, JSON, a -f format, from offsets and a timestamp', async () => {
    const topic = uniqueName('cli-records')
    topics.push(topic)
    await ok(['topics', 'create', topic, '-p', '2'])
    const before = Date.now()
    const lines = await kafkats(['produce', '-t', topic, '-p', '0', '-K', ':', '-z', 'gzip', '--progress'], { stdin: 'k1:one\nk2:two\nthree\n' })
    assert.equal(lines.code, 0, lines.stderr)
    assert.match(lines.stderr, /produced 3 records, .* records\/s\)/)
    const json = [
      { value: { n: 5 }, partition: 1, timestamp: 1_700_000_000_000 },
      { key: 'a', value: 'four', headers: { trace: 't-1' }, partition: 1 },
      { key: 'a', value: null, partition: 1 }
    ].map(r => JSON.stringify(r)).join('\n')
    await ok(['produce', '-t', topic, '--format', 'json', '-q'], { stdin: json })

    assert.equal(await ok(['consume', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q']), 'one\ntwo\nthree\n')
    const all = jsonLines(await ok(['consume', '-t', topic, '-o', 'beginning', '-e', '--format', 'json', '-q']))
    const p1 = all.filter(r => r.partition === 1)
    assert.deepEqual(p1.map(r => [r.offset, r.key, r.value, r.headers]), [[0, null, '{"n":5}', {}], [1, 'a', 'four', { trace: 't-1' }], [2, 'a', null, {}]])
    assert.equal(p1[0].timestamp, 1_700_000_000_000)
    assert.equal(all.filter(r => r.partition === 0).length, 3)
    assert.ok(all.filter(r => r.partition === 0).every(r => r.timestamp >= before - 60_000))

    assert.equal(await ok(['consume', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q', '-f', '%p/%o %k=%s (%S bytes)\\n']), '0/0 k1=one (3 bytes)\n0/1 k2=two (3 bytes)\n0/2 =three (5 bytes)\n')
    assert.equal(await ok(['consume', '-t', topic, '-p', '0', '-o', '1', '-e', '-q']), 'two\nthree\n')
    assert.equal(await ok(['consume', '-t', topic, '-p', '0', '-o', '-1', '-e', '-q']), 'three\n')
    assert.equal(await ok(['consume', '-t', topic, '-p', '0', '-o', 'beginning', '-c', '2', '-q']), 'one\ntwo\n')
    // From a timestamp: the first record at or after it (offset 0 is from 2023), then on.
    assert.deepEqual(jsonLines(await ok(['consume', '-t', topic, '-p', '1', '-o', `@${new Date(before - 1000).toISOString()}`, '-e', '--format', 'json', '-q'])).map(r => r.offset), [1, 2])
    assert.equal(await ok(['consume', '-t', topic, '-p', '1', '-o', `@${Date.now() + 3_600_000}`, '-e', '-q']), '')
    assert.equal(await ok(['consume', '-t', topic, '-o', 'end', '-e', '-q']), '')

    const offsets = JSON.parse(await ok(['offsets', topic, '--json']))
    assert.deepEqual(offsets.map((o: { partition: number, earliest: number, latest: number }) => [o.partition, o.earliest, o.latest]), [[0, 0, 3], [1, 0, 3]])

    const bad = await kafkats(['produce', '-t', topic, '--format', 'json'], { stdin: '{"value":"ok"}\nnot json\n' })
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /line 2: not JSON/)
    const badFormat = await kafkats(['consume', '-t', topic, '-f', '%x'])
    assert.equal(badFormat.code, 2)
    assert.match(badFormat.stderr, /unknown token %x/)
  })

  test('consume -g -c 10 of 1,000 records commits only the 10 it wrote, so the next run goes on at the 11th', async () => {
    const topic = uniqueName('cli-count')
    const group = uniqueName('cli-count-group')
    topics.push(topic)
    await ok(['topics', 'create', topic, '-p', '1'])
    await ok(['produce', '-t', topic, '-q'], { stdin: Array.from({ length: 1000 }, (_, i) => `r${i}`).join('\n') + '\n' })
    assert.equal(await ok(['consume', '-t', topic, '-g', group, '-o', 'beginning', '-c', '10', '-q']), Array.from({ length: 10 }, (_, i) => `r${i}\n`).join(''))
    const [described] = JSON.parse(await ok(['groups', 'describe', group, '--json']))
    assert.deepEqual(described.lag.map((l: { partition: number, committed: number }) => [l.partition, l.committed]), [[0, 10]])
    assert.equal(await ok(['consume', '-t', topic, '-g', group, '-o', 'beginning', '-c', '2', '-q']), 'r10\nr11\n')
  })

  test('groups: consume as a group, describe with lag, reset offsets (dry run, then --execute), list, delete', async () => {
    const topic = uniqueName('cli-groups')
    const group = uniqueName('cli-group')
    topics.push(topic)
    await ok(['topics', 'create', topic, '-p', '2'])
    await ok(['produce', '-t', topic, '-q'], { stdin: Array.from({ length: 10 }, (_, i) => `r${i}`).join('\n') + '\n' })
    const first = (await ok(['consume', '-t', topic, '-g', group, '-o', 'beginning', '-e', '-q'])).trim().split('\n')
    assert.deepEqual(first.sort(), Array.from({ length: 10 }, (_, i) => `r${i}`).sort())
    // Committed on close: the same group reads nothing more.
    assert.equal(await ok(['consume', '-t', topic, '-g', group, '-o', 'beginning', '-e', '-q']), '')

    // To a partition that has a committed offset.
    const [committed] = JSON.parse(await ok(['groups', 'describe', group, '--json'])).map((d: { lag: Array<{ partition: number }> }) => d.lag)
    await ok(['produce', '-t', topic, '-p', String(committed[0].partition), '-q'], { stdin: 'late-1\nlate-2\n' })
    const [described] = JSON.parse(await ok(['groups', 'describe', group, '--json']))
    assert.equal(described.groupId, group)
    assert.equal(described.lag.reduce((n: number, l: { lag: number }) => n + l.lag, 0), 2, JSON.stringify(described))
    assert.match(await ok(['groups', 'describe', group]), /total lag 2/)

    const plan = await ok(['groups', 'reset-offsets', group, '--to', 'earliest', '--topic', topic])
    assert.match(plan, /dry run: nothing committed/)
    assert.equal(JSON.parse(await ok(['groups', 'describe', group, '--json']))[0].lag.reduce((n: number, l: { lag: number }) => n + l.lag, 0), 2)
    const executed = JSON.parse(await ok(['groups', 'reset-offsets', group, '--to', 'earliest', '--topic', topic, '--execute', '--json']))
    assert.equal(executed.executed, true)
    assert.deepEqual(executed.offsets.map((o: { offset: number }) => o.offset), [0, 0])
    assert.equal(JSON.parse(await ok(['groups', 'describe', group, '--json']))[0].lag.reduce((n: number, l: { lag: number }) => n + l.lag, 0), 12)

    const listed = JSON.parse(await ok(['groups', 'list', '--json']))
    assert.ok(listed.some((g: { groupId: string }) => g.groupId === group))
    assert.equal(await ok(['groups', 'delete', group]), `deleted ${group}\n`)
    const gone = await kafkats(['groups', 'describe', group, '--json'])
    assert.ok(gone.code === 0 ? JSON.parse(gone.stdout)[0].state === 'Dead' : /GROUP_ID_NOT_FOUND/.test(gone.stderr), gone.stdout + gone.stderr)
  })

  test('groups: an active group that has committed nothing: describe shows its partitions with "-", reset-offsets --execute is refused with its state', async () => {
    const topic = uniqueName('cli-active')
    const group = uniqueName('cli-active-group')
    topics.push(topic)
    await ok(['topics', 'create', topic, '-p', '2'])
    await ok(['produce', '-t', topic, '-p', '0', '-q'], { stdin: 'a\nb\nc\n' })
    const client = new Client({ bootstrap: bootstrap!, logLevel: 'silent' })
    let release!: () => void
    const held = new Promise<void>(resolve => { release = resolve })
    let batches = 0
    const member = new GroupConsumer(client, { groupId: group, topics: [topic], fromBeginning: true })
    const run = member.run({ eachBatch: async () => { batches++; await held } }).catch(() => {})
    try {
      await waitFor('the member to hold a batch', async () => batches > 0 ? true : undefined, { timeoutMs: 60_000, intervalMs: 200 })
      const [described] = JSON.parse(await ok(['groups', 'describe', group, '--json']))
      assert.deepEqual(described.lag.map((l: { partition: number, committed?: number, lag: number }) => [l.partition, l.committed, l.lag]), [[0, undefined, 3], [1, undefined, 0]])
      assert.match(await ok(['groups', 'describe', group]), new RegExp(`${topic}\\s+0\\s+-\\s+3\\s+3 \\(from start\\)`))
      // Before: "committed 0 offsets" and exit 0.
      const refused = await kafkats(['groups', 'reset-offsets', group, '--to', 'earliest', '--execute'])
      assert.equal(refused.code, 1, refused.stdout + refused.stderr)
      assert.doesNotMatch(refused.stdout, /committed \d+ offsets/)
      assert.match(refused.stderr, new RegExp(`the group is ${described.state} with 1 member\\(s\\), and offsets can only be reset if the group is inactive`))
      const withTopic = await kafkats(['groups', 'reset-offsets', group, '--to', 'earliest', '--topic', topic, '--execute'])
      assert.equal(withTopic.code, 1, withTopic.stdout + withTopic.stderr)
      assert.match(withTopic.stderr, /NON_EMPTY_GROUP/)
    } finally {
      release()
      await member.close().catch(() => {})
      await run
      await client.close()
    }
  })

  test('cluster, acls and a config file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-cli-'))
    try {
      const config = path.join(dir, 'kafka.json')
      fs.writeFileSync(config, JSON.stringify({ bootstrap: bootstrap!, clientId: 'from-config' }))
      const described = JSON.parse(await ok(['cluster', '--config-file', config, '--json'], { env: { KAFKATS_BOOTSTRAP: '' } }))
      assert.equal(typeof described.clusterId, 'string')
      assert.ok(described.brokers.length >= 1)
      assert.match(await ok(['cluster']), /^cluster \S+ {2}controller \d+\nbroker\s+address\s+rack\n/)
      fs.writeFileSync(config, JSON.stringify({ bootstrap: bootstrap!, tsl: true }))
      const typo = await kafkats(['cluster', '--config-file', config])
      assert.equal(typo.code, 2)
      assert.match(typo.stderr, /unknown key tsl/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
    // The test broker has no authorizer: listing ACLs is refused with Kafka's own reason.
    const listed = await kafkats(['acls', 'list'])
    if (listed.code === 0) assert.equal(typeof listed.stdout, 'string')
    else {
      assert.equal(listed.code, 1)
      assert.match(listed.stderr, /^kafkats acls: .*SECURITY_DISABLED/)
    }
    const incomplete = await kafkats(['acls', 'create', '--resource-type', 'topic'])
    assert.equal(incomplete.code, 2)
    assert.match(incomplete.stderr, /acls create needs --resource-name/)
  })
})

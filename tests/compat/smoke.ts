/**
 * The compatibility smoke program: what an application does with kafkats, against one
 * real broker of any version, each step a check with its own time bound (a hang is a
 * failure, not a stuck run).
 *
 *   KAFKA_BOOTSTRAP=127.0.0.1:29092 KAFKA_BROKER_VERSION=2.0.1 node dist/tests/compat/smoke.js
 *
 * Checks: admin (create, describe and alter configs, describe the cluster, list, delete),
 * produce with every codec and read back (headers included), idempotence, a two-member
 * group on the default and on the classic protocol, KIP-848 asked for by name, a
 * transaction committed and one aborted (read_committed), share groups, topic ids, the
 * kafkajs drop-in, and the `kafkats` command. Where the broker's version cannot do
 * something (zstd before 2.1, KIP-848 before 4.0, share groups before 4.2), the check
 * expects kafkats's clear error instead and says `unsupported` when it came. The
 * matrix (matrix.ts) runs this against every release, one at a time.
 */
import { execFile } from 'node:child_process'
import * as path from 'node:path'
import { Client, throwFirstError } from '../../index'
import type { GroupConsumer } from '../../group/group-consumer'
import type { CompressionCodec } from '../../protocol/compression'
import { isAtLeast, KAFKA_VERSION, repoRoot } from '../broker/kafka'

/** `unsupported`: the release cannot, and kafkats said so clearly; `known gap`: a failure listed in KNOWN_GAPS. */
export type CheckStatus = 'pass' | 'unsupported' | 'known gap' | 'fail'

export interface CheckResult {
  name: string
  status: CheckStatus
  ms: number
  /** What happened: the error of a failure, the clear error of an unsupported feature, a note. */
  detail: string
}

/** What a check says: nothing (a pass), a note, or that the version cannot (with the error kafkats gave). */
type Outcome = undefined | { note: string } | { unsupported: string }

interface Check {
  name: string
  timeoutMs: number
  run: () => Promise<Outcome>
}

/**
 * Checks known to fail on releases before `until`, with why. Such a failure is reported as
 * `known gap`, not counted as a failure; once one passes, the run says to take it off this
 * list. (Empty since issue 30's admin fallbacks: createTopics' counts, AlterConfigs,
 * DescribeConfigs v0 and describeCluster from Metadata pass on 0.11, 2.0, 2.1 and 2.4.)
 */
export const KNOWN_GAPS: ReadonlyArray<{ check: string, until: string, why: string }> = []

/** Why `check` is a known gap on `version`, if it is one. */
export function knownGap (check: string, version: string): string | undefined {
  return KNOWN_GAPS.find(gap => gap.check === check && !isAtLeast(version, gap.until))?.why
}

const CODECS: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

/** Runs every check against `bootstrap`, a broker of `version`; never throws. */
export async function runSmoke (bootstrap: string[], version: string, log: (line: string) => void = () => {}): Promise<CheckResult[]> {
  const run = Date.now().toString(36)
  const client = new Client({ bootstrap, clientId: 'kafkats-compat', requestTimeoutMs: 15_000 })
  const topic = `compat-${run}`
  const results: CheckResult[] = []

  const checks: Check[] = [
    {
      name: 'admin: create topic (replication factor given)',
      timeoutMs: 30_000,
      run: async () => {
        throwFirstError(await client.admin.createTopics([{ topic, numPartitions: 2, replicationFactor: 1 }]))
        await client.metadata.refresh([topic])
        return undefined
      }
    },
    {
      name: 'admin: create topic (broker default replication factor)',
      timeoutMs: 30_000,
      run: async () => { throwFirstError(await client.admin.createTopics([{ topic: `${topic}-default-rf`, numPartitions: 1 }])); return undefined }
    },
    {
      name: 'admin: list topics',
      timeoutMs: 30_000,
      run: async () => {
        const names = await client.admin.listTopics()
        if (!names.includes(topic)) throw new Error(`listTopics did not list ${topic}`)
        return undefined
      }
    },
    {
      name: 'admin: describeConfigs',
      timeoutMs: 30_000,
      run: async () => {
        const configs = await client.admin.describeConfigs({ type: 'topic', name: topic })
        if (!configs.has('retention.ms')) throw new Error('no retention.ms among the topic configs')
        return undefined
      }
    },
    {
      name: 'admin: alterConfigs',
      timeoutMs: 30_000,
      run: async () => {
        throwFirstError(await client.admin.alterConfigs([{ type: 'topic', name: topic, set: { 'retention.ms': '86400000' } }]))
        return undefined
      }
    },
    {
      name: 'admin: describeCluster',
      timeoutMs: 30_000,
      run: async () => {
        const cluster = await client.admin.describeCluster()
        if (cluster.brokers.length === 0) throw new Error('describeCluster listed no broker')
        return undefined
      }
    },
    {
      name: 'topic ids',
      timeoutMs: 10_000,
      run: async () => {
        const id = client.metadata.topic(topic)?.topicId
        const has = id !== undefined && id !== '00000000-0000-0000-0000-000000000000'
        if (has) return undefined
        return { unsupported: 'Metadata carries no topic id (Kafka 2.8 added them)' }
      }
    },
    ...CODECS.map((codec): Check => ({
      name: `produce and read back: ${codec}${codec === 'none' ? ' (with headers, idempotent)' : ''}`,
      timeoutMs: 60_000,
      run: async () => {
        const codecTopic = topic
        const producer = client.producer({ compression: codec, lingerMs: 5 })
        const values = Array.from({ length: 20 }, (_, i) => `${codec}-${i}`)
        try {
          const started = Date.now()
          let sent
          try {
            sent = await producer.send(values.map(value => ({ topic: codecTopic, partition: 0, value, headers: { codec, n: value } })))
          } catch (error) {
            const message = errorText(error)
            if (codec === 'zstd' && !isAtLeast(version, '2.1') && /needs Produce v7/.test(message)) {
              return { unsupported: `failed in ${Date.now() - started} ms as expected: ${message}` }
            }
            throw error
          }
          const first = sent[0].offset
          const read = await readRecords(client, codecTopic, 0, first, values.length)
          const got = read.map(r => r.value)
          if (JSON.stringify(got) !== JSON.stringify(values)) throw new Error(`read back ${JSON.stringify(got)}, wrote ${JSON.stringify(values)}`)
          if (read.some((r, i) => r.headers.codec !== codec || r.headers.n !== values[i])) throw new Error(`headers did not come back: ${JSON.stringify(read[0].headers)}`)
          if (codec === 'zstd' && !isAtLeast(version, '2.1')) throw new Error('zstd was written to a broker before 2.1')
          return undefined
        } finally {
          await producer.close({ force: true })
        }
      }
    })),
    groupCheck(client, topic, version, undefined),
    groupCheck(client, topic, version, 'classic'),
    groupCheck(client, topic, version, 'consumer'),
    {
      name: 'transactions: commit and abort (read_committed)',
      timeoutMs: 90_000,
      run: async () => {
        const producer = client.producer({ transactionalId: `compat-tx-${run}` })
        try {
          await producer.beginTransaction()
          await producer.send({ topic, partition: 1, value: 'committed' })
          await producer.commitTransaction()
          await producer.beginTransaction()
          await producer.send({ topic, partition: 1, value: 'aborted' })
          await producer.abortTransaction()
          await producer.beginTransaction()
          const last = await producer.send({ topic, partition: 1, value: 'committed-2' })
          await producer.commitTransaction()
          const read = await readRecords(client, topic, 1, 0n, 2, 'read_committed', last.offset)
          const got = read.map(r => r.value)
          if (JSON.stringify(got) !== '["committed","committed-2"]') throw new Error(`read_committed read ${JSON.stringify(got)}`)
          return undefined
        } finally {
          await producer.close({ force: true })
        }
      }
    },
    {
      name: 'share group (KIP-932)',
      timeoutMs: 60_000,
      run: async () => {
        const groupId = `compat-share-${run}`
        const queue = client.shareConsumer({ groupId, topics: [topic] })
        const controller = new AbortController()
        const timer = setTimeout(() => controller.abort(), 30_000)
        let received = 0
        // A new share group starts at the log end: a record a second goes in while the member joins.
        const producer = client.producer({ lingerMs: 0 })
        const feeding = (async () => {
          while (!controller.signal.aborted) {
            await producer.send({ topic, partition: 0, value: 'for the share group' }).catch(() => {})
            await new Promise(resolve => setTimeout(resolve, 1000))
          }
        })()
        try {
          await queue.run({ eachRecord: () => { if (++received >= 1) controller.abort() }, signal: controller.signal })
        } catch (error) {
          const message = errorText(error)
          if (!controller.signal.aborted || received === 0) {
            if (!isAtLeast(version, '4.2') && /share/i.test(message)) return { unsupported: message }
            throw error
          }
        } finally {
          clearTimeout(timer)
          controller.abort()
          await feeding
          await producer.close({ force: true })
          await within(queue.close(), 30_000, 'shareConsumer.close()').catch(() => {})
        }
        if (received === 0) throw new Error('the share consumer got no record in 30 s')
        return undefined
      }
    },
    {
      name: 'kafkajs drop-in: admin, produce, consume in a group',
      timeoutMs: 90_000,
      run: async () => await kafkajsCheck(bootstrap, `${topic}-kafkajs`, run)
    },
    {
      name: 'kafkats command: produce, consume, topics, cluster',
      timeoutMs: 90_000,
      run: async () => await cliCheck(bootstrap, `${topic}-cli`)
    },
    {
      name: 'admin: delete topics',
      timeoutMs: 30_000,
      run: async () => { throwFirstError(await client.admin.deleteTopics([topic, `${topic}-kafkajs`, `${topic}-cli`], { ignoreMissing: true })); return undefined }
    }
  ]

  try {
    for (const check of checks) {
      const started = Date.now()
      let result: CheckResult
      try {
        const outcome = await within(check.run(), check.timeoutMs, check.name)
        const ms = Date.now() - started
        if (outcome !== undefined && 'unsupported' in outcome) result = { name: check.name, status: 'unsupported', ms, detail: outcome.unsupported }
        else result = { name: check.name, status: 'pass', ms, detail: outcome?.note ?? '' }
      } catch (error) {
        result = { name: check.name, status: 'fail', ms: Date.now() - started, detail: errorText(error) }
      }
      const gap = knownGap(check.name, version)
      if (gap !== undefined) {
        if (result.status === 'fail') result = { ...result, status: 'known gap', detail: `${gap}: ${result.detail}` }
        else result = { ...result, detail: `listed as a known gap (${gap}) but ${result.status === 'pass' ? 'passed' : result.status}: take it off KNOWN_GAPS in tests/compat/smoke.ts` }
      }
      results.push(result)
      log(`  ${result.status.padEnd(11)} ${String(result.ms).padStart(6)} ms  ${result.name}${result.detail !== '' ? ` — ${result.detail.split('\n')[0].slice(0, 300)}` : ''}`)
    }
  } finally {
    await within(client.close(), 30_000, 'client.close()').catch(() => {})
  }
  return results
}

function groupCheck (client: Client, topic: string, version: string, protocol: 'classic' | 'consumer' | undefined): Check {
  const label = protocol === undefined ? 'default protocol' : protocol === 'consumer' ? 'KIP-848 asked for' : 'classic protocol'
  return {
    name: `two-member group: ${label}`,
    timeoutMs: 120_000,
    run: async () => {
      const groupTopic = `${topic}-group-${protocol ?? 'default'}`
      throwFirstError(await client.admin.createTopics([{ topic: groupTopic, numPartitions: 2, replicationFactor: 1 }]))
      const producer = client.producer({ lingerMs: 1 })
      const values = Array.from({ length: 40 }, (_, i) => `g${i}`)
      await producer.send(values.map((value, i) => ({ topic: groupTopic, partition: i % 2, value })))
      await producer.close()
      const groupId = `${groupTopic}-g`
      const warnings: string[] = []
      const members: GroupConsumer[] = []
      const seen = new Set<string>()
      // Partitions each member holds: the check ends when the group read everything and split the two partitions.
      const held = [0, 0]
      const controller = new AbortController()
      const doneIfSplit = (): void => { if (seen.size >= values.length && held[0] === 1 && held[1] === 1) controller.abort() }
      try {
        for (let m = 0; m < 2; m++) {
          const member = client.consumer({ groupId, topics: [groupTopic], fromBeginning: true, ...(protocol !== undefined ? { groupProtocol: protocol } : {}), ...(protocol !== 'consumer' ? { sessionTimeoutMs: 10_000 } : {}) })
          member.on('warning', (warning: { message: string }) => { warnings.push(warning.message) })
          member.on('assigned', event => { held[m] += event.added.length - event.revoked.length; doneIfSplit() })
          members.push(member)
        }
        const loops = members.map(async member => {
          for await (const batch of member.batches({ signal: controller.signal })) {
            for (const record of batch.records) seen.add(record.value?.toString() ?? '')
            doneIfSplit()
          }
        })
        const results = await Promise.allSettled(loops)
        const failure = results.find(r => r.status === 'rejected' && !controller.signal.aborted)
        if (failure !== undefined) throw (failure as PromiseRejectedResult).reason
        const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !/abort/i.test(errorText(r.reason)))
        if (rejected !== undefined) throw rejected.reason
        if (seen.size !== values.length) throw new Error(`the group read ${seen.size} of ${values.length} records`)
        if (held[0] !== 1 || held[1] !== 1) throw new Error(`the members hold ${held[0]} and ${held[1]} partitions, not one each`)
        const note = warnings.length > 0 ? `warning: ${warnings[0].slice(0, 160)}` : ''
        return note === '' ? undefined : { note }
      } catch (error) {
        const message = errorText(error)
        if (protocol === 'consumer' && !isAtLeast(version, '4.0') && /KIP-848|GroupProtocolUnsupported|ConsumerGroupHeartbeat|groupProtocol/i.test(message)) return { unsupported: message }
        throw error
      } finally {
        controller.abort()
        for (const member of members) await within(member.close(), 60_000, 'member.close()').catch(() => {})
      }
    }
  }
}

async function kafkajsCheck (bootstrap: string[], topic: string, run: string): Promise<Outcome> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the drop-in as an application loads it
  const { Kafka, logLevel } = require('../../kafkajs') as typeof import('../../kafkajs')
  const kafka = new Kafka({ brokers: bootstrap, clientId: 'compat-kafkajs', logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  const producer = kafka.producer()
  const consumer = kafka.consumer({ groupId: `compat-kafkajs-${run}` })
  await admin.connect()
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
    await admin.fetchTopicMetadata({ topics: [topic] })
    await producer.connect()
    await producer.send({ topic, messages: [{ key: 'k', value: 'kafkajs-1', headers: { h: 'x' } }, { value: 'kafkajs-2' }] })
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    const got: string[] = []
    await new Promise<void>((resolve, reject) => {
      consumer.run({
        eachMessage: async ({ message }) => {
          got.push(message.value?.toString() ?? '')
          if (got.length === 2) resolve()
        }
      }).catch(reject)
    })
    if (got.join(',') !== 'kafkajs-1,kafkajs-2') throw new Error(`kafkajs consumer read ${got.join(',')}`)
    await admin.describeCluster()
    return undefined
  } finally {
    await consumer.disconnect().catch(() => {})
    await producer.disconnect().catch(() => {})
    await admin.disconnect().catch(() => {})
  }
}

async function cliCheck (bootstrap: string[], topic: string): Promise<Outcome> {
  const cli = path.join(repoRoot(), 'dist', 'cli', 'main.js')
  const kafkats = async (args: string[], input?: string): Promise<string> => await new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [cli, ...args, '-b', bootstrap.join(',')], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`kafkats ${args.join(' ')}: ${stderr.trim() || error.message}`))
      else resolve(stdout)
    })
    if (input !== undefined) child.stdin?.end(input)
  })
  await kafkats(['topics', 'create', topic, '-p', '1', '-r', '1'])
  await kafkats(['produce', '-t', topic, '-q'], 'line-1\nline-2\n')
  const consumed = await kafkats(['consume', '-t', topic, '-o', 'beginning', '-e', '-q'])
  if (consumed.trim().split('\n').join(',') !== 'line-1,line-2') throw new Error(`kafkats consume printed ${JSON.stringify(consumed)}`)
  if (!(await kafkats(['topics', 'list'])).includes(topic)) throw new Error('kafkats topics list did not list the topic')
  await kafkats(['cluster', '--json'])
  return undefined
}

interface ReadRecord { value: string, headers: Record<string, string> }

/** `count` records of one partition from `from` (waits for them; read_committed waits for `lastOffset` to be stable). */
async function readRecords (client: Client, topic: string, partition: number, from: bigint, count: number, isolation: 'read_committed' | 'read_uncommitted' = 'read_uncommitted', lastOffset?: bigint): Promise<ReadRecord[]> {
  const consumer = client.consumer({ assign: [{ topic, partition, offset: from }], isolation })
  const records: ReadRecord[] = []
  const controller = new AbortController()
  try {
    for await (const batch of consumer.batches({ signal: controller.signal })) {
      for (const record of batch.records) {
        const headers: Record<string, string> = {}
        for (const header of record.headers) headers[header.key] = header.value?.toString() ?? ''
        records.push({ value: record.value?.toString() ?? '', headers })
        if (lastOffset !== undefined && record.offset >= lastOffset) controller.abort()
      }
      if (lastOffset === undefined && records.length >= count) break
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error
  } finally {
    await consumer.close()
  }
  return records
}

function errorText (error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? ` (cause: ${error.cause.message})` : ''
  return `${error.name}: ${error.message}${cause}`
}

async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([promise, new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms / 1000} s (a hang)`)), ms) })])
  } finally {
    clearTimeout(timer)
  }
}

if (require.main === module) {
  const bootstrap = (process.env.KAFKA_BOOTSTRAP ?? '').split(',').filter(s => s !== '')
  const version = process.env.KAFKA_BROKER_VERSION ?? KAFKA_VERSION
  if (bootstrap.length === 0) {
    console.error('usage: KAFKA_BOOTSTRAP=host:port [KAFKA_BROKER_VERSION=2.0.1] node dist/tests/compat/smoke.js')
    process.exitCode = 2
  } else {
    console.log(`kafkats compatibility smoke against Kafka ${version} at ${bootstrap.join(',')}`)
    void runSmoke(bootstrap, version, line => console.log(line)).then(results => {
      const failed = results.filter(r => r.status === 'fail').length
      console.log(`compat: ${results.length - failed} passed, ${failed} failed`)
      process.exitCode = failed === 0 ? 0 : 1
    })
  }
}

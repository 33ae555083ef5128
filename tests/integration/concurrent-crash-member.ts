// One member of the concurrent-processing crash test (concurrent-crash.test.ts), run as its
// own process so the test can SIGKILL, SIGSTOP and SIGTERM it. It consumes with
// run({ eachRecord, concurrency, ordering: 'key' }) and a handler of seeded random 0–20 ms
// latency, and appends to its output file, with synchronous writes (so they survive a
// SIGKILL):
//
//   S <partition> <offset> <key>   a handler starts
//   E <partition> <offset> <key>   it finished (before the handler returns)
//   A <partition> <skipped>        the partition was assigned; <skipped>: the records its
//                                  committed offset map says are finished (the new owner skips them)
//
// SIGTERM closes the consumer (running records finish, commit, leave) and exits 0.
import { Client } from '../../index'
import { GroupConsumer } from '../../group/group-consumer'
import { groupConsumerInternals } from '../../group/group-consumer'
import { decodeOffsetMap } from '../../consumer/concurrent/offset-map'
import type { MemberIdentity, TopicPartition } from '../../group/membership'
import type { RefusedCommit } from '../../group/group-consumer'
import { seededRandom } from './chaos-support'
import { closeOnSigterm, errorText, logEvent as log, OutputFile, readMemberConfig, reportCrashes, runUntilSigterm } from './member-process'
import type { MemberConfig } from './group-chaos-support'

export interface ConcurrentMemberConfig extends MemberConfig {
  concurrency: number
  maxLatencyMs: number
}

const config = readMemberConfig<ConcurrentMemberConfig>('tests/integration/concurrent-crash.test.ts')
reportCrashes()

const output = new OutputFile(config.output)
const random = seededRandom(config.seed)
let processed = 0
const writeLine = (text: string): void => { output.write(text) }

const client = new Client({ bootstrap: config.bootstrap, clientId: `concurrent-crash-${config.label}`, retryBackoff: { initialMs: 100, maxMs: 1000 } })
const consumer = new GroupConsumer(client, {
  // Called as the partitions are added, before their first batch reads the committed offset map.
  onAssigned: partitions => {
    for (const p of partitions) {
      const cursor = groupConsumerInternals(consumer).cursor(p.topic, p.partition)
      const map = cursor?.committedOffset === undefined ? undefined : decodeOffsetMap(cursor.committedMetadata, cursor.committedOffset)
      let skipped = 0n
      for (const [start, end] of map?.ranges ?? []) skipped += end - start
      writeLine(`A ${p.partition} ${skipped}\n`)
    }
  },
  groupId: config.groupId,
  topics: [config.topic],
  groupProtocol: config.groupProtocol,
  fromBeginning: true,
  sessionTimeoutMs: config.sessionTimeoutMs,
  heartbeatIntervalMs: config.heartbeatIntervalMs,
  rebalanceTimeoutMs: config.rebalanceTimeoutMs,
  autoCommitIntervalMs: config.autoCommitIntervalMs
})
const held = (): number[] => groupConsumerInternals(consumer).cursors.filter(c => !c.ownership.released).map(c => c.partition).sort((a, b) => a - b)
let closing = false

closeOnSigterm(config.closeTimeoutMs, () => ({ processed, held: held() }), async () => {
  closing = true
  await consumer.close()
  await client.close()
  output.close()
})

async function main (): Promise<void> {
  log('started', { pid: process.pid, groupProtocol: config.groupProtocol })
  consumer.on('assigned', ({ added, revoked, identity }: { added: TopicPartition[], revoked: TopicPartition[], identity: MemberIdentity }) => {
    log('assigned', { added: added.map(p => p.partition), revoked: revoked.map(p => p.partition), memberId: identity.memberId, generation: identity.generation, held: held() })
  })
  consumer.on('lost', ({ partitions, reason }: { partitions: TopicPartition[], reason: string }) => {
    log('lost', { partitions: partitions.map(p => p.partition), reason, held: held() })
  })
  consumer.on('commitRefused', (refused: RefusedCommit[]) => {
    log('commitRefused', { refused: refused.map(r => `${r.partition}@${r.offset}: ${r.reason}`) })
  })
  consumer.on('warning', (error: unknown) => log('warning', { message: errorText(error) }))
  setInterval(() => log('status', { processed, held: held() }), 2000).unref()

  await consumer.run({
    concurrency: config.concurrency,
    ordering: 'key',
    eachRecord: async (record, batch) => {
      const line = `${batch.partition} ${record.offset} ${record.key?.toString() ?? ''}\n`
      writeLine(`S ${line}`)
      const latency = Math.floor(random() * (config.maxLatencyMs + 1))
      if (latency > 0) await new Promise(resolve => setTimeout(resolve, latency))
      writeLine(`E ${line}`)
      processed++
    }
  })
}

runUntilSigterm(main, () => closing)

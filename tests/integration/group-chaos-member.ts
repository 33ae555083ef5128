// One member of the group chaos test (group-chaos.test.ts), run as its own process so the
// test can SIGKILL, SIGSTOP and SIGTERM it:
//
//   KAFKATS_GROUP_CHAOS_MEMBER='{"label":"A#1",…}' node dist/tests/integration/group-chaos-member.js
//
// Every record the handler processes is appended to the output file as
// "<partition> <offset>\n" with a synchronous write before the handler returns, so what
// counts as processed survives a SIGKILL. SIGTERM closes the consumer (commit, revoke,
// leave the group) and exits 0. Each stdout line is a JSON event for the orchestrator.
import { Client } from '../../index'
import { GroupConsumer } from '../../group/group-consumer'
import type { ConsumerBatch } from '../../consumer/cursor'
import type { RefusedCommit } from '../../group/group-consumer'
import type { MemberIdentity, TopicPartition } from '../../group/membership'
import { seededRandom } from './chaos-support'
import type { MemberConfig } from './group-chaos-support'
import { closeOnSigterm, errorText, logEvent as log, OutputFile, readMemberConfig, reportCrashes, runUntilSigterm } from './member-process'
import { sleep } from '../support/wait'
import { groupConsumerInternals } from '../../group/group-consumer'

const config = readMemberConfig<MemberConfig>('tests/integration/group-chaos.test.ts')
reportCrashes()

const output = new OutputFile(config.output)
const random = seededRandom(config.seed)
let processed = 0

const client = new Client({ bootstrap: config.bootstrap, clientId: `group-chaos-${config.label}`, retryBackoff: { initialMs: 100, maxMs: 1000 } })
if (config.traceGroupRequests === true) traceGroupRequests(client)
let consumer: GroupConsumer | undefined
let closing = false

/** Logs every group request and its answer (JoinGroup, SyncGroup, Heartbeat, …) as 'trace' events: for diagnosing a run. */
function traceGroupRequests (traced: Client): void {
  const groupApis = new Set(['JoinGroup', 'SyncGroup', 'Heartbeat', 'LeaveGroup', 'OffsetCommit', 'OffsetFetch', 'ConsumerGroupHeartbeat', 'FindCoordinator'])
  const request = traced.request.bind(traced)
  traced.request = async function (api, body, options) {
    if (!groupApis.has(api.name)) return await request(api, body, options)
    const started = Date.now()
    const summary = (value: unknown): unknown => {
      if (typeof value !== 'object' || value === null) return value
      const v = value as Record<string, unknown>
      const keep: Record<string, unknown> = {}
      for (const key of ['errorCode', 'generationId', 'memberId', 'memberEpoch', 'leader', 'generationIdOrMemberEpoch', 'protocolName', 'skipAssignment']) if (key in v) keep[key] = v[key]
      if (Array.isArray(v.members)) keep.members = (v.members as Array<{ memberId: string }>).map(m => m.memberId.slice(0, 24))
      if (v.assignment !== undefined && v.assignment !== null) keep.assignment = Buffer.isBuffer(v.assignment) ? v.assignment.length : v.assignment
      // Offsets: every partition's answer, compactly.
      const groups = Array.isArray(v.groups) ? v.groups as Array<Record<string, unknown>> : [v]
      const partitions: string[] = []
      for (const g of groups) {
        if (!Array.isArray(g.topics)) continue
        if (g !== v && typeof g.errorCode === 'number' && g.errorCode !== 0) partitions.push(`group error ${g.errorCode}`)
        for (const t of g.topics as Array<{ partitions?: Array<Record<string, unknown>> }>) {
          for (const p of t.partitions ?? []) partitions.push(`${String(p.partitionIndex)}:${String(p.committedOffset ?? '')}${p.errorCode !== 0 && p.errorCode !== undefined ? `!${String(p.errorCode)}` : ''}`)
        }
      }
      if (partitions.length > 0) keep.partitions = partitions.join(' ')
      return keep
    }
    const sent = typeof body === 'function' ? '(built per version)' : summary(body)
    try {
      const response = await request(api, body, options)
      log('trace', { api: api.name, ms: Date.now() - started, request: sent, response: summary(response) })
      return response
    } catch (error) {
      log('trace', { api: api.name, ms: Date.now() - started, request: sent, error: errorText(error) })
      throw error
    }
  } as typeof traced.request
}

/** Partitions held now: cursors whose ownership is not released (a released one may linger until removed). */
const held = (): number[] => ((consumer === undefined ? undefined : groupConsumerInternals(consumer))?.cursors ?? []).filter(c => !c.ownership.released).map(c => c.partition).sort((a, b) => a - b)

closeOnSigterm(config.closeTimeoutMs, () => ({ processed, held: held() }), async () => {
  closing = true
  await consumer?.close()
  await client.close()
  output.close()
})

async function main (): Promise<void> {
  log('started', { pid: process.pid, groupProtocol: config.groupProtocol, delivery: config.delivery })
  if (closing) return
  const group = consumer = new GroupConsumer(client, {
    groupId: config.groupId,
    topics: [config.topic],
    groupProtocol: config.groupProtocol,
    delivery: config.delivery,
    fromBeginning: true,
    sessionTimeoutMs: config.sessionTimeoutMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    rebalanceTimeoutMs: config.rebalanceTimeoutMs,
    autoCommitIntervalMs: config.autoCommitIntervalMs
  })
  group.on('assigned', ({ added, revoked, identity }: { added: TopicPartition[], revoked: TopicPartition[], identity: MemberIdentity }) => {
    log('assigned', { added: added.map(p => p.partition), revoked: revoked.map(p => p.partition), memberId: identity.memberId, generation: identity.generation, held: held() })
  })
  group.on('lost', ({ partitions, reason }: { partitions: TopicPartition[], reason: string }) => {
    log('lost', { partitions: partitions.map(p => p.partition), reason, held: held() })
  })
  group.on('commitRefused', (refused: RefusedCommit[]) => {
    log('commitRefused', { refused: refused.map(r => `${r.partition}@${r.offset}: ${r.reason}`) })
  })
  group.on('batchDropped', (dropped: { partition: number, firstOffset?: bigint, nextOffset: bigint, reason: string }) => {
    log('batchDropped', { partition: dropped.partition, firstOffset: dropped.firstOffset, nextOffset: dropped.nextOffset, reason: dropped.reason })
  })
  group.on('warning', (error: unknown) => log('warning', { message: errorText(error) }))
  setInterval(() => log('status', { processed, held: held() }), 2000).unref()

  await group.run({
    partitionsConcurrently: 4,
    eachBatch: async (batch: ConsumerBatch) => {
      // Some batches take a while, so revokes, fences and kills meet work in flight.
      if (config.maxProcessingDelayMs > 0 && random() < 0.3) await sleep(Math.floor(random() * config.maxProcessingDelayMs))
      let text = ''
      for (const record of batch.records) text += `${batch.partition} ${record.offset}\n`
      output.write(text)
      processed += batch.records.length
    }
  })
}

runUntilSigterm(main, () => closing)

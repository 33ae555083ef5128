// One member of the exactly-once chaos test (transactions-three-nodes.test.ts), in a process of its own so
// the test can SIGKILL and SIGSTOP it: a group consumer (read_committed) and a transactional
// producer in runTransactional, copying every input record to the output topic with its key.
// A fatal producer error (its transaction timed out while it was stopped, a fence) replaces
// the producer and goes on. Each stdout line is a JSON event (member-process.ts).
import { Client } from '../../index'
import { GroupConsumer } from '../../group/group-consumer'
import { runTransactional } from '../../group/transactional'
import { Producer } from '../../producer/producer'
import type { MemberConfig } from './group-chaos-support'
import { errorText, logEvent as log, readMemberConfig, reportCrashes } from './member-process'
import { internal } from '../../client/internal'
import { groupConsumerInternals } from '../../group/group-consumer'

const config = readMemberConfig<MemberConfig & { outputTopic: string, transactionTimeoutMs: number }>('tests/integration/transactions-three-nodes.test.ts')
reportCrashes()

const client = new Client({ bootstrap: config.bootstrap, clientId: `eos-${config.label}`, retryBackoff: { initialMs: 100, maxMs: 1000 } })
// Invariant 8: a runTransactional member sends no ordinary OffsetCommit; each one is reported (the test counts them).
client.on('request', event => { if (event.apiName === 'OffsetCommit') log('offsetCommit', { outcome: event.outcome }) })
let committed = 0
let aborted = 0
let producers = 0

// The watchdog: which call of the loop this member awaits and since when, so a member that
// stops making progress says where it waits ('stuck' lines) instead of going quiet.
let phase = 'starting'
let phaseSince = Date.now()
let lastCommitAt = Date.now()
const enter = (name: string): void => { phase = name; phaseSince = Date.now() }
/** Wraps `object[name]` so the phase names the call while it is awaited. */
function track<T extends object> (object: T, name: string, onDone?: () => void): void {
  const target = object as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  const original = target[name].bind(object)
  target[name] = async (...args: unknown[]) => {
    enter(name)
    try {
      const result = await original(...args)
      onDone?.()
      return result
    } finally {
      enter(`after ${name}`)
    }
  }
}
let consumerRef: GroupConsumer | undefined
let producerRef: Producer | undefined
/** What the member is doing: the phase, its membership and transaction, each partition's cursor, and the requests waiting for answers. */
function snapshot (): Record<string, unknown> {
  const now = Date.now()
  return {
    phase,
    phaseMs: now - phaseSince,
    sinceCommitMs: now - lastCommitAt,
    member: consumerRef?.groupMetadata(),
    transaction: producerRef?.transactionState,
    producer: producerRef?.[internal].debugState(),
    cursors: (consumerRef === undefined ? undefined : groupConsumerInternals(consumerRef))?.cursors.map(c => ({
      p: c.partition,
      fetch: c.fetchOffset?.toString() ?? String(c.resetTo),
      buffered: c.buffered.length,
      inFetch: c.inFetch,
      handingOut: c.handingOut,
      processing: c.processing === undefined ? undefined : { from: c.processing.batch.records[0]?.offset.toString(), ms: now - c.processing.startedAt },
      paused: c.paused,
      released: c.ownership.released,
      epoch: c.ownership.generation,
      retryInMs: c.retryAt > now ? c.retryAt - now : undefined
    })),
    requests: client[internal].brokers.inFlightRequests().filter(r => r.ageMs > 1000)
  }
}
const STUCK_MS = 20_000
let lastStuckAt = 0
setInterval(() => {
  const now = Date.now()
  const held = (consumerRef === undefined ? undefined : groupConsumerInternals(consumerRef))?.cursors.filter(c => !c.ownership.released) ?? []
  // Work left: a held partition with records not read yet, buffered or out.
  const behind = held.some(c => c.buffered.length > 0 || c.processing !== undefined || c.fetchOffset === undefined || c.fetchOffset < c.highWatermark || c.highWatermark < 0n)
  const stuck = (now - phaseSince > STUCK_MS && phase !== 'nextBatch') || (behind && now - lastCommitAt > STUCK_MS)
  if (stuck && now - lastStuckAt > STUCK_MS) {
    lastStuckAt = now
    log('stuck', { held: held.map(c => c.partition), ...snapshot() })
  }
}, 1000).unref()

async function main (): Promise<void> {
  const consumer = new GroupConsumer(client, {
    groupId: config.groupId,
    topics: [config.topic],
    groupProtocol: config.groupProtocol,
    fromBeginning: true,
    isolation: 'read_committed',
    sessionTimeoutMs: config.sessionTimeoutMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    rebalanceTimeoutMs: config.rebalanceTimeoutMs,
    // Frequent, so a stray ordinary commit (one between a TxnOffsetCommit and its marker supersedes it) would show.
    autoCommitIntervalMs: 20
  })
  consumerRef = consumer
  track(consumer, 'nextBatch')
  consumer.on('transactionAborted', () => { aborted++ })
  consumer.on('lost', ({ reason }: { reason: string }) => log('lost', { reason }))
  consumer.on('assigned', () => log('assigned', { held: groupConsumerInternals(consumer).cursors.filter(c => !c.ownership.released).map(c => c.partition) }))
  setInterval(() => log('status', { committed, aborted, producers, phase, phaseMs: Date.now() - phaseSince, held: groupConsumerInternals(consumer).cursors.filter(c => !c.ownership.released).map(c => c.partition) }), 2000).unref()
  process.once('SIGTERM', () => { void consumer.close().then(async () => { await client.close(); process.exit(0) }) })
  log('started', { pid: process.pid })
  for (;;) {
    producers++
    const producer = new Producer(client, { transactionalId: `eos-${config.groupId}-${config.label}`, transactionTimeoutMs: config.transactionTimeoutMs, lingerMs: 1 })
    producerRef = producer
    track(producer, 'beginTransaction')
    track(producer, 'sendOffsets')
    track(producer, 'commitTransaction', () => { committed++; lastCommitAt = Date.now() })
    track(producer, 'abortTransaction')
    try {
      await runTransactional(consumer, producer, {
        eachBatch: async (batch, tx) => {
          enter('send')
          await tx.send(batch.records.map(r => ({ topic: config.outputTopic, key: r.key, value: r.value })))
        }
      })
      return
    } catch (error) {
      log('producerFailed', { message: errorText(error), state: producer.transactionState })
      await producer.close({ force: true })
    }
  }
}

main().catch(error => {
  log('error', { message: `failed: ${errorText(error)}` })
  process.exit(2)
})

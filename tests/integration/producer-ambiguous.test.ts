// Invariant 1 against a real three-node Kafka 4.4 cluster: an acknowledged record is in
// the log, at the offset we reported, with its own value — through the ambiguous
// errors that made other clients lose records.
//
// The failure story (franz-go #1217): a batch is written, the leader appends it but
// cannot replicate it in time and answers REQUEST_TIMED_OUT; the caller aborts; a client
// that then fails the batch and hands its sequence numbers to the next batch sees that
// next batch deduplicated against the first and acknowledged at the first one's offset.
//
// Here: a topic with RF=2 and min.insync.replicas=2, acks=all, a short request timeout,
// and the follower paused with SIGSTOP. The leader appends and waits for the follower →
// REQUEST_TIMED_OUT; once the follower leaves the ISR, waiting requests may end in
// NOT_ENOUGH_REPLICAS_AFTER_APPEND and new ones in NOT_ENOUGH_REPLICAS. Sends are
// aborted while the follower is paused, more are sent, and the follower resumes. Then
// every acknowledgement is checked against the log.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { Producer } from '../../producer/producer'
import { OutcomeUnknownError } from '../../producer/errors'
import type { RecordMetadata } from '../../producer/batch'
import { startCluster, type KafkaCluster } from '../broker/kafka'
import { requireJavaOrSkip } from './support'
import { internal } from '../../client/internal'

const skip = requireJavaOrSkip()

interface Sent { value: string, result?: RecordMetadata, error?: Error }

async function readAll (client: Client, topic: string, partition: number): Promise<Map<bigint, string>> {
  const log = new Map<bigint, string>()
  const { offset: end } = await client.listOffsets({ topic, partition, spec: 'latest' })
  let offset = 0n
  while (offset < end) {
    const fetched = await client.fetchRaw({ topic, partition, offset, maxBytes: 8 << 20 })
    for (const r of fetched.records) log.set(r.offset, r.value?.toString() ?? '')
    offset = fetched.nextOffset
  }
  return log
}

function checkAgainstLog (sent: Sent[], log: Map<bigint, string>): { acked: number, unknown: number, failed: number } {
  let acked = 0
  let unknown = 0
  let failed = 0
  const ackedOffsets = new Set<bigint>()
  for (const s of sent) {
    if (s.result !== undefined) {
      acked++
      assert.equal(log.get(s.result.offset), s.value, `record "${s.value}" acknowledged at offset ${s.result.offset}, but the log has "${log.get(s.result.offset)}" there`)
      assert.ok(!ackedOffsets.has(s.result.offset), `two records acknowledged at offset ${s.result.offset}`)
      ackedOffsets.add(s.result.offset)
    } else if (s.error instanceof OutcomeUnknownError) {
      unknown++
    } else {
      failed++
      // A record reported as failed (not "unknown") must not be in the log.
      for (const value of log.values()) assert.notEqual(value, s.value, `record "${s.value}" was reported failed (${s.error?.message}) but is in the log`)
    }
  }
  // Every value in the log appears once: the producer never duplicated a record.
  const seen = new Set<string>()
  for (const value of log.values()) {
    assert.ok(!seen.has(value), `value "${value}" is in the log twice`)
    seen.add(value)
  }
  return { acked, unknown, failed }
}

describe('idempotent producer through ambiguous errors on a real cluster', { skip, timeout: 600_000 }, () => {
  let cluster: KafkaCluster
  let client: Client

  before(async () => {
    cluster = await startCluster({ nodes: 3, portBase: 'free', brokerOverrides: { 'replica.lag.time.max.ms': 4000 } })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'ambiguous-test', retryBackoff: { initialMs: 100, maxMs: 1000 } })
  })

  after(async () => {
    await client?.close()
    await cluster?.stop()
  })

  // Which ambiguous outcomes the scenarios met, across all of them.
  const seenAcrossTests = new Set<string>()
  // The leader answers REQUEST_TIMED_OUT before the follower leaves the ISR. (Kafka 4.x does
  // not move the high watermark while the ISR is below min.insync.replicas, so requests that
  // wait for a paused follower time out rather than end in NOT_ENOUGH_REPLICAS_AFTER_APPEND;
  // that error is covered deterministically by tests/producer/producer.test.ts.)
  const scenarios = [
    { mode: 'wait' as const, requestTimeoutMs: 1500, pausedMs: 10_000 },
    { mode: 'settle' as const, requestTimeoutMs: 1500, pausedMs: 10_000 }
  ]
  for (const { mode, requestTimeoutMs, pausedMs } of scenarios) {
    test(`aborts while the follower is paused (abortUnknownOutcome: ${mode}, requestTimeoutMs: ${requestTimeoutMs})`, async () => {
      const topic = `ambiguous-${mode}-${Date.now()}`
      // Leader 1, follower 2, so we know whom to pause.
      await client.admin.createTopics([{ topic, assignments: { 0: [1, 2] }, configs: { 'min.insync.replicas': '2' } }])
      const producer = new Producer(client, { requestTimeoutMs, lingerMs: 2, abortUnknownOutcome: mode, deliveryTimeoutMs: 60_000 })
      const ambiguousCodes = new Map<string, number>()
      producer.on('ambiguous', ({ error }: { error: Error & { type?: string } }) => {
        const name = error.type ?? error.name
        ambiguousCodes.set(name, (ambiguousCodes.get(name) ?? 0) + 1)
        seenAcrossTests.add(name)
      })
      const sent: Sent[] = []
      const pending: Array<Promise<void>> = []
      const send = (value: string, signal?: AbortSignal): void => {
        const entry: Sent = { value }
        sent.push(entry)
        pending.push(producer.send({ topic, value }, { signal }).then(r => { entry.result = r }, e => { entry.error = e }))
      }
      try {
        for (let i = 0; i < 20; i++) send(`before-${i}`)
            await Promise.all(pending.splice(0))

        cluster.node(2).pause()
        // Written while the follower is paused: the leader appends, then times out waiting.
        const aborts: AbortController[] = []
        for (let i = 0; i < 10; i++) {
          const controller = new AbortController()
          aborts.push(controller)
          send(`aborted-${i}`, controller.signal)
          await new Promise(resolve => setTimeout(resolve, 50))
        }
        await new Promise(resolve => setTimeout(resolve, 1800))
        for (const c of aborts) c.abort(new Error('caller gave up'))
        // More records behind the aborted ones, while the follower is still paused and after it left the ISR.
        for (let i = 0; i < 10; i++) send(`after-abort-${i}`)
        await new Promise(resolve => setTimeout(resolve, pausedMs - 4000))
        for (let i = 0; i < 10; i++) send(`late-${i}`)
        await new Promise(resolve => setTimeout(resolve, 2000))
        cluster.node(2).resume()

        for (let i = 0; i < 10; i++) send(`resumed-${i}`)
        await Promise.all(pending)
        await producer.flush()

        const log = await readAll(client, topic, 0)
        const counts = checkAgainstLog(sent, log)
        console.log(`  mode=${mode}: ${counts.acked} acknowledged, ${counts.unknown} outcome unknown, ${counts.failed} failed, log has ${log.size} records; ambiguous errors seen: ${JSON.stringify(Object.fromEntries(ambiguousCodes))}`)
        assert.ok(ambiguousCodes.size > 0, 'the test did not produce an ambiguous error')
        if (mode === 'wait') {
          // Nothing may settle as failed or unknown just because it was aborted after being written.
          assert.equal(counts.unknown, 0)
        }
        for (const value of ['before-0', 'resumed-9']) assert.ok([...log.values()].includes(value), `${value} missing from the log`)
      } finally {
        cluster.node(2).resume()
        await producer.close({ force: true })
      }
    })
  }

  test('the scenarios met a REQUEST_TIMED_OUT answer and a connection that died after the write', () => {
    assert.ok(seenAcrossTests.has('REQUEST_TIMED_OUT'), `seen: ${[...seenAcrossTests].join(', ')}`)
    assert.ok(seenAcrossTests.has('ConnectionError'), `seen: ${[...seenAcrossTests].join(', ')}`)
  })

  test('the leader is killed with batches in flight: written requests whose connection died are retried, never duplicated or lost', async () => {
    const topic = `leader-kill-${Date.now()}`
    await client.admin.createTopics([{ topic, assignments: { 0: [1, 3] }, configs: { 'min.insync.replicas': '1' } }])
    const producer = new Producer(client, { requestTimeoutMs: 3000, lingerMs: 1 })
    const connectionDeaths: string[] = []
    producer.on('ambiguous', ({ error }: { error: Error }) => connectionDeaths.push(error.name))
    const status = setInterval(() => {
      const acked = sent.filter(s => s.result !== undefined).length
      const failed = sent.filter(s => s.error !== undefined)
      console.log(`  … ${sent.length} sent, ${acked} acknowledged, ${failed.length} failed${failed.length > 0 ? ` (${failed[0].error!.message})` : ''}, leader ${client.metadata.partition(topic, 0)?.leaderId}, ambiguous ${connectionDeaths.length}`)
      if (stop && acked + failed.length < sent.length) console.log(JSON.stringify(producer[internal].debugState()))
    }, 2000)
    const sent: Sent[] = []
    const pending: Array<Promise<void>> = []
    let stop = false
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const entry: Sent = { value: `v-${i}` }
        sent.push(entry)
        pending.push(producer.send({ topic, value: entry.value }).then(r => { entry.result = r }, e => { entry.error = e }))
        if (i % 50 === 0) await new Promise(resolve => setTimeout(resolve, 5))
      }
    })()
    try {
      await new Promise(resolve => setTimeout(resolve, 1500))
      await client.metadata.refresh([topic])
      const leader = client.metadata.partition(topic, 0)!.leaderId
      await cluster.node(leader).kill()
      await new Promise(resolve => setTimeout(resolve, 3000))
      await cluster.node(leader).restart()
      await new Promise(resolve => setTimeout(resolve, 1500))
      stop = true
      await writer
      await Promise.all(pending)
      const log = await readAll(client, topic, 0)
      const counts = checkAgainstLog(sent, log)
      console.log(`  leader kill (broker ${leader}): ${counts.acked} acknowledged, ${counts.unknown} unknown, ${counts.failed} failed; ambiguous attempts: ${connectionDeaths.length} (${[...new Set(connectionDeaths)].join(', ')})`)
      assert.equal(counts.failed + counts.unknown, 0, 'every record should finally be acknowledged')
      assert.ok(connectionDeaths.length > 0, 'no request was in flight when the leader died: the test did not test anything')
      // In send order too: offsets increase with send order.
      const offsets = sent.map(s => s.result!.offset)
      for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i] > offsets[i - 1], `record ${i} landed before record ${i - 1}`)
    } finally {
      clearInterval(status)
      stop = true
      await producer.close({ force: true })
    }
  })
})

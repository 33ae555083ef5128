// Transactions on three real brokers. First the transaction coordinator's broker SIGKILLed: mid-transaction (the
// producer must find the new coordinator, which loads the transaction from its replica of
// __transaction_state) and while EndTxn is on its way (an answer may be lost: the commit is
// retried until the new coordinator says it is done). Either way every record of the
// transaction is visible to read_committed exactly once, or — if kafkats cannot know — the
// commit says TransactionOutcomeUnknownError; it never reports a wrong outcome.
//
// Then exactly-once under chaos: an input topic of keyed records
// (12 partitions) goes through 3 member processes (eos-chaos-member.ts: runTransactional,
// read_committed in, transactional out) while members are SIGKILLed (and restarted),
// SIGSTOPped past their session and transaction timeouts, and the leader of an output
// partition is SIGKILLed. Then the output is read with read_committed: every input record
// must be there exactly once, each key's records in input order. Counts are printed.
//
// KAFKATS_EOS_RECORDS sets the size (default 20,000; the full run is 100,000).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Client, TransactionOutcomeUnknownError } from '../../index'
import { FindCoordinator } from '../../protocol/apis/find-coordinator'
import { readCommitted } from './transactions-support'
import { startCluster, type KafkaCluster } from '../broker/kafka'
import { envInt, partitionsByLeader, seededRandom, Timeline, withTimeout } from './chaos-support'
import { logTail, MemberCast, type MemberConfig } from './group-chaos-support'
import { requireJavaOrSkip, uniqueName } from './support'
import { sleep } from '../support/wait'

const RECORDS = envInt('KAFKATS_EOS_RECORDS', 20_000)
const PARTITIONS = 12
const KEYS = 500
/** The group's committed input not moving for this long, after the chaos, is a stall (the members' 'stuck' lines say where they wait). */
const NO_PROGRESS_MS = 120_000
const skip = requireJavaOrSkip()

describe('transactions on three nodes: the coordinator SIGKILLed, and exactly-once under chaos', { skip, timeout: 900_000 }, () => {
  let cluster: KafkaCluster
  let client: Client

  before(async () => {
    cluster = await startCluster({ nodes: 3, portBase: 'free', brokerOverrides: { 'broker.session.timeout.ms': 6000, 'broker.heartbeat.interval.ms': 1000, 'transaction.abort.timed.out.transaction.cleanup.interval.ms': 1000 } })
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'eos-chaos', retryBackoff: { initialMs: 100, maxMs: 1000 } })
  })

  after(async () => {
    await client?.close()
    await cluster?.stop()
  })

  async function coordinatorOf (transactionalId: string): Promise<number> {
    for (;;) {
      const response = await client.request(FindCoordinator, { keyType: 1, coordinatorKeys: [transactionalId] })
      const entry = response.coordinators[0]
      if (entry.errorCode === 0) return entry.nodeId
      await sleep(200)
    }
  }

  async function readAll (topic: string, partitions: number): Promise<string[]> {
    const values: string[] = []
    for (let partition = 0; partition < partitions; partition++) values.push(...await readCommitted(client, topic, partition))
    return values
  }

  /** Where the input records missing from the output were, as offset ranges per input partition. */
  async function missingRanges (topic: string, seen: Map<number, number>): Promise<string> {
    const lines: string[] = []
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const ranges: string[] = []
      let start: bigint | undefined
      let last = -1n
      const end = (await client.listOffsets({ topic, partition, spec: 'latest' })).offset
      for (let offset = 0n; offset < end;) {
        const fetched = await client.fetchRaw({ topic, partition, offset, maxBytes: 8 << 20 })
        if (fetched.nextOffset <= offset) break
        for (const record of fetched.records) {
          const gone = !seen.has(Number(record.value!.toString()))
          if (gone && start === undefined) start = record.offset
          if (!gone && start !== undefined) { ranges.push(`${start}-${last}`); start = undefined }
          last = record.offset
        }
        offset = fetched.nextOffset
      }
      if (start !== undefined) ranges.push(`${start}-${last}`)
      if (ranges.length > 0) lines.push(`  ${partition}: ${ranges.join(', ')}`)
    }
    return lines.join('\n')
  }

  for (const when of ['mid-transaction', 'while EndTxn is sent'] as const) {
    test(`killed ${when}: the commit completes with the new coordinator and every record is visible once`, async () => {
      const topic = uniqueName('txn-failover')
      await client.admin.createTopics([{ topic, numPartitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }])
      await client.metadata.waitForTopic(topic, 30_000)
      const transactionalId = uniqueName('txn-failover')
      const producer = client.producer({ transactionalId, lingerMs: 1, requestTimeoutMs: 10_000 })
      const expected: string[] = []
      try {
        await producer.transaction(async tx => {
          const values = Array.from({ length: 30 }, (_, i) => `before-${i}`)
          expected.push(...values)
          await tx.send(values.map((value, i) => ({ topic, partition: i % 3, value })))
        })
        await producer.beginTransaction()
        const first = Array.from({ length: 30 }, (_, i) => `in-${i}`)
        expected.push(...first)
        await producer.send(first.map((value, i) => ({ topic, partition: i % 3, value })))
        const victim = cluster.node(await coordinatorOf(transactionalId))
        let outcome: unknown
        if (when === 'mid-transaction') {
          await victim.kill()
          const more = Array.from({ length: 30 }, (_, i) => `after-kill-${i}`)
          expected.push(...more)
          await producer.send(more.map((value, i) => ({ topic, partition: i % 3, value })))
          outcome = await producer.commitTransaction().then(() => 'committed', (error: unknown) => error)
        } else {
          const committing = producer.commitTransaction().then(() => 'committed', (error: unknown) => error)
          await sleep(2)
          await victim.kill()
          outcome = await committing
        }
        // Back to three nodes before reading (a reader is not what this test is about).
        await victim.restart()
        const visible = await readAll(topic, 3)
        if (outcome instanceof TransactionOutcomeUnknownError) {
          // Allowed only when kafkats could not know: then the log decides, all or nothing.
          const inTransaction = expected.filter(v => !v.startsWith('before-'))
          const shown = visible.filter(v => !v.startsWith('before-'))
          assert.ok(shown.length === 0 || shown.length === inTransaction.length, `an unknown outcome must still be all or nothing: ${shown.length}/${inTransaction.length}`)
        } else {
          assert.equal(outcome, 'committed', `commit: ${String(outcome)}`)
          assert.deepEqual([...visible].sort(), [...expected].sort(), 'every record of both transactions, once')
        }
        // The producer goes on with the new coordinator.
        if (outcome === 'committed') {
          await producer.transaction(async tx => { await tx.send({ topic, partition: 0, value: 'later' }) })
        }
      } finally {
        await producer.close({ force: true })
      }
    })
  }

  for (const groupProtocol of ['consumer', 'classic'] as const) {
    test(`${groupProtocol} protocol: ${RECORDS} records, every one exactly once in the read_committed output, in key order`, async () => {
      const input = uniqueName('eos-in')
      const output = uniqueName('eos-out')
      const groupId = uniqueName('eos-group')
      await client.admin.createTopics([
        { topic: input, numPartitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
        { topic: output, numPartitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }
      ])
      await client.metadata.waitForTopic(input, 30_000)
      await client.metadata.waitForTopic(output, 30_000)
      // Input: value = sequence number; key = k<i mod KEYS>, so each key's values rise.
      const seeder = client.producer({ lingerMs: 5 })
      for (let from = 0; from < RECORDS; from += 5000) {
        await seeder.send(Array.from({ length: Math.min(5000, RECORDS - from) }, (_, j) => ({ topic: input, key: `k${(from + j) % KEYS}`, value: String(from + j) })))
      }
      await seeder.close()

      const timeline = new Timeline()
      const cast = new MemberCast({
        names: ['A', 'B', 'C'],
        program: path.join(__dirname, 'eos-chaos-member.js'),
        runDirPrefix: 'kafkats-eos-chaos-',
        timeline,
        config: (label, out) => ({
          label, bootstrap: cluster.bootstrap, topic: input, outputTopic: output, groupId, groupProtocol, delivery: 'at-least-once', output: out,
          sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000, transactionTimeoutMs: 5000,
          maxProcessingDelayMs: 0, seed: 1, closeTimeoutMs: 20_000
        } as MemberConfig)
      })
      const { registry, slots, runDir } = cast
      const membersNow = (): string => registry.filter(i => i.exit === undefined).map(i => `    ${i.label}:\n${logTail(i, 4)}`).join('\n')
      const random = seededRandom(groupProtocol === 'consumer' ? 7 : 11)
      const committedTotal = async (): Promise<bigint> => {
        const [answer] = await client.admin.fetchOffsets([groupId])
        return answer.offsets.filter(o => o.topic === input && o.offset > 0n).reduce((sum, o) => sum + o.offset, 0n)
      }
      try {
        for (const slot of slots) slot.start()
        // The chaos, while the members work: a kill and restart, a stop past both timeouts, an output leader killed.
        const chaos = async (): Promise<void> => {
          await sleep(4000)
          await slots[Math.floor(random() * 3)].kill()
          for (const slot of slots) if (slot.state === 'down') slot.start()
          await sleep(3000)
          const stalled = slots.find(s => s.state === 'running')!
          stalled.stall()
          await sleep(9000) // past the 6 s session timeout and the 5 s transaction timeout
          stalled.resume()
          const leaders = await partitionsByLeader(client, output)
          const victimId = [...leaders.keys()][Math.floor(random() * leaders.size)]
          timeline.note(`SIGKILL broker ${victimId} (leads ${String(leaders.get(victimId))} of the output)`)
          const victim = cluster.node(victimId)
          await victim.kill()
          await sleep(8000)
          timeline.note(`restart broker ${victimId}`)
          await victim.restart()
        }
        await withTimeout((async () => {
          await chaos()
          // A stall fails here with each member's account of where it waits ('stuck' lines), not at the overall timeout.
          let last = -1n
          let movedAt = Date.now()
          for (;;) {
            const total = await committedTotal().catch(() => last)
            if (total >= BigInt(RECORDS)) return
            if (total !== last) {
              last = total
              movedAt = Date.now()
            } else if (Date.now() - movedAt > NO_PROGRESS_MS) {
              throw new Error(`No input committed for ${NO_PROGRESS_MS / 1000} s (${total} of ${RECORDS}):\n${timeline.toString()}\nmember logs (in ${runDir}):\n${membersNow()}`)
            }
            await sleep(500)
          }
        })(), 600_000, () => `the group to commit all ${RECORDS} inputs\n${timeline.toString()}\nmember logs:\n${membersNow()}`)
      } finally {
        await cast.killAll()
      }
      const unexpected = cast.unexpectedExits.map(i => `${i.label} exited: ${JSON.stringify(i.exit)}; ${i.events.slice(-3).map(e => JSON.stringify(e)).join(' ')}`)

      // The read_committed output.
      const seen = new Map<number, number>()
      const lastByKey = new Map<string, number>()
      let outOfOrder = 0
      let outputCount = 0
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const end = (await client.listOffsets({ topic: output, partition, spec: 'latest' })).offset
        let offset = 0n
        while (offset < end) {
          const fetched = await client.fetchRaw({ topic: output, partition, offset, isolation: 'read_committed', maxBytes: 8 << 20 })
          if (fetched.nextOffset <= offset) break
          for (const record of fetched.records) {
            const value = Number(record.value!.toString())
            const key = record.key!.toString()
            outputCount++
            seen.set(value, (seen.get(value) ?? 0) + 1)
            if ((lastByKey.get(key) ?? -1) > value) outOfOrder++
            lastByKey.set(key, value)
          }
          offset = fetched.nextOffset
        }
      }
      const duplicates = [...seen.values()].filter(n => n > 1).length
      let missing = 0
      for (let i = 0; i < RECORDS; i++) if (!seen.has(i)) missing++
      const aborted = registry.reduce((sum, i) => sum + Number([...i.events].reverse().find(e => e.event === 'status')?.aborted ?? 0), 0)
      // The group's offsets: only transactions commit them (no ordinary OffsetCommit from a member, invariant 8),
      // and with every input record in the committed output, no input partition's committed offset may be behind its end.
      const ordinaryCommits = registry.reduce((sum, i) => sum + i.events.filter(e => e.event === 'offsetCommit').length, 0)
      const [groupOffsets] = await client.admin.fetchOffsets([groupId])
      const behind: string[] = []
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const end = (await client.listOffsets({ topic: input, partition, spec: 'latest' })).offset
        const committed = groupOffsets.offsets.find(o => o.topic === input && o.partition === partition)?.offset ?? -1n
        if (committed < end) behind.push(`${partition}: committed ${committed}, end ${end}`)
      }
      const report = `eos chaos (${groupProtocol}): input ${RECORDS}, output ${outputCount}, duplicates ${duplicates}, missing ${missing}, out of key order ${outOfOrder}, aborted transactions ${aborted}, member processes ${registry.length}, ordinary OffsetCommits ${ordinaryCommits}, input partitions committed behind the output ${behind.length}`
      console.log(report)
      if (missing > 0) console.log(`missing input records (partition: offset ranges), member logs in ${runDir}:\n${await missingRanges(input, seen)}`)
      assert.deepEqual(unexpected, [], `members exited on their own:\n${timeline.toString()}`)
      assert.equal(duplicates, 0, report)
      assert.equal(missing, 0, report)
      assert.equal(outOfOrder, 0, report)
      assert.equal(outputCount, RECORDS, report)
      assert.equal(ordinaryCommits, 0, report)
      assert.deepEqual(behind, [], report)
      fs.rmSync(runDir, { recursive: true, force: true }) // kept when an assertion fails, for its logs
    })
  }
})

// Invariants 2–4 against a real Kafka 4.4 broker, with both group protocols.
//
// The failure stories: a member fenced out of its group (its revoke outlasted the
// rebalance timeout) later finished the record it was processing and committed its
// offset — moving the new owner's committed offset back (humus queue/kafka, fixed in
// franz-go by checking the member id at commit time). And a consumer that kept marking
// offsets of a partition after a cooperative revoke, committed behind the new owner's
// back (redpanda-data/connect #4010).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import type { ConsumerBatch } from '../../consumer/cursor'
import { sharedBootstrap } from '../broker/kafka'
import { committedOffset, member, oneRecordPerBatchTopic } from './group-handout-support'
import { uniqueName } from './support'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false


describe('fenced and revoked members commit nothing behind the new owner', { skip, timeout: 300_000 }, () => {
  let client: Client

  before(async () => {
    client = new Client({ bootstrap: bootstrap!, clientId: 'group-fencing' })
  })

  after(async () => {
    await client?.close()
  })

  for (const protocol of ['consumer', 'classic'] as const) {
    test(`${protocol}: at-least-once — a member whose revoke outlasts the rebalance timeout never moves the new owner's commit back`, async () => {
      // Two partitions: when B joins, one of them moves from A to B. A holds record 1 of
      // both, so whichever moves has a record in flight that A finishes only at the end.
      const topic = await oneRecordPerBatchTopic(client, 'fence', 2, 30)
      const groupId = uniqueName('g-fence')
      let releaseA!: () => void
      const heldA = new Promise<void>(resolve => { releaseA = resolve })
      const holding = new Set<number>()
      const finishedByA: string[] = []
      const a = member(client, protocol, groupId, topic)
      const aRun = a.run({
        partitionsConcurrently: 2,
        eachBatch: async (batch: ConsumerBatch) => {
          const value = batch.records[0].value!.toString()
          if (value.endsWith(':1')) {
            holding.add(batch.partition)
            await heldA // in flight across the rebalance
          }
          finishedByA.push(value)
        }
      }).catch(() => {})
      await waitFor('A holding record 1 of both partitions', () => holding.size === 2)
      await a.commit()
      for (const p of [0, 1]) assert.equal(await committedOffset(client, groupId, topic, p), 1n, `A committed record 0 of partition ${p}`)

      const b = member(client, protocol, groupId, topic)
      const bProcessed = new Map<number, bigint[]>()
      let releaseB!: () => void
      const heldB = new Promise<void>(resolve => { releaseB = resolve })
      const bRun = b.run({
        eachBatch: async (batch: ConsumerBatch) => {
          const list = bProcessed.get(batch.partition) ?? []
          // B processes 10 records, then holds the 11th until the end: its commit stays at 11.
          if (list.length === 10) await heldB
          else list.push(batch.records[0].offset)
          bProcessed.set(batch.partition, list)
        }
      }).catch(() => {})
      await waitFor('B processing 10 records of the partition it took', () => [...bProcessed.values()].some(list => list.length === 10), { timeoutMs: 60_000 })
      const [moved, offsets] = [...bProcessed].find(([, list]) => list.length === 10)!
      // B started where A's commit left off and processed offsets 1..10.
      assert.deepEqual(offsets, Array.from({ length: 10 }, (_, i) => BigInt(i + 1)))
      assert.deepEqual(await b.commit(), [])
      assert.equal(await committedOffset(client, groupId, topic, moved), 11n)

      // A's held record of the moved partition finishes now; its mark must be dropped.
      releaseA()
      await waitFor('A finishing its held record', () => finishedByA.includes(`${moved}:1`))
      await new Promise(resolve => setTimeout(resolve, 1000)) // several of A's auto-commit intervals
      await a.commit()
      assert.equal(await committedOffset(client, groupId, topic, moved), 11n, 'the member that lost the partition moved its committed offset')
      releaseB()
      await Promise.all([a.close(), b.close()])
      await Promise.all([aRun, bRun])
      assert.equal(await committedOffset(client, groupId, topic, moved) >= 11n, true)
    })

    test(`${protocol}: at-most-once — across the same rebalance no record is processed by both members`, async () => {
      const topic = await oneRecordPerBatchTopic(client, 'fence', 2, 30)
      const groupId = uniqueName('g-amo')
      let releaseA!: () => void
      const heldA = new Promise<void>(resolve => { releaseA = resolve })
      const holding = new Set<number>()
      const processedBy = new Map<string, string[]>()
      const note = (who: string, value: string): void => { processedBy.set(value, [...(processedBy.get(value) ?? []), who]) }
      const a = member(client, protocol, groupId, topic, { delivery: 'at-most-once' })
      const aRun = a.run({
        partitionsConcurrently: 2,
        eachBatch: async batch => {
          const value = batch.records[0].value!.toString()
          note('A', value)
          if (value.endsWith(':2')) {
            holding.add(batch.partition)
            await heldA
          }
        }
      }).catch(() => {})
      await waitFor('A holding record 2 of both partitions', () => holding.size === 2)
      const b = member(client, protocol, groupId, topic, { delivery: 'at-most-once' })
      let bCount = 0
      const bRun = b.run({ eachBatch: async batch => { note('B', batch.records[0].value!.toString()); bCount++ } }).catch(() => {})
      await waitFor('B processing 10 records', () => bCount >= 10, { timeoutMs: 60_000 })
      releaseA()
      await new Promise(resolve => setTimeout(resolve, 1000))
      await Promise.all([a.close(), b.close()])
      await Promise.all([aRun, bRun])
      for (const [value, who] of processedBy) assert.equal(who.length, 1, `record ${value} processed by ${who.join(' and ')}`)
      // B began right after what A had committed before handing record 2 over.
      const movedByB = [...processedBy].filter(([, who]) => who[0] === 'B').map(([value]) => value)
      const moved = Number(movedByB[0].split(':')[0])
      assert.ok(processedBy.get(`${moved}:3`)?.[0] === 'B', `B did not start at ${moved}:3`)
    })

    test(`${protocol}: cooperative revoke of a partition with a slow batch in flight — no commit past processed records, the new owner starts at the first unprocessed one`, async () => {
      const topic = uniqueName('coop')
      await client.admin.createTopics([{ topic, numPartitions: 4 }])
      for (let p = 0; p < 4; p++) {
        for (let i = 0; i < 20; i++) await client.produceRaw({ topic, partition: p, records: [{ value: Buffer.from(`${p}:${i}`) }] })
      }
      const groupId = uniqueName('g-coop')
      const processedA = new Map<number, bigint[]>()
      const slow = new Set<number>()
      const a = member(client, protocol, groupId, topic, { rebalanceTimeoutMs: 20_000 })
      // Offsets committed by anyone, sampled all along: never past what A processed on partitions it gave away.
      const aRun = a.run({
        partitionsConcurrently: 4,
        eachBatch: async batch => {
          const offset = batch.records[0].offset
          if (offset === 5n) {
            // A slow batch on every partition: whichever partition moves, one is in flight.
            slow.add(batch.partition)
            await new Promise(resolve => setTimeout(resolve, 1500))
          }
          if (offset >= 5n && offset > 6n) await new Promise(resolve => setTimeout(resolve, 200))
          processedA.set(batch.partition, [...(processedA.get(batch.partition) ?? []), offset])
        }
      }).catch(() => {})
      await waitFor('A in the slow batch of every partition', () => slow.size === 4)
      const firstOffsetOfB = new Map<number, bigint>()
      const b = member(client, protocol, groupId, topic, { rebalanceTimeoutMs: 20_000 })
      const bRun = b.run({
        eachBatch: async batch => {
          if (!firstOffsetOfB.has(batch.partition)) firstOffsetOfB.set(batch.partition, batch.records[0].offset)
        }
      }).catch(() => {})
      await waitFor('B receiving a partition', () => firstOffsetOfB.size >= 1)
      await new Promise(resolve => setTimeout(resolve, 500))
      for (const [partition, first] of firstOffsetOfB) {
        const doneByA = processedA.get(partition) ?? []
        const next = doneByA.length === 0 ? 0n : doneByA[doneByA.length - 1] + 1n
        assert.equal(first, next, `partition ${partition}: B started at ${first}, A had processed up to ${next - 1n}`)
        assert.ok(doneByA.includes(5n), `partition ${partition}: the slow batch was not waited for`)
      }
      // One after the other: a member leaving starts a rebalance, and a commit that meets a
      // rebalance is refused (at-least-once then re-delivers, which this check would count).
      await a.close()
      await b.close()
      await Promise.all([aRun, bRun])
      // After both left, every partition's committed offset is exactly what was processed.
      for (let p = 0; p < 4; p++) {
        const committed = await committedOffset(client, groupId, topic, p)
        const all = [...(processedA.get(p) ?? [])]
        assert.ok(committed <= 20n)
        if (!firstOffsetOfB.has(p)) assert.equal(committed, all.length === 0 ? -1n : all[all.length - 1] + 1n)
      }
    })
  }
})

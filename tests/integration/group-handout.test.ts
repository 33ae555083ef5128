// Hand-out to the application against a real Kafka 4.4 broker, both group protocols: a
// partition revoked past its stuck handler and coming back gets no second handler; a seek
// inside a handler is what is committed until the re-read progresses; eachRecord commits
// up to the last finished record on a revoke and stops the revoked batch.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'
import { committedOffset, gate, member, oneRecordPerBatchTopic } from './group-handout-support'
import { waitFor, sleep } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false

describe('hand-out: one handler per partition, seek and per-record progress on a real broker', { skip, timeout: 300_000 }, () => {
  let client: Client

  before(async () => {
    client = new Client({ bootstrap: bootstrap!, clientId: 'group-handout' })
  })

  after(async () => {
    await client?.close()
  })

  for (const protocol of ['consumer', 'classic'] as const) {
    test(`${protocol}: a partition revoked past its stuck handler that comes back to the member waits for that handler`, async () => {
      const topic = await oneRecordPerBatchTopic(client, 'handout-back', 2, 20)
      const groupId = uniqueName('g-back')
      const stuck = gate()
      const active = [0, 0]
      let mostAtOnce = 0
      const started: Array<{ partition: number, offset: bigint, at: number }> = []
      const stuckReturnedAt: number[] = [Infinity, Infinity]
      const a = member(client, protocol, groupId, topic)
      const aRun = a.run({
        // More workers than stuck handlers: a free worker is what could run a second handler.
        partitionsConcurrently: 4,
        eachBatch: async batch => {
          const p = batch.partition
          active[p]++
          mostAtOnce = Math.max(mostAtOnce, active[p])
          started.push({ partition: p, offset: batch.records[0].offset, at: Date.now() })
          try {
            if (batch.records[0].offset === 5n && started.filter(s => s.partition === p && s.offset === 5n).length === 1) {
              await stuck.promise
              stuckReturnedAt[p] = Date.now()
            }
          } finally {
            active[p]--
          }
        }
      })
      await waitFor('A stuck at offset 5 of both partitions', () => started.filter(s => s.offset === 5n).length === 2)
      const b = member(client, protocol, groupId, topic)
      const bRun = b.run({ eachBatch: () => {} })
      // A's revoke gives up waiting a margin before the rebalance timeout (3 s): the partition moves on.
      await waitFor('B taking one partition', () => b.assignment().length === 1)
      const moved = b.assignment()[0].partition
      await b.close()
      await bRun
      await waitFor('the partition coming back to A', () => a.assignment().length === 2)
      // B may have read the partition to its end: new records give A's new ownership something to hand out.
      for (let i = 0; i < 2; i++) await client.produceRaw({ topic, partition: moved, records: [{ value: Buffer.from(`${moved}:${20 + i}`) }] })
      const before = started.filter(s => s.partition === moved).length
      await sleep(1500)
      assert.equal(started.filter(s => s.partition === moved).length, before, `partition ${moved} got a second handler on A while the first still ran`)
      stuck.release()
      await waitFor('A reading the partition that came back to its end', () => started.some(s => s.partition === moved && s.offset === 21n))
      const again = started.filter(s => s.partition === moved).slice(before)
      assert.ok(again.length > 0 && again.every(s => s.at >= stuckReturnedAt[moved]), 'a batch of the new ownership started before the old handler returned')
      assert.ok(again.every((s, i) => i === 0 || s.offset > again[i - 1].offset), `offsets out of order: ${again.map(s => s.offset).join(',')}`)
      assert.equal(mostAtOnce, 1, 'two handlers of one partition ran at once')
      await a.close()
      await aRun
    })

    test(`${protocol}: a seek back inside the handler is what is committed until the re-read progresses`, async () => {
      const topic = await oneRecordPerBatchTopic(client, 'handout-seek', 1, 20)
      const groupId = uniqueName('g-seek')
      const reread = gate()
      const times = new Map<bigint, number>()
      const a = member(client, protocol, groupId, topic)
      const aRun = a.run({
        eachBatch: async batch => {
          const offset = batch.records[0].offset
          const n = (times.get(offset) ?? 0) + 1
          times.set(offset, n)
          if (offset === 19n && n === 1) a.seek({ topic, partition: 0, offset: 0n })
          if (offset === 0n && n === 2) await reread.promise
        }
      })
      await waitFor('A re-reading offset 0 after its seek', () => times.get(0n) === 2)
      await sleep(600) // several auto-commit intervals (100 ms)
      await a.commit()
      assert.equal(await committedOffset(client, groupId, topic, 0), 0n, 'the seeking batch was committed as processed while the re-read had not run')
      reread.release()
      await waitFor('the re-read reaching the end', () => times.get(19n) === 2)
      await sleep(100)
      await a.commit()
      assert.equal(await committedOffset(client, groupId, topic, 0), 20n)
      await a.close()
      await aRun
    })

    test(`${protocol}: eachRecord — a revoke in the middle of a batch: the new owner starts after the last finished record, the old batch stops`, async () => {
      const topic = await oneRecordPerBatchTopic(client, 'handout-record', 2, 20)
      const groupId = uniqueName('g-record')
      const held = [gate(), gate()]
      const seen: Array<{ partition: number, offset: bigint }> = []
      const a = member(client, protocol, groupId, topic, { maxPartitionBytes: 1024 * 1024 })
      const aRun = a.run({
        partitionsConcurrently: 2,
        eachRecord: async (record, batch) => {
          seen.push({ partition: batch.partition, offset: record.offset })
          if (record.offset === 7n) await held[batch.partition].promise
        }
      })
      await waitFor('A at record 7 of both partitions', () => seen.filter(s => s.offset === 7n).length === 2)
      const bFirst = new Map<number, bigint>()
      const b = member(client, protocol, groupId, topic, { maxPartitionBytes: 1024 * 1024 })
      const bRun = b.run({ eachRecord: (record, batch) => { if (!bFirst.has(batch.partition)) bFirst.set(batch.partition, record.offset) } })
      // The revoke takes the partition out of A's assignment first, then waits for its batch.
      await waitFor('A revoking one partition', () => a.assignment().length === 1)
      const moved = 1 - a.assignment()[0].partition
      held[moved].release()
      await waitFor('B reading the partition it took', () => bFirst.has(moved))
      assert.equal(bFirst.get(moved), 8n, 'B did not start after the last record A finished')
      assert.deepEqual(seen.filter(s => s.partition === moved).map(s => s.offset), Array.from({ length: 8 }, (_, i) => BigInt(i)), 'A went on with the revoked batch')
      held[1 - moved].release()
      await Promise.all([a.close(), b.close()])
      await Promise.all([aRun, bRun])
    })
  }
})

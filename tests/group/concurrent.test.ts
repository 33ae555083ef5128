// run({ eachRecord, concurrency }) in a consumer group against the fake cluster, both group
// protocols: the commit guard covers records handled concurrently (invariants 2 and 3). A
// revoke waits for the partition's running records, commits the offset below the first
// unfinished one with the finished-above records in its metadata, and nothing after; the
// partition's next owner reads that map and skips what it says was finished; a fenced
// member commits nothing for what it held, however late its records finish.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { consumerInternals } from '../../consumer/consumer'
import { decodeOffsetMap } from '../../consumer/concurrent/offset-map'
import type { CommitLogEntry } from '../../testing/index'
import { gate, protocols, withHarness, type Gate, type Harness, type Member } from './support'
import { waitFor } from '../support/wait'
import { OffsetCommit } from '../../protocol/apis/offset-commit'

/** `count` records in each of `partitions`, record i keyed `k<i>` (all keys different), in one produce call per partition. */
async function produceKeyed (h: Harness, count: number, partitions: number[]): Promise<void> {
  for (const partition of partitions) {
    await h.admin.produceRaw({ topic: h.topic, partition, records: Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`${partition}:${i}`) })) })
  }
}

/** The rows of `partition` in these commit-log entries. */
function rowsOf (entries: CommitLogEntry[], partition: number): Array<{ entry: CommitLogEntry, offset: bigint, metadata: string | null, accepted: boolean }> {
  return entries.flatMap(entry => entry.partitions.filter(p => p.partition === partition).map(p => ({ entry, offset: p.offset, metadata: p.metadata, accepted: p.accepted })))
}

/** Every record a member's concurrent run handled (started), per partition, in start order. */
function runConcurrently (member: Member, concurrency: number, hold: (partition: number, offset: bigint, handledBefore: number) => Promise<void> | undefined): { handled: Map<number, bigint[]>, finished: Map<number, bigint[]> } {
  const handled = new Map<number, bigint[]>()
  const finished = new Map<number, bigint[]>()
  member.running = member.consumer.run({
    concurrency,
    eachRecord: async (record, batch) => {
      const list = handled.get(batch.partition) ?? []
      const before = list.filter(o => o === record.offset).length
      list.push(record.offset)
      handled.set(batch.partition, list)
      await hold(batch.partition, record.offset, before)
      finished.set(batch.partition, [...(finished.get(batch.partition) ?? []), record.offset])
    }
  }).catch(error => { member.error = error })
  return { handled, finished }
}

for (const protocol of protocols) {
  describe(`concurrent run() in a group (${protocol} protocol)`, { timeout: 60_000 }, () => {
    test('a revoke mid-flight waits for running records, commits only below the first unfinished one with the finished-above map, nothing after; the next owner skips what the map says', async () => {
      await withHarness({ partitions: 2, records: 0 }, async h => {
        await produceKeyed(h, 30, [0, 1])
        const a = await h.member('a', protocol, { maxPartitionBytes: 1 << 20 })
        // Offset 5 of each partition runs past the revoke; offset 8 finishes while the revoke waits.
        const slow: Gate[] = [h.gate(), h.gate()]
        const mid: Gate[] = [h.gate(), h.gate()]
        const fromA = runConcurrently(a, 64, (partition, offset) => offset === 5n ? slow[partition].promise : offset === 8n ? mid[partition].promise : undefined)
        await waitFor('A finished everything but offsets 5 and 8', () => [0, 1].every(p => fromA.finished.get(p)?.length === 28))
        assert.deepEqual(await a.consumer.commit(), [])
        assert.deepEqual([h.committed(0), h.committed(1)], [5n, 5n], 'committed below the first unfinished record')
        for (const p of [0, 1]) {
          const map = decodeOffsetMap(h.cluster.committedOffset(h.groupId, h.topic, p)?.metadata, 5n)
          assert.deepEqual(map?.ranges, [[6n, 8n], [9n, 30n]], 'the finished-above records in the commit\'s metadata')
        }

        const b = await h.member('b', protocol, { maxPartitionBytes: 1 << 20 })
        const fromB = runConcurrently(b, 64, () => undefined)
        // The revoke removed the partition's cursor first, then waits for its running records.
        const moved = await waitFor('A revoking a partition', () => {
          const held = consumerInternals(a.consumer).cursors.map(c => c.partition)
          return held.length === 1 ? (held[0] === 0 ? 1 : 0) : undefined
        }, { timeoutMs: 10_000 })
        const kept = moved === 0 ? 1 : 0
        mid[moved].release()
        await waitFor('A\'s revoke done', () => a.assignedEvents.some(e => e.revoked.some(p => p.partition === moved)), { timeoutMs: 10_000 })
        const revokedAt = h.commits().length
        const last = rowsOf(a.commitsBy(h), moved).filter(r => r.accepted).at(-1)!
        assert.equal(last.offset, 5n, 'the revoke committed past the running record 5')
        assert.deepEqual(decodeOffsetMap(last.metadata, 5n)?.ranges, [[6n, 30n]], 'offset 8, finished during the revoke\'s wait, is in the map')

        // The new owner starts at 5 and skips 6..29: the map said they were finished.
        await waitFor('B handling the moved partition', () => fromB.finished.get(moved)?.length === 1, { timeoutMs: 10_000 })
        assert.deepEqual(fromB.handled.get(moved), [5n], 'B handled records the map said were finished')
        assert.deepEqual(await b.consumer.commit(), [])
        assert.equal(h.committed(moved), 30n)

        // A's record 5 of the revoked partition finishes late: nothing is committed for it.
        slow[moved].release()
        await waitFor('A\'s late record finished', () => fromA.finished.get(moved)?.includes(5n) === true)
        await a.consumer.commit()
        assert.deepEqual(rowsOf(a.commitsBy(h).filter(e => h.commits().indexOf(e) >= revokedAt), moved), [], 'A committed the revoked partition after the revoke')
        assert.equal(h.committed(moved), 30n, 'the committed offset moved back')

        // The kept partition goes on as before.
        slow[kept].release()
        mid[kept].release()
        await waitFor('A finishing its partition', () => fromA.finished.get(kept)?.length === 30)
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(h.committed(kept), 30n)
      })
    })

    test('a fenced member commits nothing for the records it held, however late they finish; back in the group it handles only the unfinished one again, after the old run of its key', async () => {
      await withHarness({ partitions: 1, records: 0 }, async h => {
        await produceKeyed(h, 30, [0])
        const a = await h.member('a', protocol, { maxPartitionBytes: 1 << 20 })
        const oldRun = gate()
        const newRun = h.gate()
        const events: string[] = []
        const fromA = runConcurrently(a, 16, (_p, offset, before) => {
          if (offset !== 5n) return undefined
          events.push(`start 5 #${before + 1}`)
          return (before === 0 ? oldRun.promise : newRun.promise).then(() => { events.push(`end 5 #${before + 1}`) })
        })
        await waitFor('A finished everything but offset 5', () => fromA.finished.get(0)?.length === 29)
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(h.committed(0), 5n)
        const old = a.identity!
        const fencedAt = h.commits().length

        h.cluster.fenceMember(h.groupId, old.memberId)
        await waitFor('A lost its partition and rejoined', () => a.lostEvents.length >= 1 && a.identities.length >= 2, { timeoutMs: 10_000 })
        // The old run of offset 5 finishes after the fence.
        oldRun.release()
        await waitFor('the old record finished', () => events.includes('end 5 #1'))
        await a.consumer.commit()
        const late = rowsOf(h.commits().slice(fencedAt), 0).filter(r => r.accepted)
        assert.deepEqual(late.filter(r => r.offset > 5n), [], 'a commit past offset 5 before the new membership handled it')
        for (const r of late) assert.ok(r.entry.memberId !== old.memberId || r.entry.generationIdOrMemberEpoch !== old.generation, 'an accepted commit under the fenced membership')
        assert.equal(h.committed(0), 5n)

        // The new membership: offset 5 again (6..29 skipped by the map), after the old run of its key ended.
        await waitFor('offset 5 handed again', () => events.includes('start 5 #2'), { timeoutMs: 10_000 })
        assert.deepEqual(events.slice(0, 3), ['start 5 #1', 'end 5 #1', 'start 5 #2'], 'the key\'s second run started before its first ended')
        newRun.release()
        await waitFor('offset 5 finished again', () => events.includes('end 5 #2'))
        assert.deepEqual(fromA.handled.get(0)!.slice(30), [5n], 'records the map said were finished were handled again')
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(h.committed(0), 30n)
      })
    })

    test('at-most-once: a batch\'s end is committed, and accepted, before any of its records starts; a crash loses, never repeats', async () => {
      await withHarness({ partitions: 1, records: 0 }, async h => {
        await produceKeyed(h, 30, [0])
        const a = await h.member('a', protocol, { maxPartitionBytes: 1 << 20, maxBatchRecords: 10, delivery: 'at-most-once' })
        const committedWhenStarted: Array<[bigint, bigint | undefined]> = []
        const fromA = runConcurrently(a, 8, (_p, offset) => {
          committedWhenStarted.push([offset, h.committed(0)])
          return undefined
        })
        await waitFor('every record handled', () => fromA.finished.get(0)?.length === 30)
        for (const [offset, committed] of committedWhenStarted) assert.ok(committed !== undefined && committed > offset, `offset ${offset} started with ${String(committed)} committed`)
        assert.equal(h.committed(0), 30n)
        // No ordinary commit moves it back (the low watermark is below what at-most-once committed at times).
        await a.consumer.commit()
        assert.equal(h.committed(0), 30n)
      })
    })

    test('a broker that refuses the offset map as too large (OFFSET_METADATA_TOO_LARGE): the next commit sends a shorter map, which claims only finished records', async () => {
      await withHarness({ partitions: 1, records: 0 }, async h => {
        for (let i = 0; i < 2000; i += 500) {
          await h.admin.produceRaw({ topic: h.topic, partition: 0, records: Array.from({ length: 500 }, (_, j) => ({ key: Buffer.from(`k${i + j}`), value: Buffer.from('v') })) })
        }
        // A broker whose offset.metadata.max.bytes is 200.
        h.cluster.intercept(OffsetCommit, r => r.request.topics.some(t => t.partitions.some(p => (p.committedMetadata?.length ?? 0) > 200)) ? { error: 12 } : undefined)
        const a = await h.member('a', protocol, { maxPartitionBytes: 1 << 20 })
        const held = h.gate()
        // Every odd offset runs until the end: the finished records alternate (a bitmap of ~340 characters).
        a.running = a.consumer.run({ concurrency: 1100, maxMetadataBytes: 300, eachRecord: async record => { if (record.offset % 2n === 1n) await held.promise } }).catch(error => { a.error = error })
        await waitFor('the even offsets finished', () => (a.consumer.lag()[0]?.finishedAbove ?? 0) === 999, { timeoutMs: 20_000 })
        const refused = await a.consumer.commit()
        assert.deepEqual(refused.map(r => r.type), ['OFFSET_METADATA_TOO_LARGE'])
        assert.deepEqual(await a.consumer.commit(), [], 'the shorter map was refused too')
        const committed = h.cluster.committedOffset(h.groupId, h.topic, 0)!
        assert.equal(committed.offset, 1n)
        assert.ok(committed.metadata !== null && committed.metadata.length <= 150, `metadata of ${String(committed.metadata?.length)} characters`)
        const map = decodeOffsetMap(committed.metadata, 1n)!
        assert.ok(map.ranges.length > 10, 'the map kept nothing')
        for (const [start, end] of map.ranges) for (let o = start; o < end; o++) assert.equal(o % 2n, 0n, `offset ${o} claimed finished`)
        held.release()
      })
    })

    test('close() lets running records finish, commits them, and leaves; records not started are not handled', async () => {
      await withHarness({ partitions: 1, records: 0 }, async h => {
        await produceKeyed(h, 40, [0])
        const a = await h.member('a', protocol, { maxPartitionBytes: 1 << 20 })
        const held = h.gate()
        const fromA = runConcurrently(a, 4, async (_p, offset) => { if (offset < 4n) await held.promise })
        await waitFor('four records running', () => fromA.handled.get(0)?.length === 4)
        const closing = a.consumer.close()
        await waitFor('close() began', () => consumerInternals(a.consumer).stopping)
        held.release()
        await closing
        await a.running
        assert.deepEqual(fromA.handled.get(0), [0n, 1n, 2n, 3n], 'records not started before close() were started')
        assert.equal(h.committed(0), 4n, 'what ran when close() began was committed')
      })
    })
  })
}

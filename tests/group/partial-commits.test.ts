// What the kafkajs-compatible layer builds on (kafkats/kafkajs): a batch finished only in
// part, offsets committed explicitly (`commitOffsets`), and an assignor that answers
// asynchronously (kafkajs assigners are async). Against the fake cluster, both protocols
// where the feature is not classic-only.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Assignor, MemberSubscription, TopicPartition } from '../../group/assignors'
import { protocols, withHarness } from './support'
import { waitFor } from '../support/wait'
import { WatchedClock } from '../support/clock'
import { OffsetCommit } from '../../protocol/apis/offset-commit'

for (const protocol of protocols) {
  describe(`partial processing and explicit commits (${protocol} protocol)`, { timeout: 60_000 }, () => {
    test('finish(processedUpTo) marks only part of a batch processed, and commit() commits exactly that', async () => {
      await withHarness({ partitions: 1, records: 0 }, async h => {
        await h.admin.produceRaw({ topic: h.topic, partition: 0, records: Array.from({ length: 10 }, (_, i) => ({ value: Buffer.from(String(i)) })) })
        const member = await h.member('a', protocol, { maxPartitionBytes: 1 << 20 })
        const handed = await member.consumer.nextBatch()
        assert.ok(handed !== undefined)
        assert.equal(handed.batch.records.length, 10)
        handed.finish(4n)
        await member.consumer.commit()
        assert.equal(h.committed(0), 4n)
      })
    })

    test('finish(null) marks nothing: commit() commits nothing although the position moved on', async () => {
      await withHarness({ partitions: 1, records: 3 }, async h => {
        const member = await h.member('a', protocol)
        const first = await member.consumer.nextBatch()
        assert.ok(first !== undefined)
        first.finish(null)
        const second = await member.consumer.nextBatch()
        assert.equal(second?.batch.records[0].offset, 1n, 'the next batch follows the unmarked one')
        await member.consumer.commit()
        assert.equal(h.committed(0), undefined)
        second?.finish()
      })
    })

    test('commitOffsets commits the given offset of a held partition, and refuses partitions not held', async () => {
      await withHarness({ partitions: 2, records: 5 }, async h => {
        const member = await h.member('a', protocol)
        member.run(h)
        await waitFor('both partitions held', () => member.held().length === 2)
        const refused = await member.consumer.commitOffsets([{ topic: h.topic, partition: 1, offset: 2n }, { topic: 'other', partition: 0, offset: 7n }])
        assert.equal(h.committed(1), 2n)
        assert.deepEqual(refused.map(r => [r.topic, r.partition]), [['other', 0]])
      })
    })

    test('a commit that an abort ends while it waits to retry a coordinator refusal is refused naming that refusal', async () => {
      await withHarness({ partitions: 2, records: 5 }, async h => {
        // A 2–4 s backoff on the member's clock, which moves only while it joins: the abort
        // comes once the commit waits to retry (its backoff timer started), and ends the wait.
        const clock = new WatchedClock()
        const member = await h.member('a', protocol, {}, { retryBackoffMs: 4000, clock })
        member.run(h)
        await waitFor('both partitions held', async () => {
          await clock.advance(100)
          return member.held().length === 2
        })
        const controller = new AbortController()
        let refusedAfter: number | undefined
        h.cluster.intercept(OffsetCommit, () => {
          refusedAfter ??= clock.started.length
          return { error: 14 }
        })
        const committing = member.consumer.commitOffsets([{ topic: h.topic, partition: 1, offset: 2n }], { signal: controller.signal })
        await waitFor('the commit waiting to retry the refusal', () => refusedAfter !== undefined && clock.timerStarted(2000, refusedAfter, { keepAlive: true }))
        controller.abort(new Error('the caller gave up'))
        const refused = await committing
        assert.equal(refused.length, 1)
        assert.match(refused[0].reason, /the caller gave up; the last attempt had failed with BrokerError: .*COORDINATOR_LOAD_IN_PROGRESS \(14\)/)
        assert.equal(h.committed(1), undefined)
      })
    })
  })
}

test('fetchStart and fetch events tell of each Fetch request while someone listens', async () => {
  await withHarness({ partitions: 2, records: 3 }, async h => {
    const member = await h.member('a', 'classic')
    const started: number[] = []
    const fetched: Array<{ nodeId: number, partitionsWithRecords: number, durationMs: number }> = []
    member.consumer.on('fetchStart', (event: { nodeId: number }) => started.push(event.nodeId))
    member.consumer.on('fetch', (event: { nodeId: number, partitionsWithRecords: number, durationMs: number }) => fetched.push(event))
    member.run(h)
    await waitFor('a fetch with records', () => fetched.some(f => f.partitionsWithRecords > 0))
    assert.ok(started.length >= fetched.length)
    assert.equal(typeof fetched[0].durationMs, 'number')
    assert.equal(fetched[0].nodeId, started[0])
  })
})

test('a classic assignor may answer with a promise', async () => {
  await withHarness({ partitions: 3, records: 1 }, async h => {
    let calls = 0
    const asyncAssignor: Assignor = {
      name: 'async-all-to-first',
      protocol: 'eager',
      async assign (members: MemberSubscription[], counts: ReadonlyMap<string, number>) {
        calls++
        await new Promise(resolve => setTimeout(resolve, 20))
        const plan = new Map<string, TopicPartition[]>(members.map(m => [m.memberId, []]))
        const partitions: TopicPartition[] = []
        for (const [topic, count] of counts) for (let p = 0; p < count; p++) partitions.push({ topic, partition: p })
        plan.set(members[0].memberId, partitions)
        return plan
      }
    }
    const member = await h.member('a', 'classic', { assignor: asyncAssignor })
    member.run(h)
    await waitFor('the async assignment applied', () => member.held().length === 3)
    assert.equal(calls, 1)
  })
})

// Slow and failing handlers against a real Kafka 4.4 broker, both group protocols: a handler
// stuck past maxProcessingMs gives the member's partitions to another member; a throwing
// handler, or close() from inside one, makes the member leave at once (without the fix it
// stayed ~27 s, waiting for its own batch with a 30 s rebalance timeout).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import type { ProcessingTimeoutEvent } from '../../consumer/consumer'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'
import { committedOffset, gate, member, oneRecordPerBatchTopic } from './group-handout-support'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false

describe('slow and failing handlers on a real broker', { skip, timeout: 300_000 }, () => {
  let client: Client

  before(async () => {
    client = new Client({ bootstrap: bootstrap!, clientId: 'group-slow-handler' })
  })

  after(async () => {
    await client?.close()
  })

  /** A second member that records the first offset it gets of each partition and reads to the end. */
  function follower (protocol: 'consumer' | 'classic', groupId: string, topic: string): { first: Map<number, bigint>, last: Map<number, bigint>, close: () => Promise<void> } {
    const first = new Map<number, bigint>()
    const last = new Map<number, bigint>()
    const b = member(client, protocol, groupId, topic)
    const running = b.run({
      partitionsConcurrently: 2,
      eachBatch: batch => {
        if (!first.has(batch.partition)) first.set(batch.partition, batch.records[0].offset)
        last.set(batch.partition, batch.records[batch.records.length - 1].offset)
      }
    })
    return { first, last, close: async () => { await b.close(); await running } }
  }

  for (const protocol of ['consumer', 'classic'] as const) {
    test(`${protocol}: a handler stuck past maxProcessingMs: the member leaves, another member takes its partitions, it rejoins once the handler returned`, async () => {
      const topic = await oneRecordPerBatchTopic(client, 'slow', 2, 10)
      const groupId = uniqueName('g-slow')
      const stuck = gate()
      const timeouts: ProcessingTimeoutEvent[] = []
      const a = member(client, protocol, groupId, topic, { maxProcessingMs: 1500 })
      a.on('processingTimeout', (event: ProcessingTimeoutEvent) => timeouts.push(event))
      const aRun = a.run({ partitionsConcurrently: 2, eachBatch: async batch => { if (batch.records[0].offset === 3n && timeouts.length < 2) await stuck.promise } })
      await waitFor('a processingTimeout event per stuck partition', () => timeouts.length === 2)
      await waitFor('A giving its partitions up', () => a.assignment().length === 0)
      const b = follower(protocol, groupId, topic)
      await waitFor('B reading both partitions to the end', () => b.last.get(0) === 9n && b.last.get(1) === 9n)
      assert.deepEqual([b.first.get(0), b.first.get(1)], [3n, 3n], 'B did not start after what A processed before it left')
      stuck.release()
      await waitFor('A back in the group with a partition', () => a.assignment().length === 1)
      await b.close()
      await a.close()
      await aRun
    })

    test(`${protocol}: a throwing handler rejects run() and the member leaves at once; the next member starts at the failed record`, async () => {
      const topic = await oneRecordPerBatchTopic(client, 'throw', 2, 10)
      const groupId = uniqueName('g-throw')
      const failure = new Error('handler failed')
      const a = member(client, protocol, groupId, topic, { rebalanceTimeoutMs: 30_000 })
      const rejected = a.run({ partitionsConcurrently: 2, eachBatch: batch => { if (batch.partition === 0 && batch.records[0].offset === 3n) throw failure } })
      await assert.rejects(rejected, error => error === failure)
      const b = follower(protocol, groupId, topic)
      // Far below the 30 s A would keep its partitions if it waited for its own failed batch.
      await waitFor('B reading both partitions', () => b.last.get(0) === 9n && b.last.get(1) === 9n, { timeoutMs: 10_000 })
      assert.equal(b.first.get(0), 3n, 'the records before the failed one were not committed, or the failed one was')
      await b.close()
    })

    test(`${protocol}: a for await body that throws at record 5 of a batch 0..9 commits nothing of that batch; the next member reads it from 0`, async () => {
      const topic = uniqueName('loop-throw')
      await client.admin.createTopics([{ topic, numPartitions: 1 }])
      // One record batch of 10: the first batch handed out is 0..9.
      await client.produceRaw({ topic, partition: 0, records: Array.from({ length: 10 }, (_, i) => ({ value: Buffer.from(String(i)) })) })
      const groupId = uniqueName('g-loop-throw')
      const failure = new Error('the loop body failed at record 5')
      const a = member(client, protocol, groupId, topic, { maxPartitionBytes: 1024 * 1024, rebalanceTimeoutMs: 30_000 })
      let handed: [bigint, bigint] | undefined
      await assert.rejects((async () => {
        for await (const batch of a) {
          handed = [batch.records[0].offset, batch.nextOffset]
          for (const record of batch.records) if (record.offset === 5n) throw failure
        }
      })(), error => error === failure)
      assert.deepEqual(handed, [0n, 10n])
      assert.equal(a.closed, true)
      assert.equal(await committedOffset(client, groupId, topic, 0), -1n, 'the batch the loop left by a throw was committed')
      const b = follower(protocol, groupId, topic)
      await waitFor('B reading the partition', () => b.last.get(0) === 9n, { timeoutMs: 10_000 })
      assert.equal(b.first.get(0), 0n)
      await b.close()
    })

    test(`${protocol}: close() from inside a handler returns, commits what was processed and leaves`, async () => {
      const topic = await oneRecordPerBatchTopic(client, 'close-inside', 1, 10)
      const groupId = uniqueName('g-close')
      const a = member(client, protocol, groupId, topic, { rebalanceTimeoutMs: 30_000, autoCommitIntervalMs: 60_000 })
      let closedAt = 0
      const aRun = a.run({
        eachBatch: async batch => {
          if (batch.records[0].offset === 3n) {
            await a.close()
            closedAt = Date.now()
          }
        }
      })
      await waitFor('close() inside the handler returning', () => closedAt > 0, { timeoutMs: 10_000 })
      await aRun
      assert.equal(await committedOffset(client, groupId, topic, 0), 3n)
      const b = follower(protocol, groupId, topic)
      await waitFor('B reading the partition', () => b.last.get(0) === 9n, { timeoutMs: 10_000 })
      assert.equal(b.first.get(0), 3n)
      await b.close()
    })
  }
})

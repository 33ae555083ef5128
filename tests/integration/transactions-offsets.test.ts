// Exactly-once input offsets against the real broker (invariant 8): runTransactional members
// with a 20 ms auto-commit timer, through a rebalance that revokes partitions and a close,
// send no ordinary OffsetCommit; the group's committed offsets (read with the admin API after
// the loops ended) are those the transactions committed, and the read_committed output has
// every input record once.
//
// A transaction the coordinator aborted for its timeout is recovered (KIP-588), on the real
// coordinator (transaction.version 2): a plain producer's commit fails as abortable, its
// abort re-initializes and the next transaction commits; a runTransactional member whose
// first batch outlives transactionTimeoutMs aborts it, reads it again and goes on.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, runTransactional, TransactionAbortableError, type GroupConsumer, type Producer, type TransactionAbortedEvent } from '../../index'
import { sharedBootstrap } from '../broker/kafka'
import { readCommitted } from './transactions-support'
import { uniqueName } from './support'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false
const PARTITIONS = 3
const PER_PARTITION = 200

describe('runTransactional commits its input offsets only inside its transactions (real broker)', { skip, timeout: 180_000 }, () => {
  let admin: Client

  before(async () => {
    admin = new Client({ bootstrap: bootstrap!, clientId: 'eos-offsets-admin' })
  })

  after(async () => {
    await admin?.close()
  })

  for (const groupProtocol of ['classic', 'consumer'] as const) {
    test(`${groupProtocol} protocol: no ordinary OffsetCommit through a timer, a revoke and a close; the group's offsets are the transactions'`, async () => {
      const input = uniqueName('eos-offsets-in')
      const output = uniqueName('eos-offsets-out')
      const groupId = uniqueName('eos-offsets-group')
      await admin.admin.createTopics([{ topic: input, numPartitions: PARTITIONS, replicationFactor: 1 }, { topic: output, numPartitions: PARTITIONS, replicationFactor: 1 }])
      await admin.metadata.waitForTopic(input, 30_000)
      await admin.metadata.waitForTopic(output, 30_000)
      const seeder = admin.producer({ lingerMs: 5 })
      for (let p = 0; p < PARTITIONS; p++) await seeder.send(Array.from({ length: PER_PARTITION }, (_, i) => ({ topic: input, partition: p, value: `${p}:${i}` })))
      await seeder.close()

      const ordinaryCommits: string[] = []
      const members: Array<{ client: Client, consumer: GroupConsumer, producer: Producer, stop: AbortController, running: Promise<unknown> }> = []
      const start = (name: string): void => {
        const client = new Client({ bootstrap: bootstrap!, clientId: name })
        client.on('request', event => { if (event.apiName === 'OffsetCommit') ordinaryCommits.push(`${name} at ${new Date(event.sentAt).toISOString()}`) })
        const consumer = client.consumer({ groupId, topics: [input], groupProtocol, fromBeginning: true, isolation: 'read_committed', autoCommitIntervalMs: 20, maxPartitionBytes: 2000, maxWaitMs: 100 })
        const producer = client.producer({ transactionalId: uniqueName(name), lingerMs: 0 })
        const stop = new AbortController()
        const running = runTransactional(consumer, producer, {
          signal: stop.signal,
          eachBatch: async (batch, tx) => {
            await tx.send(batch.records.map(r => ({ topic: output, partition: batch.partition, value: r.value })))
          }
        })
        members.push({ client, consumer, producer, stop, running })
      }
      const committedOffsets = async (): Promise<Map<number, bigint>> => {
        const [answer] = await admin.admin.fetchOffsets([{ groupId, partitions: Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: input, partition })) }])
        return new Map(answer.offsets.filter(o => o.topic === input && o.offset >= 0n).map(o => [o.partition, o.offset]))
      }
      try {
        start('eos-offsets-a')
        await waitFor('the first member to commit transactions on every partition', async () => (await committedOffsets()).size === PARTITIONS, { timeoutMs: 60_000, intervalMs: 100 })
        // A second member: partitions are revoked from the first while it runs.
        start('eos-offsets-b')
        await waitFor('the second member to be assigned partitions revoked from the first', () => members[1].consumer.assignment().length > 0, { timeoutMs: 60_000 })
        await waitFor('every input record committed', async () => {
          const offsets = await committedOffsets()
          return Array.from({ length: PARTITIONS }, (_, p) => offsets.get(p) === BigInt(PER_PARTITION)).every(Boolean)
        }, { timeoutMs: 90_000, intervalMs: 100 })
      } finally {
        for (const m of members) m.stop.abort()
        for (const m of members) {
          await m.running.catch(() => {})
          await m.consumer.close()
          await m.producer.close({ force: true }).catch(() => {})
          await m.client.close()
        }
      }
      // After the loops and their closes: the offsets the last transactions committed, each partition's end.
      const transactional = new Map(Array.from({ length: PARTITIONS }, (_, p) => [p, BigInt(PER_PARTITION)]))
      assert.deepEqual(await committedOffsets(), transactional, 'the group\'s committed offsets are the transactions\'')
      assert.deepEqual(ordinaryCommits, [], 'no ordinary OffsetCommit from a runTransactional member')
      for (let p = 0; p < PARTITIONS; p++) {
        const values = await readCommitted(admin, output, p)
        assert.deepEqual(values, Array.from({ length: PER_PARTITION }, (_, i) => `${p}:${i}`), `output partition ${p}: every input record once, in order`)
      }
    })
  }
})

describe('a transaction the coordinator aborted for its timeout is recovered (KIP-588, real broker)', { skip, timeout: 240_000 }, () => {
  const TIMEOUT_MS = 3000
  let admin: Client

  before(async () => {
    admin = new Client({ bootstrap: bootstrap!, clientId: 'eos-timeout-admin' })
  })

  after(async () => {
    await admin?.close()
  })

  async function newTopic (name: string): Promise<string> {
    const topic = uniqueName(name)
    await admin.admin.createTopics([{ topic, numPartitions: 1, replicationFactor: 1 }])
    await admin.metadata.waitForTopic(topic, 30_000)
    return topic
  }

  /**
   * Until the coordinator has aborted the open transaction of `transactionalId` for its
   * timeout: it is no longer Ongoing (the broker looks for timed-out transactions every
   * transaction.abort.timed.out.transaction.cleanup.interval.ms, 10 s by default).
   */
  async function untilTimedOut (transactionalId: string): Promise<void> {
    await waitFor(`the coordinator to abort the transaction of "${transactionalId}" for its ${TIMEOUT_MS} ms timeout`, async () => {
      const [description] = await admin.admin.describeTransactions([transactionalId])
      return description?.state !== undefined && description.state !== 'Ongoing'
    }, { timeoutMs: 90_000, intervalMs: 250 })
  }

  test('a producer: the commit of a timed-out transaction is abortable, the abort re-initializes, the next transaction commits', async () => {
    const topic = await newTopic('eos-timeout-plain')
    const transactionalId = uniqueName('eos-timeout-plain')
    const client = new Client({ bootstrap: bootstrap!, clientId: 'eos-timeout-plain' })
    const producer = client.producer({ transactionalId, transactionTimeoutMs: TIMEOUT_MS, lingerMs: 0 })
    try {
      await producer.beginTransaction()
      await producer.send(Array.from({ length: 5 }, (_, i) => ({ topic, partition: 0, value: `timed-out-${i}` })))
      await untilTimedOut(transactionalId)
      const refusal = await producer.commitTransaction().then(() => undefined, (error: unknown) => error)
      assert.ok(refusal instanceof TransactionAbortableError, `the commit of the timed-out transaction: ${String(refusal)}`)
      assert.equal(producer.transactionState, 'abortableError')
      await producer.abortTransaction()
      assert.equal(producer.transactionState, 'ready')
      await producer.transaction(async tx => { await tx.send({ topic, partition: 0, value: 'after' }) })
      assert.deepEqual(await readCommitted(admin, topic, 0), ['after'], 'nothing of the timed-out transaction is visible; the next one is')
    } finally {
      await producer.close({ force: true }).catch(() => {})
      await client.close()
    }
  })

  test('runTransactional: a batch outliving transactionTimeoutMs is aborted and read again, the loop goes on', async () => {
    const RECORDS = 30
    const input = await newTopic('eos-timeout-in')
    const output = await newTopic('eos-timeout-out')
    const groupId = uniqueName('eos-timeout-group')
    const transactionalId = uniqueName('eos-timeout-member')
    const seeder = admin.producer({ lingerMs: 5 })
    await seeder.send(Array.from({ length: RECORDS }, (_, i) => ({ topic: input, partition: 0, value: `in-${i}` })))
    await seeder.close()

    const client = new Client({ bootstrap: bootstrap!, clientId: 'eos-timeout-member' })
    const consumer = client.consumer({ groupId, topics: [input], fromBeginning: true, isolation: 'read_committed', maxPartitionBytes: 400, maxWaitMs: 100 })
    const producer = client.producer({ transactionalId, transactionTimeoutMs: TIMEOUT_MS, lingerMs: 0 })
    const aborted: TransactionAbortedEvent[] = []
    consumer.on('transactionAborted', event => { aborted.push(event) })
    const stop = new AbortController()
    let batches = 0
    let lastNextOffset = -1n
    const running = runTransactional(consumer, producer, {
      signal: stop.signal,
      eachBatch: async (batch, tx) => {
        await tx.send(batch.records.map(r => ({ topic: output, partition: 0, value: r.value })))
        // The first batch only: its transaction stays open until the coordinator aborted it.
        if (batches++ === 0) await untilTimedOut(transactionalId)
        lastNextOffset = batch.nextOffset
      }
    })
    // The loop must not end: if it does (with the timeout's error), that is the failure.
    const ended = running.then(stats => { throw new Error(`runTransactional ended before the input was done: ${JSON.stringify(stats)}`) })
    ended.catch(() => {})
    let stats
    try {
      await Promise.race([ended, waitFor('every input record committed after the timed-out batch', async () => {
        if (lastNextOffset !== BigInt(RECORDS)) return false
        const [answer] = await admin.admin.fetchOffsets([{ groupId, partitions: [{ topic: input, partition: 0 }] }])
        return answer.offsets.find(o => o.topic === input && o.partition === 0)?.offset === BigInt(RECORDS)
      }, { timeoutMs: 90_000, intervalMs: 100 })])
      stop.abort()
      stats = await running
    } finally {
      stop.abort()
      await running.catch(() => {})
      await consumer.close()
      await producer.close({ force: true }).catch(() => {})
      await client.close()
    }
    assert.ok(batches >= 2, `the batch was read again (${batches} eachBatch calls)`)
    assert.ok(stats.aborted >= 1, `at least the timed-out transaction aborted: ${JSON.stringify(stats)}; reasons ${JSON.stringify(aborted.map(a => a.reason))}`)
    assert.ok(stats.committed >= 1, `transactions committed after it: ${JSON.stringify(stats)}`)
    assert.deepEqual(await readCommitted(admin, output, 0), Array.from({ length: RECORDS }, (_, i) => `in-${i}`), 'every input record once, in order')
  })
})

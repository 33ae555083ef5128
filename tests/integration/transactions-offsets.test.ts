// Exactly-once input offsets against the real broker (invariant 8): runTransactional members
// with a 20 ms auto-commit timer, through a rebalance that revokes partitions and a close,
// send no ordinary OffsetCommit; the group's committed offsets (read with the admin API after
// the loops ended) are those the transactions committed, and the read_committed output has
// every input record once.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, runTransactional, type GroupConsumer, type Producer } from '../../index'
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

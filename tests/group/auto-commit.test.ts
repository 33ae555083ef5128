// autoCommit: false (as Java's enable.auto.commit=false): the group consumer commits nothing
// on its own — no timer, no commit when a partition is revoked, none at close() — and its
// explicit commit() still commits what the application finished.
import { afterEach, beforeEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../client/client'
import { GroupConsumer } from '../../group/group-consumer'
import type { TopicPartition } from '../../group/membership'
import { OffsetCommit } from '../../protocol/apis/offset-commit'
import { FakeCluster } from '../../testing/index'
import { protocols, until } from './support'

const TOPIC = 't'
const PARTITIONS = 2

let cluster: FakeCluster
const clients: Client[] = []

beforeEach(async () => {
  cluster = await FakeCluster.start({ brokers: 1, topics: [{ name: TOPIC, partitions: PARTITIONS }], log: false, groups: { consumerHeartbeatIntervalMs: 50 } })
})

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close()
  await cluster.close()
})

function newClient (name: string): Client {
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: name, retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  clients.push(client)
  return client
}

async function produce (perPartition: number): Promise<void> {
  const seeder = newClient('seeder')
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < perPartition; i++) await seeder.produceRaw({ topic: TOPIC, partition: p, records: [{ value: Buffer.from(`${p}:${i}`) }] })
  }
}

function member (name: string, protocol: 'classic' | 'consumer'): GroupConsumer {
  return new GroupConsumer(newClient(name), {
    groupId: 'g', topics: [TOPIC], groupProtocol: protocol, fromBeginning: true, autoCommit: false, maxWaitMs: 50, rebalanceTimeoutMs: 1500,
    ...(protocol === 'classic' ? { sessionTimeoutMs: 1500, heartbeatIntervalMs: 50 } : {})
  })
}

for (const protocol of protocols) {
  describe(`autoCommit: false (${protocol} protocol)`, () => {
    test('nothing is committed on a timer, at a revoke or at close; commit() commits what was processed', async () => {
      await produce(10)
      const a = member('a', protocol)
      const processed = new Map<number, bigint>()
      const stop = new AbortController()
      const loop = (async () => {
        for (;;) {
          const handed = await a.nextBatch(stop.signal)
          if (handed === undefined) return
          processed.set(handed.batch.partition, handed.batch.nextOffset)
          handed.finish()
        }
      })().catch(error => { if (!stop.signal.aborted) throw error })
      const processedUpTo = (offset: bigint): boolean => Array.from({ length: PARTITIONS }, (_, p) => processed.get(p) === offset).every(Boolean)
      await until(() => processedUpTo(10n), 'every record processed')
      const commits = (): number => cluster.requests(OffsetCommit).filter(r => r.clientId === 'a').length
      assert.deepEqual(await a.commit(), [])
      assert.equal(commits(), 1, 'commit() sent one OffsetCommit')
      for (let p = 0; p < PARTITIONS; p++) assert.equal(cluster.committedOffset('g', TOPIC, p)?.offset, 10n)
      // More processed, then a revoke (a second member joins) and a close: none of them commits.
      await produce(5)
      await until(() => processedUpTo(15n), 'the new records processed')
      const revoked: TopicPartition[] = []
      a.on('assigned', event => revoked.push(...event.revoked))
      const b = member('b', protocol)
      await until(() => revoked.length > 0, 'member a to revoke a partition to member b', 10_000)
      stop.abort()
      await loop
      await a.close()
      await b.close()
      assert.equal(commits(), 1, 'no OffsetCommit after the explicit one')
      for (let p = 0; p < PARTITIONS; p++) assert.equal(cluster.committedOffset('g', TOPIC, p)?.offset, 10n, `partition ${p} still at the explicit commit`)
    })
  })
}

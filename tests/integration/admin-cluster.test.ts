// Admin calls that need several brokers, on a three-node Kafka 4.4 cluster of its own:
// reassignments (then what Kafka lists while and after they run), leader elections,
// the quorum's three voters, log dirs per broker, and moving a replica between two
// log dirs of one broker.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client } from '../../index'
import { startCluster, type KafkaCluster } from '../broker/kafka'
import { requireJavaOrSkip, uniqueName } from './support'
import { waitFor } from '../support/wait'

const skip = requireJavaOrSkip()


describe('admin on three nodes', { skip }, () => {
  let cluster: KafkaCluster
  let client: Client
  // A one-node cluster whose broker has two log dirs (JBOD), for moving a replica between them.
  let jbod: KafkaCluster
  let jbodClient: Client
  const extraDirs = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-logdirs-'))

  before(async () => {
    [cluster, jbod] = await Promise.all([
      startCluster({ nodes: 3, portBase: 'free' }),
      startCluster({ portBase: 'free', brokerOverrides: { 'log.dirs': `${path.join(extraDirs, 'a')},${path.join(extraDirs, 'b')}` } })
    ])
    client = new Client({ bootstrap: cluster.bootstrap, clientId: 'kafkats-admin-cluster' })
    jbodClient = new Client({ bootstrap: jbod.bootstrap, clientId: 'kafkats-admin-jbod' })
  })

  after(async () => {
    await client?.close()
    await jbodClient?.close()
    await cluster?.stop()
    await jbod?.stop()
    fs.rmSync(extraDirs, { recursive: true, force: true })
  })

  test('alterReplicaLogDirs moves a replica to the broker\'s other log dir; describeLogDirs then lists it there', async () => {
    const topic = uniqueName('logdir')
    await jbodClient.admin.createTopics([{ topic, numPartitions: 1 }])
    await jbodClient.produceRaw({ topic, partition: 0, records: Array.from({ length: 100 }, () => ({ value: Buffer.alloc(100) })) })
    const dirs = await jbodClient.admin.describeLogDirs({ partitions: [{ topic, partition: 0 }] })
    assert.equal(dirs.length, 2)
    const from = dirs.find(d => d.replicas.some(r => r.topic === topic))!
    const to = dirs.find(d => d !== from)!
    const [moved] = await jbodClient.admin.alterReplicaLogDirs([{ topic, partition: 0, broker: 1, path: to.path }])
    assert.deepEqual([moved.topic, moved.partition, moved.broker, moved.error], [topic, 0, 1, undefined])
    await waitFor('the replica in the other dir', async () => {
      const now = await jbodClient.admin.describeLogDirs({ partitions: [{ topic, partition: 0 }] })
      const at = now.filter(d => d.replicas.some(r => r.topic === topic && !r.isFuture)).map(d => d.path)
      return at.length === 1 && at[0] === to.path ? true : undefined
    }, { timeoutMs: 60_000, intervalMs: 200 })
    const [unknownDir] = await jbodClient.admin.alterReplicaLogDirs([{ topic, partition: 0, broker: 1, path: path.join(extraDirs, 'nowhere') }])
    assert.equal(unknownDir.error?.type, 'LOG_DIR_NOT_FOUND')
  })

  test('describeCluster and describeQuorum see three brokers and three voters', async () => {
    const described = await client.admin.describeCluster()
    assert.deepEqual(described.brokers.map(b => b.nodeId), [1, 2, 3])
    assert.ok([1, 2, 3].includes(described.controllerId))
    const quorum = await client.admin.describeQuorum()
    assert.deepEqual(quorum.voters.map(v => v.replicaId).sort(), [1, 2, 3])
    assert.ok([1, 2, 3].includes(quorum.leaderId))
    assert.equal(quorum.nodes.length, 3)
  })

  test('alterPartitionReassignments moves a partition; listPartitionReassignments shows it until done; metadata then shows the new replicas', async () => {
    const topic = uniqueName('reassign')
    await client.admin.createTopics([{ topic, assignments: { 0: [1, 2], 1: [2, 3] } }])
    // Enough data that the move is not instant, so the listing can see it in progress (or already done).
    for (let i = 0; i < 20; i++) await client.produceRaw({ topic, partition: 0, records: Array.from({ length: 200 }, () => ({ value: Buffer.alloc(1000, i) })) })
    const results = await client.admin.alterPartitionReassignments([{ topic, partition: 0, replicas: [3, 1] }, { topic, partition: 1, replicas: [2, 3] }])
    assert.deepEqual(results.map(r => [r.partition, r.error]), [[0, undefined], [1, undefined]])
    const listed = await client.admin.listPartitionReassignments({ partitions: [{ topic, partition: 0 }] })
    if (listed.length > 0) {
      assert.equal(listed[0].partition, 0)
      assert.deepEqual(listed[0].addingReplicas, [3])
      assert.deepEqual(listed[0].removingReplicas, [2])
    }
    await waitFor('the reassignment to finish', async () => (await client.admin.listPartitionReassignments()).some(r => r.topic === topic) ? undefined : true, { timeoutMs: 60_000, intervalMs: 200 })
    const [meta] = await waitFor('the new replicas in metadata', async () => {
      const d = await client.admin.describeTopics([topic])
      return d[0].partitions[0].replicas.join() === '3,1' ? d : undefined
    }, { timeoutMs: 60_000, intervalMs: 200 })
    assert.deepEqual([...meta.partitions[0].isr].sort(), [1, 3])
    // Cancelling when nothing runs is a per-partition error.
    const [cancel] = await client.admin.alterPartitionReassignments([{ topic, partition: 0, replicas: null }])
    assert.equal(cancel.error?.type, 'NO_REASSIGNMENT_IN_PROGRESS')
    // The preferred replica (3) leads after a preferred election, if it did not already.
    const elected = await client.admin.electLeaders({ partitions: [{ topic, partition: 0 }] })
    assert.equal(elected[0].error, undefined)
    await waitFor('broker 3 to lead', async () => {
      await client.metadata.refresh([topic])
      return client.metadata.partition(topic, 0)?.leaderId === 3 ? true : undefined
    }, { timeoutMs: 60_000, intervalMs: 200 })
    const dirs = await client.admin.describeLogDirs({ partitions: [{ topic, partition: 0 }] })
    assert.deepEqual([...new Set(dirs.filter(d => d.replicas.some(r => r.topic === topic)).map(d => d.broker))].sort(), [1, 3])
    await client.admin.deleteTopics([topic])
  })

  test('listOffsets and deleteRecords reach the leader of each partition, wherever it is', async () => {
    const topic = uniqueName('leaders')
    await client.admin.createTopics([{ topic, assignments: { 0: [1], 1: [2], 2: [3] } }])
    for (const partition of [0, 1, 2]) await client.produceRaw({ topic, partition, records: Array.from({ length: 5 + partition }, () => ({ value: Buffer.from('x') })) })
    const deleted = await client.admin.deleteRecords([0, 1, 2].map(partition => ({ topic, partition, before: 2n })))
    assert.deepEqual(deleted.map(d => [d.lowWatermark, d.error]), [[2n, undefined], [2n, undefined], [2n, undefined]])
    const ends = await client.admin.listOffsets([0, 1, 2].map(partition => ({ topic, partition, spec: 'latest' as const })))
    assert.deepEqual(ends.map(o => o.offset), [5n, 6n, 7n])
    await client.admin.deleteTopics([topic])
  })
})

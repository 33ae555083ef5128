// client.admin against a real Kafka 4.4 broker: each call, then what Kafka reports after it.
// (ACLs, SCRAM logins and delegation tokens need a secured broker: security.test.ts;
// reassignments and elections need three nodes: admin-cluster.test.ts.)
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, GroupConsumer, BrokerError, firstError, throwFirstError } from '../../index'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'
import { StreamsGroupHeartbeat } from '../../protocol/apis/streams-group-heartbeat'
import { randomUUID } from 'node:crypto'
import { waitFor } from '../support/wait'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false


describe('admin against a real broker', { skip }, () => {
  let client: Client
  const topics: string[] = []

  before(async () => {
    client = new Client({ bootstrap: bootstrap!, clientId: 'kafkats-admin-test' })
  })

  after(async () => {
    if (topics.length > 0) await client.admin.deleteTopics(topics, { ignoreMissing: true }).catch(() => {})
    await client.close()
  })

  async function newTopic (partitions: number, configs?: Record<string, string>): Promise<string> {
    const topic = uniqueName('admin')
    topics.push(topic)
    await client.admin.createTopics([{ topic, numPartitions: partitions, configs }])
    return topic
  }

  async function produce (topic: string, partition: number, count: number, timestamp?: number): Promise<void> {
    await client.produceRaw({ topic, partition, records: Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`v${i}`), timestamp: timestamp === undefined ? undefined : BigInt(timestamp + i) })) })
  }

  test('calls on many items answer per item: createTopics, createPartitions, alterConfigs, describeConfigs, deleteTopics with one item refused each', async () => {
    const good = uniqueName('admin-items')
    const missing = uniqueName('admin-missing')
    topics.push(good)
    const created = await client.admin.createTopics([{ topic: good, numPartitions: 1 }, { topic: 'bad name!', numPartitions: 1 }])
    assert.deepEqual(created.map(r => [r.topic, r.error?.type]), [[good, undefined], ['bad name!', 'INVALID_TOPIC_EXCEPTION']])
    assert.throws(() => throwFirstError(created), (error: unknown) => error instanceof BrokerError && error.code === 17)

    const grown = await client.admin.createPartitions([{ topic: good, count: 2 }, { topic: missing, count: 2 }])
    assert.deepEqual(grown.map(r => [r.topic, r.error?.type]), [[good, undefined], [missing, 'UNKNOWN_TOPIC_OR_PARTITION']])
    assert.equal((await client.admin.describeTopics([good]))[0].partitions.length, 2)

    const altered = await client.admin.alterConfigs([{ type: 'topic', name: good, set: { 'retention.ms': '7200000' } }, { type: 'topic', name: missing, set: { 'retention.ms': '1' } }])
    assert.deepEqual(altered.map(r => [r.name, r.error?.type]), [[good, undefined], [missing, 'UNKNOWN_TOPIC_OR_PARTITION']])
    await waitFor('retention.ms altered', async () => {
      const [described, unknown] = await client.admin.describeConfigs([{ type: 'topic', name: good, keys: ['retention.ms'] }, { type: 'topic', name: missing }])
      assert.equal(unknown.error?.code, 3)
      return described.configs.get('retention.ms')?.value === '7200000' ? true : undefined
    }, { timeoutMs: 30_000, intervalMs: 200 })

    const deleted = await client.admin.deleteTopics([good, missing])
    assert.deepEqual(deleted.map(r => [r.topic, r.error?.type]), [[good, undefined], [missing, 'UNKNOWN_TOPIC_OR_PARTITION']])
    assert.equal(firstError(deleted)?.code, 3)
  })

  test('describeCluster, describeFeatures, describeQuorum: brokers, controller, levels, the KRaft leader', async () => {
    await client.metadata.refresh()
    const cluster = await client.admin.describeCluster({ includeAuthorizedOperations: true })
    assert.equal(cluster.clusterId, client.metadata.clusterId ?? cluster.clusterId)
    assert.ok(cluster.clusterId.length > 0)
    assert.deepEqual(cluster.brokers.map(b => b.nodeId), client.metadata.brokers.map(b => b.nodeId).sort())
    assert.ok(cluster.brokers.every(b => b.isFenced === false && b.port > 0))
    // No authorizer: every operation is allowed, and the broker says so.
    assert.ok(cluster.authorizedOperations!.includes('alter'))

    const features = await client.admin.describeFeatures()
    assert.ok(features.finalized['metadata.version'].maxVersionLevel > 0)
    assert.ok(features.supported['metadata.version'].maxVersion >= features.finalized['metadata.version'].maxVersionLevel)
    // A no-op update validates (the current level of a feature).
    const groupVersion = features.finalized['group.version']?.maxVersionLevel
    if (groupVersion !== undefined) assert.equal(firstError(await client.admin.updateFeatures([{ feature: 'group.version', maxVersionLevel: groupVersion }], { validateOnly: true })), undefined)
    // UpdateFeatures v2 (Kafka 4.4) answers as a whole: the refusal is the call's.
    await assert.rejects(async () => throwFirstError(await client.admin.updateFeatures([{ feature: 'no.such.feature', maxVersionLevel: 1 }], { validateOnly: true })), (error: unknown) => error instanceof BrokerError && error.code !== 0)

    const quorum = await client.admin.describeQuorum()
    assert.ok(quorum.leaderId >= 0)
    assert.ok(quorum.voters.some(v => v.replicaId === quorum.leaderId))
    assert.ok(quorum.highWatermark > 0n)
  })

  test('updateFeatures downgrades a feature and upgrades it back; a downgrade without saying so is refused', async () => {
    const feature = 'eligible.leader.replicas.version'
    const level = async (): Promise<number | undefined> => (await client.admin.describeFeatures()).finalized[feature]?.maxVersionLevel
    // The controller commits the update before answering; the broker that answers ApiVersions
    // applies it from the metadata log a moment later, so the new level is waited for.
    const reaches = async (expected: number | undefined): Promise<void> => {
      await waitFor(`${feature} finalized at ${String(expected)}`, async () => (await level()) === expected ? true : undefined, { timeoutMs: 10_000, intervalMs: 200 })
    }
    const before = await level()
    assert.ok(before !== undefined && before >= 1, `Kafka 4.4 finalizes ${feature} at 1 or more, got ${String(before)}`)
    await assert.rejects(async () => throwFirstError(await client.admin.updateFeatures([{ feature, maxVersionLevel: before - 1 }])), (error: unknown) => error instanceof BrokerError && error.code !== 0)
    assert.equal(await level(), before)
    try {
      throwFirstError(await client.admin.updateFeatures([{ feature, maxVersionLevel: before - 1, upgradeType: 'safe-downgrade' }]))
      // Level 0 is "off": the feature leaves the finalized list.
      await reaches(before - 1 === 0 ? undefined : before - 1)
    } finally {
      throwFirstError(await client.admin.updateFeatures([{ feature, maxVersionLevel: before }]))
    }
    await reaches(before)
  })

  test('describeTopicPartitions follows the broker\'s pages to the end, with the ELR fields', async () => {
    const topic = await newTopic(5)
    const [described] = await client.admin.describeTopicPartitions([topic], { pageSize: 2 })
    assert.equal(described.error, undefined)
    assert.deepEqual(described.partitions.map(p => p.partition), [0, 1, 2, 3, 4])
    for (const p of described.partitions) {
      assert.ok(p.leaderId >= 0)
      assert.deepEqual(p.isr, p.replicas)
      assert.ok(p.eligibleLeaderReplicas === null || Array.isArray(p.eligibleLeaderReplicas))
    }
    const [missing] = await client.admin.describeTopicPartitions([uniqueName('missing')])
    assert.equal(missing.error?.type, 'UNKNOWN_TOPIC_OR_PARTITION')
  })

  test('listOffsets for many partitions; deleteRecords by offset and by time moves the log start offset', async () => {
    const topic = await newTopic(3)
    const base = Date.now() - 60_000
    await produce(topic, 0, 10, base)
    await produce(topic, 1, 5, base)
    const latest = await client.admin.listOffsets([0, 1, 2].map(partition => ({ topic, partition, spec: 'latest' as const })))
    assert.deepEqual(latest.map(o => o.offset), [10n, 5n, 0n])
    const maxTs = await client.admin.listOffsets([{ topic, partition: 0, spec: 'max-timestamp' }])
    assert.equal(maxTs[0].offset, 9n)
    assert.equal(maxTs[0].timestamp, BigInt(base + 9))

    const deleted = await client.admin.deleteRecords([
      { topic, partition: 0, before: 4n },
      { topic, partition: 1, before: { timestamp: base + 3 } },
      { topic, partition: 2, before: 'latest' }
    ])
    assert.deepEqual(deleted.map(d => [d.lowWatermark, d.error]), [[4n, undefined], [3n, undefined], [0n, undefined]])
    const earliest = await client.admin.listOffsets([0, 1].map(partition => ({ topic, partition, spec: 'earliest' as const })))
    assert.deepEqual(earliest.map(o => o.offset), [4n, 3n])
    const fetched = await client.fetchRaw({ topic, partition: 0, offset: 4n })
    assert.equal(fetched.logStartOffset, 4n)

    const [beyond] = await client.admin.deleteRecords([{ topic, partition: 0, before: 100n }])
    assert.equal(beyond.error?.type, 'OFFSET_OUT_OF_RANGE')
  })

  test('describeLogDirs reports the bytes of each replica; describeConfigs with synonyms and documentation; listConfigResources', async () => {
    const topic = await newTopic(1, { 'retention.ms': '7200000' })
    await produce(topic, 0, 50)
    const dirs = await client.admin.describeLogDirs({ partitions: [{ topic, partition: 0 }] })
    const replica = dirs.flatMap(d => d.replicas).find(r => r.topic === topic)
    assert.ok(replica !== undefined && replica.size > 0n, `no size for ${topic}-0 in ${JSON.stringify(dirs, (_, v) => typeof v === 'bigint' ? String(v) : v)}`)
    assert.ok(dirs[0].totalBytes > 0n && dirs[0].usableBytes > 0n)

    const configs = await client.admin.describeConfigs({ type: 'topic', name: topic, keys: ['retention.ms', 'cleanup.policy'] }, { includeSynonyms: true, includeDocumentation: true })
    const retention = configs.get('retention.ms')!
    assert.equal(retention.value, '7200000')
    assert.equal(retention.sourceName, 'dynamic-topic')
    assert.equal(retention.synonyms![0].source, 'dynamic-topic')
    assert.equal(retention.synonyms![0].value, '7200000')
    assert.equal(retention.type, 'long')
    assert.match(retention.documentation ?? '', /retain/i)
    assert.equal(configs.get('cleanup.policy')!.isDefault, true)

    const resources = await client.admin.listConfigResources({ types: ['topic'] })
    assert.ok(resources.some(r => r.type === 'topic' && r.name === topic))
  })

  test('client quotas: alter, then describe shows them; remove, and they are gone', async () => {
    const clientId = uniqueName('quota-client')
    const [altered] = await client.admin.alterClientQuotas([{ entity: { 'client-id': clientId }, set: { producer_byte_rate: 1048576, consumer_byte_rate: 2097152 } }])
    assert.equal(altered.error, undefined)
    const entry = await waitFor('the quota to be visible', async () => (await client.admin.describeClientQuotas([{ entityType: 'client-id', match: clientId }], { strict: true }))[0], { intervalMs: 200 })
    assert.deepEqual(entry.entity, { 'client-id': clientId })
    assert.deepEqual(entry.values, { producer_byte_rate: 1048576, consumer_byte_rate: 2097152 })
    await client.admin.alterClientQuotas([{ entity: { 'client-id': clientId }, remove: ['producer_byte_rate', 'consumer_byte_rate'] }])
    await waitFor('the quota to be removed', async () => (await client.admin.describeClientQuotas([{ entityType: 'client-id', match: clientId }])).length === 0 ? true : undefined, { intervalMs: 200 })
  })

  test('SCRAM credentials: upsert, describe (mechanisms and iterations), delete', async () => {
    const user = uniqueName('scram-user')
    const results = await client.admin.alterUserScramCredentials([
      { user, mechanism: 'SCRAM-SHA-256', password: 'secret-256', iterations: 4096 },
      { user, mechanism: 'SCRAM-SHA-512', password: 'secret-512', iterations: 8192 }
    ])
    assert.deepEqual(results, [{ user, error: undefined }])
    const [described] = await waitFor('the credentials', async () => {
      const d = await client.admin.describeUserScramCredentials([user])
      return d[0].credentials.length === 2 ? d : undefined
    }, { intervalMs: 200 })
    assert.deepEqual(described.credentials.sort((a, b) => a.iterations - b.iterations), [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }, { mechanism: 'SCRAM-SHA-512', iterations: 8192 }])
    await client.admin.alterUserScramCredentials([{ user, mechanism: 'SCRAM-SHA-256', delete: true }, { user, mechanism: 'SCRAM-SHA-512', delete: true }])
    const [gone] = await waitFor('the deletion', async () => {
      const d = await client.admin.describeUserScramCredentials([user])
      return d[0].error !== undefined ? d : undefined
    }, { intervalMs: 200 })
    assert.equal(gone.error?.type, 'RESOURCE_NOT_FOUND')
    await assert.rejects(client.admin.alterUserScramCredentials([{ user, mechanism: 'SCRAM-SHA-256', password: 'x', iterations: 10 }]), RangeError)
  })

  test('groups of both protocols: list with filters, describe at the coordinator, offsets of several groups, lag', async () => {
    const topic = await newTopic(2)
    for (const partition of [0, 1]) await produce(topic, partition, 10)
    const classicId = uniqueName('g-classic')
    const consumerId = uniqueName('g-consumer')
    const members = [
      new GroupConsumer(client, { groupId: classicId, topics: [topic], groupProtocol: 'classic', fromBeginning: true, instanceId: 'static-1' }),
      new GroupConsumer(client, { groupId: consumerId, topics: [topic], groupProtocol: 'consumer', fromBeginning: true })
    ]
    const seen = [0, 0]
    const runs = members.map(async (m, i) => await m.run({ eachBatch: batch => { seen[i] += batch.records.length } }))
    try {
      await waitFor('both groups to consume everything', async () => seen.every(n => n === 20) ? true : undefined, { timeoutMs: 60_000, intervalMs: 200 })
      for (const m of members) await m.commit()

      const listed = await client.admin.listGroups()
      assert.equal(listed.find(g => g.groupId === classicId)?.type, 'classic')
      assert.equal(listed.find(g => g.groupId === consumerId)?.type, 'consumer')
      const onlyConsumer = await client.admin.listGroups({ types: ['consumer'] })
      assert.ok(onlyConsumer.some(g => g.groupId === consumerId) && !onlyConsumer.some(g => g.groupId === classicId))
      const stable = await client.admin.listGroups({ states: ['Stable'] })
      assert.ok(stable.some(g => g.groupId === classicId))

      const [classic, modern, unknown] = await client.admin.describeGroups([classicId, consumerId, uniqueName('nobody')])
      assert.equal(classic.type, 'classic')
      assert.equal(classic.state, 'Stable')
      assert.equal(classic.protocolType, 'consumer')
      assert.equal(classic.members.length, 1)
      assert.equal(classic.members[0].instanceId, 'static-1')
      assert.deepEqual(classic.members[0].assignment.map(p => p.partition).sort(), [0, 1])
      assert.equal(modern.type, 'consumer')
      assert.equal(modern.members.length, 1)
      assert.ok(modern.groupEpoch! > 0)
      assert.deepEqual(modern.members[0].assignment.map(p => `${p.topic}:${p.partition}`).sort(), [`${topic}:0`, `${topic}:1`])
      assert.deepEqual(modern.members[0].subscribedTopics, [topic])
      assert.equal(unknown.state, 'Dead')

      const offsets = await client.admin.fetchOffsets([classicId, consumerId])
      for (const g of offsets) {
        assert.equal(g.error, undefined)
        assert.deepEqual(g.offsets.map(o => [o.topic, o.partition, o.offset]).sort(), [[topic, 0, 10n], [topic, 1, 10n]])
      }
      // Written after the members close: a running member would consume them and commit on close.
      for (const m of members) await m.close()
      await produce(topic, 0, 3)
      const lag = await client.admin.lag(classicId)
      assert.deepEqual(lag.map(l => [l.partition, l.committed, l.end, l.lag]).sort(), [[0, 10n, 13n, 3n], [1, 10n, 10n, 0n]])
    } finally {
      for (const m of members) await m.close().catch(() => {})
      await Promise.allSettled(runs)
    }

    // A static member's close() does not leave its classic group (KIP-345: a restart within
    // the session timeout keeps the assignment); an operator takes it out to empty the group.
    const removed = await client.admin.removeMembers(classicId, { members: [{ instanceId: 'static-1' }] })
    assert.equal(removed[0].error, undefined)
    // Once empty, the groups' offsets can be moved by an admin.
    const plan = await client.admin.resetGroupOffsets(classicId, { shiftBy: -4 }, { topics: [topic], dryRun: true })
    assert.deepEqual(plan.map(p => [p.partition, p.previous, p.offset]).sort(), [[0, 10n, 6n], [1, 10n, 6n]])
    assert.deepEqual((await client.admin.fetchOffsets([classicId]))[0].offsets.map(o => o.offset), [10n, 10n], 'a dry run commits nothing')
    await client.admin.resetGroupOffsets(classicId, 'earliest', { topics: [topic] })
    assert.deepEqual((await client.admin.fetchOffsets([classicId]))[0].offsets.map(o => o.offset).sort(), [0n, 0n])
    await client.admin.resetGroupOffsets(classicId, { shiftBy: 100 }, { partitions: [{ topic, partition: 0 }] })
    assert.equal((await client.admin.fetchOffsets([{ groupId: classicId, partitions: [{ topic, partition: 0 }] }]))[0].offsets[0].offset, 13n, 'clamped to the log end')
    await client.admin.resetGroupOffsets(consumerId, { offset: 5n })
    assert.deepEqual((await client.admin.fetchOffsets([consumerId]))[0].offsets.map(o => o.offset), [5n, 5n])
    const altered = await client.admin.alterGroupOffsets(consumerId, [{ topic, partition: 1, offset: 7n }])
    assert.deepEqual(altered, [{ topic, partition: 1, error: undefined }])
    assert.equal((await client.admin.lag(consumerId)).find(l => l.partition === 1)!.lag, 3n)

    const deletedOffsets = await client.admin.deleteGroupOffsets(consumerId, [{ topic, partition: 0 }])
    assert.deepEqual(deletedOffsets, [{ topic, partition: 0, error: undefined }])
    assert.deepEqual((await client.admin.fetchOffsets([consumerId]))[0].offsets.filter(o => o.offset >= 0n).map(o => o.partition), [1])

    const deleted = await client.admin.deleteGroups([classicId, consumerId, uniqueName('nobody')])
    assert.deepEqual(deleted.map(d => d.error?.type), [undefined, undefined, 'GROUP_ID_NOT_FOUND'])
    const after = await client.admin.listGroups()
    assert.ok(!after.some(g => g.groupId === classicId || g.groupId === consumerId))
  })

  test('a member that has committed nothing yet: lag lists its assigned partitions (committed undefined, lag from the log start); resetting or setting its offsets is refused with the group\'s state', async () => {
    const topic = await newTopic(3)
    for (const partition of [0, 1, 2]) await produce(topic, partition, 5)
    await client.admin.deleteRecords([{ topic, partition: 2, before: 2n }])
    const groupId = uniqueName('g-active')
    // Its handler never returns while the test looks: nothing is committed.
    let release!: () => void
    const held = new Promise<void>(resolve => { release = resolve })
    let batches = 0
    const member = new GroupConsumer(client, { groupId, topics: [topic], fromBeginning: true })
    const run = member.run({ eachBatch: async () => { batches++; await held } }).catch(() => {})
    try {
      await waitFor('the member to hold a batch', async () => batches > 0 ? true : undefined, { timeoutMs: 60_000, intervalMs: 200 })
      const lag = await client.admin.lag(groupId)
      // Before: [] (only partitions with a commit were listed).
      assert.deepEqual(lag.map(l => [l.partition, l.committed, l.start, l.end, l.lag, l.error]), [[0, undefined, 0n, 5n, 5n, undefined], [1, undefined, 0n, 5n, 5n, undefined], [2, undefined, 2n, 5n, 3n, undefined]])
      assert.ok(lag.every(l => l.topic === topic))

      const [group] = await client.admin.describeGroups([groupId])
      const refused = (error: unknown): boolean => {
        assert.ok(error instanceof BrokerError, String(error))
        assert.equal(error.type, 'NON_EMPTY_GROUP')
        assert.match(error.message, new RegExp(`group "${groupId}": the group is ${group.state} with 1 member\\(s\\), and offsets can only be reset if the group is inactive`))
        return true
      }
      // Before: every partition answered UNKNOWN_MEMBER_ID (or, with no commits, "0 offsets" committed).
      await assert.rejects(client.admin.resetGroupOffsets(groupId, 'earliest', { topics: [topic] }), refused)
      await assert.rejects(client.admin.resetGroupOffsets(groupId, 'latest'), refused)
      await assert.rejects(client.admin.alterGroupOffsets(groupId, [{ topic, partition: 0, offset: 1n }]), refused)
      // A dry run only plans: allowed.
      const plan = await client.admin.resetGroupOffsets(groupId, 'latest', { topics: [topic], dryRun: true })
      assert.deepEqual(plan.map(p => [p.partition, p.previous, p.offset]), [[0, -1n, 5n], [1, -1n, 5n], [2, -1n, 5n]])
    } finally {
      release()
      await member.close().catch(() => {})
      await run
    }
  })

  test('a streams group (KIP-1071) is listed and described with its topology and task assignment', async () => {
    const topic = await newTopic(2)
    const groupId = uniqueName('g-streams')
    const memberId = randomUUID()
    const join = {
      groupId, memberId, memberEpoch: 0, endpointInformationEpoch: 0, rebalanceTimeoutMs: 30_000, processId: randomUUID(), clientTags: [], activeTasks: [], standbyTasks: [], warmupTasks: [],
      topology: { epoch: 0, subtopologies: [{ subtopologyId: 'sub-0', sourceTopics: [topic], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [] }] }
    }
    // One broker: any broker is the coordinator; the first heartbeats may find it loading.
    let epoch = 0
    await waitFor('the streams member to be given its tasks', async () => {
      const r = await client.request(StreamsGroupHeartbeat, epoch === 0 ? join : { groupId, memberId, memberEpoch: epoch, endpointInformationEpoch: 0, activeTasks: [], standbyTasks: [], warmupTasks: [] })
      if (r.errorCode !== 0) { epoch = 0; return undefined }
      epoch = r.memberEpoch
      return r.activeTasks !== null && r.activeTasks.length > 0 ? true : undefined
    }, { timeoutMs: 30_000, intervalMs: 200 })
    try {
      assert.equal((await client.admin.listGroups({ types: ['streams'] })).find(g => g.groupId === groupId)?.type, 'streams')
      const [group] = await client.admin.describeGroups([groupId])
      assert.equal(group.error, undefined)
      assert.equal(group.type, 'streams')
      assert.deepEqual(group.topology?.subtopologies.map(s => [s.subtopologyId, s.sourceTopics]), [['sub-0', [topic]]])
      assert.equal(group.members.length, 1)
      assert.equal(group.members[0].memberId, memberId)
      assert.equal(group.members[0].processId, join.processId)
      assert.deepEqual(group.members[0].targetTasks?.active.map(t => [t.subtopologyId, [...t.partitions].sort()]), [['sub-0', [0, 1]]])
    } finally {
      await client.request(StreamsGroupHeartbeat, { groupId, memberId, memberEpoch: -1, endpointInformationEpoch: 0 })
    }
  })

  test('removeMembers takes a static member out of a classic group at once', async () => {
    const topic = await newTopic(1)
    const groupId = uniqueName('g-static')
    const member = new GroupConsumer(client, { groupId, topics: [topic], groupProtocol: 'classic', instanceId: 'to-remove', sessionTimeoutMs: 30_000 })
    const run = member.run({ eachBatch: () => {} }).catch(() => {})
    try {
      await waitFor('the member to join', async () => (await client.admin.describeGroups([groupId]))[0].members.length === 1 ? true : undefined, { timeoutMs: 30_000, intervalMs: 200 })
      const removed = await client.admin.removeMembers(groupId, { members: [{ instanceId: 'to-remove' }] })
      assert.deepEqual(removed.map(r => [r.instanceId, r.error]), [['to-remove', undefined]])
      const [group] = await client.admin.describeGroups([groupId])
      assert.ok(group.members.every(m => m.instanceId !== 'to-remove') || group.state !== 'Stable', 'the static member is out (the group rebalances without it)')
    } finally {
      await member.close().catch(() => {})
      await run
    }
  })

  test('describeProducers shows the idempotent producer that wrote to a partition; listTransactions answers', async () => {
    const topic = await newTopic(1)
    const producer = client.producer()
    await producer.send({ topic, partition: 0, value: 'x' })
    await producer.close()
    const [described] = await client.admin.describeProducers([{ topic, partition: 0 }])
    assert.equal(described.error, undefined)
    assert.equal(described.producers.length, 1)
    assert.equal(described.producers[0].lastSequence, 0)
    assert.ok(Array.isArray(await client.admin.listTransactions()))
  })

  test('abortTransaction writes an ABORT marker for a transaction left open: the last stable offset moves past it', async () => {
    const topic = await newTopic(1)
    const producer = client.producer({ transactionalId: uniqueName('admin-hanging'), lingerMs: 1 })
    const lastStable = async (): Promise<bigint> => (await client.admin.listOffsets([{ topic, partition: 0, spec: 'latest' }], { isolation: 'read_committed' }))[0].offset
    try {
      await producer.beginTransaction()
      await producer.send({ topic, partition: 0, value: 'open' })
      await producer.send({ topic, partition: 0, value: 'open too' })
      const [{ producers: [open] }] = await client.admin.describeProducers([{ topic, partition: 0 }])
      assert.equal(open.currentTxnStartOffset, 0n)
      assert.equal(await lastStable(), 0n, 'the open transaction holds the last stable offset back')

      await assert.rejects(client.admin.abortTransaction({ topic, partition: 0, producerId: open.producerId, producerEpoch: open.producerEpoch, coordinatorEpoch: open.coordinatorEpoch, extra: 1 } as never), TypeError)
      await client.admin.abortTransaction({ topic, partition: 0, producerId: open.producerId, producerEpoch: open.producerEpoch, coordinatorEpoch: open.coordinatorEpoch })
      const [{ producers: [after] }] = await client.admin.describeProducers([{ topic, partition: 0 }])
      assert.equal(after.currentTxnStartOffset, -1n)
      // Two records and the marker: read_committed readers may go to the end.
      assert.equal(await lastStable(), 3n)
    } finally {
      await producer.abortTransaction().catch(() => {})
      await producer.close()
    }
  })

  test('electLeaders on a single node: nothing to elect; options are checked before anything is sent', async () => {
    const topic = await newTopic(1)
    const [result] = await client.admin.electLeaders({ partitions: [{ topic, partition: 0 }] })
    assert.equal(result.notNeeded, true)
    assert.equal(result.error, undefined)
    await assert.rejects(client.admin.electLeaders({ type: 'sideways' as 'preferred' }), RangeError)
    await assert.rejects(client.admin.listOffsets([{ topic, partition: -1, spec: 'latest' }]), RangeError)
    await assert.rejects(client.admin.describeCluster({ timeout: 5 } as object), TypeError)
  })
})

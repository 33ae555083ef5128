// Tests of the fake cluster's group coordinator, driven with raw requests through
// kafkats's Client: FindCoordinator, the classic protocol (join/sync/heartbeat, rebalances,
// timeouts, leave, static membership), KIP-848 (join, server-side assignment, revocation
// handoff, fencing, timeouts), OffsetCommit accepted and refused for the right reasons,
// OffsetFetch, and the inspection/control methods.
//
// Each member gets its own Client: a JoinGroup or SyncGroup waits at the coordinator, and
// a connection handles one request at a time (as Kafka's does).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { ConsumerGroupDescribe } from '../../protocol/apis/consumer-group-describe'
import { DeleteGroups } from '../../protocol/apis/delete-groups'
import { DescribeGroups } from '../../protocol/apis/describe-groups'
import { ListGroups } from '../../protocol/apis/list-groups'
import { ConsumerGroupHeartbeat, type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse } from '../../protocol/apis/consumer-group-heartbeat'
import { FindCoordinator } from '../../protocol/apis/find-coordinator'
import { Heartbeat } from '../../protocol/apis/heartbeat'
import { JoinGroup, type JoinGroupResponse } from '../../protocol/apis/join-group'
import { LeaveGroup } from '../../protocol/apis/leave-group'
import { OffsetCommit, type OffsetCommitResponse } from '../../protocol/apis/offset-commit'
import { OffsetFetch } from '../../protocol/apis/offset-fetch'
import { SyncGroup, type SyncGroupResponse } from '../../protocol/apis/sync-group'
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../protocol/consumer-protocol'
import { FakeCluster, type FakeClusterOptions } from '../../testing/index'
import { eventLoopTurns, sleep, waitFor } from '../support/wait'

const E = {
  NONE: 0,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  NOT_COORDINATOR: 16,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  UNKNOWN_MEMBER_ID: 25,
  REBALANCE_IN_PROGRESS: 27,
  UNSUPPORTED_VERSION: 35,
  INVALID_REQUEST: 42,
  GROUP_ID_NOT_FOUND: 69,
  NON_EMPTY_GROUP: 68,
  MEMBER_ID_REQUIRED: 79,
  FENCED_INSTANCE_ID: 82,
  FENCED_MEMBER_EPOCH: 110,
  UNSUPPORTED_ASSIGNOR: 112,
  STALE_MEMBER_EPOCH: 113
}

interface Harness {
  cluster: FakeCluster
  /** A new client (closed at the end); one per member. */
  client: () => Promise<Client>
}

async function withCluster (options: FakeClusterOptions, body: (h: Harness) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ log: false, ...options })
  const clients: Client[] = []
  const client = async (): Promise<Client> => {
    const c = new Client({ bootstrap: cluster.bootstrap, clientId: `member-${clients.length}`, retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 10_000 })
    clients.push(c)
    await c.metadata.refresh()
    return c
  }
  try {
    await body({ cluster, client })
    assert.deepEqual(cluster.problems, [])
  } finally {
    await Promise.all(clients.map(async c => await c.close()))
    await cluster.close()
  }
}


// ---------------------------------------------------------------------------------------
// Classic protocol helpers

const subscription = (topics: string[]): Buffer => encodeSubscription({ topics })
const assignment = (topic: string, partitions: number[]): Buffer => encodeAssignment({ assignedPartitions: [{ topic, partitions }] })

class ClassicMember {
  memberId = ''
  generationId = -1
  constructor (readonly client: Client, readonly cluster: FakeCluster, readonly groupId: string, readonly options: { instanceId?: string, sessionTimeoutMs?: number, rebalanceTimeoutMs?: number, topics?: string[] } = {}) {}

  get coordinator (): number {
    return this.cluster.coordinatorOf(this.groupId)
  }

  async joinOnce (memberId = this.memberId): Promise<JoinGroupResponse> {
    const response = await this.client.request(JoinGroup, {
      groupId: this.groupId,
      sessionTimeoutMs: this.options.sessionTimeoutMs ?? 10_000,
      rebalanceTimeoutMs: this.options.rebalanceTimeoutMs ?? 10_000,
      memberId,
      groupInstanceId: this.options.instanceId ?? null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription(this.options.topics ?? ['t']) }]
    }, { nodeId: this.coordinator })
    if (response.errorCode === E.NONE) this.generationId = response.generationId
    if (response.memberId !== '') this.memberId = response.memberId
    return response
  }

  /** Joins, answering MEMBER_ID_REQUIRED with the id given. */
  async join (): Promise<JoinGroupResponse> {
    const first = await this.joinOnce()
    if (first.errorCode !== E.MEMBER_ID_REQUIRED) return first
    return await this.joinOnce()
  }

  async sync (assignments: Array<{ memberId: string, assignment: Buffer }> = [], generationId = this.generationId): Promise<SyncGroupResponse> {
    return await this.client.request(SyncGroup, {
      groupId: this.groupId, generationId, memberId: this.memberId, groupInstanceId: this.options.instanceId ?? null, protocolType: 'consumer', protocolName: 'range', assignments
    }, { nodeId: this.coordinator })
  }

  async heartbeat (generationId = this.generationId): Promise<number> {
    const response = await this.client.request(Heartbeat, { groupId: this.groupId, generationId, memberId: this.memberId, groupInstanceId: this.options.instanceId ?? null }, { nodeId: this.coordinator })
    return response.errorCode
  }

  async commit (partitions: Array<[string, number, bigint]>, fields: { generationId?: number, memberId?: string, version?: number } = {}): Promise<number[]> {
    const response: OffsetCommitResponse = await this.client.request(OffsetCommit, {
      groupId: this.groupId,
      generationIdOrMemberEpoch: fields.generationId ?? this.generationId,
      memberId: fields.memberId ?? this.memberId,
      groupInstanceId: this.options.instanceId ?? null,
      topics: [...new Set(partitions.map(p => p[0]))].map(name => ({
        name,
        topicId: this.cluster.topicId(name),
        partitions: partitions.filter(p => p[0] === name).map(([, partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: 0, committedMetadata: 'm' }))
      }))
    }, { nodeId: this.coordinator, version: fields.version })
    return response.topics.flatMap(t => t.partitions.map(p => p.errorCode))
  }
}

/**
 * Starts `newcomer`'s join and waits until the coordinator has it (the group is then
 * preparing a rebalance), so the existing members' rejoins come after it.
 */
async function startJoin (h: Harness, newcomer: ClassicMember, membersAfter: number): Promise<{ joining: Promise<JoinGroupResponse> }> {
  const joining = newcomer.join()
  await waitFor('the newcomer to join (the group preparing a rebalance)', () => h.cluster.groupMembers(newcomer.groupId).length === membersAfter && h.cluster.group(newcomer.groupId)?.state === 'PreparingRebalance')
  // (Wrapped: an async function returning a promise would wait for it.)
  return { joining }
}

async function stableGroupOfOne (h: Harness, groupId: string, options: ClassicMember['options'] = {}): Promise<ClassicMember> {
  const a = new ClassicMember(await h.client(), h.cluster, groupId, options)
  const joined = await a.join()
  assert.equal(joined.errorCode, E.NONE)
  const synced = await a.sync([{ memberId: a.memberId, assignment: assignment('t', [0, 1, 2, 3]) }])
  assert.equal(synced.errorCode, E.NONE)
  return a
}

// ---------------------------------------------------------------------------------------

describe('FindCoordinator and NOT_COORDINATOR', () => {
  test('the coordinator is chosen by hash, can be moved, and other brokers refuse group requests', async () => {
    await withCluster({ brokers: 3, topics: [{ name: 't', partitions: 2 }] }, async h => {
      const client = await h.client()
      const byHash = h.cluster.coordinatorOf('g1')
      assert.ok(h.cluster.brokerIds.includes(byHash))

      const v3 = await client.request(FindCoordinator, { key: 'g1', keyType: 0 }, { version: 3 })
      assert.deepEqual([v3.errorCode, v3.nodeId, v3.port], [0, byHash, h.cluster.port(byHash)])
      h.cluster.setCoordinator('g2', 2)
      const v6 = await client.request(FindCoordinator, { keyType: 0, coordinatorKeys: ['g1', 'g2'] })
      assert.deepEqual(v6.coordinators.map(c => [c.key, c.nodeId, c.errorCode]), [['g1', byHash, 0], ['g2', 2, 0]])

      // Group requests to a broker that does not coordinate the group.
      const other = h.cluster.brokerIds.find(id => id !== 2)!
      const join = await client.request(JoinGroup, { groupId: 'g2', sessionTimeoutMs: 1000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['t']) }] }, { nodeId: other })
      assert.equal(join.errorCode, E.NOT_COORDINATOR)
      const hb = await client.request(Heartbeat, { groupId: 'g2', generationId: 1, memberId: 'x' }, { nodeId: other })
      assert.equal(hb.errorCode, E.NOT_COORDINATOR)
      const commit = await client.request(OffsetCommit, { groupId: 'g2', memberId: '', topics: [{ name: 't', topicId: h.cluster.topicId('t'), partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }] }, { nodeId: other })
      assert.equal(commit.topics[0].partitions[0].errorCode, E.NOT_COORDINATOR)
      const fetch = await client.request(OffsetFetch, { groups: [{ groupId: 'g2', topics: null }] }, { nodeId: other })
      assert.equal(fetch.groups[0].errorCode, E.NOT_COORDINATOR)
      const cgh = await client.request(ConsumerGroupHeartbeat, { groupId: 'g2', memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['t'], topicPartitions: [] }, { nodeId: other })
      assert.equal(cgh.errorCode, E.NOT_COORDINATOR)
      assert.equal(h.cluster.commitLog('g2')[0].errorCode, E.NOT_COORDINATOR)
      assert.equal(h.cluster.committedOffset('g2', 't', 0), undefined)
    })
  })
})

describe('classic group protocol', () => {
  test('join (MEMBER_ID_REQUIRED first), sync, heartbeat', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const a = new ClassicMember(await h.client(), h.cluster, 'g')
      const first = await a.joinOnce()
      assert.equal(first.errorCode, E.MEMBER_ID_REQUIRED)
      assert.notEqual(first.memberId, '')
      const joined = await a.joinOnce()
      assert.equal(joined.errorCode, E.NONE)
      assert.deepEqual([joined.generationId, joined.leader, joined.memberId, joined.protocolName], [1, a.memberId, a.memberId, 'range'])
      assert.deepEqual(joined.members.map(m => m.memberId), [a.memberId])
      assert.equal(h.cluster.group('g')?.state, 'CompletingRebalance')

      const synced = await a.sync([{ memberId: a.memberId, assignment: assignment('t', [0, 1, 2, 3]) }])
      assert.equal(synced.errorCode, E.NONE)
      assert.deepEqual(decodeAssignment(synced.assignment).assignedPartitions, [{ topic: 't', partitions: [0, 1, 2, 3] }])
      assert.equal(await a.heartbeat(), E.NONE)
      assert.equal(h.cluster.group('g')?.state, 'Stable')
      const [member] = h.cluster.groupMembers('g')
      assert.deepEqual([member.memberId, member.generationId, member.isLeader, member.subscribedTopics], [a.memberId, 1, true, ['t']])
      assert.deepEqual(member.assigned.map(tp => tp.partition), [0, 1, 2, 3])

      assert.equal(await a.heartbeat(0), E.ILLEGAL_GENERATION)
      const stranger = await a.client.request(Heartbeat, { groupId: 'g', generationId: 1, memberId: 'nobody' }, { nodeId: a.coordinator })
      assert.equal(stranger.errorCode, E.UNKNOWN_MEMBER_ID)
      const badSync = await a.sync([], 7)
      assert.equal(badSync.errorCode, E.ILLEGAL_GENERATION)
      // A different protocol type is inconsistent with the group's.
      const odd = await a.client.request(JoinGroup, { groupId: 'g', sessionTimeoutMs: 1000, memberId: '', protocolType: 'connect', protocols: [{ name: 'x', metadata: Buffer.alloc(0) }] }, { nodeId: a.coordinator })
      assert.equal(odd.errorCode, E.INCONSISTENT_GROUP_PROTOCOL)
    })
  })

  test('a joining member starts a rebalance: heartbeats get REBALANCE_IN_PROGRESS until everyone rejoins; the follower\'s sync waits for the leader\'s', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const a = await stableGroupOfOne(h, 'g')
      const b = new ClassicMember(await h.client(), h.cluster, 'g')
      const { joining: bJoin } = await startJoin(h, b, 2) // waits: a must rejoin
      assert.equal(h.cluster.group('g')?.state, 'PreparingRebalance')
      assert.equal(await a.heartbeat(), E.REBALANCE_IN_PROGRESS)
      // A commit with the old generation is still accepted while preparing (as Kafka does).
      assert.deepEqual(await a.commit([['t', 0, 5n]]), [E.NONE])

      const aJoin = await a.join()
      const bJoined = await bJoin
      assert.deepEqual([aJoin.errorCode, bJoined.errorCode], [0, 0])
      assert.deepEqual([aJoin.generationId, bJoined.generationId], [2, 2])
      assert.equal(aJoin.leader, a.memberId)
      assert.deepEqual(aJoin.members.map(m => m.memberId).sort(), [a.memberId, b.memberId].sort())
      assert.deepEqual(bJoined.members, [])

      // During CompletingRebalance a commit gets REBALANCE_IN_PROGRESS; an old generation is illegal.
      assert.deepEqual(await a.commit([['t', 0, 6n]]), [E.REBALANCE_IN_PROGRESS])
      assert.deepEqual(await a.commit([['t', 0, 6n]], { generationId: 1 }), [E.ILLEGAL_GENERATION])

      const bSync = b.sync() // waits for the leader
      await h.cluster.waitForRequest(SyncGroup, e => e.request.memberId === b.memberId)
      // Logged as it arrived; the coordinator takes it up on its connection's promise chain, no timer on the way.
      await eventLoopTurns(5)
      const aSync = await a.sync([{ memberId: a.memberId, assignment: assignment('t', [0, 1]) }, { memberId: b.memberId, assignment: assignment('t', [2, 3]) }])
      assert.deepEqual(decodeAssignment(aSync.assignment).assignedPartitions[0].partitions, [0, 1])
      assert.deepEqual(decodeAssignment((await bSync).assignment).assignedPartitions[0].partitions, [2, 3])
      assert.equal(await b.heartbeat(), E.NONE)
      assert.equal(await a.heartbeat(1), E.ILLEGAL_GENERATION)
      assert.deepEqual(h.cluster.groupMembers('g').map(m => [m.memberId, m.assigned.map(tp => tp.partition)]), [[a.memberId, [0, 1]], [b.memberId, [2, 3]]])

      assert.deepEqual(await a.commit([['t', 0, 7n]]), [E.NONE])
      assert.deepEqual(h.cluster.commitLog('g').map(e => [e.generationIdOrMemberEpoch, e.groupGeneration, e.errorCode, e.partitions[0].accepted]),
        [[1, 1, 0, true], [2, 2, E.REBALANCE_IN_PROGRESS, false], [1, 2, E.ILLEGAL_GENERATION, false], [2, 2, 0, true]])
      assert.equal(h.cluster.committedOffset('g', 't', 0)?.offset, 7n)
    })
  })

  test('a member that does not rejoin within the rebalance timeout is removed', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const a = await stableGroupOfOne(h, 'g', { rebalanceTimeoutMs: 200 })
      const b = new ClassicMember(await h.client(), h.cluster, 'g', { rebalanceTimeoutMs: 200 })
      const started = Date.now()
      const joined = await b.join() // a never rejoins
      assert.ok(Date.now() - started >= 150, 'the join phase waited for the rebalance timeout')
      assert.deepEqual([joined.errorCode, joined.generationId, joined.leader], [0, 2, b.memberId])
      assert.deepEqual(h.cluster.groupMembers('g').map(m => m.memberId), [b.memberId])
      assert.equal(await a.heartbeat(), E.UNKNOWN_MEMBER_ID)
      assert.deepEqual(await a.commit([['t', 0, 1n]]), [E.UNKNOWN_MEMBER_ID])
    })
  })

  test('a session timeout expires a silent member and the group rebalances', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const a = await stableGroupOfOne(h, 'g', { sessionTimeoutMs: 150 })
      const b = new ClassicMember(await h.client(), h.cluster, 'g', { sessionTimeoutMs: 5000 })
      const { joining: bJoin } = await startJoin(h, b, 2)
      await a.join()
      await bJoin
      await a.sync([{ memberId: a.memberId, assignment: assignment('t', [0, 1]) }, { memberId: b.memberId, assignment: assignment('t', [2, 3]) }])
      await b.sync()
      // b heartbeats, a stays silent, until the coordinator expired a (its 150 ms session; b's is 5 s).
      await waitFor('a\'s session to expire', async () => {
        await sleep(50)
        const code = await b.heartbeat()
        if (code !== E.REBALANCE_IN_PROGRESS) assert.equal(code, E.NONE)
        return code === E.REBALANCE_IN_PROGRESS
      })
      assert.deepEqual(h.cluster.groupMembers('g').map(m => m.memberId), [b.memberId])
      assert.ok(h.cluster.groupEvents('g').some(e => e.line.includes(`member ${a.memberId} session expired`)))
      assert.equal(await a.heartbeat(), E.UNKNOWN_MEMBER_ID)
      assert.equal((await b.join()).generationId, 3)
    })
  })

  test('LeaveGroup: batched with an error per member (v3+), single (v0)', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const a = await stableGroupOfOne(h, 'g')
      const b = new ClassicMember(await h.client(), h.cluster, 'g')
      const { joining: bJoin } = await startJoin(h, b, 2)
      await a.join()
      await bJoin
      await Promise.all([b.sync(), a.sync([])])
      const left = await a.client.request(LeaveGroup, { groupId: 'g', members: [{ memberId: b.memberId }, { memberId: 'ghost' }] }, { nodeId: a.coordinator })
      assert.equal(left.errorCode, E.NONE)
      assert.deepEqual(left.members.map(m => [m.memberId, m.errorCode]), [[b.memberId, E.NONE], ['ghost', E.UNKNOWN_MEMBER_ID]])
      assert.equal(await a.heartbeat(), E.REBALANCE_IN_PROGRESS)
      assert.equal(await b.heartbeat(), E.UNKNOWN_MEMBER_ID)
      await a.join()
      const v0 = await a.client.request(LeaveGroup, { groupId: 'g', memberId: a.memberId }, { nodeId: a.coordinator, version: 0 })
      assert.equal(v0.errorCode, E.NONE)
      await waitFor('the group to be empty', () => h.cluster.group('g')?.state === 'Empty')
      // Now a simple commit (generation -1, no member) is allowed.
      assert.deepEqual(await a.commit([['t', 1, 3n]], { generationId: -1, memberId: '' }), [E.NONE])
    })
  })

  test('static membership: a rejoin with the same instance id replaces the member id, and the old one is fenced', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const old = await stableGroupOfOne(h, 'g', { instanceId: 'i-1' })
      assert.equal(old.generationId, 1)
      const replacement = new ClassicMember(await h.client(), h.cluster, 'g', { instanceId: 'i-1' })
      const joined = await replacement.joinOnce()
      // No MEMBER_ID_REQUIRED for a static member, and no rebalance: same generation.
      assert.equal(joined.errorCode, E.NONE)
      assert.notEqual(joined.memberId, old.memberId)
      assert.equal(joined.generationId, 1)
      assert.equal(h.cluster.group('g')?.state, 'Stable')
      const synced = await replacement.sync()
      assert.deepEqual(decodeAssignment(synced.assignment).assignedPartitions[0].partitions, [0, 1, 2, 3])

      assert.equal(await old.heartbeat(), E.FENCED_INSTANCE_ID)
      assert.equal((await old.sync()).errorCode, E.FENCED_INSTANCE_ID)
      assert.deepEqual(await old.commit([['t', 0, 9n]]), [E.FENCED_INSTANCE_ID])
      assert.deepEqual(await replacement.commit([['t', 0, 10n]]), [E.NONE])
      assert.deepEqual(h.cluster.groupMembers('g').map(m => [m.memberId, m.groupInstanceId, m.isLeader]), [[replacement.memberId, 'i-1', true]])
      assert.equal(h.cluster.committedOffset('g', 't', 0)?.offset, 10n)
    })
  })
})

// ---------------------------------------------------------------------------------------
// KIP-848 helpers

class ConsumerMember {
  memberEpoch = 0
  owned: Array<{ topicId: string, partitions: number[] }> = []
  constructor (readonly client: Client, readonly cluster: FakeCluster, readonly groupId: string, readonly memberId: string, readonly topics: string[] = ['t'], readonly rebalanceTimeoutMs = 10_000) {}

  get coordinator (): number {
    return this.cluster.coordinatorOf(this.groupId)
  }

  async heartbeat (fields: Partial<ConsumerGroupHeartbeatRequest> = {}): Promise<ConsumerGroupHeartbeatResponse> {
    const joining = this.memberEpoch === 0
    const response = await this.client.request(ConsumerGroupHeartbeat, {
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      rebalanceTimeoutMs: joining ? this.rebalanceTimeoutMs : -1,
      subscribedTopicNames: joining ? this.topics : null,
      topicPartitions: this.owned,
      ...fields
    }, { nodeId: this.coordinator })
    if (response.errorCode === E.NONE && fields.memberEpoch === undefined) {
      this.memberEpoch = response.memberEpoch
      // A client takes a new assignment at once (revoking what it lost, owning what it got).
      if (response.assignment !== null) this.owned = response.assignment.topicPartitions
    }
    return response
  }

  partitions (): number[] {
    return this.owned.flatMap(tp => tp.partitions).sort((a, b) => a - b)
  }

  async commit (partitions: Array<[number, bigint]>, memberEpoch = this.memberEpoch, version?: number): Promise<number[]> {
    const response = await this.client.request(OffsetCommit, {
      groupId: this.groupId,
      generationIdOrMemberEpoch: memberEpoch,
      memberId: this.memberId,
      topics: [{ name: 't', topicId: this.cluster.topicId('t'), partitions: partitions.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedMetadata: null })) }]
    }, { nodeId: this.coordinator, version })
    return response.topics[0].partitions.map(p => p.errorCode)
  }
}

function held (cluster: FakeCluster, groupId: string): Record<string, { epoch: number | undefined, state: string, assigned: number[], revoking: number[] }> {
  const out: Record<string, { epoch: number | undefined, state: string, assigned: number[], revoking: number[] }> = {}
  for (const m of cluster.groupMembers(groupId)) out[m.memberId] = { epoch: m.memberEpoch, state: m.state, assigned: m.assigned.map(tp => tp.partition), revoking: m.pendingRevocation.map(tp => tp.partition) }
  return out
}

describe('KIP-848 consumer group protocol', () => {
  test('join, server-side assignment, and a handoff: no partition goes to its new owner before the old owner releases it', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const m1 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm1')
      const r1 = await m1.heartbeat()
      assert.deepEqual([r1.errorCode, r1.memberId, r1.memberEpoch, r1.heartbeatIntervalMs], [0, 'm1', 1, 5000])
      assert.deepEqual(m1.partitions(), [0, 1, 2, 3])
      assert.equal(r1.assignment?.topicPartitions[0].topicId, h.cluster.topicId('t'))

      const m2 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm2')
      const r2 = await m2.heartbeat()
      // Group epoch 2; m2's target partitions are still m1's: it gets nothing yet.
      assert.deepEqual([r2.memberEpoch, m2.partitions()], [2, []])
      assert.deepEqual(held(h.cluster, 'g'), {
        m1: { epoch: 1, state: 'stable', assigned: [0, 1, 2, 3], revoking: [] },
        m2: { epoch: 2, state: 'unreleased-partitions', assigned: [], revoking: [] }
      })

      // m1 is told to give up 1 and 3; it stays at epoch 1 until it stops owning them.
      const keepOwning = m1.owned
      const r3 = await m1.heartbeat()
      assert.deepEqual([r3.memberEpoch, r3.assignment?.topicPartitions[0].partitions], [1, [0, 2]])
      assert.deepEqual(held(h.cluster, 'g').m1, { epoch: 1, state: 'unrevoked-partitions', assigned: [0, 2], revoking: [1, 3] })
      // While m1 still reports owning 1 and 3, nothing moves.
      await m1.heartbeat({ memberEpoch: 1, topicPartitions: keepOwning })
      assert.deepEqual((await m2.heartbeat()).assignment, null)
      assert.deepEqual(m2.partitions(), [])

      // m1 releases them (its owned list no longer has 1 and 3) and reaches epoch 2.
      const r4 = await m1.heartbeat()
      assert.equal(r4.memberEpoch, 2)
      const r5 = await m2.heartbeat()
      assert.deepEqual([r5.memberEpoch, m2.partitions()], [2, [1, 3]])
      assert.deepEqual(held(h.cluster, 'g'), {
        m1: { epoch: 2, state: 'stable', assigned: [0, 2], revoking: [] },
        m2: { epoch: 2, state: 'stable', assigned: [1, 3], revoking: [] }
      })
      const info = h.cluster.group('g')!
      assert.deepEqual([info.protocol, info.state, info.groupEpoch, info.assignmentEpoch, info.assignor], ['consumer', 'Stable', 2, 2, 'uniform'])

      // m2 leaves: m1 gets everything back at epoch 3.
      const left = await m2.heartbeat({ memberEpoch: -1 })
      assert.deepEqual([left.errorCode, left.memberEpoch], [0, -1])
      const r6 = await m1.heartbeat()
      assert.deepEqual([r6.memberEpoch, m1.partitions()], [3, [0, 1, 2, 3]])
    })
  })

  test('epoch checks: FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, a lost response tolerated, bad requests refused', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 2 }] }, async h => {
      const m1 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm1')
      await m1.heartbeat()
      assert.equal((await m1.heartbeat({ memberEpoch: 5 })).errorCode, E.FENCED_MEMBER_EPOCH)
      const unknown = await m1.heartbeat({ memberId: 'nobody', memberEpoch: 3 })
      assert.equal(unknown.errorCode, E.UNKNOWN_MEMBER_ID)
      // The previous epoch with owned partitions inside the assignment: the response was lost.
      const m2 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm2')
      await m2.heartbeat()
      await m1.heartbeat() // revoke one partition
      await m1.heartbeat() // released: epoch 2
      assert.equal(m1.memberEpoch, 2)
      const retried = await m1.heartbeat({ memberEpoch: 1, topicPartitions: m1.owned })
      assert.deepEqual([retried.errorCode, retried.memberEpoch], [0, 2])
      // Without its owned partitions (not a full request) the previous epoch is refused, as Kafka refuses it.
      const unsaid = await m1.heartbeat({ memberEpoch: 1, topicPartitions: null })
      assert.equal(unsaid.errorCode, E.FENCED_MEMBER_EPOCH)
      const tooOld = await m1.heartbeat({ memberEpoch: 0, topicPartitions: [], rebalanceTimeoutMs: 1000, subscribedTopicNames: ['t'] })
      assert.equal(tooOld.errorCode, E.FENCED_MEMBER_EPOCH)

      assert.equal((await m1.heartbeat({ memberId: '' })).errorCode, E.INVALID_REQUEST)
      const noTimeout = await m1.client.request(ConsumerGroupHeartbeat, { groupId: 'g', memberId: 'm3', memberEpoch: 0, subscribedTopicNames: ['t'], topicPartitions: [] }, { nodeId: m1.coordinator })
      assert.deepEqual([noTimeout.errorCode, noTimeout.errorMessage], [E.INVALID_REQUEST, 'RebalanceTimeoutMs must be provided in first request.'])
      const assignor = await m1.client.request(ConsumerGroupHeartbeat, { groupId: 'g', memberId: 'm3', memberEpoch: 0, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['t'], serverAssignor: 'sticky', topicPartitions: [] }, { nodeId: m1.coordinator })
      assert.equal(assignor.errorCode, E.UNSUPPORTED_ASSIGNOR)
      const noGroup = await m1.client.request(ConsumerGroupHeartbeat, { groupId: 'none', memberId: 'm', memberEpoch: 4 }, { nodeId: h.cluster.coordinatorOf('none') })
      assert.equal(noGroup.errorCode, E.GROUP_ID_NOT_FOUND)
    })
  })

  test('a member that does not release revoked partitions within its rebalance timeout is fenced', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const m1 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm1', ['t'], 200)
      await m1.heartbeat()
      const allFour = m1.owned
      const m2 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm2')
      await m2.heartbeat()
      await m1.heartbeat({ memberEpoch: 1, topicPartitions: allFour }) // told to revoke; keeps owning
      assert.equal(held(h.cluster, 'g').m1.state, 'unrevoked-partitions')
      // m1's rebalance timeout is 200 ms.
      await waitFor('m1 to be fenced', () => Object.keys(held(h.cluster, 'g')).join() === 'm2')
      assert.ok(h.cluster.groupEvents('g').some(e => e.line.includes('did not release revoked partitions')))
      await m2.heartbeat()
      assert.deepEqual(m2.partitions(), [0, 1, 2, 3])
      assert.equal((await m1.heartbeat({ memberEpoch: 1 })).errorCode, E.UNKNOWN_MEMBER_ID)
    })
  })

  test('a session timeout and fenceMember() remove a member and free its partitions', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 2 }], groups: { consumerSessionTimeoutMs: 150, consumerHeartbeatIntervalMs: 50 } }, async h => {
      const m1 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm1')
      const m2 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm2')
      assert.equal((await m1.heartbeat()).heartbeatIntervalMs, 50)
      await m2.heartbeat()
      // Both silent: their 150 ms sessions expire.
      await waitFor('both sessions to expire', () => h.cluster.groupMembers('g').length === 0)
      assert.equal((await m1.heartbeat()).errorCode, E.UNKNOWN_MEMBER_ID)

      h.cluster.configureGroups({ consumerSessionTimeoutMs: 10_000 })
      const m3 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm3')
      await m3.heartbeat()
      assert.deepEqual(m3.partitions(), [0, 1])
      h.cluster.fenceMember('g', 'm3')
      assert.equal((await m3.heartbeat()).errorCode, E.UNKNOWN_MEMBER_ID)
      assert.throws(() => h.cluster.fenceMember('g', 'm3'), /no member "m3"/)
    })
  })

  test('the range assignor gives contiguous ranges; the uniform one deals round-robin', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }, { name: 'u', partitions: 2 }] }, async h => {
      const a = new ConsumerMember(await h.client(), h.cluster, 'r', 'a', ['t', 'u'])
      const b = new ConsumerMember(await h.client(), h.cluster, 'r', 'b', ['t', 'u'])
      await a.heartbeat({ serverAssignor: 'range' })
      await b.heartbeat({ serverAssignor: 'range' })
      const target = Object.fromEntries(h.cluster.groupMembers('r').map(m => [m.memberId, m.target.map(tp => `${tp.topic}-${tp.partition}`)]))
      assert.deepEqual(target, { a: ['t-0', 't-1', 'u-0'], b: ['t-2', 't-3', 'u-1'] })

      const c = new ConsumerMember(await h.client(), h.cluster, 'u', 'c', ['t', 'u'])
      const d = new ConsumerMember(await h.client(), h.cluster, 'u', 'd', ['t'])
      await c.heartbeat()
      await d.heartbeat()
      const uniform = Object.fromEntries(h.cluster.groupMembers('u').map(m => [m.memberId, m.target.map(tp => `${tp.topic}-${tp.partition}`)]))
      assert.deepEqual(uniform, { c: ['t-0', 't-2', 'u-0', 'u-1'], d: ['t-1', 't-3'] })
    })
  })
})

describe('OffsetCommit and OffsetFetch', () => {
  test('KIP-848 commits: current epoch accepted, newer epoch stale, older epoch only for partitions held since then, fenced member unknown', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 4 }] }, async h => {
      const m1 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm1')
      await m1.heartbeat() // epoch 1: 0-3
      assert.deepEqual(await m1.commit([[0, 10n], [1, 11n]]), [0, 0])
      assert.deepEqual(await m1.commit([[0, 12n]], 2), [E.STALE_MEMBER_EPOCH])
      assert.deepEqual(await m1.commit([[0, 12n]], 1, 8), [E.UNSUPPORTED_VERSION])

      const m2 = new ConsumerMember(await h.client(), h.cluster, 'g', 'm2')
      await m2.heartbeat()
      await m1.heartbeat() // revoking 1 and 3
      await m1.heartbeat() // released: epoch 2 with 0 and 2
      await m2.heartbeat() // epoch 2 with 1 and 3
      // m1 still at 2; a commit at its older epoch 1 is fine for partition 0 (held since epoch 1),
      // not for 1 (m2's now).
      assert.deepEqual(await m1.commit([[0, 13n], [1, 13n]], 1), [0, E.STALE_MEMBER_EPOCH])
      // m2 got 1 and 3 at epoch 2: a commit at epoch 1 is stale for them.
      assert.deepEqual(await m2.commit([[1, 20n]], 1), [E.STALE_MEMBER_EPOCH])
      assert.deepEqual(await m2.commit([[1, 21n], [3, 31n]]), [0, 0])
      // Unknown topic.
      const unknownTopic = await m1.client.request(OffsetCommit, { groupId: 'g', generationIdOrMemberEpoch: 2, memberId: 'm1', topics: [{ name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }] }, { nodeId: m1.coordinator, version: 9 })
      assert.equal(unknownTopic.topics[0].partitions[0].errorCode, E.UNKNOWN_TOPIC_OR_PARTITION)

      h.cluster.fenceMember('g', 'm1')
      assert.deepEqual(await m1.commit([[0, 99n]], 2), [E.UNKNOWN_MEMBER_ID])
      assert.deepEqual([0, 1, 2, 3].map(p => h.cluster.committedOffset('g', 't', p)?.offset), [13n, 21n, undefined, 31n])

      const log = h.cluster.commitLog('g')
      const refused = log.flatMap(e => e.partitions.filter(p => !p.accepted).map(p => [e.memberId, e.generationIdOrMemberEpoch, e.memberEpoch, p.partition, p.errorCode]))
      assert.deepEqual(refused, [
        ['m1', 2, 1, 0, E.STALE_MEMBER_EPOCH],
        ['m1', 1, 1, 0, E.UNSUPPORTED_VERSION],
        ['m1', 1, 2, 1, E.STALE_MEMBER_EPOCH],
        ['m2', 1, 2, 1, E.STALE_MEMBER_EPOCH],
        ['m1', 2, 2, 0, E.UNKNOWN_TOPIC_OR_PARTITION],
        ['m1', 2, undefined, 0, E.UNKNOWN_MEMBER_ID]
      ])

      // OffsetFetch v9 checks the member's epoch; v10 addresses topics by id.
      const stale = await m2.client.request(OffsetFetch, { groups: [{ groupId: 'g', memberId: 'm2', memberEpoch: 1, topics: null }] }, { nodeId: m2.coordinator, version: 9 })
      assert.equal(stale.groups[0].errorCode, E.STALE_MEMBER_EPOCH)
      const byId = await m2.client.request(OffsetFetch, { groups: [{ groupId: 'g', memberId: 'm2', memberEpoch: 2, topics: [{ topicId: h.cluster.topicId('t'), partitionIndexes: [1, 2] }] }] }, { nodeId: m2.coordinator, version: 10 })
      assert.deepEqual(byId.groups[0].topics[0].partitions.map(p => [p.partitionIndex, p.committedOffset, p.errorCode]), [[1, 21n, 0], [2, -1n, 0]])
    })
  })

  test('simple commits, unknown groups, and OffsetFetch across versions', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 2 }] }, async h => {
      const client = await h.client()
      const node = h.cluster.coordinatorOf('solo')
      const simple = await client.request(OffsetCommit, { groupId: 'solo', memberId: '', topics: [{ name: 't', topicId: h.cluster.topicId('t'), partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: 3, committedMetadata: 'meta' }] }] }, { nodeId: node })
      assert.equal(simple.topics[0].partitions[0].errorCode, E.NONE)
      assert.deepEqual(h.cluster.committedOffset('solo', 't', 0), { ...h.cluster.committedOffset('solo', 't', 0), offset: 42n, leaderEpoch: 3, metadata: 'meta' })
      assert.equal(h.cluster.commitLog('solo')[0].groupType, 'none')

      // A generation for a group that does not exist: ILLEGAL_GENERATION below v9, GROUP_ID_NOT_FOUND from v9.
      const ghost = h.cluster.coordinatorOf('ghost')
      const body = { groupId: 'ghost', generationIdOrMemberEpoch: 3, memberId: 'x', topics: [{ name: 't', topicId: h.cluster.topicId('t'), partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }] }
      assert.equal((await client.request(OffsetCommit, body, { nodeId: ghost, version: 8 })).topics[0].partitions[0].errorCode, E.ILLEGAL_GENERATION)
      assert.equal((await client.request(OffsetCommit, body, { nodeId: ghost, version: 9 })).topics[0].partitions[0].errorCode, E.GROUP_ID_NOT_FOUND)

      const v1 = await client.request(OffsetFetch, { groupId: 'solo', topics: [{ name: 't', partitionIndexes: [0, 1] }] }, { nodeId: node, version: 1 })
      assert.deepEqual(v1.topics[0].partitions.map(p => [p.partitionIndex, p.committedOffset, p.metadata]), [[0, 42n, 'meta'], [1, -1n, '']])
      const v7all = await client.request(OffsetFetch, { groupId: 'solo', topics: null }, { nodeId: node, version: 7 })
      assert.deepEqual(v7all.topics.map(t => [t.name, t.partitions.map(p => [p.partitionIndex, p.committedOffset, p.committedLeaderEpoch])]), [['t', [[0, 42n, 3]]]])
      const v8 = await client.request(OffsetFetch, { groups: [{ groupId: 'solo', topics: [{ name: 't', partitionIndexes: [0] }] }, { groupId: 'unknown', topics: [{ name: 't', partitionIndexes: [0] }] }] }, { nodeId: node, version: 8 })
      assert.deepEqual(v8.groups.map(g => [g.groupId, g.errorCode, g.topics[0].partitions[0].committedOffset]), [['solo', 0, 42n], ['unknown', 0, -1n]])
    })
  })
})

describe('every version', () => {
  test('every version of every group API is answered', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 2 }] }, async h => {
      const client = await h.client()
      const topicId = h.cluster.topicId('t')
      const node = { nodeId: 1 }
      for (let v = FindCoordinator.minVersion; v <= FindCoordinator.maxVersion; v++) {
        const r = await client.request(FindCoordinator, { key: 'g', keyType: 0, coordinatorKeys: ['g'] }, { ...node, version: v })
        assert.equal(v >= 4 ? r.coordinators[0].nodeId : r.nodeId, 1, `FindCoordinator v${v}`)
      }
      for (let v = JoinGroup.minVersion; v <= JoinGroup.maxVersion; v++) {
        const groupId = `classic-v${v}`
        const join = async (memberId: string): Promise<JoinGroupResponse> => await client.request(JoinGroup, {
          groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId, protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['t']) }]
        }, { ...node, version: v })
        let joined = await join('')
        assert.equal(joined.errorCode, v >= 4 ? E.MEMBER_ID_REQUIRED : E.NONE, `JoinGroup v${v}`)
        if (v >= 4) joined = await join(joined.memberId)
        assert.deepEqual([joined.errorCode, joined.generationId, joined.protocolName], [0, 1, 'range'], `JoinGroup v${v}`)
        const memberId = joined.memberId
        const sv = Math.min(v, SyncGroup.maxVersion)
        const synced = await client.request(SyncGroup, { groupId, generationId: 1, memberId, assignments: [{ memberId, assignment: assignment('t', [0, 1]) }] }, { ...node, version: sv })
        assert.deepEqual(decodeAssignment(synced.assignment).assignedPartitions, [{ topic: 't', partitions: [0, 1] }], `SyncGroup v${sv}`)
        const hv = Math.min(v, Heartbeat.maxVersion)
        assert.equal((await client.request(Heartbeat, { groupId, generationId: 1, memberId }, { ...node, version: hv })).errorCode, 0, `Heartbeat v${hv}`)
        const cv = Math.max(OffsetCommit.minVersion, Math.min(v + 1, OffsetCommit.maxVersion))
        const committed = await client.request(OffsetCommit, { groupId, generationIdOrMemberEpoch: 1, memberId, topics: [{ name: 't', topicId, partitions: [{ partitionIndex: 1, committedOffset: BigInt(v), committedMetadata: null }] }] }, { ...node, version: cv })
        assert.equal(committed.topics[0].partitions[0].errorCode, 0, `OffsetCommit v${cv}`)
        const lv = Math.min(v, LeaveGroup.maxVersion)
        const left = await client.request(LeaveGroup, { groupId, memberId, members: [{ memberId }] }, { ...node, version: lv })
        assert.equal(lv >= 3 ? left.members[0].errorCode : left.errorCode, 0, `LeaveGroup v${lv}`)
        assert.equal(h.cluster.committedOffset(groupId, 't', 1)?.offset, BigInt(v))
      }
      for (let v = OffsetFetch.minVersion; v <= OffsetFetch.maxVersion; v++) {
        const topics = [{ name: 't', topicId, partitionIndexes: [1] }]
        const r = await client.request(OffsetFetch, { groupId: 'classic-v3', topics, groups: [{ groupId: 'classic-v3', topics }] }, { ...node, version: v })
        const partition = v >= 8 ? r.groups[0].topics[0].partitions[0] : r.topics[0].partitions[0]
        assert.deepEqual([partition.errorCode, partition.committedOffset], [0, 3n], `OffsetFetch v${v}`)
      }
      for (let v = ConsumerGroupHeartbeat.minVersion; v <= ConsumerGroupHeartbeat.maxVersion; v++) {
        const r = await client.request(ConsumerGroupHeartbeat, { groupId: `consumer-v${v}`, memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 1000, subscribedTopicNames: v === 0 ? ['t'] : null, subscribedTopicRegex: v === 1 ? 't.*' : null, topicPartitions: [] }, { ...node, version: v })
        assert.deepEqual([r.errorCode, r.memberEpoch, r.assignment?.topicPartitions[0].partitions], [0, 1, [0, 1]], `ConsumerGroupHeartbeat v${v}`)
      }
      for (let v = ListGroups.minVersion; v <= ListGroups.maxVersion; v++) {
        const r = await client.request(ListGroups, {}, { ...node, version: v })
        assert.equal(r.groups.length, 12, `ListGroups v${v}`)
      }
      for (let v = DescribeGroups.minVersion; v <= DescribeGroups.maxVersion; v++) {
        const r = await client.request(DescribeGroups, { groups: ['classic-v9'] }, { ...node, version: v })
        assert.deepEqual([r.groups[0].errorCode, r.groups[0].groupState], [0, 'Empty'], `DescribeGroups v${v}`)
      }
      for (let v = ConsumerGroupDescribe.minVersion; v <= ConsumerGroupDescribe.maxVersion; v++) {
        const r = await client.request(ConsumerGroupDescribe, { groupIds: ['consumer-v1'] }, { ...node, version: v })
        assert.deepEqual([r.groups[0].errorCode, r.groups[0].members[0].subscribedTopicRegex], [0, 't.*'], `ConsumerGroupDescribe v${v}`)
      }
      for (let v = DeleteGroups.minVersion; v <= DeleteGroups.maxVersion; v++) {
        const r = await client.request(DeleteGroups, { groupsNames: [`classic-v${v}`] }, { ...node, version: v })
        assert.equal(r.results[0].errorCode, 0, `DeleteGroups v${v}`)
      }
    })
  })
})

describe('group admin APIs', () => {
  test('ListGroups, DescribeGroups, ConsumerGroupDescribe and DeleteGroups', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 2 }] }, async h => {
      const classic = await stableGroupOfOne(h, 'c')
      const k = new ConsumerMember(await h.client(), h.cluster, 'k', 'm1')
      await k.heartbeat()
      const admin = await h.client()
      await admin.request(OffsetCommit, { groupId: 'solo', memberId: '', topics: [{ name: 't', topicId: h.cluster.topicId('t'), partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }] }, { nodeId: 1 })

      const listed = await admin.request(ListGroups, { statesFilter: [], typesFilter: [] }, { nodeId: 1 })
      assert.deepEqual(listed.groups.map(g => [g.groupId, g.groupType, g.groupState, g.protocolType]).sort(),
        [['c', 'classic', 'Stable', 'consumer'], ['k', 'consumer', 'Stable', 'consumer'], ['solo', 'classic', 'Empty', '']])
      const stableOnly = await admin.request(ListGroups, { statesFilter: ['stable'], typesFilter: ['consumer'] }, { nodeId: 1 })
      assert.deepEqual(stableOnly.groups.map(g => g.groupId), ['k'])

      const described = await admin.request(DescribeGroups, { groups: ['c', 'k'] }, { nodeId: 1 })
      assert.deepEqual(described.groups.map(g => [g.groupId, g.errorCode, g.groupState, g.protocolData]), [['c', 0, 'Stable', 'range'], ['k', E.GROUP_ID_NOT_FOUND, '', '']])
      assert.deepEqual(described.groups[0].members.map(m => [m.memberId, decodeAssignment(m.memberAssignment).assignedPartitions[0].partitions]), [[classic.memberId, [0, 1, 2, 3]]])
      const old = await admin.request(DescribeGroups, { groups: ['nope'] }, { nodeId: 1, version: 5 })
      assert.deepEqual([old.groups[0].errorCode, old.groups[0].groupState], [0, 'Dead'])

      const cg = await admin.request(ConsumerGroupDescribe, { groupIds: ['k', 'c'] }, { nodeId: 1 })
      assert.deepEqual(cg.groups.map(g => [g.groupId, g.errorCode, g.groupState, g.groupEpoch, g.assignmentEpoch, g.assignorName]), [['k', 0, 'Stable', 1, 1, 'uniform'], ['c', E.GROUP_ID_NOT_FOUND, '', -1, -1, '']])
      assert.deepEqual(cg.groups[0].members.map(m => [m.memberId, m.memberEpoch, m.assignment.topicPartitions.map(tp => [tp.topicName, tp.partitions])]), [['m1', 1, [['t', [0, 1]]]]])

      const deleted = await admin.request(DeleteGroups, { groupsNames: ['c', 'solo', 'nope'] }, { nodeId: 1 })
      assert.deepEqual(deleted.results.map(r => [r.groupId, r.errorCode]), [['c', E.NON_EMPTY_GROUP], ['solo', 0], ['nope', E.GROUP_ID_NOT_FOUND]])
      assert.equal(h.cluster.committedOffset('solo', 't', 0), undefined)
      assert.deepEqual(h.cluster.groupIds.sort(), ['c', 'k'])
    })
  })
})

describe('interception of the group APIs', () => {
  test('intercept() answers, modifies or delays any group API', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 2 }] }, async h => {
      const a = await stableGroupOfOne(h, 'g')
      h.cluster.intercept(Heartbeat, () => ({ error: E.REBALANCE_IN_PROGRESS }), { times: 1 })
      assert.equal(await a.heartbeat(), E.REBALANCE_IN_PROGRESS)
      assert.equal(await a.heartbeat(), E.NONE)

      // A commit that is applied but answered NOT_COORDINATOR: stored, and the log shows it.
      h.cluster.intercept(OffsetCommit, () => ({ error: E.NOT_COORDINATOR, apply: true }), { times: 1 })
      assert.deepEqual(await a.commit([['t', 0, 5n]]), [E.NOT_COORDINATOR])
      assert.equal(h.cluster.committedOffset('g', 't', 0)?.offset, 5n)
      assert.equal(h.cluster.commitLog('g').at(-1)?.partitions[0].accepted, true)

      h.cluster.intercept(ConsumerGroupHeartbeat, () => ({ modify: (r: ConsumerGroupHeartbeatResponse) => ({ ...r, heartbeatIntervalMs: 7 }) }), { times: 1 })
      const m = new ConsumerMember(await h.client(), h.cluster, 'k', 'm')
      assert.equal((await m.heartbeat()).heartbeatIntervalMs, 7)

      h.cluster.intercept(FindCoordinator, () => ({ error: 15 }), { times: 1 })
      const found = await a.client.request(FindCoordinator, { keyType: 0, coordinatorKeys: ['g'] })
      assert.deepEqual(found.coordinators.map(c => [c.key, c.errorCode]), [['g', 15]])
    })
  })
})

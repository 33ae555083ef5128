/**
 * The fake cluster's group coordinator: which broker coordinates each group, the groups
 * themselves (groups-classic.ts for JoinGroup/SyncGroup/Heartbeat/LeaveGroup,
 * groups-consumer.ts for KIP-848's ConsumerGroupHeartbeat), committed offsets and the
 * commit log (offsets.ts). Handlers (handlers/join-group.ts …) turn wire requests into
 * calls here; FakeCluster exposes the inspection and control methods.
 *
 * The coordinator of a group is one broker, chosen as Kafka does in spirit: the group
 * id's Java hashCode picks a __consumer_offsets partition (50 of them), whose leader is
 * broker (partition % brokers) + 1. `setCoordinator` overrides it. Group requests sent to
 * any other broker get NOT_COORDINATOR (16). The state is shared: moving the coordinator
 * keeps the group (as Kafka reloads it from __consumer_offsets) but answers the joins and
 * syncs waiting at the old one with NOT_COORDINATOR.
 *
 * A group is classic or consumer. A join of the other protocol to an empty group
 * replaces it (Kafka converts empty groups); to a non-empty one it is refused:
 * INCONSISTENT_GROUP_PROTOCOL for a JoinGroup to a consumer group, GROUP_ID_NOT_FOUND for
 * a ConsumerGroupHeartbeat to a classic group (Kafka 4.4 can migrate a live group between
 * protocols; the fake cannot).
 */
import { randomUUID } from 'node:crypto'
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, decodeSubscription } from '../protocol/consumer-protocol'
import { DEFAULT_GROUP_CONFIG, GroupError, sortPartitions, type GroupConfig, type GroupEnv, type TopicPartition } from './group-common'
import { GroupTimers } from './group-timers'
import { ClassicGroup, type ClassicJoinAnswer, type ClassicJoinRequest, type ClassicSyncAnswer, type ClassicSyncRequest } from './groups-classic'
import { compileRegex, ConsumerGroup, SERVER_ASSIGNORS, type ConsumerHeartbeatAnswer, type ConsumerHeartbeatRequest } from './groups-consumer'
import { OffsetStore, type CommitLogEntry, type CommitLogPartition, type CommittedOffset } from './offsets'
import type { ClusterState } from './state'

export type Group = ClassicGroup | ConsumerGroup

/** Kafka's offsets.topic.num.partitions default. */
const OFFSETS_PARTITIONS = 50

/** A member as `cluster.groupMembers()` shows it. */
export interface GroupMemberInfo {
  /** The member's id. */
  memberId: string
  /** Its static instance id; null for a dynamic member. */
  groupInstanceId: string | null
  /** The group protocol it is a member under: 'classic' or 'consumer' (KIP-848). */
  protocol: 'classic' | 'consumer'
  /** Classic: the group's generation. */
  generationId?: number
  /** Consumer: the member's epoch. */
  memberEpoch?: number
  /** Classic: whether it leads; consumer: undefined. */
  isLeader?: boolean
  /** Classic: Empty/PreparingRebalance/…; consumer: stable, unrevoked-partitions, unreleased-partitions. */
  state: string
  /** The partitions it holds: classic, decoded from its assignment bytes (consumer protocol); consumer, its assigned partitions. */
  assigned: TopicPartition[]
  /** Consumer: partitions it must still release. */
  pendingRevocation: TopicPartition[]
  /** Consumer: its target assignment. */
  target: TopicPartition[]
  /** Classic: the raw assignment bytes from the last sync. */
  assignment?: Buffer
  /** Classic: the subscribed topics decoded from its metadata for the chosen protocol. */
  subscribedTopics: string[]
}

/** A group as the fake coordinator holds it (`cluster.group()`): its protocol, state, epochs and members. */
export interface GroupInfo {
  /** The group's id. */
  groupId: string
  /** The group's protocol: 'classic' or 'consumer' (KIP-848). */
  protocol: 'classic' | 'consumer'
  /** Classic: Empty, PreparingRebalance, CompletingRebalance, Stable; consumer: Empty, Assigning, Reconciling, Stable. */
  state: string
  /** The node id of its coordinator. */
  coordinator: number
  /** Classic: the generation. */
  generationId?: number
  /** Classic: the leader's member id; null while there is none. */
  leader?: string | null
  /** Classic: the protocol type the members joined with (e.g. 'consumer'); null before the first join. */
  protocolType?: string | null
  /** Classic: the protocol (assignor) chosen for the generation; null before one was. */
  protocolName?: string | null
  /** Consumer: the group epoch and the target assignment's epoch. */
  groupEpoch?: number
  /** Consumer: the target assignment's epoch. */
  assignmentEpoch?: number
  /** Consumer: the server-side assignor in use. */
  assignor?: string
  /** Its members, in join order. */
  members: GroupMemberInfo[]
}

/** One thing the fake group coordinator did (`cluster.groupEvents()`), for debugging a test. */
export interface GroupEvent {
  /** Date.now() when it happened. */
  at: number
  /** The group it concerns. */
  groupId: string
  /** What happened, for people. */
  line: string
}

export type OffsetCommitOutcome = Array<{ topic: string, topicId: string, partitions: Array<{ partitionIndex: number, errorCode: number }> }>

export class GroupCoordinator {
  readonly #state: ClusterState
  readonly #timers: GroupTimers
  readonly config: GroupConfig
  readonly #env: GroupEnv
  readonly #groups = new Map<string, Group>()
  readonly #coordinators = new Map<string, number>()
  readonly offsets = new OffsetStore()
  readonly commitLog: CommitLogEntry[] = []
  readonly events: GroupEvent[] = []

  constructor (state: ClusterState, config: Partial<GroupConfig> = {}) {
    this.#state = state
    this.config = { ...DEFAULT_GROUP_CONFIG, ...config }
    this.#timers = new GroupTimers((key, error) => state.log(`group timer ${key} failed: ${(error as Error).stack ?? String(error)}`))
    this.#env = {
      state,
      timers: this.#timers,
      config: this.config,
      event: (groupId, line) => { this.events.push({ at: Date.now(), groupId, line }) }
    }
  }

  // -----------------------------------------------------------------------------------
  // Coordinators

  coordinatorFor (groupId: string): number {
    const chosen = this.#coordinators.get(groupId)
    if (chosen !== undefined) return chosen
    const partition = Math.abs(javaHashCode(groupId)) % OFFSETS_PARTITIONS
    return this.#state.brokers[partition % this.#state.brokers.length].nodeId
  }

  setCoordinator (groupId: string, nodeId: number): void {
    if (this.#state.broker(nodeId) === undefined) throw new Error(`setCoordinator: no broker ${nodeId}`)
    const before = this.coordinatorFor(groupId)
    this.#coordinators.set(groupId, nodeId)
    const group = this.#groups.get(groupId)
    if (before !== nodeId && group instanceof ClassicGroup) group.failWaiting(GroupError.NOT_COORDINATOR)
    if (before !== nodeId) this.#env.event(groupId, `coordinator moves from broker ${before} to broker ${nodeId}`)
  }

  #notCoordinator (brokerId: number, groupId: string): boolean {
    return this.coordinatorFor(groupId) !== brokerId
  }

  // -----------------------------------------------------------------------------------
  // Classic protocol

  async join (brokerId: number, groupId: string, request: ClassicJoinRequest): Promise<ClassicJoinAnswer> {
    const error = (errorCode: number): ClassicJoinAnswer => ({ errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId: request.memberId, members: [] })
    if (this.#notCoordinator(brokerId, groupId)) return error(GroupError.NOT_COORDINATOR)
    if (groupId === '') return error(GroupError.INVALID_GROUP_ID)
    if (request.sessionTimeoutMs < this.config.minSessionTimeoutMs || request.sessionTimeoutMs > this.config.maxSessionTimeoutMs) return error(GroupError.INVALID_SESSION_TIMEOUT)
    let group = this.#groups.get(groupId)
    if (group instanceof ConsumerGroup) {
      if (!group.isEmpty) return error(GroupError.INCONSISTENT_GROUP_PROTOCOL)
      this.#dropGroup(group)
      group = undefined
    }
    if (group === undefined) {
      // A join with a member id needs the group to exist already.
      if (request.memberId !== '') return error(GroupError.UNKNOWN_MEMBER_ID)
      group = new ClassicGroup(groupId, this.#env)
      this.#groups.set(groupId, group)
    }
    return await group.join(request)
  }

  async sync (brokerId: number, groupId: string, request: ClassicSyncRequest): Promise<ClassicSyncAnswer> {
    const error = (errorCode: number): ClassicSyncAnswer => ({ errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) })
    if (this.#notCoordinator(brokerId, groupId)) return error(GroupError.NOT_COORDINATOR)
    const group = this.#groups.get(groupId)
    if (!(group instanceof ClassicGroup)) return error(GroupError.UNKNOWN_MEMBER_ID)
    return await group.sync(request)
  }

  heartbeat (brokerId: number, groupId: string, memberId: string, groupInstanceId: string | null, generationId: number): number {
    if (this.#notCoordinator(brokerId, groupId)) return GroupError.NOT_COORDINATOR
    const group = this.#groups.get(groupId)
    if (!(group instanceof ClassicGroup)) return GroupError.UNKNOWN_MEMBER_ID
    return group.heartbeat(memberId, groupInstanceId, generationId)
  }

  /** LeaveGroup: the top-level error and one error per member. */
  leave (brokerId: number, groupId: string, members: Array<{ memberId: string, groupInstanceId: string | null }>): { errorCode: number, members: number[] } {
    if (this.#notCoordinator(brokerId, groupId)) return { errorCode: GroupError.NOT_COORDINATOR, members: [] }
    const group = this.#groups.get(groupId)
    if (!(group instanceof ClassicGroup)) return { errorCode: GroupError.UNKNOWN_MEMBER_ID, members: [] }
    return { errorCode: GroupError.NONE, members: group.leave(members) }
  }

  // -----------------------------------------------------------------------------------
  // KIP-848

  consumerHeartbeat (brokerId: number, version: number, groupId: string, request: ConsumerHeartbeatRequest): ConsumerHeartbeatAnswer {
    const error = (errorCode: number, errorMessage: string | null = null): ConsumerHeartbeatAnswer => ({ errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null })
    if (this.#notCoordinator(brokerId, groupId)) return error(GroupError.NOT_COORDINATOR)
    const invalid = validateConsumerHeartbeat(version, groupId, request)
    if (invalid !== undefined) return error(invalid.errorCode, invalid.message)
    let group = this.#groups.get(groupId)
    if (group instanceof ClassicGroup) {
      if (!group.isEmpty || request.memberEpoch !== 0) return error(GroupError.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`)
      this.#dropGroup(group)
      group = undefined
    }
    if (group === undefined) {
      if (request.memberEpoch !== 0) {
        return error(GroupError.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`)
      }
      group = new ConsumerGroup(groupId, this.#env)
      this.#groups.set(groupId, group)
    }
    if (request.memberId === '') request = { ...request, memberId: randomUUID() }
    return group.heartbeat(request)
  }

  // -----------------------------------------------------------------------------------
  // Offsets

  /**
   * OffsetCommit, after Kafka 4.4's OffsetMetadataManager: the membership check first
   * (it refuses the whole request), then per partition: the topic must exist
   * (UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID), the metadata fit, and for a KIP-848
   * member committing with an older epoch, the partition must be one it holds since at
   * most that epoch (STALE_MEMBER_EPOCH).
   */
  commit (brokerId: number, version: number, request: {
    groupId: string
    generationIdOrMemberEpoch: number
    memberId: string
    groupInstanceId: string | null
    topics: Array<{ name?: string, topicId?: string, partitions: Array<{ partitionIndex: number, committedOffset: bigint, committedLeaderEpoch?: number, committedMetadata: string | null }> }>
  }): OffsetCommitOutcome {
    const { groupId, generationIdOrMemberEpoch: epoch, memberId, groupInstanceId } = request
    const group = this.#groups.get(groupId)
    const entry: CommitLogEntry = {
      groupId,
      brokerId,
      version,
      receivedAt: Date.now(),
      memberId,
      generationIdOrMemberEpoch: epoch,
      groupInstanceId,
      groupType: group === undefined ? 'none' : group.type,
      groupGeneration: group instanceof ClassicGroup ? group.generationId : undefined,
      memberEpoch: group instanceof ConsumerGroup ? group.members.get(memberId)?.memberEpoch : undefined,
      errorCode: GroupError.NONE,
      partitions: []
    }
    this.commitLog.push(entry)

    let partitionError: (topicId: string, partition: number) => number = () => GroupError.NONE
    const refusal = this.#notCoordinator(brokerId, groupId) ? GroupError.NOT_COORDINATOR : this.#validateCommit(group, groupId, version, request, check => { partitionError = check })
    entry.errorCode = refusal

    const outcome: OffsetCommitOutcome = []
    for (const t of request.topics) {
      const topic = t.topicId !== undefined && version >= 10 ? this.#state.topicById(t.topicId) : this.#state.topic(t.name ?? '')
      const topicName = topic?.name ?? t.name ?? ''
      const topicId = topic?.topicId ?? t.topicId ?? ''
      const partitions = t.partitions.map(p => {
        let errorCode: number = refusal
        if (errorCode === GroupError.NONE) {
          if (topic === undefined) errorCode = version >= 10 ? GroupError.UNKNOWN_TOPIC_ID : GroupError.UNKNOWN_TOPIC_OR_PARTITION
          else if (p.partitionIndex < 0 || p.partitionIndex >= topic.partitions.length) errorCode = GroupError.UNKNOWN_TOPIC_OR_PARTITION
          else if (p.committedMetadata !== null && Buffer.byteLength(p.committedMetadata) > this.config.offsetMetadataMaxBytes) errorCode = GroupError.OFFSET_METADATA_TOO_LARGE
          else errorCode = partitionError(topic.topicId, p.partitionIndex)
        }
        const leaderEpoch = p.committedLeaderEpoch ?? -1
        const logged: CommitLogPartition = { topic: topicName, topicId, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch, metadata: p.committedMetadata, errorCode, accepted: errorCode === GroupError.NONE }
        entry.partitions.push(logged)
        if (logged.accepted) this.offsets.put(groupId, topicName, p.partitionIndex, { offset: p.committedOffset, leaderEpoch, metadata: p.committedMetadata ?? '', committedAt: entry.receivedAt })
        return { partitionIndex: p.partitionIndex, errorCode }
      })
      outcome.push({ topic: topicName, topicId, partitions })
    }
    const accepted = entry.partitions.filter(p => p.accepted).length
    this.#env.event(groupId, `OffsetCommit v${version} from ${memberId || '(no member)'} at ${epoch}: ${accepted}/${entry.partitions.length} stored${refusal === GroupError.NONE ? '' : `, refused with ${refusal}`}`)
    return outcome
  }

  #validateCommit (group: Group | undefined, groupId: string, version: number,
    request: { generationIdOrMemberEpoch: number, memberId: string, groupInstanceId: string | null },
    setPartitionCheck: (check: (topicId: string, partition: number) => number) => void): number {
    const epoch = request.generationIdOrMemberEpoch
    if (group === undefined) {
      // A commit from outside any membership creates a simple (empty classic) group.
      if (epoch < 0) {
        this.#groups.set(groupId, new ClassicGroup(groupId, this.#env))
        return GroupError.NONE
      }
      return version >= 9 ? GroupError.GROUP_ID_NOT_FOUND : GroupError.ILLEGAL_GENERATION
    }
    if (group instanceof ConsumerGroup) {
      const verdict = group.validateCommit(request.memberId, epoch, version)
      if ('errorCode' in verdict) return verdict.errorCode
      setPartitionCheck(verdict.partitionError)
      return GroupError.NONE
    }
    // Classic (ClassicGroup.validateOffsetCommit).
    if (epoch < 0 && group.state === 'Empty') return GroupError.NONE
    if (epoch >= 0 || request.memberId !== '' || request.groupInstanceId !== null) {
      const invalid = group.validateMember(request.memberId, request.groupInstanceId)
      if (invalid !== GroupError.NONE) return invalid
      if (epoch !== group.generationId) return GroupError.ILLEGAL_GENERATION
    } else if (group.state !== 'Empty') {
      return GroupError.UNKNOWN_MEMBER_ID
    }
    if (group.state === 'CompletingRebalance') return GroupError.REBALANCE_IN_PROGRESS
    // An accepted commit counts as a heartbeat in Stable and PreparingRebalance.
    group.touch(request.memberId)
    return GroupError.NONE
  }

  /** The membership check of a TxnOffsetCommit (KIP-447): OffsetCommit v9's, without storing anything. */
  validateMembership (brokerId: number, groupId: string, memberId: string, epoch: number, groupInstanceId: string | null): number {
    if (this.#notCoordinator(brokerId, groupId)) return GroupError.NOT_COORDINATOR
    const group = this.#groups.get(groupId)
    if (group === undefined) return epoch < 0 ? GroupError.NONE : GroupError.ILLEGAL_GENERATION
    return this.#validateCommit(group, groupId, 9, { generationIdOrMemberEpoch: epoch, memberId, groupInstanceId }, () => {})
  }

  /**
   * OffsetFetch of one group: a group-level error (NOT_COORDINATOR; for KIP-848 members
   * v9+, UNKNOWN_MEMBER_ID / STALE_MEMBER_EPOCH) or the committed offsets (-1 where none).
   * `topics` null: every partition with a committed offset.
   */
  fetchOffsets (brokerId: number, version: number, groupId: string, memberId: string | null, memberEpoch: number,
    topics: Array<{ name?: string, topicId?: string, partitionIndexes: number[] }> | null): {
      errorCode: number
      topics: Array<{ name: string, topicId: string, partitions: Array<{ partitionIndex: number, committedOffset: bigint, committedLeaderEpoch: number, metadata: string | null, errorCode: number }> }>
    } {
    if (this.#notCoordinator(brokerId, groupId)) return { errorCode: GroupError.NOT_COORDINATOR, topics: [] }
    const group = this.#groups.get(groupId)
    if (group instanceof ConsumerGroup && version >= 9) {
      const invalid = group.validateFetch(memberId, memberEpoch)
      if (invalid !== GroupError.NONE) return { errorCode: invalid, topics: [] }
    }
    const answer = (partitionIndex: number, committed: CommittedOffset | undefined, errorCode: number = GroupError.NONE): { partitionIndex: number, committedOffset: bigint, committedLeaderEpoch: number, metadata: string | null, errorCode: number } =>
      ({ partitionIndex, committedOffset: committed?.offset ?? -1n, committedLeaderEpoch: committed?.leaderEpoch ?? -1, metadata: committed?.metadata ?? '', errorCode })
    if (topics === null) {
      return {
        errorCode: GroupError.NONE,
        topics: [...this.offsets.all(groupId)].map(([name, list]) => ({
          name,
          topicId: this.#state.topic(name)?.topicId ?? '00000000-0000-0000-0000-000000000000',
          partitions: list.map(({ partition, committed }) => answer(partition, committed))
        }))
      }
    }
    return {
      errorCode: GroupError.NONE,
      topics: topics.map(t => {
        const topic = t.topicId !== undefined && version >= 10 ? this.#state.topicById(t.topicId) : this.#state.topic(t.name ?? '')
        if (topic === undefined && version >= 10) {
          return { name: '', topicId: t.topicId ?? '', partitions: t.partitionIndexes.map(p => answer(p, undefined, GroupError.UNKNOWN_TOPIC_ID)) }
        }
        const name = topic?.name ?? t.name ?? ''
        return { name, topicId: topic?.topicId ?? t.topicId ?? '', partitions: t.partitionIndexes.map(p => answer(p, this.offsets.get(groupId, name, p))) }
      })
    }
  }

  // -----------------------------------------------------------------------------------
  // Admin: ListGroups, DescribeGroups, ConsumerGroupDescribe, DeleteGroups

  /** The groups this broker coordinates. */
  listGroups (brokerId: number): Array<{ groupId: string, protocolType: string, groupState: string, groupType: 'classic' | 'consumer' }> {
    return [...this.#groups.values()]
      .filter(g => this.coordinatorFor(g.groupId) === brokerId)
      .map(g => ({
        groupId: g.groupId,
        protocolType: g instanceof ClassicGroup ? g.protocolType ?? '' : CONSUMER_PROTOCOL_TYPE,
        groupState: g.state,
        groupType: g.type
      }))
  }

  /** DescribeGroups of a classic group: members with metadata and assignment while Stable. */
  describeClassic (brokerId: number, groupId: string): { errorCode: number, errorMessage: string | null, group?: ClassicGroup } {
    if (this.#notCoordinator(brokerId, groupId)) return { errorCode: GroupError.NOT_COORDINATOR, errorMessage: null }
    const group = this.#groups.get(groupId)
    if (!(group instanceof ClassicGroup)) return { errorCode: GroupError.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.` }
    return { errorCode: GroupError.NONE, errorMessage: null, group }
  }

  /** ConsumerGroupDescribe of a KIP-848 group. */
  describeConsumer (brokerId: number, groupId: string): { errorCode: number, errorMessage: string | null, group?: ConsumerGroup } {
    if (this.#notCoordinator(brokerId, groupId)) return { errorCode: GroupError.NOT_COORDINATOR, errorMessage: null }
    const group = this.#groups.get(groupId)
    if (!(group instanceof ConsumerGroup)) return { errorCode: GroupError.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.` }
    return { errorCode: GroupError.NONE, errorMessage: null, group }
  }

  /** DeleteGroups: an empty group and its offsets go; NON_EMPTY_GROUP (68) while it has members. */
  deleteGroup (brokerId: number, groupId: string): number {
    if (this.#notCoordinator(brokerId, groupId)) return GroupError.NOT_COORDINATOR
    const group = this.#groups.get(groupId)
    if (group === undefined) {
      if (!this.offsets.hasGroup(groupId)) return GroupError.GROUP_ID_NOT_FOUND
    } else {
      if (!group.isEmpty || (group instanceof ClassicGroup && group.pendingMembers.size > 0)) return GroupError.NON_EMPTY_GROUP
      this.#dropGroup(group)
    }
    this.offsets.deleteGroup(groupId)
    this.#env.event(groupId, 'deleted')
    return GroupError.NONE
  }

  // -----------------------------------------------------------------------------------
  // Inspection and control

  group (groupId: string): Group | undefined {
    return this.#groups.get(groupId)
  }

  get groupIds (): string[] {
    return [...this.#groups.keys()]
  }

  info (groupId: string): GroupInfo | undefined {
    const group = this.#groups.get(groupId)
    if (group === undefined) return undefined
    if (group instanceof ClassicGroup) {
      return {
        groupId,
        protocol: 'classic',
        state: group.state,
        coordinator: this.coordinatorFor(groupId),
        generationId: group.generationId,
        leader: group.leaderId,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        members: [...group.members.values()].map(m => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          protocol: 'classic',
          generationId: group.generationId,
          isLeader: group.leaderId === m.memberId,
          state: group.state,
          assigned: this.#decode(group, () => sortPartitions(decodeAssignment(m.assignment).assignedPartitions.flatMap(tp => tp.partitions.map(partition => ({ topic: tp.topic, partition })))), []),
          pendingRevocation: [],
          target: [],
          assignment: m.assignment,
          subscribedTopics: this.#decode(group, () => {
            const metadata = m.protocols.find(p => p.name === group.protocolName)?.metadata ?? m.protocols[0]?.metadata
            return metadata === undefined ? [] : decodeSubscription(metadata).topics
          }, [])
        }))
      }
    }
    return {
      groupId,
      protocol: 'consumer',
      state: group.state,
      coordinator: this.coordinatorFor(groupId),
      groupEpoch: group.groupEpoch,
      assignmentEpoch: group.assignmentEpoch,
      assignor: group.assignor,
      members: [...group.members.values()].map(m => ({
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        protocol: 'consumer',
        memberEpoch: m.memberEpoch,
        state: m.state,
        assigned: group.partitionsOf(m.assigned),
        pendingRevocation: group.partitionsOf(m.pendingRevocation),
        target: group.partitionsOf(group.target.get(m.memberId) ?? new Map()),
        subscribedTopics: [...m.subscribedTopicNames]
      }))
    }
  }

  #decode<T> (group: ClassicGroup, run: () => T, fallback: T): T {
    if (group.protocolType !== CONSUMER_PROTOCOL_TYPE) return fallback
    try {
      return run()
    } catch {
      return fallback // bytes that are not the consumer protocol's
    }
  }

  /** Removes a member as if its session expired; false when there is no such member. */
  fenceMember (groupId: string, memberId: string): boolean {
    const group = this.#groups.get(groupId)
    if (group === undefined) return false
    if (group instanceof ClassicGroup) return group.expel(memberId, 'fenced by the test')
    return group.fence(memberId, 'fenced by the test')
  }

  #dropGroup (group: Group): void {
    group.cancelTimers()
    this.#groups.delete(group.groupId)
  }

  close (): void {
    this.#timers.close()
    for (const group of this.#groups.values()) if (group instanceof ClassicGroup) group.failWaiting(GroupError.COORDINATOR_NOT_AVAILABLE)
  }
}

/** Java's String.hashCode (UTF-16 code units), as Kafka hashes a group id to its partition. */
export function javaHashCode (s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h
}

/** Kafka 4.4's GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid. */
function validateConsumerHeartbeat (version: number, groupId: string, r: ConsumerHeartbeatRequest): { errorCode: number, message: string } | undefined {
  const invalid = (message: string): { errorCode: number, message: string } => ({ errorCode: GroupError.INVALID_REQUEST, message })
  if ((version >= 1 || r.memberEpoch > 0 || r.memberEpoch === -1) && r.memberId === '') return invalid("MemberId can't be empty.")
  if (groupId === '') return invalid("GroupId can't be empty.")
  if (r.instanceId === '') return invalid("InstanceId can't be empty.")
  if (r.rackId === '') return invalid("RackId can't be empty.")
  if (r.memberEpoch === 0) {
    if (r.rebalanceTimeoutMs === -1) return invalid('RebalanceTimeoutMs must be provided in first request.')
    if (r.topicPartitions === null || r.topicPartitions.length > 0) return invalid('TopicPartitions must be empty when (re-)joining.')
    if (r.subscribedTopicNames === null && r.subscribedTopicRegex === null) return invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.')
  } else if (r.memberEpoch === -2) {
    if (r.instanceId === null) return invalid("InstanceId can't be null.")
  } else if (r.memberEpoch < -2) {
    return invalid('MemberEpoch is invalid.')
  }
  if (r.serverAssignor !== null && !(SERVER_ASSIGNORS as readonly string[]).includes(r.serverAssignor)) {
    return { errorCode: GroupError.UNSUPPORTED_ASSIGNOR, message: `ServerAssignor ${r.serverAssignor} is not supported. Supported assignors: ${SERVER_ASSIGNORS.join(', ')}.` }
  }
  try {
    compileRegex(r.subscribedTopicRegex)
  } catch (error) {
    return { errorCode: GroupError.INVALID_REGULAR_EXPRESSION, message: `SubscribedTopicRegex ${r.subscribedTopicRegex ?? ''} is invalid: ${(error as Error).message}` }
  }
  return undefined
}

/**
 * A consumer group of the KIP-848 protocol (ConsumerGroupHeartbeat), after Kafka 4.4's
 * ConsumerGroup, CurrentAssignmentBuilder and the consumer half of GroupMetadataManager:
 *
 * - The group epoch goes up when a member joins or leaves or changes its subscription, or
 *   when the subscribed topics change (a topic created, partitions added). The target
 *   assignment is then recomputed for every member, server side, by the 'uniform'
 *   (default) or 'range' assignor, and its epoch becomes the group epoch.
 * - Each member moves towards its target on its own heartbeats. It keeps the partitions
 *   it owns that stay in its target; partitions leaving it are *pending revocation*
 *   (the member stays at its epoch, in the unrevoked state, and is told its new, smaller
 *   assignment) until a heartbeat's topicPartitions no longer lists them; only then does
 *   it reach the new epoch. A partition is given to its new owner only once the previous
 *   owner released it (unreleased state until then).
 * - Epoch checks (Kafka's throwIfConsumerGroupMemberEpochIsInvalid): a heartbeat ahead of
 *   the member's epoch, or behind it (unless it is exactly the previous epoch and the
 *   owned partitions, which it must list, are a subset of the assignment: a lost
 *   response), gets FENCED_MEMBER_EPOCH; an unknown member at epoch > 0 gets
 *   UNKNOWN_MEMBER_ID. The assignment is in the answer only to a join or a full request
 *   (rebalance timeout, subscription and owned partitions all given) or when it changed.
 * - A member silent for `consumerSessionTimeoutMs` is fenced: removed, its partitions
 *   freed, the group epoch bumped. So is a member that does not release revoked
 *   partitions within its rebalance timeout. Epoch -1 leaves; -2 (static leave) is
 *   treated as a leave too (the fake keeps no assignment for a returning instance id).
 *
 * Assignors, simplified (Kafka's are sticky): 'uniform' deals the subscribed
 * topic-partitions (sorted by topic name, then partition) round-robin over the members
 * in join order, skipping members not subscribed to the topic; 'range' gives each
 * member a contiguous range of every topic it subscribes to.
 */
import { GroupError, mostVoted, type GroupEnv, type TopicPartition } from './group-common'
import type { TopicState } from './state'

export type ConsumerMemberState = 'stable' | 'unrevoked-partitions' | 'unreleased-partitions'

/** topic id → partitions. */
export type Assignment = Map<string, Set<number>>

export interface ConsumerMember {
  memberId: string
  instanceId: string | null
  rackId: string | null
  rebalanceTimeoutMs: number
  subscribedTopicNames: string[]
  subscribedTopicRegex: string | null
  serverAssignor: string | null
  state: ConsumerMemberState
  memberEpoch: number
  previousMemberEpoch: number
  assigned: Assignment
  pendingRevocation: Assignment
  /** `${topicId}:${partition}` → the member epoch at which the member got the partition (Kafka 4.4's assignment epochs, for commits). */
  assignmentEpochs: Map<string, number>
}

export interface ConsumerHeartbeatRequest {
  memberId: string
  memberEpoch: number
  instanceId: string | null
  rackId: string | null
  rebalanceTimeoutMs: number
  subscribedTopicNames: string[] | null
  subscribedTopicRegex: string | null
  serverAssignor: string | null
  topicPartitions: Array<{ topicId: string, partitions: number[] }> | null
}

export interface ConsumerHeartbeatAnswer {
  errorCode: number
  errorMessage: string | null
  memberId: string | null
  memberEpoch: number
  heartbeatIntervalMs: number
  assignment: { topicPartitions: Array<{ topicId: string, partitions: number[] }> } | null
}

export const SERVER_ASSIGNORS = ['uniform', 'range'] as const

export class ConsumerGroup {
  readonly type = 'consumer'
  readonly groupId: string
  readonly #env: GroupEnv
  groupEpoch = 0
  /** The epoch of the target assignment. */
  assignmentEpoch = 0
  /** memberId → its target partitions. */
  target = new Map<string, Assignment>()
  /** Members in the order they joined. */
  readonly members = new Map<string, ConsumerMember>()
  /** What the subscribed topics looked like when the epoch was last bumped: "id:count,…". */
  #subscriptionSignature = ''

  constructor (groupId: string, env: GroupEnv) {
    this.groupId = groupId
    this.#env = env
  }

  get isEmpty (): boolean {
    return this.members.size === 0
  }

  /** Kafka's group states, as ConsumerGroupDescribe names them. */
  get state (): 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' {
    if (this.members.size === 0) return 'Empty'
    if (this.groupEpoch !== this.assignmentEpoch) return 'Assigning'
    for (const m of this.members.values()) if (m.memberEpoch !== this.assignmentEpoch || m.state !== 'stable') return 'Reconciling'
    return 'Stable'
  }

  heartbeat (request: ConsumerHeartbeatRequest): ConsumerHeartbeatAnswer {
    if (request.memberEpoch === -1 || request.memberEpoch === -2) return this.#leave(request)
    let member = this.members.get(request.memberId)
    const isNew = member === undefined
    if (member === undefined) {
      if (request.memberEpoch !== 0) return errorAnswer(GroupError.UNKNOWN_MEMBER_ID, `Member ${request.memberId} is not a member of group ${this.groupId}.`)
      member = {
        memberId: request.memberId,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: request.rebalanceTimeoutMs,
        subscribedTopicNames: [],
        subscribedTopicRegex: null,
        serverAssignor: null,
        state: 'stable',
        memberEpoch: 0,
        previousMemberEpoch: -1,
        assigned: new Map(),
        pendingRevocation: new Map(),
        assignmentEpochs: new Map()
      }
    } else {
      const fenced = this.#epochError(member, request)
      if (fenced !== undefined) return errorAnswer(GroupError.FENCED_MEMBER_EPOCH, fenced)
    }

    // 1. The member's fields; a changed subscription bumps the group epoch.
    let bump = isNew
    if (request.instanceId !== null) member.instanceId = request.instanceId
    if (request.rackId !== null) member.rackId = request.rackId
    if (request.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = request.rebalanceTimeoutMs
    if (request.serverAssignor !== null && request.serverAssignor !== member.serverAssignor) {
      member.serverAssignor = request.serverAssignor
      bump = true
    }
    if (request.subscribedTopicNames !== null && !sameList(request.subscribedTopicNames, member.subscribedTopicNames)) {
      member.subscribedTopicNames = [...request.subscribedTopicNames]
      bump = true
    }
    if (request.subscribedTopicRegex !== null && request.subscribedTopicRegex !== member.subscribedTopicRegex) {
      member.subscribedTopicRegex = request.subscribedTopicRegex === '' ? null : request.subscribedTopicRegex
      bump = true
    }
    if (isNew) {
      this.members.set(member.memberId, member)
      this.#env.event(this.groupId, `member ${member.memberId} joins (subscribed to ${member.subscribedTopicNames.join(', ') || member.subscribedTopicRegex || 'nothing'})`)
    }
    // Topics created or grown since the last bump count as a subscription change.
    const signature = this.#signature()
    if (signature !== this.#subscriptionSignature) {
      this.#subscriptionSignature = signature
      bump = true
    }
    if (bump) {
      this.groupEpoch++
      this.#env.event(this.groupId, `group epoch ${this.groupEpoch}`)
    }

    // 2. The target assignment.
    if (this.groupEpoch > this.assignmentEpoch) this.#computeTarget()

    // 3. Reconcile this member towards its target.
    const before = assignmentKey(member.assigned)
    this.#reconcile(member, request.topicPartitions)
    this.#env.timers.schedule(this.#sessionKey(member.memberId), this.#env.config.consumerSessionTimeoutMs, () => {
      this.fence(member!.memberId, `its session expired (${this.#env.config.consumerSessionTimeoutMs} ms without a heartbeat)`)
    })

    const full = request.memberEpoch === 0 || (request.rebalanceTimeoutMs !== -1 && request.subscribedTopicNames !== null && request.topicPartitions !== null)
    return {
      errorCode: GroupError.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.#env.config.consumerHeartbeatIntervalMs,
      assignment: full || assignmentKey(member.assigned) !== before ? { topicPartitions: toWire(member.assigned) } : null
    }
  }

  #epochError (member: ConsumerMember, request: ConsumerHeartbeatRequest): string | undefined {
    const received = request.memberEpoch
    if (received > member.memberEpoch) {
      return `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`
    }
    if (received < member.memberEpoch) {
      // The previous epoch with a subset of the assignment: the response with the new epoch was lost.
      if (received !== member.previousMemberEpoch || !isSubset(request.topicPartitions, member.assigned)) {
        return `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`
      }
    }
    return undefined
  }

  #leave (request: ConsumerHeartbeatRequest): ConsumerHeartbeatAnswer {
    const member = this.members.get(request.memberId)
    if (member === undefined) return errorAnswer(GroupError.UNKNOWN_MEMBER_ID, `Member ${request.memberId} is not a member of group ${this.groupId}.`)
    this.#remove(member.memberId, 'it left')
    return { errorCode: GroupError.NONE, errorMessage: null, memberId: request.memberId, memberEpoch: request.memberEpoch, heartbeatIntervalMs: 0, assignment: null }
  }

  /** Removes a member (session expiry, rebalance timeout, the test's fenceMember); false when unknown. */
  fence (memberId: string, reason: string): boolean {
    if (!this.members.has(memberId)) return false
    this.#remove(memberId, reason)
    return true
  }

  #remove (memberId: string, reason: string): void {
    this.members.delete(memberId)
    this.target.delete(memberId)
    this.#env.timers.cancel(this.#sessionKey(memberId))
    this.#env.timers.cancel(this.#rebalanceKey(memberId))
    this.groupEpoch++
    this.#env.event(this.groupId, `member ${memberId} removed: ${reason}; group epoch ${this.groupEpoch}`)
  }

  // -----------------------------------------------------------------------------------
  // Target assignment

  /** The topics a member subscribes to that exist, by name. */
  #subscribedTopics (member: ConsumerMember): TopicState[] {
    const regex = compileRegex(member.subscribedTopicRegex)
    const topics: TopicState[] = []
    for (const topic of this.#env.state.topics) {
      if (member.subscribedTopicNames.includes(topic.name) || (regex?.test(topic.name) ?? false)) topics.push(topic)
    }
    return topics
  }

  #signature (): string {
    const seen = new Map<string, number>()
    for (const m of this.members.values()) for (const t of this.#subscribedTopics(m)) seen.set(t.topicId, t.partitions.length)
    return [...seen].map(([id, n]) => `${id}:${n}`).sort().join(',')
  }

  /** The assignor the members asked for most (ties: the first asked), else 'uniform'. */
  get assignor (): string {
    const votes: string[] = []
    for (const m of this.members.values()) if (m.serverAssignor !== null) votes.push(m.serverAssignor)
    return mostVoted(votes, 'uniform')
  }

  #computeTarget (): void {
    const members = [...this.members.values()]
    const subscriptions = new Map(members.map(m => [m.memberId, new Set(this.#subscribedTopics(m).map(t => t.name))]))
    const topics = this.#env.state.topics
      .filter(t => members.some(m => subscriptions.get(m.memberId)!.has(t.name)))
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    const target = new Map<string, Assignment>(members.map(m => [m.memberId, new Map()]))
    const give = (memberId: string, topicId: string, partition: number): void => {
      const assignment = target.get(memberId)!
      let set = assignment.get(topicId)
      if (set === undefined) assignment.set(topicId, set = new Set())
      set.add(partition)
    }
    if (this.assignor === 'range') {
      for (const topic of topics) {
        const takers = members.filter(m => subscriptions.get(m.memberId)!.has(topic.name))
        const n = topic.partitions.length
        const each = Math.floor(n / takers.length)
        const extra = n % takers.length
        let next = 0
        takers.forEach((m, i) => {
          const count = each + (i < extra ? 1 : 0)
          for (let p = next; p < next + count; p++) give(m.memberId, topic.topicId, p)
          next += count
        })
      }
    } else {
      let cursor = 0
      for (const topic of topics) {
        for (let p = 0; p < topic.partitions.length; p++) {
          for (let tries = 0; tries < members.length; tries++) {
            const m = members[cursor++ % members.length]
            if (subscriptions.get(m.memberId)!.has(topic.name)) {
              give(m.memberId, topic.topicId, p)
              break
            }
          }
        }
      }
    }
    this.target = target
    this.assignmentEpoch = this.groupEpoch
    this.#env.event(this.groupId, `target assignment at epoch ${this.assignmentEpoch} (${this.assignor}): ${[...target].map(([id, a]) => `${id}=[${this.#describe(a)}]`).join(' ')}`)
  }

  // -----------------------------------------------------------------------------------
  // Reconciliation (CurrentAssignmentBuilder)

  /** The epoch of the member that holds a partition (assigned or pending revocation), or -1 when free. */
  #partitionEpoch (topicId: string, partition: number, except: ConsumerMember): number {
    for (const m of this.members.values()) {
      if (m === except) continue
      if ((m.assigned.get(topicId)?.has(partition) ?? false) || (m.pendingRevocation.get(topicId)?.has(partition) ?? false)) return m.memberEpoch
    }
    return -1
  }

  #reconcile (member: ConsumerMember, owned: ConsumerHeartbeatRequest['topicPartitions']): void {
    const beforeState = `${member.state}/${member.memberEpoch}/${assignmentKey(member.assigned)}/${assignmentKey(member.pendingRevocation)}`
    if (member.memberEpoch === this.assignmentEpoch && member.state === 'stable') return
    switch (member.state) {
      case 'stable':
        this.#computeNext(member, member.memberEpoch, owned)
        break
      case 'unrevoked-partitions':
        if (ownsAny(owned, member.pendingRevocation)) break
        this.#release(member)
        this.#computeNext(member, member.memberEpoch + 1, owned)
        break
      case 'unreleased-partitions':
        this.#computeNext(member, member.memberEpoch, owned)
        break
    }
    const afterState = `${member.state}/${member.memberEpoch}/${assignmentKey(member.assigned)}/${assignmentKey(member.pendingRevocation)}`
    if (afterState === beforeState) return
    this.#env.event(this.groupId, `member ${member.memberId}: epoch ${member.memberEpoch}, ${member.state}, assigned [${this.#describe(member.assigned)}]` +
      (member.pendingRevocation.size > 0 ? `, revoking [${this.#describe(member.pendingRevocation)}]` : ''))
    if (member.state === 'unrevoked-partitions') {
      const epoch = member.memberEpoch
      this.#env.timers.schedule(this.#rebalanceKey(member.memberId), member.rebalanceTimeoutMs, () => {
        const current = this.members.get(member.memberId)
        if (current !== undefined && current.memberEpoch === epoch) this.fence(member.memberId, `it did not release revoked partitions within its rebalance timeout (${member.rebalanceTimeoutMs} ms)`)
      })
    } else {
      this.#env.timers.cancel(this.#rebalanceKey(member.memberId))
    }
  }

  /** The revoked partitions are released: forget their assignment epochs. */
  #release (member: ConsumerMember): void {
    for (const [topicId, partitions] of member.pendingRevocation) {
      for (const p of partitions) member.assignmentEpochs.delete(`${topicId}:${p}`)
    }
    member.pendingRevocation = new Map()
  }

  #computeNext (member: ConsumerMember, memberEpoch: number, owned: ConsumerHeartbeatRequest['topicPartitions']): void {
    const target = this.target.get(member.memberId) ?? new Map<string, Set<number>>()
    const assigned: Assignment = new Map()
    const revoking: Assignment = new Map()
    const adding: Assignment = new Map()
    let unreleased = false
    for (const topicId of new Set([...target.keys(), ...member.assigned.keys()])) {
      const want = target.get(topicId) ?? new Set<number>()
      const have = member.assigned.get(topicId) ?? new Set<number>()
      const keep = new Set([...have].filter(p => want.has(p)))
      const revoke = new Set([...have].filter(p => !keep.has(p)))
      const add = new Set<number>()
      for (const p of want) {
        if (keep.has(p)) continue
        if (this.#partitionEpoch(topicId, p, member) !== -1) unreleased = true
        else add.add(p)
      }
      if (keep.size > 0) assigned.set(topicId, keep)
      if (revoke.size > 0) revoking.set(topicId, revoke)
      if (add.size > 0) adding.set(topicId, add)
    }
    const setEpoch = (epoch: number): void => {
      if (epoch !== member.memberEpoch) {
        member.previousMemberEpoch = member.memberEpoch
        member.memberEpoch = epoch
      }
    }
    if (revoking.size > 0 && ownsAny(owned, revoking)) {
      // Stay at this epoch until the member stops listing the revoked partitions.
      member.state = 'unrevoked-partitions'
      setEpoch(memberEpoch)
      member.assigned = assigned
      member.pendingRevocation = revoking
      return
    }
    if (revoking.size > 0) {
      // Already released (not in the owned list): forget them at once.
      member.pendingRevocation = revoking
      this.#release(member)
    }
    setEpoch(this.assignmentEpoch)
    for (const [topicId, partitions] of adding) {
      let set = assigned.get(topicId)
      if (set === undefined) assigned.set(topicId, set = new Set())
      for (const p of partitions) {
        set.add(p)
        member.assignmentEpochs.set(`${topicId}:${p}`, member.memberEpoch)
      }
    }
    member.assigned = assigned
    member.pendingRevocation = new Map()
    member.state = unreleased ? 'unreleased-partitions' : 'stable'
  }

  // -----------------------------------------------------------------------------------
  // Commits (Kafka 4.4's ConsumerGroup.validateOffsetCommit and its assignment-epoch check)

  /**
   * Checks a commit's member id and epoch. Returns a request-level error, or a function
   * that checks each partition (an older epoch is accepted only for partitions the member
   * holds — assigned or pending revocation — since at most that epoch).
   */
  validateCommit (memberId: string, memberEpoch: number, version: number): { errorCode: number } | { partitionError: (topicId: string, partition: number) => number } {
    if (memberEpoch < 0 && this.members.size === 0) return { partitionError: () => GroupError.NONE }
    const member = this.members.get(memberId)
    if (member === undefined) return { errorCode: GroupError.UNKNOWN_MEMBER_ID }
    if (version < 9) return { errorCode: GroupError.UNSUPPORTED_VERSION }
    if (memberEpoch === member.memberEpoch) return { partitionError: () => GroupError.NONE }
    if (memberEpoch > member.memberEpoch) return { errorCode: GroupError.STALE_MEMBER_EPOCH }
    return {
      partitionError: (topicId, partition) => {
        const held = (member.assigned.get(topicId)?.has(partition) ?? false) || (member.pendingRevocation.get(topicId)?.has(partition) ?? false)
        const since = member.assignmentEpochs.get(`${topicId}:${partition}`)
        if (!held || since === undefined || memberEpoch < since) return GroupError.STALE_MEMBER_EPOCH
        return GroupError.NONE
      }
    }
  }

  /** OffsetFetch v9+: a member id and epoch, when given, must be the member's current ones. */
  validateFetch (memberId: string | null, memberEpoch: number): number {
    if (memberId === null && memberEpoch < 0) return GroupError.NONE
    const member = memberId === null ? undefined : this.members.get(memberId)
    if (member === undefined) return GroupError.UNKNOWN_MEMBER_ID
    return memberEpoch === member.memberEpoch ? GroupError.NONE : GroupError.STALE_MEMBER_EPOCH
  }

  // -----------------------------------------------------------------------------------
  // Helpers

  /** topic id → name, for inspection. */
  partitionsOf (assignment: Assignment): TopicPartition[] {
    const out: TopicPartition[] = []
    for (const [topicId, partitions] of assignment) {
      const name = this.#env.state.topicById(topicId)?.name ?? topicId
      for (const p of partitions) out.push({ topic: name, partition: p })
    }
    return out.sort((a, b) => a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition)
  }

  #describe (assignment: Assignment): string {
    return this.partitionsOf(assignment).map(tp => `${tp.topic}-${tp.partition}`).join(' ')
  }

  #sessionKey (memberId: string): string {
    return `consumer/${this.groupId}/session/${memberId}`
  }

  #rebalanceKey (memberId: string): string {
    return `consumer/${this.groupId}/rebalance/${memberId}`
  }

  cancelTimers (): void {
    this.#env.timers.cancelPrefix(`consumer/${this.groupId}/`)
  }
}

function errorAnswer (errorCode: number, errorMessage: string | null): ConsumerHeartbeatAnswer {
  return { errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null }
}

/** Kafka matches subscription regexes (RE2/J) against whole topic names. */
export function compileRegex (pattern: string | null): RegExp | undefined {
  if (pattern === null || pattern === '') return undefined
  return new RegExp(`^(?:${pattern})$`)
}

function sameList (a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false
  const sorted = [...b].sort()
  return [...a].sort().every((x, i) => x === sorted[i])
}

function ownsAny (owned: ConsumerHeartbeatRequest['topicPartitions'], assignment: Assignment): boolean {
  if (owned === null) return true // not told: assume it still owns them
  for (const { topicId, partitions } of owned) {
    const set = assignment.get(topicId)
    if (set !== undefined && partitions.some(p => set.has(p))) return true
  }
  return false
}

function isSubset (owned: ConsumerHeartbeatRequest['topicPartitions'], assignment: Assignment): boolean {
  // As Kafka: a member that does not say what it owns (not a full request) is not taken at its previous epoch.
  if (owned === null) return false
  return owned.every(({ topicId, partitions }) => partitions.every(p => assignment.get(topicId)?.has(p) ?? false))
}

function assignmentKey (assignment: Assignment): string {
  return [...assignment].map(([id, set]) => `${id}:${[...set].sort((a, b) => a - b).join('.')}`).sort().join(',')
}

function toWire (assignment: Assignment): Array<{ topicId: string, partitions: number[] }> {
  return [...assignment].map(([topicId, set]) => ({ topicId, partitions: [...set].sort((a, b) => a - b) }))
}

/**
 * A classic group (JoinGroup / SyncGroup / Heartbeat / LeaveGroup), after Kafka 4.4's
 * ClassicGroup and the classic half of GroupMetadataManager:
 *
 *   Empty ──join──▶ PreparingRebalance ──all joined (or rebalance timeout)──▶ CompletingRebalance
 *     ▲                     ▲                                                     │ leader's SyncGroup
 *     └──last member gone───┴──────────── a member joins, leaves or expires ◀── Stable
 *
 * - A first join without a member id (v4+) gets MEMBER_ID_REQUIRED and a member id; the
 *   id is "pending" until the member joins with it (a pending member holds the join
 *   phase back, as in Kafka, until it joins or its session timeout passes).
 * - The join phase completes when every member has rejoined, or after the group's
 *   rebalance timeout (the largest of its members'), when the dynamic members that did
 *   not rejoin are removed. A new group waits `initialRebalanceDelayMs` first.
 * - Completing the join bumps the generation, picks the protocol every member supports
 *   (by vote), keeps the leader if it rejoined (else the first rejoined member), and
 *   answers everyone; the leader gets all members' metadata.
 * - The leader's SyncGroup sets every member's assignment (empty for the ones it left
 *   out) and the group becomes Stable. Members that do not SyncGroup within the
 *   rebalance timeout are removed and the group rebalances.
 * - Sessions: each member's timer (its sessionTimeoutMs) restarts on every join, sync,
 *   heartbeat and accepted commit; when it fires the member is removed, unless it is
 *   waiting in a join or sync (Kafka's hasSatisfiedHeartbeat).
 * - Static members (groupInstanceId): a join with a known instance id and no member id
 *   replaces the old member id; the old one's pending join/sync is answered
 *   FENCED_INSTANCE_ID, as is anything it sends later with its instance id. A Stable
 *   group whose protocol does not change does not rebalance; the new member gets the
 *   current generation and syncs to receive the old member's assignment.
 */
import { randomUUID } from 'node:crypto'
import { GroupError, mostVoted, type GroupEnv } from './group-common'

export type ClassicGroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead'

export interface ClassicJoinRequest {
  memberId: string
  groupInstanceId: string | null
  sessionTimeoutMs: number
  rebalanceTimeoutMs: number
  protocolType: string
  protocols: Array<{ name: string, metadata: Buffer }>
  version: number
}

export interface ClassicJoinAnswer {
  errorCode: number
  generationId: number
  protocolType: string | null
  protocolName: string | null
  leader: string
  skipAssignment: boolean
  memberId: string
  members: Array<{ memberId: string, groupInstanceId: string | null, metadata: Buffer }>
}

export interface ClassicSyncRequest {
  memberId: string
  groupInstanceId: string | null
  generationId: number
  protocolType: string | null
  protocolName: string | null
  assignments: Array<{ memberId: string, assignment: Buffer }>
}

export interface ClassicSyncAnswer {
  errorCode: number
  protocolType: string | null
  protocolName: string | null
  assignment: Buffer
}

export interface ClassicMember {
  memberId: string
  groupInstanceId: string | null
  sessionTimeoutMs: number
  rebalanceTimeoutMs: number
  protocolType: string
  protocols: Array<{ name: string, metadata: Buffer }>
  /** The assignment bytes the leader gave this member in the last completed sync. */
  assignment: Buffer
  /** Until its first join completes (Kafka's isNew: it may expire while waiting). */
  isNew: boolean
  awaitingJoin: ((answer: ClassicJoinAnswer) => void) | undefined
  awaitingSync: ((answer: ClassicSyncAnswer) => void) | undefined
}

const EMPTY = Buffer.alloc(0)

export class ClassicGroup {
  readonly type = 'classic'
  readonly groupId: string
  readonly #env: GroupEnv
  state: ClassicGroupState = 'Empty'
  previousState: ClassicGroupState = 'Empty'
  generationId = 0
  protocolType: string | null = null
  protocolName: string | null = null
  leaderId: string | null = null
  /** Members in the order they joined. */
  readonly members = new Map<string, ClassicMember>()
  /** Member ids handed out with MEMBER_ID_REQUIRED, not joined yet. */
  readonly pendingMembers = new Set<string>()
  /** groupInstanceId → member id. */
  readonly staticMembers = new Map<string, string>()
  /** Members of this generation that have not sent SyncGroup yet. */
  readonly pendingSync = new Set<string>()
  /** Set when a member joins a new group during its initial delay (Kafka's newMemberAdded). */
  #newMemberAdded = false

  constructor (groupId: string, env: GroupEnv) {
    this.groupId = groupId
    this.#env = env
  }

  get isEmpty (): boolean {
    return this.members.size === 0
  }

  /** The largest rebalance timeout of the members (Kafka's group rebalance timeout). */
  get rebalanceTimeoutMs (): number {
    let max = 0
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs)
    return max
  }

  // -----------------------------------------------------------------------------------
  // JoinGroup

  async join (request: ClassicJoinRequest): Promise<ClassicJoinAnswer> {
    return await new Promise(resolve => {
      if (request.memberId === '') this.#joinNewMember(request, resolve)
      else this.#joinExistingMember(request, resolve)
    })
  }

  #joinNewMember (request: ClassicJoinRequest, resolve: (a: ClassicJoinAnswer) => void): void {
    if (!this.#supportsProtocols(request)) return resolve(this.#joinError(GroupError.INCONSISTENT_GROUP_PROTOCOL, ''))
    const newMemberId = `${request.groupInstanceId ?? 'member'}-${randomUUID()}`
    if (request.groupInstanceId !== null) {
      const existing = this.staticMembers.get(request.groupInstanceId)
      if (existing !== undefined) return this.#replaceStaticMember(request, existing, newMemberId, resolve)
      return this.#addMember(request, newMemberId, resolve)
    }
    if (request.version >= 4) {
      // KIP-394: the member must come back with this id; until then it is pending.
      this.pendingMembers.add(newMemberId)
      this.#env.timers.schedule(this.#sessionKey(newMemberId), request.sessionTimeoutMs, () => this.#expireSession(newMemberId))
      this.#env.event(this.groupId, `pending member ${newMemberId} must rejoin with its id (MEMBER_ID_REQUIRED)`)
      return resolve(this.#joinError(GroupError.MEMBER_ID_REQUIRED, newMemberId))
    }
    this.#addMember(request, newMemberId, resolve)
  }

  #joinExistingMember (request: ClassicJoinRequest, resolve: (a: ClassicJoinAnswer) => void): void {
    const memberId = request.memberId
    if (!this.#supportsProtocols(request)) return resolve(this.#joinError(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId))
    if (this.pendingMembers.has(memberId)) return this.#addMember(request, memberId, resolve)
    const invalid = this.validateMember(memberId, request.groupInstanceId)
    if (invalid !== GroupError.NONE) return resolve(this.#joinError(invalid, memberId))
    const member = this.members.get(memberId)!
    switch (this.state) {
      case 'PreparingRebalance':
        return this.#updateMemberThenRebalance(member, request, resolve, `member ${memberId} rejoins`)
      case 'CompletingRebalance':
        // Same metadata: the member lost its join response; give it again.
        if (matches(member, request.protocols)) return resolve(this.#joinAnswer(memberId, this.leaderId === memberId, false))
        return this.#updateMemberThenRebalance(member, request, resolve, `member ${memberId} changed its metadata`)
      case 'Stable':
        if (this.leaderId === memberId) return this.#updateMemberThenRebalance(member, request, resolve, `leader ${memberId} rejoins`)
        if (!matches(member, request.protocols)) return this.#updateMemberThenRebalance(member, request, resolve, `member ${memberId} changed its metadata`)
        this.#touch(member)
        return resolve(this.#joinAnswer(memberId, false, false))
      default:
        return resolve(this.#joinError(GroupError.UNKNOWN_MEMBER_ID, memberId))
    }
  }

  #addMember (request: ClassicJoinRequest, memberId: string, resolve: (a: ClassicJoinAnswer) => void): void {
    const member: ClassicMember = {
      memberId,
      groupInstanceId: request.groupInstanceId,
      sessionTimeoutMs: request.sessionTimeoutMs,
      rebalanceTimeoutMs: request.rebalanceTimeoutMs,
      protocolType: request.protocolType,
      protocols: request.protocols,
      assignment: EMPTY,
      isNew: true,
      awaitingJoin: resolve,
      awaitingSync: undefined
    }
    if (this.state === 'PreparingRebalance' && this.previousState === 'Empty') this.#newMemberAdded = true
    if (this.members.size === 0) this.protocolType = request.protocolType
    this.members.set(memberId, member)
    this.pendingMembers.delete(memberId)
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, memberId)
    this.leaderId ??= memberId
    this.#env.timers.schedule(this.#sessionKey(memberId), this.#env.config.newMemberJoinTimeoutMs, () => this.#expireSession(memberId))
    this.#env.event(this.groupId, `member ${memberId}${member.groupInstanceId === null ? '' : ` (instance ${member.groupInstanceId})`} joins`)
    this.#maybePrepareRebalanceOrCompleteJoin(`member ${memberId} joins`)
  }

  #updateMemberThenRebalance (member: ClassicMember, request: ClassicJoinRequest, resolve: (a: ClassicJoinAnswer) => void, reason: string): void {
    this.#updateMember(member, request, resolve)
    this.#maybePrepareRebalanceOrCompleteJoin(reason)
  }

  #updateMember (member: ClassicMember, request: ClassicJoinRequest, resolve: (a: ClassicJoinAnswer) => void): void {
    member.protocols = request.protocols
    member.rebalanceTimeoutMs = request.rebalanceTimeoutMs
    member.sessionTimeoutMs = request.sessionTimeoutMs
    // Kafka leaves a superseded join unanswered; the fake answers it so its connection moves on.
    member.awaitingJoin?.(this.#joinError(GroupError.REBALANCE_IN_PROGRESS, member.memberId))
    member.awaitingJoin = resolve
  }

  #replaceStaticMember (request: ClassicJoinRequest, oldMemberId: string, newMemberId: string, resolve: (a: ClassicJoinAnswer) => void): void {
    const currentLeader = this.leaderId
    const old = this.members.get(oldMemberId)!
    this.members.delete(oldMemberId)
    this.#env.timers.cancel(this.#sessionKey(oldMemberId))
    old.awaitingJoin?.(this.#joinError(GroupError.FENCED_INSTANCE_ID, oldMemberId))
    old.awaitingSync?.(syncError(GroupError.FENCED_INSTANCE_ID))
    const member: ClassicMember = { ...old, memberId: newMemberId, awaitingJoin: undefined, awaitingSync: undefined }
    this.members.set(newMemberId, member)
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId
    this.staticMembers.set(request.groupInstanceId!, newMemberId)
    if (this.pendingSync.delete(oldMemberId)) this.pendingSync.add(newMemberId)
    this.#env.event(this.groupId, `static member ${request.groupInstanceId!} rejoins: ${newMemberId} replaces ${oldMemberId} (fenced)`)
    this.#touch(member)
    this.#updateMember(member, request, resolve)

    if (this.state === 'Stable') {
      if (this.#selectProtocol() === this.protocolName) {
        // No rebalance: the new id takes over the old one's place and assignment.
        const answer = request.version >= 9
          ? this.#joinAnswer(newMemberId, this.leaderId === newMemberId, this.leaderId === newMemberId)
          : { ...this.#joinAnswer(newMemberId, false, false), leader: currentLeader ?? '' }
        member.awaitingJoin = undefined
        resolve(answer)
        return
      }
      return this.#maybePrepareRebalanceOrCompleteJoin(`static member ${newMemberId} changed the group's protocol`)
    }
    if (this.state === 'CompletingRebalance') return this.#prepareRebalance(`static member ${newMemberId} rejoins during CompletingRebalance`)
    this.#maybeCompleteJoinPhase()
  }

  #supportsProtocols (request: ClassicJoinRequest): boolean {
    if (request.protocolType === '' || request.protocols.length === 0) return false
    if (this.members.size === 0) return true
    if (request.protocolType !== this.protocolType) return false
    return request.protocols.some(p => this.#candidateProtocols().has(p.name))
  }

  /** The protocols every member supports. */
  #candidateProtocols (): Set<string> {
    let candidates: Set<string> | undefined
    for (const m of this.members.values()) {
      const names = new Set(m.protocols.map(p => p.name))
      candidates = candidates === undefined ? names : new Set([...candidates].filter(n => names.has(n)))
    }
    return candidates ?? new Set()
  }

  /** Each member votes for its most preferred candidate; the most votes win (ties: the earlier vote). */
  #selectProtocol (): string | null {
    const candidates = this.#candidateProtocols()
    const votes: string[] = []
    for (const m of this.members.values()) {
      const vote = m.protocols.find(p => candidates.has(p.name))?.name
      if (vote !== undefined) votes.push(vote)
    }
    return mostVoted(votes, null)
  }

  // -----------------------------------------------------------------------------------
  // The join phase

  #canRebalance (): boolean {
    return this.state === 'Stable' || this.state === 'CompletingRebalance' || this.state === 'Empty'
  }

  #maybePrepareRebalanceOrCompleteJoin (reason: string): void {
    if (this.#canRebalance()) this.#prepareRebalance(reason)
    else this.#maybeCompleteJoinPhase()
  }

  #transition (state: ClassicGroupState): void {
    this.previousState = this.state
    this.state = state
  }

  #prepareRebalance (reason: string): void {
    if (this.state === 'CompletingRebalance') {
      // Members waiting in SyncGroup must rejoin.
      for (const m of this.members.values()) {
        m.assignment = EMPTY
        const waiting = m.awaitingSync
        m.awaitingSync = undefined
        waiting?.(syncError(GroupError.REBALANCE_IN_PROGRESS))
      }
    }
    this.#env.timers.cancel(this.#syncKey())
    this.pendingSync.clear()
    const initial = this.state === 'Empty'
    this.#transition('PreparingRebalance')
    this.#env.event(this.groupId, `rebalance (generation ${this.generationId}): ${reason}`)
    if (initial) {
      const delay = this.#env.config.initialRebalanceDelayMs
      this.#scheduleInitialJoin(delay, Math.max(this.rebalanceTimeoutMs - delay, 0))
    } else if (this.#allMembersJoined()) {
      this.#completeJoin()
    } else {
      this.#env.timers.schedule(this.#joinKey(), this.rebalanceTimeoutMs, () => this.#completeJoin())
    }
  }

  #scheduleInitialJoin (delayMs: number, remainingMs: number): void {
    this.#env.timers.schedule(this.#joinKey(), delayMs, () => {
      // Each member that joins during the delay extends it, up to the rebalance timeout.
      if (this.#newMemberAdded && remainingMs !== 0) {
        this.#newMemberAdded = false
        const next = Math.min(delayMs, remainingMs)
        this.#scheduleInitialJoin(next, Math.max(remainingMs - delayMs, 0))
      } else {
        this.#completeJoin()
      }
    })
  }

  #allMembersJoined (): boolean {
    if (this.pendingMembers.size > 0) return false
    for (const m of this.members.values()) if (m.awaitingJoin === undefined) return false
    return true
  }

  #maybeCompleteJoinPhase (): void {
    if (this.state !== 'PreparingRebalance') return
    if (this.previousState === 'Empty') return // the initial delay timer completes it
    if (this.#allMembersJoined()) this.#completeJoin()
  }

  #completeJoin (): void {
    this.#env.timers.cancel(this.#joinKey())
    if (this.state !== 'PreparingRebalance') return
    for (const m of [...this.members.values()]) {
      if (m.awaitingJoin === undefined && m.groupInstanceId === null) {
        this.#env.event(this.groupId, `member ${m.memberId} did not rejoin within the rebalance timeout; removed`)
        this.#removeMember(m.memberId)
      }
    }
    if (this.members.size > 0 && !this.#electJoinedLeader()) {
      // Only static members that have not rejoined are left: wait for them.
      this.#env.timers.schedule(this.#joinKey(), this.rebalanceTimeoutMs, () => this.#completeJoin())
      return
    }
    this.generationId++
    if (this.members.size === 0) {
      this.protocolName = null
      this.#transition('Empty')
      this.#env.event(this.groupId, `generation ${this.generationId}: the group is empty`)
      return
    }
    this.protocolName = this.#selectProtocol()
    this.#transition('CompletingRebalance')
    this.#env.event(this.groupId, `generation ${this.generationId}: ${this.members.size} member(s), leader ${this.leaderId ?? '-'}, protocol ${this.protocolName ?? '-'}`)
    for (const m of this.members.values()) {
      const waiting = m.awaitingJoin
      if (waiting === undefined) continue // a static member that has not rejoined yet
      m.awaitingJoin = undefined
      m.isNew = false
      this.#touch(m)
      this.pendingSync.add(m.memberId)
      waiting(this.#joinAnswer(m.memberId, this.leaderId === m.memberId, false))
    }
    this.#env.timers.schedule(this.#syncKey(), this.rebalanceTimeoutMs, () => this.#expirePendingSync())
  }

  /** Keeps the leader if it rejoined, else takes the first member that did; false when none did. */
  #electJoinedLeader (): boolean {
    const leader = this.leaderId === null ? undefined : this.members.get(this.leaderId)
    if (leader?.awaitingJoin !== undefined) return true
    for (const m of this.members.values()) {
      if (m.awaitingJoin !== undefined) {
        this.leaderId = m.memberId
        return true
      }
    }
    return false
  }

  #expirePendingSync (): void {
    if (this.state !== 'CompletingRebalance' && this.state !== 'Stable') return
    if (this.pendingSync.size === 0) return
    for (const memberId of [...this.pendingSync]) {
      this.#env.event(this.groupId, `member ${memberId} did not sync within the rebalance timeout; removed`)
      this.#removeMember(memberId)
    }
    this.#prepareRebalance('members failed to sync')
  }

  #joinAnswer (memberId: string, withMembers: boolean, skipAssignment: boolean): ClassicJoinAnswer {
    return {
      errorCode: GroupError.NONE,
      generationId: this.generationId,
      protocolType: this.protocolType,
      protocolName: this.protocolName,
      leader: this.leaderId ?? '',
      skipAssignment,
      memberId,
      members: withMembers
        ? [...this.members.values()].map(m => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            metadata: m.protocols.find(p => p.name === this.protocolName)?.metadata ?? EMPTY
          }))
        : []
    }
  }

  #joinError (errorCode: number, memberId: string): ClassicJoinAnswer {
    return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId, members: [] }
  }

  // -----------------------------------------------------------------------------------
  // SyncGroup, Heartbeat, LeaveGroup

  async sync (request: ClassicSyncRequest): Promise<ClassicSyncAnswer> {
    return await new Promise(resolve => {
      const invalid = this.validateMember(request.memberId, request.groupInstanceId)
      if (invalid !== GroupError.NONE) return resolve(syncError(invalid))
      if (request.generationId !== this.generationId) return resolve(syncError(GroupError.ILLEGAL_GENERATION))
      if ((request.protocolType !== null && request.protocolType !== this.protocolType) ||
        (request.protocolName !== null && request.protocolName !== this.protocolName)) {
        return resolve(syncError(GroupError.INCONSISTENT_GROUP_PROTOCOL))
      }
      const member = this.members.get(request.memberId)!
      this.#touch(member)
      if (this.state === 'PreparingRebalance') return resolve(syncError(GroupError.REBALANCE_IN_PROGRESS))
      if (this.state === 'Stable') {
        this.pendingSync.delete(member.memberId)
        return resolve(this.#syncAnswer(member))
      }
      if (this.state !== 'CompletingRebalance') return resolve(syncError(GroupError.UNKNOWN_MEMBER_ID))
      member.awaitingSync?.(syncError(GroupError.REBALANCE_IN_PROGRESS))
      member.awaitingSync = resolve
      this.pendingSync.delete(member.memberId)
      if (this.pendingSync.size === 0) this.#env.timers.cancel(this.#syncKey())
      if (this.leaderId !== member.memberId) return
      const given = new Map(request.assignments.map(a => [a.memberId, a.assignment]))
      for (const m of this.members.values()) m.assignment = given.get(m.memberId) ?? EMPTY
      this.#transition('Stable')
      this.#env.event(this.groupId, `generation ${this.generationId} is stable: the leader ${member.memberId} assigned`)
      for (const m of this.members.values()) {
        const waiting = m.awaitingSync
        m.awaitingSync = undefined
        if (waiting !== undefined) {
          this.#touch(m)
          waiting(this.#syncAnswer(m))
        }
      }
    })
  }

  #syncAnswer (member: ClassicMember): ClassicSyncAnswer {
    return { errorCode: GroupError.NONE, protocolType: this.protocolType, protocolName: this.protocolName, assignment: member.assignment }
  }

  heartbeat (memberId: string, groupInstanceId: string | null, generationId: number): number {
    const invalid = this.validateMember(memberId, groupInstanceId)
    if (invalid !== GroupError.NONE) return invalid
    if (generationId !== this.generationId) return GroupError.ILLEGAL_GENERATION
    const member = this.members.get(memberId)!
    switch (this.state) {
      case 'PreparingRebalance':
        this.#touch(member)
        return GroupError.REBALANCE_IN_PROGRESS
      case 'CompletingRebalance':
      case 'Stable':
        this.#touch(member)
        return GroupError.NONE
      default:
        return GroupError.UNKNOWN_MEMBER_ID
    }
  }

  /** LeaveGroup for several members; one error code per member, in order. */
  leave (members: Array<{ memberId: string, groupInstanceId: string | null }>): number[] {
    let removed = 0
    const codes = members.map(({ memberId, groupInstanceId }) => {
      if (groupInstanceId === null && this.pendingMembers.has(memberId)) {
        this.pendingMembers.delete(memberId)
        this.#env.timers.cancel(this.#sessionKey(memberId))
        removed++
        return GroupError.NONE
      }
      let target = memberId
      if (groupInstanceId !== null) {
        const existing = this.staticMembers.get(groupInstanceId)
        if (existing === undefined) return GroupError.UNKNOWN_MEMBER_ID
        if (memberId !== '' && memberId !== existing) return GroupError.FENCED_INSTANCE_ID
        target = existing
      } else if (!this.members.has(memberId)) {
        return GroupError.UNKNOWN_MEMBER_ID
      }
      this.#env.event(this.groupId, `member ${target} leaves`)
      this.#removeMember(target)
      removed++
      return GroupError.NONE
    })
    if (removed > 0) this.#maybePrepareRebalanceOrCompleteJoin('members left')
    return codes
  }

  /** Removes a member as if its session expired (the test's fenceMember); false when unknown. */
  expel (memberId: string, reason: string): boolean {
    if (this.pendingMembers.delete(memberId)) {
      this.#env.timers.cancel(this.#sessionKey(memberId))
      this.#maybeCompleteJoinPhase()
      return true
    }
    if (!this.members.has(memberId)) return false
    this.#env.event(this.groupId, `member ${memberId} removed: ${reason}`)
    this.#removeAndRebalance(memberId)
    return true
  }

  /**
   * Kafka's validateMember: with an instance id, the id must map to this member id
   * (FENCED_INSTANCE_ID when another member id holds it); then the member must exist.
   */
  validateMember (memberId: string, groupInstanceId: string | null): number {
    if (groupInstanceId !== null) {
      const existing = this.staticMembers.get(groupInstanceId)
      if (existing === undefined) return GroupError.UNKNOWN_MEMBER_ID
      if (existing !== memberId) return GroupError.FENCED_INSTANCE_ID
    }
    return this.members.has(memberId) ? GroupError.NONE : GroupError.UNKNOWN_MEMBER_ID
  }

  /** A commit or heartbeat kept the member alive. */
  touch (memberId: string): void {
    const member = this.members.get(memberId)
    if (member !== undefined) this.#touch(member)
  }

  #touch (member: ClassicMember): void {
    this.#env.timers.schedule(this.#sessionKey(member.memberId), member.sessionTimeoutMs, () => this.#expireSession(member.memberId))
  }

  #expireSession (memberId: string): void {
    if (this.pendingMembers.delete(memberId)) {
      this.#env.event(this.groupId, `pending member ${memberId} did not rejoin within its session timeout`)
      this.#maybeCompleteJoinPhase()
      return
    }
    const member = this.members.get(memberId)
    if (member === undefined) return
    // A member waiting in a join or sync is alive, unless it is new (Kafka's hasSatisfiedHeartbeat).
    if (!member.isNew && (member.awaitingJoin !== undefined || member.awaitingSync !== undefined)) return
    this.#env.event(this.groupId, `member ${memberId} session expired (${member.sessionTimeoutMs} ms)`)
    this.#removeAndRebalance(memberId)
  }

  #removeAndRebalance (memberId: string): void {
    this.#removeMember(memberId)
    if (this.state === 'Stable' || this.state === 'CompletingRebalance') this.#prepareRebalance(`member ${memberId} left`)
    else if (this.state === 'PreparingRebalance') this.#maybeCompleteJoinPhase()
  }

  #removeMember (memberId: string): void {
    const member = this.members.get(memberId)
    if (member === undefined) return
    this.members.delete(memberId)
    this.pendingSync.delete(memberId)
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) this.staticMembers.delete(member.groupInstanceId)
    this.#env.timers.cancel(this.#sessionKey(memberId))
    const join = member.awaitingJoin
    const sync = member.awaitingSync
    member.awaitingJoin = undefined
    member.awaitingSync = undefined
    join?.(this.#joinError(GroupError.UNKNOWN_MEMBER_ID, memberId))
    sync?.(syncError(GroupError.UNKNOWN_MEMBER_ID))
    if (this.leaderId === memberId) this.leaderId = this.members.keys().next().value ?? null
  }

  /** Answers every waiting join and sync with `errorCode` (the coordinator moved or closed). */
  failWaiting (errorCode: number): void {
    for (const m of this.members.values()) {
      const join = m.awaitingJoin
      const sync = m.awaitingSync
      m.awaitingJoin = undefined
      m.awaitingSync = undefined
      join?.(this.#joinError(errorCode, m.memberId))
      sync?.(syncError(errorCode))
    }
  }

  #sessionKey (memberId: string): string {
    return `classic/${this.groupId}/session/${memberId}`
  }

  #joinKey (): string {
    return `classic/${this.groupId}/join`
  }

  #syncKey (): string {
    return `classic/${this.groupId}/sync`
  }

  cancelTimers (): void {
    this.#env.timers.cancelPrefix(`classic/${this.groupId}/`)
  }
}

function syncError (errorCode: number): ClassicSyncAnswer {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY }
}

/** Whether a rejoin carries the same protocols, in the same order, with the same metadata. */
function matches (member: ClassicMember, protocols: Array<{ name: string, metadata: Buffer }>): boolean {
  if (member.protocols.length !== protocols.length) return false
  return member.protocols.every((p, i) => p.name === protocols[i].name && p.metadata.equals(protocols[i].metadata))
}

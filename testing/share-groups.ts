/**
 * Share groups (KIP-932) in the fake: membership (every member is assigned every
 * partition of the topics it subscribes to), per-partition record states (available,
 * acquired by a member until a lock deadline, acknowledged, archived) with delivery counts,
 * and share sessions per (group, member, broker) with Kafka's epoch rules:
 *
 * - epoch 0 opens a session (replacing one the member had on that broker; the member keeps
 *   its acquired records, as Kafka 4.4's SharePartitionManager.newContext does) and may not
 *   carry acknowledgements (INVALID_REQUEST);
 * - when the connection a session was opened on closes, the session ends and the member's
 *   records are released (4.4's ShareSessionCache disconnect listener → onMemberLeave),
 *   unless a newer session replaced it;
 * - any other epoch must be the session's next one (INVALID_SHARE_SESSION_EPOCH), and a
 *   session must exist (SHARE_SESSION_NOT_FOUND); -1 acknowledges and closes it;
 * - acknowledging an offset that this member has not acquired (lock expired, acknowledged
 *   already) is INVALID_RECORD_STATE for its partition; offsets below the start offset are
 *   ignored, as Kafka does.
 *
 * Simplifications: the start offset is the log start (share.auto.offset.reset=earliest),
 * one lock duration for every group (`lockMs`, default 30 s, settable per group), records
 * past `deliveryLimit` (5) deliveries are archived. maxRecords is a strict limit only in
 * ShareFetch v2's record-limit acquire mode (1); otherwise (v1, or mode 0, batch-optimized,
 * the default) acquisition goes on to the end of the record batch that reached the limit,
 * as Kafka's does, so one answer may hold far more than maxRecords.
 */
import { ErrorCode } from './error-codes'
import type { ClusterState, PartitionState } from './state'

/** A record's state in a share group: available to acquire, acquired by a member (locked), acknowledged, or archived (rejected, or past the delivery limit). */
export type ShareRecordState = 'available' | 'acquired' | 'acknowledged' | 'archived'

interface OffsetState {
  state: ShareRecordState
  deliveryCount: number
  member: string | null
  lockUntil: number
}

interface SharePartitionState {
  /** Offsets below this are acknowledged or archived and forgotten. */
  startOffset: bigint
  offsets: Map<bigint, OffsetState>
}

interface ShareMember {
  memberId: string
  epoch: number
  topics: string[]
  lastSeen: number
}

interface ShareSession {
  nextEpoch: number
  /** `${topicId}:${partition}` */
  partitions: Set<string>
}

export interface ShareGroupState {
  groupId: string
  epoch: number
  lockMs: number
  members: Map<string, ShareMember>
  partitions: Map<string, SharePartitionState>
  /** By `${memberId}\0${brokerId}`. */
  sessions: Map<string, ShareSession>
}

const ACCEPT = 1
const RELEASE = 2
const REJECT = 3
const RENEW = 4
const GAP = 0
const DELIVERY_LIMIT = 5

export class ShareGroups {
  readonly #state: ClusterState
  readonly #groups = new Map<string, ShareGroupState>()
  /** The lock duration of groups made from now on. */
  lockMs = 30_000
  heartbeatIntervalMs = 200

  constructor (state: ClusterState) {
    this.#state = state
  }

  group (groupId: string): ShareGroupState {
    let group = this.#groups.get(groupId)
    if (group === undefined) {
      this.#groups.set(groupId, group = { groupId, epoch: 0, lockMs: this.lockMs, members: new Map(), partitions: new Map(), sessions: new Map() })
    }
    return group
  }

  find (groupId: string): ShareGroupState | undefined {
    return this.#groups.get(groupId)
  }

  heartbeat (groupId: string, memberId: string, memberEpoch: number, topics: string[] | null): { errorCode: number, memberEpoch: number, assignment: { topicPartitions: Array<{ topicId: string, partitions: number[] }> } | null } {
    const group = this.group(groupId)
    if (memberEpoch === -1) {
      group.members.delete(memberId)
      this.#releaseMember(group, memberId)
      group.epoch++
      return { errorCode: ErrorCode.NONE, memberEpoch: -1, assignment: null }
    }
    let member = group.members.get(memberId)
    if (memberEpoch === 0) {
      if (topics === null) return { errorCode: ErrorCode.INVALID_REQUEST, memberEpoch: 0, assignment: null }
      group.epoch++
      member = { memberId, epoch: group.epoch, topics, lastSeen: Date.now() }
      group.members.set(memberId, member)
    } else if (member === undefined) {
      return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberEpoch: 0, assignment: null }
    } else if (memberEpoch !== member.epoch) {
      return { errorCode: ErrorCode.FENCED_MEMBER_EPOCH, memberEpoch: 0, assignment: null }
    }
    member.lastSeen = Date.now()
    if (topics !== null) member.topics = topics
    const topicPartitions = member.topics.flatMap(name => {
      const topic = this.#state.topic(name)
      return topic === undefined ? [] : [{ topicId: topic.topicId, partitions: topic.partitions.map(p => p.index) }]
    })
    return { errorCode: ErrorCode.NONE, memberEpoch: member.epoch, assignment: memberEpoch === 0 || topics !== null ? { topicPartitions } : null }
  }

  /**
   * The session checks of a ShareFetch or ShareAcknowledge; on success the session (or
   * undefined after a close) and the epoch is used up.
   */
  useSession (group: ShareGroupState, memberId: string, brokerId: number, epoch: number, hasAcks: boolean, opens: boolean, connectionGone?: Promise<void>): { errorCode: number } | { session: ShareSession | undefined } {
    const key = `${memberId}\0${brokerId}`
    const existing = group.sessions.get(key)
    if (epoch === 0) {
      if (!opens) return { errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH }
      if (hasAcks) return { errorCode: ErrorCode.INVALID_REQUEST }
      const session: ShareSession = { nextEpoch: 1, partitions: new Set() }
      group.sessions.set(key, session)
      void connectionGone?.then(() => {
        if (group.sessions.get(key) !== session) return
        group.sessions.delete(key)
        this.#releaseMember(group, memberId)
      })
      return { session }
    }
    if (existing === undefined) return { errorCode: ErrorCode.SHARE_SESSION_NOT_FOUND }
    if (epoch === -1) {
      group.sessions.delete(key)
      return { session: undefined }
    }
    if (epoch !== existing.nextEpoch) return { errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH }
    existing.nextEpoch = epoch === 0x7fffffff ? 1 : epoch + 1
    return { session: existing }
  }

  /** Applies acknowledgement batches of one partition; the partition's error code. */
  acknowledge (group: ShareGroupState, memberId: string, partition: PartitionState, batches: Array<{ firstOffset: bigint, lastOffset: bigint, acknowledgeTypes: number[] }>): number {
    const sp = this.#partition(group, partition)
    const now = Date.now()
    let errorCode: number = ErrorCode.NONE
    for (const batch of batches) {
      for (let offset = batch.firstOffset; offset <= batch.lastOffset; offset++) {
        const type = batch.acknowledgeTypes.length === 1 ? batch.acknowledgeTypes[0] : batch.acknowledgeTypes[Number(offset - batch.firstOffset)]
        if (offset < sp.startOffset) continue
        const state = sp.offsets.get(offset)
        if (state === undefined || state.state !== 'acquired' || state.member !== memberId) {
          if (type !== GAP) errorCode = ErrorCode.INVALID_RECORD_STATE
          continue
        }
        if (type === ACCEPT || type === GAP) Object.assign(state, { state: 'acknowledged', member: null })
        else if (type === REJECT) Object.assign(state, { state: 'archived', member: null })
        else if (type === RELEASE) Object.assign(state, { state: state.deliveryCount >= DELIVERY_LIMIT ? 'archived' : 'available', member: null })
        else if (type === RENEW) state.lockUntil = now + group.lockMs
        else errorCode = ErrorCode.INVALID_REQUEST
      }
    }
    this.#advance(sp)
    return errorCode
  }

  /** Acquires up to `maxRecords` offsets of the partition for the member (with `wholeBatches`, to the end of the batch that reached it). */
  acquire (group: ShareGroupState, memberId: string, partition: PartitionState, maxRecords: number, wholeBatches = false): Array<{ firstOffset: bigint, lastOffset: bigint, deliveryCount: number }> {
    const sp = this.#partition(group, partition)
    const now = Date.now()
    this.#expire(group, sp, now)
    const ranges: Array<{ firstOffset: bigint, lastOffset: bigint, deliveryCount: number }> = []
    const end = partition.log.highWatermark
    let taken = 0
    let stopAfter: bigint | undefined
    for (let offset = sp.startOffset; offset < end && (stopAfter === undefined || offset <= stopAfter); offset++) {
      let state = sp.offsets.get(offset)
      if (state === undefined) sp.offsets.set(offset, state = { state: 'available', deliveryCount: 0, member: null, lockUntil: 0 })
      if (state.state !== 'available') continue
      state.state = 'acquired'
      state.member = memberId
      state.deliveryCount++
      state.lockUntil = now + group.lockMs
      taken++
      const last = ranges[ranges.length - 1]
      if (last !== undefined && last.lastOffset + 1n === offset && last.deliveryCount === state.deliveryCount) last.lastOffset = offset
      else ranges.push({ firstOffset: offset, lastOffset: offset, deliveryCount: state.deliveryCount })
      if (taken >= maxRecords && stopAfter === undefined) {
        stopAfter = wholeBatches ? partition.log.batches.find(b => b.baseOffset <= offset && offset <= b.lastOffset)?.lastOffset ?? offset : offset
      }
    }
    return ranges
  }

  /** The state of each offset from the start offset on (for tests). */
  recordStates (groupId: string, partition: PartitionState): Array<{ offset: bigint, state: ShareRecordState, deliveryCount: number, member: string | null }> {
    const group = this.#groups.get(groupId)
    if (group === undefined) return []
    const sp = this.#partition(group, partition)
    this.#expire(group, sp, Date.now())
    return [...sp.offsets].sort(([a], [b]) => a < b ? -1 : 1).map(([offset, s]) => ({ offset, state: s.state, deliveryCount: s.deliveryCount, member: s.member }))
  }

  #partition (group: ShareGroupState, partition: PartitionState): SharePartitionState {
    const key = `${partition.topic.topicId}:${partition.index}`
    let sp = group.partitions.get(key)
    if (sp === undefined) group.partitions.set(key, sp = { startOffset: partition.log.logStartOffset, offsets: new Map() })
    return sp
  }

  #expire (group: ShareGroupState, sp: SharePartitionState, now: number): void {
    for (const state of sp.offsets.values()) {
      if (state.state === 'acquired' && state.lockUntil <= now) Object.assign(state, { state: state.deliveryCount >= DELIVERY_LIMIT ? 'archived' : 'available', member: null })
    }
    void group
  }

  #releaseMember (group: ShareGroupState, memberId: string): void {
    for (const sp of group.partitions.values()) {
      for (const state of sp.offsets.values()) {
        if (state.state === 'acquired' && state.member === memberId) Object.assign(state, { state: 'available', member: null })
      }
    }
  }

  /** Forgets offsets below the first one still in play. */
  #advance (sp: SharePartitionState): void {
    for (;;) {
      const state = sp.offsets.get(sp.startOffset)
      if (state === undefined || (state.state !== 'acknowledged' && state.state !== 'archived')) return
      sp.offsets.delete(sp.startOffset)
      sp.startOffset++
    }
  }
}

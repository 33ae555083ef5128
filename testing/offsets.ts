/**
 * Committed offsets, per group, topic and partition (what __consumer_offsets holds), and
 * the commit log: every OffsetCommit the coordinator handled, with the membership fields
 * it carried, what the coordinator knew of the membership then, and per partition
 * whether it was stored or refused and why. Tests of invariants 2 and 3 (INTERNALS.md, "Invariants")
 * assert on the log: a refused commit shows its reason, an accepted one its membership.
 */
/** A group's committed offset of one partition in the fake coordinator (`cluster.committedOffset()`). */
export interface CommittedOffset {
  /** The committed offset: the next record the group is to read. */
  offset: bigint
  /** -1 when the committer did not know it. */
  leaderEpoch: number
  /** The metadata string committed with it ('' when none was). */
  metadata: string | null
  /** Date.now() when stored. */
  committedAt: number
}

/** One partition of a logged OffsetCommit: what was asked, and whether it was stored. */
export interface CommitLogPartition {
  /** The topic's name ('' when the request named an unknown topic id). */
  topic: string
  /** The topic's id ('' when the request named an unknown topic). */
  topicId: string
  /** The partition. */
  partition: number
  /** The offset the request committed. */
  offset: bigint
  /** The leader epoch sent with it (-1 when none was). */
  leaderEpoch: number
  /** The metadata sent with it. */
  metadata: string | null
  /** 0 when stored. */
  errorCode: number
  /** Whether it was stored (`errorCode` 0). */
  accepted: boolean
}

/** One OffsetCommit the fake coordinator handled (`cluster.commitLog()`): the membership it was sent under, what the coordinator knew, and per partition the outcome. */
export interface CommitLogEntry {
  /** The group. */
  groupId: string
  /** The broker that received it. */
  brokerId: number
  /** The OffsetCommit version. */
  version: number
  /** Date.now() when it arrived. */
  receivedAt: number
  /** The member id the request sent. */
  memberId: string
  /** The generation (classic) or member epoch (KIP-848) the request sent. */
  generationIdOrMemberEpoch: number
  /** The instance id the request sent; null for none. */
  groupInstanceId: string | null
  /** The group's protocol when the commit arrived ('none': no such group). */
  groupType: 'classic' | 'consumer' | 'none'
  /** Classic: the group's generation when the commit arrived. */
  groupGeneration?: number
  /** Consumer: the committing member's epoch at the coordinator when the commit arrived (undefined: not a member). */
  memberEpoch?: number
  /** The request-level refusal (NOT_COORDINATOR, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH…), 0 when the request passed. */
  errorCode: number
  /** Each partition of the request, with its outcome. */
  partitions: CommitLogPartition[]
}

export class OffsetStore {
  readonly #groups = new Map<string, Map<string, CommittedOffset>>()

  get (groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.#groups.get(groupId)?.get(key(topic, partition))
  }

  put (groupId: string, topic: string, partition: number, committed: CommittedOffset): void {
    let group = this.#groups.get(groupId)
    if (group === undefined) this.#groups.set(groupId, group = new Map())
    group.set(key(topic, partition), committed)
  }

  /** Every committed partition of a group, by topic. */
  all (groupId: string): Map<string, Array<{ partition: number, committed: CommittedOffset }>> {
    const byTopic = new Map<string, Array<{ partition: number, committed: CommittedOffset }>>()
    for (const [k, committed] of this.#groups.get(groupId) ?? []) {
      const split = k.lastIndexOf('\0')
      const topic = k.slice(0, split)
      let list = byTopic.get(topic)
      if (list === undefined) byTopic.set(topic, list = [])
      list.push({ partition: Number(k.slice(split + 1)), committed })
    }
    for (const list of byTopic.values()) list.sort((a, b) => a.partition - b.partition)
    return byTopic
  }

  hasGroup (groupId: string): boolean {
    return (this.#groups.get(groupId)?.size ?? 0) > 0
  }

  deleteGroup (groupId: string): void {
    this.#groups.delete(groupId)
  }
}

function key (topic: string, partition: number): string {
  return `${topic}\0${partition}`
}

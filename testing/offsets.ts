/**
 * Committed offsets, per group, topic and partition (what __consumer_offsets holds), and
 * the commit log: every OffsetCommit the coordinator handled, with the membership fields
 * it carried, what the coordinator knew of the membership then, and per partition
 * whether it was stored or refused and why. Tests of invariants 2 and 3 (INTERNALS.md, "Invariants")
 * assert on the log: a refused commit shows its reason, an accepted one its membership.
 */
export interface CommittedOffset {
  offset: bigint
  /** -1 when the committer did not know it. */
  leaderEpoch: number
  metadata: string | null
  /** Date.now() when stored. */
  committedAt: number
}

export interface CommitLogPartition {
  topic: string
  /** The topic's id ('' when the request named an unknown topic). */
  topicId: string
  partition: number
  offset: bigint
  leaderEpoch: number
  metadata: string | null
  /** 0 when stored. */
  errorCode: number
  accepted: boolean
}

export interface CommitLogEntry {
  groupId: string
  brokerId: number
  version: number
  receivedAt: number
  memberId: string
  generationIdOrMemberEpoch: number
  groupInstanceId: string | null
  /** The group's protocol when the commit arrived ('none': no such group). */
  groupType: 'classic' | 'consumer' | 'none'
  /** Classic: the group's generation when the commit arrived. */
  groupGeneration?: number
  /** Consumer: the committing member's epoch at the coordinator when the commit arrived (undefined: not a member). */
  memberEpoch?: number
  /** The request-level refusal (NOT_COORDINATOR, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH…), 0 when the request passed. */
  errorCode: number
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

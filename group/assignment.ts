/**
 * The group consumer's assignment: applies what the membership says this member holds —
 * revokes what left it (processing awaited within a deadline, what was processed committed,
 * then released), loses everything on a fence, starts new partitions from their committed
 * offsets — and calls onAssigned / onRevoked / onLost. The consumer is reached only
 * through AssignmentHost.
 */
import type { Client } from '../client/client'
import type { TypedEvents } from '../client/events'
import type { LogFields } from '../client/logger'
import { sleep } from '../client/backoff'
import { clockTimeout } from '../client/clock'
import { channels, subscribed, type RebalanceTrace } from '../client/instrumentation'
import type { Cursor, OffsetSpec, Ownership } from '../consumer/cursor'
import { OffsetFetch } from '../protocol/apis/offset-fetch'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { Committer } from './committer'
import { isCoordinatorError, type GroupCoordinator } from './coordinator'
import type { GroupConsumerEvents, RefusedCommit } from './group-events'
import type { DeliveryMode, GroupConsumerOptions } from './group-options'
import { partitionKey, type MemberIdentity, type Membership, type Reconciliation, type TopicPartition } from './membership'
import { internal } from '../client/internal'

export interface AssignmentHost {
  readonly client: Client
  readonly groupId: string
  readonly delivery: DeliveryMode
  readonly offsetReset: 'earliest' | 'latest' | 'none'
  readonly coordinator: GroupCoordinator
  readonly rebalanceTimeoutMs: number
  readonly heartbeatIntervalMs: number
  /** The application's onAssigned, onRevoked and onLost. */
  readonly callbacks: Pick<GroupConsumerOptions<unknown, unknown>, 'onAssigned' | 'onRevoked' | 'onLost'>
  /** The consumer, which emits 'assigned' and 'lost'. */
  readonly events: TypedEvents<GroupConsumerEvents>
  /** The group protocol in use (for the rebalance trace). */
  protocol: () => 'classic' | 'consumer'
  /** The membership now (undefined before the consumer started one). */
  membership: () => Membership | undefined
  /** The partitions of the consumer (its cursors), held or released. */
  cursors: () => Cursor[]
  cursor: (topic: string, partition: number) => Cursor | undefined
  /** The consumer opens its fetch connections to these partitions' leaders (ConsumerInternals.connectFor). */
  connectFor: (partitions: TopicPartition[]) => void
  /** Consumer.addPartitions: starts fetching them. */
  addPartitions: (partitions: Array<{ topic: string, partition: number, offset: bigint | OffsetSpec, leaderEpoch?: number, ownership: Ownership }>) => void
  /** Consumer.removePartitions: stops fetching them, waits up to `waitMs` for their processing. */
  removePartitions: (partitions: TopicPartition[], waitMs: number) => Promise<Cursor[]>
  /** The consumer's 'warning'. */
  warn: (error: unknown, fields?: LogFields) => void
}

/** Releases the partition's ownership (revoked or lost), saying why; a first release's reason stays. */
function release (cursor: Cursor, why: string): void {
  if (cursor.ownership.released) return
  cursor.ownership.released = true
  cursor.ownership.releasedBecause = why
}

export class Assignment {
  readonly #host: AssignmentHost
  readonly #committer: Committer

  constructor (host: AssignmentHost, committer: Committer) {
    this.#host = host
    this.#committer = committer
  }

  /** Partitions held now (ownership not released). */
  heldPartitions (): TopicPartition[] {
    return this.#host.cursors().filter(c => !c.ownership.released).map(c => ({ topic: c.topic, partition: c.partition }))
  }

  /** The generation (epoch) of the last assignment applied: a new one counts as a rebalance. */
  #appliedGeneration: number | undefined

  /** `#applyAssignmentNow`, counted and traced ('kafkats:group:rebalance'). */
  async applyAssignment (target: TopicPartition[], identity: MemberIdentity, reconciliation?: Reconciliation): Promise<TopicPartition[]> {
    if (identity.generation !== this.#appliedGeneration) {
      this.#appliedGeneration = identity.generation
      this.#host.client[internal].instrumentation.metrics.group(this.#host.groupId).rebalances++
    }
    if (!subscribed(channels.rebalance)) return await this.#applyAssignmentNow(target, identity, reconciliation)
    const trace: RebalanceTrace = { clientId: this.#host.client.clientId, group: this.#host.groupId, memberId: identity.memberId, generation: identity.generation, protocol: this.#host.protocol(), assignment: target.map(p => ({ topic: p.topic, partition: p.partition })) }
    return await channels.rebalance.tracePromise(async () => await this.#applyAssignmentNow(target, identity, reconciliation, trace), trace)
  }

  async #applyAssignmentNow (target: TopicPartition[], identity: MemberIdentity, reconciliation?: Reconciliation, trace?: RebalanceTrace): Promise<TopicPartition[]> {
    const targetKeys = new Set(target.map(partitionKey))
    const held = this.#host.cursors().filter(c => !c.ownership.released)
    const revoked: TopicPartition[] = []
    for (const cursor of held) {
      if (cursor.ownership.memberId !== identity.memberId) {
        // Held under another member id: only a fence changes it, and a fence releases everything. Never re-stamp it.
        revoked.push({ topic: cursor.topic, partition: cursor.partition })
        continue
      }
      // Still held by this member (whether kept or about to be revoked): confirmed under the new identity.
      cursor.ownership.generation = identity.generation
      if (!targetKeys.has(cursor.key)) revoked.push({ topic: cursor.topic, partition: cursor.partition })
    }
    if (revoked.length > 0) await this.revoke(revoked, identity, { why: `revoked by a rebalance (member epoch/generation ${identity.generation}): the group assigned it to another member` })
    if (trace !== undefined) trace.revoked = revoked
    // Fenced, or a newer target came while we revoked or looked up offsets: add nothing from this one.
    const outdated = (): boolean => reconciliation !== undefined && (reconciliation.signal.aborted || reconciliation.superseded())
    const heldKeys = new Set(this.#host.cursors().filter(c => !c.ownership.released).map(c => c.key))
    const added = target.filter(p => !heldKeys.has(partitionKey(p)))
    if (added.length > 0 && !outdated()) {
      // OffsetFetch/OffsetCommit v10 address topics by id: this member's client may not know them yet.
      const unknownTopics = [...new Set(added.map(p => p.topic))].filter(t => this.#host.client.metadata.topic(t) === undefined)
      if (unknownTopics.length > 0) await Promise.all(unknownTopics.map(async t => await this.#host.client.metadata.waitForTopic(t, this.#host.client.requestTimeoutMs, reconciliation?.signal)))
      // The fetch connections are made while the committed offsets are looked up, not after.
      this.#host.connectFor(added)
      const committed = await this.#fetchCommitted(added, reconciliation?.current ?? (() => identity), reconciliation?.signal)
      if (outdated()) return revoked
      const reset = this.#host.offsetReset
      const uncommitted = added.filter(p => (committed.get(partitionKey(p))?.offset ?? -1n) < 0n)
      if (reset === 'none' && uncommitted.length > 0) {
        throw new KafkaTsError('NO_COMMITTED_OFFSET', `Group "${this.#host.groupId}" has no committed offset for ${uncommitted.map(partitionKey).join(', ')}, and offsetReset is 'none': commit a start offset for the group (or use offsetReset 'earliest' / 'latest')`)
      }
      this.#host.addPartitions(added.map(p => {
        const { offset, leaderEpoch } = committed.get(partitionKey(p)) ?? {}
        const ownership: Ownership = { released: false, memberId: identity.memberId, generation: identity.generation }
        // The committed leader epoch lets the first fetch detect a truncation meanwhile (KIP-320).
        return offset !== undefined && offset >= 0n ? { ...p, offset, leaderEpoch, ownership } : { ...p, offset: reset as 'earliest' | 'latest', ownership }
      }))
      for (const p of added) {
        const cursor = this.#host.cursor(p.topic, p.partition)
        const { offset, metadata } = committed.get(partitionKey(p)) ?? {}
        if (cursor === undefined || offset === undefined || offset < 0n) continue
        cursor.committedOffset = offset
        // A concurrent run reads the records finished above the offset from it (consumer/concurrent/offset-map.ts).
        if (metadata !== null && metadata !== undefined && metadata !== '') cursor.committedMetadata = metadata
      }
      await this.#callback(this.#host.callbacks.onAssigned, added)
    }
    this.#host.client[internal].instrumentation.log.info(`assignment: ${added.length} added, ${revoked.length} revoked`, { group: this.#host.groupId, memberId: identity.memberId, generation: identity.generation, added: added.map(partitionKey), revoked: revoked.map(partitionKey) })
    if (trace !== undefined) trace.added = added.map(p => ({ topic: p.topic, partition: p.partition }))
    this.#host.events.emit('assigned', { added, revoked, identity })
    return revoked
  }

  /**
   * Stops fetching, waits for processing (`waitMs`, by default what the deadline leaves
   * before the commit's margin), commits what was processed, releases; all within the
   * rebalance timeout (or `deadlineAt`). Returns what it could not commit.
   */
  async revoke (partitions: TopicPartition[], identity: MemberIdentity | undefined, { waitMs, deadlineAt = this.#host.client.clock.now() + this.#host.rebalanceTimeoutMs, why }: { waitMs?: number, deadlineAt?: number, why: string }): Promise<RefusedCommit[]> {
    if (partitions.length === 0) return []
    // The processing wait leaves the commit the same margin before the deadline as in a rebalance.
    const commitMargin = this.#host.rebalanceTimeoutMs - this.revokeWaitMs()
    // The commit gives up half that margin before the deadline, so the release is still answered
    // in time: a commit held up behind another one (say, retried on COORDINATOR_LOAD_IN_PROGRESS)
    // would otherwise run into the coordinator's fence at the same moment.
    const clock = this.#host.client.clock
    const deadline = clockTimeout(clock, Math.max(0, Math.ceil(deadlineAt - clock.now() - commitMargin / 2)))
    const cursors = await this.#host.removePartitions(partitions, waitMs ?? Math.max(0, deadlineAt - clock.now() - commitMargin))
    let refused: RefusedCommit[] = []
    try {
      // autoCommit: false commits nothing on its own, here neither (as Java's enable.auto.commit=false).
      if (identity !== undefined && this.#host.delivery === 'at-least-once' && this.#committer.autoCommit) {
        const pending = cursors.filter(c => this.#committer.ordinaryCommitDue(c))
        if (pending.length > 0) refused = await this.#committer.commitCursors(pending, identity, c => c.processedOffset!, deadline).catch(error => { this.#host.warn(error); return [] })
      }
    } finally {
      for (const cursor of cursors) release(cursor, why)
    }
    await this.#callback(this.#host.callbacks.onRevoked, partitions)
    return refused
  }

  /**
   * How long a revoke waits for processing: the rebalance timeout is the coordinator's
   * deadline for the whole revoke (KIP-848: release the partition; classic: rejoin), so
   * stop waiting early enough to commit and answer before it, instead of being fenced.
   */
  revokeWaitMs (): number {
    const timeout = this.#host.rebalanceTimeoutMs
    const margin = Math.min(timeout / 3, Math.max(2 * this.#host.heartbeatIntervalMs, 1000))
    return Math.max(0, Math.floor(timeout - margin))
  }

  async loseAll (reason: string): Promise<void> {
    const lost = this.#host.cursors().filter(c => !c.ownership.released)
    // Released first: from here on no commit, mark or in-flight batch of these partitions counts.
    for (const cursor of lost) release(cursor, `lost: the member was fenced (${reason})`)
    await this.#host.removePartitions(lost, 0)
    const partitions = lost.map(c => ({ topic: c.topic, partition: c.partition }))
    if (partitions.length > 0) {
      this.#host.client[internal].instrumentation.log.info(`${partitions.length} partition(s) lost: ${reason}`, { group: this.#host.groupId, lost: partitions.map(partitionKey) })
      this.#host.events.emit('lost', { partitions, reason })
      await this.#callback(this.#host.callbacks.onLost, partitions)
    }
  }

  /**
   * The group's committed offsets of `partitions`. KIP-848 OffsetFetch carries the member's
   * current epoch; STALE_MEMBER_EPOCH (the epoch moved on while we asked) is asked again
   * after the next heartbeat, fencing errors are thrown (the membership rejoins).
   */
  async #fetchCommitted (partitions: TopicPartition[], currentIdentity: () => MemberIdentity, signal?: AbortSignal): Promise<Map<string, { offset: bigint, leaderEpoch: number | undefined, metadata: string | null }>> {
    const byTopic = new Map<string, number[]>()
    for (const p of partitions) {
      const list = byTopic.get(p.topic)
      if (list === undefined) byTopic.set(p.topic, [p.partition])
      else list.push(p.partition)
    }
    const kip848 = this.#host.membership()?.protocol === 'consumer'
    for (let attempt = 0; ; attempt++) {
      const identity = currentIdentity()
      const response = await this.#host.coordinator.send(OffsetFetch, version => version >= 8
        ? {
            groups: [{
              groupId: this.#host.groupId,
              memberId: kip848 ? identity.memberId : null,
              memberEpoch: kip848 ? identity.generation : -1,
              topics: [...byTopic].map(([topic, partitionIndexes]) => version >= 10 ? { topicId: this.#host.client.metadata.topic(topic)?.topicId, partitionIndexes } : { name: topic, partitionIndexes })
            }],
            requireStable: true
          }
        : { groupId: this.#host.groupId, topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })), requireStable: true },
      r => r.groups.length > 0 ? r.groups[0].errorCode : r.errorCode, { signal })
      const offsets = new Map<string, { offset: bigint, leaderEpoch: number | undefined, metadata: string | null }>()
      let code = response.groups.length > 0 ? response.groups[0].errorCode : response.errorCode
      const topics = response.groups.length > 0 ? response.groups[0].topics : response.topics
      for (const t of topics) {
        const name = t.name !== '' ? t.name : this.#host.client.metadata.topicById((t as { topicId?: string }).topicId ?? '')?.name ?? ''
        for (const p of t.partitions) {
          if (p.errorCode !== 0) code = p.errorCode
          else offsets.set(`${name}-${p.partitionIndex}`, { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch >= 0 ? p.committedLeaderEpoch : undefined, metadata: p.metadata })
        }
      }
      // UNSTABLE_OFFSET_COMMIT: a transactional commit is pending; ask again shortly.
      // A partition-level coordinator error: the answer is incomplete, ask again.
      if ((code === ErrorCode.UNSTABLE_OFFSET_COMMIT && attempt < 50) || isCoordinatorError(code)) {
        await sleep(100, signal, new BrokerError(code, `Fetching committed offsets of group "${this.#host.groupId}"`), this.#host.client.clock)
        continue
      }
      if (code === ErrorCode.STALE_MEMBER_EPOCH && kip848) {
        await this.#host.membership()?.nextHeartbeat(signal)
        continue
      }
      if (code !== 0) throw new BrokerError(code, `Fetching committed offsets of group "${this.#host.groupId}" (member epoch ${identity.generation})`)
      return offsets
    }
  }

  async #callback (callback: ((partitions: TopicPartition[]) => void | Promise<void>) | undefined, partitions: TopicPartition[]): Promise<void> {
    if (callback === undefined) return
    try {
      await callback(partitions)
    } catch (error) {
      this.#host.warn(error)
    }
  }
}

/**
 * The KIP-848 consumer group protocol: one ConsumerGroupHeartbeat request does joining,
 * heartbeating and assignment; the coordinator computes assignments (server-side
 * assignors) and bumps the member epoch on every change.
 *
 *   epoch 0 (join) → heartbeat every interval → an assignment arrives → reconcile:
 *   revoke what left (processing awaited, committed, released), re-stamp what stayed,
 *   start what is new → the next heartbeat reports what we own, which acknowledges it.
 *
 * FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: every partition is lost (released without a
 * commit) and the member joins again with epoch 0. Commits use OffsetCommit v9+ with the
 * member epoch; a partition is committed only under the epoch it was last confirmed in.
 */
import type { Client } from '../client/client'
import { waitOn } from '../client/clock'
import { Signal } from '../client/signal'
import { ConsumerGroupHeartbeat, type ConsumerGroupHeartbeatRequest } from '../protocol/apis/consumer-group-heartbeat'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { GroupCoordinator } from './coordinator'
import { staticMembershipEnded } from './errors'
import { assignedPartitions, EpochHeartbeat, isMemberForgotten, knownPartitions } from './epoch-heartbeat'
import {
  leaveFailed, partitionKey,
  type MemberIdentity, type Membership, type MembershipHost, type TopicPartition
} from './membership'

const LEAVE_EPOCH = -1
const LEAVE_STATIC_EPOCH = -2

export class ConsumerMembership implements Membership {
  readonly protocol = 'consumer' as const
  readonly #client: Client
  readonly #coordinator: GroupCoordinator
  readonly #host: MembershipHost
  readonly #serverAssignor: string | null
  /** Member id (KIP-1082: chosen here, kept across fences), epoch, interval and the heartbeat loop. */
  readonly #loop: EpochHeartbeat
  /**
   * The latest target assignment from the coordinator and a counter bumped with each new
   * one; the member epoch may move on without a new target (another member joined). Both
   * are changed only by heartbeat answers; the reconciliation loop reads them.
   */
  #target: TopicPartition[] | undefined
  #targetVersion = 0
  /** The reconciliation loop (revoke, assign, re-stamp) while it runs: commits wait for it. */
  #reconciling: Promise<void> | undefined
  #reconcileAbort: AbortController | undefined
  /** A reconciliation learnt that the member was fenced (OffsetFetch UNKNOWN_MEMBER_ID): the heartbeat loop rejoins. */
  #fenceReason: string | undefined
  /** What the last heartbeat told the coordinator we own and subscribe to (null fields are "unchanged"). */
  #sentOwned: string | undefined
  #sentTopics: string | undefined
  /** What we owned at the last heartbeat outside a reconciliation: a full heartbeat during one reports it. */
  #lastOwned: Array<{ topicId: string, partitions: number[] }> = []
  /**
   * The last heartbeat failed (no answer, an error answer, an answer not applied): the next
   * one is full, every field set (as the Java client's after any error). The coordinator
   * sends the assignment only when it changed or to a full request, so a change carried by
   * a lost answer (partitions freed for a member waiting on them keep its epoch) would
   * otherwise never reach us, and those partitions would be held by nobody.
   */
  #sendFull = false
  readonly #heartbeated = new Signal()
  /** Whether the coordinator matches our RegExp subscription itself (ConsumerGroupHeartbeat v1+). */
  #brokerMatchesPattern: boolean | undefined
  /** A heartbeat was answered without error once: the broker runs the protocol. */
  #joinedOnce = false

  constructor (client: Client, coordinator: GroupCoordinator, host: MembershipHost, serverAssignor: string | null) {
    this.#client = client
    this.#coordinator = coordinator
    this.#host = host
    this.#serverAssignor = serverAssignor
    this.#loop = new EpochHeartbeat(client, {
      groupId: host.groupId,
      member: 'consumer',
      intervalMs: host.heartbeatIntervalMs,
      heartbeat: async signal => {
        await this.#heartbeat(signal)
        this.#heartbeated.notify()
      },
      fenced: reason => this.#fenced(reason),
      pendingFence: () => this.#fenceReason,
      ends: error => this.#ends(error),
      leave: async () => await this.#coordinator.send(ConsumerGroupHeartbeat, {
        groupId: host.groupId,
        memberId: this.#loop.memberId,
        memberEpoch: host.instanceId !== null ? LEAVE_STATIC_EPOCH : LEAVE_EPOCH,
        instanceId: host.instanceId
      }, r => r.errorCode, this.#coordinator.leaveRequestBound()).then(r => r.errorCode)
    })
  }

  start (): void {
    this.#loop.start()
  }

  identity (): MemberIdentity | undefined {
    if (this.#loop.memberEpoch <= 0 || this.#reconciling !== undefined) return undefined
    return { memberId: this.#loop.memberId, generation: this.#loop.memberEpoch }
  }

  // until's own promise: no extra tick between becoming stable and the caller reading identity().
  whenStable (signal?: AbortSignal): Promise<void> {
    return this.#loop.until(() => this.identity() !== undefined, signal)
  }

  async nextHeartbeat (signal?: AbortSignal): Promise<void> {
    this.#loop.wake()
    await this.#heartbeated.wait(signal)
  }

  onFencedResponse (errorCode: number): void {
    // FENCED_INSTANCE_ID ends the member wherever it is learnt, as a heartbeat's (#ends).
    if (errorCode === ErrorCode.FENCED_INSTANCE_ID) {
      this.#ends(new BrokerError(errorCode, `Committing offsets in group "${this.#host.groupId}"`))
      return
    }
    // The next heartbeat learns the details; make it come soon.
    this.#loop.wake()
  }

  requestRejoin (): void {
    this.#loop.wake()
  }

  async stop (leave: boolean): Promise<void> {
    const leaveFailure = await this.#loop.stop(leave, async () => {
      this.#reconcileAbort?.abort()
      await this.#reconciling?.catch(() => {})
    })
    if (leaveFailure !== undefined) this.#host.warning(leaveFailed(this.#host.groupId, leaveFailure))
  }

  /** Whether a heartbeat error (not a fence) ended the membership; else it is retried. */
  #ends (error: unknown): boolean {
    if (error instanceof BrokerError && this.#loop.memberEpoch === 0 && !this.#joinedOnce && error.code === ErrorCode.UNSUPPORTED_VERSION) {
      // Kafka 3.7–3.9 list ConsumerGroupHeartbeat without running the protocol.
      this.#loop.end()
      this.#host.protocolUnsupported(error)
      return true
    }
    const staticEnd = staticMembershipEnded(error, this.#host.groupId, this.#host.instanceId)
    if (staticEnd !== undefined || (error instanceof KafkaTsError && !error.retriable)) {
      // Ended, as Java's FATAL state: nothing is left to leave on close.
      this.#loop.end(true)
      this.#host.fatal(staticEnd ?? error as Error)
      return true
    }
    return false
  }

  async #heartbeat (signal: AbortSignal): Promise<void> {
    try {
      await this.#heartbeatOnce(signal)
    } catch (error) {
      this.#sendFull = true
      throw error
    }
  }

  async #heartbeatOnce (signal: AbortSignal): Promise<void> {
    const joining = this.#loop.memberEpoch === 0
    // A full request (Kafka's rebalanceTimeoutMs, subscription and owned partitions all set) is answered with the whole assignment.
    let full = joining || this.#sendFull
    const pattern = this.#host.subscriptionPattern
    // A RegExp subscription is matched by the broker when it speaks v1 (KIP-848's
    // SubscribedTopicRegex); before we know, and on v0, we match it and send names.
    const topics = pattern !== null && this.#brokerMatchesPattern === true ? [] : (await this.#host.subscribedTopics(signal)).sort()
    const topicsKey = topics.join('\u0000')
    // While a reconciliation runs, report ownership as it was: the coordinator learns the
    // new set only when revocations are done.
    const owned = this.#reconciling === undefined ? this.#ownedByTopicId() : undefined
    if (owned !== undefined) this.#lastOwned = owned
    const ownedKey = owned === undefined ? undefined : JSON.stringify(owned)
    let sent: ConsumerGroupHeartbeatRequest | undefined
    const response = await this.#coordinator.send(ConsumerGroupHeartbeat, version => {
      // Sent again (the coordinator moved, the connection died): the last attempt may have been applied and its answer lost.
      if (sent !== undefined) full = true
      const regex = pattern !== null && version >= 1
      sent = {
        groupId: this.#host.groupId,
        memberId: this.#loop.memberId,
        memberEpoch: this.#loop.memberEpoch,
        instanceId: this.#host.instanceId,
        rackId: full ? this.#host.rack : null,
        rebalanceTimeoutMs: full ? this.#host.rebalanceTimeoutMs : -1,
        subscribedTopicNames: regex ? null : full || topicsKey !== this.#sentTopics ? topics : null,
        ...(regex ? { subscribedTopicRegex: full ? pattern : null } : {}),
        serverAssignor: full ? this.#serverAssignor : null,
        topicPartitions: full ? owned ?? this.#lastOwned : owned !== undefined && ownedKey !== this.#sentOwned ? owned : null
      }
      this.#brokerMatchesPattern = regex
      return sent
    }, r => r.errorCode, { signal, timeoutMs: Math.max(5000, this.#host.sessionTimeoutMs) })
    const request = sent!
    if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Heartbeat in group "${this.#host.groupId}" (member epoch ${this.#loop.memberEpoch})`, response.errorMessage)
    // A reconciliation found the member fenced while this heartbeat was in flight: its answer is about the old membership.
    if (this.#fenceReason !== undefined) return
    if (request.subscribedTopicNames !== null) this.#sentTopics = topicsKey
    if (request.topicPartitions !== null && ownedKey !== undefined) this.#sentOwned = ownedKey
    // Answered in full (the assignment below is the whole of it): later heartbeats send what changed.
    if (full) this.#sendFull = false
    if (response.heartbeatIntervalMs > 0) this.#loop.intervalMs = response.heartbeatIntervalMs
    const epochChanged = response.memberEpoch !== this.#loop.memberEpoch
    this.#joinedOnce = true
    let newTarget = false
    if (response.assignment !== null) {
      const byId = response.assignment.topicPartitions
      const target = knownPartitions(this.#client, byId) ?? await assignedPartitions(this.#client, byId, signal)
      // The answer to a full heartbeat repeats the assignment even when it did not change: no rebalance then.
      newTarget = this.#target === undefined || partitionSetKey(target) !== partitionSetKey(this.#target)
      if (newTarget) {
        if (this.#loop.memberEpoch > 0 && this.#fenceReason === undefined) this.#host.rebalancing({ memberId: this.#loop.memberId, generation: this.#loop.memberEpoch }, 'the coordinator sent a new target assignment')
        this.#target = target
        this.#targetVersion++
      }
    }
    this.#loop.memberEpoch = response.memberEpoch
    // A new target, or the same one under a new epoch (the coordinator bumps every
    // member's epoch when any member joins): what is kept must carry the new epoch, or
    // every commit of it is refused. A running reconciliation picks both up when done.
    if (newTarget || epochChanged) this.#reconcile()
    this.#loop.stateChanged.notify()
  }

  /** Starts the reconciliation loop unless it runs; it always ends on the latest target and epoch. */
  #reconcile (): void {
    if (this.#reconciling !== undefined) return
    const abort = new AbortController()
    this.#reconcileAbort = abort
    const run = this.#reconcileUntilCurrent(abort.signal)
    this.#reconciling = run
    void run.finally(() => {
      if (this.#reconciling === run) this.#reconciling = undefined
      this.#loop.stateChanged.notify()
      this.#loop.wake() // report what we own now: it acknowledges the assignment
    })
  }

  /**
   * Applies the latest target under the latest epoch, again and again until neither
   * moved while it ran. A newer target makes the running pass stop before it adds
   * partitions (`superseded`), so a stale target is never applied; an epoch bump alone
   * lets it finish and then re-stamps what is held.
   */
  async #reconcileUntilCurrent (signal: AbortSignal): Promise<void> {
    for (let failures = 0; !signal.aborted && this.#loop.memberEpoch > 0;) {
      const targetVersion = this.#targetVersion
      const epoch = this.#loop.memberEpoch
      const target = this.#target ?? this.#host.heldPartitions()
      try {
        const revoked = await this.#host.applyAssignment(target, { memberId: this.#loop.memberId, generation: epoch }, {
          signal,
          superseded: () => this.#targetVersion !== targetVersion,
          current: () => ({ memberId: this.#loop.memberId, generation: this.#loop.memberEpoch })
        })
        if (revoked.length > 0) this.#loop.wake() // acknowledge the revocation soon
        failures = 0
      } catch (error) {
        if (signal.aborted) return
        if (isMemberForgotten(error)) {
          // Lose everything and rejoin at epoch 0, from the heartbeat loop (it owns the epoch).
          this.#fenceReason = error.message
          this.#loop.wake()
          return
        }
        if (!(error instanceof KafkaTsError) || !error.retriable) {
          this.#host.fatal(error as Error)
          return
        }
        await waitOn(this.#client.clock, this.#loop.backoffMs(failures++), signal)
        continue
      }
      if (this.#targetVersion === targetVersion && this.#loop.memberEpoch === epoch) return
    }
  }

  async #fenced (reason: string): Promise<void> {
    this.#loop.memberEpoch = 0
    this.#sentOwned = undefined
    this.#sentTopics = undefined
    this.#target = undefined
    this.#reconcileAbort?.abort()
    await this.#reconciling?.catch(() => {})
    this.#fenceReason = undefined
    await this.#host.loseAll(reason)
    this.#loop.stateChanged.notify()
  }

  #ownedByTopicId (): Array<{ topicId: string, partitions: number[] }> {
    const byTopic = new Map<string, number[]>()
    for (const p of this.#host.heldPartitions().sort((a, b) => partitionKey(a) < partitionKey(b) ? -1 : 1)) {
      const topicId = this.#client.metadata.topic(p.topic)?.topicId
      if (topicId === undefined) continue
      const list = byTopic.get(topicId)
      if (list === undefined) byTopic.set(topicId, [p.partition])
      else list.push(p.partition)
    }
    return [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions }))
  }
}

/** A set of partitions as one comparable string. */
function partitionSetKey (partitions: TopicPartition[]): string {
  return partitions.map(partitionKey).sort().join('\u0000')
}

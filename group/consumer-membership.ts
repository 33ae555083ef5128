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
import { randomUUID } from 'node:crypto'
import type { Client } from '../client/client'
import { sleep } from '../client/backoff'
import { ConsumerGroupHeartbeat, type ConsumerGroupHeartbeatRequest } from '../protocol/apis/consumer-group-heartbeat'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { GroupCoordinator } from './coordinator'
import { StaticMembershipError } from './errors'
import {
  FENCED_INSTANCE_ID, FENCED_MEMBER_EPOCH, partitionKey, Signal, UNKNOWN_MEMBER_ID, UNRELEASED_INSTANCE_ID, UNSUPPORTED_VERSION,
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
  /** KIP-1082: the client chooses its member id, and keeps it across fences. */
  readonly #memberId = randomUUID()
  #memberEpoch = 0
  #intervalMs: number
  /**
   * The latest target assignment from the coordinator and a counter bumped with each new
   * one; `#memberEpoch` may move on without a new target (another member joined). Both
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
  readonly #stateChanged = new Signal()
  readonly #heartbeated = new Signal()
  readonly #stop = new AbortController()
  #running: Promise<void> | undefined
  #stopped = false
  #wakeEarly = false
  /** Whether the coordinator matches our RegExp subscription itself (ConsumerGroupHeartbeat v1+). */
  #brokerMatchesPattern: boolean | undefined
  /** A heartbeat was answered without error once: the broker runs the protocol. */
  #joinedOnce = false

  constructor (client: Client, coordinator: GroupCoordinator, host: MembershipHost, serverAssignor: string | null) {
    this.#client = client
    this.#coordinator = coordinator
    this.#host = host
    this.#serverAssignor = serverAssignor
    this.#intervalMs = host.heartbeatIntervalMs
  }

  start (): void {
    this.#running ??= this.#run()
  }

  identity (): MemberIdentity | undefined {
    if (this.#memberEpoch <= 0 || this.#reconciling !== undefined) return undefined
    return { memberId: this.#memberId, generation: this.#memberEpoch }
  }

  async whenStable (signal?: AbortSignal): Promise<void> {
    while (this.identity() === undefined) {
      if (this.#stopped) throw new KafkaTsError('GROUP_STOPPED', `The consumer left group "${this.#host.groupId}"`)
      await this.#stateChanged.wait(signal)
    }
  }

  async nextHeartbeat (signal?: AbortSignal): Promise<void> {
    this.#wakeEarly = true
    await this.#heartbeated.wait(signal)
  }

  onFencedResponse (): void {
    // The next heartbeat learns the details; make it come soon.
    this.#wakeEarly = true
  }

  requestRejoin (): void {
    this.#wakeEarly = true
  }

  async stop (leave: boolean): Promise<void> {
    this.#stop.abort()
    await this.#running?.catch(() => {})
    this.#reconcileAbort?.abort()
    await this.#reconciling?.catch(() => {})
    const wasMember = this.#memberEpoch > 0
    this.#stopped = true
    this.#stateChanged.notify()
    if (leave && wasMember) {
      await this.#coordinator.send(ConsumerGroupHeartbeat, {
        groupId: this.#host.groupId,
        memberId: this.#memberId,
        memberEpoch: this.#host.instanceId !== null ? LEAVE_STATIC_EPOCH : LEAVE_EPOCH,
        instanceId: this.#host.instanceId
      }, r => r.errorCode, { timeoutMs: 5000 }).catch(() => {})
    }
    this.#memberEpoch = 0
  }

  async #run (): Promise<void> {
    const signal = this.#stop.signal
    let failures = 0
    while (!signal.aborted) {
      try {
        if (this.#fenceReason !== undefined) {
          await this.#fenced(this.#fenceReason)
          continue
        }
        await this.#heartbeat(signal)
        failures = 0
        this.#heartbeated.notify()
      } catch (error) {
        if (signal.aborted) return
        if (error instanceof BrokerError && (error.code === FENCED_MEMBER_EPOCH || error.code === UNKNOWN_MEMBER_ID)) {
          await this.#fenced(error.message)
          continue
        }
        if (error instanceof BrokerError && this.#memberEpoch === 0 && !this.#joinedOnce && error.code === UNSUPPORTED_VERSION) {
          // Kafka 3.7–3.9 list ConsumerGroupHeartbeat without running the protocol.
          this.#stopped = true
          this.#stateChanged.notify()
          this.#host.protocolUnsupported(error)
          return
        }
        if (error instanceof BrokerError && (error.code === FENCED_INSTANCE_ID || error.code === UNRELEASED_INSTANCE_ID)) {
          this.#host.fatal(new StaticMembershipError(error.code, this.#host.groupId, this.#host.instanceId ?? '', error.message))
          this.#stopped = true
          this.#stateChanged.notify()
          return
        }
        if (error instanceof KafkaTsError && !error.retriable) {
          this.#host.fatal(error)
          this.#stopped = true
          this.#stateChanged.notify()
          return
        }
        failures++
      }
      const wait = failures > 0 ? Math.min(this.#intervalMs, 100 * 2 ** failures) : this.#intervalMs
      const deadline = Date.now() + wait
      while (Date.now() < deadline && !this.#wakeEarly && !signal.aborted) await sleep(Math.min(50, deadline - Date.now()), signal).catch(() => {})
      this.#wakeEarly = false
    }
  }

  async #heartbeat (signal: AbortSignal): Promise<void> {
    const joining = this.#memberEpoch === 0
    const pattern = this.#host.subscriptionPattern
    // A RegExp subscription is matched by the broker when it speaks v1 (KIP-848's
    // SubscribedTopicRegex); before we know, and on v0, we match it and send names.
    const topics = pattern !== null && this.#brokerMatchesPattern === true ? [] : (await this.#host.subscribedTopics(signal)).sort()
    const topicsKey = topics.join('\u0000')
    // While a reconciliation runs, report ownership as it was: the coordinator learns the
    // new set only when revocations are done.
    const owned = this.#reconciling === undefined ? this.#ownedByTopicId() : undefined
    const ownedKey = owned === undefined ? undefined : JSON.stringify(owned)
    let sent: ConsumerGroupHeartbeatRequest | undefined
    const response = await this.#coordinator.send(ConsumerGroupHeartbeat, version => {
      const regex = pattern !== null && version >= 1
      sent = {
        groupId: this.#host.groupId,
        memberId: this.#memberId,
        memberEpoch: this.#memberEpoch,
        instanceId: this.#host.instanceId,
        rackId: joining ? this.#host.rack : null,
        rebalanceTimeoutMs: joining ? this.#host.rebalanceTimeoutMs : -1,
        subscribedTopicNames: regex ? null : joining || topicsKey !== this.#sentTopics ? topics : null,
        ...(regex ? { subscribedTopicRegex: joining ? pattern : null } : {}),
        serverAssignor: joining ? this.#serverAssignor : null,
        topicPartitions: owned !== undefined && (joining || ownedKey !== this.#sentOwned) ? owned : null
      }
      this.#brokerMatchesPattern = regex
      return sent
    }, r => r.errorCode, { signal, timeoutMs: Math.max(5000, this.#host.sessionTimeoutMs) })
    const request = sent!
    if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Heartbeat in group "${this.#host.groupId}" (member epoch ${this.#memberEpoch})`, response.errorMessage)
    // A reconciliation found the member fenced while this heartbeat was in flight: its answer is about the old membership.
    if (this.#fenceReason !== undefined) return
    if (request.subscribedTopicNames !== null) this.#sentTopics = topicsKey
    if (request.topicPartitions !== null && ownedKey !== undefined) this.#sentOwned = ownedKey
    if (response.heartbeatIntervalMs > 0) this.#intervalMs = response.heartbeatIntervalMs
    const epochChanged = response.memberEpoch !== this.#memberEpoch
    this.#joinedOnce = true
    if (response.assignment !== null) {
      const target: TopicPartition[] = []
      for (const t of response.assignment.topicPartitions) {
        let name = this.#client.metadata.topicById(t.topicId)?.name
        if (name === undefined) {
          await this.#client.metadata.refreshAll(signal)
          name = this.#client.metadata.topicById(t.topicId)?.name
        }
        if (name === undefined) continue // a topic deleted meanwhile
        for (const partition of t.partitions) target.push({ topic: name, partition })
      }
      this.#target = target
      this.#targetVersion++
    }
    this.#memberEpoch = response.memberEpoch
    // A new target, or the same one under a new epoch (the coordinator bumps every
    // member's epoch when any member joins): what is kept must carry the new epoch, or
    // every commit of it is refused. A running reconciliation picks both up when done.
    if (response.assignment !== null || epochChanged) this.#reconcile()
    this.#stateChanged.notify()
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
      this.#stateChanged.notify()
      this.#wakeEarly = true // report what we own now: it acknowledges the assignment
    })
  }

  /**
   * Applies the latest target under the latest epoch, again and again until neither
   * moved while it ran. A newer target makes the running pass stop before it adds
   * partitions (`superseded`), so a stale target is never applied; an epoch bump alone
   * lets it finish and then re-stamps what is held.
   */
  async #reconcileUntilCurrent (signal: AbortSignal): Promise<void> {
    for (let failures = 0; !signal.aborted && this.#memberEpoch > 0;) {
      const targetVersion = this.#targetVersion
      const epoch = this.#memberEpoch
      const target = this.#target ?? this.#host.heldPartitions()
      try {
        const revoked = await this.#host.applyAssignment(target, { memberId: this.#memberId, generation: epoch }, {
          signal,
          superseded: () => this.#targetVersion !== targetVersion,
          current: () => ({ memberId: this.#memberId, generation: this.#memberEpoch })
        })
        if (revoked.length > 0) this.#wakeEarly = true // acknowledge the revocation soon
        failures = 0
      } catch (error) {
        if (signal.aborted) return
        if (error instanceof BrokerError && (error.code === FENCED_MEMBER_EPOCH || error.code === UNKNOWN_MEMBER_ID)) {
          // Lose everything and rejoin at epoch 0, from the heartbeat loop (it owns the epoch).
          this.#fenceReason = error.message
          this.#wakeEarly = true
          return
        }
        if (!(error instanceof KafkaTsError) || !error.retriable) {
          this.#host.fatal(error as Error)
          return
        }
        await sleep(Math.min(this.#intervalMs, 100 * 2 ** failures++), signal).catch(() => {})
        continue
      }
      if (this.#targetVersion === targetVersion && this.#memberEpoch === epoch) return
    }
  }

  async #fenced (reason: string): Promise<void> {
    this.#memberEpoch = 0
    this.#sentOwned = undefined
    this.#sentTopics = undefined
    this.#target = undefined
    this.#reconcileAbort?.abort()
    await this.#reconciling?.catch(() => {})
    this.#fenceReason = undefined
    await this.#host.loseAll(reason)
    this.#stateChanged.notify()
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

/**
 * The classic group protocol: JoinGroup, SyncGroup, Heartbeat, LeaveGroup.
 *
 *   join (MEMBER_ID_REQUIRED → join again with the given id) → the leader assigns →
 *   sync → applyAssignment → heartbeat until REBALANCE_IN_PROGRESS (rejoin) or a fence
 *   (lose everything, rejoin)
 *
 * Heartbeats run on their own loop (the shared HeartbeatLoop), from a SyncGroup's answer
 * to the next JoinGroup, and never wait for the application; a revoke waits for
 * processing (bounded by the rebalance timeout) before the JoinGroup that follows, as the
 * protocol wants. With an eager assignor everything is revoked before each join; with
 * a cooperative one (KIP-429) only what moves is revoked, after the sync, and the member
 * rejoins at once so the partitions can go to their new owner.
 *
 * `#state` is the single source of truth for whether a commit may be built now: only in
 * 'stable' is (memberId, generation) the identity the coordinator knows this member by.
 */
import type { Client } from '../client/client'
import { waitOn } from '../client/clock'
import { Signal } from '../client/signal'
import { Heartbeat } from '../protocol/apis/heartbeat'
import { JoinGroup, type JoinGroupResponse } from '../protocol/apis/join-group'
import { LeaveGroup } from '../protocol/apis/leave-group'
import { SyncGroup } from '../protocol/apis/sync-group'
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from '../protocol/consumer-protocol'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { Assignor, MemberSubscription } from './assignors'
import type { GroupCoordinator } from './coordinator'
import { staticMembershipEnded } from './errors'
import { heartbeatBackoffMs, HeartbeatLoop, type BeatOutcome } from './heartbeat-loop'
import {
  isFencingError, leaveFailed,
  type MemberIdentity, type Membership, type MembershipHost, type TopicPartition
} from './membership'

type ClassicState = 'unjoined' | 'joining' | 'syncing' | 'stable' | 'stopped'
/** Why a stable member rejoins: 'rejoin' when the coordinator began a rebalance, 'grown' when this leader saw a subscribed topic gain partitions. */
type RejoinReason = 'rejoin' | 'grown' | 'fenced' | 'stopped'

export class ClassicMembership implements Membership {
  readonly protocol = 'classic' as const
  readonly #client: Client
  readonly #coordinator: GroupCoordinator
  readonly #host: MembershipHost
  readonly #assignor: Assignor
  #state: ClassicState = 'unjoined'
  #memberId = ''
  #generation = -1
  #rejoinRequested = false
  /** This leader saw a subscribed topic gain partitions (with #rejoinRequested). */
  #grown = false
  readonly #stateChanged = new Signal()
  /** Notified when a rejoin is requested or the membership ended (#endedBy): the stable member wakes. */
  readonly #rejoinWanted = new Signal()
  /** The current generation's heartbeats, from its SyncGroup's answer to the next JoinGroup. */
  #heartbeats: HeartbeatLoop | undefined
  readonly #heartbeated = new Signal()
  readonly #stop = new AbortController()
  #running: Promise<void> | undefined
  /** Partition counts the leader assigned with: a change (new partitions) triggers a rebalance. */
  #assignedCounts = new Map<string, number>()
  #isLeader = false

  constructor (client: Client, coordinator: GroupCoordinator, host: MembershipHost, assignor: Assignor) {
    this.#client = client
    this.#coordinator = coordinator
    this.#host = host
    this.#assignor = assignor
  }

  start (): void {
    this.#running ??= this.#run()
  }

  identity (): MemberIdentity | undefined {
    return this.#state === 'stable' ? { memberId: this.#memberId, generation: this.#generation } : undefined
  }

  async whenStable (signal?: AbortSignal): Promise<void> {
    while (this.#state !== 'stable') {
      if (this.#state === 'stopped') throw new KafkaTsError('GROUP_STOPPED', `The consumer left group "${this.#host.groupId}"`)
      await this.#stateChanged.wait(signal)
    }
  }

  async nextHeartbeat (signal?: AbortSignal): Promise<void> {
    await this.#heartbeated.wait(signal)
  }

  onFencedResponse (errorCode: number): void {
    // FENCED_INSTANCE_ID ends the member wherever it is learnt (staticMembershipEnded), as a heartbeat's (#beat).
    if (errorCode === ErrorCode.FENCED_INSTANCE_ID) this.#endedBy ??= new BrokerError(errorCode, `Committing offsets in group "${this.#host.groupId}"`)
    this.#fenced = true
    this.requestRejoin()
  }

  requestRejoin (): void {
    this.#rejoinRequested = true
    this.#rejoinWanted.notify()
  }

  #fenced = false
  /**
   * An error that ends the membership, learnt while the run loop was busy (a heartbeat
   * during a revoke, a commit's answer): the loop throws it at its next step, where the
   * one rule for membership errors applies.
   */
  #endedBy: KafkaTsError | undefined

  async stop (leave: boolean): Promise<void> {
    const wasMember = this.#memberId !== '' && this.#state !== 'stopped'
    this.#stop.abort()
    await this.#running?.catch(() => {})
    this.#setState('stopped')
    // KIP-345: a static member does not leave; its instance id keeps its partitions for a
    // restart within the session timeout (the Java client leaves only when asked to).
    if (leave && wasMember && this.#host.instanceId === null) {
      await this.#coordinator.send(LeaveGroup, version => version >= 3
        ? { groupId: this.#host.groupId, members: [{ memberId: this.#memberId, groupInstanceId: this.#host.instanceId, reason: 'the consumer is closing' }] }
        : { groupId: this.#host.groupId, memberId: this.#memberId }, r => r.errorCode, this.#coordinator.leaveRequestBound()).catch(error => { this.#host.warning(leaveFailed(this.#host.groupId, error)) })
    }
  }

  #setState (state: ClassicState): void {
    this.#state = state
    this.#stateChanged.notify()
  }

  async #run (): Promise<void> {
    try {
      await this.#joinAndHeartbeat(this.#stop.signal)
    } finally {
      await this.#stopHeartbeats()
    }
  }

  async #joinAndHeartbeat (signal: AbortSignal): Promise<void> {
    let failures = 0
    while (!signal.aborted) {
      try {
        if (this.#endedBy !== undefined) throw this.#endedBy
        // Eager: give everything back before joining (heartbeats of the generation go on
        // meanwhile). After a fence, everything was lost already.
        if (this.#assignor.protocol === 'eager' && !this.#fenced) {
          await this.#host.revokeAll(this.#generation >= 0 ? { memberId: this.#memberId, generation: this.#generation } : undefined)
          if (this.#endedBy !== undefined) throw this.#endedBy
        }
        // No heartbeats while joining: the JoinGroup itself keeps the member in the group.
        await this.#stopHeartbeats()
        this.#fenced = false
        this.#rejoinRequested = false
        this.#grown = false
        this.#setState('joining')
        const joined = await this.#join(signal)
        this.#setState('syncing')
        const assignment = await this.#sync(joined, signal)
        if (assignment === undefined) continue // the rebalance moved on: join again
        const identity = { memberId: this.#memberId, generation: this.#generation }
        this.#startHeartbeats()
        // Under the stop signal: close() must not wait for ever on an OffsetFetch the coordinator keeps refusing.
        const revoked = await this.#host.applyAssignment(assignment, identity, { signal, superseded: () => false, current: () => identity })
        if (this.#endedBy !== undefined) throw this.#endedBy
        failures = 0
        if (this.#fenced) {
          await this.#onFenced('fenced while the assignment was applied')
          continue
        }
        if (this.#rejoinRequested) {
          this.#host.rebalancing(identity, 'a rebalance began while the assignment was applied')
          continue
        }
        if (revoked.length > 0 && this.#assignor.protocol === 'cooperative') {
          // KIP-429: the revoked partitions can go to their new owner only in the next rebalance.
          continue
        }
        this.#setState('stable')
        const outcome = await this.#untilRejoin(signal)
        if (outcome === 'stopped') return
        if (outcome === 'rejoin') this.#host.rebalancing(identity, 'the coordinator began a rebalance')
        if (outcome === 'grown') this.#host.rebalancing(identity, 'a subscribed topic gained partitions')
        if (outcome === 'fenced') await this.#onFenced('the coordinator no longer knows this member (session expired, or it was fenced)')
      } catch (error) {
        if (signal.aborted) return
        const staticEnd = staticMembershipEnded(error, this.#host.groupId, this.#host.instanceId)
        if (staticEnd !== undefined) {
          this.#host.fatal(staticEnd)
          this.#setState('stopped')
          return
        }
        if (error instanceof BrokerError && isFencingError(error.code)) {
          await this.#onFenced(error.message)
          continue
        }
        if (error instanceof KafkaTsError && !error.retriable && !(error instanceof BrokerError && error.code === ErrorCode.REBALANCE_IN_PROGRESS)) {
          this.#host.fatal(error)
          this.#setState('stopped')
          return
        }
        this.#setState('unjoined')
        await this.#stopHeartbeats()
        await waitOn(this.#client.clock, heartbeatBackoffMs(this.#host.heartbeatIntervalMs, failures++), signal)
      }
    }
  }

  async #onFenced (reason: string): Promise<void> {
    this.#setState('unjoined')
    await this.#stopHeartbeats()
    await this.#host.loseAll(reason)
    this.#generation = -1
    this.#fenced = true
  }

  async #join (signal: AbortSignal): Promise<JoinGroupResponse> {
    const topics = await this.#host.subscribedTopics(signal)
    for (;;) {
      const owned = this.#assignor.protocol === 'cooperative' ? groupByTopic(this.#host.heldPartitions()) : []
      const metadata = encodeSubscription({
        topics,
        userData: this.#assignor.subscriptionUserData?.() ?? null,
        ownedPartitions: owned,
        generationId: this.#generation,
        rackId: this.#host.rack
      })
      const response = await this.#coordinator.send(JoinGroup, {
        groupId: this.#host.groupId,
        sessionTimeoutMs: this.#host.sessionTimeoutMs,
        rebalanceTimeoutMs: this.#host.rebalanceTimeoutMs,
        memberId: this.#memberId,
        groupInstanceId: this.#host.instanceId,
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocols: [{ name: this.#assignor.name, metadata }],
        reason: null
      }, r => r.errorCode, { signal, timeoutMs: this.#host.rebalanceTimeoutMs + 5000 })
      if (response.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
        // KIP-394: the coordinator hands out the member id, then expects the join again.
        this.#memberId = response.memberId
        continue
      }
      if (response.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
        this.#memberId = ''
        throw new BrokerError(response.errorCode, `Joining group "${this.#host.groupId}"`)
      }
      if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Joining group "${this.#host.groupId}"`)
      this.#memberId = response.memberId
      this.#generation = response.generationId
      this.#isLeader = response.leader === response.memberId
      return response
    }
  }

  async #sync (joined: JoinGroupResponse, signal: AbortSignal): Promise<TopicPartition[] | undefined> {
    let assignments: Array<{ memberId: string, assignment: Buffer }> = []
    if (this.#isLeader && !joined.skipAssignment) assignments = await this.#assign(joined, signal)
    // KIP-345: a restarted static leader keeps the group's assignment and does not assign,
    // but it still watches the partition counts, from what the members subscribe to now.
    if (this.#isLeader && joined.skipAssignment) this.#assignedCounts = await this.#partitionCounts(joined.members.map(m => decodeSubscription(m.metadata).topics), signal)
    const response = await this.#coordinator.send(SyncGroup, {
      groupId: this.#host.groupId,
      generationId: this.#generation,
      memberId: this.#memberId,
      groupInstanceId: this.#host.instanceId,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: this.#assignor.name,
      assignments
    }, r => r.errorCode, { signal, timeoutMs: this.#host.rebalanceTimeoutMs + 5000 })
    if (response.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) return undefined
    if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Syncing group "${this.#host.groupId}" (generation ${this.#generation})`)
    const decoded = decodeAssignment(response.assignment)
    const partitions: TopicPartition[] = []
    for (const t of decoded.assignedPartitions) for (const partition of t.partitions) partitions.push({ topic: t.topic, partition })
    return partitions
  }

  /** The leader's job: every member's partitions from the assignor. */
  async #assign (joined: JoinGroupResponse, signal: AbortSignal): Promise<Array<{ memberId: string, assignment: Buffer }>> {
    const members: MemberSubscription[] = joined.members.map(m => {
      const s = decodeSubscription(m.metadata)
      return {
        memberId: m.memberId,
        instanceId: m.groupInstanceId,
        topics: s.topics,
        ownedPartitions: s.ownedPartitions.flatMap(t => t.partitions.map(partition => ({ topic: t.topic, partition }))),
        generation: s.generationId,
        rack: s.rackId,
        userData: s.userData
      }
    })
    const counts = await this.#partitionCounts(members.map(m => m.topics), signal)
    this.#assignedCounts = counts
    const plan = await this.#assignor.assign(members, counts)
    return members.map(m => ({ memberId: m.memberId, assignment: encodeAssignment({ assignedPartitions: groupByTopic(plan.get(m.memberId) ?? []) }) }))
  }

  /** The partition count of every topic some member subscribes to, from fresh metadata. */
  async #partitionCounts (subscriptions: string[][], signal: AbortSignal): Promise<Map<string, number>> {
    const topics = [...new Set(subscriptions.flat())]
    await this.#client.metadata.refresh(topics, signal)
    const counts = new Map<string, number>()
    for (const topic of topics) {
      const meta = this.#client.metadata.topic(topic)
      if (meta !== undefined) counts.set(topic, meta.partitions.length)
    }
    return counts
  }

  /**
   * Heartbeats for the generation just synced, on the shared loop: the first one interval
   * after the SyncGroup, as the Java client and kafkajs (whose HEARTBEAT events come at
   * least heartbeatInterval apart) send it (the SyncGroup just answered told all a
   * heartbeat would), then an interval after each answer, a backoff after a failure.
   */
  #startHeartbeats (): void {
    const loop = new HeartbeatLoop({
      clock: this.#client.clock,
      intervalMs: this.#host.heartbeatIntervalMs,
      firstAfterMs: this.#host.heartbeatIntervalMs,
      beat: async signal => await this.#beat(signal)
    })
    this.#heartbeats = loop
    loop.start()
  }

  async #stopHeartbeats (): Promise<void> {
    const loop = this.#heartbeats
    this.#heartbeats = undefined
    await loop?.stop()
  }

  /** Resolves when a rebalance is wanted (a heartbeat's answer, a commit's, requestRejoin); throws what ended the membership. */
  async #untilRejoin (signal: AbortSignal): Promise<RejoinReason> {
    while (!signal.aborted) {
      if (this.#endedBy !== undefined) throw this.#endedBy
      if (this.#rejoinRequested) return this.#fenced ? 'fenced' : this.#grown ? 'grown' : 'rejoin'
      await this.#rejoinWanted.wait(signal).catch(() => {})
    }
    return 'stopped'
  }

  /**
   * One heartbeat and what its answer means, the same whatever the member does meanwhile
   * (stable, or revoking, or applying an assignment): REBALANCE_IN_PROGRESS asks for a
   * rejoin (heartbeats go on until the JoinGroup), a fence (ILLEGAL_GENERATION,
   * UNKNOWN_MEMBER_ID) loses everything and rejoins, a retriable error is a 'warning' and
   * is retried after a backoff (the session timeout decides whether we are still a
   * member), and any other error ends the membership (#endedBy), FENCED_INSTANCE_ID among
   * them (StaticMembershipError, #joinAndHeartbeat's rule).
   */
  async #beat (signal: AbortSignal): Promise<BeatOutcome> {
    let code: number
    try {
      if (this.#state === 'stable' && this.#isLeader && !this.#rejoinRequested && await this.#partitionCountsChanged(signal)) {
        this.#grown = true
        this.requestRejoin()
        return 'sent'
      }
      code = await this.#sendHeartbeat(signal)
    } catch (error) {
      if (signal.aborted) return 'done'
      return this.#heartbeatFailed(error)
    }
    if (code === 0) {
      this.#heartbeated.notify()
      return 'sent'
    }
    if (code === ErrorCode.REBALANCE_IN_PROGRESS) {
      this.requestRejoin()
      return 'sent'
    }
    if (code === ErrorCode.ILLEGAL_GENERATION || code === ErrorCode.UNKNOWN_MEMBER_ID) {
      if (code === ErrorCode.UNKNOWN_MEMBER_ID) this.#memberId = ''
      this.#fenced = true
      this.requestRejoin()
      return 'done'
    }
    return this.#heartbeatFailed(new BrokerError(code, `Heartbeat in group "${this.#host.groupId}"`))
  }

  #heartbeatFailed (error: unknown): BeatOutcome {
    if (error instanceof KafkaTsError && !error.retriable) {
      this.#endedBy ??= error
      this.#rejoinWanted.notify()
      return 'done'
    }
    this.#host.warning(new KafkaTsError('HEARTBEAT_FAILED', `Group "${this.#host.groupId}": a heartbeat failed (${(error as Error).message}); it is retried after a backoff, and the member stays in the group while its session timeout (${this.#host.sessionTimeoutMs} ms) has not passed`, { cause: error }))
    return 'failed'
  }

  /** One Heartbeat for the current generation; returns its error code. */
  async #sendHeartbeat (signal: AbortSignal): Promise<number> {
    const response = await this.#coordinator.send(Heartbeat, {
      groupId: this.#host.groupId,
      generationId: this.#generation,
      memberId: this.#memberId,
      groupInstanceId: this.#host.instanceId
    }, r => r.errorCode, { signal, timeoutMs: this.#host.sessionTimeoutMs })
    return response.errorCode
  }

  async #partitionCountsChanged (signal: AbortSignal): Promise<boolean> {
    for (const [topic, count] of this.#assignedCounts) {
      const meta = this.#client.metadata.topic(topic)
      if (meta !== undefined && meta.partitions.length !== count) return true
    }
    const subscribed = await this.#host.subscribedTopics(signal)
    return subscribed.some(t => !this.#assignedCounts.has(t) && this.#client.metadata.topic(t) !== undefined)
  }
}

export function groupByTopic (partitions: TopicPartition[]): Array<{ topic: string, partitions: number[] }> {
  const byTopic = new Map<string, number[]>()
  for (const p of partitions) {
    const list = byTopic.get(p.topic)
    if (list === undefined) byTopic.set(p.topic, [p.partition])
    else list.push(p.partition)
  }
  return [...byTopic].map(([topic, list]) => ({ topic, partitions: list.sort((a, b) => a - b) }))
}

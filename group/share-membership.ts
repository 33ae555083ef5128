/**
 * Share group membership (KIP-932): one ShareGroupHeartbeat request joins (epoch 0 with a
 * member id the client chose), keeps the member alive, reports its subscription and
 * leaves (epoch -1). The coordinator assigns partitions on the server; several members
 * may get the same partition, and nothing is handed over between them: a partition that
 * leaves the assignment is simply not fetched any more (its acquired records may still be
 * acknowledged), a new one is fetched at once. So, unlike KIP-848, there is nothing to
 * reconcile: the latest assignment is applied as it arrives.
 *
 * FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: the member joins again with epoch 0 and the
 * same member id (the broker has released what it had acquired).
 */
import { randomUUID } from 'node:crypto'
import type { Client } from '../client/client'
import { sleep } from '../client/backoff'
import { UnsupportedVersionError } from '../client/errors'
import { ShareGroupHeartbeat, ShareGroupMemberEpoch } from '../protocol/apis/share-group-heartbeat'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { GroupCoordinator } from './coordinator'
import { ShareGroupsDisabledError } from './errors'
import { FENCED_MEMBER_EPOCH, Signal, UNKNOWN_MEMBER_ID, UNSUPPORTED_VERSION, type TopicPartition } from './membership'

/** The broker runs share groups only where it listed ShareGroupHeartbeat; some answer INVALID_REQUEST (42) or UNSUPPORTED_VERSION otherwise. */
const INVALID_REQUEST = 42

export interface ShareMembershipHost {
  readonly groupId: string
  readonly topics: readonly string[]
  readonly rack: string | null
  /** The coordinator's latest assignment (every time it changes, and [] when fenced). */
  assigned: (partitions: TopicPartition[]) => void
  /** An error no retry fixes: the consumer ends with it. */
  fatal: (error: Error) => void
}

export class ShareMembership {
  readonly #client: Client
  readonly #coordinator: GroupCoordinator
  readonly #host: ShareMembershipHost
  /** Chosen here and kept for the member's whole life, rejoins included (KIP-932). */
  readonly memberId = randomUUID()
  #memberEpoch = 0
  #intervalMs = 5000
  #sentTopics: string | undefined
  readonly #stateChanged = new Signal()
  readonly #stop = new AbortController()
  #running: Promise<void> | undefined
  #stopped = false
  #wakeEarly = false

  constructor (client: Client, coordinator: GroupCoordinator, host: ShareMembershipHost) {
    this.#client = client
    this.#coordinator = coordinator
    this.#host = host
  }

  get memberEpoch (): number {
    return this.#memberEpoch
  }

  start (): void {
    this.#running ??= this.#run()
  }

  /** Resolves once the member is in the group (a heartbeat answered with an epoch). */
  async whenJoined (signal?: AbortSignal): Promise<void> {
    while (this.#memberEpoch <= 0) {
      if (this.#stopped) throw new KafkaTsError('GROUP_STOPPED', `The share consumer left group "${this.#host.groupId}"`)
      await this.#stateChanged.wait(signal)
    }
  }

  /** A fetch learnt that the member is not known (fenced): heartbeat now. */
  wake (): void {
    this.#wakeEarly = true
  }

  async stop (leave: boolean): Promise<void> {
    this.#stop.abort()
    await this.#running?.catch(() => {})
    const wasMember = this.#memberEpoch > 0
    this.#stopped = true
    this.#stateChanged.notify()
    if (leave && wasMember) {
      await this.#coordinator.send(ShareGroupHeartbeat, {
        groupId: this.#host.groupId,
        memberId: this.memberId,
        memberEpoch: ShareGroupMemberEpoch.LEAVE
      }, r => r.errorCode, { timeoutMs: 5000 }).catch(() => {})
    }
    this.#memberEpoch = 0
  }

  async #run (): Promise<void> {
    const signal = this.#stop.signal
    let failures = 0
    while (!signal.aborted) {
      try {
        await this.#heartbeat(signal)
        failures = 0
      } catch (error) {
        if (signal.aborted) return
        if (error instanceof BrokerError && (error.code === FENCED_MEMBER_EPOCH || error.code === UNKNOWN_MEMBER_ID)) {
          this.#memberEpoch = 0
          this.#sentTopics = undefined
          this.#host.assigned([])
          this.#stateChanged.notify()
          continue
        }
        const disabled = this.#disabled(error)
        if (disabled !== undefined || (error instanceof KafkaTsError && !error.retriable)) {
          this.#stopped = true
          this.#stateChanged.notify()
          this.#host.fatal(disabled ?? error as Error)
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

  /** The error to end with when the broker does not run share groups, else undefined. */
  #disabled (error: unknown): ShareGroupsDisabledError | undefined {
    if (error instanceof UnsupportedVersionError) return new ShareGroupsDisabledError(this.#host.groupId, UNSUPPORTED_VERSION, error.message)
    if (error instanceof BrokerError && this.#memberEpoch === 0 && (error.code === UNSUPPORTED_VERSION || error.code === INVALID_REQUEST)) {
      return new ShareGroupsDisabledError(this.#host.groupId, error.code, error.message)
    }
    return undefined
  }

  async #heartbeat (signal: AbortSignal): Promise<void> {
    const joining = this.#memberEpoch === 0
    const topics = [...this.#host.topics].sort()
    const topicsKey = topics.join('\u0000')
    const response = await this.#coordinator.send(ShareGroupHeartbeat, {
      groupId: this.#host.groupId,
      memberId: this.memberId,
      memberEpoch: this.#memberEpoch,
      rackId: joining ? this.#host.rack : null,
      subscribedTopicNames: joining || topicsKey !== this.#sentTopics ? topics : null
    }, r => r.errorCode, { signal, timeoutMs: 10_000 })
    if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Share group heartbeat in group "${this.#host.groupId}" (member epoch ${this.#memberEpoch})`, response.errorMessage)
    this.#sentTopics = topicsKey
    if (response.heartbeatIntervalMs > 0) this.#intervalMs = response.heartbeatIntervalMs
    // The epoch first: fetching starts when the assignment lands, and only for a member.
    this.#memberEpoch = response.memberEpoch
    if (response.assignment !== null) {
      const assigned: TopicPartition[] = []
      for (const t of response.assignment.topicPartitions) {
        let name = this.#client.metadata.topicById(t.topicId)?.name
        if (name === undefined) {
          await this.#client.metadata.refreshAll(signal)
          name = this.#client.metadata.topicById(t.topicId)?.name
        }
        if (name === undefined) continue // deleted meanwhile
        for (const partition of t.partitions) assigned.push({ topic: name, partition })
      }
      this.#host.assigned(assigned)
    }
    this.#stateChanged.notify()
  }
}

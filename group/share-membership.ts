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
import type { Client } from '../client/client'
import { UnsupportedVersionError } from '../client/errors'
import { ShareGroupHeartbeat, ShareGroupMemberEpoch } from '../protocol/apis/share-group-heartbeat'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { GroupCoordinator } from './coordinator'
import { ShareGroupsDisabledError } from './errors'
import { assignedPartitions, EpochHeartbeat, knownPartitions } from './epoch-heartbeat'
import type { TopicPartition } from './membership'

/** The broker runs share groups only where it listed ShareGroupHeartbeat; some answer INVALID_REQUEST (42) or UNSUPPORTED_VERSION otherwise. */

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
  /** Member id (KIP-932: chosen here, kept across rejoins), epoch, interval and the heartbeat loop. */
  readonly #loop: EpochHeartbeat
  #sentTopics: string | undefined

  constructor (client: Client, coordinator: GroupCoordinator, host: ShareMembershipHost) {
    this.#client = client
    this.#coordinator = coordinator
    this.#host = host
    this.#loop = new EpochHeartbeat(client, {
      groupId: host.groupId,
      member: 'share consumer',
      intervalMs: 5000,
      heartbeat: signal => this.#heartbeat(signal),
      fenced: () => {
        this.#loop.memberEpoch = 0
        this.#sentTopics = undefined
        this.#host.assigned([])
        this.#loop.stateChanged.notify()
      },
      ends: error => {
        const disabled = this.#disabled(error)
        if (disabled === undefined && !(error instanceof KafkaTsError && !error.retriable)) return false
        this.#loop.end()
        this.#host.fatal(disabled ?? error as Error)
        return true
      },
      leave: async () => await this.#coordinator.send(ShareGroupHeartbeat, {
        groupId: host.groupId,
        memberId: this.#loop.memberId,
        memberEpoch: ShareGroupMemberEpoch.LEAVE
      }, r => r.errorCode, this.#coordinator.leaveRequestBound()).then(r => r.errorCode)
    })
  }

  get memberId (): string {
    return this.#loop.memberId
  }

  get memberEpoch (): number {
    return this.#loop.memberEpoch
  }

  start (): void {
    this.#loop.start()
  }

  /** Resolves once the member is in the group (a heartbeat answered with an epoch). */
  whenJoined (signal?: AbortSignal): Promise<void> {
    return this.#loop.until(() => this.#loop.memberEpoch > 0, signal)
  }

  /** A fetch learnt that the member is not known (fenced): heartbeat now. */
  wake (): void {
    this.#loop.wake()
  }

  /** Resolves with why leaving the group failed, if it did. */
  async stop (leave: boolean): Promise<Error | undefined> {
    return await this.#loop.stop(leave)
  }

  /** The error to end with when the broker does not run share groups, else undefined. */
  #disabled (error: unknown): ShareGroupsDisabledError | undefined {
    if (error instanceof UnsupportedVersionError) return new ShareGroupsDisabledError(this.#host.groupId, ErrorCode.UNSUPPORTED_VERSION, error.message)
    if (error instanceof BrokerError && this.#loop.memberEpoch === 0 && (error.code === ErrorCode.UNSUPPORTED_VERSION || error.code === ErrorCode.INVALID_REQUEST)) {
      return new ShareGroupsDisabledError(this.#host.groupId, error.code, error.message)
    }
    return undefined
  }

  async #heartbeat (signal: AbortSignal): Promise<void> {
    const joining = this.#loop.memberEpoch === 0
    const topics = [...this.#host.topics].sort()
    const topicsKey = topics.join('\u0000')
    const response = await this.#coordinator.send(ShareGroupHeartbeat, {
      groupId: this.#host.groupId,
      memberId: this.#loop.memberId,
      memberEpoch: this.#loop.memberEpoch,
      rackId: joining ? this.#host.rack : null,
      subscribedTopicNames: joining || topicsKey !== this.#sentTopics ? topics : null
    }, r => r.errorCode, { signal, timeoutMs: 10_000 })
    if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Share group heartbeat in group "${this.#host.groupId}" (member epoch ${this.#loop.memberEpoch})`, response.errorMessage)
    this.#sentTopics = topicsKey
    if (response.heartbeatIntervalMs > 0) this.#loop.intervalMs = response.heartbeatIntervalMs
    // The epoch first: fetching starts when the assignment lands, and only for a member.
    this.#loop.memberEpoch = response.memberEpoch
    if (response.assignment !== null) {
      const byId = response.assignment.topicPartitions
      this.#host.assigned(knownPartitions(this.#client, byId) ?? await assignedPartitions(this.#client, byId, signal))
    }
    this.#loop.stateChanged.notify()
  }
}

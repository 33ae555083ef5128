/**
 * What the two memberships of one heartbeat request share (KIP-848's consumer-membership.ts
 * and KIP-932's share-membership.ts): a member id the client chose and keeps across fences,
 * a member epoch the coordinator moves (0 to join), and, on the shared HeartbeatLoop, the
 * heartbeat at the interval the coordinator asks for, which on FENCED_MEMBER_EPOCH /
 * UNKNOWN_MEMBER_ID lets the membership rejoin at epoch 0 at once. What a heartbeat says,
 * what its answer means and which errors end the membership stay with each membership
 * (`HeartbeatRules`).
 */
import { randomUUID } from 'node:crypto'
import type { Client } from '../client/client'
import { Signal } from '../client/signal'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import { HeartbeatLoop, type BeatOutcome } from './heartbeat-loop'
import type { TopicPartition } from './membership'

export interface HeartbeatRules {
  readonly groupId: string
  /** Who left, in the GROUP_STOPPED error: "consumer", "share consumer". */
  readonly member: string
  /** Until the first answer says otherwise. */
  readonly intervalMs: number
  /** Sends one heartbeat and applies its answer; an error answer throws a BrokerError. */
  heartbeat: (signal: AbortSignal) => Promise<void>
  /** The coordinator forgot this member: drop what it held and set the epoch to 0 (the next heartbeat joins). */
  fenced: (reason: string) => Promise<void> | void
  /** A fence learnt outside the heartbeat (a reconciliation's OffsetFetch), handled before the next one. */
  pendingFence?: () => string | undefined
  /** Any other heartbeat error: true if it ended the membership (the loop stops), false to back off and retry. */
  ends: (error: unknown) => boolean
  /** Sends the leave heartbeat; resolves with its answer's error code. */
  leave: () => Promise<number>
}

/** FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: the member rejoins at epoch 0 with the same member id. */
export function isMemberForgotten (error: unknown): error is BrokerError {
  return error instanceof BrokerError && isForgottenCode(error.code)
}

function isForgottenCode (code: number): boolean {
  return code === ErrorCode.FENCED_MEMBER_EPOCH || code === ErrorCode.UNKNOWN_MEMBER_ID
}

export class EpochHeartbeat {
  /** KIP-1082 / KIP-932: chosen here and kept for the member's whole life, rejoins included. */
  readonly memberId = randomUUID()
  /** 0 while joining; moved by heartbeat answers (and set to 0 by a fence). */
  memberEpoch = 0
  /** Notified whenever the epoch, the assignment or `stopped` changed. */
  readonly stateChanged = new Signal()
  readonly #rules: HeartbeatRules
  readonly #loop: HeartbeatLoop
  #stopped = false

  constructor (client: Client, rules: HeartbeatRules) {
    this.#rules = rules
    this.#loop = new HeartbeatLoop({ clock: client.clock, intervalMs: rules.intervalMs, firstAfterMs: 0, beat: async signal => await this.#beat(signal) })
  }

  /** The coordinator's heartbeat interval, from its last answer. */
  get intervalMs (): number {
    return this.#loop.intervalMs
  }

  set intervalMs (ms: number) {
    this.#loop.intervalMs = ms
  }

  get stopped (): boolean {
    return this.#stopped
  }

  start (): void {
    this.#loop.start()
  }

  /** Heartbeat now rather than at the end of the interval. */
  wake (): void {
    this.#loop.wake()
  }

  /**
   * The membership is over (stopped, or an error ended it): waiters in `until` fail. An
   * error that ended it (`ended`) also stops the heartbeats and leaves nothing to leave on
   * close, as Java's FATAL state: the coordinator fenced the member or will not have it.
   */
  end (ended = false): void {
    this.#stopped = true
    if (ended) {
      this.memberEpoch = 0
      void this.#loop.stop()
    }
    this.stateChanged.notify()
  }

  /** Resolves once `ready()` holds; throws GROUP_STOPPED once the membership is over. */
  async until (ready: () => boolean, signal?: AbortSignal): Promise<void> {
    while (!ready()) {
      if (this.#stopped) throw new KafkaTsError('GROUP_STOPPED', `The ${this.#rules.member} left group "${this.#rules.groupId}"`)
      await this.stateChanged.wait(signal)
    }
  }

  /** How long to wait after `failures` failures in a row (of a heartbeat, or of work it started). */
  backoffMs (failures: number): number {
    return this.#loop.backoffMs(failures)
  }

  /**
   * Stops heartbeating, then leaves the group if `leave` and a member. `settle` runs in
   * between, once no heartbeat runs any more (KIP-848: end the reconciliation). Resolves
   * with why the leave failed, if it did (the coordinator then drops the member only when
   * its session times out), for the caller to report.
   */
  async stop (leave: boolean, settle?: () => Promise<void>): Promise<Error | undefined> {
    await this.#loop.stop()
    if (settle !== undefined) await settle()
    const wasMember = this.memberEpoch > 0
    this.end()
    let leaveFailure: Error | undefined
    if (leave && wasMember) {
      // Answered "not a member" (fenced, expired meanwhile): gone already, as leaving wanted.
      const left = (code: number): void => { if (code !== 0 && !isForgottenCode(code)) leaveFailure = new BrokerError(code, `Leaving group "${this.#rules.groupId}"`) }
      await this.#rules.leave().then(left, error => { leaveFailure = error as Error })
    }
    this.memberEpoch = 0
    return leaveFailure
  }

  async #beat (signal: AbortSignal): Promise<BeatOutcome> {
    const rules = this.#rules
    try {
      const fence = rules.pendingFence?.()
      if (fence !== undefined) {
        await rules.fenced(fence)
        return 'again'
      }
      await rules.heartbeat(signal)
      return 'sent'
    } catch (error) {
      if (signal.aborted) return 'done'
      if (isMemberForgotten(error)) {
        await rules.fenced(error.message)
        return 'again'
      }
      return rules.ends(error) ? 'done' : 'failed'
    }
  }
}

/**
 * A heartbeat answer's assignment by topic id, as partitions by name; undefined if the
 * metadata does not know one of the topic ids (then `assignedPartitions`). Synchronous on
 * purpose: with every name known the answer is applied in the tick it arrived, before a
 * reconciliation's OffsetFetch answered in the same read goes on (it must see the newer
 * target, `Reconciliation.superseded`).
 */
export function knownPartitions (client: Client, topics: ReadonlyArray<{ topicId: string, partitions: number[] }>): TopicPartition[] | undefined {
  const assigned: TopicPartition[] = []
  for (const t of topics) {
    const name = client.metadata.topicById(t.topicId)?.name
    if (name === undefined) return undefined
    for (const partition of t.partitions) assigned.push({ topic: name, partition })
  }
  return assigned
}

/** As `knownPartitions`, refreshing the metadata for each unknown topic id; a topic deleted meanwhile is left out. */
export async function assignedPartitions (client: Client, topics: ReadonlyArray<{ topicId: string, partitions: number[] }>, signal: AbortSignal): Promise<TopicPartition[]> {
  const assigned: TopicPartition[] = []
  for (const t of topics) {
    let name = client.metadata.topicById(t.topicId)?.name
    if (name === undefined) {
      await client.metadata.refreshAll(signal)
      name = client.metadata.topicById(t.topicId)?.name
    }
    if (name === undefined) continue
    for (const partition of t.partitions) assigned.push({ topic: name, partition })
  }
  return assigned
}

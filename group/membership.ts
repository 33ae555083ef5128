/**
 * What a group membership protocol (classic or KIP-848) and the group consumer say to
 * each other. The membership decides which partitions this member holds; the consumer
 * (group-consumer.ts) fetches them, revokes them (waiting for processing and committing)
 * and releases them.
 */
import { ErrorCode } from '../protocol/error-codes'
import { KafkaTsError, type BrokerError } from '../protocol/errors'

/** A partition, by its topic's name and its number. */
export interface TopicPartition {
  /** The topic's name. */
  topic: string
  /** The partition's number. */
  partition: number
}

/** The membership a commit is made under: member id and classic generation or KIP-848 member epoch. */
export interface MemberIdentity {
  /** The member's id, given by the coordinator. */
  memberId: string
  /** The classic protocol's generation, or the KIP-848 member epoch. */
  generation: number
}

export interface MembershipHost {
  readonly groupId: string
  readonly instanceId: string | null
  readonly rack: string | null
  readonly sessionTimeoutMs: number
  readonly rebalanceTimeoutMs: number
  readonly heartbeatIntervalMs: number
  /** A RegExp subscription as Kafka's SubscribedTopicRegex (RE2/J, whole names), or null. */
  readonly subscriptionPattern: string | null
  /** The topics this member subscribes to now (a RegExp subscription is resolved here). */
  subscribedTopics: (signal?: AbortSignal) => Promise<string[]>
  /** Partitions held now (ownership not released). */
  heldPartitions: () => TopicPartition[]
  /**
   * The coordinator confirmed that this member holds exactly `target` under `identity`.
   * Held partitions not in it are revoked (processing awaited, what was processed
   * committed under `identity`, then released); held ones in it are re-stamped with
   * `identity`; new ones start fetching from their committed offsets.
   * Returns the partitions revoked.
   */
  applyAssignment: (target: TopicPartition[], identity: MemberIdentity, reconciliation?: Reconciliation) => Promise<TopicPartition[]>
  /** A rebalance began for this member, which held an assignment under `identity` (classic: it rejoins; KIP-848: a new target came). */
  rebalancing: (identity: MemberIdentity, reason: string) => void
  /** Eager rebalancing: revoke everything before rejoining. */
  revokeAll: (identity: MemberIdentity | undefined) => Promise<void>
  /** This member was fenced: every partition is lost, released without a commit. */
  loseAll: (reason: string) => Promise<void>
  /** The membership cannot go on (e.g. a fenced static member): the consumer ends with this error. */
  fatal: (error: Error) => void
  /** Something went wrong that the membership retries (the consumer's 'warning'). */
  warning: (error: Error) => void
  /** KIP-848: the broker answered the first heartbeat UNSUPPORTED_VERSION (it lists the API but does not run the protocol). */
  protocolUnsupported: (error: BrokerError) => void
}

/**
 * What a KIP-848 reconciliation may ask while it runs: the coordinator can move the
 * member's epoch, send a newer target or fence the member at any await inside it.
 */
export interface Reconciliation {
  /** Aborted when the member is fenced or stops: apply nothing more. */
  readonly signal: AbortSignal
  /** A newer target arrived: stop before adding partitions (the reconciliation runs again with it). */
  superseded: () => boolean
  /** The member id and epoch the coordinator knows the member by now, which OffsetFetch must carry. */
  current: () => MemberIdentity
}

export interface Membership {
  readonly protocol: 'classic' | 'consumer'
  start: () => void
  /** Leaves the group (unless `leave` is false) and stops heartbeating. */
  stop: (leave: boolean) => Promise<void>
  /** The identity commits are made under now, undefined while not a member. */
  identity: () => MemberIdentity | undefined
  /** Resolves when no join, sync or reconciliation is in progress and the member has an identity. */
  whenStable: (signal?: AbortSignal) => Promise<void>
  /** A commit was answered with a fencing error: treat it as a heartbeat would. */
  onFencedResponse: (errorCode: number) => void
  /** A commit was answered REBALANCE_IN_PROGRESS: rejoin. */
  requestRejoin: () => void
  /** Resolves after the next successful heartbeat (KIP-848: a commit saw STALE_MEMBER_EPOCH). */
  nextHeartbeat: (signal?: AbortSignal) => Promise<void>
}


/** Error codes that mean this member is no longer in the group as it thinks. */
export function isFencingError (code: number): boolean {
  return code === ErrorCode.ILLEGAL_GENERATION || code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.FENCED_INSTANCE_ID || code === ErrorCode.FENCED_MEMBER_EPOCH
}

export function samePartition (a: TopicPartition, b: TopicPartition): boolean {
  return a.topic === b.topic && a.partition === b.partition
}

export const partitionKey = (p: TopicPartition): string => `${p.topic}-${p.partition}`

/** A member's leave (LeaveGroup, a leave heartbeat) failed: said as a warning, since the group waits for the session timeout. */
export function leaveFailed (groupId: string, error: unknown): KafkaTsError {
  return new KafkaTsError('LEAVE_FAILED', `Leaving group "${groupId}" failed (${(error as Error).message}); the coordinator removes the member when its session times out, and its partitions wait for that`, { cause: error })
}

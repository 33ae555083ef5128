/**
 * The events of a GroupConsumer and their payloads: a Consumer's, and the group's own
 * (rebalances, refused commits, dropped batches, aborted transactions).
 */
import type { ConsumerEvents } from '../consumer/consumer'
import type { MemberIdentity, TopicPartition } from './membership'

/** An offset the group coordinator did not take (what `commit()` resolves with, and the `commitRefused` event's payload): which partition, which offset, why, and Kafka's code when it refused it. */
export interface RefusedCommit {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The offset that was not committed. */
  offset: bigint
  /** What happened, for people. Decide on `code`, not on this text. */
  reason: string
  /** Kafka's error code when the coordinator refused the offset (e.g. 25 UNKNOWN_MEMBER_ID, 113 STALE_MEMBER_EPOCH). */
  code?: number
  /** Kafka's name for `code`, e.g. UNKNOWN_TOPIC_OR_PARTITION. */
  type?: string
}

/** At-most-once: a batch whose commit was refused, and so was not handed out ('batchDropped'). */
export interface BatchDroppedEvent {
  /** The batch's topic. */
  topic: string
  /** The batch's partition. */
  partition: number
  /** The offset of the batch's first record; undefined for a batch without records. */
  firstOffset: bigint | undefined
  /** The offset after the batch. */
  nextOffset: bigint
  /** Why its commit was refused, for people. */
  reason: string
}

/** A rebalance was applied ('assigned'): partitions added and revoked, under the member's identity. */
export interface AssignedEvent {
  /** The partitions the member got. */
  added: TopicPartition[]
  /** The partitions the member gave up. */
  revoked: TopicPartition[]
  /** The member's identity the new assignment is held under. */
  identity: MemberIdentity
}

/** A rebalance began ('rebalancing'): the member held an assignment under `identity`; 'assigned' follows with the new one. */
export interface RebalancingEvent {
  /** The member's identity the old assignment was held under. */
  identity: MemberIdentity
  /** Why the rebalance began, for people. */
  reason: string
}

/** Partitions lost without a revoke (a fence, an expired session): nothing of them was committed. */
export interface LostEvent {
  /** The partitions lost. */
  partitions: TopicPartition[]
  /** Why they were lost, for people. */
  reason: string
}

/** The events of a GroupConsumer: a Consumer's and the group's own. */
export interface GroupConsumerEvents extends ConsumerEvents {
  /** A rebalance began. */
  rebalancing: [event: RebalancingEvent]
  /** A rebalance was applied: partitions added and revoked. */
  assigned: [event: AssignedEvent]
  /** Partitions were lost without a revoke. */
  lost: [event: LostEvent]
  /** Offsets that could not be committed (the partition left the member, the deadline passed…). */
  commitRefused: [refused: RefusedCommit[]]
  /** Without a listener: a warning through the client's logger (KAFKATS_BATCH_DROPPED). */
  batchDropped: [event: BatchDroppedEvent]
  /** runTransactional aborted a batch's transaction; the batch is read again. */
  transactionAborted: [event: TransactionAbortedEvent]
}

/** Why a batch's transaction was aborted (the 'transactionAborted' event of the consumer). */
export interface TransactionAbortedEvent {
  /** The batch's topic. */
  topic: string
  /** The batch's partition. */
  partition: number
  /** The offset of the batch's first record. */
  firstOffset: bigint
  /** The offset after the batch. */
  nextOffset: bigint
  /** Why the transaction was aborted, for people. */
  reason: string
}

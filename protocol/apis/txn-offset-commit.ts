/**
 * TxnOffsetCommit (key 28): a transactional producer stores consumed offsets in a group's
 * coordinator as part of its open transaction; they become the group's committed offsets
 * only when the transaction commits.
 *
 * Version notes:
 * - v1: the broker answers before throttling on quota violation
 * - v2: committedLeaderEpoch per partition
 * - v3: flexible; the consumer's group metadata (generationIdOrMemberEpoch, memberId,
 *   groupInstanceId), so the group coordinator fences a zombie member (KIP-447)
 * - v4: TRANSACTION_ABORTABLE may be returned (KIP-890)
 * - v5: transaction version 2 (KIP-890): the group is added to the transaction implicitly
 *   (no AddOffsetsToTxn first)
 * - v6: topics addressed by topicId (Kafka 4.x)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/**
 * An entry of TxnOffsetCommitRequestTopic.partitions: the partitions inside the topic that we want to commit
 * offsets for.
 */
export interface TxnOffsetCommitRequestPartition {
  /** The index of the partition within the topic. */
  partitionIndex: number
  /** The next offset to consume. */
  committedOffset: bigint
  /** v2+: -1 (the default) when unknown. */
  committedLeaderEpoch?: number
  /** Any associated metadata the client wants to keep. */
  committedMetadata: string | null
}

/** An entry of TxnOffsetCommitRequest.topics: each topic that we want to commit offsets for. */
export interface TxnOffsetCommitRequestTopic {
  /** Up to v5. */
  name?: string
  /** v6+. */
  topicId?: string
  /** The partitions inside the topic that we want to commit offsets for. */
  partitions: TxnOffsetCommitRequestPartition[]
}

/** A TxnOffsetCommit request (key 28). */
export interface TxnOffsetCommitRequest {
  /** The ID of the transaction. */
  transactionalId: string
  /** The ID of the group. */
  groupId: string
  /** The current producer ID in use by the transactional ID. */
  producerId: bigint
  /** The current epoch associated with the producer ID. */
  producerEpoch: number
  /** v3+: the classic generation or KIP-848 member epoch; -1 (the default) skips the check. */
  generationIdOrMemberEpoch?: number
  /** v3+: '' (the default) skips the member check. */
  memberId?: string
  /** v3+: null (the default) for a dynamic member. */
  groupInstanceId?: string | null
  /** Each topic that we want to commit offsets for. */
  topics: TxnOffsetCommitRequestTopic[]
}

/** An entry of TxnOffsetCommitResponse.topics: the responses for each topic. */
export interface TxnOffsetCommitResponseTopic {
  /** Up to v5. */
  name: string
  /** v6+. */
  topicId: string
  /** The responses for each partition in the topic. */
  partitions: Array<{
    /** The partition index. */
    partitionIndex: number
    /** The error code, or 0 if there was no error. */
    errorCode: number
  }>
}

/** A TxnOffsetCommit response (key 28). */
export interface TxnOffsetCommitResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The responses for each topic. */
  topics: TxnOffsetCommitResponseTopic[]
}

/** The TxnOffsetCommit API (key 28): its versions and its request and response schemas. */
export const TxnOffsetCommit = defineApi<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
  key: 28,
  name: 'TxnOffsetCommit',
  minVersion: 0,
  maxVersion: 6,
  flexibleVersions: '3+',
  request: struct(
    field('transactionalId', 'string', '0+'),
    field('groupId', 'string', '0+'),
    field('producerId', 'int64', '0+'),
    field('producerEpoch', 'int16', '0+'),
    field('generationIdOrMemberEpoch', 'int32', '3+', { default: -1 }),
    field('memberId', 'string', '3+', { default: '' }),
    field('groupInstanceId', 'string', '3+', { nullableVersions: '3+', default: null }),
    field('topics', array(struct(
      field('name', 'string', '0-5'),
      field('topicId', 'uuid', '6+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('committedOffset', 'int64', '0+'),
        field('committedLeaderEpoch', 'int32', '2+', { default: -1 }),
        field('committedMetadata', 'string', '0+', { nullableVersions: '0+' })
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('topics', array(struct(
      field('name', 'string', '0-5'),
      field('topicId', 'uuid', '6+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+')
      )), '0+')
    )), '0+')
  )
})

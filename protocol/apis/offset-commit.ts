/**
 * OffsetCommit (key 8): a group member (or a standalone consumer) stores the offsets it
 * has consumed up to, per partition, in the group coordinator.
 *
 * The request is checked against the membership: generationIdOrMemberEpoch and memberId
 * must be the member's current ones (classic: its generation; KIP-848: its member epoch),
 * or the broker refuses it (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH...).
 * A commit from outside any group membership sends -1 and ''.
 *
 * kafkats speaks v2+: Kafka 4.x refuses older versions (KIP-896), so v1's commitTimestamp
 * is not described here.
 *
 * Version notes:
 * - v2: retentionTimeMs (-1: the broker's offsets.retention.minutes)
 * - v3: throttleTimeMs in the response
 * - v4: the broker answers before throttling on quota violation
 * - v5: retentionTimeMs removed (the broker's configuration alone decides)
 * - v6: committedLeaderEpoch per partition (fencing)
 * - v7: groupInstanceId, static membership (KIP-345)
 * - v8: flexible
 * - v9: usable by KIP-848 members (generationIdOrMemberEpoch carries the member epoch);
 *   STALE_MEMBER_EPOCH and GROUP_ID_NOT_FOUND may be returned
 * - v10: topics addressed by topicId instead of name (KIP-848, Kafka 4.2)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of OffsetCommitRequestTopic.partitions: each partition to commit offsets for. */
export interface OffsetCommitRequestPartition {
  /** The partition index. */
  partitionIndex: number
  /** The next offset to consume (the last processed one + 1). */
  committedOffset: bigint
  /** v6+: the leader epoch of the last consumed record; -1 (the default) when unknown. */
  committedLeaderEpoch?: number
  /** Free-form metadata stored with the offset. */
  committedMetadata: string | null
}

/** An entry of OffsetCommitRequest.topics: the topics to commit offsets for. */
export interface OffsetCommitRequestTopic {
  /** Up to v9. */
  name?: string
  /** v10+. */
  topicId?: string
  /** Each partition to commit offsets for. */
  partitions: OffsetCommitRequestPartition[]
}

/** An OffsetCommit request (key 8). */
export interface OffsetCommitRequest {
  /** The unique group identifier. */
  groupId: string
  /** The classic generation id, or the KIP-848 member epoch; -1 (the default) outside a group. */
  generationIdOrMemberEpoch?: number
  /** The member id; '' outside a group. */
  memberId: string
  /** v7+: static membership; null (the default) for a dynamic member. */
  groupInstanceId?: string | null
  /** v2–v4: how long the broker keeps the offsets; -1 (the default) for its configured retention. */
  retentionTimeMs?: bigint
  /** The topics to commit offsets for. */
  topics: OffsetCommitRequestTopic[]
}

/** An entry of OffsetCommitResponseTopic.partitions: the responses for each partition in the topic. */
export interface OffsetCommitResponsePartition {
  /** The partition index. */
  partitionIndex: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
}

/** An entry of OffsetCommitResponse.topics: the responses for each topic. */
export interface OffsetCommitResponseTopic {
  /** Up to v9. */
  name: string
  /** v10+. */
  topicId: string
  /** The responses for each partition in the topic. */
  partitions: OffsetCommitResponsePartition[]
}

/** An OffsetCommit response (key 8). */
export interface OffsetCommitResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The responses for each topic. */
  topics: OffsetCommitResponseTopic[]
}

/** The OffsetCommit API (key 8): its versions and its request and response schemas. */
export const OffsetCommit = defineApi<OffsetCommitRequest, OffsetCommitResponse>({
  key: 8,
  name: 'OffsetCommit',
  minVersion: 2,
  maxVersion: 10,
  flexibleVersions: '8+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('generationIdOrMemberEpoch', 'int32', '1+', { default: -1 }),
    field('memberId', 'string', '1+'),
    field('groupInstanceId', 'string', '7+', { nullableVersions: '7+', default: null }),
    field('retentionTimeMs', 'int64', '2-4', { default: -1n }),
    field('topics', array(struct(
      field('name', 'string', '0-9'),
      field('topicId', 'uuid', '10+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('committedOffset', 'int64', '0+'),
        field('committedLeaderEpoch', 'int32', '6+', { default: -1 }),
        field('committedMetadata', 'string', '0+', { nullableVersions: '0+' })
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '3+'),
    field('topics', array(struct(
      field('name', 'string', '0-9'),
      field('topicId', 'uuid', '10+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+')
      )), '0+')
    )), '0+')
  )
})

/**
 * OffsetFetch (key 9): the committed offsets of a group, per partition (-1 where nothing
 * is committed).
 *
 * Up to v7 a request asks about one group (groupId, topics at the top level); from v8 it
 * asks about several (groups, each with its topics), and the response answers likewise.
 *
 * kafkats speaks v1+: Kafka 4.x refuses v0 (KIP-896), which read offsets from ZooKeeper.
 *
 * Version notes:
 * - v1: offsets from the __consumer_offsets topic
 * - v2: topics may be null (every partition the group has offsets for); a top-level
 *   errorCode in the response for group-level errors
 * - v3: throttleTimeMs in the response
 * - v4: the broker answers before throttling on quota violation
 * - v5: committedLeaderEpoch per partition in the response
 * - v6: flexible
 * - v7: requireStable: UNSTABLE_OFFSET_COMMIT while a transactional commit is pending (KIP-447)
 * - v8: several groups per request (KIP-709)
 * - v9: memberId and memberEpoch, checked for KIP-848 members; STALE_MEMBER_EPOCH and
 *   UNKNOWN_MEMBER_ID may be returned
 * - v10: topics addressed by topicId instead of name (KIP-848, Kafka 4.2)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of OffsetFetchRequest.topics: each topic we would like to fetch offsets for. */
export interface OffsetFetchRequestTopic {
  /** The topic name. */
  name: string
  /** The partition indexes we would like to fetch offsets for. */
  partitionIndexes: number[]
}

/** An entry of OffsetFetchRequestGroup.topics: each topic we would like to fetch offsets for. */
export interface OffsetFetchRequestGroupTopic {
  /** v8–v9. */
  name?: string
  /** v10+. */
  topicId?: string
  /** The partition indexes we would like to fetch offsets for. */
  partitionIndexes: number[]
}

/** An entry of OffsetFetchRequest.groups: each group we would like to fetch offsets for. */
export interface OffsetFetchRequestGroup {
  /** The group ID. */
  groupId: string
  /** v9+: the KIP-848 member asking; null (the default) otherwise. */
  memberId?: string | null
  /** v9+: its member epoch; -1 (the default) outside a KIP-848 membership. */
  memberEpoch?: number
  /** null: every partition the group has offsets for. */
  topics: OffsetFetchRequestGroupTopic[] | null
}

/** An OffsetFetch request (key 9). */
export interface OffsetFetchRequest {
  /** v1–v7: the one group asked about. */
  groupId?: string
  /** v1–v7; null (v2+) asks for every partition the group has offsets for. */
  topics?: OffsetFetchRequestTopic[] | null
  /** v8+: the groups asked about. */
  groups?: OffsetFetchRequestGroup[]
  /** v7+: answer UNSTABLE_OFFSET_COMMIT instead of an offset a pending transaction may change. */
  requireStable?: boolean
}

/** An entry of OffsetFetchResponseTopic.partitions: the responses per partition. */
export interface OffsetFetchResponsePartition {
  /** The partition index. */
  partitionIndex: number
  /** -1 when nothing is committed. */
  committedOffset: bigint
  /** v5+; -1 when unknown. */
  committedLeaderEpoch: number
  /** The partition metadata. */
  metadata: string | null
  /** The error code, or 0 if there was no error. */
  errorCode: number
}

/** An entry of OffsetFetchResponse.topics: the responses per topic. */
export interface OffsetFetchResponseTopic {
  /** The topic name. */
  name: string
  /** The responses per partition. */
  partitions: OffsetFetchResponsePartition[]
}

/** An entry of OffsetFetchResponseGroup.topics: the responses per topic. */
export interface OffsetFetchResponseGroupTopic {
  /** v8–v9. */
  name: string
  /** v10+. */
  topicId: string
  /** The responses per partition. */
  partitions: OffsetFetchResponsePartition[]
}

/** An entry of OffsetFetchResponse.groups: the responses per group id. */
export interface OffsetFetchResponseGroup {
  /** The group ID. */
  groupId: string
  /** The responses per topic. */
  topics: OffsetFetchResponseGroupTopic[]
  /** The group-level error code, or 0 if there was no error. */
  errorCode: number
}

/** An OffsetFetch response (key 9). */
export interface OffsetFetchResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** v1–v7: the one group's offsets. */
  topics: OffsetFetchResponseTopic[]
  /** v2–v7: a group-level error. */
  errorCode: number
  /** v8+: one entry per group asked about. */
  groups: OffsetFetchResponseGroup[]
}

/** The OffsetFetch API (key 9): its versions and its request and response schemas. */
export const OffsetFetch = defineApi<OffsetFetchRequest, OffsetFetchResponse>({
  key: 9,
  name: 'OffsetFetch',
  minVersion: 1,
  maxVersion: 10,
  flexibleVersions: '6+',
  request: struct(
    field('groupId', 'string', '0-7'),
    field('topics', array(struct(
      field('name', 'string', '0-7'),
      field('partitionIndexes', array('int32'), '0-7')
    )), '0-7', { nullableVersions: '2-7' }),
    field('groups', array(struct(
      field('groupId', 'string', '8+'),
      field('memberId', 'string', '9+', { nullableVersions: '9+', default: null }),
      field('memberEpoch', 'int32', '9+', { default: -1 }),
      field('topics', array(struct(
        field('name', 'string', '8-9'),
        field('topicId', 'uuid', '10+'),
        field('partitionIndexes', array('int32'), '8+')
      )), '8+', { nullableVersions: '8+' })
    )), '8+'),
    field('requireStable', 'bool', '7+', { default: false })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '3+'),
    field('topics', array(struct(
      field('name', 'string', '0-7'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0-7'),
        field('committedOffset', 'int64', '0-7'),
        field('committedLeaderEpoch', 'int32', '5-7', { default: -1 }),
        field('metadata', 'string', '0-7', { nullableVersions: '0-7' }),
        field('errorCode', 'int16', '0-7')
      )), '0-7')
    )), '0-7'),
    field('errorCode', 'int16', '2-7', { default: 0 }),
    field('groups', array(struct(
      field('groupId', 'string', '8+'),
      field('topics', array(struct(
        field('name', 'string', '8-9'),
        field('topicId', 'uuid', '10+'),
        field('partitions', array(struct(
          field('partitionIndex', 'int32', '8+'),
          field('committedOffset', 'int64', '8+'),
          field('committedLeaderEpoch', 'int32', '8+', { default: -1 }),
          field('metadata', 'string', '8+', { nullableVersions: '8+' }),
          field('errorCode', 'int16', '8+')
        )), '8+')
      )), '8+'),
      field('errorCode', 'int16', '8+', { default: 0 })
    )), '8+')
  )
})

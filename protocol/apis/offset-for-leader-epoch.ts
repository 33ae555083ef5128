/**
 * OffsetForLeaderEpoch (key 23): the end offset of a leader epoch on the partition's
 * leader. A consumer asks after a leader change to check that its position (fetched
 * under an older epoch) is still in the log, and detects truncation (KIP-320).
 *
 * kafkats speaks v2+: Kafka 4.x refuses older versions (KIP-896). Consumers send
 * replicaId -1 (CONSUMER_REPLICA_ID), which needs v3+; the default, -2, is the
 * "debugging" id.
 *
 * Version notes:
 * - v2: currentLeaderEpoch per partition (fencing); throttleTimeMs in the response
 * - v3: replicaId
 * - v4: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of OffsetForLeaderEpochRequestTopic.partitions: each partition to get offsets for. */
export interface OffsetForLeaderEpochRequestPartition {
  /** The partition index. */
  partition: number
  /** The leader epoch the asker knows, to fence stale leaders; -1 (the default) skips the check. */
  currentLeaderEpoch?: number
  /** The epoch whose end offset is asked for. */
  leaderEpoch: number
}

/** An entry of OffsetForLeaderEpochRequest.topics: each topic to get offsets for. */
export interface OffsetForLeaderEpochRequestTopic {
  /** The topic name. */
  topic: string
  /** Each partition to get offsets for. */
  partitions: OffsetForLeaderEpochRequestPartition[]
}

/** An OffsetForLeaderEpoch request (key 23). */
export interface OffsetForLeaderEpochRequest {
  /** v3+: -1 for consumers; -2 (the default) for debugging tools. */
  replicaId?: number
  /** Each topic to get offsets for. */
  topics: OffsetForLeaderEpochRequestTopic[]
}

/** An entry of OffsetForLeaderEpochResponseTopic.partitions: each partition in the topic we fetched offsets for. */
export interface OffsetForLeaderEpochResponsePartition {
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The partition index. */
  partition: number
  /** The largest epoch not above the one asked for; -1 if none. */
  leaderEpoch: number
  /** The end offset of that epoch; -1 if unknown. */
  endOffset: bigint
}

/** An entry of OffsetForLeaderEpochResponse.topics: each topic we fetched offsets for. */
export interface OffsetForLeaderEpochResponseTopic {
  /** The topic name. */
  topic: string
  /** Each partition in the topic we fetched offsets for. */
  partitions: OffsetForLeaderEpochResponsePartition[]
}

/** An OffsetForLeaderEpoch response (key 23). */
export interface OffsetForLeaderEpochResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each topic we fetched offsets for. */
  topics: OffsetForLeaderEpochResponseTopic[]
}

/** The OffsetForLeaderEpoch API (key 23): its versions and its request and response schemas. */
export const OffsetForLeaderEpoch = defineApi<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>({
  key: 23,
  name: 'OffsetForLeaderEpoch',
  minVersion: 2,
  maxVersion: 4,
  flexibleVersions: '4+',
  request: struct(
    field('replicaId', 'int32', '3+', { default: -2 }),
    field('topics', array(struct(
      field('topic', 'string', '0+'),
      field('partitions', array(struct(
        field('partition', 'int32', '0+'),
        field('currentLeaderEpoch', 'int32', '2+', { default: -1 }),
        field('leaderEpoch', 'int32', '0+')
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '2+'),
    field('topics', array(struct(
      field('topic', 'string', '0+'),
      field('partitions', array(struct(
        field('errorCode', 'int16', '0+'),
        field('partition', 'int32', '0+'),
        field('leaderEpoch', 'int32', '1+', { default: -1 }),
        field('endOffset', 'int64', '0+', { default: -1n })
      )), '0+')
    )), '0+')
  )
})

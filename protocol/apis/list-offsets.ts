/**
 * ListOffsets (key 2): the offset of each partition at a timestamp, or at one of the
 * special timestamps in `OffsetSpec` (earliest, latest, ...).
 *
 * kafkats speaks v1+: Kafka 4.x refuses v0 (KIP-896), so v0's maxNumOffsets and
 * oldStyleOffsets are not described here.
 *
 * Version notes:
 * - v1: one offset per partition, with the timestamp it belongs to
 * - v2: isolationLevel; throttleTimeMs
 * - v4: currentLeaderEpoch (fencing); leaderEpoch in the response
 * - v5: OFFSET_NOT_AVAILABLE may be returned
 * - v6: flexible
 * - v7: MAX_TIMESTAMP (-3) (KIP-734)
 * - v8: EARLIEST_LOCAL_TIMESTAMP (-4) (KIP-405)
 * - v9: LATEST_TIERED_TIMESTAMP (-5) (KIP-1005)
 * - v10: timeoutMs, for offsets looked up in remote storage (KIP-1075)
 * - v11: EARLIEST_PENDING_UPLOAD_TIMESTAMP (-6) (4.x)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** The special timestamps a ListOffsets partition may ask for. */
export const OffsetSpec = {
  /** The offset the next record will get (the end of the partition). */
  LATEST: -1n,
  /** The first offset still in the partition (its log start offset). */
  EARLIEST: -2n,
  /** v7+: the offset of the record with the largest timestamp. */
  MAX_TIMESTAMP: -3n,
  /** v8+: the first offset still in the broker's local log (tiered storage). */
  EARLIEST_LOCAL: -4n,
  /** v9+: the last offset already copied to remote storage. */
  LATEST_TIERED: -5n,
  /** v11+: the first offset not yet copied to remote storage. */
  EARLIEST_PENDING_UPLOAD: -6n
} as const

/** replicaId of a consumer (anything else is a broker replica or a debugging tool). */
export const CONSUMER_REPLICA_ID = -1

/** An entry of ListOffsetsRequestTopic.partitions: each partition in the request. */
export interface ListOffsetsRequestPartition {
  /** The partition index. */
  partitionIndex: number
  /** v4+; -1 skips the epoch check. */
  currentLeaderEpoch?: number
  /** The timestamp to look up, in ms since the epoch, or an OffsetSpec value. */
  timestamp: bigint
}

/** An entry of ListOffsetsRequest.topics: each topic in the request. */
export interface ListOffsetsRequestTopic {
  /** The topic name. */
  name: string
  /** Each partition in the request. */
  partitions: ListOffsetsRequestPartition[]
}

/** A ListOffsets request (key 2). */
export interface ListOffsetsRequest {
  /** -1 for consumers (the default). */
  replicaId?: number
  /** v2+: 0 read uncommitted, 1 read committed. */
  isolationLevel?: number
  /** Each topic in the request. */
  topics: ListOffsetsRequestTopic[]
  /** v10+: how long the broker may wait for offsets in remote storage. */
  timeoutMs?: number
}

/** An entry of ListOffsetsResponseTopic.partitions: each partition in the response. */
export interface ListOffsetsResponsePartition {
  /** The partition index. */
  partitionIndex: number
  /** The partition error code, or 0 if there was no error. */
  errorCode: number
  /** The timestamp associated with the returned offset. */
  timestamp: bigint
  /** The returned offset. */
  offset: bigint
  /** The leader epoch associated with the returned offset. */
  leaderEpoch: number
}

/** An entry of ListOffsetsResponse.topics: each topic in the response. */
export interface ListOffsetsResponseTopic {
  /** The topic name. */
  name: string
  /** Each partition in the response. */
  partitions: ListOffsetsResponsePartition[]
}

/** A ListOffsets response (key 2). */
export interface ListOffsetsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each topic in the response. */
  topics: ListOffsetsResponseTopic[]
}

/** The ListOffsets API (key 2): its versions and its request and response schemas. */
export const ListOffsets = defineApi<ListOffsetsRequest, ListOffsetsResponse>({
  key: 2,
  name: 'ListOffsets',
  minVersion: 1,
  maxVersion: 11,
  flexibleVersions: '6+',
  request: struct(
    // Kafka's JSON gives no default; a client always sends -1, so that is ours.
    field('replicaId', 'int32', '0+', { default: CONSUMER_REPLICA_ID }),
    field('isolationLevel', 'int8', '2+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('currentLeaderEpoch', 'int32', '4+', { default: -1 }),
        field('timestamp', 'int64', '0+')
      )), '0+')
    )), '0+'),
    field('timeoutMs', 'int32', '10+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '2+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('timestamp', 'int64', '1+', { default: -1n }),
        field('offset', 'int64', '1+', { default: -1n }),
        field('leaderEpoch', 'int32', '4+', { default: -1 })
      )), '0+')
    )), '0+')
  )
})

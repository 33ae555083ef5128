/**
 * DescribeShareGroupOffsets (key 90): a share group's start offset per partition (the
 * share-partition start offset, SPSO: everything before it is acknowledged), and v1+ its
 * lag. Sent to the group coordinator.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v1):
 * - v0: KIP-932; topics null for every partition the group has state for
 * - v1: lag per partition
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DescribeShareGroupOffsets request (key 90). */
export interface DescribeShareGroupOffsetsRequest {
  /** The groups to describe offsets for. */
  groups: Array<{
    /** The group identifier. */
    groupId: string
    /** null for every topic the group has state for. */
    topics: Array<{
      /** The topic name. */
      topicName: string
      /** The partitions. */
      partitions: number[]
    }> | null
  }>
}

/**
 * An entry of DescribeShareGroupOffsetsResponse.groups.topics.partitions: a partition's share-partition start
 * offset.
 */
export interface DescribeShareGroupOffsetsPartition {
  /** The partition index. */
  partitionIndex: number
  /** -1 when the group has no state for the partition. */
  startOffset: bigint
  /** The leader epoch of the partition. */
  leaderEpoch: number
  /** v1+; -1 when unknown. */
  lag: bigint
  /** The partition-level error code, or 0 if there was no error. */
  errorCode: number
  /** The partition-level error message, or null if there was no error. */
  errorMessage: string | null
}

/** A DescribeShareGroupOffsets response (key 90). */
export interface DescribeShareGroupOffsetsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The results for each group. */
  groups: Array<{
    /** The group identifier. */
    groupId: string
    /** The results for each topic. */
    topics: Array<{
      /** The topic name. */
      topicName: string
      /** The unique topic ID. */
      topicId: string
      /** The results for each partition of the topic. */
      partitions: DescribeShareGroupOffsetsPartition[]
    }>
    /** The group-level error code, or 0 if there was no error. */
    errorCode: number
    /** The group-level error message, or null if there was no error. */
    errorMessage: string | null
  }>
}

/** The DescribeShareGroupOffsets API (key 90): its versions and its request and response schemas. */
export const DescribeShareGroupOffsets = defineApi<DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse>({
  key: 90,
  name: 'DescribeShareGroupOffsets',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '0+',
  request: struct(
    field('groups', array(struct(
      field('groupId', 'string', '0+'),
      field('topics', array(struct(
        field('topicName', 'string', '0+'),
        field('partitions', array('int32'), '0+')
      )), '0+', { nullableVersions: '0+' })
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('groups', array(struct(
      field('groupId', 'string', '0+'),
      field('topics', array(struct(
        field('topicName', 'string', '0+'),
        field('topicId', 'uuid', '0+'),
        field('partitions', array(struct(
          field('partitionIndex', 'int32', '0+'),
          field('startOffset', 'int64', '0+'),
          field('leaderEpoch', 'int32', '0+'),
          field('lag', 'int64', '1+', { default: -1n }),
          field('errorCode', 'int16', '0+'),
          field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
        )), '0+')
      )), '0+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
    )), '0+')
  )
})

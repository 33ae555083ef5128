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

export interface DescribeShareGroupOffsetsRequest {
  groups: Array<{
    groupId: string
    /** null for every topic the group has state for. */
    topics: Array<{ topicName: string, partitions: number[] }> | null
  }>
}

export interface DescribeShareGroupOffsetsPartition {
  partitionIndex: number
  /** -1 when the group has no state for the partition. */
  startOffset: bigint
  leaderEpoch: number
  /** v1+; -1 when unknown. */
  lag: bigint
  errorCode: number
  errorMessage: string | null
}

export interface DescribeShareGroupOffsetsResponse {
  throttleTimeMs: number
  groups: Array<{
    groupId: string
    topics: Array<{ topicName: string, topicId: string, partitions: DescribeShareGroupOffsetsPartition[] }>
    errorCode: number
    errorMessage: string | null
  }>
}

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

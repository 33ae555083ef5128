/**
 * AlterShareGroupOffsets (key 91): sets a share group's start offset per partition (from
 * where it delivers next). The group must be empty. Sent to the group coordinator.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: KIP-932
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface AlterShareGroupOffsetsRequest {
  groupId: string
  topics: Array<{ topicName: string, partitions: Array<{ partitionIndex: number, startOffset: bigint }> }>
}

export interface AlterShareGroupOffsetsResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  responses: Array<{
    topicName: string
    topicId: string
    partitions: Array<{ partitionIndex: number, errorCode: number, errorMessage: string | null }>
  }>
}

export const AlterShareGroupOffsets = defineApi<AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse>({
  key: 91,
  name: 'AlterShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('topics', array(struct(
      field('topicName', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('startOffset', 'int64', '0+')
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('responses', array(struct(
      field('topicName', 'string', '0+'),
      field('topicId', 'uuid', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
      )), '0+')
    )), '0+')
  )
})

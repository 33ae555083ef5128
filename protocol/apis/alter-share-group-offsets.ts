/**
 * AlterShareGroupOffsets (key 91): sets a share group's start offset per partition (from
 * where it delivers next). The group must be empty. Sent to the group coordinator.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: KIP-932
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An AlterShareGroupOffsets request (key 91). */
export interface AlterShareGroupOffsetsRequest {
  /** The group identifier. */
  groupId: string
  /** The topics to alter offsets for. */
  topics: Array<{
    /** The topic name. */
    topicName: string
    /** Each partition to alter offsets for. */
    partitions: Array<{
      /** The partition index. */
      partitionIndex: number
      /** The share-partition start offset. */
      startOffset: bigint
    }>
  }>
}

/** An AlterShareGroupOffsets response (key 91). */
export interface AlterShareGroupOffsetsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top-level error code, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** The results for each topic. */
  responses: Array<{
    /** The topic name. */
    topicName: string
    /** The unique topic ID. */
    topicId: string
    /** The results for each partition of the topic. */
    partitions: Array<{
      /** The partition index. */
      partitionIndex: number
      /** The error code, or 0 if there was no error. */
      errorCode: number
      /** The error message, or null if there was no error. */
      errorMessage: string | null
    }>
  }>
}

/** The AlterShareGroupOffsets API (key 91): its versions and its request and response schemas. */
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

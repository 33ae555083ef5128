/**
 * DeleteShareGroupOffsets (key 92): drops a share group's state for whole topics (it then
 * starts again from `share.auto.offset.reset`). The group must be empty. Sent to the
 * group coordinator.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: KIP-932
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DeleteShareGroupOffsets request (key 92). */
export interface DeleteShareGroupOffsetsRequest {
  /** The group identifier. */
  groupId: string
  /** The topics to delete offsets for. */
  topics: Array<{
    /** The topic name. */
    topicName: string
  }>
}

/** A DeleteShareGroupOffsets response (key 92). */
export interface DeleteShareGroupOffsetsResponse {
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
    /** The topic-level error code, or 0 if there was no error. */
    errorCode: number
    /** The topic-level error message, or null if there was no error. */
    errorMessage: string | null
  }>
}

/** The DeleteShareGroupOffsets API (key 92): its versions and its request and response schemas. */
export const DeleteShareGroupOffsets = defineApi<DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse>({
  key: 92,
  name: 'DeleteShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('topics', array(struct(
      field('topicName', 'string', '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('responses', array(struct(
      field('topicName', 'string', '0+'),
      field('topicId', 'uuid', '0+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
    )), '0+')
  )
})

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

export interface DeleteShareGroupOffsetsRequest {
  groupId: string
  topics: Array<{ topicName: string }>
}

export interface DeleteShareGroupOffsetsResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  responses: Array<{ topicName: string, topicId: string, errorCode: number, errorMessage: string | null }>
}

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

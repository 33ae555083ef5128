/**
 * StreamsGroupTopologyDescriptionUpdate (key 93): a Kafka Streams member sends its
 * topology's description (subtopologies, their processor nodes, global stores) to the
 * group coordinator, which keeps it for describing the group (KIP-1071). A streams client
 * sends it, not an admin: the Java Admin has no call for it.
 *
 * Node types: 0 source, 1 processor, 2 sink.
 *
 * Version notes:
 * - v0: the only version; flexible (Kafka 4.4)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'
import { topologyDescription, type StreamsGroupDescribeTopologyDescription } from './streams-group-describe'

export interface StreamsGroupTopologyDescriptionUpdateRequest {
  groupId: string
  memberId: string
  topologyEpoch: number
  topologyDescription: StreamsGroupDescribeTopologyDescription
}

export interface StreamsGroupTopologyDescriptionUpdateResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
}

export const StreamsGroupTopologyDescriptionUpdate = defineApi<StreamsGroupTopologyDescriptionUpdateRequest, StreamsGroupTopologyDescriptionUpdateResponse>({
  key: 93,
  name: 'StreamsGroupTopologyDescriptionUpdate',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('memberId', 'string', '0+'),
    field('topologyEpoch', 'int32', '0+'),
    field('topologyDescription', topologyDescription('0+'), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
  )
})

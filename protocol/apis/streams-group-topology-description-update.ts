/**
 * StreamsGroupTopologyDescriptionUpdate (key 93): a Kafka Streams member sends its
 * topology's description (subtopologies, their processor nodes, global stores) to the
 * group coordinator, which keeps it for describing the group (KIP-1071). A streams client
 * sends it, not an admin: the Java Admin has no call for it.
 *
 * Node types (Kafka's schema): 1 source, 2 processor, 3 sink.
 *
 * Version notes:
 * - v0: the only version; flexible (Kafka 4.4)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'
import { topologyDescription, type StreamsGroupDescribeTopologyDescription } from './streams-group-describe'

/** A StreamsGroupTopologyDescriptionUpdate request (key 93). */
export interface StreamsGroupTopologyDescriptionUpdateRequest {
  /** The streams group identifier. */
  groupId: string
  /** The ID of the member sending the description; a member not in the group gets UNKNOWN_MEMBER_ID. */
  memberId: string
  /** The epoch of the topology being described. */
  topologyEpoch: number
  /** The topology description. */
  topologyDescription: StreamsGroupDescribeTopologyDescription
}

/** A StreamsGroupTopologyDescriptionUpdate response (key 93). */
export interface StreamsGroupTopologyDescriptionUpdateResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top-level error code, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
}

/** The StreamsGroupTopologyDescriptionUpdate API (key 93): its versions and schemas. */
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

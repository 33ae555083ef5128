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
import { array, field, struct } from '../schema'

export interface StreamsTopologyNode {
  name: string
  nodeType: number
  sourceTopics: string[]
  /** A sink's topic, else null. */
  sinkTopic: string | null
  stores: string[]
  successors: string[]
}

export interface StreamsGroupTopologyDescriptionUpdateRequest {
  groupId: string
  memberId: string
  topologyEpoch: number
  topologyDescription: {
    subtopologies: Array<{ subtopologyId: string, nodes: StreamsTopologyNode[] }>
    globalStores: Array<{ source: StreamsTopologyNode, processor: StreamsTopologyNode }>
  }
}

export interface StreamsGroupTopologyDescriptionUpdateResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
}

const node = struct(
  field('name', 'string', '0+'),
  field('nodeType', 'int8', '0+'),
  field('sourceTopics', array('string'), '0+'),
  field('sinkTopic', 'string', '0+', { nullableVersions: '0+', default: null }),
  field('stores', array('string'), '0+'),
  field('successors', array('string'), '0+')
)

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
    field('topologyDescription', struct(
      field('subtopologies', array(struct(
        field('subtopologyId', 'string', '0+'),
        field('nodes', array(node), '0+')
      )), '0+'),
      field('globalStores', array(struct(
        field('source', node, '0+'),
        field('processor', node, '0+')
      )), '0+')
    ), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
  )
})

/**
 * StreamsGroupDescribe (key 89): the state of streams groups (KIP-1071): topology,
 * members and their task assignments.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v1):
 * - v0: the lowest a 4.4 broker accepts; flexible
 * - v1: request adds includeTopologyDescription; response adds groups.topologyDescription, groups.topologyDescriptionStatus, groups.assignorName
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface StreamsGroupDescribeRequest {
  groupIds: string[]
  includeAuthorizedOperations: boolean
  /** v1+. */
  includeTopologyDescription?: boolean
}

export interface StreamsGroupDescribeKeyValue {
  key: string
  value: string
}

export interface StreamsGroupDescribeTopicInfo {
  name: string
  partitions: number
  replicationFactor: number
  topicConfigs: StreamsGroupDescribeKeyValue[]
}

export interface StreamsGroupDescribeKeyValueResponse {
  key: string
  value: string
}

export interface StreamsGroupDescribeTopicInfoResponse {
  name: string
  partitions: number
  replicationFactor: number
  topicConfigs: StreamsGroupDescribeKeyValueResponse[]
}

export interface StreamsGroupDescribeSubtopology {
  subtopologyId: string
  sourceTopics: string[]
  repartitionSinkTopics: string[]
  stateChangelogTopics: StreamsGroupDescribeTopicInfo[]
  repartitionSourceTopics: StreamsGroupDescribeTopicInfoResponse[]
}

export interface StreamsGroupDescribeTopology {
  epoch: number
  subtopologies: StreamsGroupDescribeSubtopology[] | null
}

export interface StreamsGroupDescribeEndpoint {
  host: string
  port: number
}

export interface StreamsGroupDescribeKeyValueResponse {
  key: string
  value: string
}

export interface StreamsGroupDescribeTaskOffset {
  subtopologyId: string
  partition: number
  offset: bigint
}

export interface StreamsGroupDescribeTaskOffsetResponse {
  subtopologyId: string
  partition: number
  offset: bigint
}

export interface StreamsGroupDescribeTaskIds {
  subtopologyId: string
  partitions: number[]
}

export interface StreamsGroupDescribeTaskIdsResponse {
  subtopologyId: string
  partitions: number[]
}

export interface StreamsGroupDescribeTaskIdsResponse {
  subtopologyId: string
  partitions: number[]
}

export interface StreamsGroupDescribeAssignment {
  activeTasks: StreamsGroupDescribeTaskIds[]
  standbyTasks: StreamsGroupDescribeTaskIdsResponse[]
  warmupTasks: StreamsGroupDescribeTaskIdsResponse[]
}

export interface StreamsGroupDescribeTaskIdsResponse {
  subtopologyId: string
  partitions: number[]
}

export interface StreamsGroupDescribeTaskIdsResponse {
  subtopologyId: string
  partitions: number[]
}

export interface StreamsGroupDescribeTaskIdsResponse {
  subtopologyId: string
  partitions: number[]
}

export interface StreamsGroupDescribeAssignmentResponse {
  activeTasks: StreamsGroupDescribeTaskIdsResponse[]
  standbyTasks: StreamsGroupDescribeTaskIdsResponse[]
  warmupTasks: StreamsGroupDescribeTaskIdsResponse[]
}

export interface StreamsGroupDescribeMember {
  memberId: string
  memberEpoch: number
  instanceId: string | null
  rackId: string | null
  clientId: string
  clientHost: string
  topologyEpoch: number
  processId: string
  userEndpoint: StreamsGroupDescribeEndpoint | null
  clientTags: StreamsGroupDescribeKeyValueResponse[]
  taskOffsets: StreamsGroupDescribeTaskOffset[]
  taskEndOffsets: StreamsGroupDescribeTaskOffsetResponse[]
  assignment: StreamsGroupDescribeAssignment
  targetAssignment: StreamsGroupDescribeAssignmentResponse
  isClassic: boolean
}

export interface StreamsGroupDescribeTopologyDescriptionNode {
  /** v1+. */
  name: string
  /** v1+. */
  nodeType: number
  /** v1+. */
  sourceTopics: string[]
  /** v1+. */
  sinkTopic: string | null
  /** v1+. */
  stores: string[]
  /** v1+. */
  successors: string[]
}

export interface StreamsGroupDescribeTopologyDescriptionSubtopology {
  /** v1+. */
  subtopologyId: string
  /** v1+. */
  nodes: StreamsGroupDescribeTopologyDescriptionNode[]
}

export interface StreamsGroupDescribeTopologyDescriptionNodeResponse {
  /** v1+. */
  name: string
  /** v1+. */
  nodeType: number
  /** v1+. */
  sourceTopics: string[]
  /** v1+. */
  sinkTopic: string | null
  /** v1+. */
  stores: string[]
  /** v1+. */
  successors: string[]
}

export interface StreamsGroupDescribeTopologyDescriptionNodeResponse {
  /** v1+. */
  name: string
  /** v1+. */
  nodeType: number
  /** v1+. */
  sourceTopics: string[]
  /** v1+. */
  sinkTopic: string | null
  /** v1+. */
  stores: string[]
  /** v1+. */
  successors: string[]
}

export interface StreamsGroupDescribeTopologyDescriptionGlobalStore {
  /** v1+. */
  source: StreamsGroupDescribeTopologyDescriptionNodeResponse
  /** v1+. */
  processor: StreamsGroupDescribeTopologyDescriptionNodeResponse
}

export interface StreamsGroupDescribeTopologyDescription {
  /** v1+. */
  subtopologies: StreamsGroupDescribeTopologyDescriptionSubtopology[]
  /** v1+. */
  globalStores: StreamsGroupDescribeTopologyDescriptionGlobalStore[]
}

export interface StreamsGroupDescribeDescribedGroup {
  errorCode: number
  errorMessage: string | null
  groupId: string
  groupState: string
  groupEpoch: number
  assignmentEpoch: number
  topology: StreamsGroupDescribeTopology | null
  members: StreamsGroupDescribeMember[]
  authorizedOperations: number
  /** v1+. */
  topologyDescription: StreamsGroupDescribeTopologyDescription | null
  /** v1+. */
  topologyDescriptionStatus: number
  /** v1+. */
  assignorName: string | null
}

export interface StreamsGroupDescribeResponse {
  throttleTimeMs: number
  groups: StreamsGroupDescribeDescribedGroup[]
}

export const StreamsGroupDescribe = defineApi<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse>({
  key: 89,
  name: 'StreamsGroupDescribe',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '0+',
  request: struct(
    field('groupIds', array('string'), '0+'),
    field('includeAuthorizedOperations', 'bool', '0+'),
    field('includeTopologyDescription', 'bool', '1+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('groups', array(struct(
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
      field('groupId', 'string', '0+'),
      field('groupState', 'string', '0+'),
      field('groupEpoch', 'int32', '0+'),
      field('assignmentEpoch', 'int32', '0+'),
      field('topology', struct(
        field('epoch', 'int32', '0+'),
        field('subtopologies', array(struct(
          field('subtopologyId', 'string', '0+'),
          field('sourceTopics', array('string'), '0+'),
          field('repartitionSinkTopics', array('string'), '0+'),
          field('stateChangelogTopics', array(struct(
            field('name', 'string', '0+'),
            field('partitions', 'int32', '0+'),
            field('replicationFactor', 'int16', '0+'),
            field('topicConfigs', array(struct(
              field('key', 'string', '0+'),
              field('value', 'string', '0+')
            )), '0+')
          )), '0+'),
          field('repartitionSourceTopics', array(struct(
            field('name', 'string', '0+'),
            field('partitions', 'int32', '0+'),
            field('replicationFactor', 'int16', '0+'),
            field('topicConfigs', array(struct(
              field('key', 'string', '0+'),
              field('value', 'string', '0+')
            )), '0+')
          )), '0+')
        )), '0+', { nullableVersions: '0+' })
      ), '0+', { nullableVersions: '0+', default: null }),
      field('members', array(struct(
        field('memberId', 'string', '0+'),
        field('memberEpoch', 'int32', '0+'),
        field('instanceId', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('rackId', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('clientId', 'string', '0+'),
        field('clientHost', 'string', '0+'),
        field('topologyEpoch', 'int32', '0+'),
        field('processId', 'string', '0+'),
        field('userEndpoint', struct(
          field('host', 'string', '0+'),
          field('port', 'uint16', '0+')
        ), '0+', { nullableVersions: '0+', default: null }),
        field('clientTags', array(struct(
          field('key', 'string', '0+'),
          field('value', 'string', '0+')
        )), '0+'),
        field('taskOffsets', array(struct(
          field('subtopologyId', 'string', '0+'),
          field('partition', 'int32', '0+'),
          field('offset', 'int64', '0+')
        )), '0+'),
        field('taskEndOffsets', array(struct(
          field('subtopologyId', 'string', '0+'),
          field('partition', 'int32', '0+'),
          field('offset', 'int64', '0+')
        )), '0+'),
        field('assignment', struct(
          field('activeTasks', array(struct(
            field('subtopologyId', 'string', '0+'),
            field('partitions', array('int32'), '0+')
          )), '0+'),
          field('standbyTasks', array(struct(
            field('subtopologyId', 'string', '0+'),
            field('partitions', array('int32'), '0+')
          )), '0+'),
          field('warmupTasks', array(struct(
            field('subtopologyId', 'string', '0+'),
            field('partitions', array('int32'), '0+')
          )), '0+')
        ), '0+'),
        field('targetAssignment', struct(
          field('activeTasks', array(struct(
            field('subtopologyId', 'string', '0+'),
            field('partitions', array('int32'), '0+')
          )), '0+'),
          field('standbyTasks', array(struct(
            field('subtopologyId', 'string', '0+'),
            field('partitions', array('int32'), '0+')
          )), '0+'),
          field('warmupTasks', array(struct(
            field('subtopologyId', 'string', '0+'),
            field('partitions', array('int32'), '0+')
          )), '0+')
        ), '0+'),
        field('isClassic', 'bool', '0+')
      )), '0+'),
      field('authorizedOperations', 'int32', '0+', { default: -2147483648 }),
      field('topologyDescription', struct(
        field('subtopologies', array(struct(
          field('subtopologyId', 'string', '1+'),
          field('nodes', array(struct(
            field('name', 'string', '1+'),
            field('nodeType', 'int8', '1+'),
            field('sourceTopics', array('string'), '1+'),
            field('sinkTopic', 'string', '1+', { nullableVersions: '1+', default: null }),
            field('stores', array('string'), '1+'),
            field('successors', array('string'), '1+')
          )), '1+')
        )), '1+'),
        field('globalStores', array(struct(
          field('source', struct(
            field('name', 'string', '1+'),
            field('nodeType', 'int8', '1+'),
            field('sourceTopics', array('string'), '1+'),
            field('sinkTopic', 'string', '1+', { nullableVersions: '1+', default: null }),
            field('stores', array('string'), '1+'),
            field('successors', array('string'), '1+')
          ), '1+'),
          field('processor', struct(
            field('name', 'string', '1+'),
            field('nodeType', 'int8', '1+'),
            field('sourceTopics', array('string'), '1+'),
            field('sinkTopic', 'string', '1+', { nullableVersions: '1+', default: null }),
            field('stores', array('string'), '1+'),
            field('successors', array('string'), '1+')
          ), '1+')
        )), '1+')
      ), '1+', { nullableVersions: '1+', default: null }),
      field('topologyDescriptionStatus', 'int8', '1+'),
      field('assignorName', 'string', '1+', { nullableVersions: '1+', default: null })
    )), '0+')
  )
})

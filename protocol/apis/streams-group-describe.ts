/**
 * StreamsGroupDescribe (key 89): the state of streams groups (KIP-1071): topology,
 * members and their task assignments.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v1):
 * - v0: the lowest a 4.4 broker accepts; flexible
 * - v1: request adds includeTopologyDescription; response adds groups.topologyDescription, groups.topologyDescriptionStatus, groups.assignorName
 */
import { defineApi } from '../api'
import { array, field, struct, type StructType, type VersionRange } from '../schema'
import { streamsKeyValue, streamsTaskIds, streamsTopicInfo, type StreamsKeyValue, type StreamsTaskIds, type StreamsTopicInfo } from './streams-group-heartbeat'

export interface StreamsGroupDescribeRequest {
  groupIds: string[]
  includeAuthorizedOperations: boolean
  /** v1+. */
  includeTopologyDescription?: boolean
}

export interface StreamsGroupDescribeSubtopology {
  subtopologyId: string
  sourceTopics: string[]
  repartitionSinkTopics: string[]
  stateChangelogTopics: StreamsTopicInfo[]
  repartitionSourceTopics: StreamsTopicInfo[]
}

export interface StreamsGroupDescribeTopology {
  epoch: number
  subtopologies: StreamsGroupDescribeSubtopology[] | null
}

export interface StreamsGroupDescribeTaskOffset {
  subtopologyId: string
  partition: number
  offset: bigint
}

export interface StreamsGroupDescribeAssignment {
  activeTasks: StreamsTaskIds[]
  standbyTasks: StreamsTaskIds[]
  warmupTasks: StreamsTaskIds[]
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
  userEndpoint: { host: string, port: number } | null
  clientTags: StreamsKeyValue[]
  taskOffsets: StreamsGroupDescribeTaskOffset[]
  taskEndOffsets: StreamsGroupDescribeTaskOffset[]
  assignment: StreamsGroupDescribeAssignment
  targetAssignment: StreamsGroupDescribeAssignment
  isClassic: boolean
}

/** v1+: one processor node of the topology's description. */
export interface StreamsGroupDescribeTopologyNode {
  name: string
  nodeType: number
  sourceTopics: string[]
  sinkTopic: string | null
  stores: string[]
  successors: string[]
}

/** v1+. */
export interface StreamsGroupDescribeTopologyDescription {
  subtopologies: Array<{ subtopologyId: string, nodes: StreamsGroupDescribeTopologyNode[] }>
  globalStores: Array<{ source: StreamsGroupDescribeTopologyNode, processor: StreamsGroupDescribeTopologyNode }>
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

const taskOffset = struct(
  field('subtopologyId', 'string', '0+'),
  field('partition', 'int32', '0+'),
  field('offset', 'int64', '0+')
)

const assignment = struct(
  field('activeTasks', array(streamsTaskIds), '0+'),
  field('standbyTasks', array(streamsTaskIds), '0+'),
  field('warmupTasks', array(streamsTaskIds), '0+')
)

/** A topology's description in `versions` (this API's v1+; StreamsGroupTopologyDescriptionUpdate's v0+, whose members send it). */
export function topologyDescription (versions: VersionRange): StructType {
  const node = struct(
    field('name', 'string', versions),
    field('nodeType', 'int8', versions),
    field('sourceTopics', array('string'), versions),
    field('sinkTopic', 'string', versions, { nullableVersions: versions, default: null }),
    field('stores', array('string'), versions),
    field('successors', array('string'), versions)
  )
  return struct(
    field('subtopologies', array(struct(
      field('subtopologyId', 'string', versions),
      field('nodes', array(node), versions)
    )), versions),
    field('globalStores', array(struct(
      field('source', node, versions),
      field('processor', node, versions)
    )), versions)
  )
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
          field('stateChangelogTopics', array(streamsTopicInfo), '0+'),
          field('repartitionSourceTopics', array(streamsTopicInfo), '0+')
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
        field('clientTags', array(streamsKeyValue), '0+'),
        field('taskOffsets', array(taskOffset), '0+'),
        field('taskEndOffsets', array(taskOffset), '0+'),
        field('assignment', assignment, '0+'),
        field('targetAssignment', assignment, '0+'),
        field('isClassic', 'bool', '0+')
      )), '0+'),
      field('authorizedOperations', 'int32', '0+', { default: -2147483648 }),
      field('topologyDescription', topologyDescription('1+'), '1+', { nullableVersions: '1+', default: null }),
      field('topologyDescriptionStatus', 'int8', '1+'),
      field('assignorName', 'string', '1+', { nullableVersions: '1+', default: null })
    )), '0+')
  )
})

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

/** A StreamsGroupDescribe request (key 89). */
export interface StreamsGroupDescribeRequest {
  /** The ids of the groups to describe. */
  groupIds: string[]
  /** Whether to include authorized operations. */
  includeAuthorizedOperations: boolean
  /** v1+. */
  includeTopologyDescription?: boolean
}

/** An entry of StreamsGroupDescribeTopology.subtopologies: a configured subtopology. */
export interface StreamsGroupDescribeSubtopology {
  /** String to uniquely identify the subtopology. */
  subtopologyId: string
  /** The topics the subtopology reads from. */
  sourceTopics: string[]
  /** The repartition topics the subtopology writes to. */
  repartitionSinkTopics: string[]
  /** The set of state changelog topics associated with this subtopology. Created automatically. */
  stateChangelogTopics: StreamsTopicInfo[]
  /** The set of source topics that are internally created repartition topics. Created automatically. */
  repartitionSourceTopics: StreamsTopicInfo[]
}

/** The value of StreamsGroupDescribeDescribedGroup.topology: the topology initialized for the group. */
export interface StreamsGroupDescribeTopology {
  /** The epoch of the currently initialized topology for this group. */
  epoch: number
  /** The configured subtopologies (partition counts set, regexes resolved); null if the topology is not ready. */
  subtopologies: StreamsGroupDescribeSubtopology[] | null
}

/** An entry of StreamsGroupDescribeMember.taskOffsets: cumulative changelog offsets for tasks. */
export interface StreamsGroupDescribeTaskOffset {
  /** The subtopology identifier. */
  subtopologyId: string
  /** The partition. */
  partition: number
  /** The offset. */
  offset: bigint
}

/** The value of StreamsGroupDescribeMember.assignment: the current assignment. */
export interface StreamsGroupDescribeAssignment {
  /** Active tasks for this client. */
  activeTasks: StreamsTaskIds[]
  /** Standby tasks for this client. */
  standbyTasks: StreamsTaskIds[]
  /** Warm-up tasks for this client. */
  warmupTasks: StreamsTaskIds[]
}

/** An entry of StreamsGroupDescribeDescribedGroup.members: the members. */
export interface StreamsGroupDescribeMember {
  /** The member ID. */
  memberId: string
  /** The member epoch. */
  memberEpoch: number
  /** The member instance ID for static membership. */
  instanceId: string | null
  /** The rack ID. */
  rackId: string | null
  /** The client ID. */
  clientId: string
  /** The client host. */
  clientHost: string
  /** The epoch of the topology on the client. */
  topologyEpoch: number
  /** Identity of the streams instance that may have multiple clients. */
  processId: string
  /** User-defined endpoint for Interactive Queries. Null if not defined for this client. */
  userEndpoint: {
    /** Host of the endpoint. */
    host: string
    /** Port of the endpoint. */
    port: number
  } | null
  /** Used for rack-aware assignment algorithm. */
  clientTags: StreamsKeyValue[]
  /** Cumulative changelog offsets for tasks. */
  taskOffsets: StreamsGroupDescribeTaskOffset[]
  /** Cumulative changelog end offsets for tasks. */
  taskEndOffsets: StreamsGroupDescribeTaskOffset[]
  /** The current assignment. */
  assignment: StreamsGroupDescribeAssignment
  /** The target assignment. */
  targetAssignment: StreamsGroupDescribeAssignment
  /** True for classic members that have not been upgraded yet. */
  isClassic: boolean
}

/** v1+: one processor node of the topology's description. */
export interface StreamsGroupDescribeTopologyNode {
  /** The name of this node (e.g., KSTREAM-SOURCE-0000000000). */
  name: string
  /** The type of this node: 1=SOURCE, 2=PROCESSOR, 3=SINK. */
  nodeType: number
  /** The topics a source node reads from; empty otherwise or if determined dynamically. */
  sourceTopics: string[]
  /** The topic a sink node writes to; null otherwise or if it is determined dynamically. */
  sinkTopic: string | null
  /** The state store names accessed by this node. Defined only for processor nodes. */
  stores: string[]
  /** The names of the nodes this node forwards records to. */
  successors: string[]
}

/** v1+. */
export interface StreamsGroupDescribeTopologyDescription {
  /** The subtopologies that make up this topology. */
  subtopologies: Array<{
    /** The subtopology identifier, unique within the topology. */
    subtopologyId: string
    /** The processing nodes in this subtopology. */
    nodes: StreamsGroupDescribeTopologyNode[]
  }>
  /** Global state stores used by this topology. */
  globalStores: Array<{
    /** The source node providing data to the global store. */
    source: StreamsGroupDescribeTopologyNode
    /** The processor node that populates the global store. */
    processor: StreamsGroupDescribeTopologyNode
  }>
}

/** An entry of StreamsGroupDescribeResponse.groups: each described group. */
export interface StreamsGroupDescribeDescribedGroup {
  /** The describe error, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** The group ID string. */
  groupId: string
  /** The group state string, or the empty string. */
  groupState: string
  /** The group epoch. */
  groupEpoch: number
  /** The assignment epoch. */
  assignmentEpoch: number
  /** The topology currently initialized for the group; null on a describe error. */
  topology: StreamsGroupDescribeTopology | null
  /** The members. */
  members: StreamsGroupDescribeMember[]
  /** 32-bit bitfield to represent authorized operations for this group. */
  authorizedOperations: number
  /** v1+. */
  topologyDescription: StreamsGroupDescribeTopologyDescription | null
  /** v1+. */
  topologyDescriptionStatus: number
  /** v1+. */
  assignorName: string | null
}

/** A StreamsGroupDescribe response (key 89). */
export interface StreamsGroupDescribeResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each described group. */
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

/** The StreamsGroupDescribe API (key 89): its versions and its request and response schemas. */
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

/**
 * Metadata (key 3): the brokers of the cluster, and for each topic its id and the
 * leader, replicas and in-sync replicas of every partition.
 *
 * Version notes:
 * - v0: an empty topic list means "all topics"
 * - v1: topics nullable (null = all topics, empty = none); rack, controllerId, isInternal
 * - v2: clusterId
 * - v3: throttleTimeMs
 * - v4: allowAutoTopicCreation
 * - v5: offlineReplicas per partition
 * - v7: leaderEpoch per partition
 * - v8: authorized operations for the cluster and each topic
 * - v9: flexible
 * - v10: topicId in the response; topicId in the request (and a nullable name), which the
 *   broker only honours from v12
 * - v11: includeClusterAuthorizedOperations and clusterAuthorizedOperations removed
 *   (DescribeCluster has them, KIP-700)
 * - v12: topics may be asked for by topicId; names in the response may be null
 * - v13: top-level errorCode in the response (REBOOTSTRAP_REQUIRED, KIP-1102)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of MetadataRequest.topics: the topics to fetch metadata for. */
export interface MetadataRequestTopic {
  /** v10+; leave unset (the all-zero UUID) when asking by name. */
  topicId?: string
  /** Nullable from v10 (ask by topicId instead). */
  name: string | null
}

/** A Metadata request (key 3). */
export interface MetadataRequest {
  /** null (v1+) asks for every topic; [] asks for none (in v0, [] means every topic). */
  topics: MetadataRequestTopic[] | null
  /** True to let the broker create the requested topics that do not exist (if it is configured to). */
  allowAutoTopicCreation?: boolean
  /** Whether to include cluster authorized operations. */
  includeClusterAuthorizedOperations?: boolean
  /** Whether to include topic authorized operations. */
  includeTopicAuthorizedOperations?: boolean
}

/** An entry of MetadataResponse.brokers: the brokers present in the cluster. */
export interface MetadataBroker {
  /** The broker ID. */
  nodeId: number
  /** The broker hostname. */
  host: string
  /** The broker port. */
  port: number
  /** The rack of the broker, or null if it has not been assigned to a rack. */
  rack: string | null
}

/** An entry of MetadataTopic.partitions: each partition in the topic. */
export interface MetadataPartition {
  /** The partition error, or 0 if there was no error. */
  errorCode: number
  /** The partition index. */
  partitionIndex: number
  /** The ID of the leader broker. */
  leaderId: number
  /** The leader epoch of this partition. */
  leaderEpoch: number
  /** The set of all nodes that host this partition. */
  replicaNodes: number[]
  /** The set of nodes that are in sync with the leader for this partition. */
  isrNodes: number[]
  /** The set of offline replicas of this partition. */
  offlineReplicas: number[]
}

/** An entry of MetadataResponse.topics: each topic in the response. */
export interface MetadataTopic {
  /** The topic error, or 0 if there was no error. */
  errorCode: number
  /** The topic name; null for a topic asked for by ID that does not exist. */
  name: string | null
  /** The topic ID; all zeros for a topic asked for by name that does not exist. */
  topicId: string
  /** True if the topic is internal. */
  isInternal: boolean
  /** Each partition in the topic. */
  partitions: MetadataPartition[]
  /** 32-bit bitfield to represent authorized operations for this topic. */
  topicAuthorizedOperations: number
}

/** A Metadata response (key 3). */
export interface MetadataResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** A list of brokers present in the cluster. */
  brokers: MetadataBroker[]
  /** The cluster ID that responding broker belongs to. */
  clusterId: string | null
  /** The ID of the controller broker. */
  controllerId: number
  /** Each topic in the response. */
  topics: MetadataTopic[]
  /** 32-bit bitfield to represent authorized operations for this cluster. */
  clusterAuthorizedOperations: number
  /** The top-level error code, or 0 if there was no error. */
  errorCode: number
}

/** "Authorized operations were not asked for" (Kafka's Integer.MIN_VALUE). */
const OPERATIONS_NOT_ASKED = -2147483648

/** The Metadata API (key 3): its versions and its request and response schemas. */
export const Metadata = defineApi<MetadataRequest, MetadataResponse>({
  key: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 13,
  flexibleVersions: '9+',
  request: struct(
    field('topics', array(struct(
      field('topicId', 'uuid', '10+'),
      field('name', 'string', '0+', { nullableVersions: '10+' })
    )), '0+', { nullableVersions: '1+' }),
    field('allowAutoTopicCreation', 'bool', '4+', { default: true }),
    field('includeClusterAuthorizedOperations', 'bool', '8-10'),
    field('includeTopicAuthorizedOperations', 'bool', '8+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '3+'),
    field('brokers', array(struct(
      field('nodeId', 'int32', '0+'),
      field('host', 'string', '0+'),
      field('port', 'int32', '0+'),
      field('rack', 'string', '1+', { nullableVersions: '1+', default: null })
    )), '0+'),
    field('clusterId', 'string', '2+', { nullableVersions: '2+', default: null }),
    field('controllerId', 'int32', '1+', { default: -1 }),
    field('topics', array(struct(
      field('errorCode', 'int16', '0+'),
      field('name', 'string', '0+', { nullableVersions: '12+' }),
      field('topicId', 'uuid', '10+'),
      field('isInternal', 'bool', '1+', { default: false }),
      field('partitions', array(struct(
        field('errorCode', 'int16', '0+'),
        field('partitionIndex', 'int32', '0+'),
        field('leaderId', 'int32', '0+'),
        field('leaderEpoch', 'int32', '7+', { default: -1 }),
        field('replicaNodes', array('int32'), '0+'),
        field('isrNodes', array('int32'), '0+'),
        field('offlineReplicas', array('int32'), '5+')
      )), '0+'),
      field('topicAuthorizedOperations', 'int32', '8+', { default: OPERATIONS_NOT_ASKED })
    )), '0+'),
    field('clusterAuthorizedOperations', 'int32', '8-10', { default: OPERATIONS_NOT_ASKED }),
    field('errorCode', 'int16', '13+')
  )
})

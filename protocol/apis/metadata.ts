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

export interface MetadataRequestTopic {
  /** v10+; leave unset (the all-zero UUID) when asking by name. */
  topicId?: string
  /** Nullable from v10 (ask by topicId instead). */
  name: string | null
}

export interface MetadataRequest {
  /** null (v1+) asks for every topic; [] asks for none (in v0, [] means every topic). */
  topics: MetadataRequestTopic[] | null
  allowAutoTopicCreation?: boolean
  includeClusterAuthorizedOperations?: boolean
  includeTopicAuthorizedOperations?: boolean
}

export interface MetadataBroker {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export interface MetadataPartition {
  errorCode: number
  partitionIndex: number
  leaderId: number
  leaderEpoch: number
  replicaNodes: number[]
  isrNodes: number[]
  offlineReplicas: number[]
}

export interface MetadataTopic {
  errorCode: number
  name: string | null
  topicId: string
  isInternal: boolean
  partitions: MetadataPartition[]
  topicAuthorizedOperations: number
}

export interface MetadataResponse {
  throttleTimeMs: number
  brokers: MetadataBroker[]
  clusterId: string | null
  controllerId: number
  topics: MetadataTopic[]
  clusterAuthorizedOperations: number
  errorCode: number
}

/** "Authorized operations were not asked for" (Kafka's Integer.MIN_VALUE). */
const OPERATIONS_NOT_ASKED = -2147483648

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

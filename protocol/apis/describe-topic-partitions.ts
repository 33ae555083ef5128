/**
 * DescribeTopicPartitions (key 75): topics' partitions with their eligible leader replicas
 * (KIP-966), paginated: at most responsePartitionLimit partitions per answer, then a cursor to go on from.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface DescribeTopicPartitionsTopicRequest {
  name: string
}

export interface DescribeTopicPartitionsCursor {
  topicName: string
  partitionIndex: number
}

export interface DescribeTopicPartitionsRequest {
  topics: DescribeTopicPartitionsTopicRequest[]
  responsePartitionLimit?: number
  cursor?: DescribeTopicPartitionsCursor | null
}

export interface DescribeTopicPartitionsResponsePartition {
  errorCode: number
  partitionIndex: number
  leaderId: number
  leaderEpoch: number
  replicaNodes: number[]
  isrNodes: number[]
  eligibleLeaderReplicas: number[] | null
  lastKnownElr: number[] | null
  offlineReplicas: number[]
}

export interface DescribeTopicPartitionsResponseTopic {
  errorCode: number
  name: string | null
  topicId: string
  isInternal: boolean
  partitions: DescribeTopicPartitionsResponsePartition[]
  topicAuthorizedOperations: number
}

export interface DescribeTopicPartitionsCursorResponse {
  topicName: string
  partitionIndex: number
}

export interface DescribeTopicPartitionsResponse {
  throttleTimeMs: number
  topics: DescribeTopicPartitionsResponseTopic[]
  nextCursor: DescribeTopicPartitionsCursorResponse | null
}

export const DescribeTopicPartitions = defineApi<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse>({
  key: 75,
  name: 'DescribeTopicPartitions',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('topics', array(struct(
      field('name', 'string', '0+')
    )), '0+'),
    field('responsePartitionLimit', 'int32', '0+', { default: 2000 }),
    field('cursor', struct(
      field('topicName', 'string', '0+'),
      field('partitionIndex', 'int32', '0+')
    ), '0+', { nullableVersions: '0+', default: null })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('topics', array(struct(
      field('errorCode', 'int16', '0+'),
      field('name', 'string', '0+', { nullableVersions: '0+' }),
      field('topicId', 'uuid', '0+'),
      field('isInternal', 'bool', '0+'),
      field('partitions', array(struct(
        field('errorCode', 'int16', '0+'),
        field('partitionIndex', 'int32', '0+'),
        field('leaderId', 'int32', '0+'),
        field('leaderEpoch', 'int32', '0+', { default: -1 }),
        field('replicaNodes', array('int32'), '0+'),
        field('isrNodes', array('int32'), '0+'),
        field('eligibleLeaderReplicas', array('int32'), '0+', { nullableVersions: '0+', default: null }),
        field('lastKnownElr', array('int32'), '0+', { nullableVersions: '0+', default: null }),
        field('offlineReplicas', array('int32'), '0+')
      )), '0+'),
      field('topicAuthorizedOperations', 'int32', '0+', { default: -2147483648 })
    )), '0+'),
    field('nextCursor', struct(
      field('topicName', 'string', '0+'),
      field('partitionIndex', 'int32', '0+')
    ), '0+', { nullableVersions: '0+', default: null })
  )
})

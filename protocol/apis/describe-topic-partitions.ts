/**
 * DescribeTopicPartitions (key 75): topics' partitions with their eligible leader replicas
 * (KIP-966), paginated: at most responsePartitionLimit partitions per answer, then a cursor to go on from.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of DescribeTopicPartitionsRequest.topics: the topics to fetch details for. */
export interface DescribeTopicPartitionsTopicRequest {
  /** The topic name. */
  name: string
}

/** The value of DescribeTopicPartitionsRequest.cursor: the first topic and partition index to fetch details for. */
export interface DescribeTopicPartitionsCursor {
  /** The name for the first topic to process. */
  topicName: string
  /** The partition index to start with. */
  partitionIndex: number
}

/** A DescribeTopicPartitions request (key 75). */
export interface DescribeTopicPartitionsRequest {
  /** The topics to fetch details for. */
  topics: DescribeTopicPartitionsTopicRequest[]
  /** The maximum number of partitions included in the response. */
  responsePartitionLimit?: number
  /** The first topic and partition index to fetch details for. */
  cursor?: DescribeTopicPartitionsCursor | null
}

/** An entry of DescribeTopicPartitionsResponseTopic.partitions: each partition in the topic. */
export interface DescribeTopicPartitionsResponsePartition {
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
  /** The eligible leader replicas (ELR) of this partition, or null. */
  eligibleLeaderReplicas: number[] | null
  /** The last known eligible leader replicas (ELR) of this partition, or null. */
  lastKnownElr: number[] | null
  /** The set of offline replicas of this partition. */
  offlineReplicas: number[]
}

/** An entry of DescribeTopicPartitionsResponse.topics: each topic in the response. */
export interface DescribeTopicPartitionsResponseTopic {
  /** The topic error, or 0 if there was no error. */
  errorCode: number
  /** The topic name. */
  name: string | null
  /** The topic id. */
  topicId: string
  /** True if the topic is internal. */
  isInternal: boolean
  /** Each partition in the topic. */
  partitions: DescribeTopicPartitionsResponsePartition[]
  /** 32-bit bitfield to represent authorized operations for this topic. */
  topicAuthorizedOperations: number
}

/** The value of DescribeTopicPartitionsResponse.nextCursor: the next topic and partition index to fetch details for. */
export interface DescribeTopicPartitionsCursorResponse {
  /** The name for the first topic to process. */
  topicName: string
  /** The partition index to start with. */
  partitionIndex: number
}

/** A DescribeTopicPartitions response (key 75). */
export interface DescribeTopicPartitionsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each topic in the response. */
  topics: DescribeTopicPartitionsResponseTopic[]
  /** The next topic and partition index to fetch details for. */
  nextCursor: DescribeTopicPartitionsCursorResponse | null
}

/** The DescribeTopicPartitions API (key 75): its versions and its request and response schemas. */
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

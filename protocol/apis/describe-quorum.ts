/**
 * DescribeQuorum (key 55): the KRaft metadata quorum: leader, epoch, high watermark,
 * voters and observers with their log end offsets (KIP-595, KIP-836, KIP-853).
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v2):
 * - v0: the lowest a 4.4 broker accepts; flexible
 * - v1: response adds topics.partitions.currentVoters.lastFetchTimestamp, topics.partitions.currentVoters.lastCaughtUpTimestamp, topics.partitions.observers.lastFetchTimestamp, topics.partitions.observers.lastCaughtUpTimestamp
 * - v2: response adds errorMessage, topics.partitions.errorMessage, topics.partitions.currentVoters.replicaDirectoryId, topics.partitions.observers.replicaDirectoryId, nodes
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of DescribeQuorumTopic.partitions: the partitions to describe. */
export interface DescribeQuorumPartition {
  /** The partition index. */
  partitionIndex: number
}

/** An entry of DescribeQuorumRequest.topics: the topics to describe. */
export interface DescribeQuorumTopic {
  /** The topic name. */
  topicName: string
  /** The partitions to describe. */
  partitions: DescribeQuorumPartition[]
}

/** A DescribeQuorum request (key 55). */
export interface DescribeQuorumRequest {
  /** The topics to describe. */
  topics: DescribeQuorumTopic[]
}

/** An entry of DescribeQuorumPartitionResponse.currentVoters: the current voters of the partition. */
export interface DescribeQuorumReplicaState {
  /** The ID of the replica. */
  replicaId: number
  /** v2+. */
  replicaDirectoryId: string
  /** The last known log end offset of the follower or -1 if it is unknown. */
  logEndOffset: bigint
  /** v1+. */
  lastFetchTimestamp: bigint
  /** v1+. */
  lastCaughtUpTimestamp: bigint
}

/** An entry of DescribeQuorumPartitionResponse.observers: the observers of the partition. */
export interface DescribeQuorumReplicaStateResponse {
  /** The ID of the replica. */
  replicaId: number
  /** v2+. */
  replicaDirectoryId: string
  /** The last known log end offset of the follower or -1 if it is unknown. */
  logEndOffset: bigint
  /** v1+. */
  lastFetchTimestamp: bigint
  /** v1+. */
  lastCaughtUpTimestamp: bigint
}

/** An entry of DescribeQuorumTopicResponse.partitions: the partition data. */
export interface DescribeQuorumPartitionResponse {
  /** The partition index. */
  partitionIndex: number
  /** The partition error code. */
  errorCode: number
  /** v2+. */
  errorMessage: string | null
  /** The ID of the current leader or -1 if the leader is unknown. */
  leaderId: number
  /** The latest known leader epoch. */
  leaderEpoch: number
  /** The high water mark. */
  highWatermark: bigint
  /** The current voters of the partition. */
  currentVoters: DescribeQuorumReplicaState[]
  /** The observers of the partition. */
  observers: DescribeQuorumReplicaStateResponse[]
}

/** An entry of DescribeQuorumResponse.topics: a topic of the quorum. */
export interface DescribeQuorumTopicResponse {
  /** The topic name. */
  topicName: string
  /** The partition data. */
  partitions: DescribeQuorumPartitionResponse[]
}

/** An entry of DescribeQuorumNode.listeners: the listeners of this controller. */
export interface DescribeQuorumListener {
  /** v2+. */
  name: string
  /** v2+. */
  host: string
  /** v2+. */
  port: number
}

/** An entry of DescribeQuorumResponse.nodes: the nodes in the quorum. */
export interface DescribeQuorumNode {
  /** v2+. */
  nodeId: number
  /** v2+. */
  listeners: DescribeQuorumListener[]
}

/** A DescribeQuorum response (key 55). */
export interface DescribeQuorumResponse {
  /** The top level error code. */
  errorCode: number
  /** v2+. */
  errorMessage: string | null
  /** The topics of the quorum, with the state of their partitions. */
  topics: DescribeQuorumTopicResponse[]
  /** v2+. */
  nodes: DescribeQuorumNode[]
}

/** The DescribeQuorum API (key 55): its versions and its request and response schemas. */
export const DescribeQuorum = defineApi<DescribeQuorumRequest, DescribeQuorumResponse>({
  key: 55,
  name: 'DescribeQuorum',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '0+',
  request: struct(
    field('topics', array(struct(
      field('topicName', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+')
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '2+', { nullableVersions: '2+' }),
    field('topics', array(struct(
      field('topicName', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('errorMessage', 'string', '2+', { nullableVersions: '2+' }),
        field('leaderId', 'int32', '0+'),
        field('leaderEpoch', 'int32', '0+'),
        field('highWatermark', 'int64', '0+'),
        field('currentVoters', array(struct(
          field('replicaId', 'int32', '0+'),
          field('replicaDirectoryId', 'uuid', '2+'),
          field('logEndOffset', 'int64', '0+'),
          field('lastFetchTimestamp', 'int64', '1+', { default: -1n }),
          field('lastCaughtUpTimestamp', 'int64', '1+', { default: -1n })
        )), '0+'),
        field('observers', array(struct(
          field('replicaId', 'int32', '0+'),
          field('replicaDirectoryId', 'uuid', '2+'),
          field('logEndOffset', 'int64', '0+'),
          field('lastFetchTimestamp', 'int64', '1+', { default: -1n }),
          field('lastCaughtUpTimestamp', 'int64', '1+', { default: -1n })
        )), '0+')
      )), '0+')
    )), '0+'),
    field('nodes', array(struct(
      field('nodeId', 'int32', '2+'),
      field('listeners', array(struct(
        field('name', 'string', '2+'),
        field('host', 'string', '2+'),
        field('port', 'uint16', '2+')
      )), '2+')
    )), '2+')
  )
})

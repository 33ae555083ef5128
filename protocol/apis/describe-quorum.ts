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

export interface DescribeQuorumPartition {
  partitionIndex: number
}

export interface DescribeQuorumTopic {
  topicName: string
  partitions: DescribeQuorumPartition[]
}

export interface DescribeQuorumRequest {
  topics: DescribeQuorumTopic[]
}

export interface DescribeQuorumReplicaState {
  replicaId: number
  /** v2+. */
  replicaDirectoryId: string
  logEndOffset: bigint
  /** v1+. */
  lastFetchTimestamp: bigint
  /** v1+. */
  lastCaughtUpTimestamp: bigint
}

export interface DescribeQuorumReplicaStateResponse {
  replicaId: number
  /** v2+. */
  replicaDirectoryId: string
  logEndOffset: bigint
  /** v1+. */
  lastFetchTimestamp: bigint
  /** v1+. */
  lastCaughtUpTimestamp: bigint
}

export interface DescribeQuorumPartitionResponse {
  partitionIndex: number
  errorCode: number
  /** v2+. */
  errorMessage: string | null
  leaderId: number
  leaderEpoch: number
  highWatermark: bigint
  currentVoters: DescribeQuorumReplicaState[]
  observers: DescribeQuorumReplicaStateResponse[]
}

export interface DescribeQuorumTopicResponse {
  topicName: string
  partitions: DescribeQuorumPartitionResponse[]
}

export interface DescribeQuorumListener {
  /** v2+. */
  name: string
  /** v2+. */
  host: string
  /** v2+. */
  port: number
}

export interface DescribeQuorumNode {
  /** v2+. */
  nodeId: number
  /** v2+. */
  listeners: DescribeQuorumListener[]
}

export interface DescribeQuorumResponse {
  errorCode: number
  /** v2+. */
  errorMessage: string | null
  topics: DescribeQuorumTopicResponse[]
  /** v2+. */
  nodes: DescribeQuorumNode[]
}

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

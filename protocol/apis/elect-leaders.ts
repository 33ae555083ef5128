/**
 * ElectLeaders (key 43): elects the preferred (0) or, with unclean (1), any replica as
 * the leader of partitions (KIP-460); null topics means every partition.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v2):
 * - v0: the lowest a 4.4 broker accepts
 * - v1: request adds electionType; response adds errorCode
 * - v2: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of ElectLeadersRequest.topicPartitions: the topic partitions to elect leaders. */
export interface ElectLeadersTopicPartitions {
  /** The name of a topic. */
  topic: string
  /** The partitions of this topic whose leader should be elected. */
  partitions: number[]
}

/** An ElectLeaders request (key 43). */
export interface ElectLeadersRequest {
  /** v1+. */
  electionType?: number
  /** The topic partitions to elect leaders. */
  topicPartitions?: ElectLeadersTopicPartitions[] | null
  /** The time in ms to wait for the election to complete. */
  timeoutMs?: number
}

/** An entry of ElectLeadersReplicaElectionResult.partitionResult: the results for each partition. */
export interface ElectLeadersPartitionResult {
  /** The partition id. */
  partitionId: number
  /** The result error, or zero if there was no error. */
  errorCode: number
  /** The result message, or null if there was no error. */
  errorMessage: string | null
}

/** An entry of ElectLeadersResponse.replicaElectionResults: the election results. */
export interface ElectLeadersReplicaElectionResult {
  /** The topic name. */
  topic: string
  /** The results for each partition. */
  partitionResult: ElectLeadersPartitionResult[]
}

/** An ElectLeaders response (key 43). */
export interface ElectLeadersResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** v1+. */
  errorCode: number
  /** The election results; empty if all partitions were asked for without permission. */
  replicaElectionResults: ElectLeadersReplicaElectionResult[]
}

/** The ElectLeaders API (key 43): its versions and its request and response schemas. */
export const ElectLeaders = defineApi<ElectLeadersRequest, ElectLeadersResponse>({
  key: 43,
  name: 'ElectLeaders',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '2+',
  request: struct(
    field('electionType', 'int8', '1+'),
    field('topicPartitions', array(struct(
      field('topic', 'string', '0+'),
      field('partitions', array('int32'), '0+')
    )), '0+', { nullableVersions: '0+' }),
    field('timeoutMs', 'int32', '0+', { default: 60000 })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '1+'),
    field('replicaElectionResults', array(struct(
      field('topic', 'string', '0+'),
      field('partitionResult', array(struct(
        field('partitionId', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('errorMessage', 'string', '0+', { nullableVersions: '0+' })
      )), '0+')
    )), '0+')
  )
})

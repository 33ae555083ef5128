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

export interface ElectLeadersTopicPartitions {
  topic: string
  partitions: number[]
}

export interface ElectLeadersRequest {
  /** v1+. */
  electionType?: number
  topicPartitions?: ElectLeadersTopicPartitions[] | null
  timeoutMs?: number
}

export interface ElectLeadersPartitionResult {
  partitionId: number
  errorCode: number
  errorMessage: string | null
}

export interface ElectLeadersReplicaElectionResult {
  topic: string
  partitionResult: ElectLeadersPartitionResult[]
}

export interface ElectLeadersResponse {
  throttleTimeMs: number
  /** v1+. */
  errorCode: number
  replicaElectionResults: ElectLeadersReplicaElectionResult[]
}

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

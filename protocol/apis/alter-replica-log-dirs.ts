/**
 * AlterReplicaLogDirs (key 34): moves replicas of the answering broker to another of its
 * log directories (KIP-113).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v2):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface AlterReplicaLogDirsAlterReplicaLogDirTopic {
  name: string
  partitions: number[]
}

export interface AlterReplicaLogDirsAlterReplicaLogDir {
  path: string
  topics: AlterReplicaLogDirsAlterReplicaLogDirTopic[]
}

export interface AlterReplicaLogDirsRequest {
  dirs: AlterReplicaLogDirsAlterReplicaLogDir[]
}

export interface AlterReplicaLogDirsAlterReplicaLogDirPartitionResult {
  partitionIndex: number
  errorCode: number
}

export interface AlterReplicaLogDirsAlterReplicaLogDirTopicResult {
  topicName: string
  partitions: AlterReplicaLogDirsAlterReplicaLogDirPartitionResult[]
}

export interface AlterReplicaLogDirsResponse {
  throttleTimeMs: number
  results: AlterReplicaLogDirsAlterReplicaLogDirTopicResult[]
}

export const AlterReplicaLogDirs = defineApi<AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse>({
  key: 34,
  name: 'AlterReplicaLogDirs',
  minVersion: 1,
  maxVersion: 2,
  flexibleVersions: '2+',
  request: struct(
    field('dirs', array(struct(
      field('path', 'string', '1+'),
      field('topics', array(struct(
        field('name', 'string', '1+'),
        field('partitions', array('int32'), '1+')
      )), '1+')
    )), '1+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('results', array(struct(
      field('topicName', 'string', '1+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '1+'),
        field('errorCode', 'int16', '1+')
      )), '1+')
    )), '1+')
  )
})

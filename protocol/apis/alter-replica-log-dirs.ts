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

/** An entry of AlterReplicaLogDirsAlterReplicaLogDir.topics: the topics to add to the directory. */
export interface AlterReplicaLogDirsAlterReplicaLogDirTopic {
  /** The topic name. */
  name: string
  /** The partition indexes. */
  partitions: number[]
}

/** An entry of AlterReplicaLogDirsRequest.dirs: the alterations to make for each directory. */
export interface AlterReplicaLogDirsAlterReplicaLogDir {
  /** The absolute directory path. */
  path: string
  /** The topics to add to the directory. */
  topics: AlterReplicaLogDirsAlterReplicaLogDirTopic[]
}

/** An AlterReplicaLogDirs request (key 34). */
export interface AlterReplicaLogDirsRequest {
  /** The alterations to make for each directory. */
  dirs: AlterReplicaLogDirsAlterReplicaLogDir[]
}

/** An entry of AlterReplicaLogDirsAlterReplicaLogDirTopicResult.partitions: the results for each partition. */
export interface AlterReplicaLogDirsAlterReplicaLogDirPartitionResult {
  /** The partition index. */
  partitionIndex: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
}

/** An entry of AlterReplicaLogDirsResponse.results: the results for each topic. */
export interface AlterReplicaLogDirsAlterReplicaLogDirTopicResult {
  /** The name of the topic. */
  topicName: string
  /** The results for each partition. */
  partitions: AlterReplicaLogDirsAlterReplicaLogDirPartitionResult[]
}

/** An AlterReplicaLogDirs response (key 34). */
export interface AlterReplicaLogDirsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The results for each topic. */
  results: AlterReplicaLogDirsAlterReplicaLogDirTopicResult[]
}

/** The AlterReplicaLogDirs API (key 34): its versions and its request and response schemas. */
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

/**
 * AlterPartitionReassignments (key 45): moves partitions to new replica sets, or cancels a
 * move with null replicas (KIP-455). v1: allowReplicationFactorChange (KIP-860).
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v1):
 * - v0: the lowest a 4.4 broker accepts; flexible
 * - v1: request adds allowReplicationFactorChange; response adds allowReplicationFactorChange
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of AlterPartitionReassignmentsReassignableTopic.partitions: the partitions to reassign. */
export interface AlterPartitionReassignmentsReassignablePartition {
  /** The partition index. */
  partitionIndex: number
  /** The replicas to place the partitions on, or null to cancel a pending reassignment for this partition. */
  replicas?: number[] | null
}

/** An entry of AlterPartitionReassignmentsRequest.topics: the topics to reassign. */
export interface AlterPartitionReassignmentsReassignableTopic {
  /** The topic name. */
  name: string
  /** The partitions to reassign. */
  partitions: AlterPartitionReassignmentsReassignablePartition[]
}

/** An AlterPartitionReassignments request (key 45). */
export interface AlterPartitionReassignmentsRequest {
  /** The time in ms to wait for the request to complete. */
  timeoutMs?: number
  /** v1+. */
  allowReplicationFactorChange?: boolean
  /** The topics to reassign. */
  topics: AlterPartitionReassignmentsReassignableTopic[]
}

/**
 * An entry of AlterPartitionReassignmentsReassignableTopicResponse.partitions: the responses to partitions to
 * reassign.
 */
export interface AlterPartitionReassignmentsReassignablePartitionResponse {
  /** The partition index. */
  partitionIndex: number
  /** The error code for this partition, or 0 if there was no error. */
  errorCode: number
  /** The error message for this partition, or null if there was no error. */
  errorMessage: string | null
}

/** An entry of AlterPartitionReassignmentsResponse.responses: the responses to topics to reassign. */
export interface AlterPartitionReassignmentsReassignableTopicResponse {
  /** The topic name. */
  name: string
  /** The responses to partitions to reassign. */
  partitions: AlterPartitionReassignmentsReassignablePartitionResponse[]
}

/** An AlterPartitionReassignments response (key 45). */
export interface AlterPartitionReassignmentsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** v1+. */
  allowReplicationFactorChange: boolean
  /** The top-level error code, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** The responses to topics to reassign. */
  responses: AlterPartitionReassignmentsReassignableTopicResponse[]
}

/** The AlterPartitionReassignments API (key 45): its versions and its request and response schemas. */
export const AlterPartitionReassignments = defineApi<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse>({
  key: 45,
  name: 'AlterPartitionReassignments',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '0+',
  request: struct(
    field('timeoutMs', 'int32', '0+', { default: 60000 }),
    field('allowReplicationFactorChange', 'bool', '1+', { default: true }),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('replicas', array('int32'), '0+', { nullableVersions: '0+', default: null })
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('allowReplicationFactorChange', 'bool', '1+', { default: true }),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+' }),
    field('responses', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('errorMessage', 'string', '0+', { nullableVersions: '0+' })
      )), '0+')
    )), '0+')
  )
})

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

export interface AlterPartitionReassignmentsReassignablePartition {
  partitionIndex: number
  replicas?: number[] | null
}

export interface AlterPartitionReassignmentsReassignableTopic {
  name: string
  partitions: AlterPartitionReassignmentsReassignablePartition[]
}

export interface AlterPartitionReassignmentsRequest {
  timeoutMs?: number
  /** v1+. */
  allowReplicationFactorChange?: boolean
  topics: AlterPartitionReassignmentsReassignableTopic[]
}

export interface AlterPartitionReassignmentsReassignablePartitionResponse {
  partitionIndex: number
  errorCode: number
  errorMessage: string | null
}

export interface AlterPartitionReassignmentsReassignableTopicResponse {
  name: string
  partitions: AlterPartitionReassignmentsReassignablePartitionResponse[]
}

export interface AlterPartitionReassignmentsResponse {
  throttleTimeMs: number
  /** v1+. */
  allowReplicationFactorChange: boolean
  errorCode: number
  errorMessage: string | null
  responses: AlterPartitionReassignmentsReassignableTopicResponse[]
}

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

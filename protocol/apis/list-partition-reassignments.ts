/**
 * ListPartitionReassignments (key 46): the reassignments in progress (KIP-455).
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface ListPartitionReassignmentsTopics {
  name: string
  partitionIndexes: number[]
}

export interface ListPartitionReassignmentsRequest {
  timeoutMs?: number
  topics?: ListPartitionReassignmentsTopics[] | null
}

export interface ListPartitionReassignmentsOngoingPartitionReassignment {
  partitionIndex: number
  replicas: number[]
  addingReplicas: number[]
  removingReplicas: number[]
}

export interface ListPartitionReassignmentsOngoingTopicReassignment {
  name: string
  partitions: ListPartitionReassignmentsOngoingPartitionReassignment[]
}

export interface ListPartitionReassignmentsResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  topics: ListPartitionReassignmentsOngoingTopicReassignment[]
}

export const ListPartitionReassignments = defineApi<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse>({
  key: 46,
  name: 'ListPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('timeoutMs', 'int32', '0+', { default: 60000 }),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitionIndexes', array('int32'), '0+')
    )), '0+', { nullableVersions: '0+' })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+' }),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('replicas', array('int32'), '0+'),
        field('addingReplicas', array('int32'), '0+'),
        field('removingReplicas', array('int32'), '0+')
      )), '0+')
    )), '0+')
  )
})

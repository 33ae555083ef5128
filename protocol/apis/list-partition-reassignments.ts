/**
 * ListPartitionReassignments (key 46): the reassignments in progress (KIP-455).
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of ListPartitionReassignmentsRequest.topics: the topics to list partition reassignments for. */
export interface ListPartitionReassignmentsTopics {
  /** The topic name. */
  name: string
  /** The partitions to list partition reassignments for. */
  partitionIndexes: number[]
}

/** A ListPartitionReassignments request (key 46). */
export interface ListPartitionReassignmentsRequest {
  /** The time in ms to wait for the request to complete. */
  timeoutMs?: number
  /** The topics to list partition reassignments for, or null to list everything. */
  topics?: ListPartitionReassignmentsTopics[] | null
}

/**
 * An entry of ListPartitionReassignmentsOngoingTopicReassignment.partitions: the ongoing reassignments for each
 * partition.
 */
export interface ListPartitionReassignmentsOngoingPartitionReassignment {
  /** The index of the partition. */
  partitionIndex: number
  /** The current replica set. */
  replicas: number[]
  /** The set of replicas we are currently adding. */
  addingReplicas: number[]
  /** The set of replicas we are currently removing. */
  removingReplicas: number[]
}

/** An entry of ListPartitionReassignmentsResponse.topics: the ongoing reassignments for each topic. */
export interface ListPartitionReassignmentsOngoingTopicReassignment {
  /** The topic name. */
  name: string
  /** The ongoing reassignments for each partition. */
  partitions: ListPartitionReassignmentsOngoingPartitionReassignment[]
}

/** A ListPartitionReassignments response (key 46). */
export interface ListPartitionReassignmentsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top-level error code, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** The ongoing reassignments for each topic. */
  topics: ListPartitionReassignmentsOngoingTopicReassignment[]
}

/** The ListPartitionReassignments API (key 46): its versions and its request and response schemas. */
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

/**
 * CreatePartitions (key 37): raises the partition count of existing topics, optionally
 * placing the new partitions on chosen brokers.
 *
 * Version notes:
 * - v0: every version a 4.x broker accepts
 * - v1: on quota violation the broker answers before throttling
 * - v2: flexible
 * - v3: may answer THROTTLING_QUOTA_EXCEEDED (KIP-599)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of CreatePartitionsTopic.assignments: the new partition assignments. */
export interface CreatePartitionsAssignment {
  /** The assigned broker IDs. */
  brokerIds: number[]
}

/** An entry of CreatePartitionsRequest.topics: each topic that we want to create new partitions inside. */
export interface CreatePartitionsTopic {
  /** The topic name. */
  name: string
  /** The new total partition count. */
  count: number
  /** One entry per new partition, or null (the default) to let the broker place them. */
  assignments?: CreatePartitionsAssignment[] | null
}

/** A CreatePartitions request (key 37). */
export interface CreatePartitionsRequest {
  /** Each topic that we want to create new partitions inside. */
  topics: CreatePartitionsTopic[]
  /** The time in ms to wait for the partitions to be created. */
  timeoutMs: number
  /** If true, then validate the request, but don't actually increase the number of partitions. */
  validateOnly?: boolean
}

/** An entry of CreatePartitionsResponse.results: the partition creation results for each topic. */
export interface CreatePartitionsTopicResult {
  /** The topic name. */
  name: string
  /** The result error, or zero if there was no error. */
  errorCode: number
  /** The result message, or null if there was no error. */
  errorMessage: string | null
}

/** A CreatePartitions response (key 37). */
export interface CreatePartitionsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The partition creation results for each topic. */
  results: CreatePartitionsTopicResult[]
}

/** The CreatePartitions API (key 37): its versions and its request and response schemas. */
export const CreatePartitions = defineApi<CreatePartitionsRequest, CreatePartitionsResponse>({
  key: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 3,
  flexibleVersions: '2+',
  request: struct(
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('count', 'int32', '0+'),
      field('assignments', array(struct(
        field('brokerIds', array('int32'), '0+')
      )), '0+', { nullableVersions: '0+', default: null })
    )), '0+'),
    field('timeoutMs', 'int32', '0+'),
    field('validateOnly', 'bool', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('results', array(struct(
      field('name', 'string', '0+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
    )), '0+')
  )
})

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

export interface CreatePartitionsAssignment {
  brokerIds: number[]
}

export interface CreatePartitionsTopic {
  name: string
  /** The new total partition count. */
  count: number
  /** One entry per new partition, or null (the default) to let the broker place them. */
  assignments?: CreatePartitionsAssignment[] | null
}

export interface CreatePartitionsRequest {
  topics: CreatePartitionsTopic[]
  timeoutMs: number
  validateOnly?: boolean
}

export interface CreatePartitionsTopicResult {
  name: string
  errorCode: number
  errorMessage: string | null
}

export interface CreatePartitionsResponse {
  throttleTimeMs: number
  results: CreatePartitionsTopicResult[]
}

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

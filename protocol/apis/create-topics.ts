/**
 * CreateTopics (key 19): creates topics, with a partition count and replication factor
 * or a manual replica assignment, and optional topic configs. Sent to the controller
 * (any broker forwards it on KRaft clusters).
 *
 * Version notes:
 * - v0–v1 were removed in Kafka 4.0 (KIP-896): v2 is the lowest a 4.x broker accepts
 * - v2: throttleTimeMs in the response
 * - v3: on quota violation the broker answers before throttling
 * - v4: numPartitions/replicationFactor may be -1 (broker defaults) without an assignment (KIP-464)
 * - v5: flexible; the response returns the topic's partitions, replication factor and configs (KIP-525)
 * - v6: may answer THROTTLING_QUOTA_EXCEEDED (KIP-599)
 * - v7: the response carries the new topic's id
 */
import { defineApi } from '../api'
import { array, field, struct, tagged } from '../schema'

export interface CreatableReplicaAssignment {
  partitionIndex: number
  brokerIds: number[]
}

export interface CreatableTopicConfig {
  name: string
  value: string | null
}

export interface CreatableTopic {
  name: string
  /** -1 (the default) uses the broker's num.partitions, or the count of `assignments`. */
  numPartitions?: number
  /** -1 (the default) uses the broker's default.replication.factor. */
  replicationFactor?: number
  assignments?: CreatableReplicaAssignment[]
  configs?: CreatableTopicConfig[]
}

export interface CreateTopicsRequest {
  topics: CreatableTopic[]
  timeoutMs?: number
  validateOnly?: boolean
}

export interface CreatableTopicConfigs {
  name: string
  value: string | null
  readOnly: boolean
  configSource: number
  isSensitive: boolean
}

export interface CreatableTopicResult {
  name: string
  /** v7+; the zero UUID before. */
  topicId: string
  errorCode: number
  errorMessage: string | null
  /** v5+: set when the topic's configs could not be returned. */
  topicConfigErrorCode: number
  numPartitions: number
  replicationFactor: number
  configs: CreatableTopicConfigs[] | null
}

export interface CreateTopicsResponse {
  throttleTimeMs: number
  topics: CreatableTopicResult[]
}

export const CreateTopics = defineApi<CreateTopicsRequest, CreateTopicsResponse>({
  key: 19,
  name: 'CreateTopics',
  minVersion: 2,
  maxVersion: 7,
  flexibleVersions: '5+',
  request: struct(
    field('topics', array(struct(
      field('name', 'string', '0+'),
      // Kafka's JSON leaves these at 0; -1 is what "not given" means on the wire, so a
      // topic without them gets the broker's defaults instead of being refused.
      field('numPartitions', 'int32', '0+', { default: -1 }),
      field('replicationFactor', 'int16', '0+', { default: -1 }),
      field('assignments', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('brokerIds', array('int32'), '0+')
      )), '0+'),
      field('configs', array(struct(
        field('name', 'string', '0+'),
        field('value', 'string', '0+', { nullableVersions: '0+', default: null })
      )), '0+')
    )), '0+'),
    field('timeoutMs', 'int32', '0+', { default: 60000 }),
    field('validateOnly', 'bool', '1+', { default: false })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '2+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('topicId', 'uuid', '7+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '1+', { nullableVersions: '0+', default: null }),
      tagged('topicConfigErrorCode', 'int16', 0, '5+'),
      field('numPartitions', 'int32', '5+', { default: -1 }),
      field('replicationFactor', 'int16', '5+', { default: -1 }),
      field('configs', array(struct(
        field('name', 'string', '5+'),
        field('value', 'string', '5+', { nullableVersions: '5+', default: null }),
        field('readOnly', 'bool', '5+'),
        field('configSource', 'int8', '5+', { default: -1 }),
        field('isSensitive', 'bool', '5+')
      )), '5+', { nullableVersions: '5+' })
    )), '0+')
  )
})

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

/** An entry of CreatableTopic.assignments: the manual partition assignment. */
export interface CreatableReplicaAssignment {
  /** The partition index. */
  partitionIndex: number
  /** The brokers to place the partition on. */
  brokerIds: number[]
}

/** An entry of CreatableTopic.configs: the custom topic configurations to set. */
export interface CreatableTopicConfig {
  /** The configuration name. */
  name: string
  /** The configuration value. */
  value: string | null
}

/** An entry of CreateTopicsRequest.topics: the topics to create. */
export interface CreatableTopic {
  /** The topic name. */
  name: string
  /** -1 (the default) uses the broker's num.partitions, or the count of `assignments`. */
  numPartitions?: number
  /** -1 (the default) uses the broker's default.replication.factor. */
  replicationFactor?: number
  /** The manual partition assignment, or the empty array if we are using automatic assignment. */
  assignments?: CreatableReplicaAssignment[]
  /** The custom topic configurations to set. */
  configs?: CreatableTopicConfig[]
}

/** A CreateTopics request (key 19). */
export interface CreateTopicsRequest {
  /** The topics to create. */
  topics: CreatableTopic[]
  /** How long to wait in ms before timing out the request. */
  timeoutMs?: number
  /** If true, check that the topics can be created as specified, but don't create anything. */
  validateOnly?: boolean
}

/** An entry of CreatableTopicResult.configs: configuration of the topic. */
export interface CreatableTopicConfigs {
  /** The configuration name. */
  name: string
  /** The configuration value. */
  value: string | null
  /** True if the configuration is read-only. */
  readOnly: boolean
  /** The configuration source. */
  configSource: number
  /** True if this configuration is sensitive. */
  isSensitive: boolean
}

/** An entry of CreateTopicsResponse.topics: results for each topic we tried to create. */
export interface CreatableTopicResult {
  /** The topic name. */
  name: string
  /** v7+; the zero UUID before. */
  topicId: string
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
  /** v5+: set when the topic's configs could not be returned. */
  topicConfigErrorCode: number
  /** Number of partitions of the topic. */
  numPartitions: number
  /** Replication factor of the topic. */
  replicationFactor: number
  /** Configuration of the topic. */
  configs: CreatableTopicConfigs[] | null
}

/** A CreateTopics response (key 19). */
export interface CreateTopicsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Results for each topic we tried to create. */
  topics: CreatableTopicResult[]
}

/** The CreateTopics API (key 19): its versions and its request and response schemas. */
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

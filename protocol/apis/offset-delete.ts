/**
 * OffsetDelete (key 47): deletes a group's committed offsets of partitions it does
 * not subscribe to (KIP-496). Sent to the group coordinator.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of OffsetDeleteRequestTopic.partitions: each partition to delete offsets for. */
export interface OffsetDeleteRequestPartition {
  /** The partition index. */
  partitionIndex: number
}

/** An entry of OffsetDeleteRequest.topics: the topics to delete offsets for. */
export interface OffsetDeleteRequestTopic {
  /** The topic name. */
  name: string
  /** Each partition to delete offsets for. */
  partitions: OffsetDeleteRequestPartition[]
}

/** An OffsetDelete request (key 47). */
export interface OffsetDeleteRequest {
  /** The unique group identifier. */
  groupId: string
  /** The topics to delete offsets for. */
  topics: OffsetDeleteRequestTopic[]
}

/** An entry of OffsetDeleteResponseTopic.partitions: the responses for each partition in the topic. */
export interface OffsetDeleteResponsePartition {
  /** The partition index. */
  partitionIndex: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
}

/** An entry of OffsetDeleteResponse.topics: the responses for each topic. */
export interface OffsetDeleteResponseTopic {
  /** The topic name. */
  name: string
  /** The responses for each partition in the topic. */
  partitions: OffsetDeleteResponsePartition[]
}

/** An OffsetDelete response (key 47). */
export interface OffsetDeleteResponse {
  /** The top-level error code, or 0 if there was no error. */
  errorCode: number
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The responses for each topic. */
  topics: OffsetDeleteResponseTopic[]
}

/** The OffsetDelete API (key 47): its versions and its request and response schemas. */
export const OffsetDelete = defineApi<OffsetDeleteRequest, OffsetDeleteResponse>({
  key: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: 'none',
  request: struct(
    field('groupId', 'string', '0+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+')
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('errorCode', 'int16', '0+'),
    field('throttleTimeMs', 'int32', '0+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+')
      )), '0+')
    )), '0+')
  )
})

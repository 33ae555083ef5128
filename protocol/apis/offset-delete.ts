/**
 * OffsetDelete (key 47): deletes a group's committed offsets of partitions it does
 * not subscribe to (KIP-496). Sent to the group coordinator.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface OffsetDeleteRequestPartition {
  partitionIndex: number
}

export interface OffsetDeleteRequestTopic {
  name: string
  partitions: OffsetDeleteRequestPartition[]
}

export interface OffsetDeleteRequest {
  groupId: string
  topics: OffsetDeleteRequestTopic[]
}

export interface OffsetDeleteResponsePartition {
  partitionIndex: number
  errorCode: number
}

export interface OffsetDeleteResponseTopic {
  name: string
  partitions: OffsetDeleteResponsePartition[]
}

export interface OffsetDeleteResponse {
  errorCode: number
  throttleTimeMs: number
  topics: OffsetDeleteResponseTopic[]
}

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

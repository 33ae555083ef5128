/**
 * DeleteRecords (key 21): moves partitions' log start offsets forward, deleting the
 * records before them. Sent to each partition's leader.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v2):
 * - v0: the lowest a 4.4 broker accepts
 * - v1: no layout change (a behaviour change on the broker)
 * - v2: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of DeleteRecordsTopic.partitions: each partition that we want to delete records from. */
export interface DeleteRecordsPartition {
  /** The partition index. */
  partitionIndex: number
  /** The deletion offset. -1 means that records should be truncated to the high watermark. */
  offset: bigint
}

/** An entry of DeleteRecordsRequest.topics: each topic that we want to delete records from. */
export interface DeleteRecordsTopic {
  /** The topic name. */
  name: string
  /** Each partition that we want to delete records from. */
  partitions: DeleteRecordsPartition[]
}

/** A DeleteRecords request (key 21). */
export interface DeleteRecordsRequest {
  /** Each topic that we want to delete records from. */
  topics: DeleteRecordsTopic[]
  /** How long to wait for the deletion to complete, in ms. */
  timeoutMs: number
}

/** An entry of DeleteRecordsTopicResult.partitions: each partition that we wanted to delete records from. */
export interface DeleteRecordsPartitionResult {
  /** The partition index. */
  partitionIndex: number
  /** The partition low water mark. */
  lowWatermark: bigint
  /** The deletion error code, or 0 if the deletion succeeded. */
  errorCode: number
}

/** An entry of DeleteRecordsResponse.topics: each topic that we wanted to delete records from. */
export interface DeleteRecordsTopicResult {
  /** The topic name. */
  name: string
  /** Each partition that we wanted to delete records from. */
  partitions: DeleteRecordsPartitionResult[]
}

/** A DeleteRecords response (key 21). */
export interface DeleteRecordsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each topic that we wanted to delete records from. */
  topics: DeleteRecordsTopicResult[]
}

/** The DeleteRecords API (key 21): its versions and its request and response schemas. */
export const DeleteRecords = defineApi<DeleteRecordsRequest, DeleteRecordsResponse>({
  key: 21,
  name: 'DeleteRecords',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '2+',
  request: struct(
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('offset', 'int64', '0+')
      )), '0+')
    )), '0+'),
    field('timeoutMs', 'int32', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('lowWatermark', 'int64', '0+'),
        field('errorCode', 'int16', '0+')
      )), '0+')
    )), '0+')
  )
})

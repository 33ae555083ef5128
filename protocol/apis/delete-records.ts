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

export interface DeleteRecordsPartition {
  partitionIndex: number
  offset: bigint
}

export interface DeleteRecordsTopic {
  name: string
  partitions: DeleteRecordsPartition[]
}

export interface DeleteRecordsRequest {
  topics: DeleteRecordsTopic[]
  timeoutMs: number
}

export interface DeleteRecordsPartitionResult {
  partitionIndex: number
  lowWatermark: bigint
  errorCode: number
}

export interface DeleteRecordsTopicResult {
  name: string
  partitions: DeleteRecordsPartitionResult[]
}

export interface DeleteRecordsResponse {
  throttleTimeMs: number
  topics: DeleteRecordsTopicResult[]
}

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

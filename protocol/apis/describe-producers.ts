/**
 * DescribeProducers (key 61): the producers with state on partitions (id, epoch, last
 * sequence, open transaction's first offset), from each partition's leader (KIP-664).
 * Admin-side: used to find hanging transactions.
 *
 * Version notes:
 * - v0: the only version
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DescribeProducers request (key 61). */
export interface DescribeProducersRequest {
  /** The topics to list producers for. */
  topics: Array<{
    /** The topic name. */
    name: string
    /** The indexes of the partitions to list producers for. */
    partitionIndexes: number[]
  }>
}

/** An entry of DescribeProducersResponse.topics.partitions.activeProducers: the active producers for the partition. */
export interface ActiveProducer {
  /** The producer id. */
  producerId: bigint
  /** The producer epoch. */
  producerEpoch: number
  /** The last sequence number sent by the producer. */
  lastSequence: number
  /** The last timestamp sent by the producer. */
  lastTimestamp: bigint
  /** The current epoch of the producer group. */
  coordinatorEpoch: number
  /** The first offset of the producer's open transaction, -1 when none. */
  currentTxnStartOffset: bigint
}

/** A DescribeProducers response (key 61). */
export interface DescribeProducersResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each topic in the response. */
  topics: Array<{
    /** The topic name. */
    name: string
    /** Each partition in the response. */
    partitions: Array<{
      /** The partition index. */
      partitionIndex: number
      /** The partition error code, or 0 if there was no error. */
      errorCode: number
      /** The partition error message, which may be null if no additional details are available. */
      errorMessage: string | null
      /** The active producers for the partition. */
      activeProducers: ActiveProducer[]
    }>
  }>
}

/** The DescribeProducers API (key 61): its versions and its request and response schemas. */
export const DescribeProducers = defineApi<DescribeProducersRequest, DescribeProducersResponse>({
  key: 61,
  name: 'DescribeProducers',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitionIndexes', array('int32'), '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('activeProducers', array(struct(
          field('producerId', 'int64', '0+'),
          field('producerEpoch', 'int32', '0+'),
          field('lastSequence', 'int32', '0+', { default: -1 }),
          field('lastTimestamp', 'int64', '0+', { default: -1n }),
          field('coordinatorEpoch', 'int32', '0+'),
          field('currentTxnStartOffset', 'int64', '0+', { default: -1n })
        )), '0+')
      )), '0+')
    )), '0+')
  )
})

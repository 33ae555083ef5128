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

export interface DescribeProducersRequest {
  topics: Array<{ name: string, partitionIndexes: number[] }>
}

export interface ActiveProducer {
  producerId: bigint
  producerEpoch: number
  lastSequence: number
  lastTimestamp: bigint
  coordinatorEpoch: number
  /** The first offset of the producer's open transaction, -1 when none. */
  currentTxnStartOffset: bigint
}

export interface DescribeProducersResponse {
  throttleTimeMs: number
  topics: Array<{
    name: string
    partitions: Array<{ partitionIndex: number, errorCode: number, errorMessage: string | null, activeProducers: ActiveProducer[] }>
  }>
}

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

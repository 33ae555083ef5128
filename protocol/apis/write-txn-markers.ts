/**
 * WriteTxnMarkers (key 27): writes COMMIT or ABORT control records into partitions for a
 * producer's transaction. Transaction coordinators send it to partition leaders; an admin
 * sends it to abort a hanging transaction (one its coordinator no longer knows), which needs
 * CLUSTER_ACTION on the cluster.
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v2):
 * - v1: the lowest a 4.x broker accepts; flexible
 * - v2: each marker carries the transaction version (KIP-890: 2 for TV2 transactions)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface WriteTxnMarker {
  producerId: bigint
  producerEpoch: number
  /** false = ABORT, true = COMMIT. */
  transactionResult: boolean
  topics: Array<{ name: string, partitionIndexes: number[] }>
  /** The epoch of the transaction state partition of the coordinator writing the marker. */
  coordinatorEpoch: number
  /** v2+: 0/1 for classic transactions, 2 for TV2. */
  transactionVersion?: number
}

export interface WriteTxnMarkersRequest {
  markers: WriteTxnMarker[]
}

export interface WriteTxnMarkersResponse {
  markers: Array<{
    producerId: bigint
    topics: Array<{ name: string, partitions: Array<{ partitionIndex: number, errorCode: number }> }>
  }>
}

export const WriteTxnMarkers = defineApi<WriteTxnMarkersRequest, WriteTxnMarkersResponse>({
  key: 27,
  name: 'WriteTxnMarkers',
  minVersion: 1,
  maxVersion: 2,
  flexibleVersions: '1+',
  request: struct(
    field('markers', array(struct(
      field('producerId', 'int64', '0+'),
      field('producerEpoch', 'int16', '0+'),
      field('transactionResult', 'bool', '0+'),
      field('topics', array(struct(
        field('name', 'string', '0+'),
        field('partitionIndexes', array('int32'), '0+')
      )), '0+'),
      field('coordinatorEpoch', 'int32', '0+'),
      field('transactionVersion', 'int8', '2+', { default: 0 })
    )), '0+')
  ),
  response: struct(
    field('markers', array(struct(
      field('producerId', 'int64', '0+'),
      field('topics', array(struct(
        field('name', 'string', '0+'),
        field('partitions', array(struct(
          field('partitionIndex', 'int32', '0+'),
          field('errorCode', 'int16', '0+')
        )), '0+')
      )), '0+')
    )), '0+')
  )
})

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

/** An entry of WriteTxnMarkersRequest.markers: the transaction markers to be written. */
export interface WriteTxnMarker {
  /** The current producer ID. */
  producerId: bigint
  /** The current epoch associated with the producer ID. */
  producerEpoch: number
  /** false = ABORT, true = COMMIT. */
  transactionResult: boolean
  /** Each topic that we want to write transaction marker(s) for. */
  topics: Array<{
    /** The topic name. */
    name: string
    /** The indexes of the partitions to write transaction markers for. */
    partitionIndexes: number[]
  }>
  /** The epoch of the transaction state partition of the coordinator writing the marker. */
  coordinatorEpoch: number
  /** v2+: 0/1 for classic transactions, 2 for TV2. */
  transactionVersion?: number
}

/** A WriteTxnMarkers request (key 27). */
export interface WriteTxnMarkersRequest {
  /** The transaction markers to be written. */
  markers: WriteTxnMarker[]
}

/** A WriteTxnMarkers response (key 27). */
export interface WriteTxnMarkersResponse {
  /** The results for writing markers. */
  markers: Array<{
    /** The current producer ID in use by the transactional ID. */
    producerId: bigint
    /** The results by topic. */
    topics: Array<{
      /** The topic name. */
      name: string
      /** The results by partition. */
      partitions: Array<{
        /** The partition index. */
        partitionIndex: number
        /** The error code, or 0 if there was no error. */
        errorCode: number
      }>
    }>
  }>
}

/** The WriteTxnMarkers API (key 27): its versions and its request and response schemas. */
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

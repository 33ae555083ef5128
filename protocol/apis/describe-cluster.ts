/**
 * DescribeCluster (key 60): the brokers, the controller and the cluster id, as the
 * answering broker knows them, with the cluster operations the caller may perform (KIP-700).
 * Any broker answers.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v2):
 * - v0: the lowest a 4.4 broker accepts; flexible
 * - v1: request adds endpointType; response adds endpointType
 * - v2: request adds includeFencedBrokers; response adds brokers.isFenced
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DescribeCluster request (key 60). */
export interface DescribeClusterRequest {
  /** Whether to include cluster authorized operations. */
  includeClusterAuthorizedOperations: boolean
  /** v1+. */
  endpointType?: number
  /** v2+. */
  includeFencedBrokers?: boolean
}

/** An entry of DescribeClusterResponse.brokers: each broker in the response. */
export interface DescribeClusterBroker {
  /** The broker ID. */
  brokerId: number
  /** The broker hostname. */
  host: string
  /** The broker port. */
  port: number
  /** The rack of the broker, or null if it has not been assigned to a rack. */
  rack: string | null
  /** v2+. */
  isFenced: boolean
}

/** A DescribeCluster response (key 60). */
export interface DescribeClusterResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top-level error code, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** v1+. */
  endpointType: number
  /** The cluster ID that responding broker belongs to. */
  clusterId: string
  /** The ID of the controller (from a controller: the quorum leader; from a broker: a random live broker). */
  controllerId: number
  /** Each broker in the response. */
  brokers: DescribeClusterBroker[]
  /** 32-bit bitfield to represent authorized operations for this cluster. */
  clusterAuthorizedOperations: number
}

/** The DescribeCluster API (key 60): its versions and its request and response schemas. */
export const DescribeCluster = defineApi<DescribeClusterRequest, DescribeClusterResponse>({
  key: 60,
  name: 'DescribeCluster',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '0+',
  request: struct(
    field('includeClusterAuthorizedOperations', 'bool', '0+'),
    field('endpointType', 'int8', '1+', { default: 1 }),
    field('includeFencedBrokers', 'bool', '2+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('endpointType', 'int8', '1+', { default: 1 }),
    field('clusterId', 'string', '0+'),
    field('controllerId', 'int32', '0+', { default: -1 }),
    field('brokers', array(struct(
      field('brokerId', 'int32', '0+'),
      field('host', 'string', '0+'),
      field('port', 'int32', '0+'),
      field('rack', 'string', '0+', { nullableVersions: '0+', default: null }),
      field('isFenced', 'bool', '2+')
    )), '0+'),
    field('clusterAuthorizedOperations', 'int32', '0+', { default: -2147483648 })
  )
})

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

export interface DescribeClusterRequest {
  includeClusterAuthorizedOperations: boolean
  /** v1+. */
  endpointType?: number
  /** v2+. */
  includeFencedBrokers?: boolean
}

export interface DescribeClusterBroker {
  brokerId: number
  host: string
  port: number
  rack: string | null
  /** v2+. */
  isFenced: boolean
}

export interface DescribeClusterResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  /** v1+. */
  endpointType: number
  clusterId: string
  controllerId: number
  brokers: DescribeClusterBroker[]
  clusterAuthorizedOperations: number
}

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

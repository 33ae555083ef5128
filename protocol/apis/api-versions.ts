/**
 * ApiVersions (key 18): which versions of each API the broker speaks. Sent first on
 * every connection; its response always uses response header v0.
 *
 * Version notes:
 * - v1: throttleTimeMs
 * - v3: flexible; clientSoftwareName/Version; features as tagged fields (KIP-584)
 * - v4: the broker answers UNSUPPORTED_VERSION with its own ApiVersions v0 body (KIP-511)
 * - v5: clusterId and nodeId in the request (4.x)
 */
import { defineApi } from '../api'
import { array, field, struct, tagged } from '../schema'

/** An ApiVersions request (key 18). */
export interface ApiVersionsRequest {
  /** The name of the client. */
  clientSoftwareName?: string
  /** The version of the client. */
  clientSoftwareVersion?: string
  /** The cluster ID the client intends to connect to. Provide both clusterId and nodeId, if known. */
  clusterId?: string | null
  /** The node ID the client intends to connect to. Provide both clusterId and nodeId, if known. */
  nodeId?: number
}

/** An entry of ApiVersionsResponse.apiKeys: the APIs supported by the broker. */
export interface ApiVersionRange {
  /** The API index. */
  apiKey: number
  /** The minimum supported version, inclusive. */
  minVersion: number
  /** The maximum supported version, inclusive. */
  maxVersion: number
}

/** An ApiVersions response (key 18). */
export interface ApiVersionsResponse {
  /** The top-level error code. */
  errorCode: number
  /** The APIs supported by the broker. */
  apiKeys: ApiVersionRange[]
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Features supported by the broker. Up to v3, features whose minVersion is 0 are omitted. */
  supportedFeatures: Array<{
    /** The name of the feature. */
    name: string
    /** The minimum supported version for the feature. */
    minVersion: number
    /** The maximum supported version for the feature. */
    maxVersion: number
  }>
  /** The epoch of the finalized features (increasing), or -1 if unknown. */
  finalizedFeaturesEpoch: bigint
  /** List of cluster-wide finalized features. The information is valid only if finalizedFeaturesEpoch >= 0. */
  finalizedFeatures: Array<{
    /** The name of the feature. */
    name: string
    /** The cluster-wide finalized max version level for the feature. */
    maxVersionLevel: number
    /** The cluster-wide finalized min version level for the feature. */
    minVersionLevel: number
  }>
  /** Set by a KRaft controller if the required configurations for ZK migration are present. */
  zkMigrationReady: boolean
}

/** The ApiVersions API (key 18): its versions and its request and response schemas. */
export const ApiVersions = defineApi<ApiVersionsRequest, ApiVersionsResponse>({
  key: 18,
  name: 'ApiVersions',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersions: '3+',
  request: struct(
    field('clientSoftwareName', 'string', '3+'),
    field('clientSoftwareVersion', 'string', '3+'),
    field('clusterId', 'string', '5+', { nullableVersions: '5+', default: null }),
    field('nodeId', 'int32', '5+', { default: -1 })
  ),
  response: struct(
    field('errorCode', 'int16', '0+'),
    field('apiKeys', array(struct(
      field('apiKey', 'int16', '0+'),
      field('minVersion', 'int16', '0+'),
      field('maxVersion', 'int16', '0+')
    )), '0+'),
    field('throttleTimeMs', 'int32', '1+'),
    tagged('supportedFeatures', array(struct(
      field('name', 'string', '3+'),
      field('minVersion', 'int16', '3+'),
      field('maxVersion', 'int16', '3+')
    )), 0, '3+'),
    tagged('finalizedFeaturesEpoch', 'int64', 1, '3+', { default: -1n }),
    tagged('finalizedFeatures', array(struct(
      field('name', 'string', '3+'),
      field('maxVersionLevel', 'int16', '3+'),
      field('minVersionLevel', 'int16', '3+')
    )), 2, '3+'),
    tagged('zkMigrationReady', 'bool', 3, '3+', { default: false })
  )
})

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

export interface ApiVersionsRequest {
  clientSoftwareName?: string
  clientSoftwareVersion?: string
  clusterId?: string | null
  nodeId?: number
}

export interface ApiVersionRange {
  apiKey: number
  minVersion: number
  maxVersion: number
}

export interface ApiVersionsResponse {
  errorCode: number
  apiKeys: ApiVersionRange[]
  throttleTimeMs: number
  supportedFeatures: Array<{ name: string, minVersion: number, maxVersion: number }>
  finalizedFeaturesEpoch: bigint
  finalizedFeatures: Array<{ name: string, maxVersionLevel: number, minVersionLevel: number }>
  zkMigrationReady: boolean
}

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

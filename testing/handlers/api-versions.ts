/**
 * ApiVersions: v0–v5 (kafkats's range).
 *
 * Advertises exactly kafkats's own version range of every API in `allApis`
 * (protocol/apis/index.ts), so a client negotiates our highest version of each. An API
 * advertised here without a handler (handlers/index.ts) closes the connection when used.
 *
 * Version notes:
 * - v3: flexible; finalizedFeatures: transaction.version (the cluster's `transactionVersion`)
 * - v4+: a request at a version above ours is answered in v0 format with
 *   UNSUPPORTED_VERSION and our ApiVersions range (KIP-511); the server does that,
 *   before decoding, through `unsupportedApiVersionsResponse`
 * - v5: clusterId/nodeId in the request, ignored
 */
import { ApiVersions, type ApiVersionsRequest, type ApiVersionsResponse } from '../../protocol/apis/api-versions'
import { allApis } from '../../protocol/apis/index'
import { ErrorCode } from '../error-codes'
import type { TransactionCoordinator } from '../transactions'
import { defineHandler } from './handler'

function advertised (): ApiVersionsResponse['apiKeys'] {
  return allApis.map(api => ({ apiKey: api.key, minVersion: api.minVersion, maxVersion: api.maxVersion }))
}

function response (errorCode: number, apiKeys: ApiVersionsResponse['apiKeys'], transactionVersion = 0): ApiVersionsResponse {
  const finalizedFeatures = transactionVersion > 0 ? [{ name: 'transaction.version', maxVersionLevel: transactionVersion, minVersionLevel: transactionVersion }] : []
  return { errorCode, apiKeys, throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: transactionVersion > 0 ? 1n : -1n, finalizedFeatures, zkMigrationReady: false }
}

export function apiVersionsHandler (txns: TransactionCoordinator): ReturnType<typeof defineHandler<ApiVersionsRequest, ApiVersionsResponse>> {
  return defineHandler<ApiVersionsRequest, ApiVersionsResponse>({
    api: ApiVersions,
    handle: () => response(ErrorCode.NONE, advertised(), txns.transactionVersion),
    errorResponse: (_ctx, _request, errorCode) => response(errorCode, [])
  })
}

/** The v0 body for an ApiVersions request above our version (KIP-511). */
export function unsupportedApiVersionsResponse (): ApiVersionsResponse {
  return response(ErrorCode.UNSUPPORTED_VERSION, [{ apiKey: ApiVersions.key, minVersion: ApiVersions.minVersion, maxVersion: ApiVersions.maxVersion }])
}

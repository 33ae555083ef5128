/**
 * UpdateFeatures (key 57): changes finalized feature levels, such as metadata.version
 * (KIP-584). Upgrade types: 1 upgrade, 2 safe downgrade, 3 unsafe downgrade.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v2):
 * - v0: the lowest a 4.4 broker accepts; flexible
 * - v1: request adds featureUpdates.upgradeType, validateOnly; request drops featureUpdates.allowDowngrade
 * - v2: response drops results
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of UpdateFeaturesRequest.featureUpdates: the updates to finalized features. */
export interface UpdateFeaturesFeatureUpdateKey {
  /** The name of the finalized feature to be updated. */
  feature: string
  /** The new maximum version level of the feature (1 or more); less than 1 asks to delete the feature. */
  maxVersionLevel: number
  /** v1+. */
  upgradeType?: number
  /** v0. */
  allowDowngrade?: boolean
}

/** An UpdateFeatures request (key 57). */
export interface UpdateFeaturesRequest {
  /** How long to wait in ms before timing out the request. */
  timeoutMs?: number
  /** The list of updates to finalized features. */
  featureUpdates: UpdateFeaturesFeatureUpdateKey[]
  /** v1+. */
  validateOnly?: boolean
}

/** An entry of UpdateFeaturesResponse.results: results for each feature update. */
export interface UpdateFeaturesUpdatableFeatureResult {
  /** v0-1. */
  feature: string
  /** v0-1. */
  errorCode: number
  /** v0-1. */
  errorMessage: string | null
}

/** An UpdateFeatures response (key 57). */
export interface UpdateFeaturesResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top-level error code, or `0` if there was no top-level error. */
  errorCode: number
  /** The top-level error message, or `null` if there was no top-level error. */
  errorMessage: string | null
  /** v0-1. */
  results: UpdateFeaturesUpdatableFeatureResult[]
}

/** The UpdateFeatures API (key 57): its versions and its request and response schemas. */
export const UpdateFeatures = defineApi<UpdateFeaturesRequest, UpdateFeaturesResponse>({
  key: 57,
  name: 'UpdateFeatures',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '0+',
  request: struct(
    field('timeoutMs', 'int32', '0+', { default: 60000 }),
    field('featureUpdates', array(struct(
      field('feature', 'string', '0+'),
      field('maxVersionLevel', 'int16', '0+'),
      field('upgradeType', 'int8', '1+', { default: 1 }),
      field('allowDowngrade', 'bool', '0')
    )), '0+'),
    field('validateOnly', 'bool', '1+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+' }),
    field('results', array(struct(
      field('feature', 'string', '0-1'),
      field('errorCode', 'int16', '0-1'),
      field('errorMessage', 'string', '0-1', { nullableVersions: '0-1' })
    )), '0-1')
  )
})

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

export interface UpdateFeaturesFeatureUpdateKey {
  feature: string
  maxVersionLevel: number
  /** v1+. */
  upgradeType?: number
  /** v0. */
  allowDowngrade?: boolean
}

export interface UpdateFeaturesRequest {
  timeoutMs?: number
  featureUpdates: UpdateFeaturesFeatureUpdateKey[]
  /** v1+. */
  validateOnly?: boolean
}

export interface UpdateFeaturesUpdatableFeatureResult {
  /** v0-1. */
  feature: string
  /** v0-1. */
  errorCode: number
  /** v0-1. */
  errorMessage: string | null
}

export interface UpdateFeaturesResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  /** v0-1. */
  results: UpdateFeaturesUpdatableFeatureResult[]
}

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

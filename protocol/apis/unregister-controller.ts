/**
 * UnregisterController (key 94): removes a controller's registration from a KRaft cluster,
 * for a controller that was shut down for good and is no voter. Any broker forwards it to
 * the active controller.
 *
 * Version notes:
 * - v0: the only version; flexible (Kafka 4.4, KRaft)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

export interface UnregisterControllerRequest {
  controllerId: number
}

export interface UnregisterControllerResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
}

export const UnregisterController = defineApi<UnregisterControllerRequest, UnregisterControllerResponse>({
  key: 94,
  name: 'UnregisterController',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('controllerId', 'int32', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
  )
})

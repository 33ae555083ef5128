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

/** An UnregisterController request (key 94). */
export interface UnregisterControllerRequest {
  /** The controller ID to unregister. */
  controllerId: number
}

/** An UnregisterController response (key 94). */
export interface UnregisterControllerResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or `null` if there was no top-level error. */
  errorMessage: string | null
}

/** The UnregisterController API (key 94): its versions and its request and response schemas. */
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

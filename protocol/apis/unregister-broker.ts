/**
 * UnregisterBroker (key 64): removes a broker's registration from a KRaft cluster, for a
 * broker that was shut down for good (KIP-631). Any broker forwards it to the controller.
 *
 * Version notes:
 * - v0: the only version; flexible (Kafka 3.3, KRaft)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

/** An UnregisterBroker request (key 64). */
export interface UnregisterBrokerRequest {
  /** The broker ID to unregister. */
  brokerId: number
}

/** An UnregisterBroker response (key 64). */
export interface UnregisterBrokerResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or `null` if there was no top-level error. */
  errorMessage: string | null
}

/** The UnregisterBroker API (key 64): its versions and its request and response schemas. */
export const UnregisterBroker = defineApi<UnregisterBrokerRequest, UnregisterBrokerResponse>({
  key: 64,
  name: 'UnregisterBroker',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('brokerId', 'int32', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
  )
})

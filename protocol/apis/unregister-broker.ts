/**
 * UnregisterBroker (key 64): removes a broker's registration from a KRaft cluster, for a
 * broker that was shut down for good (KIP-631). Any broker forwards it to the controller.
 *
 * Version notes:
 * - v0: the only version; flexible (Kafka 3.3, KRaft)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

export interface UnregisterBrokerRequest {
  brokerId: number
}

export interface UnregisterBrokerResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
}

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

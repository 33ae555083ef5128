/**
 * ExpireDelegationToken (key 40): sets a delegation token's expiry; a negative period
 * expires it at once (KIP-48).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v2):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'
import { tokenExpiryResponse, type RenewDelegationTokenResponse } from './renew-delegation-token'

/** An ExpireDelegationToken request (key 40). */
export interface ExpireDelegationTokenRequest {
  /** The HMAC of the delegation token to be expired. */
  hmac: Buffer
  /** The expiry time period in ms. */
  expiryTimePeriodMs: bigint
}

/** An ExpireDelegationToken response (key 40). */
export type ExpireDelegationTokenResponse = RenewDelegationTokenResponse

/** The ExpireDelegationToken API (key 40): its versions and its request and response schemas. */
export const ExpireDelegationToken = defineApi<ExpireDelegationTokenRequest, ExpireDelegationTokenResponse>({
  key: 40,
  name: 'ExpireDelegationToken',
  minVersion: 1,
  maxVersion: 2,
  flexibleVersions: '2+',
  request: struct(
    field('hmac', 'bytes', '1+'),
    field('expiryTimePeriodMs', 'int64', '1+')
  ),
  response: tokenExpiryResponse
})

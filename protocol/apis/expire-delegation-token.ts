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

export interface ExpireDelegationTokenRequest {
  hmac: Buffer
  expiryTimePeriodMs: bigint
}

export type ExpireDelegationTokenResponse = RenewDelegationTokenResponse

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

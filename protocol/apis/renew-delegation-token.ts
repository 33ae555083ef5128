/**
 * RenewDelegationToken (key 39): extends a delegation token's expiry (KIP-48).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v2):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

export interface RenewDelegationTokenRequest {
  hmac: Buffer
  renewPeriodMs: bigint
}

export interface RenewDelegationTokenResponse {
  errorCode: number
  expiryTimestampMs: bigint
  throttleTimeMs: number
}

/** The token's expiry after the change; ExpireDelegationToken answers with the same struct. */
export const tokenExpiryResponse = struct(
  field('errorCode', 'int16', '1+'),
  field('expiryTimestampMs', 'int64', '1+'),
  field('throttleTimeMs', 'int32', '1+')
)

export const RenewDelegationToken = defineApi<RenewDelegationTokenRequest, RenewDelegationTokenResponse>({
  key: 39,
  name: 'RenewDelegationToken',
  minVersion: 1,
  maxVersion: 2,
  flexibleVersions: '2+',
  request: struct(
    field('hmac', 'bytes', '1+'),
    field('renewPeriodMs', 'int64', '1+')
  ),
  response: tokenExpiryResponse
})

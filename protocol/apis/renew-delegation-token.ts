/**
 * RenewDelegationToken (key 39): extends a delegation token's expiry (KIP-48).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v2):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

/** A RenewDelegationToken request (key 39). */
export interface RenewDelegationTokenRequest {
  /** The HMAC of the delegation token to be renewed. */
  hmac: Buffer
  /** The renewal time period in ms. */
  renewPeriodMs: bigint
}

/** A RenewDelegationToken response (key 39). */
export interface RenewDelegationTokenResponse {
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** When the token now expires, in ms since the epoch. */
  expiryTimestampMs: bigint
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
}

/** The token's expiry after the change; ExpireDelegationToken answers with the same struct. */
export const tokenExpiryResponse = struct(
  field('errorCode', 'int16', '1+'),
  field('expiryTimestampMs', 'int64', '1+'),
  field('throttleTimeMs', 'int32', '1+')
)

/** The RenewDelegationToken API (key 39): its versions and its request and response schemas. */
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

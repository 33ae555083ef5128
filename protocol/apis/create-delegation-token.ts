/**
 * CreateDelegationToken (key 38): creates a delegation token for the caller, or for
 * an owner it may create tokens for (KIP-48, KIP-373).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v3):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 * - v3: request adds ownerPrincipalType, ownerPrincipalName; response adds tokenRequesterPrincipalType, tokenRequesterPrincipalName
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of CreateDelegationTokenRequest.renewers: those who are allowed to renew this token before it expires. */
export interface CreateDelegationTokenCreatableRenewers {
  /** The type of the Kafka principal. */
  principalType: string
  /** The name of the Kafka principal. */
  principalName: string
}

/** A CreateDelegationToken request (key 38). */
export interface CreateDelegationTokenRequest {
  /** v3+. */
  ownerPrincipalType?: string | null
  /** v3+. */
  ownerPrincipalName?: string | null
  /** A list of those who are allowed to renew this token before it expires. */
  renewers: CreateDelegationTokenCreatableRenewers[]
  /** The maximum lifetime of the token in ms, or -1 to use the server side default. */
  maxLifetimeMs: bigint
}

/** A CreateDelegationToken response (key 38). */
export interface CreateDelegationTokenResponse {
  /** The top-level error, or zero if there was no error. */
  errorCode: number
  /** The principal type of the token owner. */
  principalType: string
  /** The name of the token owner. */
  principalName: string
  /** v3+. */
  tokenRequesterPrincipalType: string
  /** v3+. */
  tokenRequesterPrincipalName: string
  /** When this token was generated, in ms since the epoch. */
  issueTimestampMs: bigint
  /** When this token expires, in ms since the epoch. */
  expiryTimestampMs: bigint
  /** When this token's maximum lifetime ends, in ms since the epoch. */
  maxTimestampMs: bigint
  /** The token UUID. */
  tokenId: string
  /** HMAC of the delegation token. */
  hmac: Buffer
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
}

/** The CreateDelegationToken API (key 38): its versions and its request and response schemas. */
export const CreateDelegationToken = defineApi<CreateDelegationTokenRequest, CreateDelegationTokenResponse>({
  key: 38,
  name: 'CreateDelegationToken',
  minVersion: 1,
  maxVersion: 3,
  flexibleVersions: '2+',
  request: struct(
    field('ownerPrincipalType', 'string', '3+', { nullableVersions: '3+' }),
    field('ownerPrincipalName', 'string', '3+', { nullableVersions: '3+' }),
    field('renewers', array(struct(
      field('principalType', 'string', '1+'),
      field('principalName', 'string', '1+')
    )), '1+'),
    field('maxLifetimeMs', 'int64', '1+')
  ),
  response: struct(
    field('errorCode', 'int16', '1+'),
    field('principalType', 'string', '1+'),
    field('principalName', 'string', '1+'),
    field('tokenRequesterPrincipalType', 'string', '3+'),
    field('tokenRequesterPrincipalName', 'string', '3+'),
    field('issueTimestampMs', 'int64', '1+'),
    field('expiryTimestampMs', 'int64', '1+'),
    field('maxTimestampMs', 'int64', '1+'),
    field('tokenId', 'string', '1+'),
    field('hmac', 'bytes', '1+'),
    field('throttleTimeMs', 'int32', '1+')
  )
})

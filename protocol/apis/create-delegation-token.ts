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

export interface CreateDelegationTokenCreatableRenewers {
  principalType: string
  principalName: string
}

export interface CreateDelegationTokenRequest {
  /** v3+. */
  ownerPrincipalType?: string | null
  /** v3+. */
  ownerPrincipalName?: string | null
  renewers: CreateDelegationTokenCreatableRenewers[]
  maxLifetimeMs: bigint
}

export interface CreateDelegationTokenResponse {
  errorCode: number
  principalType: string
  principalName: string
  /** v3+. */
  tokenRequesterPrincipalType: string
  /** v3+. */
  tokenRequesterPrincipalName: string
  issueTimestampMs: bigint
  expiryTimestampMs: bigint
  maxTimestampMs: bigint
  tokenId: string
  hmac: Buffer
  throttleTimeMs: number
}

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

/**
 * DescribeDelegationToken (key 41): the delegation tokens of owners (null: every token
 * the caller may describe) (KIP-48).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v3):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 * - v3: response adds tokens.tokenRequesterPrincipalType, tokens.tokenRequesterPrincipalName
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface DescribeDelegationTokenOwner {
  principalType: string
  principalName: string
}

export interface DescribeDelegationTokenRequest {
  owners?: DescribeDelegationTokenOwner[] | null
}

export interface DescribeDelegationTokenDescribedDelegationTokenRenewer {
  principalType: string
  principalName: string
}

export interface DescribeDelegationTokenDescribedDelegationToken {
  principalType: string
  principalName: string
  /** v3+. */
  tokenRequesterPrincipalType: string
  /** v3+. */
  tokenRequesterPrincipalName: string
  issueTimestamp: bigint
  expiryTimestamp: bigint
  maxTimestamp: bigint
  tokenId: string
  hmac: Buffer
  renewers: DescribeDelegationTokenDescribedDelegationTokenRenewer[]
}

export interface DescribeDelegationTokenResponse {
  errorCode: number
  tokens: DescribeDelegationTokenDescribedDelegationToken[]
  throttleTimeMs: number
}

export const DescribeDelegationToken = defineApi<DescribeDelegationTokenRequest, DescribeDelegationTokenResponse>({
  key: 41,
  name: 'DescribeDelegationToken',
  minVersion: 1,
  maxVersion: 3,
  flexibleVersions: '2+',
  request: struct(
    field('owners', array(struct(
      field('principalType', 'string', '1+'),
      field('principalName', 'string', '1+')
    )), '1+', { nullableVersions: '1+' })
  ),
  response: struct(
    field('errorCode', 'int16', '1+'),
    field('tokens', array(struct(
      field('principalType', 'string', '1+'),
      field('principalName', 'string', '1+'),
      field('tokenRequesterPrincipalType', 'string', '3+'),
      field('tokenRequesterPrincipalName', 'string', '3+'),
      field('issueTimestamp', 'int64', '1+'),
      field('expiryTimestamp', 'int64', '1+'),
      field('maxTimestamp', 'int64', '1+'),
      field('tokenId', 'string', '1+'),
      field('hmac', 'bytes', '1+'),
      field('renewers', array(struct(
        field('principalType', 'string', '1+'),
        field('principalName', 'string', '1+')
      )), '1+')
    )), '1+'),
    field('throttleTimeMs', 'int32', '1+')
  )
})

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

/** An entry of DescribeDelegationTokenRequest.owners: each owner that we want to describe delegation tokens for. */
export interface DescribeDelegationTokenOwner {
  /** The owner principal type. */
  principalType: string
  /** The owner principal name. */
  principalName: string
}

/** A DescribeDelegationToken request (key 41). */
export interface DescribeDelegationTokenRequest {
  /** Each owner that we want to describe delegation tokens for, or null to describe all tokens. */
  owners?: DescribeDelegationTokenOwner[] | null
}

/**
 * An entry of DescribeDelegationTokenDescribedDelegationToken.renewers: those who are able to renew this token
 * before it expires.
 */
export interface DescribeDelegationTokenDescribedDelegationTokenRenewer {
  /** The renewer principal type. */
  principalType: string
  /** The renewer principal name. */
  principalName: string
}

/** An entry of DescribeDelegationTokenResponse.tokens: the tokens. */
export interface DescribeDelegationTokenDescribedDelegationToken {
  /** The token principal type. */
  principalType: string
  /** The token principal name. */
  principalName: string
  /** v3+. */
  tokenRequesterPrincipalType: string
  /** v3+. */
  tokenRequesterPrincipalName: string
  /** When the token was issued, in ms since the epoch. */
  issueTimestamp: bigint
  /** When the token expires, in ms since the epoch. */
  expiryTimestamp: bigint
  /** When the token's maximum lifetime ends, in ms since the epoch. */
  maxTimestamp: bigint
  /** The token ID. */
  tokenId: string
  /** The token HMAC. */
  hmac: Buffer
  /** Those who are able to renew this token before it expires. */
  renewers: DescribeDelegationTokenDescribedDelegationTokenRenewer[]
}

/** A DescribeDelegationToken response (key 41). */
export interface DescribeDelegationTokenResponse {
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The tokens. */
  tokens: DescribeDelegationTokenDescribedDelegationToken[]
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
}

/** The DescribeDelegationToken API (key 41): its versions and its request and response schemas. */
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

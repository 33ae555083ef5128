/**
 * DescribeUserScramCredentials (key 50): the SCRAM mechanisms and iteration counts stored
 * per user, never the credentials themselves (KIP-554). Mechanisms: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of DescribeUserScramCredentialsRequest.users: the users to describe. */
export interface DescribeUserScramCredentialsUserName {
  /** The user name. */
  name: string
}

/** A DescribeUserScramCredentials request (key 50). */
export interface DescribeUserScramCredentialsRequest {
  /** The users to describe, or null/empty to describe all users. */
  users?: DescribeUserScramCredentialsUserName[] | null
}

/** An entry of DescribeUserScramCredentialsResult.credentialInfos: one SCRAM credential of the user. */
export interface DescribeUserScramCredentialsCredentialInfo {
  /** The SCRAM mechanism. */
  mechanism: number
  /** The number of iterations used in the SCRAM credential. */
  iterations: number
}

/** An entry of DescribeUserScramCredentialsResponse.results: the results for descriptions, one per user. */
export interface DescribeUserScramCredentialsResult {
  /** The user name. */
  user: string
  /** The user-level error code. */
  errorCode: number
  /** The user-level error message, if any. */
  errorMessage: string | null
  /** The mechanism and related information associated with the user's SCRAM credentials. */
  credentialInfos: DescribeUserScramCredentialsCredentialInfo[]
}

/** A DescribeUserScramCredentials response (key 50). */
export interface DescribeUserScramCredentialsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The message-level error code, 0 except for user authorization or infrastructure issues. */
  errorCode: number
  /** The message-level error message, if any. */
  errorMessage: string | null
  /** The results for descriptions, one per user. */
  results: DescribeUserScramCredentialsResult[]
}

/** The DescribeUserScramCredentials API (key 50): its versions and its request and response schemas. */
export const DescribeUserScramCredentials = defineApi<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse>({
  key: 50,
  name: 'DescribeUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('users', array(struct(
      field('name', 'string', '0+')
    )), '0+', { nullableVersions: '0+' })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+' }),
    field('results', array(struct(
      field('user', 'string', '0+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+' }),
      field('credentialInfos', array(struct(
        field('mechanism', 'int8', '0+'),
        field('iterations', 'int32', '0+')
      )), '0+')
    )), '0+')
  )
})

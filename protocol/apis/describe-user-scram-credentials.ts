/**
 * DescribeUserScramCredentials (key 50): the SCRAM mechanisms and iteration counts stored
 * per user, never the credentials themselves (KIP-554). Mechanisms: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface DescribeUserScramCredentialsUserName {
  name: string
}

export interface DescribeUserScramCredentialsRequest {
  users?: DescribeUserScramCredentialsUserName[] | null
}

export interface DescribeUserScramCredentialsCredentialInfo {
  mechanism: number
  iterations: number
}

export interface DescribeUserScramCredentialsResult {
  user: string
  errorCode: number
  errorMessage: string | null
  credentialInfos: DescribeUserScramCredentialsCredentialInfo[]
}

export interface DescribeUserScramCredentialsResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  results: DescribeUserScramCredentialsResult[]
}

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

/**
 * AlterUserScramCredentials (key 51): stores or deletes users' SCRAM credentials; the client
 * sends the salt and the salted password (Hi(password, salt, iterations)), never the password (KIP-554).
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v0):
 * - v0: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface AlterUserScramCredentialsScramCredentialDeletion {
  name: string
  mechanism: number
}

export interface AlterUserScramCredentialsScramCredentialUpsertion {
  name: string
  mechanism: number
  iterations: number
  salt: Buffer
  saltedPassword: Buffer
}

export interface AlterUserScramCredentialsRequest {
  deletions: AlterUserScramCredentialsScramCredentialDeletion[]
  upsertions: AlterUserScramCredentialsScramCredentialUpsertion[]
}

export interface AlterUserScramCredentialsResult {
  user: string
  errorCode: number
  errorMessage: string | null
}

export interface AlterUserScramCredentialsResponse {
  throttleTimeMs: number
  results: AlterUserScramCredentialsResult[]
}

export const AlterUserScramCredentials = defineApi<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse>({
  key: 51,
  name: 'AlterUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('deletions', array(struct(
      field('name', 'string', '0+'),
      field('mechanism', 'int8', '0+')
    )), '0+'),
    field('upsertions', array(struct(
      field('name', 'string', '0+'),
      field('mechanism', 'int8', '0+'),
      field('iterations', 'int32', '0+'),
      field('salt', 'bytes', '0+'),
      field('saltedPassword', 'bytes', '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('results', array(struct(
      field('user', 'string', '0+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+' })
    )), '0+')
  )
})

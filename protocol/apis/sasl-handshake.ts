/**
 * SaslHandshake (key 17): picks the SASL mechanism; the broker answers with the ones it
 * has enabled. Never flexible (KAFKA-9577: old clients negotiate it wrongly, so Kafka
 * cannot bump it).
 *
 * Version notes:
 * - v0: the SASL tokens that follow are raw size-prefixed bytes, outside Kafka framing
 * - v1: the tokens follow as SaslAuthenticate requests (KIP-152); kafkats uses v1
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A SaslHandshake request (key 17). */
export interface SaslHandshakeRequest {
  /** The SASL mechanism chosen by the client. */
  mechanism: string
}

/** A SaslHandshake response (key 17). */
export interface SaslHandshakeResponse {
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The mechanisms enabled in the server. */
  mechanisms: string[]
}

/** The SaslHandshake API (key 17): its versions and its request and response schemas. */
export const SaslHandshake = defineApi<SaslHandshakeRequest, SaslHandshakeResponse>({
  key: 17,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: 'none',
  request: struct(
    field('mechanism', 'string', '0+')
  ),
  response: struct(
    field('errorCode', 'int16', '0+'),
    field('mechanisms', array('string'), '0+')
  )
})

/**
 * SaslAuthenticate (key 36): carries one SASL token each way, after SaslHandshake v1.
 *
 * Version notes:
 * - v1: sessionLifetimeMs in the response: re-authenticate before it runs out (KIP-368)
 * - v2: flexible
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

/** A SaslAuthenticate request (key 36). */
export interface SaslAuthenticateRequest {
  /** The SASL authentication bytes from the client, as defined by the SASL mechanism. */
  authBytes: Uint8Array
}

/** A SaslAuthenticate response (key 36). */
export interface SaslAuthenticateResponse {
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
  /** The SASL authentication bytes from the server, as defined by the SASL mechanism. */
  authBytes: Buffer
  /** v1+: 0 when the session does not expire. */
  sessionLifetimeMs: bigint
}

/** The SaslAuthenticate API (key 36): its versions and its request and response schemas. */
export const SaslAuthenticate = defineApi<SaslAuthenticateRequest, SaslAuthenticateResponse>({
  key: 36,
  name: 'SaslAuthenticate',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '2+',
  request: struct(
    field('authBytes', 'bytes', '0+')
  ),
  response: struct(
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('authBytes', 'bytes', '0+'),
    field('sessionLifetimeMs', 'int64', '1+', { default: 0n })
  )
})

/**
 * FindCoordinator (key 10): which broker coordinates a consumer group, a transactional
 * id or a share group.
 *
 * Version notes:
 * - v1: keyType (0 group, 1 transaction); throttleTimeMs and errorMessage
 * - v2: the broker answers before throttling on quota violation
 * - v3: flexible
 * - v4: batched: coordinatorKeys in, one coordinator per key out (KIP-699)
 * - v5: TRANSACTION_ABORTABLE may be returned (KIP-890)
 * - v6: keyType 2, share groups (KIP-932)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** The keyType of a FindCoordinator request: what kind of key names the coordinator asked for. */
export const CoordinatorKeyType = {
  /** A group id: its group coordinator. */
  GROUP: 0,
  /** A transactional id: its transaction coordinator. */
  TRANSACTION: 1,
  /** v6+ */
  SHARE: 2
} as const

/** A FindCoordinator request (key 10). */
export interface FindCoordinatorRequest {
  /** v0–v3: the one key asked about. */
  key?: string
  /** v1+; 0 (group) by default. */
  keyType?: number
  /** v4+: every key asked about. */
  coordinatorKeys?: string[]
}

/** An entry of FindCoordinatorResponse.coordinators: each coordinator result in the response. */
export interface FindCoordinatorEntry {
  /** The coordinator key. */
  key: string
  /** The node id. */
  nodeId: number
  /** The host name. */
  host: string
  /** The port. */
  port: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
}

/** A FindCoordinator response (key 10). */
export interface FindCoordinatorResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** v0–v3 answer for the single key; v4+ answers in `coordinators`. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
  /** The node id. */
  nodeId: number
  /** The host name. */
  host: string
  /** The port. */
  port: number
  /** Each coordinator result in the response. */
  coordinators: FindCoordinatorEntry[]
}

/** The FindCoordinator API (key 10): its versions and its request and response schemas. */
export const FindCoordinator = defineApi<FindCoordinatorRequest, FindCoordinatorResponse>({
  key: 10,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 6,
  flexibleVersions: '3+',
  request: struct(
    field('key', 'string', '0-3'),
    field('keyType', 'int8', '1+', { default: 0 }),
    field('coordinatorKeys', array('string'), '4+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '0-3'),
    field('errorMessage', 'string', '1-3', { nullableVersions: '1-3' }),
    field('nodeId', 'int32', '0-3'),
    field('host', 'string', '0-3'),
    field('port', 'int32', '0-3'),
    field('coordinators', array(struct(
      field('key', 'string', '4+'),
      field('nodeId', 'int32', '4+'),
      field('host', 'string', '4+'),
      field('port', 'int32', '4+'),
      field('errorCode', 'int16', '4+'),
      field('errorMessage', 'string', '4+', { nullableVersions: '4+' })
    )), '4+')
  )
})

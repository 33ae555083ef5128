/**
 * Heartbeat (key 12): a member of a classic group tells the coordinator it is alive. The
 * answer says whether a rebalance started (REBALANCE_IN_PROGRESS) or the member was fenced.
 *
 * Version notes:
 * - v1: throttleTimeMs in the response
 * - v2: the broker answers before throttling on quota violation
 * - v3: groupInstanceId, static membership (KIP-345)
 * - v4: flexible
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

/** A Heartbeat request (key 12). */
export interface HeartbeatRequest {
  /** The group id. */
  groupId: string
  /** The generation of the group. */
  generationId: number
  /** The member ID. */
  memberId: string
  /** v3+: static membership; null (the default) for a dynamic member. */
  groupInstanceId?: string | null
}

/** A Heartbeat response (key 12). */
export interface HeartbeatResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
}

/** The Heartbeat API (key 12): its versions and its request and response schemas. */
export const Heartbeat = defineApi<HeartbeatRequest, HeartbeatResponse>({
  key: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersions: '4+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('generationId', 'int32', '0+'),
    field('memberId', 'string', '0+'),
    field('groupInstanceId', 'string', '3+', { nullableVersions: '3+', default: null })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '0+')
  )
})

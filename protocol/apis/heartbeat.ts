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

export interface HeartbeatRequest {
  groupId: string
  generationId: number
  memberId: string
  /** v3+: static membership; null (the default) for a dynamic member. */
  groupInstanceId?: string | null
}

export interface HeartbeatResponse {
  throttleTimeMs: number
  errorCode: number
}

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

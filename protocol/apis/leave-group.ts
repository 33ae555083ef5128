/**
 * LeaveGroup (key 13): members leave a classic group, so it rebalances at once instead of
 * after their session timeout.
 *
 * Version notes:
 * - v1: throttleTimeMs in the response
 * - v2: the broker answers before throttling on quota violation
 * - v3: batched: several members (memberId and/or groupInstanceId) in one request, an
 *   error per member in the response (KIP-345)
 * - v4: flexible
 * - v5: reason per member (KIP-800)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of LeaveGroupRequest.members: the leaving member identities. */
export interface LeaveGroupMemberIdentity {
  /** The member ID to remove from the group. */
  memberId: string
  /** Static membership; null (the default) for a dynamic member. */
  groupInstanceId?: string | null
  /** v5+: why the member leaves, for the broker's log. */
  reason?: string | null
}

/** A LeaveGroup request (key 13). */
export interface LeaveGroupRequest {
  /** The ID of the group to leave. */
  groupId: string
  /** v0–v2: the one member that leaves. */
  memberId?: string
  /** v3+: the members that leave. */
  members?: LeaveGroupMemberIdentity[]
}

/** An entry of LeaveGroupResponse.members: the leaving member responses. */
export interface LeaveGroupMemberResponse {
  /** The member ID to remove from the group. */
  memberId: string
  /** The group instance ID to remove from the group. */
  groupInstanceId: string | null
  /** The error code, or 0 if there was no error. */
  errorCode: number
}

/** A LeaveGroup response (key 13). */
export interface LeaveGroupResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** v3+: one entry per member in the request. */
  members: LeaveGroupMemberResponse[]
}

/** The LeaveGroup API (key 13): its versions and its request and response schemas. */
export const LeaveGroup = defineApi<LeaveGroupRequest, LeaveGroupResponse>({
  key: 13,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersions: '4+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('memberId', 'string', '0-2'),
    field('members', array(struct(
      field('memberId', 'string', '3+'),
      field('groupInstanceId', 'string', '3+', { nullableVersions: '3+', default: null }),
      field('reason', 'string', '5+', { nullableVersions: '5+', default: null })
    )), '3+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '0+'),
    field('members', array(struct(
      field('memberId', 'string', '3+'),
      // Kafka's default here is '' (no "default": "null" in its JSON).
      field('groupInstanceId', 'string', '3+', { nullableVersions: '3+' }),
      field('errorCode', 'int16', '3+')
    )), '3+')
  )
})

/**
 * SyncGroup (key 14): after JoinGroup, the leader sends every member's assignment and every
 * member (the leader included) gets its own back. For consumers the assignment is
 * ConsumerProtocolAssignment bytes (see protocol/consumer-protocol.ts); a member the leader
 * left out gets empty bytes.
 *
 * Version notes:
 * - v1: throttleTimeMs in the response
 * - v2: the broker answers before throttling on quota violation
 * - v3: groupInstanceId, static membership (KIP-345)
 * - v4: flexible
 * - v5: protocolType and protocolName in the request (the broker checks them against the
 *   group's) and in the response (KIP-559)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of SyncGroupRequest.assignments: each assignment. */
export interface SyncGroupRequestAssignment {
  /** The ID of the member to assign. */
  memberId: string
  /** For consumers: encoded by encodeAssignment. */
  assignment: Buffer
}

/** A SyncGroup request (key 14). */
export interface SyncGroupRequest {
  /** The unique group identifier. */
  groupId: string
  /** The generation of the group. */
  generationId: number
  /** The member ID assigned by the group. */
  memberId: string
  /** v3+: static membership; null (the default) for a dynamic member. */
  groupInstanceId?: string | null
  /** v5+: the protocol type sent in JoinGroup ('consumer'). */
  protocolType?: string | null
  /** v5+: the protocol (assignor) JoinGroup chose. */
  protocolName?: string | null
  /** Every member's assignment when sent by the leader; empty from the others. */
  assignments: SyncGroupRequestAssignment[]
}

/** A SyncGroup response (key 14). */
export interface SyncGroupResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** v5+. */
  protocolType: string | null
  /** v5+. */
  protocolName: string | null
  /** This member's assignment. */
  assignment: Buffer
}

/** The SyncGroup API (key 14): its versions and its request and response schemas. */
export const SyncGroup = defineApi<SyncGroupRequest, SyncGroupResponse>({
  key: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersions: '4+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('generationId', 'int32', '0+'),
    field('memberId', 'string', '0+'),
    field('groupInstanceId', 'string', '3+', { nullableVersions: '3+', default: null }),
    field('protocolType', 'string', '5+', { nullableVersions: '5+', default: null }),
    field('protocolName', 'string', '5+', { nullableVersions: '5+', default: null }),
    field('assignments', array(struct(
      field('memberId', 'string', '0+'),
      field('assignment', 'bytes', '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '0+'),
    field('protocolType', 'string', '5+', { nullableVersions: '5+', default: null }),
    field('protocolName', 'string', '5+', { nullableVersions: '5+', default: null }),
    field('assignment', 'bytes', '0+')
  )
})

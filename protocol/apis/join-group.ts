/**
 * JoinGroup (key 11): a member of a classic group joins (or rejoins) it. The coordinator
 * waits for every member, picks a protocol they all support and a leader, and answers the
 * leader with every member's protocol metadata (for consumers: ConsumerProtocolSubscription
 * bytes, see protocol/consumer-protocol.ts); the leader then assigns in SyncGroup.
 *
 * Version notes:
 * - v1: rebalanceTimeoutMs (before it, the session timeout bounds a rebalance)
 * - v2: throttleTimeMs in the response
 * - v3: the broker answers before throttling on quota violation
 * - v4: a member joining with an empty memberId gets MEMBER_ID_REQUIRED and its member id,
 *   and must join again with it (KIP-394)
 * - v5: groupInstanceId, static membership (KIP-345)
 * - v6: flexible
 * - v7: protocolType in the response; protocolName may be null (KIP-559)
 * - v8: reason (KIP-800)
 * - v9: skipAssignment in the response: the leader must not assign (KIP-814)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of JoinGroupRequest.protocols: the protocols that the member supports. */
export interface JoinGroupRequestProtocol {
  /** An assignor's name, e.g. 'range' or 'cooperative-sticky'. */
  name: string
  /** For consumers: the member's subscription, encoded by encodeSubscription. */
  metadata: Buffer
}

/** A JoinGroup request (key 11). */
export interface JoinGroupRequest {
  /** The group identifier. */
  groupId: string
  /** The coordinator considers the consumer dead if it receives no heartbeat after this timeout in ms. */
  sessionTimeoutMs: number
  /** v1+; -1 by default (the coordinator then uses sessionTimeoutMs). */
  rebalanceTimeoutMs?: number
  /** '' on the first join. */
  memberId: string
  /** v5+: static membership; null (the default) for a dynamic member. */
  groupInstanceId?: string | null
  /** 'consumer' for consumer groups. */
  protocolType: string
  /** The protocols (assignors) this member supports, most preferred first. */
  protocols: JoinGroupRequestProtocol[]
  /** v8+: why the member (re)joins, for the broker's log. */
  reason?: string | null
}

/** An entry of JoinGroupResponse.members: the group members. */
export interface JoinGroupResponseMember {
  /** The group member ID. */
  memberId: string
  /** The unique identifier of the consumer instance provided by end user. */
  groupInstanceId: string | null
  /** The group member metadata. */
  metadata: Buffer
}

/** A JoinGroup response (key 11). */
export interface JoinGroupResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** -1 on error. */
  generationId: number
  /** v7+. */
  protocolType: string | null
  /** The protocol (assignor) the coordinator chose; nullable from v7. */
  protocolName: string | null
  /** The member id of the group's leader. */
  leader: string
  /** v9+: the leader must not run the assignment (another party assigns). */
  skipAssignment: boolean
  /** This member's id. */
  memberId: string
  /** Every member with its metadata when this member is the leader; empty otherwise. */
  members: JoinGroupResponseMember[]
}

/** The JoinGroup API (key 11): its versions and its request and response schemas. */
export const JoinGroup = defineApi<JoinGroupRequest, JoinGroupResponse>({
  key: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 9,
  flexibleVersions: '6+',
  request: struct(
    field('groupId', 'string', '0+'),
    field('sessionTimeoutMs', 'int32', '0+'),
    field('rebalanceTimeoutMs', 'int32', '1+', { default: -1 }),
    field('memberId', 'string', '0+'),
    field('groupInstanceId', 'string', '5+', { nullableVersions: '5+', default: null }),
    field('protocolType', 'string', '0+'),
    field('protocols', array(struct(
      field('name', 'string', '0+'),
      field('metadata', 'bytes', '0+')
    )), '0+'),
    field('reason', 'string', '8+', { nullableVersions: '8+', default: null })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '2+'),
    field('errorCode', 'int16', '0+'),
    field('generationId', 'int32', '0+', { default: -1 }),
    field('protocolType', 'string', '7+', { nullableVersions: '7+', default: null }),
    field('protocolName', 'string', '0+', { nullableVersions: '7+' }),
    field('leader', 'string', '0+'),
    field('skipAssignment', 'bool', '9+', { default: false }),
    field('memberId', 'string', '0+'),
    field('members', array(struct(
      field('memberId', 'string', '0+'),
      field('groupInstanceId', 'string', '5+', { nullableVersions: '5+', default: null }),
      field('metadata', 'bytes', '0+')
    )), '0+')
  )
})

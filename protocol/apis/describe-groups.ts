/**
 * DescribeGroups (key 15): the state of classic groups: protocol, and each member with its
 * client, metadata and assignment. (KIP-848 groups are described by ConsumerGroupDescribe.)
 *
 * Version notes:
 * - v1: throttleTimeMs in the response
 * - v2: the broker answers before throttling on quota violation
 * - v3: includeAuthorizedOperations; authorizedOperations per group (KIP-430)
 * - v4: groupInstanceId per member (KIP-345)
 * - v5: flexible
 * - v6: errorMessage per group; a group that does not exist is GROUP_ID_NOT_FOUND (KIP-1043)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DescribeGroups request (key 15). */
export interface DescribeGroupsRequest {
  /** The names of the groups to describe. */
  groups: string[]
  /** v3+. */
  includeAuthorizedOperations?: boolean
}

/** An entry of DescribeGroupsGroup.members: the group members. */
export interface DescribeGroupsMember {
  /** The member id. */
  memberId: string
  /** v4+. */
  groupInstanceId: string | null
  /** The client ID used in the member's latest join group request. */
  clientId: string
  /** The client host. */
  clientHost: string
  /** The member's JoinGroup metadata (only while the group is Stable). */
  memberMetadata: Buffer
  /** The member's SyncGroup assignment (only while the group is Stable). */
  memberAssignment: Buffer
}

/** An entry of DescribeGroupsResponse.groups: each described group. */
export interface DescribeGroupsGroup {
  /** The describe error, or 0 if there was no error. */
  errorCode: number
  /** v6+. */
  errorMessage: string | null
  /** The group ID string. */
  groupId: string
  /** The group state string, or the empty string. */
  groupState: string
  /** The group protocol type, or the empty string. */
  protocolType: string
  /** The chosen protocol (assignor) while the group is Stable. */
  protocolData: string
  /** Empty when the group is Dead. */
  members: DescribeGroupsMember[]
  /** v3+: a bit field of ACL operations; -2147483648 when not asked for. */
  authorizedOperations: number
}

/** A DescribeGroups response (key 15). */
export interface DescribeGroupsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each described group. */
  groups: DescribeGroupsGroup[]
}

/** "Authorized operations were not asked for" (Kafka's Integer.MIN_VALUE). */
const OPERATIONS_NOT_ASKED = -2147483648

/** The DescribeGroups API (key 15): its versions and its request and response schemas. */
export const DescribeGroups = defineApi<DescribeGroupsRequest, DescribeGroupsResponse>({
  key: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 6,
  flexibleVersions: '5+',
  request: struct(
    field('groups', array('string'), '0+'),
    field('includeAuthorizedOperations', 'bool', '3+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('groups', array(struct(
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '6+', { nullableVersions: '6+', default: null }),
      field('groupId', 'string', '0+'),
      field('groupState', 'string', '0+'),
      field('protocolType', 'string', '0+'),
      field('protocolData', 'string', '0+'),
      field('members', array(struct(
        field('memberId', 'string', '0+'),
        field('groupInstanceId', 'string', '4+', { nullableVersions: '4+', default: null }),
        field('clientId', 'string', '0+'),
        field('clientHost', 'string', '0+'),
        field('memberMetadata', 'bytes', '0+'),
        field('memberAssignment', 'bytes', '0+')
      )), '0+'),
      field('authorizedOperations', 'int32', '3+', { default: OPERATIONS_NOT_ASKED })
    )), '0+')
  )
})

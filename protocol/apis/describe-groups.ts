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

export interface DescribeGroupsRequest {
  groups: string[]
  /** v3+. */
  includeAuthorizedOperations?: boolean
}

export interface DescribeGroupsMember {
  memberId: string
  /** v4+. */
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  /** The member's JoinGroup metadata (only while the group is Stable). */
  memberMetadata: Buffer
  /** The member's SyncGroup assignment (only while the group is Stable). */
  memberAssignment: Buffer
}

export interface DescribeGroupsGroup {
  errorCode: number
  /** v6+. */
  errorMessage: string | null
  groupId: string
  groupState: string
  protocolType: string
  /** The chosen protocol (assignor) while the group is Stable. */
  protocolData: string
  /** Empty when the group is Dead. */
  members: DescribeGroupsMember[]
  /** v3+: a bit field of ACL operations; -2147483648 when not asked for. */
  authorizedOperations: number
}

export interface DescribeGroupsResponse {
  throttleTimeMs: number
  groups: DescribeGroupsGroup[]
}

/** "Authorized operations were not asked for" (Kafka's Integer.MIN_VALUE). */
const OPERATIONS_NOT_ASKED = -2147483648

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

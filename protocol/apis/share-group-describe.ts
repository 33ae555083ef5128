/**
 * ShareGroupDescribe (key 77): the state of share groups (KIP-932) and their members.
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v1):
 * - v1: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'
import { describedAssignment, type ConsumerGroupDescribeAssignment, type ConsumerGroupDescribeTopicPartitions } from './consumer-group-describe'

/** A ShareGroupDescribe request (key 77). */
export interface ShareGroupDescribeRequest {
  /** The ids of the groups to describe. */
  groupIds: string[]
  /** Whether to include authorized operations. */
  includeAuthorizedOperations: boolean
}

/** A topic and its partitions in a ShareGroupDescribe assignment (as ConsumerGroupDescribe's). */
export type ShareGroupDescribeTopicPartitions = ConsumerGroupDescribeTopicPartitions

/** The value of ShareGroupDescribeMember.assignment: the current assignment. */
export type ShareGroupDescribeAssignment = ConsumerGroupDescribeAssignment

/** An entry of ShareGroupDescribeDescribedGroup.members: the members. */
export interface ShareGroupDescribeMember {
  /** The member ID. */
  memberId: string
  /** The member rack ID. */
  rackId: string | null
  /** The current member epoch. */
  memberEpoch: number
  /** The client ID. */
  clientId: string
  /** The client host. */
  clientHost: string
  /** The subscribed topic names. */
  subscribedTopicNames: string[]
  /** The current assignment. */
  assignment: ShareGroupDescribeAssignment
}

/** An entry of ShareGroupDescribeResponse.groups: each described group. */
export interface ShareGroupDescribeDescribedGroup {
  /** The describe error, or 0 if there was no error. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** The group ID string. */
  groupId: string
  /** The group state string, or the empty string. */
  groupState: string
  /** The group epoch. */
  groupEpoch: number
  /** The assignment epoch. */
  assignmentEpoch: number
  /** The selected assignor. */
  assignorName: string
  /** The members. */
  members: ShareGroupDescribeMember[]
  /** 32-bit bitfield to represent authorized operations for this group. */
  authorizedOperations: number
}

/** A ShareGroupDescribe response (key 77). */
export interface ShareGroupDescribeResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each described group. */
  groups: ShareGroupDescribeDescribedGroup[]
}

/** The ShareGroupDescribe API (key 77): its versions and its request and response schemas. */
export const ShareGroupDescribe = defineApi<ShareGroupDescribeRequest, ShareGroupDescribeResponse>({
  key: 77,
  name: 'ShareGroupDescribe',
  minVersion: 1,
  maxVersion: 1,
  flexibleVersions: '1+',
  request: struct(
    field('groupIds', array('string'), '1+'),
    field('includeAuthorizedOperations', 'bool', '1+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('groups', array(struct(
      field('errorCode', 'int16', '1+'),
      field('errorMessage', 'string', '1+', { nullableVersions: '1+', default: null }),
      field('groupId', 'string', '1+'),
      field('groupState', 'string', '1+'),
      field('groupEpoch', 'int32', '1+'),
      field('assignmentEpoch', 'int32', '1+'),
      field('assignorName', 'string', '1+'),
      field('members', array(struct(
        field('memberId', 'string', '1+'),
        field('rackId', 'string', '1+', { nullableVersions: '1+', default: null }),
        field('memberEpoch', 'int32', '1+'),
        field('clientId', 'string', '1+'),
        field('clientHost', 'string', '1+'),
        field('subscribedTopicNames', array('string'), '1+'),
        field('assignment', describedAssignment, '1+')
      )), '1+'),
      field('authorizedOperations', 'int32', '1+', { default: -2147483648 })
    )), '1+')
  )
})

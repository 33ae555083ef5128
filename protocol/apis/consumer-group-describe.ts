/**
 * ConsumerGroupDescribe (key 69): the state of KIP-848 consumer groups: epochs, assignor,
 * and each member with its subscription, current and target assignment.
 *
 * Version notes:
 * - v0: the KIP-848 protocol
 * - v1: memberType per member: whether it joined with the classic or the consumer protocol
 *   (KIP-1099)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A member's memberType (v1+). */
export const ConsumerGroupMemberType = {
  /** The broker does not know the member's protocol. */
  UNKNOWN: -1,
  /** Joined with JoinGroup/SyncGroup (the classic protocol). */
  CLASSIC: 0,
  /** Joined with ConsumerGroupHeartbeat (KIP-848). */
  CONSUMER: 1
} as const

/** A ConsumerGroupDescribe request (key 69). */
export interface ConsumerGroupDescribeRequest {
  /** The ids of the groups to describe. */
  groupIds: string[]
  /** Whether to include authorized operations. */
  includeAuthorizedOperations?: boolean
}

/** An entry of ConsumerGroupDescribeAssignment.topicPartitions: a topic and its partitions. */
export interface ConsumerGroupDescribeTopicPartitions {
  /** The topic ID. */
  topicId: string
  /** The topic name. */
  topicName: string
  /** The partitions. */
  partitions: number[]
}

/** The value of ConsumerGroupDescribeMember.assignment: the current assignment. */
export interface ConsumerGroupDescribeAssignment {
  /** The assigned topic-partitions to the member. */
  topicPartitions: ConsumerGroupDescribeTopicPartitions[]
}

/** An entry of ConsumerGroupDescribeGroup.members: the members. */
export interface ConsumerGroupDescribeMember {
  /** The member ID. */
  memberId: string
  /** The member instance ID. */
  instanceId: string | null
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
  /** The subscribed topic regex, or null if not provided. */
  subscribedTopicRegex: string | null
  /** What the member owns now. */
  assignment: ConsumerGroupDescribeAssignment
  /** What the member is moving to. */
  targetAssignment: ConsumerGroupDescribeAssignment
  /** v1+: one of ConsumerGroupMemberType; -1 before v1. */
  memberType: number
}

/** An entry of ConsumerGroupDescribeResponse.groups: each described group. */
export interface ConsumerGroupDescribeGroup {
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
  members: ConsumerGroupDescribeMember[]
  /** A bit field of ACL operations; -2147483648 when not asked for. */
  authorizedOperations: number
}

/** A ConsumerGroupDescribe response (key 69). */
export interface ConsumerGroupDescribeResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** Each described group. */
  groups: ConsumerGroupDescribeGroup[]
}

/** "Authorized operations were not asked for" (Kafka's Integer.MIN_VALUE). */
const OPERATIONS_NOT_ASKED = -2147483648

/** A member's assignment by topic id and name; ShareGroupDescribe's members carry the same struct. */
export const describedAssignment = struct(
  field('topicPartitions', array(struct(
    field('topicId', 'uuid', '0+'),
    field('topicName', 'string', '0+'),
    field('partitions', array('int32'), '0+')
  )), '0+')
)

/** The ConsumerGroupDescribe API (key 69): its versions and its request and response schemas. */
export const ConsumerGroupDescribe = defineApi<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>({
  key: 69,
  name: 'ConsumerGroupDescribe',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '0+',
  request: struct(
    field('groupIds', array('string'), '0+'),
    field('includeAuthorizedOperations', 'bool', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('groups', array(struct(
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
      field('groupId', 'string', '0+'),
      field('groupState', 'string', '0+'),
      field('groupEpoch', 'int32', '0+'),
      field('assignmentEpoch', 'int32', '0+'),
      field('assignorName', 'string', '0+'),
      field('members', array(struct(
        field('memberId', 'string', '0+'),
        field('instanceId', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('rackId', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('memberEpoch', 'int32', '0+'),
        field('clientId', 'string', '0+'),
        field('clientHost', 'string', '0+'),
        field('subscribedTopicNames', array('string'), '0+'),
        field('subscribedTopicRegex', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('assignment', describedAssignment, '0+'),
        field('targetAssignment', describedAssignment, '0+'),
        field('memberType', 'int8', '1+', { default: -1 })
      )), '0+'),
      field('authorizedOperations', 'int32', '0+', { default: OPERATIONS_NOT_ASKED })
    )), '0+')
  )
})

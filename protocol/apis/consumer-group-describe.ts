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
  UNKNOWN: -1,
  /** Joined with JoinGroup/SyncGroup (the classic protocol). */
  CLASSIC: 0,
  /** Joined with ConsumerGroupHeartbeat (KIP-848). */
  CONSUMER: 1
} as const

export interface ConsumerGroupDescribeRequest {
  groupIds: string[]
  includeAuthorizedOperations?: boolean
}

export interface ConsumerGroupDescribeTopicPartitions {
  topicId: string
  topicName: string
  partitions: number[]
}

export interface ConsumerGroupDescribeAssignment {
  topicPartitions: ConsumerGroupDescribeTopicPartitions[]
}

export interface ConsumerGroupDescribeMember {
  memberId: string
  instanceId: string | null
  rackId: string | null
  memberEpoch: number
  clientId: string
  clientHost: string
  subscribedTopicNames: string[]
  subscribedTopicRegex: string | null
  /** What the member owns now. */
  assignment: ConsumerGroupDescribeAssignment
  /** What the member is moving to. */
  targetAssignment: ConsumerGroupDescribeAssignment
  /** v1+: one of ConsumerGroupMemberType; -1 before v1. */
  memberType: number
}

export interface ConsumerGroupDescribeGroup {
  errorCode: number
  errorMessage: string | null
  groupId: string
  groupState: string
  groupEpoch: number
  assignmentEpoch: number
  assignorName: string
  members: ConsumerGroupDescribeMember[]
  /** A bit field of ACL operations; -2147483648 when not asked for. */
  authorizedOperations: number
}

export interface ConsumerGroupDescribeResponse {
  throttleTimeMs: number
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

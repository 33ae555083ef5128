/**
 * ShareGroupDescribe (key 77): the state of share groups (KIP-932) and their members.
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v1):
 * - v1: the lowest a 4.4 broker accepts; flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'
import { describedAssignment, type ConsumerGroupDescribeAssignment, type ConsumerGroupDescribeTopicPartitions } from './consumer-group-describe'

export interface ShareGroupDescribeRequest {
  groupIds: string[]
  includeAuthorizedOperations: boolean
}

export type ShareGroupDescribeTopicPartitions = ConsumerGroupDescribeTopicPartitions

export type ShareGroupDescribeAssignment = ConsumerGroupDescribeAssignment

export interface ShareGroupDescribeMember {
  memberId: string
  rackId: string | null
  memberEpoch: number
  clientId: string
  clientHost: string
  subscribedTopicNames: string[]
  assignment: ShareGroupDescribeAssignment
}

export interface ShareGroupDescribeDescribedGroup {
  errorCode: number
  errorMessage: string | null
  groupId: string
  groupState: string
  groupEpoch: number
  assignmentEpoch: number
  assignorName: string
  members: ShareGroupDescribeMember[]
  authorizedOperations: number
}

export interface ShareGroupDescribeResponse {
  throttleTimeMs: number
  groups: ShareGroupDescribeDescribedGroup[]
}

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

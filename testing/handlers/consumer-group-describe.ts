/**
 * ConsumerGroupDescribe: v0–v1, KIP-848 groups (see groups-consumer.ts).
 *
 * Per group: NOT_COORDINATOR at another broker; GROUP_ID_NOT_FOUND for an unknown or
 * classic group. State Empty / Assigning / Reconciling / Stable, the group and assignment
 * epochs, the assignor, and each member's epoch, subscription, current assignment and
 * target. clientId/clientHost are '' (not recorded); memberType (v1) is 1 (consumer).
 */
import { ConsumerGroupDescribe, type ConsumerGroupDescribeAssignment, type ConsumerGroupDescribeRequest, type ConsumerGroupDescribeResponse } from '../../protocol/apis/consumer-group-describe'
import type { Assignment } from '../groups-consumer'
import type { GroupCoordinator } from '../groups'
import type { ClusterState } from '../state'
import { defineHandler, type ApiHandler } from './handler'

const OPERATIONS_NOT_ASKED = -2147483648

export function consumerGroupDescribeHandler (groups: GroupCoordinator): ApiHandler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> {
  return defineHandler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>({
    api: ConsumerGroupDescribe,
    handle: (ctx, request) => ({
      throttleTimeMs: 0,
      groups: request.groupIds.map(groupId => {
        const operations = request.includeAuthorizedOperations === true ? 0x7fffffff : OPERATIONS_NOT_ASKED
        const { errorCode, errorMessage, group } = groups.describeConsumer(ctx.brokerId, groupId)
        if (group === undefined) {
          return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [], authorizedOperations: operations }
        }
        return {
          errorCode: 0,
          errorMessage: null,
          groupId,
          groupState: group.state,
          groupEpoch: group.groupEpoch,
          assignmentEpoch: group.assignmentEpoch,
          assignorName: group.assignor,
          members: [...group.members.values()].map(m => ({
            memberId: m.memberId,
            instanceId: m.instanceId,
            rackId: m.rackId,
            memberEpoch: m.memberEpoch,
            clientId: '',
            clientHost: '',
            subscribedTopicNames: [...m.subscribedTopicNames],
            subscribedTopicRegex: m.subscribedTopicRegex,
            assignment: describe(ctx.state, m.assigned),
            targetAssignment: describe(ctx.state, group.target.get(m.memberId) ?? new Map()),
            memberType: ctx.version >= 1 ? 1 : -1
          })),
          authorizedOperations: operations
        }
      })
    }),
    errorResponse: (_ctx, request, errorCode) => ({
      throttleTimeMs: 0,
      groups: request.groupIds.map(groupId => ({ errorCode, errorMessage: null, groupId, groupState: '', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [], authorizedOperations: OPERATIONS_NOT_ASKED }))
    })
  })
}

function describe (state: ClusterState, assignment: Assignment): ConsumerGroupDescribeAssignment {
  return {
    topicPartitions: [...assignment].map(([topicId, partitions]) => ({ topicId, topicName: state.topicById(topicId)?.name ?? '', partitions: [...partitions].sort((a, b) => a - b) }))
  }
}

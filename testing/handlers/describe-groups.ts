/**
 * DescribeGroups: v0–v6, classic groups (KIP-848 groups: ConsumerGroupDescribe).
 *
 * Per group: NOT_COORDINATOR at another broker; an unknown or non-classic group is
 * GROUP_ID_NOT_FOUND with a message from v6, and state 'Dead' with no error before (as
 * Kafka 4.x). Members carry their metadata (for the chosen protocol) and assignment, and
 * protocolData the chosen protocol, only while the group is Stable. clientId and
 * clientHost are '' (the fake does not record them). authorizedOperations: not asked
 * (Integer.MIN_VALUE) or all ones.
 */
import { DescribeGroups, type DescribeGroupsGroup, type DescribeGroupsRequest, type DescribeGroupsResponse } from '../../protocol/apis/describe-groups'
import { ErrorCode } from '../error-codes'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

const OPERATIONS_NOT_ASKED = -2147483648
const EMPTY = Buffer.alloc(0)

export function describeGroupsHandler (groups: GroupCoordinator): ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> {
  return defineHandler<DescribeGroupsRequest, DescribeGroupsResponse>({
    api: DescribeGroups,
    handle: (ctx, request) => ({
      throttleTimeMs: 0,
      groups: request.groups.map((groupId): DescribeGroupsGroup => {
        const operations = request.includeAuthorizedOperations === true ? 0x7fffffff : OPERATIONS_NOT_ASKED
        const found = groups.describeClassic(ctx.brokerId, groupId)
        const group = found.group
        if (group === undefined) {
          const dead = found.errorCode === ErrorCode.GROUP_ID_NOT_FOUND && ctx.version < 6
          return { errorCode: dead ? 0 : found.errorCode, errorMessage: found.errorMessage, groupId, groupState: dead ? 'Dead' : '', protocolType: '', protocolData: '', members: [], authorizedOperations: operations }
        }
        const stable = group.state === 'Stable'
        return {
          errorCode: 0,
          errorMessage: null,
          groupId,
          groupState: group.state,
          protocolType: group.protocolType ?? '',
          protocolData: stable ? group.protocolName ?? '' : '',
          members: [...group.members.values()].map(m => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            clientId: '',
            clientHost: '',
            memberMetadata: stable ? m.protocols.find(p => p.name === group.protocolName)?.metadata ?? EMPTY : EMPTY,
            memberAssignment: stable ? m.assignment : EMPTY
          })),
          authorizedOperations: operations
        }
      })
    }),
    errorResponse: (_ctx, request, errorCode) => ({
      throttleTimeMs: 0,
      groups: request.groups.map(groupId => ({ errorCode, errorMessage: null, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: OPERATIONS_NOT_ASKED }))
    })
  })
}

/**
 * DeleteGroups: v0–v3. An empty group (classic or KIP-848) and its committed offsets are
 * deleted; NON_EMPTY_GROUP while it has members, GROUP_ID_NOT_FOUND when unknown,
 * NOT_COORDINATOR at another broker.
 *
 * Version notes:
 * - v3: errorMessage per group (null here)
 */
import { DeleteGroups, type DeleteGroupsRequest, type DeleteGroupsResponse } from '../../protocol/apis/delete-groups'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function deleteGroupsHandler (groups: GroupCoordinator): ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> {
  return defineHandler<DeleteGroupsRequest, DeleteGroupsResponse>({
    api: DeleteGroups,
    handle: (ctx, request) => ({
      throttleTimeMs: 0,
      results: request.groupsNames.map(groupId => ({ groupId, errorCode: groups.deleteGroup(ctx.brokerId, groupId), errorMessage: null }))
    }),
    errorResponse: (_ctx, request, errorCode) => ({ throttleTimeMs: 0, results: request.groupsNames.map(groupId => ({ groupId, errorCode, errorMessage: null })) })
  })
}

/**
 * ListGroups: v0–v5. The groups this broker coordinates (a client asks every broker).
 *
 * Version notes:
 * - v4+: statesFilter (case-insensitive, as Kafka); groupState in the response
 * - v5+: typesFilter ('classic', 'consumer'); groupType in the response
 */
import { ListGroups, type ListGroupsRequest, type ListGroupsResponse } from '../../protocol/apis/list-groups'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function listGroupsHandler (groups: GroupCoordinator): ApiHandler<ListGroupsRequest, ListGroupsResponse> {
  return defineHandler<ListGroupsRequest, ListGroupsResponse>({
    api: ListGroups,
    handle: (ctx, request) => {
      const states = new Set((ctx.version >= 4 ? request.statesFilter ?? [] : []).map(s => s.toLowerCase()))
      const types = new Set((ctx.version >= 5 ? request.typesFilter ?? [] : []).map(t => t.toLowerCase()))
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        groups: groups.listGroups(ctx.brokerId)
          .filter(g => (states.size === 0 || states.has(g.groupState.toLowerCase())) && (types.size === 0 || types.has(g.groupType)))
      }
    },
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, groups: [] })
  })
}

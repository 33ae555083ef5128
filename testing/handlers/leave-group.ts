/**
 * LeaveGroup: v0–v5 (the classic group protocol; see groups-classic.ts).
 *
 * Each leaving member is found by member id, or by group instance id (then a member id
 * other than '' must match it: FENCED_INSTANCE_ID); unknown ones get UNKNOWN_MEMBER_ID.
 * The group rebalances once for all that left.
 *
 * Version notes:
 * - v0–v2: one member, its error at the top level
 * - v3+: several members, an error each; the top level carries group-level errors
 *   (NOT_COORDINATOR, UNKNOWN_MEMBER_ID for an unknown group)
 */
import { LeaveGroup, type LeaveGroupRequest, type LeaveGroupResponse } from '../../protocol/apis/leave-group'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function leaveGroupHandler (groups: GroupCoordinator): ApiHandler<LeaveGroupRequest, LeaveGroupResponse> {
  return defineHandler<LeaveGroupRequest, LeaveGroupResponse>({
    api: LeaveGroup,
    handle: (ctx, request) => {
      const leaving = ctx.version >= 3
        ? (request.members ?? []).map(m => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null }))
        : [{ memberId: request.memberId ?? '', groupInstanceId: null }]
      const result = groups.leave(ctx.brokerId, request.groupId, leaving)
      if (ctx.version < 3) return { throttleTimeMs: 0, errorCode: result.errorCode !== 0 ? result.errorCode : result.members[0] ?? 0, members: [] }
      return {
        throttleTimeMs: 0,
        errorCode: result.errorCode,
        members: result.errorCode !== 0 ? [] : leaving.map((m, i) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: result.members[i] }))
      }
    },
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, members: [] })
  })
}

/**
 * Heartbeat: v0–v4 (the classic group protocol; see groups-classic.ts).
 *
 * UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID (the member or its instance id), then
 * ILLEGAL_GENERATION, then REBALANCE_IN_PROGRESS while the group prepares a rebalance
 * (the session is still refreshed), else NONE.
 *
 * Version notes:
 * - v3+: groupInstanceId
 */
import { Heartbeat, type HeartbeatRequest, type HeartbeatResponse } from '../../protocol/apis/heartbeat'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function heartbeatHandler (groups: GroupCoordinator): ApiHandler<HeartbeatRequest, HeartbeatResponse> {
  return defineHandler<HeartbeatRequest, HeartbeatResponse>({
    api: Heartbeat,
    handle: (ctx, request) => ({
      throttleTimeMs: 0,
      errorCode: groups.heartbeat(ctx.brokerId, request.groupId, request.memberId, ctx.version >= 3 ? request.groupInstanceId ?? null : null, request.generationId)
    }),
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode })
  })
}

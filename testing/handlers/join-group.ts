/**
 * JoinGroup: v0–v9 (the classic group protocol; see groups-classic.ts for the behaviour).
 *
 * The response waits for the join phase to complete (other members rejoining, or the
 * rebalance timeout), so the connection is held meanwhile, as Kafka holds it.
 *
 * Version notes:
 * - v0: no rebalanceTimeoutMs: the session timeout is used
 * - v4+: a first join without a member id gets MEMBER_ID_REQUIRED and the id (KIP-394)
 * - v5+: groupInstanceId (static membership)
 * - v7+: protocolType in the response; protocolName nullable
 * - v9: skipAssignment, set for a static leader that rejoins a Stable group
 */
import { JoinGroup, type JoinGroupRequest, type JoinGroupResponse } from '../../protocol/apis/join-group'
import type { ClassicJoinAnswer } from '../groups-classic'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function joinGroupHandler (groups: GroupCoordinator): ApiHandler<JoinGroupRequest, JoinGroupResponse> {
  return defineHandler<JoinGroupRequest, JoinGroupResponse>({
    api: JoinGroup,
    handle: async (ctx, request) => {
      const rebalanceTimeoutMs = ctx.version >= 1 && request.rebalanceTimeoutMs !== undefined && request.rebalanceTimeoutMs >= 0 ? request.rebalanceTimeoutMs : request.sessionTimeoutMs
      const answer = await groups.join(ctx.brokerId, request.groupId, {
        memberId: request.memberId,
        groupInstanceId: ctx.version >= 5 ? request.groupInstanceId ?? null : null,
        sessionTimeoutMs: request.sessionTimeoutMs,
        rebalanceTimeoutMs,
        protocolType: request.protocolType,
        protocols: request.protocols,
        version: ctx.version
      })
      return toResponse(ctx.version, answer)
    },
    errorResponse: (ctx, request, errorCode) => toResponse(ctx.version, {
      errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId: request.memberId, members: []
    })
  })
}

function toResponse (version: number, a: ClassicJoinAnswer): JoinGroupResponse {
  return {
    throttleTimeMs: 0,
    errorCode: a.errorCode,
    generationId: a.generationId,
    protocolType: a.protocolType,
    // protocolName is nullable from v7 only.
    protocolName: version >= 7 ? a.protocolName : a.protocolName ?? '',
    leader: a.leader,
    skipAssignment: a.skipAssignment,
    memberId: a.memberId,
    members: a.members
  }
}

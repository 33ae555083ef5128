/**
 * SyncGroup: v0–v5 (the classic group protocol; see groups-classic.ts).
 *
 * A follower's SyncGroup waits until the leader's arrives (or the group rebalances), so
 * its connection is held meanwhile, as Kafka holds it.
 *
 * Version notes:
 * - v3+: groupInstanceId (static membership: FENCED_INSTANCE_ID for a replaced member id)
 * - v5+: protocolType/protocolName checked against the group's (INCONSISTENT_GROUP_PROTOCOL)
 *   and returned
 */
import { SyncGroup, type SyncGroupRequest, type SyncGroupResponse } from '../../protocol/apis/sync-group'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function syncGroupHandler (groups: GroupCoordinator): ApiHandler<SyncGroupRequest, SyncGroupResponse> {
  return defineHandler<SyncGroupRequest, SyncGroupResponse>({
    api: SyncGroup,
    handle: async (ctx, request) => {
      const answer = await groups.sync(ctx.brokerId, request.groupId, {
        memberId: request.memberId,
        groupInstanceId: ctx.version >= 3 ? request.groupInstanceId ?? null : null,
        generationId: request.generationId,
        protocolType: ctx.version >= 5 ? request.protocolType ?? null : null,
        protocolName: ctx.version >= 5 ? request.protocolName ?? null : null,
        assignments: request.assignments
      })
      return { throttleTimeMs: 0, ...answer }
    },
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) })
  })
}

/**
 * ShareGroupHeartbeat: v1, share group membership (KIP-932; see share-groups.ts): epoch 0
 * joins with the member's own id, -1 leaves; every member gets every partition of the
 * topics it subscribes to.
 */
import { ShareGroupHeartbeat, type ShareGroupHeartbeatRequest, type ShareGroupHeartbeatResponse } from '../../protocol/apis/share-group-heartbeat'
import type { ShareGroups } from '../share-groups'
import { defineHandler, type ApiHandler } from './handler'

export function shareGroupHeartbeatHandler (shares: ShareGroups): ApiHandler<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse> {
  return defineHandler<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse>({
    api: ShareGroupHeartbeat,
    handle: (_ctx, request) => {
      const answer = shares.heartbeat(request.groupId, request.memberId, request.memberEpoch, request.subscribedTopicNames ?? null)
      return { throttleTimeMs: 0, errorMessage: null, memberId: request.memberId, heartbeatIntervalMs: shares.heartbeatIntervalMs, ...answer }
    },
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null })
  })
}

/**
 * ConsumerGroupHeartbeat: v0–v1, the KIP-848 consumer group protocol (see
 * groups-consumer.ts for joining, the server-side assignment, revocation handoff,
 * fencing and session/rebalance timeouts).
 *
 * Checks first (Kafka 4.4): a member id is required from v1 (KIP-1082) and for any epoch
 * other than 0 at v0 (an empty one at epoch 0 gets a generated id); epoch 0 needs
 * rebalanceTimeoutMs, an empty topicPartitions and a subscription; epoch -2 needs an
 * instance id; other negative epochs are INVALID_REQUEST; serverAssignor must be
 * 'uniform' or 'range' (UNSUPPORTED_ASSIGNOR).
 *
 * Version notes:
 * - v1: subscribedTopicRegex (matched with JavaScript's RegExp against whole topic names;
 *   Kafka uses RE2/J)
 */
import { ConsumerGroupHeartbeat, type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse } from '../../protocol/apis/consumer-group-heartbeat'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function consumerGroupHeartbeatHandler (groups: GroupCoordinator): ApiHandler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse> {
  return defineHandler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse>({
    api: ConsumerGroupHeartbeat,
    handle: (ctx, request) => ({
      throttleTimeMs: 0,
      ...groups.consumerHeartbeat(ctx.brokerId, ctx.version, request.groupId, {
        memberId: request.memberId,
        memberEpoch: request.memberEpoch ?? 0,
        instanceId: request.instanceId ?? null,
        rackId: request.rackId ?? null,
        rebalanceTimeoutMs: request.rebalanceTimeoutMs ?? -1,
        subscribedTopicNames: request.subscribedTopicNames ?? null,
        subscribedTopicRegex: ctx.version >= 1 ? request.subscribedTopicRegex ?? null : null,
        serverAssignor: request.serverAssignor ?? null,
        topicPartitions: request.topicPartitions ?? null
      })
    }),
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null })
  })
}

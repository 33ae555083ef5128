/**
 * OffsetFetch: v1–v10 (see GroupCoordinator.fetchOffsets in groups.ts).
 *
 * Committed offsets per partition, -1 (with leader epoch -1 and metadata '') where none;
 * topics null (v2+) asks for every committed partition of the group. An unknown group has
 * no offsets (no error). requireStable is ignored (no transactions).
 *
 * Version notes:
 * - v1: a group-level error goes on every partition (there is no top-level error code)
 * - v2–v7: group-level errors (NOT_COORDINATOR) at the top level, with no topics
 * - v8+: several groups, an error code each
 * - v9+: memberId/memberEpoch checked for KIP-848 members (UNKNOWN_MEMBER_ID,
 *   STALE_MEMBER_EPOCH when the epoch is not the member's current one)
 * - v10: topics by id (UNKNOWN_TOPIC_ID per partition for an unknown id)
 */
import { OffsetFetch, type OffsetFetchRequest, type OffsetFetchResponse, type OffsetFetchResponseTopic } from '../../protocol/apis/offset-fetch'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler, type HandlerContext } from './handler'

export function offsetFetchHandler (groups: GroupCoordinator): ApiHandler<OffsetFetchRequest, OffsetFetchResponse> {
  return defineHandler<OffsetFetchRequest, OffsetFetchResponse>({
    api: OffsetFetch,
    handle: (ctx, request) => {
      if (ctx.version >= 8) {
        return {
          throttleTimeMs: 0,
          topics: [],
          errorCode: 0,
          groups: (request.groups ?? []).map(g => {
            const result = groups.fetchOffsets(ctx.brokerId, ctx.version, g.groupId, ctx.version >= 9 ? g.memberId ?? null : null, ctx.version >= 9 ? g.memberEpoch ?? -1 : -1, g.topics)
            return { groupId: g.groupId, errorCode: result.errorCode, topics: result.topics }
          })
        }
      }
      const topics = ctx.version >= 2 ? request.topics ?? null : request.topics ?? []
      const result = groups.fetchOffsets(ctx.brokerId, ctx.version, request.groupId ?? '', null, -1, topics)
      if (result.errorCode !== 0) return singleGroupError(ctx, request, result.errorCode)
      return { throttleTimeMs: 0, topics: result.topics, errorCode: 0, groups: [] }
    },
    errorResponse: (ctx, request, errorCode) => {
      if (ctx.version >= 8) return { throttleTimeMs: 0, topics: [], errorCode: 0, groups: (request.groups ?? []).map(g => ({ groupId: g.groupId, errorCode, topics: [] })) }
      return singleGroupError(ctx, request, errorCode)
    }
  })
}

function singleGroupError (ctx: HandlerContext, request: OffsetFetchRequest, errorCode: number): OffsetFetchResponse {
  if (ctx.version >= 2) return { throttleTimeMs: 0, topics: [], errorCode, groups: [] }
  // v1 has no top-level error code: every asked partition carries it.
  const topics: OffsetFetchResponseTopic[] = (request.topics ?? []).map(t => ({
    name: t.name ?? '',
    topicId: '',
    partitions: t.partitionIndexes.map(partitionIndex => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode }))
  }))
  return { throttleTimeMs: 0, topics, errorCode, groups: [] }
}

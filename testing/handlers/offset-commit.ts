/**
 * OffsetCommit: v2–v10 (see GroupCoordinator.commit in groups.ts).
 *
 * The membership check refuses the whole request (every partition gets its error):
 * - classic: generation -1 with no member id and no instance id is a simple commit,
 *   allowed only while the group is Empty (else UNKNOWN_MEMBER_ID); otherwise the member
 *   (UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID) and the generation (ILLEGAL_GENERATION) must
 *   be current, and a CompletingRebalance group answers REBALANCE_IN_PROGRESS;
 * - consumer (KIP-848): UNKNOWN_MEMBER_ID; below v9 UNSUPPORTED_VERSION; an epoch newer
 *   than the member's STALE_MEMBER_EPOCH; an older one is accepted only for partitions
 *   the member holds since at most that epoch (STALE_MEMBER_EPOCH per partition, Kafka 4.4);
 * - an unknown group: epoch -1 creates a simple group; otherwise GROUP_ID_NOT_FOUND (v9+)
 *   or ILLEGAL_GENERATION.
 * Then per partition: UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID at v10),
 * OFFSET_METADATA_TOO_LARGE. Every request lands in `cluster.commitLog()`.
 *
 * Version notes:
 * - v2–v4: retentionTimeMs, ignored (offsets never expire here)
 * - v6+: committedLeaderEpoch stored
 * - v7+: groupInstanceId
 * - v10: topics by id
 */
import { OffsetCommit, type OffsetCommitRequest, type OffsetCommitResponse } from '../../protocol/apis/offset-commit'
import type { GroupCoordinator } from '../groups'
import { defineHandler, type ApiHandler } from './handler'

export function offsetCommitHandler (groups: GroupCoordinator): ApiHandler<OffsetCommitRequest, OffsetCommitResponse> {
  return defineHandler<OffsetCommitRequest, OffsetCommitResponse>({
    api: OffsetCommit,
    handle: (ctx, request) => {
      const outcome = groups.commit(ctx.brokerId, ctx.version, {
        groupId: request.groupId,
        generationIdOrMemberEpoch: request.generationIdOrMemberEpoch ?? -1,
        memberId: request.memberId,
        groupInstanceId: ctx.version >= 7 ? request.groupInstanceId ?? null : null,
        topics: request.topics.map(t => ({
          name: ctx.version >= 10 ? undefined : t.name,
          topicId: ctx.version >= 10 ? t.topicId : undefined,
          partitions: t.partitions.map(p => ({ ...p, committedLeaderEpoch: ctx.version >= 6 ? p.committedLeaderEpoch : -1 }))
        }))
      })
      return { throttleTimeMs: 0, topics: outcome.map((t, i) => ({ name: t.topic, topicId: request.topics[i].topicId ?? t.topicId, partitions: t.partitions })) }
    },
    errorResponse: (_ctx, request, errorCode) => ({
      throttleTimeMs: 0,
      topics: request.topics.map(t => ({ name: t.name ?? '', topicId: t.topicId ?? '', partitions: t.partitions.map(p => ({ partitionIndex: p.partitionIndex, errorCode })) }))
    })
  })
}

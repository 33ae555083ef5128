/**
 * TxnOffsetCommit: v0–v6 — offsets kept in the open transaction until it ends
 * (transactions.ts); the member check (KIP-447, v3+) as OffsetCommit's.
 *
 * Version notes:
 * - v3: flexible; generationIdOrMemberEpoch/memberId/groupInstanceId checked
 * - v5: the group is added implicitly on transaction version 2
 * - v6: topics by id
 */
import { TxnOffsetCommit, type TxnOffsetCommitRequest, type TxnOffsetCommitResponse } from '../../protocol/apis/txn-offset-commit'
import type { ClusterState } from '../state'
import type { TransactionCoordinator } from '../transactions'
import { defineHandler, type ApiHandler } from './handler'

export function txnOffsetCommitHandler (txns: TransactionCoordinator): ApiHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse> {
  const answer = (state: ClusterState, version: number, request: TxnOffsetCommitRequest, errorCode: number): TxnOffsetCommitResponse => ({
    throttleTimeMs: 0,
    topics: request.topics.map(t => ({ name: version >= 6 ? '' : t.name ?? '', topicId: t.topicId ?? state.topic(t.name ?? '')?.topicId ?? '00000000-0000-0000-0000-000000000000', partitions: t.partitions.map(p => ({ partitionIndex: p.partitionIndex, errorCode })) }))
  })
  return defineHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
    api: TxnOffsetCommit,
    handle: (ctx, request) => {
      const offsets = request.topics.flatMap(t => {
        const topic = ctx.version >= 6 ? ctx.state.topicById(t.topicId ?? '')?.name ?? '' : t.name ?? ''
        return t.partitions.map(p => ({ topic, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata: p.committedMetadata }))
      })
      const unknown = offsets.some(o => ctx.state.partition(o.topic, o.partition) === undefined)
      const errorCode = unknown
        ? 3 /* UNKNOWN_TOPIC_OR_PARTITION */
        : txns.txnOffsetCommit(ctx.brokerId, ctx.version, {
          transactionalId: request.transactionalId,
          groupId: request.groupId,
          producerId: request.producerId,
          producerEpoch: request.producerEpoch,
          generationIdOrMemberEpoch: ctx.version >= 3 ? request.generationIdOrMemberEpoch ?? -1 : -1,
          memberId: ctx.version >= 3 ? request.memberId ?? '' : '',
          groupInstanceId: ctx.version >= 3 ? request.groupInstanceId ?? null : null,
          offsets
        })
      return answer(ctx.state, ctx.version, request, errorCode)
    },
    errorResponse: (ctx, request, errorCode) => answer(ctx.state, ctx.version, request, errorCode)
  })
}

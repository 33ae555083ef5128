/**
 * ShareAcknowledge: v1–v2 (see share-groups.ts): acknowledgements within a share session
 * (epoch -1 closes it after applying them; epoch 0 cannot open one).
 */
import { ShareAcknowledge, type ShareAcknowledgeRequest, type ShareAcknowledgeResponse } from '../../protocol/apis/share-acknowledge'
import { ErrorCode } from '../error-codes'
import type { ShareGroups } from '../share-groups'
import { defineHandler, type ApiHandler } from './handler'

export function shareAcknowledgeHandler (shares: ShareGroups): ApiHandler<ShareAcknowledgeRequest, ShareAcknowledgeResponse> {
  const answer = (errorCode: number, responses: ShareAcknowledgeResponse['responses'] = []): ShareAcknowledgeResponse => ({ throttleTimeMs: 0, errorCode, errorMessage: null, acquisitionLockTimeoutMs: 0, responses, nodeEndpoints: [] })
  return defineHandler<ShareAcknowledgeRequest, ShareAcknowledgeResponse>({
    api: ShareAcknowledge,
    handle: (ctx, request) => {
      const group = shares.group(request.groupId ?? '')
      const memberId = request.memberId ?? ''
      const used = shares.useSession(group, memberId, ctx.brokerId, request.shareSessionEpoch, true, false)
      if ('errorCode' in used) return answer(used.errorCode)
      return answer(ErrorCode.NONE, request.topics.map(t => ({
        topicId: t.topicId,
        partitions: t.partitions.map(p => {
          const partition = ctx.state.topicById(t.topicId)?.partitions[p.partitionIndex]
          const errorCode = partition === undefined ? ErrorCode.UNKNOWN_TOPIC_ID : shares.acknowledge(group, memberId, partition, p.acknowledgementBatches)
          return { partitionIndex: p.partitionIndex, errorCode, errorMessage: null, currentLeader: { leaderId: -1, leaderEpoch: -1 } }
        })
      })))
    },
    errorResponse: (_ctx, _request, errorCode) => answer(errorCode)
  })
}

/**
 * ShareFetch: v1–v2 (see share-groups.ts for sessions, locks and acknowledgements). The
 * acknowledgements are applied first, then up to maxRecords offsets are acquired from the
 * session's partitions this broker leads (to the end of the last batch in the default,
 * batch-optimized mode); the answer carries the whole batches that hold them. With nothing to acquire it waits up to maxWaitMs for an append.
 */
import { ShareFetch, type ShareFetchRequest, type ShareFetchResponse, type ShareFetchResponsePartition } from '../../protocol/apis/share-fetch'
import { ErrorCode } from '../error-codes'
import { waitForAnyAppend } from '../partition-log'
import type { ShareGroups } from '../share-groups'
import { defineHandler, leaderError, type ApiHandler, type HandlerContext } from './handler'

const noLeader = { leaderId: -1, leaderEpoch: -1 }

function partitionAnswer (partitionIndex: number, errorCode: number, acknowledgeErrorCode = 0): ShareFetchResponsePartition {
  return { partitionIndex, errorCode, errorMessage: null, acknowledgeErrorCode, acknowledgeErrorMessage: null, currentLeader: noLeader, records: Buffer.alloc(0), acquiredRecords: [] }
}

export function shareFetchHandler (shares: ShareGroups): ApiHandler<ShareFetchRequest, ShareFetchResponse> {
  const answer = (errorCode: number, responses: ShareFetchResponse['responses'] = []): ShareFetchResponse => ({ throttleTimeMs: 0, errorCode, errorMessage: null, acquisitionLockTimeoutMs: 0, responses, nodeEndpoints: [] })
  return defineHandler<ShareFetchRequest, ShareFetchResponse>({
    api: ShareFetch,
    handle: async (ctx: HandlerContext, request) => {
      const group = shares.group(request.groupId ?? '')
      const memberId = request.memberId ?? ''
      const hasAcks = request.topics.some(t => t.partitions.some(p => p.acknowledgementBatches.length > 0))
      const used = shares.useSession(group, memberId, ctx.brokerId, request.shareSessionEpoch, hasAcks, true, ctx.gone)
      if ('errorCode' in used) return answer(used.errorCode)
      const session = used.session
      const acks = new Map<string, number>()
      for (const t of request.topics) {
        for (const p of t.partitions) {
          const partition = ctx.state.topicById(t.topicId)?.partitions[p.partitionIndex]
          if (partition === undefined) continue
          if (p.acknowledgementBatches.length > 0) acks.set(`${t.topicId}:${p.partitionIndex}`, shares.acknowledge(group, memberId, partition, p.acknowledgementBatches))
          session?.partitions.add(`${t.topicId}:${p.partitionIndex}`)
        }
      }
      for (const t of request.forgottenTopicsData) for (const p of t.partitions) session?.partitions.delete(`${t.topicId}:${p}`)
      const read = (): { responses: ShareFetchResponse['responses'], acquired: number } => {
        const byTopic = new Map<string, ShareFetchResponsePartition[]>()
        let budget = request.maxRecords ?? 500
        // Kafka's default (batch-optimized) mode acquires whole batches; v2's mode 1 keeps to maxRecords.
        const wholeBatches = (request.shareAcquireMode ?? 0) === 0
        let acquired = 0
        for (const key of session === undefined ? acks.keys() : new Set([...session.partitions, ...acks.keys()])) {
          const [topicId, index] = key.split(':')
          const partition = ctx.state.topicById(topicId)?.partitions[Number(index)]
          let list = byTopic.get(topicId)
          if (list === undefined) byTopic.set(topicId, list = [])
          const ackError = acks.get(key) ?? 0
          if (partition === undefined) { list.push(partitionAnswer(Number(index), ErrorCode.UNKNOWN_TOPIC_ID, ackError)); continue }
          const leadership = leaderError(ctx, partition)
          if (leadership !== ErrorCode.NONE || session === undefined || !session.partitions.has(key)) { list.push(partitionAnswer(partition.index, leadership, ackError)); continue }
          const ranges = budget > 0 ? shares.acquire(group, memberId, partition, budget, wholeBatches) : []
          const count = ranges.reduce((n, r) => n + Number(r.lastOffset - r.firstOffset) + 1, 0)
          budget -= count
          acquired += count
          const records = ranges.length === 0 ? Buffer.alloc(0) : partition.log.read(ranges[0].firstOffset, 0x7fffffff, true)
          list.push({ ...partitionAnswer(partition.index, ErrorCode.NONE, ackError), records, acquiredRecords: ranges })
        }
        return { responses: [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions })), acquired }
      }
      let result = read()
      if (result.acquired === 0 && session !== undefined && request.maxWaitMs > 0) {
        const logs = [...session.partitions].map(key => ctx.state.topicById(key.split(':')[0])?.partitions[Number(key.split(':')[1])]?.log).filter(l => l !== undefined)
        await waitForAnyAppend(logs, request.maxWaitMs, ctx.gone)
        acks.clear()
        const again = read()
        // Acknowledgement errors were decided before the wait: keep them in the answer.
        result = again.acquired > 0 ? again : result
      }
      return { ...answer(ErrorCode.NONE, result.responses), acquisitionLockTimeoutMs: group.lockMs }
    },
    errorResponse: (_ctx, _request, errorCode) => answer(errorCode)
  })
}

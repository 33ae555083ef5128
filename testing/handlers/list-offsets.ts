/**
 * ListOffsets: v1–v11.
 *
 * Per partition: the leader epoch check (v4+), leadership, then the offset for the
 * timestamp: -2 earliest → log start offset; -1 latest → high watermark (also for
 * read_committed: no transactions here, so the last stable offset is the high
 * watermark); -3 max timestamp → the first record with the largest timestamp; -4 earliest
 * local → log start offset; -5 latest tiered / -6 earliest pending upload → -1 (no tiered
 * storage); a timestamp ≥ 0 → the first record at or after it, or offset -1 when none.
 *
 * Version notes:
 * - v2: isolationLevel
 * - v4: currentLeaderEpoch checked; leaderEpoch in the response
 * - v7–v11: the special timestamps -3 … -6 above; timeoutMs ignored
 */
import { ListOffsets, type ListOffsetsRequest, type ListOffsetsRequestPartition, type ListOffsetsResponse, type ListOffsetsResponsePartition } from '../../protocol/apis/list-offsets'
import { ErrorCode } from '../error-codes'
import type { TopicState } from '../state'
import { defineHandler, leaderError, type HandlerContext } from './handler'

export const listOffsetsHandler = defineHandler<ListOffsetsRequest, ListOffsetsResponse>({
  api: ListOffsets,
  handle: (ctx, request) => ({
    throttleTimeMs: 0,
    topics: request.topics.map(t => {
      const topic = ctx.state.topic(t.name)
      return { name: t.name, partitions: t.partitions.map(p => lookUp(ctx, topic, p)) }
    })
  }),
  errorResponse: (_ctx, request, errorCode) => ({
    throttleTimeMs: 0,
    topics: request.topics.map(t => ({ name: t.name, partitions: t.partitions.map(p => answer(p.partitionIndex, errorCode)) }))
  })
})

function lookUp (ctx: HandlerContext, topic: TopicState | undefined, asked: ListOffsetsRequestPartition): ListOffsetsResponsePartition {
  const partition = topic?.partitions[asked.partitionIndex]
  if (partition === undefined) return answer(asked.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
  const leadership = leaderError(ctx, partition, asked.currentLeaderEpoch ?? -1)
  if (leadership !== ErrorCode.NONE) return answer(asked.partitionIndex, leadership)
  const log = partition.log
  const epoch = partition.leaderEpoch
  switch (asked.timestamp) {
    case -2n:
    case -4n:
      return answer(asked.partitionIndex, ErrorCode.NONE, log.logStartOffset, -1n, epoch)
    case -1n:
      return answer(asked.partitionIndex, ErrorCode.NONE, log.highWatermark, -1n, epoch)
    case -3n: {
      const max = log.maxTimestampRecord()
      return max === undefined ? answer(asked.partitionIndex, ErrorCode.NONE, -1n, -1n, -1) : answer(asked.partitionIndex, ErrorCode.NONE, max.offset, max.timestamp, epoch)
    }
    default: {
      if (asked.timestamp < 0n) return answer(asked.partitionIndex, ErrorCode.NONE, -1n, -1n, -1)
      const found = log.offsetForTimestamp(asked.timestamp)
      return found === undefined ? answer(asked.partitionIndex, ErrorCode.NONE, -1n, -1n, -1) : answer(asked.partitionIndex, ErrorCode.NONE, found.offset, found.timestamp, epoch)
    }
  }
}

function answer (partitionIndex: number, errorCode: number, offset = -1n, timestamp = -1n, leaderEpoch = -1): ListOffsetsResponsePartition {
  return { partitionIndex, errorCode, timestamp, offset, leaderEpoch }
}

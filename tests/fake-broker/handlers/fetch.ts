/**
 * Fetch: v4–v18, consumers only, without fetch sessions.
 *
 * For each partition: the leader epoch check (v9+: FENCED_LEADER_EPOCH /
 * UNKNOWN_LEADER_EPOCH), leadership (NOT_LEADER_OR_FOLLOWER, with currentLeader v12+),
 * the offset range (OFFSET_OUT_OF_RANGE below the log start or past the log end), then
 * whole stored batches from the one holding fetchOffset, up to partitionMaxBytes and the
 * request's maxBytes; the first non-empty partition gets at least one batch even when it
 * is larger, as Kafka does, so a consumer always makes progress.
 *
 * When nothing is found (and minBytes > 0) the broker waits up to maxWaitMs for an
 * append to one of the partitions asked for, then answers: any minBytes ≥ 1 is treated
 * as 1, and a partition error answers at once, as on Kafka. The connection handles
 * nothing else meanwhile, as on Kafka.
 *
 * Version notes:
 * - v4: lastStableOffset (= high watermark: no transactions here), abortedTransactions
 *   (null for read_uncommitted, [] for read_committed)
 * - v7: sessions — the response's sessionId is always 0 (no session made); a request
 *   naming a session id gets FETCH_SESSION_ID_NOT_FOUND; forgottenTopicsData is ignored
 * - v9: currentLeaderEpoch checked
 * - v11: preferredReadReplica is always -1; rackId ignored
 * - v12: currentLeader tagged on NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH
 * - v13: topics by topicId; an unknown id is UNKNOWN_TOPIC_ID
 * - v16: nodeEndpoints for the leaders named in currentLeader
 */
import { Fetch, type FetchPartitionResponse, type FetchRequest, type FetchRequestPartition, type FetchResponse, type FetchTopicResponse } from '../../../protocol/apis/fetch'
import { ErrorCode } from '../error-codes'
import { waitForAnyAppend, type PartitionLog } from '../partition-log'
import { ZERO_UUID, type TopicState } from '../state'
import { defineHandler, leaderError, nodeEndpoint, type HandlerContext } from './handler'

const READ_COMMITTED = 1

export const fetchHandler = defineHandler<FetchRequest, FetchResponse>({
  api: Fetch,
  handle: async (ctx, request) => {
    if (ctx.version >= 7 && (request.sessionId ?? 0) !== 0) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [], nodeEndpoints: [] }
    }
    let result = read(ctx, request)
    if (result.bytes === 0 && result.logs.length > 0 && request.maxWaitMs > 0 && request.minBytes > 0 && !result.anyError) {
      await waitForAnyAppend(result.logs, request.maxWaitMs, ctx.gone)
      result = read(ctx, request)
    }
    return result.response
  },
  errorResponse: (_ctx, request, errorCode) => ({
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    sessionId: 0,
    responses: request.topics.map(t => ({
      topic: t.topic ?? '',
      topicId: t.topicId ?? ZERO_UUID,
      partitions: t.partitions.map(p => failed(p.partition, errorCode))
    })),
    nodeEndpoints: []
  })
})

interface ReadResult {
  response: FetchResponse
  bytes: number
  /** The logs that were read (for the long poll). */
  logs: PartitionLog[]
  anyError: boolean
}

function read (ctx: HandlerContext, request: FetchRequest): ReadResult {
  const committed = request.isolationLevel === READ_COMMITTED
  let budget = request.maxBytes ?? 0x7fffffff
  let bytes = 0
  let anyError = false
  const logs: PartitionLog[] = []
  const leaders = new Set<number>()
  const responses: FetchTopicResponse[] = []
  for (const t of request.topics) {
    const byId = ctx.version >= 13
    const topic: TopicState | undefined = byId ? ctx.state.topicById(t.topicId ?? ZERO_UUID) : ctx.state.topic(t.topic ?? '')
    const partitions: FetchPartitionResponse[] = []
    for (const asked of t.partitions) {
      const answer = readPartition(ctx, topic, byId, asked, committed, Math.min(asked.partitionMaxBytes, budget), bytes === 0)
      partitions.push(answer.response)
      if (answer.response.errorCode !== ErrorCode.NONE) anyError = true
      if (answer.response.currentLeader.leaderId >= 0) leaders.add(answer.response.currentLeader.leaderId)
      if (answer.log !== undefined) logs.push(answer.log)
      const size = answer.response.records?.length ?? 0
      bytes += size
      budget = Math.max(0, budget - size)
    }
    responses.push({ topic: t.topic ?? '', topicId: t.topicId ?? ZERO_UUID, partitions })
  }
  const nodeEndpoints = ctx.version >= 16 ? [...leaders].map(id => nodeEndpoint(ctx.state, id)) : []
  return { response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses, nodeEndpoints }, bytes, logs, anyError }
}

function readPartition (ctx: HandlerContext, topic: TopicState | undefined, byId: boolean, asked: FetchRequestPartition, committed: boolean, maxBytes: number, firstData: boolean): { response: FetchPartitionResponse, log?: PartitionLog } {
  if (topic === undefined) return { response: failed(asked.partition, byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) }
  const partition = topic.partitions[asked.partition]
  if (partition === undefined) return { response: failed(asked.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) }
  const leadership = leaderError(ctx, partition, asked.currentLeaderEpoch ?? -1)
  if (leadership !== ErrorCode.NONE) {
    const response = failed(asked.partition, leadership)
    if (leadership !== ErrorCode.UNKNOWN_LEADER_EPOCH) response.currentLeader = { leaderId: partition.leader, leaderEpoch: partition.leaderEpoch }
    return { response }
  }
  const log = partition.log
  const offsets = { highWatermark: log.highWatermark, lastStableOffset: log.highWatermark, logStartOffset: log.logStartOffset }
  if (asked.fetchOffset < log.logStartOffset || asked.fetchOffset > log.logEndOffset) {
    return { response: { ...failed(asked.partition, ErrorCode.OFFSET_OUT_OF_RANGE), ...offsets } }
  }
  const records = log.read(asked.fetchOffset, maxBytes, firstData)
  return {
    log,
    response: {
      ...failed(asked.partition, ErrorCode.NONE),
      ...offsets,
      abortedTransactions: committed ? [] : null,
      records
    }
  }
}

function failed (partitionIndex: number, errorCode: number): FetchPartitionResponse {
  return {
    partitionIndex,
    errorCode,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
    divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1n, epoch: -1 },
    abortedTransactions: null,
    preferredReadReplica: -1,
    records: null
  }
}

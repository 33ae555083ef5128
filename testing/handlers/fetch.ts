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
 * - v7: fetch sessions (KIP-227), per broker: session id 0 with epoch 0 makes a session
 *   (its id in the response); (id, 0) closes session id and makes a new one; (id, -1)
 *   closes it and answers without one; (id, n > 0) must be the session's next epoch
 *   (FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH otherwise) and updates its
 *   partitions (those named, minus forgottenTopicsData). Every session partition is
 *   answered (Kafka answers only those with news: both are valid for a client).
 *   `openFetchSessions(state)` lists the sessions, for tests.
 * - v9: currentLeaderEpoch checked
 * - v11: preferredReadReplica is always -1; rackId ignored
 * - v12: currentLeader tagged on NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH
 * - v13: topics by topicId; an unknown id is UNKNOWN_TOPIC_ID
 * - v16: nodeEndpoints for the leaders named in currentLeader
 */
import { Fetch, type FetchPartitionResponse, type FetchRequest, type FetchRequestPartition, type FetchResponse, type FetchTopicResponse } from '../../protocol/apis/fetch'
import { ErrorCode } from '../error-codes'
import { waitForAnyAppend, type PartitionLog } from '../partition-log'
import { ZERO_UUID, type TopicState } from '../state'
import { defineHandler, leaderError, nodeEndpoint, type HandlerContext } from './handler'

const READ_COMMITTED = 1

interface FetchSessionState {
  brokerId: number
  id: number
  /** The epoch the next request must carry. */
  nextEpoch: number
  /** By `${topic or topicId}\0${partition}`, in the order they joined. */
  partitions: Map<string, { topic: FetchRequest['topics'][number], partition: FetchRequestPartition }>
}

const sessionsByState = new WeakMap<object, Map<number, FetchSessionState>>()
let nextSessionId = 1

/** The fetch sessions the fake brokers hold: broker, id and the partitions in each. */
export function openFetchSessions (state: object): Array<{ brokerId: number, id: number, partitions: number }> {
  return [...(sessionsByState.get(state)?.values() ?? [])].map(s => ({ brokerId: s.brokerId, id: s.id, partitions: s.partitions.size }))
}

const topicKey = (ctx: HandlerContext, t: { topic?: string, topicId?: string }): string => ctx.version >= 13 ? t.topicId ?? '' : t.topic ?? ''
const sessionKey = (ctx: HandlerContext, t: { topic?: string, topicId?: string }, partition: number): string => `${topicKey(ctx, t)}\0${partition}`

/** Applies the request to the broker's sessions: the request to read (a session's partitions) and the session id to answer with, or an error code. */
function useSession (ctx: HandlerContext, request: FetchRequest): { request: FetchRequest, sessionId: number } | { errorCode: number } {
  if (ctx.version < 7) return { request, sessionId: 0 }
  let sessions = sessionsByState.get(ctx.state)
  if (sessions === undefined) sessionsByState.set(ctx.state, sessions = new Map())
  const id = request.sessionId ?? 0
  const epoch = request.sessionEpoch ?? -1
  const found = id !== 0 ? sessions.get(id) : undefined
  const existing = found?.brokerId === ctx.brokerId ? found : undefined
  if (epoch === -1 || epoch === 0) {
    // A full request: the session it names (if this broker has it) is closed either way.
    if (existing !== undefined) sessions.delete(existing.id)
    if (epoch === -1) return { request, sessionId: 0 }
    const session: FetchSessionState = { brokerId: ctx.brokerId, id: nextSessionId++, nextEpoch: 1, partitions: new Map() }
    for (const t of request.topics) for (const p of t.partitions) session.partitions.set(sessionKey(ctx, t, p.partition), { topic: t, partition: p })
    sessions.set(session.id, session)
    return { request, sessionId: session.id }
  }
  if (existing === undefined) return { errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND }
  if (epoch !== existing.nextEpoch) return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH }
  existing.nextEpoch = epoch === 0x7fffffff ? 1 : epoch + 1
  for (const t of request.topics) for (const p of t.partitions) existing.partitions.set(sessionKey(ctx, t, p.partition), { topic: t, partition: p })
  for (const t of request.forgottenTopicsData ?? []) for (const partition of t.partitions) existing.partitions.delete(sessionKey(ctx, t, partition))
  const byTopic = new Map<string, FetchRequest['topics'][number]>()
  for (const { topic, partition } of existing.partitions.values()) {
    const key = topicKey(ctx, topic)
    let entry = byTopic.get(key)
    if (entry === undefined) byTopic.set(key, entry = { ...topic, partitions: [] })
    entry.partitions.push(partition)
  }
  return { request: { ...request, topics: [...byTopic.values()] }, sessionId: existing.id }
}

export const fetchHandler = defineHandler<FetchRequest, FetchResponse>({
  api: Fetch,
  handle: async (ctx, asked) => {
    const session = useSession(ctx, asked)
    if ('errorCode' in session) return { throttleTimeMs: 0, errorCode: session.errorCode, sessionId: 0, responses: [], nodeEndpoints: [] }
    const request = session.request
    let result = read(ctx, request)
    if (result.bytes === 0 && result.logs.length > 0 && request.maxWaitMs > 0 && request.minBytes > 0 && !result.anyError) {
      await waitForAnyAppend(result.logs, request.maxWaitMs, ctx.gone)
      result = read(ctx, request)
    }
    return { ...result.response, sessionId: session.sessionId }
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

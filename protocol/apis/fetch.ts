/**
 * Fetch (key 1): reads record batches from partition leaders (or preferred replicas).
 *
 * The response is on the hot path, so it has a hand-written decoder: it walks topics,
 * partitions and aborted transactions without the schema interpreter and returns each
 * partition's `records` as a view into the response frame (no copy). It gives the same
 * result as the schema decoder for every version (the tests compare both), except that
 * tagged fields it does not know are skipped rather than kept. The request goes through
 * the schema.
 *
 * kafkats speaks v4+: Kafka 4.x refuses older versions (KIP-896).
 *
 * Version notes:
 * - v4: isolationLevel; lastStableOffset and abortedTransactions (transactions)
 * - v5: logStartOffset in the request and the response
 * - v6: KAFKA_STORAGE_ERROR may be returned
 * - v7: fetch sessions: sessionId, sessionEpoch, forgottenTopicsData (KIP-227)
 * - v8: the broker throttles after answering
 * - v9: currentLeaderEpoch (fencing, KIP-320)
 * - v10: zstd batches (KIP-110)
 * - v11: rackId; preferredReadReplica (fetch from followers, KIP-392)
 * - v12: flexible; lastFetchedEpoch; divergingEpoch, currentLeader and snapshotId tagged
 *   per partition; clusterId tagged in the request
 * - v13: topics addressed by topicId instead of name (KIP-516)
 * - v14: OFFSET_MOVED_TO_TIERED_STORAGE may be returned (KIP-405)
 * - v15: replicaId replaced by the tagged replicaState (KIP-903)
 * - v16: nodeEndpoints tagged in the response (KIP-951)
 * - v17: replicaDirectoryId tagged per partition in the request (KIP-853)
 * - v18: highWatermark tagged per partition in the request (for follower replicas)
 */
import { defineApi } from '../api'
import { ProtocolError } from '../errors'
import type { Reader } from '../reader'
import { array, field, struct, tagged } from '../schema'

/** An entry of FetchRequestTopic.partitions: the partitions to fetch. */
export interface FetchRequestPartition {
  /** The partition index. */
  partition: number
  /** v9+; -1 skips the epoch check. */
  currentLeaderEpoch?: number
  /** The offset to fetch from. */
  fetchOffset: bigint
  /** v12+: the epoch of the last record fetched, for truncation detection; -1 if none. */
  lastFetchedEpoch?: number
  /** v5+: only followers send it; -1 for consumers. */
  logStartOffset?: bigint
  /** The maximum bytes to fetch from this partition. See KIP-74 for cases where this limit may not be honored. */
  partitionMaxBytes: number
  /** v17+, followers only. */
  replicaDirectoryId?: string
  /** v18+, followers only. */
  highWatermark?: bigint
}

/** An entry of FetchRequest.topics: the topics to fetch. */
export interface FetchRequestTopic {
  /** Up to v12. */
  topic?: string
  /** v13+. */
  topicId?: string
  /** The partitions to fetch. */
  partitions: FetchRequestPartition[]
}

/** An entry of FetchRequest.forgottenTopicsData: in an incremental fetch request, the partitions to remove. */
export interface FetchForgottenTopic {
  /** v7–v12. */
  topic?: string
  /** v13+. */
  topicId?: string
  /** The partition indexes to forget. */
  partitions: number[]
}

/** A Fetch request (key 1). */
export interface FetchRequest {
  /** v12+, tagged; brokers check it when set. */
  clusterId?: string | null
  /** Up to v14; -1 for consumers. */
  replicaId?: number
  /** v15+, tagged; followers only. */
  replicaState?: {
    /** The replica ID of the follower, or -1 if this request is from a consumer. */
    replicaId: number
    /** The epoch of this follower, or -1 if not available. */
    replicaEpoch: bigint
  }
  /** The maximum time in ms to wait for the response. */
  maxWaitMs: number
  /** The minimum bytes to accumulate in the response. */
  minBytes: number
  /** v3+; 0x7fffffff by default. */
  maxBytes?: number
  /** v4+: 0 read uncommitted, 1 read committed. */
  isolationLevel?: number
  /** v7+: 0 with epoch -1 for a full fetch without a session. */
  sessionId?: number
  /** The fetch session epoch, which is used for ordering requests in a session. */
  sessionEpoch?: number
  /** The topics to fetch. */
  topics: FetchRequestTopic[]
  /** In an incremental fetch request, the partitions to remove. */
  forgottenTopicsData?: FetchForgottenTopic[]
  /** v11+: the consumer's rack, for fetching from the nearest replica. */
  rackId?: string
}

/** An entry of FetchPartitionResponse.abortedTransactions: the aborted transactions. */
export interface FetchAbortedTransaction {
  /** The producer id associated with the aborted transaction. */
  producerId: bigint
  /** The first offset in the aborted transaction. */
  firstOffset: bigint
}

/**
 * The value of FetchPartitionResponse.divergingEpoch: the largest epoch (and its end offset) after which the
 * follower's log diverges.
 */
export interface FetchDivergingEpoch {
  /** The largest epoch. */
  epoch: number
  /** The end offset of the epoch. */
  endOffset: bigint
}

/** The value of FetchPartitionResponse.currentLeader: the current leader of the partition. */
export interface FetchLeaderIdAndEpoch {
  /** The ID of the current leader or -1 if the leader is unknown. */
  leaderId: number
  /** The latest known leader epoch. */
  leaderEpoch: number
}

/**
 * The value of FetchPartitionResponse.snapshotId: the snapshot to fetch instead, when the offset is below the log
 * start offset.
 */
export interface FetchSnapshotId {
  /** The end offset of the epoch. */
  endOffset: bigint
  /** The largest epoch. */
  epoch: number
}

/** An entry of FetchTopicResponse.partitions: the topic partitions. */
export interface FetchPartitionResponse {
  /** The partition index. */
  partitionIndex: number
  /** The error code, or 0 if there was no fetch error. */
  errorCode: number
  /** The current high water mark. */
  highWatermark: bigint
  /** The last stable offset (LSO): every transaction before it is decided (committed or aborted). */
  lastStableOffset: bigint
  /** The current log start offset. */
  logStartOffset: bigint
  /** v12+: set (epoch ≠ -1) when the log diverged from our last fetched epoch. */
  divergingEpoch: FetchDivergingEpoch
  /** v12+: the new leader, on NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH. */
  currentLeader: FetchLeaderIdAndEpoch
  /** v12+: for KRaft replicas only. */
  snapshotId: FetchSnapshotId
  /** The aborted transactions. */
  abortedTransactions: FetchAbortedTransaction[] | null
  /** v11+: the replica to fetch from instead, or -1. */
  preferredReadReplica: number
  /** Record batches: a view into the response frame, valid while the frame is. */
  records: Buffer | null
}

/** An entry of FetchResponse.responses: the response topics. */
export interface FetchTopicResponse {
  /** The topic name. */
  topic: string
  /** The unique topic ID. */
  topicId: string
  /** The topic partitions. */
  partitions: FetchPartitionResponse[]
}

/** An entry of FetchResponse.nodeEndpoints: the endpoint of a leader named in a partition's currentLeader. */
export interface FetchNodeEndpoint {
  /** The ID of the associated node. */
  nodeId: number
  /** The node's hostname. */
  host: string
  /** The node's port. */
  port: number
  /** The rack of the node, or null if it has not been assigned to a rack. */
  rack: string | null
}

/** A Fetch response (key 1). */
export interface FetchResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top level response error code. */
  errorCode: number
  /** The fetch session ID, or 0 if this is not part of a fetch session. */
  sessionId: number
  /** The response topics. */
  responses: FetchTopicResponse[]
  /** v16+: the brokers named in `currentLeader`. */
  nodeEndpoints: FetchNodeEndpoint[]
}

const MIN_VERSION = 4
const MAX_VERSION = 18
const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

/** The Fetch API (key 1): its versions and its request and response schemas. */
export const Fetch = defineApi<FetchRequest, FetchResponse>({
  key: 1,
  name: 'Fetch',
  minVersion: MIN_VERSION,
  maxVersion: MAX_VERSION,
  flexibleVersions: '12+',
  request: struct(
    tagged('clusterId', 'string', 0, '12+', { nullableVersions: '12+', default: null }),
    field('replicaId', 'int32', '0-14', { default: -1 }),
    tagged('replicaState', struct(
      field('replicaId', 'int32', '15+', { default: -1 }),
      field('replicaEpoch', 'int64', '15+', { default: -1n })
    ), 1, '15+'),
    field('maxWaitMs', 'int32', '0+'),
    field('minBytes', 'int32', '0+'),
    field('maxBytes', 'int32', '3+', { default: 0x7fffffff }),
    field('isolationLevel', 'int8', '4+', { default: 0 }),
    field('sessionId', 'int32', '7+', { default: 0 }),
    field('sessionEpoch', 'int32', '7+', { default: -1 }),
    field('topics', array(struct(
      field('topic', 'string', '0-12'),
      field('topicId', 'uuid', '13+'),
      field('partitions', array(struct(
        field('partition', 'int32', '0+'),
        field('currentLeaderEpoch', 'int32', '9+', { default: -1 }),
        field('fetchOffset', 'int64', '0+'),
        field('lastFetchedEpoch', 'int32', '12+', { default: -1 }),
        field('logStartOffset', 'int64', '5+', { default: -1n }),
        field('partitionMaxBytes', 'int32', '0+'),
        tagged('replicaDirectoryId', 'uuid', 0, '17+'),
        tagged('highWatermark', 'int64', 1, '18+', { default: 0x7fffffffffffffffn })
      )), '0+')
    )), '0+'),
    field('forgottenTopicsData', array(struct(
      field('topic', 'string', '7-12'),
      field('topicId', 'uuid', '13+'),
      field('partitions', array('int32'), '7+')
    )), '7+'),
    field('rackId', 'string', '11+', { default: '' })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '7+'),
    field('sessionId', 'int32', '7+', { default: 0 }),
    field('responses', array(struct(
      field('topic', 'string', '0-12'),
      field('topicId', 'uuid', '13+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('highWatermark', 'int64', '0+'),
        field('lastStableOffset', 'int64', '4+', { default: -1n }),
        field('logStartOffset', 'int64', '5+', { default: -1n }),
        tagged('divergingEpoch', struct(
          field('epoch', 'int32', '12+', { default: -1 }),
          field('endOffset', 'int64', '12+', { default: -1n })
        ), 0, '12+'),
        tagged('currentLeader', struct(
          field('leaderId', 'int32', '12+', { default: -1 }),
          field('leaderEpoch', 'int32', '12+', { default: -1 })
        ), 1, '12+'),
        tagged('snapshotId', struct(
          field('endOffset', 'int64', '0+', { default: -1n }),
          field('epoch', 'int32', '0+', { default: -1 })
        ), 2, '12+'),
        field('abortedTransactions', array(struct(
          field('producerId', 'int64', '4+'),
          field('firstOffset', 'int64', '4+')
        )), '4+', { nullableVersions: '4+' }),
        field('preferredReadReplica', 'int32', '11+', { default: -1 }),
        field('records', 'records', '0+', { nullableVersions: '0+' })
      )), '0+')
    )), '0+'),
    tagged('nodeEndpoints', array(struct(
      field('nodeId', 'int32', '16+'),
      field('host', 'string', '16+'),
      field('port', 'int32', '16+'),
      field('rack', 'string', '16+', { nullableVersions: '16+', default: null })
    )), 0, '16+')
  )
}, { decodeResponse: decodeFetchResponse })

/** What changes between the versions of the response, worked out once per decode. */
interface Layout {
  version: number
  flexible: boolean
  topicMinSize: number
  partitionMinSize: number
  abortedMinSize: number
}

const layouts: Layout[] = []
for (let version = MIN_VERSION; version <= MAX_VERSION; version++) {
  const flexible = version >= 12
  const arrayMin = flexible ? 1 : 4
  const tagsMin = flexible ? 1 : 0
  layouts[version] = {
    version,
    flexible,
    // Smallest encoded element of each array, so a count the bytes cannot hold is refused
    // before anything is allocated (the schema decoder bounds counts the same way).
    topicMinSize: (version >= 13 ? 16 : flexible ? 1 : 2) + arrayMin + tagsMin,
    partitionMinSize: 4 + 2 + 8 + 8 + (version >= 5 ? 8 : 0) + arrayMin + (version >= 11 ? 4 : 0) + arrayMin + tagsMin,
    abortedMinSize: 16 + tagsMin
  }
}

/** nodeId, host (≥ 1), port, rack (≥ 1), tagged fields (≥ 1). */
const NODE_ENDPOINT_MIN_SIZE = 11

function decodeFetchResponse (r: Reader, version: number): FetchResponse {
  const layout = layouts[version]
  if (!Number.isInteger(version) || layout === undefined) {
    throw new ProtocolError(`Fetch v${version} is not spoken by kafkats (it speaks v${MIN_VERSION}–v${MAX_VERSION})`)
  }
  const throttleTimeMs = r.int32()
  let errorCode = 0
  let sessionId = 0
  if (version >= 7) {
    errorCode = r.int16()
    sessionId = r.int32()
  }
  const topicCount = requiredLength(r, layout.flexible, layout.topicMinSize, 'responses')
  const responses: FetchTopicResponse[] = new Array(topicCount)
  for (let i = 0; i < topicCount; i++) responses[i] = decodeTopic(r, layout)
  const response: FetchResponse = { throttleTimeMs, errorCode, sessionId, responses, nodeEndpoints: [] }
  if (layout.flexible) {
    const count = tagCount(r)
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint()
      const size = r.uvarint()
      if (tag === 0 && version >= 16) {
        const sub = r.slice(size, 'tagged field 0')
        response.nodeEndpoints = decodeNodeEndpoints(sub)
        leftOver(sub, 0, 'nodeEndpoints')
      } else {
        skip(r, size, tag)
      }
    }
  }
  return response
}

function decodeTopic (r: Reader, layout: Layout): FetchTopicResponse {
  const { flexible } = layout
  let topic = ''
  let topicId = ZERO_UUID
  if (layout.version >= 13) topicId = r.uuid()
  else topic = flexible ? r.compactString() : r.string()
  const partitionCount = requiredLength(r, flexible, layout.partitionMinSize, 'partitions')
  const partitions: FetchPartitionResponse[] = new Array(partitionCount)
  for (let i = 0; i < partitionCount; i++) partitions[i] = decodePartition(r, layout)
  if (flexible) skipTaggedFields(r)
  return { topic, topicId, partitions }
}

function decodePartition (r: Reader, layout: Layout): FetchPartitionResponse {
  const { flexible, version } = layout
  const partitionIndex = r.int32()
  const errorCode = r.int16()
  const highWatermark = r.int64()
  const lastStableOffset = r.int64()
  const logStartOffset = version >= 5 ? r.int64() : -1n

  let abortedTransactions: FetchAbortedTransaction[] | null = null
  const abortedCount = r.arrayLength(flexible, layout.abortedMinSize)
  if (abortedCount >= 0) {
    abortedTransactions = new Array(abortedCount)
    for (let i = 0; i < abortedCount; i++) {
      const producerId = r.int64()
      const firstOffset = r.int64()
      if (flexible) skipTaggedFields(r)
      abortedTransactions[i] = { producerId, firstOffset }
    }
  }

  const preferredReadReplica = version >= 11 ? r.int32() : -1
  const records = flexible ? r.compactNullableBytes() : r.nullableBytes()
  const partition: FetchPartitionResponse = {
    partitionIndex,
    errorCode,
    highWatermark,
    lastStableOffset,
    logStartOffset,
    divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1n, epoch: -1 },
    abortedTransactions,
    preferredReadReplica,
    records
  }
  if (flexible) decodePartitionTags(r, partition)
  return partition
}

/** Tags 0–2 of a partition: divergingEpoch, currentLeader, snapshotId; others are skipped. */
function decodePartitionTags (r: Reader, partition: FetchPartitionResponse): void {
  const count = tagCount(r)
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint()
    const size = r.uvarint()
    if (tag > 2) {
      skip(r, size, tag)
      continue
    }
    const sub = r.slice(size, `tagged field ${tag}`)
    if (tag === 0) {
      const epoch = sub.int32()
      partition.divergingEpoch = { epoch, endOffset: sub.int64() }
    } else if (tag === 1) {
      const leaderId = sub.int32()
      partition.currentLeader = { leaderId, leaderEpoch: sub.int32() }
    } else {
      const endOffset = sub.int64()
      partition.snapshotId = { endOffset, epoch: sub.int32() }
    }
    skipTaggedFields(sub)
    leftOver(sub, tag, tag === 0 ? 'divergingEpoch' : tag === 1 ? 'currentLeader' : 'snapshotId')
  }
}

function decodeNodeEndpoints (r: Reader): FetchNodeEndpoint[] {
  const count = requiredLength(r, true, NODE_ENDPOINT_MIN_SIZE, 'nodeEndpoints')
  const endpoints: FetchNodeEndpoint[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const nodeId = r.int32()
    const host = r.compactString()
    const port = r.int32()
    const rack = r.compactNullableString()
    skipTaggedFields(r)
    endpoints[i] = { nodeId, host, port, rack }
  }
  return endpoints
}

function requiredLength (r: Reader, flexible: boolean, minElementSize: number, name: string): number {
  const at = r.offset
  const count = r.arrayLength(flexible, minElementSize)
  if (count < 0) throw new ProtocolError(`Null array for non-nullable field ${name} at offset ${at}`)
  return count
}

function tagCount (r: Reader): number {
  const count = r.uvarint()
  if (count > r.remaining) throw new ProtocolError(`Tagged field count ${count} exceeds the ${r.remaining} bytes that remain`)
  return count
}

function skip (r: Reader, size: number, tag: number): void {
  r.need(size, `tagged field ${tag}`)
  r.offset += size
}

/** A tagged-field section none of whose tags are known here. */
function skipTaggedFields (r: Reader): void {
  const count = tagCount(r)
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint()
    skip(r, r.uvarint(), tag)
  }
}

function leftOver (sub: Reader, tag: number, name: string): void {
  if (sub.remaining !== 0) throw new ProtocolError(`Tagged field ${tag} (${name}) has ${sub.remaining} bytes left over`)
}

/**
 * Produce: v3–v13.
 *
 * For each partition, as a Kafka leader does: leadership (NOT_LEADER_OR_FOLLOWER with the
 * current leader, v10+), exactly one record batch v2 (INVALID_RECORD otherwise), the CRC
 * (CORRUPT_MESSAGE), records that decode and whose offset deltas run 0..n-1, no control
 * batches from clients; then, for an idempotent batch, the producer-state checks
 * (producer-state.ts: duplicates get their original offset, gaps and stale epochs are
 * refused); then the append, which assigns offsets and stamps the leader epoch.
 *
 * acks 0/1/-1 all append at once (every replica is in sync); acks=0 gets no response;
 * other acks values get INVALID_REQUIRED_ACKS.
 *
 * Version notes:
 * - v5: logStartOffset in the response
 * - v8: recordErrors/errorMessage (errorMessage set on refusals here; recordErrors empty)
 * - v10: currentLeader and nodeEndpoints on NOT_LEADER_OR_FOLLOWER (KIP-951)
 * - v13: topics by topicId; an unknown id is UNKNOWN_TOPIC_ID
 * - transactions: a transactional batch is checked by the transaction coordinator first
 *   (transactions.ts: epoch, partition in the transaction or added implicitly at v12+ on
 *   transaction version 2) and its offsets recorded for `committedLog`; no markers
 * - log-append time: not implemented (logAppendTimeMs is always -1)
 * - a batch larger than the topic's `max.message.bytes` config (if set) gets
 *   MESSAGE_TOO_LARGE with no error message, as Kafka answers it
 */
import { Produce, type ProducePartitionData, type ProducePartitionResponse, type ProduceRequest, type ProduceResponse, type ProduceTopicResponse } from '../../protocol/apis/produce'
import { crc32c } from '../../protocol/crc32c'
import { decodeRecordBatches, RECORD_BATCH_OVERHEAD, type RecordBatch } from '../../protocol/record-batch'
import { ErrorCode } from '../error-codes'
import { addSequence } from '../partition-log'
import { ZERO_UUID, type ClusterState, type TopicState } from '../state'
import type { TransactionCoordinator } from '../transactions'
import { defineHandler, leaderError, nodeEndpoint, type ApiHandler, type HandlerContext } from './handler'

/** The producer identity of one batch in a Produce request (for the request log). */
export interface ProduceBatchSummary {
  /** The topic's name ('' for an unknown topic id, Produce v13+). */
  topic: string
  /** The topic's id (the zero UUID for an unknown topic name, before v13). */
  topicId: string
  /** The partition. */
  partition: number
  /** The batch's producer id (-1 for a non-idempotent batch). */
  producerId: bigint
  /** The batch's producer epoch (-1 for a non-idempotent batch). */
  producerEpoch: number
  /** The batch's base sequence (-1 for a non-idempotent batch). */
  baseSequence: number
  /** baseSequence + lastOffsetDelta, wrapping at 2^31 (-1 for a non-idempotent batch). */
  lastSequence: number
  /** The number of records in the batch. */
  recordCount: number
  /** Whether the batch is transactional. */
  transactional: boolean
  /** Bytes of the partition's records field. */
  bytes: number
}

export function produceHandler (txns: TransactionCoordinator): ApiHandler<ProduceRequest, ProduceResponse> {
  return defineHandler<ProduceRequest, ProduceResponse>({
  api: Produce,
  expectsResponse: request => request.acks !== 0,
  handle: async (ctx, request) => {
    const responses: ProduceTopicResponse[] = []
    const leaders = new Set<number>()
    const acksValid = request.acks === 0 || request.acks === 1 || request.acks === -1
    for (const topicData of request.topicData) {
      const { topic, missingCode } = resolveTopic(ctx, topicData)
      const partitionResponses: ProducePartitionResponse[] = []
      for (const data of topicData.partitionData) {
        const result = !acksValid
          ? failed(data.index, ErrorCode.INVALID_REQUIRED_ACKS, `acks must be -1, 0 or 1, not ${request.acks}`)
          : await producePartition(ctx, txns, topic, missingCode, data)
        if (result.currentLeader.leaderId >= 0) leaders.add(result.currentLeader.leaderId)
        partitionResponses.push(result)
      }
      responses.push({ name: topicData.name ?? '', topicId: topicData.topicId ?? ZERO_UUID, partitionResponses })
    }
    return { responses, throttleTimeMs: 0, nodeEndpoints: [...leaders].map(id => nodeEndpoint(ctx.state, id)) }
  },
  errorResponse: (_ctx, request, errorCode) => ({
    responses: request.topicData.map(t => ({
      name: t.name ?? '',
      topicId: t.topicId ?? ZERO_UUID,
      partitionResponses: t.partitionData.map(p => failed(p.index, errorCode, null))
    })),
    throttleTimeMs: 0,
    nodeEndpoints: []
  })
  })
}

function resolveTopic (ctx: HandlerContext, topicData: ProduceRequest['topicData'][number]): { topic: TopicState | undefined, missingCode: number } {
  if (ctx.version >= 13) return { topic: ctx.state.topicById(topicData.topicId ?? ZERO_UUID), missingCode: ErrorCode.UNKNOWN_TOPIC_ID }
  return { topic: ctx.state.topic(topicData.name ?? ''), missingCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }
}

async function producePartition (ctx: HandlerContext, txns: TransactionCoordinator, topic: TopicState | undefined, missingCode: number, data: ProducePartitionData): Promise<ProducePartitionResponse> {
  const partition = topic?.partitions[data.index]
  if (topic === undefined) return failed(data.index, missingCode, 'This server does not host this topic')
  if (partition === undefined) return failed(data.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${topic.name} has no partition ${data.index}`)
  if (leaderError(ctx, partition) !== ErrorCode.NONE) return notLeader(data.index, partition.leader, partition.leaderEpoch)

  const checked = checkSingleBatch(data.records)
  if (typeof checked !== 'object') return failed(data.index, checked === 'crc' ? ErrorCode.CORRUPT_MESSAGE : ErrorCode.INVALID_RECORD, describeBatchProblem(checked))
  // As Kafka: the whole batch against the topic's max.message.bytes, and no message in the answer.
  if (checked.bytes.length > maxMessageBytes(topic)) return failed(data.index, ErrorCode.MESSAGE_TOO_LARGE, null)
  // Our own copy: it is patched (offset, epoch) and kept; the request frame is not.
  const bytes = Buffer.from(checked.bytes)
  let batch: RecordBatch
  try {
    const decoded = await decodeRecordBatches(bytes, { topic: topic.name, partition: data.index })
    if (decoded.length !== 1) throw new Error(`decoded ${decoded.length} batches`)
    batch = decoded[0]
  } catch (error) {
    return failed(data.index, ErrorCode.CORRUPT_MESSAGE, `The record batch does not decode: ${(error as Error).message}`)
  }
  const invalid = invalidRecords(batch)
  if (invalid !== undefined) return failed(data.index, ErrorCode.INVALID_RECORD, invalid)

  // From here to the append nothing awaits: the checks and the append are one step.
  if (leaderError(ctx, partition) !== ErrorCode.NONE) return notLeader(data.index, partition.leader, partition.leaderEpoch)
  const log = partition.log
  if (batch.producerId < 0n) {
    const baseOffset = log.append(bytes, batch, partition.leaderEpoch)
    return written(data.index, baseOffset, log.logStartOffset)
  }
  const firstSeq = batch.baseSequence
  const lastSeq = addSequence(firstSeq, batch.lastOffsetDelta)
  const verdict = partition.producers.check(batch.producerId, batch.producerEpoch, firstSeq, lastSeq)
  if (verdict.kind === 'error') return failed(data.index, verdict.errorCode, verdict.message)
  if (verdict.kind === 'duplicate') return written(data.index, verdict.baseOffset, log.logStartOffset)
  if (batch.isTransactional) {
    const refused = txns.checkTransactionalProduce(topic.name, data.index, batch.producerId, batch.producerEpoch, ctx.version)
    if (refused !== ErrorCode.NONE) return failed(data.index, refused, 'The transaction coordinator refused this transactional batch')
  }
  const baseOffset = log.append(bytes, batch, partition.leaderEpoch)
  if (batch.isTransactional) txns.onTransactionalAppend(topic.name, data.index, batch.producerId, baseOffset, baseOffset + BigInt(batch.lastOffsetDelta))
  partition.producers.recordAppend(batch.producerId, batch.producerEpoch, firstSeq, lastSeq, baseOffset)
  return written(data.index, baseOffset, log.logStartOffset)
}

type BatchProblem = 'none' | 'truncated' | 'several' | 'magic' | 'crc'

/** The partition's records as exactly one v2 batch with a good CRC, or what is wrong. */
function checkSingleBatch (records: Buffer | null): { bytes: Buffer } | BatchProblem {
  if (records === null || records.length === 0) return 'none'
  if (records.length < RECORD_BATCH_OVERHEAD) return 'truncated'
  const end = 12 + records.readInt32BE(8)
  if (end < RECORD_BATCH_OVERHEAD || end > records.length) return 'truncated'
  if (end < records.length) return 'several'
  if (records.readInt8(16) !== 2) return 'magic'
  if (records.readUInt32BE(17) !== crc32c(records, 21, end)) return 'crc'
  return { bytes: records }
}

function describeBatchProblem (problem: BatchProblem): string {
  switch (problem) {
    case 'none': return 'Produce requests (v3+) must carry one record batch per partition; this one carries none'
    case 'truncated': return 'The record batch is truncated: its length field runs past the records'
    case 'several': return 'Produce requests (v3+) must carry exactly one record batch per partition'
    case 'magic': return 'Only record batch v2 (magic 2) can be produced'
    case 'crc': return 'The record batch failed its CRC-32C check'
  }
}

function invalidRecords (batch: RecordBatch): string | undefined {
  if (batch.isControl) return 'Clients may not write control batches'
  if (batch.recordCount === 0) return 'The record batch has no records'
  if (batch.lastOffsetDelta !== batch.recordCount - 1) return `lastOffsetDelta ${batch.lastOffsetDelta} does not match the ${batch.recordCount} records`
  for (let i = 0; i < batch.records.length; i++) {
    if (batch.records[i].offset !== batch.baseOffset + BigInt(i)) return `record ${i} has offset delta ${batch.records[i].offset - batch.baseOffset}, expected ${i}`
  }
  return undefined
}

function written (index: number, baseOffset: bigint, logStartOffset: bigint): ProducePartitionResponse {
  return { index, errorCode: ErrorCode.NONE, baseOffset, logAppendTimeMs: -1n, logStartOffset, recordErrors: [], errorMessage: null, currentLeader: { leaderId: -1, leaderEpoch: -1 } }
}

/** The topic's max.message.bytes; unlimited when the topic sets none (tests send batches larger than Kafka's default). */
export function maxMessageBytes (topic: TopicState): number {
  const value = topic.configs.get('max.message.bytes')
  return value === undefined || value === null ? Infinity : Number(value)
}

function failed (index: number, errorCode: number, errorMessage: string | null): ProducePartitionResponse {
  return { index, errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage, currentLeader: { leaderId: -1, leaderEpoch: -1 } }
}

function notLeader (index: number, leaderId: number, leaderEpoch: number): ProducePartitionResponse {
  return { ...failed(index, ErrorCode.NOT_LEADER_OR_FOLLOWER, null), currentLeader: { leaderId, leaderEpoch } }
}

/** The producer identity of every partition's first batch in a Produce request (unparsable records are skipped). */
export function summarizeProduce (state: ClusterState, version: number, request: ProduceRequest): ProduceBatchSummary[] {
  const summaries: ProduceBatchSummary[] = []
  for (const t of request.topicData) {
    const topicState = version >= 13 ? state.topicById(t.topicId ?? ZERO_UUID) : state.topic(t.name ?? '')
    const topic = version >= 13 ? topicState?.name ?? '' : t.name ?? ''
    const topicId = topicState?.topicId ?? t.topicId ?? ZERO_UUID
    for (const p of t.partitionData) {
      const r = p.records
      if (r === null || r.length < RECORD_BATCH_OVERHEAD) continue
      const baseSequence = r.readInt32BE(53)
      const lastOffsetDelta = r.readInt32BE(23)
      summaries.push({
        topic,
        topicId,
        partition: p.index,
        producerId: r.readBigInt64BE(43),
        producerEpoch: r.readInt16BE(51),
        baseSequence,
        lastSequence: baseSequence < 0 || lastOffsetDelta < 0 ? -1 : addSequence(baseSequence, lastOffsetDelta),
        recordCount: r.readInt32BE(57),
        transactional: (r.readInt16BE(21) & 0x10) !== 0,
        bytes: r.length
      })
    }
  }
  return summaries
}

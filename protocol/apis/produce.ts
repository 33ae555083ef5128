/**
 * Produce (key 0): writes record batches to partition leaders.
 *
 * The request is on the hot path, so it has a hand-written encoder: the record batches
 * arrive ready-made (producer/ builds them) and are copied once, straight into the frame.
 * It writes exactly the bytes the schema encoder writes, for every version (the tests
 * compare both). The response goes through the schema.
 *
 * kafkats speaks v3+: Kafka 4.x refuses older versions (KIP-896), though it advertises v0.
 *
 * Version notes:
 * - v3: transactionalId; record batch v2 (the only format kafkats writes)
 * - v4: KAFKA_STORAGE_ERROR may be returned
 * - v5: logStartOffset in the response
 * - v6: same as v5 (the broker throttles after answering, KIP-219)
 * - v7: zstd batches (KIP-110)
 * - v8: recordErrors and errorMessage in the response (KIP-467)
 * - v9: flexible
 * - v10: currentLeader per partition and nodeEndpoints, tagged, in the response (KIP-951)
 * - v11: TRANSACTION_ABORTABLE may be returned (KIP-890)
 * - v12: transactions v2: the broker adds partitions to the transaction itself (KIP-890)
 * - v13: topics addressed by topicId instead of name (KIP-516)
 */
import { defineApi } from '../api'
import { ProtocolError } from '../errors'
import { array, field, kUnknownTags, struct, tagged } from '../schema'
import type { Writer } from '../writer'

/** An entry of ProduceTopicData.partitionData: each partition to produce to. */
export interface ProducePartitionData {
  /** The partition index. */
  index: number
  /** One or more record batches (v2), ready to send; null sends no records. */
  records: Buffer | null
}

/** An entry of ProduceRequest.topicData: each topic to produce to. */
export interface ProduceTopicData {
  /** Up to v12. */
  name?: string
  /** v13+. */
  topicId?: string
  /** Each partition to produce to. */
  partitionData: ProducePartitionData[]
}

/** A Produce request (key 0). */
export interface ProduceRequest {
  /** The transactional ID, or null if the producer is not transactional. */
  transactionalId?: string | null
  /** 0 no answer, 1 the leader has it, -1 every in-sync replica has it. */
  acks: number
  /** The timeout to await a response in ms. */
  timeoutMs: number
  /** Each topic to produce to. */
  topicData: ProduceTopicData[]
}

/** An entry of ProducePartitionResponse.recordErrors: a record that caused the batch to be dropped. */
export interface ProduceRecordError {
  /** The batch index of the record that caused the batch to be dropped. */
  batchIndex: number
  /** The error message of the record that caused the batch to be dropped. */
  batchIndexErrorMessage: string | null
}

/** The value of ProducePartitionResponse.currentLeader: the leader the producer should use from now on. */
export interface ProduceLeaderIdAndEpoch {
  /** The ID of the current leader or -1 if the leader is unknown. */
  leaderId: number
  /** The latest known leader epoch. */
  leaderEpoch: number
}

/** An entry of ProduceResponse.nodeEndpoints: the endpoint of a leader named in a partition's currentLeader. */
export interface ProduceNodeEndpoint {
  /** The ID of the associated node. */
  nodeId: number
  /** The node's hostname. */
  host: string
  /** The node's port. */
  port: number
  /** The rack of the node, or null if it has not been assigned to a rack. */
  rack: string | null
}

/** An entry of ProduceTopicResponse.partitionResponses: each partition that we produced to within the topic. */
export interface ProducePartitionResponse {
  /** The partition index. */
  index: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The base offset. */
  baseOffset: bigint
  /** -1 unless the topic uses log-append time. */
  logAppendTimeMs: bigint
  /** The log start offset. */
  logStartOffset: bigint
  /** The batch indices of records that caused the batch to be dropped. */
  recordErrors: ProduceRecordError[]
  /** The error message summarizing why the records in recordErrors dropped the batch. */
  errorMessage: string | null
  /** v10+, on NOT_LEADER_OR_FOLLOWER: the new leader (-1/-1 when unknown). */
  currentLeader: ProduceLeaderIdAndEpoch
}

/** An entry of ProduceResponse.responses: each produce response. */
export interface ProduceTopicResponse {
  /** The topic name. */
  name: string
  /** The unique topic ID. */
  topicId: string
  /** Each partition that we produced to within the topic. */
  partitionResponses: ProducePartitionResponse[]
}

/** A Produce response (key 0). */
export interface ProduceResponse {
  /** Each produce response. */
  responses: ProduceTopicResponse[]
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** v10+: the brokers named in `currentLeader`. */
  nodeEndpoints: ProduceNodeEndpoint[]
}

const MIN_VERSION = 3
const MAX_VERSION = 13
const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

/** The Produce API (key 0): its versions and its request and response schemas. */
export const Produce = defineApi<ProduceRequest, ProduceResponse>({
  key: 0,
  name: 'Produce',
  minVersion: MIN_VERSION,
  maxVersion: MAX_VERSION,
  flexibleVersions: '9+',
  request: struct(
    field('transactionalId', 'string', '3+', { nullableVersions: '3+', default: null }),
    field('acks', 'int16', '0+'),
    field('timeoutMs', 'int32', '0+'),
    field('topicData', array(struct(
      field('name', 'string', '0-12'),
      field('topicId', 'uuid', '13+'),
      field('partitionData', array(struct(
        field('index', 'int32', '0+'),
        field('records', 'records', '0+', { nullableVersions: '0+' })
      )), '0+')
    )), '0+')
  ),
  response: struct(
    field('responses', array(struct(
      field('name', 'string', '0-12'),
      field('topicId', 'uuid', '13+'),
      field('partitionResponses', array(struct(
        field('index', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('baseOffset', 'int64', '0+'),
        field('logAppendTimeMs', 'int64', '2+', { default: -1n }),
        field('logStartOffset', 'int64', '5+', { default: -1n }),
        field('recordErrors', array(struct(
          field('batchIndex', 'int32', '8+'),
          field('batchIndexErrorMessage', 'string', '8+', { nullableVersions: '8+', default: null })
        )), '8+'),
        field('errorMessage', 'string', '8+', { nullableVersions: '8+', default: null }),
        tagged('currentLeader', struct(
          field('leaderId', 'int32', '10+', { default: -1 }),
          field('leaderEpoch', 'int32', '10+', { default: -1 })
        ), 0, '10+')
      )), '0+')
    )), '0+'),
    field('throttleTimeMs', 'int32', '1+'),
    tagged('nodeEndpoints', array(struct(
      field('nodeId', 'int32', '10+'),
      field('host', 'string', '10+'),
      field('port', 'int32', '10+'),
      field('rack', 'string', '10+', { nullableVersions: '10+', default: null })
    )), 0, '10+')
  )
}, { encodeRequest: encodeProduceRequest })

interface UnknownTag { tag: number, data: Buffer }

/**
 * The Produce request, written straight into the frame. A large record batch is referred
 * to by a writer of references (the connection writes it from its own buffer, no copy);
 * others are copied once, into a buffer grown for all of them up front.
 */
function encodeProduceRequest (w: Writer, version: number, body: ProduceRequest): void {
  if (!Number.isInteger(version) || version < MIN_VERSION || version > MAX_VERSION) {
    throw new ProtocolError(`Produce v${version} is not spoken by kafkats (it speaks v${MIN_VERSION}–v${MAX_VERSION})`)
  }
  const flexible = version >= 9
  const byTopicId = version >= 13
  const topics = arrayOf(body.topicData, 'topicData')

  let recordBytes = 0
  for (let t = 0; t < topics.length; t++) {
    const partitions = topics[t].partitionData
    if (partitions === undefined || partitions === null) continue
    for (let p = 0; p < partitions.length; p++) {
      const length = partitions[p].records?.length ?? 0
      if (!w.references(length)) recordBytes += length
    }
  }
  w.ensure(recordBytes + 64)

  const transactionalId = body.transactionalId ?? null
  if (flexible) w.compactString(transactionalId)
  else w.string(transactionalId)
  w.int16(body.acks ?? 0)
  w.int32(body.timeoutMs ?? 0)
  writeLength(w, flexible, topics.length)
  for (let t = 0; t < topics.length; t++) {
    const topic = topics[t]
    if (byTopicId) {
      w.uuid(topic.topicId ?? ZERO_UUID)
    } else {
      const name = stringOf(topic.name, 'name')
      if (flexible) w.compactString(name)
      else w.string(name)
    }
    const partitions = arrayOf(topic.partitionData, 'partitionData')
    writeLength(w, flexible, partitions.length)
    for (let p = 0; p < partitions.length; p++) {
      const partition = partitions[p]
      w.int32(partition.index ?? 0)
      const records = partition.records ?? null
      if (records === null) {
        if (flexible) w.uvarint(0)
        else w.int32(-1)
      } else {
        if (flexible) w.uvarint(records.length + 1)
        else w.int32(records.length)
        w.rawOrReference(records)
      }
      if (flexible) writeTaggedFields(w, partition)
    }
    if (flexible) writeTaggedFields(w, topic)
  }
  if (flexible) writeTaggedFields(w, body)
}

/** undefined means "the default" (empty), as in the schema encoder; null is refused. */
function arrayOf<T> (value: T[] | null | undefined, name: string): T[] {
  if (value === undefined) return []
  if (value === null) throw new TypeError(`Array ${name} is not nullable in this version`)
  return value
}

function stringOf (value: string | null | undefined, name: string): string {
  if (value === undefined) return ''
  if (value === null) throw new TypeError(`Field ${name} is not nullable in this version`)
  return value
}

function writeLength (w: Writer, flexible: boolean, length: number): void {
  if (flexible) w.uvarint(length + 1)
  else w.int32(length)
}

/** The tagged-field section: the request knows no tags, so only ones kept from a decode. */
function writeTaggedFields (w: Writer, value: object): void {
  const unknown = (value as Record<string, unknown>)[kUnknownTags] as UnknownTag[] | undefined
  if (unknown === undefined || unknown.length === 0) {
    w.uint8(0)
    return
  }
  const sorted = [...unknown].sort((a, b) => a.tag - b.tag)
  w.uvarint(sorted.length)
  for (const { tag, data } of sorted) w.uvarint(tag).uvarint(data.length).raw(data)
}

/**
 * ShareFetch (key 78): fetches records from a share group's partitions (KIP-932). The
 * broker acquires the records it returns for this member under a lock (the group's
 * `share.record.lock.duration.ms`), listing them in `acquiredRecords` ranges with their
 * delivery count; the `records` are ordinary record batches (protocol/record-batch.ts)
 * that may hold records outside those ranges, which the client must skip. The same
 * request carries acknowledgements of earlier records (piggy-backed).
 *
 * Requests belong to a share session per (member, broker): epoch 0 opens it with the full
 * list of partitions, later requests increment the epoch and list only changes
 * (added partitions in `topics`, removed ones in `forgottenTopicsData`), -1 closes it
 * (acknowledgements only, no fetching).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v2):
 * - v1: the lowest a 4.4 broker accepts; maxRecords and batchSize (KIP-1206 limits),
 *   acquisitionLockTimeoutMs in the response
 * - v2: shareAcquireMode (0 batch-optimized, 1 record limit) and isRenewAck: the
 *   acknowledgements are lock renewals (type 4), and nothing is fetched (KIP-1222)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** Acknowledgement types in AcknowledgementBatch.acknowledgeTypes. */
export const AcknowledgeType = {
  /** An offset with no record (a compacted or control record): nothing to acknowledge. */
  GAP: 0,
  ACCEPT: 1,
  RELEASE: 2,
  REJECT: 3,
  /** v2+: renew the acquisition lock (KIP-1222). */
  RENEW: 4
} as const

export interface AcknowledgementBatch {
  firstOffset: bigint
  /** Inclusive. */
  lastOffset: bigint
  /** One type for the whole range, or one per offset. */
  acknowledgeTypes: number[]
}

export interface ShareFetchRequestPartition {
  partitionIndex: number
  acknowledgementBatches: AcknowledgementBatch[]
}

export interface ShareFetchRequestTopic {
  topicId: string
  partitions: ShareFetchRequestPartition[]
}

export interface ShareFetchRequest {
  groupId: string | null
  memberId: string | null
  /** 0 opens a session, -1 closes it, otherwise the next epoch. */
  shareSessionEpoch: number
  maxWaitMs: number
  minBytes: number
  maxBytes?: number
  /** v1+: the most records to acquire. */
  maxRecords?: number
  /** v1+: how many records the broker should acquire per batch. */
  batchSize?: number
  /** v2+: 0 batch-optimized (default), 1 strict record limit. */
  shareAcquireMode?: number
  /** v2+: the acknowledgements are renewals; nothing is fetched. */
  isRenewAck?: boolean
  topics: ShareFetchRequestTopic[]
  forgottenTopicsData: Array<{ topicId: string, partitions: number[] }>
}

export interface ShareAcquiredRecords {
  firstOffset: bigint
  lastOffset: bigint
  deliveryCount: number
}

export interface ShareLeaderIdAndEpoch {
  leaderId: number
  leaderEpoch: number
}

export interface ShareFetchResponsePartition {
  partitionIndex: number
  errorCode: number
  errorMessage: string | null
  acknowledgeErrorCode: number
  acknowledgeErrorMessage: string | null
  currentLeader: ShareLeaderIdAndEpoch
  /** Record batches: a view into the response frame (empty when nothing was acquired). */
  records: Buffer
  acquiredRecords: ShareAcquiredRecords[]
}

export interface ShareNodeEndpoint {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export interface ShareFetchResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  /** How long the acquired records stay locked. */
  acquisitionLockTimeoutMs: number
  responses: Array<{ topicId: string, partitions: ShareFetchResponsePartition[] }>
  nodeEndpoints: ShareNodeEndpoint[]
}

export const acknowledgementBatch = struct(
  field('firstOffset', 'int64', '0+'),
  field('lastOffset', 'int64', '0+'),
  field('acknowledgeTypes', array('int8'), '0+')
)

/** Topics, partitions and their acknowledgements: ShareFetch's `topics` (v1+ has no other partition field) and ShareAcknowledge's. */
export const acknowledgementTopics = array(struct(
  field('topicId', 'uuid', '0+'),
  field('partitions', array(struct(
    field('partitionIndex', 'int32', '0+'),
    field('acknowledgementBatches', array(acknowledgementBatch), '0+')
  )), '0+')
))

export const leaderIdAndEpoch = struct(
  field('leaderId', 'int32', '0+'),
  field('leaderEpoch', 'int32', '0+')
)

export const nodeEndpoint = struct(
  field('nodeId', 'int32', '0+'),
  field('host', 'string', '0+'),
  field('port', 'int32', '0+'),
  field('rack', 'string', '0+', { nullableVersions: '0+', default: null })
)

export const ShareFetch = defineApi<ShareFetchRequest, ShareFetchResponse>({
  key: 78,
  name: 'ShareFetch',
  minVersion: 1,
  maxVersion: 2,
  flexibleVersions: '0+',
  request: struct(
    field('groupId', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('memberId', 'string', '0+', { nullableVersions: '0+' }),
    field('shareSessionEpoch', 'int32', '0+'),
    field('maxWaitMs', 'int32', '0+'),
    field('minBytes', 'int32', '0+'),
    field('maxBytes', 'int32', '0+', { default: 0x7fffffff }),
    field('maxRecords', 'int32', '1+', { default: 500 }),
    field('batchSize', 'int32', '1+', { default: 500 }),
    field('shareAcquireMode', 'int8', '2+', { default: 0 }),
    field('isRenewAck', 'bool', '2+', { default: false }),
    field('topics', acknowledgementTopics, '0+'),
    field('forgottenTopicsData', array(struct(
      field('topicId', 'uuid', '0+'),
      field('partitions', array('int32'), '0+')
    )), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('acquisitionLockTimeoutMs', 'int32', '1+'),
    field('responses', array(struct(
      field('topicId', 'uuid', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('acknowledgeErrorCode', 'int16', '0+'),
        field('acknowledgeErrorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('currentLeader', leaderIdAndEpoch, '0+'),
        field('records', 'records', '0+'),
        field('acquiredRecords', array(struct(
          field('firstOffset', 'int64', '0+'),
          field('lastOffset', 'int64', '0+'),
          field('deliveryCount', 'int16', '0+')
        )), '0+')
      )), '0+')
    )), '0+'),
    field('nodeEndpoints', array(nodeEndpoint), '0+')
  )
})

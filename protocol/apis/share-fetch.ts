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
  /** The record was processed: it is not delivered again. */
  ACCEPT: 1,
  /** The record is released: it may be delivered again, to this member or another. */
  RELEASE: 2,
  /** The record cannot be processed: it is archived, never delivered again. */
  REJECT: 3,
  /** v2+: renew the acquisition lock (KIP-1222). */
  RENEW: 4
} as const

/** A range of offsets and how they are acknowledged, in ShareFetch and ShareAcknowledge requests. */
export interface AcknowledgementBatch {
  /** First offset of batch of records to acknowledge. */
  firstOffset: bigint
  /** Inclusive. */
  lastOffset: bigint
  /** One type for the whole range, or one per offset. */
  acknowledgeTypes: number[]
}

/** An entry of ShareFetchRequestTopic.partitions: the partitions to fetch. */
export interface ShareFetchRequestPartition {
  /** The partition index. */
  partitionIndex: number
  /** Record batches to acknowledge. */
  acknowledgementBatches: AcknowledgementBatch[]
}

/** An entry of ShareFetchRequest.topics: the topics to fetch. */
export interface ShareFetchRequestTopic {
  /** The unique topic ID. */
  topicId: string
  /** The partitions to fetch. */
  partitions: ShareFetchRequestPartition[]
}

/** A ShareFetch request (key 78). */
export interface ShareFetchRequest {
  /** The group identifier. */
  groupId: string | null
  /** The member ID. */
  memberId: string | null
  /** 0 opens a session, -1 closes it, otherwise the next epoch. */
  shareSessionEpoch: number
  /** The maximum time in ms to wait for the response. */
  maxWaitMs: number
  /** The minimum bytes to accumulate in the response. */
  minBytes: number
  /** The maximum bytes to fetch. See KIP-74 for cases where this limit may not be honored. */
  maxBytes?: number
  /** v1+: the most records to acquire. */
  maxRecords?: number
  /** v1+: how many records the broker should acquire per batch. */
  batchSize?: number
  /** v2+: 0 batch-optimized (default), 1 strict record limit. */
  shareAcquireMode?: number
  /** v2+: the acknowledgements are renewals; nothing is fetched. */
  isRenewAck?: boolean
  /** The topics to fetch. */
  topics: ShareFetchRequestTopic[]
  /** The partitions to remove from this share session. */
  forgottenTopicsData: Array<{
    /** The unique topic ID. */
    topicId: string
    /** The partition indexes to forget. */
    partitions: number[]
  }>
}

/** An entry of ShareFetchResponsePartition.acquiredRecords: the acquired records. */
export interface ShareAcquiredRecords {
  /** The earliest offset in this batch of acquired records. */
  firstOffset: bigint
  /** The last offset of this batch of acquired records. */
  lastOffset: bigint
  /** The delivery count of this batch of acquired records. */
  deliveryCount: number
}

/** The current leader of a partition, in ShareFetch and ShareAcknowledge responses. */
export interface ShareLeaderIdAndEpoch {
  /** The ID of the current leader or -1 if the leader is unknown. */
  leaderId: number
  /** The latest known leader epoch. */
  leaderEpoch: number
}

/** An entry of ShareFetchResponse.responses.partitions: the topic partitions. */
export interface ShareFetchResponsePartition {
  /** The partition index. */
  partitionIndex: number
  /** The fetch error code, or 0 if there was no fetch error. */
  errorCode: number
  /** The fetch error message, or null if there was no fetch error. */
  errorMessage: string | null
  /** The acknowledge error code, or 0 if there was no acknowledge error. */
  acknowledgeErrorCode: number
  /** The acknowledge error message, or null if there was no acknowledge error. */
  acknowledgeErrorMessage: string | null
  /** The current leader of the partition. */
  currentLeader: ShareLeaderIdAndEpoch
  /** Record batches: a view into the response frame (empty when nothing was acquired). */
  records: Buffer
  /** The acquired records. */
  acquiredRecords: ShareAcquiredRecords[]
}

/**
 * An entry of ShareFetchResponse.nodeEndpoints and ShareAcknowledgeResponse.nodeEndpoints: a current leader's
 * endpoint.
 */
export interface ShareNodeEndpoint {
  /** The ID of the associated node. */
  nodeId: number
  /** The node's hostname. */
  host: string
  /** The node's port. */
  port: number
  /** The rack of the node, or null if it has not been assigned to a rack. */
  rack: string | null
}

/** A ShareFetch response (key 78). */
export interface ShareFetchResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top-level response error code. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** How long the acquired records stay locked. */
  acquisitionLockTimeoutMs: number
  /** The response topics. */
  responses: Array<{
    /** The unique topic ID. */
    topicId: string
    /** The topic partitions. */
    partitions: ShareFetchResponsePartition[]
  }>
  /** The endpoints of the current leaders of the partitions that answered NOT_LEADER_OR_FOLLOWER. */
  nodeEndpoints: ShareNodeEndpoint[]
}

/** The schema of an AcknowledgementBatch, shared by ShareFetch and ShareAcknowledge. */
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

/** The schema of a ShareLeaderIdAndEpoch, shared by ShareFetch and ShareAcknowledge. */
export const leaderIdAndEpoch = struct(
  field('leaderId', 'int32', '0+'),
  field('leaderEpoch', 'int32', '0+')
)

/** The schema of a ShareNodeEndpoint, shared by ShareFetch and ShareAcknowledge. */
export const nodeEndpoint = struct(
  field('nodeId', 'int32', '0+'),
  field('host', 'string', '0+'),
  field('port', 'int32', '0+'),
  field('rack', 'string', '0+', { nullableVersions: '0+', default: null })
)

/** The ShareFetch API (key 78): its versions and its request and response schemas. */
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

/**
 * ShareAcknowledge (key 79): acknowledges records acquired through ShareFetch without
 * fetching more (KIP-932): accept, release (redeliver), reject (never redeliver) or, v2+,
 * renew the lock (KIP-1222). It belongs to the same share session as ShareFetch (it uses
 * and increments the session's epoch; -1 acknowledges and closes the session).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v2):
 * - v1: the lowest a 4.4 broker accepts; flexible
 * - v2: isRenewAck in the request; acquisitionLockTimeoutMs in the response
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'
import { acknowledgementTopics, leaderIdAndEpoch, nodeEndpoint, type AcknowledgementBatch, type ShareLeaderIdAndEpoch, type ShareNodeEndpoint } from './share-fetch'

/** A ShareAcknowledge request (key 79). */
export interface ShareAcknowledgeRequest {
  /** The group identifier. */
  groupId: string | null
  /** The member ID. */
  memberId: string | null
  /** The share session epoch: 0 opens the session, -1 closes it, else incremented each request. */
  shareSessionEpoch: number
  /** v2+: the acknowledgements are lock renewals. */
  isRenewAck?: boolean
  /** The topics containing records to acknowledge. */
  topics: Array<{
    /** The unique topic ID. */
    topicId: string
    /** The partitions containing records to acknowledge. */
    partitions: Array<{
      /** The partition index. */
      partitionIndex: number
      /** Record batches to acknowledge. */
      acknowledgementBatches: AcknowledgementBatch[]
    }>
  }>
}

/** An entry of ShareAcknowledgeResponse.responses.partitions: the topic partitions. */
export interface ShareAcknowledgeResponsePartition {
  /** The partition index. */
  partitionIndex: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
  /** The current leader of the partition. */
  currentLeader: ShareLeaderIdAndEpoch
}

/** A ShareAcknowledge response (key 79). */
export interface ShareAcknowledgeResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The top level response error code. */
  errorCode: number
  /** The top-level error message, or null if there was no error. */
  errorMessage: string | null
  /** v2+. */
  acquisitionLockTimeoutMs: number
  /** The response topics. */
  responses: Array<{
    /** The unique topic ID. */
    topicId: string
    /** The topic partitions. */
    partitions: ShareAcknowledgeResponsePartition[]
  }>
  /** The endpoints of the current leaders of the partitions that answered NOT_LEADER_OR_FOLLOWER. */
  nodeEndpoints: ShareNodeEndpoint[]
}

/** The ShareAcknowledge API (key 79): its versions and its request and response schemas. */
export const ShareAcknowledge = defineApi<ShareAcknowledgeRequest, ShareAcknowledgeResponse>({
  key: 79,
  name: 'ShareAcknowledge',
  minVersion: 1,
  maxVersion: 2,
  flexibleVersions: '0+',
  request: struct(
    field('groupId', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('memberId', 'string', '0+', { nullableVersions: '0+' }),
    field('shareSessionEpoch', 'int32', '0+'),
    field('isRenewAck', 'bool', '2+', { default: false }),
    field('topics', acknowledgementTopics, '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('acquisitionLockTimeoutMs', 'int32', '2+'),
    field('responses', array(struct(
      field('topicId', 'uuid', '0+'),
      field('partitions', array(struct(
        field('partitionIndex', 'int32', '0+'),
        field('errorCode', 'int16', '0+'),
        field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('currentLeader', leaderIdAndEpoch, '0+')
      )), '0+')
    )), '0+'),
    field('nodeEndpoints', array(nodeEndpoint), '0+')
  )
})

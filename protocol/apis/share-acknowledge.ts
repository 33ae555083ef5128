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

export interface ShareAcknowledgeRequest {
  groupId: string | null
  memberId: string | null
  shareSessionEpoch: number
  /** v2+: the acknowledgements are lock renewals. */
  isRenewAck?: boolean
  topics: Array<{ topicId: string, partitions: Array<{ partitionIndex: number, acknowledgementBatches: AcknowledgementBatch[] }> }>
}

export interface ShareAcknowledgeResponsePartition {
  partitionIndex: number
  errorCode: number
  errorMessage: string | null
  currentLeader: ShareLeaderIdAndEpoch
}

export interface ShareAcknowledgeResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  /** v2+. */
  acquisitionLockTimeoutMs: number
  responses: Array<{ topicId: string, partitions: ShareAcknowledgeResponsePartition[] }>
  nodeEndpoints: ShareNodeEndpoint[]
}

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

/**
 * AddOffsetsToTxn (key 25): a transactional producer tells its transaction coordinator
 * that the open transaction will commit offsets of a consumer group (transaction
 * version 1), before it sends TxnOffsetCommit to the group's coordinator. On transaction
 * version 2 (KIP-890) TxnOffsetCommit v5+ adds the group implicitly.
 *
 * Version notes:
 * - v1: the broker answers before throttling on quota violation
 * - v2: same as v1 (KIP-559 retries)
 * - v3: flexible
 * - v4: TRANSACTION_ABORTABLE may be returned (KIP-890)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

export interface AddOffsetsToTxnRequest {
  transactionalId: string
  producerId: bigint
  producerEpoch: number
  groupId: string
}

export interface AddOffsetsToTxnResponse {
  throttleTimeMs: number
  errorCode: number
}

export const AddOffsetsToTxn = defineApi<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>({
  key: 25,
  name: 'AddOffsetsToTxn',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersions: '3+',
  request: struct(
    field('transactionalId', 'string', '0+'),
    field('producerId', 'int64', '0+'),
    field('producerEpoch', 'int16', '0+'),
    field('groupId', 'string', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+')
  )
})

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

/** An AddOffsetsToTxn request (key 25). */
export interface AddOffsetsToTxnRequest {
  /** The transactional id corresponding to the transaction. */
  transactionalId: string
  /** Current producer id in use by the transactional id. */
  producerId: bigint
  /** Current epoch associated with the producer id. */
  producerEpoch: number
  /** The unique group identifier. */
  groupId: string
}

/** An AddOffsetsToTxn response (key 25). */
export interface AddOffsetsToTxnResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The response error code, or 0 if there was no error. */
  errorCode: number
}

/** The AddOffsetsToTxn API (key 25): its versions and its request and response schemas. */
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

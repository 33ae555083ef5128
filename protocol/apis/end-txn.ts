/**
 * EndTxn (key 26): a transactional producer asks its transaction coordinator to commit or
 * abort the open transaction. The coordinator writes the decision to its log, then the
 * markers to every partition of the transaction.
 *
 * Version notes:
 * - v1: the broker answers before throttling on quota violation
 * - v2: same as v1 (KIP-559 retries)
 * - v3: flexible
 * - v4: TRANSACTION_ABORTABLE may be returned (KIP-890)
 * - v5: transaction version 2 (KIP-890): the coordinator bumps the epoch at every end and
 *   returns the producer id and epoch to use for the next transaction
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

/** An EndTxn request (key 26). */
export interface EndTxnRequest {
  /** The ID of the transaction to end. */
  transactionalId: string
  /** The producer ID. */
  producerId: bigint
  /** The current epoch associated with the producer. */
  producerEpoch: number
  /** True to commit, false to abort. */
  committed: boolean
}

/** An EndTxn response (key 26). */
export interface EndTxnResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** v5+: the producer id for the next transaction (-1 below v5). */
  producerId: bigint
  /** v5+: the epoch for the next transaction (-1 below v5). */
  producerEpoch: number
}

/** The EndTxn API (key 26): its versions and its request and response schemas. */
export const EndTxn = defineApi<EndTxnRequest, EndTxnResponse>({
  key: 26,
  name: 'EndTxn',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersions: '3+',
  request: struct(
    field('transactionalId', 'string', '0+'),
    field('producerId', 'int64', '0+'),
    field('producerEpoch', 'int16', '0+'),
    field('committed', 'bool', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('producerId', 'int64', '5+', { default: -1n }),
    field('producerEpoch', 'int16', '5+', { default: -1 })
  )
})

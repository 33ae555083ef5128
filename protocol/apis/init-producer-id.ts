/**
 * InitProducerId (key 22): gets a producer id and epoch for an idempotent producer, or
 * for a transactional id (sent to its transaction coordinator), fencing older instances.
 *
 * Version notes:
 * - v1: on quota violation the broker answers before throttling
 * - v2: flexible
 * - v3: producerId/producerEpoch in the request, so a producer can bump its epoch after
 *   INVALID_PRODUCER_EPOCH instead of starting over (KIP-360)
 * - v4: may answer PRODUCER_FENCED
 * - v5: may answer TRANSACTION_ABORTABLE (KIP-890)
 * - v6: two-phase commit (KIP-939): enable2Pc/keepPreparedTxn in the request, the ongoing
 *   transaction's producer id and epoch in the response (4.x; Kafka marks it unstable, so a
 *   broker may not advertise it)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

/** An InitProducerId request (key 22). */
export interface InitProducerIdRequest {
  /** Null for an idempotent producer without transactions. */
  transactionalId: string | null
  /** How long the transaction may stay idle before the coordinator aborts it, in ms (transactional producers only). */
  transactionTimeoutMs: number
  /** v3+: the current id when bumping the epoch, else -1 (the default). */
  producerId?: bigint
  /** v3+: the current epoch when bumping it, else -1 (the default). */
  producerEpoch?: number
  /** v6+. */
  enable2Pc?: boolean
  /** v6+. */
  keepPreparedTxn?: boolean
}

/** An InitProducerId response (key 22). */
export interface InitProducerIdResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The current producer id. */
  producerId: bigint
  /** The current epoch associated with the producer id. */
  producerEpoch: number
  /** v6+: -1 when no transaction is ongoing. */
  ongoingTxnProducerId: bigint
  /** v6+: -1 when no transaction is ongoing. */
  ongoingTxnProducerEpoch: number
}

/** The InitProducerId API (key 22): its versions and its request and response schemas. */
export const InitProducerId = defineApi<InitProducerIdRequest, InitProducerIdResponse>({
  key: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 6,
  flexibleVersions: '2+',
  request: struct(
    field('transactionalId', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('transactionTimeoutMs', 'int32', '0+'),
    field('producerId', 'int64', '3+', { default: -1n }),
    field('producerEpoch', 'int16', '3+', { default: -1 }),
    field('enable2Pc', 'bool', '6+', { default: false }),
    field('keepPreparedTxn', 'bool', '6+', { default: false })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('producerId', 'int64', '0+', { default: -1n }),
    field('producerEpoch', 'int16', '0+'),
    field('ongoingTxnProducerId', 'int64', '6+', { default: -1n }),
    field('ongoingTxnProducerEpoch', 'int16', '6+', { default: -1 })
  )
})

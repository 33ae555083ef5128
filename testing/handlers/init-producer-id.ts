/**
 * InitProducerId: v0–v6. With a transactional id: the transaction coordinator's
 * (transactions.ts: fencing, aborting the previous instance's transaction). Without:
 *
 * Without a current producer id: a new id at epoch 0. With one (v3+, KIP-360): the same
 * id at epoch + 1, or a new id at epoch 0 once the epoch is exhausted (32766, as
 * Kafka); a retry that repeats the previous epoch gets the current one; any other epoch
 * is PRODUCER_FENCED (v4+) or INVALID_PRODUCER_EPOCH (older versions). See
 * ClusterState.initProducerId.
 *
 * Version notes:
 * - v3: producerId/producerEpoch in the request (KIP-360)
 * - v4: PRODUCER_FENCED
 * - v6: two-phase commit fields (KIP-939), ignored; ongoingTxn* are -1
 */
import { InitProducerId, type InitProducerIdRequest, type InitProducerIdResponse } from '../../protocol/apis/init-producer-id'
import { ErrorCode } from '../error-codes'
import type { TransactionCoordinator } from '../transactions'
import { defineHandler, type ApiHandler } from './handler'

export function initProducerIdHandler (txns: TransactionCoordinator): ApiHandler<InitProducerIdRequest, InitProducerIdResponse> {
  return defineHandler<InitProducerIdRequest, InitProducerIdResponse>({
  api: InitProducerId,
  handle: (ctx, request) => {
    if (request.transactionalId !== null && request.transactionalId !== undefined) {
      const answer = txns.initProducerId(ctx.brokerId, ctx.version, { transactionalId: request.transactionalId, transactionTimeoutMs: request.transactionTimeoutMs, producerId: request.producerId ?? -1n, producerEpoch: request.producerEpoch ?? -1 })
      return { throttleTimeMs: 0, ...answer, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 }
    }
    const current = request.producerId !== undefined && request.producerId >= 0n
      ? { producerId: request.producerId, producerEpoch: request.producerEpoch ?? -1 }
      : undefined
    const result = ctx.state.initProducerId(current)
    let errorCode = result.errorCode
    if (errorCode === ErrorCode.PRODUCER_FENCED && ctx.version < 4) errorCode = ErrorCode.INVALID_PRODUCER_EPOCH
    return { throttleTimeMs: 0, errorCode, producerId: result.producerId, producerEpoch: result.producerEpoch, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 }
  },
  errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 })
  })
}

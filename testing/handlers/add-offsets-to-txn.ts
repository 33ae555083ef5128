/**
 * AddOffsetsToTxn: v0–v4 — the group joins the open transaction (transactions.ts).
 *
 * Version notes:
 * - v3: flexible
 */
import { AddOffsetsToTxn, type AddOffsetsToTxnRequest, type AddOffsetsToTxnResponse } from '../../protocol/apis/add-offsets-to-txn'
import type { TransactionCoordinator } from '../transactions'
import { defineHandler, type ApiHandler } from './handler'

export function addOffsetsToTxnHandler (txns: TransactionCoordinator): ApiHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> {
  return defineHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>({
    api: AddOffsetsToTxn,
    handle: (ctx, request) => ({ throttleTimeMs: 0, errorCode: txns.addOffsets(ctx.brokerId, request.transactionalId, request.producerId, request.producerEpoch, request.groupId) }),
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode })
  })
}

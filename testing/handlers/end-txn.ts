/**
 * EndTxn: v0–v5 — commit or abort (transactions.ts).
 *
 * Version notes:
 * - v3: flexible
 * - v5: on transaction version 2 the epoch is bumped and returned (KIP-890)
 */
import { EndTxn, type EndTxnRequest, type EndTxnResponse } from '../../protocol/apis/end-txn'
import type { TransactionCoordinator } from '../transactions'
import { defineHandler, type ApiHandler } from './handler'

export function endTxnHandler (txns: TransactionCoordinator): ApiHandler<EndTxnRequest, EndTxnResponse> {
  return defineHandler<EndTxnRequest, EndTxnResponse>({
    api: EndTxn,
    handle: (ctx, request) => ({ throttleTimeMs: 0, ...txns.endTxn(ctx.brokerId, ctx.version, request) }),
    errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 })
  })
}

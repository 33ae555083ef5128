/**
 * AddPartitionsToTxn: v0–v3 (a client's one transaction; see transactions.ts). v4+ is
 * broker-to-broker (batched, verifyOnly) and answered INVALID_REQUEST here.
 *
 * Version notes:
 * - v3: flexible
 * - v4: batched transactions with verifyOnly, top-level errorCode (KIP-890) — not implemented
 */
import { AddPartitionsToTxn, type AddPartitionsToTxnRequest, type AddPartitionsToTxnResponse } from '../../protocol/apis/add-partitions-to-txn'
import type { TransactionCoordinator } from '../transactions'
import { ErrorCode } from '../error-codes'
import { defineHandler, type ApiHandler } from './handler'

export function addPartitionsToTxnHandler (txns: TransactionCoordinator): ApiHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> {
  const answer = (request: AddPartitionsToTxnRequest, codeOf: (topic: string, partition: number) => number): AddPartitionsToTxnResponse => ({
    throttleTimeMs: 0,
    errorCode: 0,
    resultsByTransaction: [],
    resultsByTopicV3AndBelow: (request.v3AndBelowTopics ?? []).map(t => ({
      name: t.name,
      resultsByPartition: t.partitions.map(p => ({ partitionIndex: p, partitionErrorCode: codeOf(t.name, p) }))
    }))
  })
  return defineHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>({
    api: AddPartitionsToTxn,
    handle: (ctx, request) => {
      if (ctx.version >= 4) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, resultsByTransaction: [], resultsByTopicV3AndBelow: [] }
      const partitions = (request.v3AndBelowTopics ?? []).flatMap(t => t.partitions.map(partition => ({ topic: t.name, partition })))
      const codes = txns.addPartitions(ctx.brokerId, request.v3AndBelowTransactionalId ?? '', request.v3AndBelowProducerId ?? -1n, request.v3AndBelowProducerEpoch ?? -1, partitions)
      return answer(request, (topic, partition) => codes.get(`${topic}-${partition}`) ?? 0)
    },
    errorResponse: (_ctx, request, errorCode) => answer(request, () => errorCode)
  })
}

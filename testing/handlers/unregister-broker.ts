/**
 * UnregisterBroker: v0. The fake's brokers are always registered and live; unregistering
 * one answers NONE and changes nothing (a real broker registers again at its next
 * heartbeat). An id that is not a broker of the cluster is BROKER_ID_NOT_REGISTERED, as Kafka
 * answers it.
 */
import { UnregisterBroker, type UnregisterBrokerRequest, type UnregisterBrokerResponse } from '../../protocol/apis/unregister-broker'
import { ErrorCode } from '../error-codes'
import { defineHandler } from './handler'

export const unregisterBrokerHandler = defineHandler<UnregisterBrokerRequest, UnregisterBrokerResponse>({
  api: UnregisterBroker,
  handle: (ctx, request) => ctx.state.broker(request.brokerId) !== undefined
    ? { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null }
    : { throttleTimeMs: 0, errorCode: ErrorCode.BROKER_ID_NOT_REGISTERED, errorMessage: `Broker ID ${request.brokerId} is not currently registered` },
  errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null })
})

/**
 * UnregisterController: v0. The fake has no separate controllers: every id is
 * CONTROLLER_ID_NOT_REGISTERED, as Kafka answers an unknown one.
 */
import { UnregisterController, type UnregisterControllerRequest, type UnregisterControllerResponse } from '../../protocol/apis/unregister-controller'
import { ErrorCode } from '../error-codes'
import { defineHandler } from './handler'

export const unregisterControllerHandler = defineHandler<UnregisterControllerRequest, UnregisterControllerResponse>({
  api: UnregisterController,
  handle: (_ctx, request) => ({ throttleTimeMs: 0, errorCode: ErrorCode.CONTROLLER_ID_NOT_REGISTERED, errorMessage: `Controller ID ${request.controllerId} is not currently registered` }),
  errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null })
})

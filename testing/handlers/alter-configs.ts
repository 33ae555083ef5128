/**
 * AlterConfigs: v0–v2, topics only.
 *
 * Replaces a topic's whole set of configs with the one given, as Kafka does: a config left
 * out goes back to its default. An unknown topic is UNKNOWN_TOPIC_OR_PARTITION; other
 * resource types get INVALID_REQUEST. validateOnly checks and changes nothing.
 *
 * Version notes:
 * - v1: nothing new for the fake (throttling order)
 * - v2: flexible
 */
import { AlterConfigs, type AlterConfigsRequest, type AlterConfigsResponse } from '../../protocol/apis/alter-configs'
import { ErrorCode } from '../error-codes'
import { defineHandler } from './handler'

const TOPIC = 2

export const alterConfigsHandler = defineHandler<AlterConfigsRequest, AlterConfigsResponse>({
  api: AlterConfigs,
  handle: (ctx, request) => ({
    throttleTimeMs: 0,
    responses: request.resources.map(r => {
      const answer = (errorCode: number, errorMessage: string | null): AlterConfigsResponse['responses'][number] => ({ errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName })
      if (r.resourceType !== TOPIC) return answer(ErrorCode.INVALID_REQUEST, 'The fake broker alters topic configs only')
      const topic = ctx.state.topic(r.resourceName)
      if (topic === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist`)
      if (request.validateOnly !== true) topic.configs = new Map(r.configs.map(c => [c.name, c.value]))
      return answer(ErrorCode.NONE, null)
    })
  }),
  errorResponse: (_ctx, request, errorCode) => ({
    throttleTimeMs: 0,
    responses: request.resources.map(r => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName }))
  })
})

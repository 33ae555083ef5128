/**
 * DescribeConfigs: v1–v4, topics only.
 *
 * A topic's configs are the ones it was created with (source 1, dynamic topic config),
 * and `max.message.bytes` at Kafka's default (1048588, source 5) when it sets none. An
 * unknown topic is UNKNOWN_TOPIC_OR_PARTITION; other resource types get INVALID_REQUEST.
 * No synonyms, no documentation.
 */
import { DescribeConfigs, type DescribeConfigsRequest, type DescribeConfigsResourceResult, type DescribeConfigsResponse } from '../../protocol/apis/describe-configs'
import { ErrorCode } from '../error-codes'
import { defineHandler } from './handler'

const TOPIC = 2
const DYNAMIC_TOPIC_CONFIG = 1
const DEFAULT_CONFIG = 5
const TOPIC_DEFAULTS: Record<string, string> = { 'max.message.bytes': '1048588' }

export const describeConfigsHandler = defineHandler<DescribeConfigsRequest, DescribeConfigsResponse>({
  api: DescribeConfigs,
  handle: (ctx, request) => ({
    throttleTimeMs: 0,
    results: request.resources.map(r => {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName, configs: [] }
      if (r.resourceType !== TOPIC) return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The fake broker describes topic configs only' }
      const topic = ctx.state.topic(r.resourceName)
      if (topic === undefined) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${r.resourceName} does not exist` }
      const configs: DescribeConfigsResourceResult[] = []
      const entry = (name: string, value: string | null, configSource: number): DescribeConfigsResourceResult =>
        ({ name, value, readOnly: false, configSource, isSensitive: false, synonyms: [], configType: 0, documentation: null })
      for (const [name, value] of topic.configs) configs.push(entry(name, value, DYNAMIC_TOPIC_CONFIG))
      for (const [name, value] of Object.entries(TOPIC_DEFAULTS)) if (!topic.configs.has(name)) configs.push(entry(name, value, DEFAULT_CONFIG))
      const keys = r.configurationKeys
      return { ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs: keys === null || keys === undefined ? configs : configs.filter(c => keys.includes(c.name)) }
    })
  }),
  errorResponse: (_ctx, request, errorCode) => ({
    throttleTimeMs: 0,
    results: request.resources.map(r => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] }))
  })
})

/**
 * DescribeConfigs: v0–v4, topics and brokers.
 *
 * A topic's configs are the ones it was created with or last altered to (source 1,
 * dynamic topic config), and `max.message.bytes` at Kafka's default (1048588, source 5)
 * when it sets none. A broker's configs are the topic defaults it creates with:
 * `num.partitions` (the cluster's `defaultPartitions`) and `default.replication.factor` (1),
 * as static broker configs (source 4). An unknown topic is UNKNOWN_TOPIC_OR_PARTITION;
 * other resource types get INVALID_REQUEST. No synonyms, no documentation.
 *
 * Version notes:
 * - v0: isDefault instead of configSource (Kafka 0.11 and 1.0)
 */
import { DescribeConfigs, type DescribeConfigsRequest, type DescribeConfigsResourceResult, type DescribeConfigsResponse } from '../../protocol/apis/describe-configs'
import { ErrorCode } from '../error-codes'
import { defineHandler } from './handler'

const TOPIC = 2
const BROKER = 4
const DYNAMIC_TOPIC_CONFIG = 1
const STATIC_BROKER_CONFIG = 4
const DEFAULT_CONFIG = 5
const TOPIC_DEFAULTS: Record<string, string> = { 'max.message.bytes': '1048588' }

export function describeConfigsHandler (defaultPartitions: number) {
  return defineHandler<DescribeConfigsRequest, DescribeConfigsResponse>({
    api: DescribeConfigs,
    handle: (ctx, request) => ({
      throttleTimeMs: 0,
      results: request.resources.map(r => {
        const base = { resourceType: r.resourceType, resourceName: r.resourceName, configs: [] }
        const configs: DescribeConfigsResourceResult[] = []
        const entry = (name: string, value: string | null, configSource: number): DescribeConfigsResourceResult =>
          ({ name, value, readOnly: false, isDefault: configSource === DEFAULT_CONFIG, configSource: ctx.version === 0 ? -1 : configSource, isSensitive: false, synonyms: [], configType: 0, documentation: null })
        if (r.resourceType === BROKER) {
          if (r.resourceName !== '' && r.resourceName !== String(ctx.brokerId)) return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Broker ${ctx.brokerId} describes its own configs, not broker ${r.resourceName}'s` }
          configs.push(entry('num.partitions', String(defaultPartitions), STATIC_BROKER_CONFIG), entry('default.replication.factor', '1', STATIC_BROKER_CONFIG))
        } else if (r.resourceType === TOPIC) {
          const topic = ctx.state.topic(r.resourceName)
          if (topic === undefined) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${r.resourceName} does not exist` }
          for (const [name, value] of topic.configs) configs.push(entry(name, value, DYNAMIC_TOPIC_CONFIG))
          for (const [name, value] of Object.entries(TOPIC_DEFAULTS)) if (!topic.configs.has(name)) configs.push(entry(name, value, DEFAULT_CONFIG))
        } else {
          return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The fake broker describes topic and broker configs only' }
        }
        const keys = r.configurationKeys
        return { ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs: keys === null || keys === undefined ? configs : configs.filter(c => keys.includes(c.name)) }
      })
    }),
    errorResponse: (_ctx, request, errorCode) => ({
      throttleTimeMs: 0,
      results: request.resources.map(r => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] }))
    })
  })
}

/**
 * CreateTopics: v2–v7. Any broker accepts it (as a KRaft broker forwards it to the
 * controller).
 *
 * numPartitions -1 takes the cluster's `defaultPartitions`; replicationFactor -1 takes 1
 * (Kafka's default.replication.factor), from v4 on: below v4 (Kafka before 2.4, KIP-464)
 * they are refused, INVALID_PARTITIONS and INVALID_REPLICATION_FACTOR, as Kafka did.
 * An explicit assignment gives each partition's replicas, the leader first. Refusals:
 * TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS,
 * INVALID_REPLICATION_FACTOR, INVALID_REPLICA_ASSIGNMENT. Configs are stored, not
 * interpreted.
 *
 * Version notes:
 * - v1: validateOnly (checks, creates nothing)
 * - v4: numPartitions and replicationFactor may be -1, the broker's defaults
 * - v5: numPartitions, replicationFactor and configs (as given) in the response
 * - v7: topicId in the response
 */
import { CreateTopics, type CreatableTopicResult, type CreateTopicsRequest, type CreateTopicsResponse } from '../../protocol/apis/create-topics'
import { ErrorCode } from '../error-codes'
import { ZERO_UUID, type NewTopicSpec } from '../state'
import { defineHandler } from './handler'

export function createTopicsHandler (defaultPartitions: number) {
  return defineHandler<CreateTopicsRequest, CreateTopicsResponse>({
    api: CreateTopics,
    handle: (ctx, request) => ({
      throttleTimeMs: 0,
      topics: request.topics.map(t => {
        const spec: NewTopicSpec = {
          name: t.name,
          partitions: t.numPartitions === undefined || t.numPartitions === -1 ? defaultPartitions : t.numPartitions,
          replicationFactor: t.replicationFactor === undefined || t.replicationFactor === -1 ? 1 : t.replicationFactor,
          configs: Object.fromEntries((t.configs ?? []).map(c => [c.name, c.value]))
        }
        if (t.assignments !== undefined && t.assignments.length > 0) {
          spec.assignments = [...t.assignments].sort((a, b) => a.partitionIndex - b.partitionIndex).map(a => a.brokerIds)
        }
        if (ctx.version < 4 && t.numPartitions === -1 && (t.assignments ?? []).length === 0) return failed(t.name, ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.')
        if (ctx.version < 4 && t.replicationFactor === -1 && (t.assignments ?? []).length === 0) return failed(t.name, ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.')
        const problem = ctx.state.validateTopic(spec)
        if (problem !== undefined) return failed(t.name, problem.errorCode, problem.message)
        if (request.validateOnly === true) return result(t.name, ZERO_UUID, spec)
        const topic = ctx.state.createTopic(spec)
        return result(t.name, topic.topicId, { ...spec, partitions: topic.partitions.length, replicationFactor: topic.replicationFactor })
      })
    }),
    errorResponse: (_ctx, request, errorCode) => ({ throttleTimeMs: 0, topics: request.topics.map(t => failed(t.name, errorCode, null)) })
  })
}

function result (name: string, topicId: string, spec: NewTopicSpec): CreatableTopicResult {
  return {
    name,
    topicId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topicConfigErrorCode: ErrorCode.NONE,
    numPartitions: spec.assignments?.length ?? spec.partitions,
    replicationFactor: spec.assignments?.[0].length ?? spec.replicationFactor ?? 1,
    configs: Object.entries(spec.configs ?? {}).map(([configName, value]) => ({ name: configName, value, readOnly: false, configSource: 1 /* DYNAMIC_TOPIC_CONFIG */, isSensitive: false }))
  }
}

function failed (name: string, errorCode: number, errorMessage: string | null): CreatableTopicResult {
  return { name, topicId: ZERO_UUID, errorCode, errorMessage, topicConfigErrorCode: ErrorCode.NONE, numPartitions: -1, replicationFactor: -1, configs: [] }
}

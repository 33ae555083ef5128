/**
 * Metadata: v0–v13.
 *
 * Answers with every broker, controllerId = the first broker, and for each topic asked
 * for its topicId and every partition's leader, leader epoch, replicas and ISR (all
 * replicas are in sync). Unknown topics: UNKNOWN_TOPIC_OR_PARTITION by name,
 * UNKNOWN_TOPIC_ID by id. Auto-creation happens only when the cluster was started with
 * `autoCreateTopics` and the request allows it.
 *
 * Version notes:
 * - v0: an empty topic list means all topics; v1+: null means all, empty means none
 * - v7: leaderEpoch
 * - v10+: topics may be asked for by topicId (name null) — honoured from v10 here,
 *   Kafka honours it from v12
 * - v13: top-level errorCode, always 0 here
 * - authorized operations: not implemented (the "not asked" value)
 */
import { Metadata, type MetadataPartition, type MetadataRequest, type MetadataResponse, type MetadataTopic } from '../../protocol/apis/metadata'
import { ErrorCode } from '../error-codes'
import { ZERO_UUID, type ClusterState, type TopicState } from '../state'
import { defineHandler, type HandlerContext } from './handler'

export interface MetadataOptions {
  /** Create unknown topics asked for by name when the request allows it. */
  autoCreateTopics: boolean
  /** Partitions of an auto-created topic. */
  defaultPartitions: number
}

export function metadataHandler (options: MetadataOptions) {
  return defineHandler<MetadataRequest, MetadataResponse>({
    api: Metadata,
    handle: (ctx, request) => {
      const topics: MetadataTopic[] = []
      const all = request.topics === null || (ctx.version === 0 && request.topics.length === 0)
      if (all) {
        for (const topic of ctx.state.topics) topics.push(describeTopic(topic))
      } else {
        for (const asked of request.topics ?? []) topics.push(lookUp(ctx, request, asked, options))
      }
      return body(ctx.state, topics)
    },
    errorResponse: (ctx, request, errorCode) => {
      const names = request.topics === null || request.topics.length === 0
        ? ctx.state.topics.map(t => ({ name: t.name, topicId: t.topicId }))
        : request.topics.map(t => ({ name: t.name, topicId: t.topicId ?? ZERO_UUID }))
      return body(ctx.state, names.map(t => ({ errorCode, name: t.name, topicId: t.topicId, isInternal: false, partitions: [], topicAuthorizedOperations: -2147483648 })))
    }
  })
}

function lookUp (ctx: HandlerContext, request: MetadataRequest, asked: { name: string | null, topicId?: string }, options: MetadataOptions): MetadataTopic {
  const { state, version } = ctx
  if (version >= 10 && asked.name === null && asked.topicId !== undefined && asked.topicId !== ZERO_UUID) {
    const byId = state.topicById(asked.topicId)
    if (byId !== undefined) return describeTopic(byId)
    return missing(ErrorCode.UNKNOWN_TOPIC_ID, null, asked.topicId)
  }
  const name = asked.name ?? ''
  let topic = state.topic(name)
  if (topic === undefined && options.autoCreateTopics && (request.allowAutoTopicCreation ?? true) && state.validateTopic({ name, partitions: options.defaultPartitions }) === undefined) {
    topic = state.createTopic({ name, partitions: options.defaultPartitions })
  }
  if (topic === undefined) return missing(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, ZERO_UUID)
  return describeTopic(topic)
}

function missing (errorCode: number, name: string | null, topicId: string): MetadataTopic {
  return { errorCode, name, topicId, isInternal: false, partitions: [], topicAuthorizedOperations: -2147483648 }
}

function describeTopic (topic: TopicState): MetadataTopic {
  const partitions: MetadataPartition[] = topic.partitions.map(p => ({
    errorCode: ErrorCode.NONE,
    partitionIndex: p.index,
    leaderId: p.leader,
    leaderEpoch: p.leaderEpoch,
    replicaNodes: [...p.replicas],
    isrNodes: [...p.replicas],
    offlineReplicas: []
  }))
  return { errorCode: ErrorCode.NONE, name: topic.name, topicId: topic.topicId, isInternal: false, partitions, topicAuthorizedOperations: -2147483648 }
}

function body (state: ClusterState, topics: MetadataTopic[]): MetadataResponse {
  return {
    throttleTimeMs: 0,
    brokers: state.brokers.map(b => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
    clusterId: state.clusterId,
    controllerId: state.controllerId,
    topics,
    clusterAuthorizedOperations: -2147483648,
    errorCode: ErrorCode.NONE
  }
}

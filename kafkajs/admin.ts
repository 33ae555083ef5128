/**
 * kafkajs's admin client on kafkats's `client.admin` (admin/): kafkajs's argument checks
 * and messages, its result shapes (string offsets, numeric enums), its errors.
 */
import type { Client } from '../index'
import type { AclBinding, AclFilter, ConfigResourceType as NativeConfigType } from '../admin/index'
import { throwFirstError } from '../admin/results'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { OffsetCommit } from '../protocol/apis/offset-commit'
import { JoinGroup, type JoinGroupRequest } from '../protocol/apis/join-group'
import { LeaveGroup } from '../protocol/apis/leave-group'
import { AssignerProtocol } from './assigners'
import '../index'
import {
  KafkaJSAggregateError, KafkaJSAlterPartitionReassignmentsError, KafkaJSBrokerNotFound, KafkaJSCreateTopicError, KafkaJSDeleteGroupsError, KafkaJSDeleteTopicRecordsError,
  KafkaJSNonRetriableError, KafkaJSProtocolError, protocolErrorInfo, toKafkaJSError
} from './errors'
import { adminEvents, Instrumentation, type AdminEventPayloads } from './instrumentation'
import type { AdminEventMap, RemoveInstrumentationEventListener } from './types'
import { retryDelay, type ClientContext } from './config'
import type { Logger } from './logger'
import { partitionMetadataOf } from './producer'
import type { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from './constants'
import type {
  AdminConfig, ConsumerGroupState, ListPartitionReassignmentsResponse, DeleteAclResponse, DescribeAclResource, DescribeAclResponse, DescribeConfigResponse, GroupDescriptions, ITopicMetadata
} from './types'
import { internal } from '../client/internal'

const ACL_RESOURCE_NAMES: Record<number, string> = { 1: 'any', 2: 'topic', 3: 'group', 4: 'cluster', 5: 'transactional-id', 6: 'delegation-token' }
const ACL_OPERATION_NAMES: Record<number, string> = { 1: 'any', 2: 'all', 3: 'read', 4: 'write', 5: 'create', 6: 'delete', 7: 'alter', 8: 'describe', 9: 'cluster-action', 10: 'describe-configs', 11: 'alter-configs', 12: 'idempotent-write' }
const ACL_PERMISSION_NAMES: Record<number, string> = { 1: 'any', 2: 'deny', 3: 'allow' }
const PATTERN_NAMES: Record<number, string> = { 1: 'any', 2: 'match', 3: 'literal', 4: 'prefixed' }
const CONFIG_TYPE_NAMES: Record<number, NativeConfigType> = { 2: 'topic', 4: 'broker', 8: 'broker-logger' }

const RETRIABLE_COORDINATOR_CODES = new Set<number>([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR])

const codeOf = (names: Record<number, string>, name: string): number => Number(Object.keys(names).find(k => names[Number(k)] === name) ?? 0)

// Every code kafkajs's enums have (UNKNOWN 0 included), for its argument checks.
const ACL_RESOURCE_CODES: Record<number, true> = { 0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true }
const ACL_OPERATION_CODES: Record<number, true> = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [i, true]))
const ACL_PERMISSION_CODES: Record<number, true> = { 0: true, 1: true, 2: true, 3: true }
const PATTERN_CODES: Record<number, true> = { 0: true, 1: true, 2: true, 3: true, 4: true }
const CONFIG_TYPE_CODES: Record<number, true> = { 0: true, 2: true, 4: true, 8: true }

function checkConfigResources (resources: Array<{ type: number, name: string }>): void {
  const invalidType = resources.find(r => !(r.type in CONFIG_TYPE_CODES))
  if (invalidType !== undefined) throw new KafkaJSNonRetriableError(`Invalid resource type ${invalidType.type}: ${JSON.stringify(invalidType)}`)
  const invalidName = resources.find(r => typeof r.name !== 'string' || r.name === '')
  if (invalidName !== undefined) throw new KafkaJSNonRetriableError(`Invalid resource name ${String(invalidName.name)}: ${JSON.stringify(invalidName)}`)
}

function checkTopicList (topics: Array<{ topic: string }> | null | undefined): asserts topics is Array<{ topic: string }> {
  if (topics === undefined || topics === null || !Array.isArray(topics)) throw new KafkaJSNonRetriableError(`Invalid topics array ${String(topics)}`)
  if (topics.some(({ topic }) => typeof topic !== 'string')) throw new KafkaJSNonRetriableError('Invalid topics array, the topic names have to be a valid string')
  if (new Set(topics.map(t => t.topic)).size < topics.length) throw new KafkaJSNonRetriableError('Invalid topics array, it cannot have multiple entries for the same topic')
}

/** kafkajs's checks of ACL codes in createAcls and deleteAcls, in its order. */
function checkAclCodes (items: Array<{ operation: number, resourcePatternType: number, permissionType: number, resourceType: number }>): void {
  let invalid = items.find(i => !(i.operation in ACL_OPERATION_CODES))
  if (invalid !== undefined) throw new KafkaJSNonRetriableError(`Invalid operation type ${invalid.operation}: ${JSON.stringify(invalid)}`)
  invalid = items.find(i => !(i.resourcePatternType in PATTERN_CODES))
  if (invalid !== undefined) throw new KafkaJSNonRetriableError(`Invalid resource pattern type ${invalid.resourcePatternType}: ${JSON.stringify(invalid)}`)
  invalid = items.find(i => !(i.permissionType in ACL_PERMISSION_CODES))
  if (invalid !== undefined) throw new KafkaJSNonRetriableError(`Invalid permission type ${invalid.permissionType}: ${JSON.stringify(invalid)}`)
  invalid = items.find(i => !(i.resourceType in ACL_RESOURCE_CODES))
  if (invalid !== undefined) throw new KafkaJSNonRetriableError(`Invalid resource type ${invalid.resourceType}: ${JSON.stringify(invalid)}`)
}

function protocolError (error: BrokerError): KafkaJSProtocolError {
  const e = new KafkaJSProtocolError(protocolErrorInfo(error.code))
  e.cause = error
  return e
}

/** The first error of a per-item result list, kafkajs style. */
function throwItemErrors (items: Array<{ error?: BrokerError }>): void {
  const errors = items.filter(i => i.error !== undefined).map(i => protocolError(i.error!))
  if (errors.length === 1) throw errors[0]
  if (errors.length > 1) throw new KafkaJSAggregateError('Errors', errors)
}

/**
 * Makes a KafkaJSAdmin (kafka.admin()). Its constructor is private, so applications, which take it
 * from a Kafka instance as with kafkajs, see no constructor and no internal context type;
 * the class's static block sets this function.
 */
export let createAdmin: (context: ClientContext, config: AdminConfig) => KafkaJSAdmin

export class KafkaJSAdmin {
  readonly events = adminEvents
  readonly #context: ClientContext
  readonly #logger: Logger
  readonly #instrumentation = new Instrumentation<AdminEventPayloads, AdminEventMap>('admin', adminEvents)
  #client: Client | undefined

  static {
    createAdmin = (context, config) => new KafkaJSAdmin(context, config)
  }

  private constructor (context: ClientContext, _config: AdminConfig = {}) {
    this.#context = context
    this.#logger = context.logger.namespace('Admin')
  }

  logger (): Logger {
    return this.#logger
  }

  on<E extends keyof AdminEventMap & string> (eventName: E, listener: (event: AdminEventMap[E]) => void): RemoveInstrumentationEventListener<E> {
    return this.#instrumentation.on(eventName, listener)
  }

  async connect (): Promise<void> {
    if (this.#client !== undefined) return
    this.#client = await this.#context.connect('Admin', { onRequest: event => { this.#instrumentation.network('admin', event) } })
    this.#instrumentation.emit(adminEvents.CONNECT, null)
  }

  async disconnect (): Promise<void> {
    const client = this.#client
    this.#client = undefined
    if (client === undefined) return
    await client.close()
    this.#instrumentation.emit(adminEvents.DISCONNECT, null)
  }

  async #call<T> (body: (client: Client) => Promise<T>): Promise<T> {
    if (this.#client === undefined) await this.connect()
    try {
      return await body(this.#client!)
    } catch (error) {
      throw toKafkaJSError(error)
    }
  }

  // ---------------------------------------------------------------- topics

  async listTopics (): Promise<string[]> {
    return await this.#call(async c => await c.admin.listTopics())
  }

  async createTopics ({ topics, validateOnly, timeout, waitForLeaders = true }: { topics: Array<{ topic: string, numPartitions?: number, replicationFactor?: number, replicaAssignment?: Array<{ partition: number, replicas: number[] }>, configEntries?: Array<{ name: string, value: string }> }>, validateOnly?: boolean, timeout?: number, waitForLeaders?: boolean }): Promise<boolean> {
    if (topics === undefined || topics === null || !Array.isArray(topics)) throw new KafkaJSNonRetriableError(`Invalid topics array ${String(topics)}`)
    if (topics.some(({ topic }) => typeof topic !== 'string')) throw new KafkaJSNonRetriableError('Invalid topics array, the topic names have to be a valid string')
    if (new Set(topics.map(t => t.topic)).size < topics.length) throw new KafkaJSNonRetriableError('Invalid topics array, it cannot have multiple entries for the same topic')
    for (const { topic, configEntries } of topics) {
      if (configEntries === undefined || configEntries === null) continue
      if (!Array.isArray(configEntries)) throw new KafkaJSNonRetriableError(`Invalid configEntries for topic "${topic}", must be an array`)
      configEntries.forEach((entry, index) => {
        if (typeof entry !== 'object' || entry === null) throw new KafkaJSNonRetriableError(`Invalid configEntries for topic "${topic}". Entry ${index} must be an object`)
        for (const property of ['name', 'value'] as const) {
          if (typeof entry[property] !== 'string') throw new KafkaJSNonRetriableError(`Invalid configEntries for topic "${topic}". Entry ${index} must have a valid "${property}" property`)
        }
      })
    }
    return await this.#call(async c => {
      const results = await c.admin.createTopics(topics.map(t => {
          const assignments = t.replicaAssignment !== undefined && t.replicaAssignment.length > 0
            ? Object.fromEntries(t.replicaAssignment.map(a => [a.partition, a.replicas]))
            : undefined
          return {
            topic: t.topic,
            numPartitions: t.numPartitions,
            replicationFactor: t.replicationFactor,
            assignments,
            configs: Object.fromEntries((t.configEntries ?? []).map(e => [e.name, e.value]))
          }
        }), { validateOnly, ignoreExisting: true, timeoutMs: waitForLeaders ? timeout : undefined })
      // kafkajs: every topic's error in one KafkaJSAggregateError, by topic name, those that existed already among them
      // (kafkats asked the broker to leave them be); only existing topics is no error but `false`.
      if (results.some(r => r.error !== undefined)) {
        const errors = results
          .filter(r => r.error !== undefined || r.existed)
          .sort((a, b) => a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)
          .map(r => new KafkaJSCreateTopicError(protocolErrorInfo(r.error?.code ?? ErrorCode.TOPIC_ALREADY_EXISTS), r.topic))
        throw new KafkaJSAggregateError('Topic creation errors', errors)
      }
      return results.some(r => !r.existed)
    })
  }

  async deleteTopics ({ topics, timeout }: { topics: string[], timeout?: number }): Promise<void> {
    if (topics === undefined || topics === null || !Array.isArray(topics)) throw new KafkaJSNonRetriableError(`Invalid topics array ${String(topics)}`)
    if (topics.some(t => typeof t !== 'string')) throw new KafkaJSNonRetriableError('Invalid topics array, the names must be a valid string')
    await this.#call(async c => {
      try {
        throwFirstError(await c.admin.deleteTopics(topics, { timeoutMs: timeout }))
      } catch (error) {
        if (error instanceof BrokerError) throw protocolError(error)
        throw error
      }
    })
  }

  /** kafkajs declares `Promise<boolean>` but resolves undefined; so does this. */
  async createPartitions ({ topicPartitions, validateOnly, timeout }: { topicPartitions: Array<{ topic: string, count: number, assignments?: number[][] }>, validateOnly?: boolean, timeout?: number }): Promise<boolean> {
    if (topicPartitions === undefined || topicPartitions === null || !Array.isArray(topicPartitions)) throw new KafkaJSNonRetriableError(`Invalid topic partitions array ${String(topicPartitions)}`)
    if (topicPartitions.length === 0) throw new KafkaJSNonRetriableError('Empty topic partitions array')
    if (topicPartitions.some(({ topic }) => typeof topic !== 'string')) throw new KafkaJSNonRetriableError('Invalid topic partitions array, the topic names have to be a valid string')
    if (new Set(topicPartitions.map(t => t.topic)).size < topicPartitions.length) throw new KafkaJSNonRetriableError('Invalid topic partitions array, it cannot have multiple entries for the same topic')
    return await this.#call(async c => {
      try {
        throwFirstError(await c.admin.createPartitions(topicPartitions.map(t => ({ topic: t.topic, count: t.count, assignments: t.assignments })), { validateOnly, timeoutMs: timeout }))
      } catch (error) {
        if (error instanceof BrokerError) throw protocolError(error)
        throw error
      }
      return undefined as unknown as boolean
    })
  }

  async fetchTopicMetadata ({ topics = [] }: { topics?: string[] } = {}): Promise<{ topics: ITopicMetadata[] }> {
    if (topics !== undefined && topics !== null) {
      for (const topic of topics) if (typeof topic !== 'string') throw new KafkaJSNonRetriableError(`Invalid topic ${String(topic)}`)
    }
    return await this.#call(async c => {
      const names = topics.length > 0 ? topics : await c.admin.listTopics()
      const described = throwFirstError(await c.admin.describeTopics(names))
      return { topics: described.map(t => ({ name: t.name, partitions: partitionMetadataOf(c, t.name) })) }
    })
  }

  async fetchTopicOffsets (topic: string): Promise<Array<{ partition: number, offset: string, high: string, low: string }>> {
    if (topic === undefined || topic === null || typeof topic !== 'string') throw new KafkaJSNonRetriableError(`Invalid topic ${String(topic)}`)
    return await this.#call(async c => {
      const meta = await c.metadata.waitForTopic(topic, c.requestTimeoutMs)
      const partitions = meta.partitions.map(p => p.partition)
      const [low, high] = await Promise.all([
        c.admin.listOffsets(partitions.map(partition => ({ topic, partition, spec: 'earliest' as const }))),
        c.admin.listOffsets(partitions.map(partition => ({ topic, partition, spec: 'latest' as const })))
      ])
      throwItemErrors([...low, ...high])
      return partitions.map(partition => {
        const h = String(high.find(o => o.partition === partition)?.offset ?? -1n)
        return { partition, offset: h, high: h, low: String(low.find(o => o.partition === partition)?.offset ?? -1n) }
      })
    })
  }

  async fetchTopicOffsetsByTimestamp (topic: string, timestamp?: number): Promise<Array<{ partition: number, offset: string }>> {
    if (topic === undefined || topic === null || typeof topic !== 'string') throw new KafkaJSNonRetriableError(`Invalid topic ${String(topic)}`)
    return await this.#call(async c => {
      const meta = await c.metadata.waitForTopic(topic, c.requestTimeoutMs)
      const partitions = meta.partitions.map(p => p.partition)
      const spec = timestamp === undefined ? 'latest' as const : { timestamp }
      const [found, high] = await Promise.all([
        c.admin.listOffsets(partitions.map(partition => ({ topic, partition, spec }))),
        c.admin.listOffsets(partitions.map(partition => ({ topic, partition, spec: 'latest' as const })))
      ])
      throwItemErrors([...found, ...high])
      // kafkajs: no record at or after the timestamp means the end of the log.
      return partitions.map(partition => {
        const offset = found.find(o => o.partition === partition)?.offset ?? -1n
        return { partition, offset: String(offset >= 0n ? offset : high.find(o => o.partition === partition)?.offset ?? -1n) }
      })
    })
  }

  async deleteTopicRecords ({ topic, partitions }: { topic: string, partitions: Array<{ partition: number, offset: string }> }): Promise<void> {
    if (topic === undefined || topic === null || typeof topic !== 'string') throw new KafkaJSNonRetriableError(`Invalid topic "${String(topic)}"`)
    if (partitions === undefined || partitions === null || !Array.isArray(partitions) || partitions.length === 0) throw new KafkaJSNonRetriableError('Invalid partitions')
    await this.#call(async c => {
      const meta = await c.metadata.waitForTopic(topic, c.requestTimeoutMs)
      const unknown = partitions.filter(p => meta.partitions[p.partition] === undefined)
      if (unknown.length > 0) {
        // Before anything is deleted, as kafkajs: a partition without a leader fails the whole call.
        throw new KafkaJSDeleteTopicRecordsError({ topic, partitions: unknown.map(p => ({ partition: p.partition, offset: p.offset, error: new KafkaJSBrokerNotFound('Could not find the leader for the partition', { retriable: false }) })) })
      }
      const low = await c.admin.listOffsets(partitions.map(p => ({ topic, partition: p.partition, spec: 'earliest' as const })))
      const wanted = partitions.map(p => {
        const offset = BigInt(p.offset)
        const earliest = low.find(o => o.partition === p.partition)?.offset ?? 0n
        if (offset !== -1n && offset < earliest) {
          this.#logger.warn('The requested offset is before the earliest offset maintained on the partition - no records will be deleted from this partition', { topic, partition: p.partition, offset: p.offset })
        }
        return { topic, partition: p.partition, before: offset === -1n ? 'latest' as const : offset }
      })
      const results = await c.admin.deleteRecords(wanted)
      const failed = results.filter(r => r.error !== undefined)
      if (failed.length > 0) {
        const error = new KafkaJSDeleteTopicRecordsError({ topic, partitions: failed.map(r => ({ partition: r.partition, offset: String(wanted.find(w => w.partition === r.partition)?.before ?? ''), error: protocolError(r.error!) })) })
        throw new KafkaJSNonRetriableError(error, { cause: error })
      }
    })
  }

  async alterPartitionReassignments ({ topics, timeout }: { topics: Array<{ topic: string, partitionAssignment: Array<{ partition: number, replicas: number[] }> }>, timeout?: number }): Promise<void> {
    checkTopicList(topics)
    for (const { topic, partitionAssignment } of topics) {
      if (partitionAssignment === undefined || partitionAssignment === null || !Array.isArray(partitionAssignment)) throw new KafkaJSNonRetriableError(`Invalid partitions array: ${String(partitionAssignment)} for topic: ${topic}`)
      for (const { partition, replicas } of partitionAssignment) {
        if (partition === null || partition === undefined || typeof partition !== 'number' || partition < 0) throw new KafkaJSNonRetriableError(`Invalid partitions index: ${String(partition)} for topic: ${topic}`)
        if (replicas === undefined || replicas === null || !Array.isArray(replicas)) throw new KafkaJSNonRetriableError(`Invalid replica assignment: ${String(replicas)} for topic: ${topic} on partition: ${partition}`)
        if (replicas.some(r => typeof r !== 'number' || r < 0)) throw new KafkaJSNonRetriableError(`Invalid replica assignment: ${String(replicas)} for topic: ${topic} on partition: ${partition}. Replicas must be a non negative number`)
      }
    }
    await this.#call(async c => {
      const results = await c.admin.alterPartitionReassignments(topics.flatMap(t => t.partitionAssignment.map(a => ({ topic: t.topic, partition: a.partition, replicas: a.replicas }))), { timeoutMs: timeout })
      const errors = results.filter(r => r.error !== undefined).map(r => new KafkaJSAlterPartitionReassignmentsError(protocolErrorInfo(r.error!.code), r.topic, r.partition))
      if (errors.length > 0) throw new KafkaJSAggregateError('Errors altering partition reassignments', errors)
    })
  }

  async listPartitionReassignments ({ topics = null, timeout }: { topics?: Array<{ topic: string, partitions: number[] }> | null, timeout?: number } = {}): Promise<ListPartitionReassignmentsResponse> {
    if (topics !== null && topics !== undefined) {
      checkTopicList(topics)
      for (const { topic, partitions } of topics) {
        if (partitions === undefined || partitions === null || !Array.isArray(partitions)) throw new KafkaJSNonRetriableError(`Invalid partition array: ${String(partitions)} for topic: ${topic}`)
        if (partitions.some(p => typeof p !== 'number' || p < 0)) throw new KafkaJSNonRetriableError(`Invalid partition array: ${String(partitions)} for topic: ${topic}. The partition indices have to be a valid number greater than 0.`)
      }
    }
    return await this.#call(async c => {
      const partitions = topics === null || topics === undefined ? undefined : topics.flatMap(t => t.partitions.map(partition => ({ topic: t.topic, partition })))
      const ongoing = await c.admin.listPartitionReassignments({ partitions, timeoutMs: timeout })
      const byTopic = new Map<string, Array<{ partition: number, replicas: number[], addingReplicas: number[], removingReplicas: number[] }>>()
      for (const r of ongoing) {
        const list = byTopic.get(r.topic) ?? []
        list.push({ partition: r.partition, replicas: r.replicas, addingReplicas: r.addingReplicas, removingReplicas: r.removingReplicas })
        byTopic.set(r.topic, list)
      }
      // kafkajs's run time names a partition `partition` (its types say partitionIndex).
      return { topics: [...byTopic].map(([topic, ps]) => ({ topic, partitions: ps })) } as unknown as ListPartitionReassignmentsResponse
    })
  }

  // ---------------------------------------------------------------- cluster and configs

  async describeCluster (): Promise<{ brokers: Array<{ nodeId: number, host: string, port: number }>, controller: number | null, clusterId: string }> {
    return await this.#call(async c => {
      const d = await c.admin.describeCluster()
      return { brokers: d.brokers.map(b => ({ nodeId: b.nodeId, host: b.host, port: b.port })), controller: d.controllerId, clusterId: d.clusterId }
    })
  }

  async describeConfigs ({ resources, includeSynonyms = false }: { resources: Array<{ type: number, name: string, configNames?: string[] }>, includeSynonyms?: boolean }): Promise<DescribeConfigResponse> {
    if (resources === undefined || resources === null || !Array.isArray(resources)) throw new KafkaJSNonRetriableError(`Invalid resources array ${String(resources)}`)
    if (resources.length === 0) throw new KafkaJSNonRetriableError('Resources array cannot be empty')
    checkConfigResources(resources)
    const invalidConfigs = resources.find(r => !Array.isArray(r.configNames) && r.configNames !== undefined && r.configNames !== null)
    if (invalidConfigs !== undefined) throw new KafkaJSNonRetriableError(`Invalid resource configNames ${String(invalidConfigs.configNames)}: ${JSON.stringify(invalidConfigs)}`)
    return await this.#call(async c => {
      const answers = throwFirstError(await c.admin.describeConfigs(resources.map(r => ({ type: CONFIG_TYPE_NAMES[r.type], name: r.name, keys: r.configNames !== undefined && r.configNames.length > 0 ? r.configNames : undefined })), { includeSynonyms }))
      const described = resources.map((r, i) => {
        const configs = answers[i].configs
        return {
          errorCode: 0,
          errorMessage: '',
          resourceType: r.type,
          resourceName: r.name,
          configEntries: [...configs.values()].map(e => ({
            configName: e.name,
            configValue: e.value,
            readOnly: e.readOnly,
            isDefault: e.isDefault,
            configSource: e.source,
            isSensitive: e.isSensitive,
            configSynonyms: (e.synonyms ?? []).map(s => ({ configName: s.name, configValue: s.value, configSource: codeOf({ 1: 'dynamic-topic', 2: 'dynamic-broker', 3: 'dynamic-default-broker', 4: 'static-broker', 5: 'default', 6: 'dynamic-broker-logger' }, s.source) }))
          }))
        }
      })
      // kafkajs answers with the resources only (its types declare a throttleTime too); a sensitive value is null in both.
      return { resources: described } as unknown as DescribeConfigResponse
    })
  }

  /** kafkajs's alterConfigs sets the given values; kafkats sets them incrementally (others stay as they are). */
  async alterConfigs ({ resources, validateOnly }: { resources: Array<{ type: number, name: string, configEntries: Array<{ name: string, value: string }> }>, validateOnly?: boolean }): Promise<{ resources: Array<{ errorCode: number, errorMessage: string | null, resourceType: number, resourceName: string }>, throttleTime: number }> {
    if (resources === undefined || resources === null || !Array.isArray(resources)) throw new KafkaJSNonRetriableError(`Invalid resources array ${String(resources)}`)
    if (resources.length === 0) throw new KafkaJSNonRetriableError('Resources array cannot be empty')
    checkConfigResources(resources)
    const invalidConfigs = resources.find(r => !Array.isArray(r.configEntries))
    if (invalidConfigs !== undefined) throw new KafkaJSNonRetriableError(`Invalid resource configEntries ${String(invalidConfigs.configEntries)}: ${JSON.stringify(invalidConfigs)}`)
    const invalidValue = resources.find(r => r.configEntries.some(e => typeof e.name !== 'string' || typeof e.value !== 'string'))
    if (invalidValue !== undefined) throw new KafkaJSNonRetriableError(`Invalid resource config value: ${JSON.stringify(invalidValue)}`)
    return await this.#call(async c => {
      throwFirstError(await c.admin.alterConfigs(resources.map(r => ({ type: CONFIG_TYPE_NAMES[r.type], name: r.name, set: Object.fromEntries(r.configEntries.map(e => [e.name, e.value])) })), { validateOnly }))
      return { resources: resources.map(r => ({ errorCode: 0, errorMessage: null, resourceType: r.type, resourceName: r.name })), throttleTime: 0 }
    })
  }

  // ---------------------------------------------------------------- groups and offsets

  async listGroups (): Promise<{ groups: Array<{ groupId: string, protocolType: string }> }> {
    return await this.#call(async c => ({ groups: (await c.admin.listGroups()).map(g => ({ groupId: g.groupId, protocolType: g.protocolType })) }))
  }

  async describeGroups (groupIds: string[]): Promise<GroupDescriptions> {
    return await this.#call(async c => {
      const described = await c.admin.describeGroups(groupIds)
      return {
        groups: described.map(g => ({
          // DescribeGroups v6 says GROUP_ID_NOT_FOUND for an unknown group; the versions kafkajs speaks answer a Dead group without error.
          errorCode: g.error?.code === ErrorCode.GROUP_ID_NOT_FOUND && g.state === 'Dead' ? 0 : g.error?.code ?? 0,
          groupId: g.groupId,
          state: g.state as ConsumerGroupState,
          protocolType: g.protocolType ?? 'consumer',
          protocol: g.protocol ?? g.assignor ?? '',
          members: g.members.map(m => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, memberMetadata: Buffer.alloc(0), memberAssignment: Buffer.alloc(0) }))
        }))
      }
    })
  }

  async deleteGroups (groupIds: string[]): Promise<Array<{ groupId: string, errorCode: number, error?: KafkaJSProtocolError }>> {
    if (groupIds === undefined || groupIds === null || !Array.isArray(groupIds)) throw new KafkaJSNonRetriableError(`Invalid groupIds array ${String(groupIds)}`)
    const invalid = groupIds.find(g => typeof g !== 'string')
    if (invalid !== undefined) throw new KafkaJSNonRetriableError(`Invalid groupId name: ${JSON.stringify(invalid)}`)
    return await this.#call(async c => {
      const results = await c.admin.deleteGroups(groupIds)
      const errors = results.filter(r => r.error !== undefined).map(r => ({ groupId: r.groupId, errorCode: r.error!.code, error: protocolError(r.error!) }))
      if (errors.length > 0) throw new KafkaJSDeleteGroupsError('Error in DeleteGroups', errors)
      return results.map(r => ({ groupId: r.groupId, errorCode: 0 }))
    })
  }

  async fetchOffsets ({ groupId, topics, resolveOffsets = false }: { groupId: string, topics?: string[], resolveOffsets?: boolean }): Promise<Array<{ topic: string, partitions: Array<{ partition: number, offset: string, metadata: string | null }> }>> {
    if (groupId === undefined || groupId === null || groupId === '') throw new KafkaJSNonRetriableError(`Invalid groupId ${String(groupId)}`)
    const wantedTopics = topics ?? []
    if (!Array.isArray(wantedTopics)) throw new KafkaJSNonRetriableError('Expected topics array to be set')
    return await this.#call(async c => {
      const partitions = (await Promise.all(wantedTopics.map(async topic => (await c.metadata.waitForTopic(topic, c.requestTimeoutMs)).partitions.map(p => ({ topic, partition: p.partition }))))).flat()
      const [answer] = await c.admin.fetchOffsets([wantedTopics.length > 0 ? { groupId, partitions } : groupId])
      if (answer.error !== undefined) throw protocolError(answer.error)
      const byTopic = new Map<string, Array<{ partition: number, offset: string, metadata: string | null }>>()
      for (const topic of wantedTopics) byTopic.set(topic, [])
      for (const o of answer.offsets) {
        const list = byTopic.get(o.topic) ?? []
        list.push({ partition: o.partition, offset: String(o.offset), metadata: o.metadata === '' ? null : o.metadata })
        byTopic.set(o.topic, list)
      }
      if (resolveOffsets) {
        // kafkajs: -1 (latest) and -2 (earliest), as resetOffsets commits them, become the topic's offsets and are committed.
        for (const [topic, list] of byTopic) {
          const unresolved = list.filter(p => p.offset === '-1' || p.offset === '-2')
          if (unresolved.length === 0) continue
          const offsets = await this.fetchTopicOffsets(topic)
          for (const p of unresolved) {
            const known = offsets.find(o => o.partition === p.partition)
            if (known !== undefined) p.offset = p.offset === '-1' ? known.high : known.low
          }
          await this.#commitOffsets(c, groupId, topic, unresolved.map(p => ({ partition: p.partition, offset: BigInt(p.offset) })))
        }
      }
      return [...byTopic].map(([topic, list]) => ({ topic, partitions: list.sort((a, b) => a.partition - b.partition) }))
    })
  }

  async setOffsets ({ groupId, topic, partitions }: { groupId: string, topic: string, partitions: Array<{ partition: number, offset: string }> }): Promise<void> {
    if (groupId === undefined || groupId === null || groupId === '') throw new KafkaJSNonRetriableError(`Invalid groupId ${String(groupId)}`)
    if (topic === undefined || topic === null || topic === '') throw new KafkaJSNonRetriableError(`Invalid topic ${String(topic)}`)
    if (partitions === undefined || partitions === null || partitions.length === 0) throw new KafkaJSNonRetriableError('Invalid partitions')
    await this.#call(async c => {
      const state = await this.#checkNotRunning(c, groupId)
      if (state === 'Dead') await this.#joinAndLeave(c, groupId, topic)
      // -1 and -2 are committed as they are (kafkajs's "latest" and "earliest"): a consumer finds no valid offset
      // and starts as its fromBeginning says; fetchOffsets({ resolveOffsets: true }) turns them into offsets.
      await this.#commitOffsets(c, groupId, topic, partitions.map(p => ({ partition: p.partition, offset: BigInt(p.offset) })))
    })
  }

  async resetOffsets ({ groupId, topic, earliest = false }: { groupId: string, topic: string, earliest?: boolean }): Promise<void> {
    if (groupId === undefined || groupId === null || groupId === '') throw new KafkaJSNonRetriableError(`Invalid groupId ${String(groupId)}`)
    if (topic === undefined || topic === null || topic === '') throw new KafkaJSNonRetriableError(`Invalid topic ${String(topic)}`)
    await this.#call(async c => {
      // kafkajs resets through setOffsets.
      if (await this.#checkNotRunning(c, groupId) === 'Dead') await this.#joinAndLeave(c, groupId, topic)
      const meta = await c.metadata.waitForTopic(topic, c.requestTimeoutMs)
      await this.#commitOffsets(c, groupId, topic, meta.partitions.map(p => ({ partition: p.partition, offset: earliest ? -2n : -1n })))
    })
  }

  /** OffsetCommit as an admin (no member), offsets taken as they are (kafkajs commits -1 and -2 too). */
  async #commitOffsets (c: Client, groupId: string, topic: string, partitions: Array<{ partition: number, offset: bigint }>): Promise<void> {
    const meta = await c.metadata.waitForTopic(topic, c.requestTimeoutMs)
    for (let attempt = 0; ; attempt++) {
      // The client's coordinator cache: a refused lookup is thrown as a BrokerError, which #call makes a KafkaJSProtocolError.
      const nodeId = await c[internal].coordinators.lookup('group', groupId)
      const response = await c.request(OffsetCommit, {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [{ name: topic, topicId: meta.topicId, partitions: partitions.map(p => ({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: -1, committedMetadata: null })) }]
      }, { nodeId })
      const code = response.topics.flatMap(t => t.partitions.map(p => p.errorCode)).find(e => e !== 0) ?? 0
      if (code === 0) return
      if (code !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) c[internal].coordinators.invalidate('group', groupId, nodeId)
      if (!RETRIABLE_COORDINATOR_CODES.has(code) || attempt >= 10) throw new KafkaJSProtocolError(protocolErrorInfo(code))
      await new Promise(resolve => setTimeout(resolve, retryDelay(this.#context.config.retry ?? {}, attempt)))
    }
  }

  /** The group's state, which must be Empty or Dead (no group yet). */
  async #checkNotRunning (c: Client, groupId: string): Promise<string> {
    const [description] = await c.admin.describeGroups([groupId])
    const state = description?.state ?? 'Dead'
    if (state !== 'Empty' && state !== 'Dead') throw new KafkaJSNonRetriableError(`The consumer group must have no running instances, current state: ${state}`)
    return state
  }

  /**
   * kafkajs's setOffsets runs a consumer of the group to commit, so a group it makes is a
   * consumer group (protocolType 'consumer', as describeGroups shows it); an admin's commit alone
   * would make a group of no protocol type. A group not there yet is joined as a consumer of the
   * topic and left before the commit (the broker keeps the protocol type of an emptied group).
   */
  async #joinAndLeave (c: Client, groupId: string, topic: string): Promise<void> {
    const nodeId = await c[internal].coordinators.lookup('group', groupId)
    const rebalanceTimeoutMs = 60_000
    const request = (memberId: string): JoinGroupRequest => ({
      groupId,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs,
      memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'RoundRobinAssigner', metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics: [topic] }) }],
      reason: 'kafkajs admin setOffsets'
    })
    let joined = await c.request(JoinGroup, request(''), { nodeId, timeoutMs: rebalanceTimeoutMs + 5000 })
    // KIP-394: the coordinator hands out the member id, then expects the join again.
    if (joined.errorCode === ErrorCode.MEMBER_ID_REQUIRED) joined = await c.request(JoinGroup, request(joined.memberId), { nodeId, timeoutMs: rebalanceTimeoutMs + 5000 })
    if (joined.errorCode !== 0) throw new KafkaJSProtocolError(protocolErrorInfo(joined.errorCode))
    const memberId = joined.memberId
    const left = await c.request(LeaveGroup, version => version >= 3 ? { groupId, members: [{ memberId, groupInstanceId: null, reason: 'kafkajs admin setOffsets' }] } : { groupId, memberId }, { nodeId })
    if (left.errorCode !== 0) throw new KafkaJSProtocolError(protocolErrorInfo(left.errorCode))
  }

  // ---------------------------------------------------------------- ACLs

  async describeAcls (filter: { resourceType: number, resourceName?: string | null, resourcePatternType: number, principal?: string | null, host?: string | null, operation: number, permissionType: number }): Promise<DescribeAclResponse> {
    this.#checkAclFilter(filter)
    return await this.#call(async c => {
      const bindings = await c.admin.describeAcls(this.#nativeFilter(filter))
      const byResource = new Map<string, DescribeAclResource>()
      for (const b of bindings) {
        const resourcePatternType = codeOf(PATTERN_NAMES, b.patternType ?? 'literal')
        const k = `${b.resourceType}\u0000${b.resourceName}\u0000${resourcePatternType}`
        let entry = byResource.get(k)
        if (entry === undefined) byResource.set(k, entry = { resourceType: codeOf(ACL_RESOURCE_NAMES, b.resourceType) as AclResourceTypes, resourceName: b.resourceName, resourcePatternType: resourcePatternType as ResourcePatternTypes, acls: [] })
        entry.acls.push({ principal: b.principal, host: b.host ?? '*', operation: codeOf(ACL_OPERATION_NAMES, b.operation) as AclOperationTypes, permissionType: codeOf(ACL_PERMISSION_NAMES, b.permission) as AclPermissionTypes })
      }
      // kafkajs passes the broker's null message on (its types say string | undefined).
      return { throttleTime: 0, errorCode: 0, errorMessage: null, resources: [...byResource.values()] } as unknown as DescribeAclResponse
    })
  }

  async createAcls ({ acl }: { acl: Array<{ resourceType: number, resourceName: string, resourcePatternType: number, principal: string, host: string, operation: number, permissionType: number }> }): Promise<boolean> {
    if (acl === undefined || acl === null || !Array.isArray(acl)) throw new KafkaJSNonRetriableError(`Invalid ACL array ${String(acl)}`)
    if (acl.length === 0) throw new KafkaJSNonRetriableError('Empty ACL array')
    if (acl.some(a => typeof a.principal !== 'string')) throw new KafkaJSNonRetriableError('Invalid ACL array, the principals have to be a valid string')
    if (acl.some(a => typeof a.host !== 'string')) throw new KafkaJSNonRetriableError('Invalid ACL array, the hosts have to be a valid string')
    if (acl.some(a => typeof a.resourceName !== 'string')) throw new KafkaJSNonRetriableError('Invalid ACL array, the resourceNames have to be a valid string')
    checkAclCodes(acl)
    return await this.#call(async c => {
      const results = await c.admin.createAcls(acl.map(a => ({
        resourceType: ACL_RESOURCE_NAMES[a.resourceType],
        resourceName: a.resourceName,
        patternType: PATTERN_NAMES[a.resourcePatternType],
        principal: a.principal,
        host: a.host,
        operation: ACL_OPERATION_NAMES[a.operation],
        permission: ACL_PERMISSION_NAMES[a.permissionType]
      }) as AclBinding))
      throwItemErrors(results)
      return true
    })
  }

  async deleteAcls ({ filters }: { filters: Array<Parameters<KafkaJSAdmin['describeAcls']>[0]> }): Promise<DeleteAclResponse> {
    if (filters === undefined || filters === null || !Array.isArray(filters)) throw new KafkaJSNonRetriableError(`Invalid ACL Filter array ${String(filters)}`)
    if (filters.length === 0) throw new KafkaJSNonRetriableError('Empty ACL Filter array')
    const notString = (v: unknown): boolean => typeof v !== 'string' && v !== undefined
    if (filters.some(f => notString(f.principal))) throw new KafkaJSNonRetriableError('Invalid ACL Filter array, the principals have to be a valid string')
    if (filters.some(f => notString(f.host))) throw new KafkaJSNonRetriableError('Invalid ACL Filter array, the hosts have to be a valid string')
    if (filters.some(f => notString(f.resourceName))) throw new KafkaJSNonRetriableError('Invalid ACL Filter array, the resourceNames have to be a valid string')
    checkAclCodes(filters)
    return await this.#call(async c => {
      const results = await c.admin.deleteAcls(filters.map(f => this.#nativeFilter(f)))
      // kafkajs answers with the filter responses only (its types declare a throttleTime too) and passes null messages on.
      return {
        filterResponses: results.map(r => ({
          errorCode: r.error?.code ?? 0,
          errorMessage: r.error?.message ?? null,
          matchingAcls: r.deleted.map(b => ({
            errorCode: 0,
            errorMessage: null,
            resourceType: codeOf(ACL_RESOURCE_NAMES, b.resourceType),
            resourceName: b.resourceName,
            resourcePatternType: codeOf(PATTERN_NAMES, b.patternType ?? 'literal'),
            principal: b.principal,
            host: b.host ?? '*',
            operation: codeOf(ACL_OPERATION_NAMES, b.operation),
            permissionType: codeOf(ACL_PERMISSION_NAMES, b.permission)
          }))
        }))
      } as unknown as DeleteAclResponse
    })
  }

  #checkAclFilter (f: { resourceType: number, resourceName?: string | null, resourcePatternType: number, principal?: string | null, host?: string | null, operation: number, permissionType: number }): void {
    if (typeof f.principal !== 'string' && f.principal !== undefined) throw new KafkaJSNonRetriableError('Invalid principal, the principal have to be a valid string')
    if (typeof f.host !== 'string' && f.host !== undefined) throw new KafkaJSNonRetriableError('Invalid host, the host have to be a valid string')
    if (typeof f.resourceName !== 'string' && f.resourceName !== undefined) throw new KafkaJSNonRetriableError('Invalid resourceName, the resourceName have to be a valid string')
    if (!(f.operation in ACL_OPERATION_CODES)) throw new KafkaJSNonRetriableError(`Invalid operation type ${f.operation}`)
    if (!(f.resourcePatternType in PATTERN_CODES)) throw new KafkaJSNonRetriableError(`Invalid resource pattern filter type ${f.resourcePatternType}`)
    if (!(f.permissionType in ACL_PERMISSION_CODES)) throw new KafkaJSNonRetriableError(`Invalid permission type ${f.permissionType}`)
    if (!(f.resourceType in ACL_RESOURCE_CODES)) throw new KafkaJSNonRetriableError(`Invalid resource type ${f.resourceType}`)
  }

  #nativeFilter (f: { resourceType: number, resourceName?: string | null, resourcePatternType: number, principal?: string | null, host?: string | null, operation: number, permissionType: number }): AclFilter {
    return {
      resourceType: ACL_RESOURCE_NAMES[f.resourceType] as AclFilter['resourceType'],
      resourceName: f.resourceName ?? null,
      patternType: PATTERN_NAMES[f.resourcePatternType] as AclFilter['patternType'],
      principal: f.principal ?? null,
      host: f.host ?? null,
      operation: ACL_OPERATION_NAMES[f.operation] as AclFilter['operation'],
      permission: ACL_PERMISSION_NAMES[f.permissionType] as AclFilter['permission']
    }
  }
}



/**
 * kafkajs's consumer on kafkats's GroupConsumer (classic protocol, kafkajs's assigners).
 *
 * kafkajs semantics kept: the fetch position of a partition is its last resolved offset, so
 * messages a handler did not resolve (an error, a pause or a seek inside the handler,
 * `eachBatchAutoResolve: false`) are delivered again; with `autoCommit` the resolved offsets
 * are committed after each fetch answer, which comes in parts past 2 MiB of messages (or per
 * `autoCommitInterval` / `autoCommitThreshold`);
 * errors in a handler are retried with kafkajs's retry schedule and then crash the consumer
 * (`consumer.crash`), which restarts unless `restartOnFailure` says no.
 *
 * What stays kafkats's: a commit carries only partitions this member holds under its current
 * membership, so a member that lost a partition can no longer move the new owner's offset
 * (kafkajs could commit behind the new owner's back after a rebalance).
 */
import { ErrorCode } from '../protocol/error-codes'
import type { Client } from '../index'
import { sleep } from '../client/backoff'
import type { ConsumerBatch } from '../consumer/cursor'
import { recordMakerOption, type FetchEvent, type HandedBatch, type WithRecordMaker } from '../consumer/consumer'
import type { GroupConsumer, GroupConsumerOptions, RebalancingEvent } from '../group/group-consumer'
import type { MemberIdentity, TopicPartition } from '../group/membership'
import { DescribeGroups } from '../protocol/apis/describe-groups'
import type { KafkaRecord, RecordBatch, RecordHeader, RecordMaker } from '../protocol/record-batch'
import '../index'
import { PartitionAssigners, toAssignor, type PartitionAssigner } from './assigners'
import { KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, toKafkaJSError, protocolErrorInfo, KafkaJSProtocolError } from './errors'
import { consumerEvents, Instrumentation, type ConsumerEventPayloads, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './instrumentation'
import { retryDelay, type ClientContext, type RetryOptions } from './kafka'
import type { Logger } from './logger'
import { partitionMetadataOf } from './producer'
import type { GroupDescription } from './admin'
import { internal } from '../client/internal'

export interface ConsumerConfig {
  groupId: string
  partitionAssigners?: PartitionAssigner[]
  metadataMaxAge?: number
  sessionTimeout?: number
  rebalanceTimeout?: number
  heartbeatInterval?: number
  maxBytesPerPartition?: number
  minBytes?: number
  maxBytes?: number
  maxWaitTimeInMs?: number
  retry?: RetryOptions & { restartOnFailure?: (err: Error) => Promise<boolean> }
  allowAutoTopicCreation?: boolean
  maxInFlightRequests?: number
  readUncommitted?: boolean
  rackId?: string
}

export interface KafkaMessage {
  /** Record batches (v2): what kafkats reads. */
  magicByte?: number
  key: Buffer | null
  value: Buffer | null
  timestamp: string
  attributes: number
  offset: string
  size?: number
  headers?: Record<string, Buffer | string | Array<Buffer | string> | undefined>
}

export interface Batch {
  topic: string
  partition: number
  highWatermark: string
  messages: KafkaMessage[]
  isEmpty: () => boolean
  firstOffset: () => string | null
  lastOffset: () => string
  offsetLag: () => string
  offsetLagLow: () => string
}

export interface TopicPartitionOffsetAndMetadata { topic: string, partition: number, offset: string, metadata?: string | null }
export interface PartitionOffset { partition: number, offset: string }
export interface TopicOffsets { topic: string, partitions: PartitionOffset[] }
export interface Offsets { topics: TopicOffsets[] }

export interface EachMessagePayload {
  topic: string
  partition: number
  message: KafkaMessage
  heartbeat: () => Promise<void>
  pause: () => () => void
}

export interface EachBatchPayload {
  batch: Batch
  resolveOffset: (offset: string) => void
  heartbeat: () => Promise<void>
  pause: () => () => void
  commitOffsetsIfNecessary: (offsets?: Offsets) => Promise<void>
  uncommittedOffsets: () => Offsets
  isRunning: () => boolean
  isStale: () => boolean
}

export interface ConsumerRunConfig {
  autoCommit?: boolean
  autoCommitInterval?: number | null
  autoCommitThreshold?: number | null
  eachBatchAutoResolve?: boolean
  partitionsConsumedConcurrently?: number
  eachBatch?: (payload: EachBatchPayload) => Promise<void>
  eachMessage?: (payload: EachMessagePayload) => Promise<void>
}

export interface ConsumerSubscribeTopic { topic: string | RegExp, fromBeginning?: boolean }
export interface ConsumerSubscribeTopics { topics: Array<string | RegExp>, fromBeginning?: boolean }

const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`
const HEARTBEAT_API_KEY = 12
/** A subscription pattern no topic name matches: run() without subscribe(). */
const NO_TOPIC = /(?!)/

/** A record's headers as kafkajs gives them: a fresh object per message, repeated keys as arrays. */
function headersOf (list: RecordHeader[]): Record<string, Buffer | Buffer[]> {
  const headers: Record<string, Buffer | Buffer[]> = {}
  for (let i = 0; i < list.length; i++) {
    const { key, value } = list[i]
    const v = value ?? Buffer.alloc(0)
    const known = headers[key]
    if (known === undefined) headers[key] = v
    else if (Array.isArray(known)) known.push(v)
    else headers[key] = [known, v]
  }
  return headers
}

/**
 * The `headers` of a message without headers: a fresh empty plain object per message, as
 * kafkajs's. Made by a constructor whose prototype is Object.prototype (so its prototype and
 * `constructor` are a literal's) because V8 then gives it no in-object slots: 24 bytes
 * instead of a `{}` literal's 56, with ~33,000 of them alive per 4 MiB batch.
 */
const EmptyHeaders = function (this: object) {} as unknown as new () => Record<string, Buffer | Buffer[]>
EmptyHeaders.prototype = Object.prototype

/** Offsets and timestamps this far from 0 take number arithmetic with an int32 or 27-bit delta exactly. */
const EXACT_BASE = 2 ** 53 - 2 ** 31

/**
 * Decodes records straight into kafkajs's messages (the consumer's RecordMaker): plain
 * objects with own enumerable fields, as kafkajs's are, and no KafkaRecord, offset bigint
 * or timestamp bigint per record besides. An offset string is the batch's base offset plus
 * the record's delta in number arithmetic (exact below 2^53 - 2^31, bigints beyond); records
 * of a batch mostly share a timestamp, so its string is made once per run of equal deltas
 * (converting a bigint to a string was half of what a message cost).
 */
export class KafkaMessageMaker implements RecordMaker<KafkaMessage> {
  #baseOffset = 0n
  /** The base offset as a number, NaN when number arithmetic would not be exact. */
  #baseOffsetNumber = 0
  #baseTimestamp = 0n
  #baseTimestampNumber = 0
  /** Log-append time: every record's timestamp is the batch's maxTimestamp. */
  #logAppendTimestamp: string | undefined
  #lastDelta: number | bigint = NaN
  #timestamp = ''
  // fromRecord's own run of equal timestamps.
  #lastTimestamp: bigint | undefined
  #recordTimestamp = ''

  startBatch (batch: RecordBatch): void {
    this.#baseOffset = batch.baseOffset
    this.#baseOffsetNumber = batch.baseOffset <= EXACT_BASE && batch.baseOffset >= -EXACT_BASE ? Number(batch.baseOffset) : NaN
    this.#baseTimestamp = batch.baseTimestamp
    this.#baseTimestampNumber = batch.baseTimestamp <= EXACT_BASE && batch.baseTimestamp >= -EXACT_BASE ? Number(batch.baseTimestamp) : NaN
    this.#logAppendTimestamp = batch.timestampType === 'log-append' ? String(batch.maxTimestamp) : undefined
    this.#lastDelta = NaN
  }

  make (offsetDelta: number, timestampDelta: number | bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]): KafkaMessage {
    const base = this.#baseOffsetNumber
    const offset = base === base ? String(base + offsetDelta) : String(this.#baseOffset + BigInt(offsetDelta))
    return { magicByte: 2, key, value, timestamp: this.#logAppendTimestamp ?? this.#timestampOf(timestampDelta), attributes: 0, offset, headers: headers.length === 0 ? new EmptyHeaders() : headersOf(headers) }
  }

  #timestampOf (delta: number | bigint): string {
    if (delta === this.#lastDelta) return this.#timestamp
    this.#lastDelta = delta
    const base = this.#baseTimestampNumber
    this.#timestamp = typeof delta === 'number' && base === base ? String(base + delta) : String(this.#baseTimestamp + BigInt(delta))
    return this.#timestamp
  }

  /** The message of a record decoded as a KafkaRecord (what toKafkaMessages makes). */
  fromRecord (record: KafkaRecord): KafkaMessage {
    if (record.timestamp !== this.#lastTimestamp) {
      this.#lastTimestamp = record.timestamp
      this.#recordTimestamp = String(record.timestamp)
    }
    return { magicByte: 2, key: record.key, value: record.value, timestamp: this.#recordTimestamp, attributes: 0, offset: String(record.offset), headers: record.headers.length === 0 ? new EmptyHeaders() : headersOf(record.headers) }
  }

  offsetOf (message: KafkaMessage): bigint {
    return BigInt(message.offset)
  }
}

/** kafkajs's messages of decoded records (see KafkaMessageMaker). */
export function toKafkaMessages (records: KafkaRecord[]): KafkaMessage[] {
  const count = records.length
  const messages: KafkaMessage[] = new Array(count)
  const maker = new KafkaMessageMaker()
  for (let i = 0; i < count; i++) messages[i] = maker.fromRecord(records[i])
  return messages
}

/** A batch's offsets as kafkajs reports them (its Batch methods, START/END_BATCH_PROCESS). */
function batchOffsets (batch: ConsumerBatch, messages: KafkaMessage[]): { highWatermark: string, firstOffset: string | null, lastOffset: string, offsetLag: string, offsetLagLow: string } {
  const hw = batch.highWatermark
  // A batch of only markers or aborted data: kafkajs reports the offsets it skipped.
  const first = messages.length > 0 ? BigInt(messages[0].offset) : batch.skippedFrom
  const last = messages.length > 0 ? BigInt(messages[messages.length - 1].offset) : (batch.skippedFrom !== undefined ? batch.nextOffset - 1n : undefined)
  return {
    highWatermark: String(hw),
    firstOffset: first === undefined ? null : String(first),
    lastOffset: String(last ?? hw - 1n),
    offsetLag: String(last === undefined ? 0n : hw - 1n - last),
    offsetLagLow: String(first === undefined ? 0n : hw - 1n - first)
  }
}

function toBatch (batch: ConsumerBatch, messages: KafkaMessage[], offsets: ReturnType<typeof batchOffsets>): Batch {
  return {
    topic: batch.topic,
    partition: batch.partition,
    highWatermark: offsets.highWatermark,
    messages,
    isEmpty: () => messages.length === 0,
    firstOffset: () => offsets.firstOffset,
    lastOffset: () => offsets.lastOffset,
    offsetLag: () => offsets.offsetLag,
    offsetLagLow: () => offsets.offsetLagLow
  }
}

function parseOffset (offset: unknown): bigint {
  try {
    if (typeof offset !== 'string' && typeof offset !== 'number' && typeof offset !== 'bigint') throw new Error('not a long')
    return BigInt(offset)
  } catch {
    throw new KafkaJSNonRetriableError(`Invalid offset, expected a long received ${String(offset)}`)
  }
}

/** Per-partition state of the running consumer: what was resolved, committed, and asked for. */
interface PartitionState {
  resolved?: bigint
  committed?: bigint
  /** A seek asked for while the partition's batch was in the handler (a pause rewinds instead). */
  interrupted: boolean
}

/**
 * Makes a KafkaJSConsumer (kafka.consumer()). Its constructor is private, so applications, which take it
 * from a Kafka instance as with kafkajs, see no constructor and no internal context type;
 * the class's static block sets this function.
 */
export let createConsumer: (context: ClientContext, config: ConsumerConfig) => KafkaJSConsumer

export class KafkaJSConsumer {
  readonly events = consumerEvents
  readonly #context: ClientContext
  readonly #config: ConsumerConfig
  readonly #groupId: string
  readonly #logger: Logger
  readonly #instrumentation = new Instrumentation<ConsumerEventPayloads>('consumer', consumerEvents)
  #client: Client | undefined
  readonly #subscriptions = new Map<string, { fromBeginning: boolean }>()
  #group: GroupConsumer | undefined
  #running = false
  #runConfig: ConsumerRunConfig = {}
  readonly #partitions = new Map<string, PartitionState>()
  readonly #pendingSeeks = new Map<string, { topic: string, partition: number, offset: bigint }>()
  /** Paused topics (all partitions) and partitions, as kafkajs keeps them across assignments. */
  readonly #pausedTopics = new Set<string>()
  readonly #pausedPartitions = new Map<string, Set<number>>()
  #identity: MemberIdentity | undefined
  #lastCommitAt = Date.now()
  #resolvedSinceCommit = 0
  #restartTimer: NodeJS.Timeout | undefined
  #workers: Promise<void> | undefined
  /** This member ran the assignor for the assignment that comes next (it is the group's leader). */
  #assignedAsLeader = false
  /** Ends the empty-assignment FETCH loop's wait while it runs (see #idleFetchLoop): stop() aborts it. */
  #idleFetching: AbortController | undefined
  /** Ends run()'s wait for the first join (joined, failed, timed out or stopped). */
  #joinWaiter: (() => void) | undefined

  static {
    createConsumer = (context, config) => new KafkaJSConsumer(context, config)
  }

  private constructor (context: ClientContext, config: ConsumerConfig) {
    if (config === undefined || typeof config.groupId !== 'string' || config.groupId === '') throw new KafkaJSNonRetriableError('Consumer groupId must be a non-empty string.')
    const sessionTimeout = config.sessionTimeout ?? 30_000
    const heartbeatInterval = config.heartbeatInterval ?? 3000
    if (heartbeatInterval >= sessionTimeout) {
      throw new KafkaJSNonRetriableError(`Consumer heartbeatInterval (${heartbeatInterval}) must be lower than sessionTimeout (${sessionTimeout}). It is recommended to set heartbeatInterval to approximately a third of the sessionTimeout.`)
    }
    this.#context = context
    this.#config = config
    this.#groupId = config.groupId
    this.#logger = context.logger.namespace('Consumer')
  }

  readonly #onTransactionCommitted = (groupId: string, offsets: Array<{ topic: string, partition: number, offset: bigint }>): void => {
    if (groupId === this.#groupId) this.#noteCommitted(offsets)
  }

  /** Offsets committed for this group (by this consumer or a transaction of the same Kafka instance). */
  #noteCommitted (offsets: Array<{ topic: string, partition: number, offset: bigint }>): void {
    for (const o of offsets) {
      const state = this.#partitions.get(key(o.topic, o.partition))
      if (state !== undefined) {
        state.committed = o.offset
        state.resolved = o.offset
      }
    }
  }

  logger (): Logger {
    return this.#logger
  }

  on<E extends keyof ConsumerEventPayloads & string> (eventName: E, listener: (event: InstrumentationEvent<ConsumerEventPayloads[E]>) => void): RemoveInstrumentationEventListener<E> {
    return this.#instrumentation.on(eventName, listener)
  }

  async connect (): Promise<void> {
    if (this.#client !== undefined) return
    this.#client = await this.#context.connect('Consumer', {
      metadataMaxAge: this.#config.metadataMaxAge,
      onRequest: event => {
        this.#instrumentation.network('consumer', event)
        // A heartbeat kafkats's group sent and the coordinator answered: kafkajs's HEARTBEAT.
        if (event.apiKey === HEARTBEAT_API_KEY && event.outcome === 'answered' && this.#identity !== undefined) {
          this.#instrumentation.emit(consumerEvents.HEARTBEAT, { groupId: this.#groupId, memberId: this.#identity.memberId, groupGenerationId: this.#identity.generation })
        }
        if (event.outcome === 'timeout') this.#joinWaiter?.()
      }
    })
    // Connected consumers only: a disconnected one is not held by its Kafka instance.
    this.#context.committedOffsets.on('committed', this.#onTransactionCommitted)
    this.#instrumentation.emit(consumerEvents.CONNECT, null)
  }

  async disconnect (): Promise<void> {
    await this.stop()
    const client = this.#client
    this.#client = undefined
    this.#context.committedOffsets.off('committed', this.#onTransactionCommitted)
    if (client !== undefined) {
      await client.close()
      this.#instrumentation.emit(consumerEvents.DISCONNECT, null)
    }
  }

  async subscribe (subscription: ConsumerSubscribeTopic | ConsumerSubscribeTopics): Promise<void> {
    if (this.#running) throw new KafkaJSNonRetriableError('Cannot subscribe to topic while consumer is running')
    const { topic, topics, fromBeginning = false } = (subscription ?? {}) as { topic?: string | RegExp, topics?: Array<string | RegExp>, fromBeginning?: boolean }
    if ((topic === undefined || topic === null) && (topics === undefined || topics === null)) throw new KafkaJSNonRetriableError('Missing required argument "topics"')
    if (topics !== undefined && topics !== null && !Array.isArray(topics)) throw new KafkaJSNonRetriableError('Argument "topics" must be an array')
    const subscriptions = topics ?? [topic!]
    for (const s of subscriptions) {
      if (typeof s !== 'string' && !(s instanceof RegExp)) {
        throw new KafkaJSNonRetriableError(`Invalid topic ${String(s)} (${typeof s}), the topic name has to be a String or a RegExp`)
      }
    }
    let names: string[] = []
    if (subscriptions.some(s => s instanceof RegExp)) {
      const client = await this.#connected()
      names = await client.admin.listTopics()
    }
    for (const s of subscriptions) {
      if (typeof s === 'string') {
        this.#subscriptions.set(s, { fromBeginning })
      } else {
        const matched = names.filter(name => s.test(name))
        this.#logger.debug('Subscription based on RegExp', { groupId: this.#groupId, regexp: s.toString(), matchedTopics: matched })
        for (const name of matched) this.#subscriptions.set(name, { fromBeginning })
      }
    }
    if (this.#config.allowAutoTopicCreation === true) {
      const client = await this.#connected()
      await client.metadata.refresh([...this.#subscriptions.keys()]).catch(() => {})
    }
  }

  async run (config: ConsumerRunConfig = {}): Promise<void> {
    if (this.#running) {
      this.#logger.warn('consumer#run was called, but the consumer is already running', { groupId: this.#groupId })
      return
    }
    this.#runConfig = config
    // Running from the call on, as in kafkajs: seek/pause right after an un-awaited run() apply at the assignment.
    this.#running = true
    try {
      await this.#start()
    } catch (error) {
      this.#running = false
      throw error
    }
  }

  async stop (): Promise<void> {
    clearTimeout(this.#restartTimer)
    const group = this.#group
    const wasRunning = this.#running
    this.#running = false
    this.#joinWaiter?.()
    this.#idleFetching?.abort()
    this.#idleFetching = undefined
    if (group === undefined) {
      if (wasRunning) this.#instrumentation.emit(consumerEvents.STOP, null)
      return
    }
    this.#group = undefined
    try {
      await this.#commitIfDue(group, true).catch(() => {})
      await group.close()
      await this.#workers?.catch(() => {})
    } finally {
      this.#partitions.clear()
      this.#instrumentation.emit(consumerEvents.STOP, null)
      this.#logger.info('Stopped', { groupId: this.#groupId })
    }
  }

  seek ({ topic, partition, offset }: { topic: string, partition: number, offset: string }): void {
    if (topic === undefined || topic === null || topic === '') throw new KafkaJSNonRetriableError(`Invalid topic ${String(topic)}`)
    if (isNaN(partition)) throw new KafkaJSNonRetriableError(`Invalid partition, expected a number received ${String(partition)}`)
    const target = parseOffset(offset)
    if (target < 0n && target !== -1n && target !== -2n) throw new KafkaJSNonRetriableError('Offset must not be a negative number')
    if (!this.#running) throw new KafkaJSNonRetriableError('Consumer group was not initialized, consumer#run must be called first')
    const state = this.#partitions.get(key(topic, partition))
    if (state !== undefined) state.interrupted = true
    this.#pendingSeeks.set(key(topic, partition), { topic, partition, offset: target })
    this.#applySeeks()
  }

  pause (topicPartitions: Array<{ topic: string, partitions?: number[] }> = []): void {
    this.#checkTopicPartitions(topicPartitions)
    if (!this.#running) throw new KafkaJSNonRetriableError('Consumer group was not initialized, consumer#run must be called first')
    for (const { topic, partitions } of topicPartitions) {
      if (partitions === undefined) this.#pausedTopics.add(topic)
      else {
        let set = this.#pausedPartitions.get(topic)
        if (set === undefined) this.#pausedPartitions.set(topic, set = new Set())
        for (const p of partitions) set.add(p)
      }
    }
    this.#group?.pause(this.#assignment().filter(p => this.#isPaused(p.topic, p.partition)))
  }

  resume (topicPartitions: Array<{ topic: string, partitions?: number[] }> = []): void {
    this.#checkTopicPartitions(topicPartitions)
    if (!this.#running) throw new KafkaJSNonRetriableError('Consumer group was not initialized, consumer#run must be called first')
    for (const { topic, partitions } of topicPartitions) {
      if (partitions === undefined) {
        this.#pausedTopics.delete(topic)
        this.#pausedPartitions.delete(topic)
      } else {
        for (const p of partitions) this.#pausedPartitions.get(topic)?.delete(p)
        if (this.#pausedTopics.has(topic)) {
          // kafkajs: resuming some partitions of a paused topic pauses the others one by one.
          this.#pausedTopics.delete(topic)
          const others = this.#assignment().filter(a => a.topic === topic && !partitions.includes(a.partition)).map(a => a.partition)
          this.#pausedPartitions.set(topic, new Set(others))
        }
      }
    }
    this.#group?.resume(this.#assignment().filter(p => !this.#isPaused(p.topic, p.partition) && this.#subscriptions.has(p.topic)))
  }

  paused (): Array<{ topic: string, partitions: number[] }> {
    const byTopic = new Map<string, number[]>()
    for (const p of this.#assignment()) {
      if (!this.#isPaused(p.topic, p.partition)) continue
      const list = byTopic.get(p.topic) ?? []
      list.push(p.partition)
      byTopic.set(p.topic, list)
    }
    return [...byTopic].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) }))
  }

  async commitOffsets (topicPartitions: TopicPartitionOffsetAndMetadata[]): Promise<void> {
    const group = this.#group
    if (group === undefined) throw new KafkaJSNonRetriableError('Consumer group was not initialized, consumer#run must be called first')
    for (const { topic, partition, offset } of topicPartitions) {
      if (topic === undefined || topic === null || topic === '') throw new KafkaJSNonRetriableError(`Invalid topic ${String(topic)}`)
      if (isNaN(partition)) throw new KafkaJSNonRetriableError(`Invalid partition, expected a number received ${String(partition)}`)
      const parsed = parseOffset(offset)
      if (parsed < 0n) throw new KafkaJSNonRetriableError('Offset must not be a negative number')
    }
    await this.#commit(group, topicPartitions.map(t => ({ topic: t.topic, partition: t.partition, offset: BigInt(t.offset) })))
  }

  async describeGroup (): Promise<GroupDescription | undefined> {
    const client = await this.#connected()
    let nodeId: number | undefined
    let response
    try {
      nodeId = await client[internal].coordinators.lookup('group', this.#groupId)
      response = await client.request(DescribeGroups, { groups: [this.#groupId], includeAuthorizedOperations: false }, { nodeId })
    } catch (error) {
      // The coordinator may be gone: the next call looks it up again.
      if (nodeId !== undefined) client[internal].coordinators.invalidate('group', this.#groupId, nodeId)
      throw error
    }
    const group = response.groups.find(g => g.groupId === this.#groupId)
    if (group === undefined) return undefined
    // The answer (errorCode) is the caller's; a moved coordinator is looked up again next time.
    if (group.errorCode === ErrorCode.NOT_COORDINATOR || group.errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE) client[internal].coordinators.invalidate('group', this.#groupId, nodeId)
    return {
      errorCode: group.errorCode,
      groupId: group.groupId,
      state: group.groupState,
      protocolType: group.protocolType,
      protocol: group.protocolData,
      members: group.members.map(m => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, memberMetadata: m.memberMetadata, memberAssignment: m.memberAssignment }))
    }
  }

  // ---------------------------------------------------------------- running

  async #connected (): Promise<Client> {
    if (this.#client === undefined) await this.connect()
    return this.#client!
  }

  async #start (): Promise<void> {
    const client = await this.#connected()
    if (!this.#running) return // stopped while connecting
    this.#logger.info('Starting', { groupId: this.#groupId })
    const topics = [...this.#subscriptions.keys()]
    // kafkajs runs without a subscription too: it joins the group as a member of no topic and gets
    // nothing (describeGroup shows it). A pattern that matches no topic name is that member here.
    if (topics.length === 0) this.#logger.warn('consumer#run was called without a subscription: nothing to consume', { groupId: this.#groupId })
    const fromBeginning = [...this.#subscriptions.values()].some(s => s.fromBeginning)
    const assigners = (this.#config.partitionAssigners ?? [PartitionAssigners.roundRobin]).map(create => create({
      cluster: { findTopicPartitionMetadata: (topic: string) => partitionMetadataOf(client, topic) },
      groupId: this.#groupId,
      logger: this.#logger
    }))
    const options: WithRecordMaker<GroupConsumerOptions> = {
      groupId: this.#groupId,
      topics: topics.length > 0 ? topics : NO_TOPIC,
      groupProtocol: 'classic',
      assignor: toAssignor(assigners[0], () => topics, () => { this.#assignedAsLeader = true }),
      fromBeginning,
      sessionTimeoutMs: this.#config.sessionTimeout ?? 30_000,
      rebalanceTimeoutMs: this.#config.rebalanceTimeout ?? 60_000,
      // kafkajs takes 0 (a heartbeat at every chance, i.e. after each fetch); kafkats heartbeats on a timer, at most every 100 ms then.
      heartbeatIntervalMs: this.#config.heartbeatInterval === 0 ? 100 : this.#config.heartbeatInterval ?? 3000,
      maxPartitionBytes: this.#config.maxBytesPerPartition ?? 1_048_576,
      minBytes: this.#config.minBytes ?? 1,
      maxBytes: this.#config.maxBytes ?? 10_485_760,
      maxWaitMs: this.#config.maxWaitTimeInMs ?? 5000,
      isolation: this.#config.readUncommitted === true ? 'read_uncommitted' : 'read_committed',
      // The commit schedule is kafkajs's, driven from here (see #commitIfDue). With kafkajs's
      // autoCommit: false (as for its transactions' sendOffsets) the engine commits nothing
      // either, not at a revoke nor at stop: kafkajs commits only when asked then.
      ...(this.#runConfig.autoCommit === false ? { autoCommit: false } : { autoCommitIntervalMs: 2_147_483_647 }),
      emptyBatches: true,
      // A kafkajs batch is a partition's fetch answer, of up to maxBytesPerPartition. A big answer
      // comes in parts of about 2 MiB of decoded messages instead: its messages are all alive
      // while the handler runs, and a 4 MiB answer of small messages (~33,000) outlives V8's
      // young generation (collection then cost 1.5x what decoding did). kafkajs promises no
      // batch size (the broker may answer with less); its commit after each fetched batch
      // comes after the answer's last part (HandedBatch.moreOfAnswer).
      maxBatchRecords: Number.MAX_SAFE_INTEGER,
      maxBatchBytes: 2 * 1024 * 1024,
      [recordMakerOption]: new KafkaMessageMaker()
    }
    if (this.#config.rackId !== undefined && this.#config.rackId !== '') options.rack = this.#config.rackId
    const group = client.consumer(options)
    this.#group = group
    const joinStarted = Date.now()
    // kafkajs says REBALANCING when its heartbeat learns of the rebalance, before it rejoins: a member
    // joining later sees it already said. A new generation no 'rebalancing' came before says it late.
    let announced = false
    group.on('rebalancing', (event: RebalancingEvent) => {
      announced = true
      this.#instrumentation.emit(consumerEvents.REBALANCING, { groupId: this.#groupId, memberId: event.identity.memberId })
    })
    group.on('assigned', (event: { added: TopicPartition[], revoked: TopicPartition[], identity: MemberIdentity }) => {
      const previous = this.#identity
      if (previous !== undefined && previous.generation !== event.identity.generation && !announced) {
        this.#instrumentation.emit(consumerEvents.REBALANCING, { groupId: this.#groupId, memberId: previous.memberId })
      }
      announced = false
      this.#identity = event.identity
      const isLeader = this.#assignedAsLeader
      this.#assignedAsLeader = false
      for (const p of event.revoked) this.#partitions.delete(key(p.topic, p.partition))
      for (const p of event.added) this.#partitions.set(key(p.topic, p.partition), { interrupted: false })
      const memberAssignment: Record<string, number[]> = {}
      const unsubscribed: TopicPartition[] = []
      for (const p of group.assignment()) {
        // kafkajs leaves out (and does not consume) what a leader assigned of topics this member does not subscribe to.
        if (this.#subscriptions.has(p.topic)) (memberAssignment[p.topic] ??= []).push(p.partition)
        else unsubscribed.push(p)
      }
      for (const list of Object.values(memberAssignment)) list.sort((a, b) => a - b)
      if (unsubscribed.length > 0) {
        group.pause(unsubscribed)
        const topicsNotSubscribed = [...new Set(unsubscribed.map(p => p.topic))]
        this.#logger.warn('Consumer group received unsubscribed topics', { groupId: this.#groupId, generationId: event.identity.generation, memberId: event.identity.memberId, topicsNotSubscribed })
        this.#instrumentation.emit(consumerEvents.RECEIVED_UNSUBSCRIBED_TOPICS, {
          groupId: this.#groupId,
          generationId: event.identity.generation,
          memberId: event.identity.memberId,
          assignedTopics: [...new Set(group.assignment().map(p => p.topic))],
          topicsSubscribed: [...this.#subscriptions.keys()],
          topicsNotSubscribed
        })
      }
      this.#instrumentation.emit(consumerEvents.GROUP_JOIN, {
        duration: Date.now() - joinStarted,
        groupId: this.#groupId,
        isLeader,
        // The leader's member id is known here only when this member is the leader.
        leaderId: isLeader ? event.identity.memberId : '',
        groupProtocol: assigners[0].name,
        memberId: event.identity.memberId,
        memberAssignment
      })
      group.pause(group.assignment().filter(p => this.#isPaused(p.topic, p.partition)))
      this.#applySeeks()
      if (Object.keys(memberAssignment).length === 0) void this.#idleFetchLoop(group, client)
    })
    group.on('lost', () => { this.#instrumentation.emit(consumerEvents.REBALANCING, { groupId: this.#groupId, memberId: this.#identity?.memberId }) })
    group.on('warning', (error: Error) => { this.#logger.warn(error.message, { groupId: this.#groupId }) })
    group.on('fetchStart', (event: { nodeId: number }) => { this.#instrumentation.emit(consumerEvents.FETCH_START, { nodeId: String(event.nodeId) }) })
    group.on('fetch', (event: FetchEvent) => { this.#instrumentation.emit(consumerEvents.FETCH, { numberOfBatches: event.partitionsWithRecords, duration: event.durationMs, nodeId: String(event.nodeId) }) })
    // kafkajs's run() returns once the member joined: describeGroup/setOffsets right after it see the group Stable.
    const joined = new Promise<void>(resolve => { this.#joinWaiter = resolve })
    const endWait = (): void => { this.#joinWaiter?.() }
    group.once('assigned', endWait)
    group.once('error', endWait)
    const workers = Math.max(1, this.#runConfig.partitionsConsumedConcurrently ?? 1)
    this.#workers = Promise.all(Array.from({ length: workers }, async () => await this.#work(group))).then(() => {})
    this.#workers.catch(error => { void this.#crash(group, error as Error) })
    // A join that times out (kafkajs would crash and restart) ends the wait too; kafkats keeps joining.
    await joined
    this.#joinWaiter = undefined
    group.off('assigned', endWait)
    group.off('error', endWait)
  }

  /**
   * kafkajs's fetch loop runs without partitions (to consume) too: it waits maxWaitTimeInMs per broker and
   * reports an empty FETCH. kafkats sends no Fetch then; these are the events kafkajs users see.
   */
  async #idleFetchLoop (group: GroupConsumer, client: Client): Promise<void> {
    if (this.#idleFetching !== undefined) return
    const stop = this.#idleFetching = new AbortController()
    try {
      const waitMs = this.#config.maxWaitTimeInMs ?? 5000
      // Partitions of topics it does not subscribe to are not consumed (see 'assigned'): nothing to fetch either.
      while (this.#running && this.#group === group && group.assignment().every(p => !this.#subscriptions.has(p.topic))) {
        const nodeIds = client.metadata.brokers.map(b => String(b.nodeId))
        const started = Date.now()
        for (const nodeId of nodeIds) this.#instrumentation.emit(consumerEvents.FETCH_START, { nodeId })
        // stop()/disconnect() end the wait at once (no timer outlives the consumer), and no FETCH follows.
        if (!await sleep(waitMs, stop.signal).then(() => true, () => false)) return
        for (const nodeId of nodeIds) this.#instrumentation.emit(consumerEvents.FETCH, { numberOfBatches: 0, duration: Date.now() - started, nodeId })
      }
    } finally {
      if (this.#idleFetching === stop) this.#idleFetching = undefined
    }
  }

  async #work (group: GroupConsumer): Promise<void> {
    const attempts = new Map<string, number>()
    while (this.#running && this.#group === group) {
      if (!await this.#workOne(group, attempts)) return
    }
  }

  /**
   * One batch taken and processed; false when the consumer is closed. Its own frame, so the
   * batch is garbage once processed: a suspended loop keeps its locals, and a batch held
   * while the next one is decoded (up to 2 MiB of messages) survives the
   * young generation and costs collection per record.
   */
  async #workOne (group: GroupConsumer, attempts: Map<string, number>): Promise<boolean> {
    const handed = await group.nextBatch()
    if (handed === undefined) return false
    const k = key(handed.batch.topic, handed.batch.partition)
    try {
      await this.#process(group, handed)
      attempts.delete(k)
    } catch (error) {
      const attempt = attempts.get(k) ?? 0
      const retries = this.#config.retry?.retries ?? this.#context.config.retry?.retries ?? 5
      const err = error as Error & { retriable?: boolean }
      if (err.retriable === false || attempt >= retries) {
        throw attempt >= retries ? new KafkaJSNumberOfRetriesExceeded(err, { retryCount: attempt, retryTime: retryDelay(this.#retry(), attempt) }) : err
      }
      attempts.set(k, attempt + 1)
      await new Promise(resolve => setTimeout(resolve, retryDelay(this.#retry(), attempt)))
    }
    return true
  }

  #retry (): RetryOptions {
    return { ...this.#context.config.retry, ...this.#config.retry }
  }

  /** One batch through eachMessage or eachBatch, then its resolved offsets into position and commits. */
  async #process (group: GroupConsumer, handed: HandedBatch): Promise<void> {
    const { batch } = handed
    const { topic, partition } = batch
    const k = key(topic, partition)
    let state = this.#partitions.get(k)
    if (state === undefined) this.#partitions.set(k, state = { interrupted: false })
    state.interrupted = false
    const startResolved = state.resolved
    const config = this.#runConfig
    // Decoded into kafkajs's messages (KafkaMessageMaker): the handler's array is the batch's own.
    const messages = batch.records as unknown as KafkaMessage[]
    const firstOffset = messages.length > 0 ? BigInt(messages[0].offset) : undefined
    // What this batch's handler resolved: it sets the partition's resolved offset whatever that
    // was before, as kafkajs's resolveOffset does (a seek past the end had set 100; the records
    // read again from 0 after the reset never counted as resolved and were handed out for ever).
    let batchResolved: bigint | undefined
    const resolveOffset = (offset: string): void => {
      const next = BigInt(offset) + 1n
      if (batchResolved !== undefined && next <= batchResolved) return
      batchResolved = next
      // A seek during the batch decides where the partition goes on and what is committed.
      if (state!.interrupted) return
      state!.resolved = next
      this.#resolvedSinceCommit++
    }
    const pauseThis = (): (() => void) => {
      this.pause([{ topic, partitions: [partition] }])
      return () => this.resume([{ topic, partitions: [partition] }])
    }
    const heartbeat = async (): Promise<void> => {}
    const offsets = batchOffsets(batch, messages)
    const payloadBase = { topic, partition, highWatermark: offsets.highWatermark, offsetLag: offsets.offsetLag, offsetLagLow: offsets.offsetLagLow, batchSize: messages.length, firstOffset: offsets.firstOffset, lastOffset: offsets.lastOffset }
    const started = Date.now()
    this.#instrumentation.emit(consumerEvents.START_BATCH_PROCESS, payloadBase)
    if (messages.length === 0) {
      // Only transaction markers or aborted data: kafkajs calls no handler, resolves past them and commits.
      resolveOffset(String(batch.nextOffset - 1n))
      handed.finish(config.autoCommit !== false ? batch.nextOffset : null)
      this.#instrumentation.emit(consumerEvents.END_BATCH_PROCESS, { ...payloadBase, duration: Date.now() - started })
      await this.#commitIfDue(group, false)
      return
    }
    let failure: unknown
    try {
      if (config.eachMessage !== undefined) {
        for (let i = 0; i < messages.length; i++) {
          if (!this.#running || state.interrupted || this.#isPaused(topic, partition)) break
          const message = messages[i]
          try {
            await config.eachMessage({ topic, partition, message, heartbeat, pause: pauseThis })
          } catch (error) {
            this.#logger.error(`Error when calling eachMessage`, { topic, partition, offset: message.offset, stack: (error as Error).stack, error })
            throw error
          }
          resolveOffset(message.offset)
        }
      } else if (config.eachBatch !== undefined) {
        await config.eachBatch({
          batch: toBatch(batch, messages, offsets),
          resolveOffset,
          heartbeat,
          pause: pauseThis,
          commitOffsetsIfNecessary: async (offsets?: Offsets) => {
            if (offsets !== undefined) {
              await this.#commit(group, offsets.topics.flatMap(t => t.partitions.map(p => ({ topic: t.topic, partition: Number(p.partition), offset: BigInt(p.offset) }))))
            } else if (config.autoCommit !== false) {
              await this.#commitIfDue(group, false)
            }
          },
          uncommittedOffsets: () => this.#uncommitted(),
          isRunning: () => this.#running,
          isStale: () => state!.interrupted || this.#group !== group
        })
        if (config.eachBatchAutoResolve !== false && !state.interrupted && messages.length > 0) resolveOffset(messages[messages.length - 1].offset)
      }
    } catch (error) {
      failure = error
    }
    // The next fetch starts at the last resolved offset, as in kafkajs: what was not resolved comes again.
    const interrupted = state.interrupted
    // Moved during the batch by the handler's resolves, or by a commit (commitOffsets, a transaction's sendOffsets).
    const advanced = state.resolved !== undefined && (startResolved === undefined || state.resolved > startResolved) ? state.resolved : undefined
    const resolved = interrupted || batchResolved === undefined || (advanced !== undefined && advanced > batchResolved) ? advanced : batchResolved
    handed.finish(config.autoCommit !== false && resolved !== undefined ? resolved : null)
    const position = resolved ?? firstOffset
    const fetchAgain = !interrupted && position !== undefined && position < batch.nextOffset
    if (fetchAgain && this.#group === group) {
      try {
        group.seek({ topic, partition, offset: position })
      } catch (error) {
        // The partition left this member while the batch ran (a revoke that stopped waiting, a
        // fence): its next owner reads from the committed offset, unresolved messages included.
        this.#logger.warn('Could not rewind the partition to the first unresolved message; its next consumer reads it from the committed offset', { groupId: this.#groupId, topic, partition, offset: String(position), error: (error as Error).message })
      }
    }
    this.#instrumentation.emit(consumerEvents.END_BATCH_PROCESS, { ...payloadBase, duration: Date.now() - started })
    // Mid-answer, kafkajs's commit after the batch waits for the answer's last part, unless
    // the rest will not come now (a seek, unresolved messages fetched again, a pause; a
    // failure forces the commit anyway).
    const midAnswer = handed.moreOfAnswer && !interrupted && !fetchAgain && !this.#isPaused(topic, partition)
    if (config.autoCommit !== false) await this.#commitIfDue(group, failure !== undefined, midAnswer)
    if (failure !== undefined) throw failure
  }

  /**
   * kafkajs's schedule: after every fetched batch (`midAnswer`: not yet, a part of a fetch
   * answer whose rest follows) unless autoCommitInterval/autoCommitThreshold say otherwise.
   */
  async #commitIfDue (group: GroupConsumer, force: boolean, midAnswer = false): Promise<void> {
    const { autoCommit, autoCommitInterval, autoCommitThreshold } = this.#runConfig
    if (autoCommit === false) return
    const unset = (autoCommitInterval === null || autoCommitInterval === undefined) && (autoCommitThreshold === null || autoCommitThreshold === undefined)
    const due = force || (unset && !midAnswer) ||
      (autoCommitInterval != null && Date.now() - this.#lastCommitAt >= autoCommitInterval) ||
      (autoCommitThreshold != null && this.#resolvedSinceCommit >= autoCommitThreshold)
    if (!due) return
    const offsets: Array<{ topic: string, partition: number, offset: bigint }> = []
    for (const [k, state] of this.#partitions) {
      if (state.resolved === undefined || state.resolved === state.committed) continue
      const [topic, partition] = k.split('\u0000')
      offsets.push({ topic, partition: Number(partition), offset: state.resolved })
    }
    this.#lastCommitAt = Date.now()
    this.#resolvedSinceCommit = 0
    if (offsets.length > 0) await this.#commit(group, offsets)
  }

  async #commit (group: GroupConsumer, offsets: Array<{ topic: string, partition: number, offset: bigint }>): Promise<void> {
    let refused
    try {
      refused = await group.commitOffsets(offsets)
    } catch (error) {
      throw toKafkaJSError(error)
    }
    const refusedKeys = new Set(refused.map(r => key(r.topic, r.partition)))
    const committed = offsets.filter(o => !refusedKeys.has(key(o.topic, o.partition)))
    this.#noteCommitted(committed)
    if (refused.length > 0) this.#logger.warn('Offsets not committed: the partitions are not held by this member under its current membership', { groupId: this.#groupId, refused: refused.map(r => ({ topic: r.topic, partition: r.partition, offset: String(r.offset), reason: r.reason })) })
    if (committed.length > 0) {
      const byTopic = new Map<string, Array<{ partition: string, offset: string }>>()
      for (const o of committed) {
        const list = byTopic.get(o.topic) ?? []
        list.push({ partition: String(o.partition), offset: String(o.offset) })
        byTopic.set(o.topic, list)
      }
      this.#instrumentation.emit(consumerEvents.COMMIT_OFFSETS, {
        groupId: this.#groupId,
        memberId: this.#identity?.memberId,
        groupGenerationId: this.#identity?.generation,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions }))
      })
    }
    const unknown = refused.find(r => r.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    if (unknown !== undefined) throw new KafkaJSProtocolError(protocolErrorInfo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
  }

  #uncommitted (): Offsets {
    const byTopic = new Map<string, PartitionOffset[]>()
    for (const [k, state] of this.#partitions) {
      if (state.resolved === undefined || state.resolved === state.committed) continue
      const [topic, partition] = k.split('\u0000')
      const list = byTopic.get(topic) ?? []
      // kafkajs hands partitions out as strings here (its types say number); they go back in as either.
      list.push({ partition: partition as unknown as number, offset: String(state.resolved) })
      byTopic.set(topic, list)
    }
    return { topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) }
  }

  #applySeeks (): void {
    const group = this.#group
    if (group === undefined) return
    const held = new Set(group.assignment().map(p => key(p.topic, p.partition)))
    for (const [k, seek] of this.#pendingSeeks) {
      if (!held.has(k)) continue
      this.#pendingSeeks.delete(k)
      const offset = seek.offset === -1n ? 'latest' as const : seek.offset === -2n ? 'earliest' as const : seek.offset
      group.seek({ topic: seek.topic, partition: seek.partition, offset })
      const state = this.#partitions.get(k)
      if (state !== undefined && typeof offset === 'bigint') {
        // kafkajs: a seek is committed at once with autoCommit, else it becomes the resolved offset.
        state.resolved = offset
        if (this.#runConfig.autoCommit !== false) void this.#commit(group, [{ topic: seek.topic, partition: seek.partition, offset }]).catch(error => this.#logger.error('Failed to commit the seek offset', { error: (error as Error).message }))
      }
    }
  }

  async #crash (group: GroupConsumer, error: Error): Promise<void> {
    if (this.#group !== group) return
    const e = toKafkaJSError(error)
    this.#logger.error(`Crash: ${e.name}: ${e.message}`, { groupId: this.#groupId, retryCount: (e as { retryCount?: number }).retryCount, stack: e.stack })
    await this.stop().catch(() => {})
    const original = (err: unknown): unknown => typeof err === 'object' && err !== null && 'cause' in err && err.cause !== undefined ? original(err.cause) : err
    const root = original(e)
    const retriable = e.name === 'KafkaJSNumberOfRetriesExceeded' || (typeof root === 'object' && root !== null && 'retriable' in root && root.retriable === true)
    let restart = retriable
    const restartOnFailure = this.#retry().restartOnFailure
    if (restart && restartOnFailure !== undefined) restart = await restartOnFailure(e).catch(() => true)
    this.#instrumentation.emit(consumerEvents.CRASH, { error: e, groupId: this.#groupId, restart })
    if (restart) {
      const retryTime = (e as { retryTime?: number }).retryTime ?? this.#retry().initialRetryTime ?? 300
      this.#logger.error(`Restarting the consumer in ${retryTime}ms`, { groupId: this.#groupId, retryTime })
      this.#restartTimer = setTimeout(() => {
        this.#running = true
        void this.#start().catch(err => this.#logger.error('Failed to restart', { error: (err as Error).message }))
      }, retryTime)
    } else {
      await this.disconnect().catch(() => {})
    }
  }

  #assignment (): TopicPartition[] {
    return this.#group?.assignment() ?? []
  }

  #isPaused (topic: string, partition: number): boolean {
    return this.#pausedTopics.has(topic) || (this.#pausedPartitions.get(topic)?.has(partition) ?? false)
  }

  #checkTopicPartitions (topicPartitions: Array<{ topic: string, partitions?: number[] }>): void {
    for (const tp of topicPartitions) {
      if (tp === undefined || tp === null || typeof tp.topic !== 'string' || tp.topic === '') throw new KafkaJSNonRetriableError(`Invalid topic ${String(tp?.topic ?? tp)}`)
      if (tp.partitions !== undefined && (!Array.isArray(tp.partitions) || tp.partitions.some(p => isNaN(p)))) {
        throw new KafkaJSNonRetriableError(`Array of valid partitions required to pause specific partitions instead of ${String(tp.partitions)}`)
      }
    }
  }
}

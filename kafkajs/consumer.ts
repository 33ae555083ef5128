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
 *
 * This file keeps the public class and its wiring (connect, subscribe, run, stop, seek,
 * pause, crash and restart). The parts: consumer-options.ts (config and payload types,
 * checks, the GroupConsumerOptions they map to), messages.ts (messages and batches),
 * batch-runner.ts (the eachMessage/eachBatch workers), auto-commit.ts (resolved and
 * committed offsets, kafkajs's commit schedule), consumer-events.ts (instrumentation events).
 */
import type { Client } from '../index'
import type { GroupConsumer } from '../group/group-consumer'
import type { MemberIdentity, TopicPartition } from '../group/membership'
import { DescribeGroups } from '../protocol/apis/describe-groups'
import { ErrorCode } from '../protocol/error-codes'
import { internal } from '../client/internal'
import '../index'
import { PartitionAssigners, toAssignor } from './assigners'
import { AutoCommit, key } from './auto-commit'
import { BatchRunner } from './batch-runner'
import { ConsumerInstrumentation } from './consumer-events'
import { checkConsumerConfig, checkTopicPartitions, groupConsumerOptions, parseOffset, type ConsumerConfig, type ConsumerRunConfig, type ConsumerSubscribeTopic, type ConsumerSubscribeTopics, type TopicPartitionOffsetAndMetadata } from './consumer-options'
import { KafkaJSNonRetriableError, toKafkaJSError } from './errors'
import { consumerEvents, Instrumentation, type ConsumerEventPayloads } from './instrumentation'
import type { ConsumerEventMap, RemoveInstrumentationEventListener } from './types'
import type { ClientContext, RetryOptions } from './config'
import type { Logger } from './logger'
import { partitionMetadataOf } from './producer'
import { assignerCluster } from './assigners'
import type { ConsumerGroupState, GroupDescription } from './types'

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
  readonly #instrumentation = new Instrumentation<ConsumerEventPayloads, ConsumerEventMap>('consumer', consumerEvents)
  #client: Client | undefined
  readonly #subscriptions = new Map<string, { fromBeginning: boolean }>()
  #group: GroupConsumer | undefined
  #running = false
  #runConfig: ConsumerRunConfig = {}
  readonly #pendingSeeks = new Map<string, { topic: string, partition: number, offset: bigint }>()
  /** Paused topics (all partitions) and partitions, as kafkajs keeps them across assignments. */
  readonly #pausedTopics = new Set<string>()
  readonly #pausedPartitions = new Map<string, Set<number>>()
  #identity: MemberIdentity | undefined
  #restartTimer: NodeJS.Timeout | undefined
  #workers: Promise<void> | undefined
  /** This member ran the assignor for the assignment that comes next (it is the group's leader). */
  #assignedAsLeader = false
  /** Ends run()'s wait for the first join (joined, failed, timed out or stopped). */
  #joinWaiter: (() => void) | undefined

  readonly #autoCommit: AutoCommit
  readonly #runner: BatchRunner
  readonly #events: ConsumerInstrumentation

  static {
    createConsumer = (context, config) => new KafkaJSConsumer(context, config)
  }

  private constructor (context: ClientContext, config: ConsumerConfig) {
    checkConsumerConfig(config)
    this.#context = context
    this.#config = config
    this.#groupId = config.groupId
    this.#logger = context.logger.namespace('Consumer')
    this.#autoCommit = new AutoCommit({
      groupId: this.#groupId,
      logger: this.#logger,
      instrumentation: this.#instrumentation,
      runConfig: () => this.#runConfig,
      identity: () => this.#identity
    })
    this.#runner = new BatchRunner({
      groupId: this.#groupId,
      logger: this.#logger,
      instrumentation: this.#instrumentation,
      autoCommit: this.#autoCommit,
      running: () => this.#running,
      group: () => this.#group,
      runConfig: () => this.#runConfig,
      retry: () => this.#retry(),
      retries: () => this.#config.retry?.retries ?? this.#context.config.retry?.retries ?? 5,
      isPaused: (topic, partition) => this.#isPaused(topic, partition),
      pause: topicPartitions => { this.pause(topicPartitions) },
      resume: topicPartitions => { this.resume(topicPartitions) }
    })
    this.#events = new ConsumerInstrumentation({
      groupId: this.#groupId,
      logger: this.#logger,
      instrumentation: this.#instrumentation,
      maxWaitTimeInMs: config.maxWaitTimeInMs ?? 5000,
      identity: () => this.#identity,
      running: () => this.#running,
      group: () => this.#group,
      subscribed: topic => this.#subscriptions.has(topic)
    })
  }

  readonly #onTransactionCommitted = (groupId: string, offsets: Array<{ topic: string, partition: number, offset: bigint }>): void => {
    if (groupId === this.#groupId) this.#autoCommit.noteCommitted(offsets)
  }


  logger (): Logger {
    return this.#logger
  }

  on<E extends keyof ConsumerEventMap & string> (eventName: E, listener: (event: ConsumerEventMap[E]) => void): RemoveInstrumentationEventListener<E> {
    return this.#instrumentation.on(eventName, listener)
  }

  async connect (): Promise<void> {
    if (this.#client !== undefined) return
    this.#client = await this.#context.connect('Consumer', {
      metadataMaxAge: this.#config.metadataMaxAge,
      onRequest: event => {
        this.#events.request(event)
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
    this.#events.stopIdleFetch()
    if (group === undefined) {
      if (wasRunning) this.#instrumentation.emit(consumerEvents.STOP, null)
      return
    }
    this.#group = undefined
    try {
      await this.#autoCommit.commitIfDue(group, true).catch(() => {})
      await group.close()
      await this.#workers?.catch(() => {})
    } finally {
      this.#autoCommit.partitions.clear()
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
    const state = this.#autoCommit.partitions.get(key(topic, partition))
    if (state !== undefined) state.interrupted = true
    this.#pendingSeeks.set(key(topic, partition), { topic, partition, offset: target })
    this.#applySeeks()
  }

  pause (topicPartitions: Array<{ topic: string, partitions?: number[] }> = []): void {
    checkTopicPartitions(topicPartitions)
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
    checkTopicPartitions(topicPartitions)
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
    await this.#autoCommit.commit(group, topicPartitions.map(t => ({ topic: t.topic, partition: t.partition, offset: BigInt(t.offset) })))
  }

  /** kafkajs's answer, which carries the group's `errorCode` too (kafkajs's types leave it out). */
  async describeGroup (): Promise<GroupDescription & { errorCode: number }> {
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
    if (group === undefined) return { errorCode: 0, groupId: this.#groupId, members: [], protocol: '', protocolType: '', state: 'Dead' }
    // The answer (errorCode) is the caller's; a moved coordinator is looked up again next time.
    if (group.errorCode === ErrorCode.NOT_COORDINATOR || group.errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE) client[internal].coordinators.invalidate('group', this.#groupId, nodeId)
    return {
      errorCode: group.errorCode,
      groupId: group.groupId,
      state: group.groupState as ConsumerGroupState,
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
      cluster: assignerCluster(topic => partitionMetadataOf(client, topic)),
      groupId: this.#groupId,
      logger: this.#logger
    }))
    const options = groupConsumerOptions(this.#config, this.#runConfig, topics, fromBeginning, toAssignor(assigners[0], () => topics, () => { this.#assignedAsLeader = true }))
    const group = client.consumer(options)
    this.#group = group
    const joinStarted = Date.now()
    this.#events.watch(group)
    group.on('assigned', (event: { added: TopicPartition[], revoked: TopicPartition[], identity: MemberIdentity }) => {
      this.#identity = event.identity
      const isLeader = this.#assignedAsLeader
      this.#assignedAsLeader = false
      for (const p of event.revoked) this.#autoCommit.partitions.delete(key(p.topic, p.partition))
      for (const p of event.added) this.#autoCommit.partitions.set(key(p.topic, p.partition), { interrupted: false })
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
        this.#events.unsubscribedTopics(event.identity, [...new Set(group.assignment().map(p => p.topic))], [...this.#subscriptions.keys()], topicsNotSubscribed)
      }
      this.#events.joined(event.identity, { duration: Date.now() - joinStarted, isLeader, groupProtocol: assigners[0].name, memberAssignment })
      group.pause(group.assignment().filter(p => this.#isPaused(p.topic, p.partition)))
      this.#applySeeks()
      if (Object.keys(memberAssignment).length === 0) void this.#events.idleFetchLoop(group, client)
    })
    // kafkajs's run() returns once the member joined: describeGroup/setOffsets right after it see the group Stable.
    const joined = new Promise<void>(resolve => { this.#joinWaiter = resolve })
    const endWait = (): void => { this.#joinWaiter?.() }
    group.once('assigned', endWait)
    group.once('error', endWait)
    const workers = Math.max(1, this.#runConfig.partitionsConsumedConcurrently ?? 1)
    this.#workers = Promise.all(Array.from({ length: workers }, async () => await this.#runner.work(group))).then(() => {})
    this.#workers.catch(error => { void this.#crash(group, error as Error) })
    // A join that times out (kafkajs would crash and restart) ends the wait too; kafkats keeps joining.
    await joined
    this.#joinWaiter = undefined
    group.off('assigned', endWait)
    group.off('error', endWait)
  }

  #retry (): RetryOptions {
    return { ...this.#context.config.retry, ...this.#config.retry }
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
      const state = this.#autoCommit.partitions.get(k)
      if (state !== undefined && typeof offset === 'bigint') {
        // kafkajs: a seek is committed at once with autoCommit, else it becomes the resolved offset.
        state.resolved = offset
        if (this.#runConfig.autoCommit !== false) void this.#autoCommit.commit(group, [{ topic: seek.topic, partition: seek.partition, offset }]).catch(error => this.#logger.error('Failed to commit the seek offset', { error: (error as Error).message }))
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
}

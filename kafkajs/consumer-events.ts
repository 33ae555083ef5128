/**
 * kafkajs's instrumentation events of a consumer, from what kafkats's GroupConsumer and
 * client report: HEARTBEAT from the requests, REBALANCING, GROUP_JOIN,
 * RECEIVED_UNSUBSCRIBED_TOPICS, FETCH_START and FETCH from the group's events (and the empty
 * FETCHes kafkajs reports while a member has nothing to fetch). The consumer is reached
 * only through ConsumerInstrumentationHost.
 */
import type { Client } from '../client/client'
import type { FetchEvent } from '../consumer/consumer'
import type { RequestEvent } from '../client/events'
import { sleep } from '../client/backoff'
import type { AssignedEvent, GroupConsumer, RebalancingEvent } from '../group/group-consumer'
import type { MemberIdentity } from '../group/membership'
import { consumerEvents, type ConsumerEventPayloads, type Instrumentation } from './instrumentation'
import type { ConsumerEventMap } from './types'
import type { Logger } from './logger'

const HEARTBEAT_API_KEY = 12

export interface ConsumerInstrumentationHost {
  readonly groupId: string
  readonly logger: Logger
  readonly instrumentation: Instrumentation<ConsumerEventPayloads, ConsumerEventMap>
  /** How long kafkajs waits for a Fetch answer (the empty FETCHes' pace). */
  readonly maxWaitTimeInMs: number
  /** The membership of the last assignment. */
  identity: () => MemberIdentity | undefined
  running: () => boolean
  /** The GroupConsumer of the current run. */
  group: () => GroupConsumer | undefined
  subscribed: (topic: string) => boolean
}

export class ConsumerInstrumentation {
  readonly #host: ConsumerInstrumentationHost
  /** Ends the empty-assignment FETCH loop's wait while it runs (see idleFetchLoop): stop() aborts it. */
  #idleFetching: AbortController | undefined

  /** kafkajs's namespaces for what its ConsumerGroup and Runner log. */
  readonly #groupLogger: Logger
  readonly #runnerLogger: Logger

  constructor (host: ConsumerInstrumentationHost) {
    this.#host = host
    this.#groupLogger = host.logger.namespace('ConsumerGroup')
    this.#runnerLogger = host.logger.namespace('Runner')
  }

  /** A request of the consumer's client: kafkajs's network events, and HEARTBEAT. */
  request (event: RequestEvent): void {
    this.#host.instrumentation.network('consumer', event)
    // A heartbeat kafkats's group sent and the coordinator answered: kafkajs's HEARTBEAT.
    const identity = this.#host.identity()
    if (event.apiKey === HEARTBEAT_API_KEY && event.outcome === 'answered' && identity !== undefined) {
      this.#host.instrumentation.emit(consumerEvents.HEARTBEAT, { groupId: this.#host.groupId, memberId: identity.memberId, groupGenerationId: identity.generation })
    }
  }

  /**
   * The group's events kafkajs has its own for. Attach before the consumer's own 'assigned'
   * listener: a new generation is said (REBALANCING) before the identity moves on.
   */
  watch (group: GroupConsumer): void {
    // kafkajs says REBALANCING when its heartbeat learns of the rebalance, before it rejoins: a member
    // joining later sees it already said. A new generation no 'rebalancing' came before says it late.
    let announced = false
    group.on('rebalancing', (event: RebalancingEvent) => {
      announced = true
      // kafkajs's Runner warns when its fetch learns of the rebalance, then says REBALANCING and rejoins.
      this.#runnerLogger.warn('The group is rebalancing, re-joining', { groupId: this.#host.groupId, memberId: event.identity.memberId, error: event.reason })
      this.#host.instrumentation.emit(consumerEvents.REBALANCING, { groupId: this.#host.groupId, memberId: event.identity.memberId })
    })
    group.on('assigned', (event: AssignedEvent) => {
      const previous = this.#host.identity()
      if (previous !== undefined && previous.generation !== event.identity.generation && !announced) {
        this.#host.instrumentation.emit(consumerEvents.REBALANCING, { groupId: this.#host.groupId, memberId: previous.memberId })
      }
      announced = false
    })
    group.on('lost', () => { this.#host.instrumentation.emit(consumerEvents.REBALANCING, { groupId: this.#host.groupId, memberId: this.#host.identity()?.memberId }) })
    group.on('warning', (error: Error) => { this.#host.logger.warn(error.message, { groupId: this.#host.groupId }) })
    group.on('fetchStart', (event: { nodeId: number }) => { this.#host.instrumentation.emit(consumerEvents.FETCH_START, { nodeId: String(event.nodeId) }) })
    group.on('fetch', (event: FetchEvent) => { this.#host.instrumentation.emit(consumerEvents.FETCH, { numberOfBatches: event.partitionsWithRecords, duration: event.durationMs, nodeId: String(event.nodeId) }) })
  }

  /** The assignment holds partitions of topics this member does not subscribe to (kafkajs leaves them out). */
  unsubscribedTopics (identity: MemberIdentity, assignedTopics: string[], topicsSubscribed: string[], topicsNotSubscribed: string[]): void {
    this.#groupLogger.warn('Consumer group received unsubscribed topics', { groupId: this.#host.groupId, generationId: identity.generation, memberId: identity.memberId, topicsNotSubscribed })
    this.#host.instrumentation.emit(consumerEvents.RECEIVED_UNSUBSCRIBED_TOPICS, {
      groupId: this.#host.groupId,
      generationId: identity.generation,
      memberId: identity.memberId,
      assignedTopics,
      topicsSubscribed,
      topicsNotSubscribed
    })
  }

  /** An assignment came (kafkajs's GROUP_JOIN). */
  joined (identity: MemberIdentity, { duration, isLeader, groupProtocol, memberAssignment }: { duration: number, isLeader: boolean, groupProtocol: string, memberAssignment: Record<string, number[]> }): void {
    const payload = {
      duration,
      groupId: this.#host.groupId,
      isLeader,
      // The leader's member id is known here only when this member is the leader.
      leaderId: isLeader ? identity.memberId : '',
      groupProtocol,
      memberId: identity.memberId,
      memberAssignment
    }
    this.#host.instrumentation.emit(consumerEvents.GROUP_JOIN, payload)
    // kafkajs's ConsumerGroup logs the event's payload, in its order.
    const { groupId, memberId, leaderId } = payload
    this.#groupLogger.info('Consumer has joined the group', { groupId, memberId, leaderId, isLeader, memberAssignment, groupProtocol, duration })
  }

  stopIdleFetch (): void {
    this.#idleFetching?.abort()
    this.#idleFetching = undefined
  }

  /**
   * kafkajs's fetch loop runs without partitions (to consume) too: it waits maxWaitTimeInMs per broker and
   * reports an empty FETCH. kafkats sends no Fetch then; these are the events kafkajs users see.
   */
  async idleFetchLoop (group: GroupConsumer, client: Client): Promise<void> {
    if (this.#idleFetching !== undefined) return
    const stop = this.#idleFetching = new AbortController()
    try {
      const waitMs = this.#host.maxWaitTimeInMs
      // Partitions of topics it does not subscribe to are not consumed (see 'assigned'): nothing to fetch either.
      while (this.#host.running() && this.#host.group() === group && group.assignment().every(p => !this.#host.subscribed(p.topic))) {
        const nodeIds = client.metadata.brokers.map(b => String(b.nodeId))
        const started = Date.now()
        for (const nodeId of nodeIds) this.#host.instrumentation.emit(consumerEvents.FETCH_START, { nodeId })
        // stop()/disconnect() end the wait at once (no timer outlives the consumer), and no FETCH follows.
        if (!await sleep(waitMs, stop.signal).then(() => true, () => false)) return
        for (const nodeId of nodeIds) this.#host.instrumentation.emit(consumerEvents.FETCH, { numberOfBatches: 0, duration: Date.now() - started, nodeId })
      }
    } finally {
      if (this.#idleFetching === stop) this.#idleFetching = undefined
    }
  }
}

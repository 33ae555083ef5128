/**
 * kafkajs's instrumentation events: `client.on(client.events.X, listener)` gets
 * `{ id, type, timestamp, payload }`; an unknown event name throws, and `on` returns the
 * function that removes the listener.
 */
import { EventEmitter } from 'node:events'
import type { RequestEvent } from '../client/events'
import { KafkaJSNonRetriableError } from './errors'
import type { IBatchProcessEvent, RemoveInstrumentationEventListener, RequestEvent as KafkaJSRequestEvent, RequestQueueSizeEvent, RequestTimeoutEvent } from './types'

let nextEventId = 0

/**
 * kafkajs's name of an API where it is not Kafka's (kafkajs 2.2.4's protocol/requests/apiKeys.js:
 * FindCoordinator was GroupCoordinator, ElectLeaders ElectPreferredLeaders); kafkajs knows no
 * API past 46, so the rest keep Kafka's names.
 */
const KAFKAJS_API_NAMES: Record<number, string> = { 10: 'GroupCoordinator', 43: 'ElectPreferredLeaders' }

/** The name kafkajs gives the API in its request events and Connection log lines. */
export function kafkajsApiName (apiKey: number, apiName: string): string {
  return KAFKAJS_API_NAMES[apiKey] ?? apiName
}

const network = <P extends string>(prefix: P): { REQUEST: `${P}.network.request`, REQUEST_TIMEOUT: `${P}.network.request_timeout`, REQUEST_QUEUE_SIZE: `${P}.network.request_queue_size` } => ({
  REQUEST: `${prefix}.network.request`,
  REQUEST_TIMEOUT: `${prefix}.network.request_timeout`,
  REQUEST_QUEUE_SIZE: `${prefix}.network.request_queue_size`
})

export const producerEvents = { CONNECT: 'producer.connect', DISCONNECT: 'producer.disconnect', ...network('producer') } as const
export const adminEvents = { CONNECT: 'admin.connect', DISCONNECT: 'admin.disconnect', ...network('admin') } as const
export const consumerEvents = {
  HEARTBEAT: 'consumer.heartbeat',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
  GROUP_JOIN: 'consumer.group_join',
  FETCH_START: 'consumer.fetch_start',
  FETCH: 'consumer.fetch',
  START_BATCH_PROCESS: 'consumer.start_batch_process',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  CONNECT: 'consumer.connect',
  DISCONNECT: 'consumer.disconnect',
  STOP: 'consumer.stop',
  CRASH: 'consumer.crash',
  REBALANCING: 'consumer.rebalancing',
  RECEIVED_UNSUBSCRIBED_TOPICS: 'consumer.received_unsubscribed_topics',
  ...network('consumer')
} as const

/** What kafkajs's network.request, request_timeout and request_queue_size events carry. */
export type RequestEventPayload = KafkaJSRequestEvent['payload']
export type RequestEventPayloadBase = RequestTimeoutEvent['payload']
export type RequestQueueSizeEventPayload = RequestQueueSizeEvent['payload']
/** The network events every kafkajs client emits, under its prefix. */
export type NetworkEventPayloads<P extends string> =
  Record<`${P}.network.request`, RequestEventPayload> &
  Record<`${P}.network.request_timeout`, RequestEventPayloadBase> &
  Record<`${P}.network.request_queue_size`, RequestQueueSizeEventPayload>

/** kafkajs's batch event payload; an empty batch's firstOffset is null at run time (kafkajs's types say string). */
export type BatchProcessEventPayload = Omit<IBatchProcessEvent, 'firstOffset'> & { firstOffset: string | null }

/** Each event name's payload: `on(name, listener)` types the listener's event by it. */
export type ProducerEventPayloads = NetworkEventPayloads<'producer'> & { 'producer.connect': null, 'producer.disconnect': null }
export type AdminEventPayloads = NetworkEventPayloads<'admin'> & { 'admin.connect': null, 'admin.disconnect': null }
export type ConsumerEventPayloads = NetworkEventPayloads<'consumer'> & {
  'consumer.heartbeat': { groupId: string, memberId: string, groupGenerationId: number }
  'consumer.commit_offsets': { groupId: string, memberId: string | undefined, groupGenerationId: number | undefined, topics: Array<{ topic: string, partitions: Array<{ partition: string, offset: string }> }> }
  'consumer.group_join': { duration: number, groupId: string, isLeader: boolean, leaderId: string, groupProtocol: string, memberId: string, memberAssignment: Record<string, number[]> }
  'consumer.fetch_start': { nodeId: string }
  'consumer.fetch': { numberOfBatches: number, duration: number, nodeId: string }
  'consumer.start_batch_process': BatchProcessEventPayload
  'consumer.end_batch_process': BatchProcessEventPayload & { duration: number }
  'consumer.connect': null
  'consumer.disconnect': null
  'consumer.stop': null
  'consumer.crash': { error: Error, groupId: string, restart: boolean }
  'consumer.rebalancing': { groupId: string, memberId: string | undefined }
  'consumer.received_unsubscribed_topics': { groupId: string, generationId: number, memberId: string, assignedTopics: string[], topicsSubscribed: string[], topicsNotSubscribed: string[] }
}

/**
 * The names an instrumented object accepts, with the payload each one's events carry (what
 * kafkats emits, as kafkajs does at run time) and the event type kafkajs declares for it
 * (what listeners are typed with).
 */
export class Instrumentation<Payloads extends object, Events extends Record<keyof Payloads, unknown>> {
  readonly #emitter = new EventEmitter()
  readonly #names: Set<string>
  readonly #keys: string

  constructor (kind: 'admin' | 'producer' | 'consumer', events: Record<string, keyof Payloads & string>) {
    this.#keys = Object.keys(events).map(k => `${kind}.events.${k}`).join(', ')
    this.#names = new Set(Object.values(events))
  }

  on<E extends keyof Payloads & string> (eventName: E, listener: (event: Events[E]) => void): RemoveInstrumentationEventListener<E> {
    if (!this.#names.has(eventName)) {
      throw new KafkaJSNonRetriableError(`Event name should be one of ${this.#keys}`)
    }
    const wrapped = (event: Events[E]): void => {
      // A listener's failure does not stop the client, as in kafkajs.
      Promise.resolve().then(() => listener(event)).catch(() => {})
    }
    this.#emitter.on(eventName, wrapped)
    return () => { this.#emitter.removeListener(eventName, wrapped) }
  }

  /** kafkajs's network.request / request_timeout / request_queue_size from the Client's 'request' event. */
  network (prefix: 'admin' | 'producer' | 'consumer', event: RequestEvent): void {
    const { apiKey, apiVersion, broker, clientId, correlationId, sentAt } = event
    // kafkats writes a request when it is made: nothing waits in a queue before it.
    const base = { apiKey, apiName: kafkajsApiName(apiKey, event.apiName), apiVersion, broker, clientId, correlationId, createdAt: sentAt, pendingDuration: 0, sentAt }
    if (event.outcome === 'answered') this.#emit(`${prefix}.network.request`, { ...base, duration: event.durationMs, size: event.size } satisfies RequestEventPayload)
    else this.#emit(`${prefix}.network.request_timeout`, base satisfies RequestEventPayloadBase)
    this.#emit(`${prefix}.network.request_queue_size`, { broker, clientId, queueSize: event.inFlight } satisfies RequestQueueSizeEventPayload)
  }

  emit<E extends keyof Payloads & string> (type: E, payload: Payloads[E]): void {
    this.#emit(type, payload)
  }

  #emit (type: string, payload: unknown): void {
    if (this.#emitter.listenerCount(type) === 0) return
    // kafkajs's event at run time: a numeric id (its types say string), the payload as kafkajs's run time has it.
    this.#emitter.emit(type, { id: nextEventId++, type, timestamp: Date.now(), payload })
  }
}

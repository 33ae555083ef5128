/**
 * Instrumentation: what a Client and everything made from it report through — the logger
 * (logger.ts), the Client's typed events (events.ts), the metrics registry (metrics.ts)
 * and the node:diagnostics_channel tracing channels below. One object per Client, handed
 * down to the broker pool, the connections, the metadata cache, producers and consumers.
 *
 * Tracing channels (all under `kafkats:`; see README "Observability"): each is a
 * TracingChannel, so a subscriber gets start / end / asyncStart / asyncEnd / error with
 * one context object per operation, the shape OpenTelemetry instrumentations build spans
 * from. Nothing is built or published unless someone subscribed (`subscribed()`), so an
 * unobserved client pays one boolean check per operation.
 */
import { tracingChannel, type TracingChannel } from 'node:diagnostics_channel'
import type { ClientEvents, TypedEvents } from './events'
import { Log } from './logger'
import { MetricsRegistry } from './metrics'

/** One request to a broker ('kafkats:request'). */
export interface RequestTrace {
  clientId: string
  /** The API's name and key, e.g. 'Produce' and 0. */
  api: string
  apiKey: number
  version: number
  correlationId: number
  /** The broker's node id (negative for a bootstrap address), and its address and connection purpose. */
  nodeId: number
  broker: string
  /** Bytes of the request frame. */
  requestBytes: number
  /** Bytes of the response frame, once answered. */
  responseBytes?: number
  /** Milliseconds from the write to the answer (or the failure). */
  durationMs?: number
  /** The decoded response (set before asyncStart). */
  result?: unknown
  /** Why it failed (set before the error event). */
  error?: unknown
}

/** One `producer.send()` call ('kafkats:producer:send'): its records, then their metadata. */
export interface ProducerSendTrace {
  clientId: string
  /** The topic of the first record (sends of one topic are the common case), and how many records. */
  topic: string
  records: number
  /** The record metadata (an array for an array send) once acknowledged. */
  result?: unknown
  error?: unknown
}

/** One batch handed to the application ('kafkats:consumer:batch'): from the hand-out to the moment the application finished it. */
export interface ConsumerBatchTrace {
  clientId: string
  /** The consumer group, or undefined for assigned partitions. */
  group: string | undefined
  topic: string
  partition: number
  records: number
  firstOffset: bigint | undefined
  nextOffset: bigint
  highWatermark: bigint
  /** The offset the batch counted as processed up to (null: nothing; set at the end). */
  processedUpTo?: bigint | null
  error?: unknown
}

/** One assignment applied by a group member ('kafkats:group:rebalance'): revoke, then add. */
export interface RebalanceTrace {
  clientId: string
  group: string
  memberId: string
  /** Classic: the generation; KIP-848: the member epoch. */
  generation: number
  protocol: 'classic' | 'consumer'
  /** The partitions of the new assignment. */
  assignment: Array<{ topic: string, partition: number }>
  /** Set at the end: what was added and revoked. */
  added?: Array<{ topic: string, partition: number }>
  revoked?: Array<{ topic: string, partition: number }>
  error?: unknown
}

export const channels = {
  request: tracingChannel<unknown, RequestTrace>('kafkats:request'),
  producerSend: tracingChannel<unknown, ProducerSendTrace>('kafkats:producer:send'),
  consumerBatch: tracingChannel<unknown, ConsumerBatchTrace>('kafkats:consumer:batch'),
  rebalance: tracingChannel<unknown, RebalanceTrace>('kafkats:group:rebalance')
} as const

/** Whether anyone listens to a tracing channel (TracingChannel.hasSubscribers is missing before Node 20.13). */
export function subscribed<Context extends object> (channel: TracingChannel<unknown, Context>): boolean {
  return channel.start.hasSubscribers || channel.end.hasSubscribers || channel.asyncStart.hasSubscribers || channel.asyncEnd.hasSubscribers || channel.error.hasSubscribers
}

/** Publishes the end of an asynchronous operation started with start + end: error (if any), asyncStart, asyncEnd. */
export function publishAsyncEnd<T extends { error?: unknown }> (channel: TracingChannel<unknown, T>, context: T, error?: unknown): void {
  if (error !== undefined) {
    context.error = error
    channel.error.publish(context)
  }
  channel.asyncStart.publish(context)
  channel.asyncEnd.publish(context)
}

export class Instrumentation {
  readonly clientId: string
  readonly log: Log
  /** The Client: its events. */
  readonly events: TypedEvents<ClientEvents>
  readonly metrics = new MetricsRegistry()

  constructor (clientId: string, log: Log, events: TypedEvents<ClientEvents>) {
    this.clientId = clientId
    this.log = log
    this.events = events
  }

  /** For a Connection or BrokerPool made outside a Client (tests): nothing logged but warnings, events to nobody. */
  static standalone (clientId = 'kafkats'): Instrumentation {
    return new Instrumentation(clientId, new Log(clientId), { emit: () => false, listenerCount: () => 0 } as unknown as TypedEvents<ClientEvents>)
  }
}

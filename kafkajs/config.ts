/**
 * kafkajs's client configuration (KafkaConfig and what it holds), its retry schedule, and
 * the ClientContext a Kafka instance gives each producer, consumer and admin it makes.
 */
import type { EventEmitter } from 'node:events'
import type { Client } from '../index'
import type { RequestEvent } from '../client/events'
import type { KafkaConfig, Logger, RetryOptions } from './types'

export type { BrokersFunction, ISocketFactory, ISocketFactoryArgs, KafkaConfig, RetryOptions, SASLMechanism, SASLOptions } from './types'

/** kafkajs's defaults for `retry`. */
export const DEFAULT_RETRY: Required<Omit<RetryOptions, 'restartOnFailure'>> = { maxRetryTime: 30_000, initialRetryTime: 300, factor: 0.2, multiplier: 2, retries: 5 }

/** kafkajs's delay before retry `attempt` (0-based): initial·multiplier^attempt, ±factor random, capped. */
export function retryDelay (retry: RetryOptions, attempt: number): number {
  const r = { ...DEFAULT_RETRY, ...retry }
  const base = Math.min(r.initialRetryTime * r.multiplier ** attempt, r.maxRetryTime)
  return Math.round(base * (1 - r.factor + Math.random() * 2 * r.factor))
}

export interface ClientContext {
  config: KafkaConfig
  logger: Logger
  /** A connected kafkats Client for one kafkajs client (producer, consumer or admin). */
  connect: (namespace: string, extra?: { metadataMaxAge?: number, onRequest?: (event: RequestEvent) => void }) => Promise<Client>
  /**
   * Offsets a transaction of this Kafka instance committed for a group: kafkajs shares them with
   * the instance's consumers, whose uncommittedOffsets() then leave them out.
   */
  committedOffsets: EventEmitter<{ committed: [groupId: string, offsets: Array<{ topic: string, partition: number, offset: bigint }>] }>
}

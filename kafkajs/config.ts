/**
 * kafkajs's client configuration (KafkaConfig and what it holds), its retry schedule, and
 * the ClientContext a Kafka instance gives each producer, consumer and admin it makes.
 */
import type { EventEmitter } from 'node:events'
import type * as net from 'node:net'
import type * as tls from 'node:tls'
import type { Client } from '../index'
import type { RequestEvent } from '../client/events'
import type { LogCreator, Logger } from './logger'

export interface RetryOptions {
  maxRetryTime?: number
  initialRetryTime?: number
  factor?: number
  multiplier?: number
  retries?: number
  restartOnFailure?: (e: Error) => Promise<boolean>
}

export type SASLMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'aws' | 'oauthbearer'
export interface SASLOptions {
  mechanism: SASLMechanism
  username?: string
  password?: string
  oauthBearerProvider?: () => Promise<{ value: string }>
  authenticationProvider?: unknown
  [key: string]: unknown
}

export type BrokersFunction = () => string[] | Promise<string[]>

/**
 * kafkajs's socket factory arguments, typed as kafkajs types them: at run time `ssl` is
 * undefined for plaintext (kafkajs's own factory tests it to choose node:tls or node:net).
 */
export interface ISocketFactoryArgs {
  host: string
  port: number
  ssl: tls.ConnectionOptions
  onConnect: () => void
}
export type ISocketFactory = (args: ISocketFactoryArgs) => net.Socket

export interface KafkaConfig {
  brokers: string[] | BrokersFunction
  ssl?: tls.ConnectionOptions | boolean
  sasl?: SASLOptions
  clientId?: string
  connectionTimeout?: number
  authenticationTimeout?: number
  reauthenticationThreshold?: number
  requestTimeout?: number
  enforceRequestTimeout?: boolean
  retry?: RetryOptions
  /** kafkajs's `({ host, port, ssl, onConnect }) => net.Socket`. */
  socketFactory?: ISocketFactory
  logLevel?: number
  logCreator?: LogCreator
}

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

/**
 * `new Kafka(config)`: kafkajs's entry point. It holds the configuration; each producer,
 * consumer and admin it makes gets its own kafkats Client when it connects (as each kafkajs
 * client has its own cluster connections), so `brokers` may be an async function.
 */
import { EventEmitter } from 'node:events'
import type * as net from 'node:net'
import type * as tls from 'node:tls'
import type { ClientOptions } from '../client/client'
import { Client } from '../index'
import type { RequestEvent } from '../client/events'
import type { SaslOptions } from '../client/sasl'
import { Metadata } from '../protocol/apis/metadata'
import { KafkaJSNonRetriableError, toKafkaJSError } from './errors'
import { createLogger, type LogCreator, type Logger } from './logger'
import { logLevel as LEVELS } from './constants'
import { createProducer, type KafkaJSProducer, type ProducerConfig } from './producer'
import { createConsumer, type KafkaJSConsumer, type ConsumerConfig } from './consumer'
import { createAdmin, type KafkaJSAdmin, type AdminConfig } from './admin'

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

function saslOptions (sasl: SASLOptions): SaslOptions {
  const mechanism = String(sasl.mechanism).toLowerCase()
  if (mechanism === 'plain') return { mechanism: 'PLAIN', username: sasl.username ?? '', password: sasl.password ?? '' }
  if (mechanism === 'scram-sha-256') return { mechanism: 'SCRAM-SHA-256', username: sasl.username ?? '', password: sasl.password ?? '' }
  if (mechanism === 'scram-sha-512') return { mechanism: 'SCRAM-SHA-512', username: sasl.username ?? '', password: sasl.password ?? '' }
  if (mechanism === 'oauthbearer' && typeof sasl.oauthBearerProvider === 'function') {
    const provider = sasl.oauthBearerProvider
    return { mechanism: 'OAUTHBEARER', token: async () => (await provider()).value }
  }
  throw new KafkaJSNonRetriableError(`SASL ${String(sasl.mechanism)} mechanism is not supported by kafkats/kafkajs (supported: plain, scram-sha-256, scram-sha-512, oauthbearer)`)
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

export class Kafka {
  readonly #config: KafkaConfig
  readonly #logger: Logger

  constructor (config: KafkaConfig) {
    if (config === null || typeof config !== 'object') throw new KafkaJSNonRetriableError('Kafka needs a config object with brokers')
    if (!Array.isArray(config.brokers) && typeof config.brokers !== 'function') throw new KafkaJSNonRetriableError(`Failed to connect: expected brokers array and got ${typeof config.brokers}`)
    this.#config = config
    this.#logger = createLogger({ level: config.logLevel ?? LEVELS.INFO, logCreator: config.logCreator })
  }

  logger (): Logger {
    return this.#logger
  }

  producer (config: ProducerConfig = {}): KafkaJSProducer {
    return createProducer(this.#context(), config)
  }

  consumer (config: ConsumerConfig): KafkaJSConsumer {
    return createConsumer(this.#context(), config)
  }

  admin (config: AdminConfig = {}): KafkaJSAdmin {
    return createAdmin(this.#context(), config)
  }

  readonly #committedOffsets: ClientContext['committedOffsets'] = new EventEmitter<{ committed: [groupId: string, offsets: Array<{ topic: string, partition: number, offset: bigint }>] }>().setMaxListeners(0)

  #context (): ClientContext {
    const config = this.#config
    return {
      config,
      logger: this.#logger,
      committedOffsets: this.#committedOffsets,
      connect: async (namespace, extra = {}) => {
        let brokers = config.brokers
        if (typeof brokers === 'function') {
          try {
            brokers = await brokers()
          } catch (error) {
            throw new KafkaJSNonRetriableError(`Failed to connect: "config.brokers" threw: ${(error as Error).message}`, { cause: error as Error })
          }
        }
        if (!Array.isArray(brokers) || brokers.length === 0) throw new KafkaJSNonRetriableError(`Failed to connect: "config.brokers" returned void or empty array`)
        const retry = { ...DEFAULT_RETRY, ...config.retry }
        const options: ClientOptions = {
          bootstrap: brokers,
          clientId: config.clientId ?? 'kafkajs',
          requestTimeoutMs: config.requestTimeout ?? 30_000,
          connectTimeoutMs: config.connectionTimeout ?? 1000,
          retryBackoff: { initialMs: retry.initialRetryTime, maxMs: retry.maxRetryTime },
          // kafkajs: metadataMaxAge 0 means "always refresh"; kafkats needs a positive age.
          metadataMaxAgeMs: Math.max(1, extra.metadataMaxAge ?? 300_000)
        }
        if (config.ssl !== undefined && config.ssl !== false) options.tls = config.ssl
        if (config.sasl !== undefined) options.sasl = saslOptions(config.sasl)
        const socketFactory = config.socketFactory
        if (socketFactory !== undefined) options.socketFactory = ({ host, port, tls: tlsOptions, onConnect }) => socketFactory({ host, port, ssl: tlsOptions as tls.ConnectionOptions, onConnect })
        const client = new Client(options)
        if (extra.onRequest !== undefined) client.on('request', extra.onRequest)
        try {
          // kafkajs's connect() reaches a broker; so does this (and fails as kafkajs does), within the connection timeout.
          await client.request(Metadata, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }, { timeoutMs: Math.max(options.requestTimeoutMs ?? 30_000, options.connectTimeoutMs ?? 1000) })
        } catch (error) {
          await client.close().catch(() => {})
          throw toKafkaJSError(error)
        }
        this.#logger.namespace(namespace).debug('Connected', { brokers })
        return client
      }
    }
  }
}

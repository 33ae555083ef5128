/**
 * `new Kafka(config)`: kafkajs's entry point. It holds the configuration; each producer,
 * consumer and admin it makes gets its own kafkats Client when it connects (as each kafkajs
 * client has its own cluster connections), so `brokers` may be an async function.
 */
import { EventEmitter } from 'node:events'
import type * as tls from 'node:tls'
import type { ClientOptions } from '../client/client'
import { Client } from '../index'
import type { SaslOptions } from '../client/sasl'
import { Metadata } from '../protocol/apis/metadata'
import { KafkaJSNonRetriableError, toKafkaJSError } from './errors'
import { createLogger, logs, type Logger } from './logger'
import { kafkajsApiName } from './instrumentation'
import { logLevel as LEVELS } from './constants'
import { createProducer } from './producer'
import { createConsumer } from './consumer'
import { createAdmin } from './admin'
import { DEFAULT_RETRY, type ClientContext } from './config'
import type { Admin, AdminConfig, Consumer, ConsumerConfig, KafkaConfig, Mechanism, Producer, ProducerConfig, SASLOptions } from './types'


function saslOptions (sasl: SASLOptions | Mechanism): SaslOptions {
  // Read loosely: kafkajs matches the mechanism name in any case, and plain JavaScript passes what it likes.
  const given = sasl as { mechanism: string, username?: string, password?: string, oauthBearerProvider?: () => Promise<{ value: string }> }
  const mechanism = String(given.mechanism).toLowerCase()
  if (mechanism === 'plain') return { mechanism: 'PLAIN', username: given.username ?? '', password: given.password ?? '' }
  if (mechanism === 'scram-sha-256') return { mechanism: 'SCRAM-SHA-256', username: given.username ?? '', password: given.password ?? '' }
  if (mechanism === 'scram-sha-512') return { mechanism: 'SCRAM-SHA-512', username: given.username ?? '', password: given.password ?? '' }
  const provider = given.oauthBearerProvider
  if (mechanism === 'oauthbearer' && typeof provider === 'function') {
    return { mechanism: 'OAUTHBEARER', token: async () => (await provider()).value }
  }
  throw new KafkaJSNonRetriableError(`SASL ${String(given.mechanism)} mechanism is not supported by kafkats/kafkajs (supported: plain, scram-sha-256, scram-sha-512, oauthbearer)`)
}

/**
 * kafkajs's Connection log lines (DEBUG): "Connecting", and "Request <ApiName>(key: k, version: v)"
 * and "Response …" for each answered request (both written when the answer comes: kafkats reports
 * a request once, with its outcome), with kafkajs's fields but not its decoded answer.
 */
function logConnections (client: Client, logger: Logger, { ssl, sasl }: { ssl: boolean, sasl: boolean }): void {
  client.on('connect', event => {
    if (logs(logger, LEVELS.DEBUG)) logger.debug('Connecting', { broker: event.broker, clientId: client.clientId, ssl, sasl })
  })
  client.on('request', event => {
    if (!logs(logger, LEVELS.DEBUG) || event.outcome !== 'answered') return
    const request = `${kafkajsApiName(event.apiKey, event.apiName)}(key: ${event.apiKey}, version: ${event.apiVersion})`
    const { broker, clientId, correlationId, size } = event
    logger.debug(`Request ${request}`, { broker, clientId, correlationId, expectResponse: true, size })
    logger.debug(`Response ${request}`, { broker, clientId, correlationId, size })
  })
}

/**
 * kafkajs makes each producer and consumer through the function of its module src/producer/index.js
 * (src/consumer/index.js), handing it the client's Cluster, and @opentelemetry/instrumentation-kafkajs
 * wraps those modules by path to learn each client's cluster id for its spans. The stand-in package
 * named `kafkajs` (packages/kafkajs-standin) has modules of those names and sets them on Kafka under
 * this key; Kafka then makes its producers and consumers through them.
 */
const kafkajsModules = Symbol.for('kafkats.kafkajs.modules')

/** What instrumentations read of a kafkajs Cluster: `brokerPool.metadata.clusterId`, null before the client connected. */
interface ClusterView { readonly brokerPool: { readonly metadata: { readonly clusterId: string | undefined } | null } }

/** A kafkajs factory module's function, as the stand-in's modules have it: the client's cluster beside what makes the client. */
type ThroughModule = <T>(params: { cluster: ClusterView, make: () => T }) => T

/** Each client's context, and its Cluster view for instrumentations (the cluster id its kafkats Client learnt on connecting). */
function withClusterView (context: ClientContext): { context: ClientContext, cluster: ClusterView } {
  let connected: Client | undefined
  const metadata = { get clusterId () { return connected?.metadata.clusterId ?? undefined } }
  const cluster: ClusterView = { brokerPool: { get metadata () { return connected === undefined ? null : metadata } } }
  return { cluster, context: { ...context, connect: async (namespace, extra) => (connected = await context.connect(namespace, extra)) } }
}

/** Makes a client through the stand-in's kafkajs module of its kind, when the stand-in set one. */
function throughModule<T> (kind: 'producer' | 'consumer', context: ClientContext, make: (context: ClientContext) => T): T {
  const module = (Kafka as unknown as Record<symbol, Partial<Record<'producer' | 'consumer', ThroughModule>> | undefined>)[kafkajsModules]?.[kind]
  if (module === undefined) return make(context)
  const view = withClusterView(context)
  return module({ cluster: view.cluster, make: () => make(view.context) })
}

/** kafkajs's entry point: holds the configuration and makes producers, consumers and admin clients, each with its own connections. */
export class Kafka {
  readonly #config: KafkaConfig
  readonly #logger: Logger

  /** Checks the configuration (`brokers` must be an array or a function); nothing connects until a client's connect(). */
  constructor (config: KafkaConfig) {
    if (config === null || typeof config !== 'object') throw new KafkaJSNonRetriableError('Kafka needs a config object with brokers')
    if (!Array.isArray(config.brokers) && typeof config.brokers !== 'function') throw new KafkaJSNonRetriableError(`Failed to connect: expected brokers array and got ${typeof config.brokers}`)
    this.#config = config
    this.#logger = createLogger({ level: config.logLevel ?? LEVELS.INFO, logCreator: config.logCreator })
  }

  /** The instance's root logger. */
  logger (): Logger {
    return this.#logger
  }

  /** A new producer (not connected yet). */
  producer (config: ProducerConfig = {}): Producer {
    return throughModule('producer', this.#context(), context => createProducer(context, config))
  }

  /** A new consumer of the group `config.groupId` (not connected yet). */
  consumer (config: ConsumerConfig): Consumer {
    return throughModule('consumer', this.#context(), context => createConsumer(context, config))
  }

  /** A new admin client (not connected yet). */
  admin (config: AdminConfig = {}): Admin {
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
        logConnections(client, this.#logger.namespace('Connection'), { ssl: options.tls !== undefined, sasl: options.sasl !== undefined })
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

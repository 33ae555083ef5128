/**
 * kafkajs 2.2.4's public types, shape for shape, so that a program written against kafkajs's
 * types/index.d.ts type-checks against kafkats/kafkajs unchanged (tests/kafkajs/types.test.ts
 * compares the two). The implementation (producer.ts, consumer.ts, admin.ts) is checked
 * against these: Kafka's producer()/consumer()/admin() return them.
 *
 * Where kafkajs's types and its run time disagree the types are kafkajs's (an event's `id` is
 * a number at run time in both), since it is kafkajs's types that programs were written to.
 */
import type * as net from 'node:net'
import type * as tls from 'node:tls'
import type {
  AclOperationTypes, AclPermissionTypes, AclResourceTypes, CompressionTypes, ConfigResourceTypes, ConfigSource, logLevel, ResourcePatternTypes
} from './constants'
import type { DeleteGroupsResult } from './errors'
import type { PartitionMetadata } from './partition-metadata'
// Declared where they are used (the errors carry them; a leaf module for the metadata both need), exported from here with the others.
export type { KafkaJSErrorMetadata, KafkaJSOffsetOutOfRangeMetadata, KafkaJSNumberOfRetriesExceededMetadata, KafkaJSConnectionErrorMetadata, KafkaJSRequestTimeoutErrorMetadata, KafkaJSTopicMetadataNotLoadedMetadata, KafkaJSStaleTopicMetadataAssignmentMetadata, KafkaJSServerDoesNotSupportApiKeyMetadata, KafkaJSDeleteGroupsErrorGroups, KafkaJSDeleteTopicRecordsErrorPartition, KafkaJSDeleteTopicRecordsErrorTopic, DeleteGroupsResult } from './errors'
export type { PartitionMetadata } from './partition-metadata'

// ---------------------------------------------------------------- helpers kafkajs's declarations export

/** The keys of `T` that `U` lacks, each made optional `never` (a helper of {@link XOR}). */
export type Without<T, U> = { [P in Exclude<keyof T, keyof U>]?: never }
/** Either `T` or `U` but not the keys of both (as in `fetchTopicsOffset`'s `fromBeginning` or `fromTimestamp`). */
export type XOR<T, U> = T | U extends object ? (Without<T, U> & U) | (Without<U, T> & T) : T | U
/** The union of `T`'s property types (an events object's event names). */
export type ValueOf<T> = T[keyof T]

// ---------------------------------------------------------------- client configuration

/** `brokers` as a function: called at each client's connect() for the bootstrap `host:port` list (may be async). */
export type BrokersFunction = () => string[] | Promise<string[]>

/** A custom SASL mechanism's request (kafkajs's authentication provider API; kafkats/kafkajs refuses custom mechanisms). */
export interface SaslAuthenticationRequest {
  /** The bytes of the SaslAuthenticate request to send. */
  encode: () => Buffer | Promise<Buffer>
}
/** A custom SASL mechanism's decoder of the broker's answer (kafkajs's authentication provider API). */
export interface SaslAuthenticationResponse<ParseResult> {
  /** Takes the broker's raw answer apart, returning the bytes `parse` reads. */
  decode: (rawResponse: Buffer) => Buffer | Promise<Buffer>
  /** The decoded answer as the mechanism's result. */
  parse: (data: Buffer) => ParseResult
}
/** What a custom mechanism's `authenticationProvider` returns. */
export interface Authenticator {
  /** Runs the mechanism's exchange on a new connection; rejects when authentication fails. */
  authenticate: () => Promise<void>
}
/** The argument of {@link AuthenticationProviderArgs.saslAuthenticate}: one request and how to read its answer. */
export interface SaslAuthenticateArgs<ParseResult> {
  /** The request to send. */
  request: SaslAuthenticationRequest
  /** How to read the answer; without it, the answer is not read. */
  response?: SaslAuthenticationResponse<ParseResult>
}
/** What kafkajs hands a custom mechanism's `authenticationProvider` for each connection. */
export interface AuthenticationProviderArgs {
  /** The broker's host name. */
  host: string
  /** The broker's port. */
  port: number
  /** The client's logger. */
  logger: Logger
  /** Sends one SaslAuthenticate request on the connection and resolves with its parsed answer. */
  saslAuthenticate: <ParseResult>(args: SaslAuthenticateArgs<ParseResult>) => Promise<ParseResult | void>
}
/** A custom SASL mechanism (kafkajs's `sasl: { mechanism, authenticationProvider }`); kafkats/kafkajs refuses it at connect. */
export interface Mechanism {
  /** The mechanism's name, as the broker knows it. */
  mechanism: string
  /** Makes the Authenticator of one connection. */
  authenticationProvider: (args: AuthenticationProviderArgs) => Authenticator
}

/** What an `oauthBearerProvider` resolves with. */
export interface OauthbearerProviderResponse {
  /** The bearer token (a JWT) sent to the broker. */
  value: string
}
/** Each built-in SASL mechanism's options, by `mechanism` name. */
export interface SASLMechanismOptionsMap {
  /** SASL/PLAIN: the user name and password, sent as they are (use TLS). */
  plain: {
    /** The user name. */
    username: string
    /** The password. */
    password: string
  }
  /** SASL/SCRAM-SHA-256. */
  'scram-sha-256': {
    /** The user name. */
    username: string
    /** The password. */
    password: string
  }
  /** SASL/SCRAM-SHA-512. */
  'scram-sha-512': {
    /** The user name. */
    username: string
    /** The password. */
    password: string
  }
  /** AWS IAM: not supported by kafkats/kafkajs yet (connect() fails, saying so). */
  aws: {
    /** The identity to authorize as. */
    authorizationIdentity: string
    /** The AWS access key id. */
    accessKeyId: string
    /** The AWS secret access key. */
    secretAccessKey: string
    /** The AWS session token, for temporary credentials. */
    sessionToken?: string
  }
  /** SASL/OAUTHBEARER: the token comes from the provider. */
  oauthbearer: {
    /** Called at each authentication (and re-authentication) for a token. */
    oauthBearerProvider: () => Promise<OauthbearerProviderResponse>
  }
}
/** A built-in SASL mechanism's name: `plain`, `scram-sha-256`, `scram-sha-512`, `aws` or `oauthbearer` (matched in any case). */
export type SASLMechanism = keyof SASLMechanismOptionsMap
/** One mechanism's `sasl` option: `{ mechanism }` with that mechanism's fields. */
export type SASLMechanismOptions<T> = T extends SASLMechanism ? {
  /** The mechanism's name. */
  mechanism: T
} & SASLMechanismOptionsMap[T] : never
/** The `sasl` option with a built-in mechanism. */
export type SASLOptions = SASLMechanismOptions<SASLMechanism>

/** kafkajs's retry schedule: the delay before retry n is `initialRetryTime · multiplier^n`, randomized by ±`factor`, at most `maxRetryTime`. */
export interface RetryOptions {
  /** The longest delay between two retries, in ms (default 30000); also kafkats's longest backoff between requests. */
  maxRetryTime?: number
  /** The delay before the first retry, in ms (default 300); also kafkats's first backoff between requests. */
  initialRetryTime?: number
  /** The randomization of each delay, as a fraction of it (default 0.2). */
  factor?: number
  /** How much each delay grows over the one before (default 2). */
  multiplier?: number
  /** How many times to retry (default 5): a producer's failed send (an idempotent one retries until its outcome is known), a consumer's failing handler before the consumer crashes. */
  retries?: number
  /** Whether a consumer that crashed on a retriable error restarts (default: it does); called with the error. */
  restartOnFailure?: (e: Error) => Promise<boolean>
}

/** kafkajs's socket factory arguments, as kafkajs types them: at run time `ssl` is undefined for plaintext. */
export interface ISocketFactoryArgs {
  /** The broker's host name. */
  host: string
  /** The broker's port. */
  port: number
  /** The TLS options of the `ssl` client option; undefined at run time when the client does not use TLS. */
  ssl: tls.ConnectionOptions
  /** To call once the socket is connected (for TLS: once the handshake is done). */
  onConnect: () => void
}
/** Makes the socket of each broker connection (`socketFactory` option): kafkats's own `socketFactory` client option. */
export type ISocketFactory = (args: ISocketFactoryArgs) => net.Socket

/** `new Kafka(config)`: what every producer, consumer and admin of the instance connects with. */
export interface KafkaConfig {
  /** The bootstrap brokers as `host:port`, or a function resolving them, called at each client's connect(). */
  brokers: string[] | BrokersFunction
  /** `true` for TLS with Node's defaults, or Node's `tls.connect` options; absent or `false`: plaintext. */
  ssl?: tls.ConnectionOptions | boolean
  /** SASL authentication: plain, scram-sha-256, scram-sha-512 or oauthbearer (`aws` and custom mechanisms fail at connect). */
  sasl?: SASLOptions | Mechanism
  /** The client id sent with every request (default `'kafkajs'`). */
  clientId?: string
  /** How long to wait for a broker connection, in ms (default 1000). */
  connectionTimeout?: number
  /** Accepted for compatibility and not used (kafkajs: how long SASL authentication may take, in ms). */
  authenticationTimeout?: number
  /** Accepted for compatibility and not used: kafkats re-authenticates at 85-95 % of the session lifetime the broker gives (KIP-368). */
  reauthenticationThreshold?: number
  /** How long a request may wait for its answer, in ms (default 30000). */
  requestTimeout?: number
  /** Accepted for compatibility and not used: kafkats always enforces `requestTimeout`. */
  enforceRequestTimeout?: boolean
  /** The retry schedule of every client of the instance (a producer's or consumer's own `retry` overrides it). */
  retry?: RetryOptions
  /** Makes each broker connection's socket, as in kafkajs (kafkats's `socketFactory` client option). */
  socketFactory?: ISocketFactory
  /** The most detailed level logged (default `logLevel.INFO`; the KAFKAJS_LOG_LEVEL environment variable overrides it). */
  logLevel?: logLevel
  /** Where log entries go (default: one JSON line per entry on the console). */
  logCreator?: logCreator
}

// ---------------------------------------------------------------- logging

/** A log entry's content: kafkajs's fields (`logger: 'kafkajs'` among them) and the caller's extra ones. */
export interface LoggerEntryContent {
  /** When the entry was made, as an ISO 8601 string. */
  readonly timestamp: string
  /** The log line. */
  readonly message: string
  /** The fields logged with the line (`groupId`, `broker`, `error`, ...). */
  // kafkajs's entries carry whatever extra fields the caller logged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [key: string]: any
}
/** What a `logCreator`'s function receives for each entry. */
export interface LogEntry {
  /** The part of the client that logged (`Consumer`, `ConsumerGroup`, `Connection`, ...; `''` at the root). */
  namespace: string
  /** The entry's level. */
  level: logLevel
  /** The level's name: `ERROR`, `WARN`, `INFO` or `DEBUG`. */
  label: string
  /** The entry's content. */
  log: LoggerEntryContent
}
/** The `logCreator` option: called once with the instance's level, it returns the function every entry goes to. */
export type logCreator = (logLevel: logLevel) => (entry: LogEntry) => void
/** A client's logger (`kafka.logger()`, `producer.logger()`, ...): entries go through the instance's `logCreator`. */
export interface Logger {
  /** Logs at INFO. */
  info: (message: string, extra?: object) => void
  /** Logs at ERROR. */
  error: (message: string, extra?: object) => void
  /** Logs at WARN. */
  warn: (message: string, extra?: object) => void
  /** Logs at DEBUG. */
  debug: (message: string, extra?: object) => void
  /** A logger whose entries carry this namespace, at its own level if given. */
  namespace: (namespace: string, logLevel?: logLevel) => Logger
  /** Changes the level of the instance's loggers (those without a level of their own). */
  setLogLevel: (logLevel: logLevel) => void
}

// ---------------------------------------------------------------- producing

/** `kafka.producer(config)`. */
export interface ProducerConfig {
  /** Chooses a message's partition when it names none (default `Partitioners.DefaultPartitioner`, Java's murmur2). */
  createPartitioner?: ICustomPartitioner
  /** The producer's retry options; kafkats uses `retries` (default: the instance's, else 5) for sends that are not idempotent. */
  retry?: RetryOptions
  /** How old topic metadata may get before it is refreshed, in ms (default 300000; 0 is taken as 1). */
  metadataMaxAge?: number
  /** Whether sending to an unknown topic asks the broker to create it (default true; the broker's auto.create.topics.enable decides). */
  allowAutoTopicCreation?: boolean
  /** Exactly-once per partition (default false): needs `acks: -1`; a batch whose outcome is unknown is retried under its sequence until known. */
  idempotent?: boolean
  /** Makes the producer transactional (and idempotent): needed for `transaction()`. */
  transactionalId?: string
  /** How long a transaction may stay open before the broker aborts it, in ms (default 60000). */
  transactionTimeout?: number
  /** Accepted for compatibility and not used: kafkats keeps its own limit of requests in flight. */
  maxInFlightRequests?: number
}

/** A message's headers: each value a Buffer or string, or an array of them (one header per element). */
export interface IHeaders {
  /** The header's value(s); a string is sent as UTF-8, undefined is left out. */
  [key: string]: Buffer | string | Array<Buffer | string> | undefined
}

/** One message to send. */
export interface Message {
  /** The key, which the partitioner hashes to choose the partition; null or absent: none. */
  key?: Buffer | string | null
  /** The value; null is a tombstone (for compacted topics). */
  value: Buffer | string | null
  /** The partition to write to; absent: the partitioner chooses. */
  partition?: number
  /** The message's headers. */
  headers?: IHeaders
  /** The message's time, in ms since the epoch as a string (default: when it is sent). */
  timestamp?: string
}

/** What a partitioner is asked with, per message. */
export interface PartitionerArgs {
  /** The message's topic. */
  topic: string
  /** The topic's partitions, as the producer's metadata has them. */
  partitionMetadata: PartitionMetadata[]
  /** The message (its `partition` is not set). */
  message: Message
}
/** The `createPartitioner` option: called once per producer, it returns the function that picks each message's partition. */
export type ICustomPartitioner = () => (args: PartitionerArgs) => number
/** The type of `Partitioners.DefaultPartitioner` (Java's murmur2, as kafkajs 2's default). */
export type DefaultPartitioner = ICustomPartitioner
/** The type of `Partitioners.LegacyPartitioner` (kafkajs 1.x's default). */
export type LegacyPartitioner = ICustomPartitioner


/** `producer.send(record)`: messages for one topic. */
export interface ProducerRecord {
  /** The topic to write to. */
  topic: string
  /** The messages to write. */
  messages: Message[]
  /** -1 (default): every in-sync replica has the messages; 1: the leader has them; 0: no answer awaited. */
  acks?: number
  /** The produce requests' timeout, in ms (default: `requestTimeout`); kafkats takes it from the first send with the same `acks` and `compression`. */
  timeout?: number
  /** The codec the messages are compressed with (default `CompressionTypes.None`). */
  compression?: CompressionTypes
}
/** One topic-partition's answer to a send: where its messages were written. */
export interface RecordMetadata {
  /** The topic. */
  topicName: string
  /** The partition. */
  partition: number
  /** 0: a failed send rejects instead. */
  errorCode: number
  /** Declared by kafkajs but not set at run time (in kafkajs too): see `baseOffset`. */
  offset?: string
  /** Declared by kafkajs but not set at run time (in kafkajs too). */
  timestamp?: string
  /** The offset of the first message of this send written to the partition. */
  baseOffset?: string
  /** The broker's append time for LogAppendTime topics; kafkats always answers `'-1'`. */
  logAppendTime?: string
  /** The partition's first offset, as the broker answered. */
  logStartOffset?: string
}
/** One topic's messages in a `sendBatch`. */
export interface TopicMessages {
  /** The topic to write to. */
  topic: string
  /** The messages to write. */
  messages: Message[]
}
/** `producer.sendBatch(batch)`: messages for several topics, in one call. */
export interface ProducerBatch {
  /** As {@link ProducerRecord.acks}. */
  acks?: number
  /** As {@link ProducerRecord.timeout}. */
  timeout?: number
  /** As {@link ProducerRecord.compression}. */
  compression?: CompressionTypes
  /** The messages, topic by topic. */
  topicMessages?: TopicMessages[]
}

/** A partition's offset. */
export interface PartitionOffset {
  /** The partition. */
  partition: number
  /** The offset, as a decimal string (a committed offset is the next message to read). */
  offset: string
}
/** A topic's partition offsets. */
export interface TopicOffsets {
  /** The topic. */
  topic: string
  /** Its partitions' offsets. */
  partitions: PartitionOffset[]
}
/** Offsets by topic (`transaction.sendOffsets`, `commitOffsetsIfNecessary`). */
export interface Offsets {
  /** The topics' offsets. */
  topics: TopicOffsets[]
}

/** What producers and transactions have in common: sending. */
export interface Sender {
  /** Sends messages to one topic; resolves once they are acknowledged (with `acks`), one entry per partition written. */
  send (record: ProducerRecord): Promise<RecordMetadata[]>
  /** Sends messages to several topics, as `send` does. */
  sendBatch (batch: ProducerBatch): Promise<RecordMetadata[]>
}

/** A producer's event names (`producer.events`). */
export interface ProducerEvents {
  /** The producer connected. */
  CONNECT: 'producer.connect'
  /** The producer disconnected. */
  DISCONNECT: 'producer.disconnect'
  /** A request was answered (see {@link RequestEvent}). */
  REQUEST: 'producer.network.request'
  /** A request timed out. */
  REQUEST_TIMEOUT: 'producer.network.request_timeout'
  /** A connection's count of requests awaiting an answer changed. */
  REQUEST_QUEUE_SIZE: 'producer.network.request_queue_size'
}

/** Each producer event name's event: what `producer.on(name, listener)` hands the listener. */
export interface ProducerEventMap {
  'producer.connect': ConnectEvent
  'producer.disconnect': DisconnectEvent
  'producer.network.request': RequestEvent
  'producer.network.request_timeout': RequestTimeoutEvent
  'producer.network.request_queue_size': RequestQueueSizeEvent
}

/** `kafka.producer()`: kafkajs's producer, on kafkats's. */
export type Producer = Sender & {
  /** Connects to the cluster: resolves once a broker answered; needed before sending. */
  connect (): Promise<void>
  /** Closes the producer and its connections. */
  disconnect (): Promise<void>
  /** Whether the producer is idempotent (`idempotent` or a `transactionalId`). */
  isIdempotent (): boolean
  /** The producer's event names, for `on`. */
  readonly events: ProducerEvents
  /** Listens to `producer.connect` events; returns the function that removes the listener. */
  on (eventName: 'producer.connect', listener: (event: ConnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `producer.disconnect` events; returns the function that removes the listener. */
  on (eventName: 'producer.disconnect', listener: (event: DisconnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `producer.network.request` events; returns the function that removes the listener. */
  on (eventName: 'producer.network.request', listener: (event: RequestEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `producer.network.request_timeout` events; returns the function that removes the listener. */
  on (eventName: 'producer.network.request_timeout', listener: (event: RequestTimeoutEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `producer.network.request_queue_size` events; returns the function that removes the listener. */
  on (eventName: 'producer.network.request_queue_size', listener: (event: RequestQueueSizeEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to any of the event names, with an untyped event; returns the function that removes the listener. */
  // kafkajs's catch-all overload: any of its event names, with an untyped event.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on (eventName: ValueOf<ProducerEvents>, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Begins a transaction (needs `transactionalId`; one at a time per producer). */
  transaction (): Promise<Transaction>
  /** The producer's logger (namespace `Producer`). */
  logger (): Logger
}

/** An open transaction (`producer.transaction()`): its sends are read by read_committed consumers only once committed. */
export type Transaction = Sender & {
  /** Adds a consumer group's offsets to the transaction: committed with it, or not at all. */
  sendOffsets (offsets: Offsets & { consumerGroupId: string }): Promise<void>
  /** Commits the transaction. */
  commit (): Promise<void>
  /** Aborts the transaction: its messages are never read by read_committed consumers. */
  abort (): Promise<void>
  /** Whether the transaction is open (not yet committed or aborted). */
  isActive (): boolean
}

// ---------------------------------------------------------------- consuming

/** `kafka.consumer(config)`: a member of a consumer group (the classic protocol, kafkajs's assigners). */
export interface ConsumerConfig {
  /** The consumer group to join (required, not empty). */
  groupId: string
  /** The group's assignment strategies (default `[PartitionAssigners.roundRobin]`); kafkats/kafkajs offers the first only. */
  partitionAssigners?: PartitionAssigner[]
  /** How old topic metadata may get before it is refreshed, in ms (default 300000). */
  metadataMaxAge?: number
  /** How long the coordinator waits for a heartbeat before it removes the member, in ms (default 30000). */
  sessionTimeout?: number
  /** How long the coordinator waits for every member to rejoin during a rebalance, in ms (default 60000). */
  rebalanceTimeout?: number
  /** How often the member heartbeats, in ms (default 3000; below `sessionTimeout`): kafkats heartbeats on this timer whatever the handlers do; 0 means every 100 ms. */
  heartbeatInterval?: number
  /** The most bytes fetched per partition (default 1048576), asked of the broker as it is; an answer of more than about 2 MiB is handed out as several batches. */
  maxBytesPerPartition?: number
  /** The least bytes the broker gathers before it answers a fetch (default 1). */
  minBytes?: number
  /** The most bytes of one fetch answer (default 10485760). */
  maxBytes?: number
  /** How long the broker may wait for `minBytes` before it answers a fetch, in ms (default 5000). */
  maxWaitTimeInMs?: number
  /** The consumer's retry options over the instance's: a failing handler's retries, and the restart after a crash. */
  retry?: RetryOptions & {
    /** Whether the consumer restarts after crashing on a retriable error (default: it does); called with the error. */
    restartOnFailure?: (err: Error) => Promise<boolean>
  }
  /** Accepted for compatibility: kafkats's consumer never asks the broker to create a topic (kafkajs's default did); `true` loads the subscribed topics' metadata at subscribe(). */
  allowAutoTopicCreation?: boolean
  /** Accepted for compatibility and not used: kafkats keeps its own limit of requests in flight. */
  maxInFlightRequests?: number
  /** Whether to read messages of open and aborted transactions too (default false: read_committed). */
  readUncommitted?: boolean
  /** The consumer's rack, to fetch from a replica in it (KIP-392; the brokers need a replica selector). */
  rackId?: string
}

/** A message of a pre-0.11 message set (kafkats reads record batches only: it never hands these out). */
export interface MessageSetEntry {
  /** The message's key. */
  key: Buffer | null
  /** The message's value (null: a tombstone). */
  value: Buffer | null
  /** The message's time, in ms since the epoch as a string. */
  timestamp: string
  /** The message's attribute bits (codec, timestamp type). */
  attributes: number
  /** The message's offset, as a decimal string. */
  offset: string
  /** The message's size, in bytes. */
  size: number
  /** Message sets have no headers. */
  headers?: never
}
/** A message of a record batch: what kafkats hands out. */
export interface RecordBatchEntry {
  /** The message's key (null: none). */
  key: Buffer | null
  /** The message's value (null: a tombstone). */
  value: Buffer | null
  /** The message's time (create time, or the broker's for LogAppendTime topics), in ms since the epoch as a string. */
  timestamp: string
  /** Always 0 in kafkats/kafkajs (kafkajs: the record's attribute bits). */
  attributes: number
  /** The message's offset, as a decimal string. */
  offset: string
  /** The message's headers, values as Buffers; a key sent more than once has an array of them. */
  headers: IHeaders
  /** Record batch entries carry no size. */
  size?: never
}
/** A consumed message (always a {@link RecordBatchEntry} in kafkats/kafkajs). */
export type KafkaMessage = MessageSetEntry | RecordBatchEntry

/** A batch of one partition's messages, as `eachBatch` gets it. */
export interface Batch {
  /** The topic. */
  topic: string
  /** The partition. */
  partition: number
  /** The partition's high watermark when fetched (the offset the next message will have), as a string. */
  highWatermark: string
  /** The batch's messages, in offset order. */
  messages: KafkaMessage[]
  /** Whether the batch has no messages. */
  isEmpty (): boolean
  /** The first message's offset; null when the batch is empty. */
  firstOffset (): string | null
  /** The last message's offset (`highWatermark` - 1 when the batch is empty). */
  lastOffset (): string
  /** How far the last message is behind the partition's end: `highWatermark` - 1 - `lastOffset()`. */
  offsetLag (): string
  /** How far the first message is behind the partition's end: `highWatermark` - 1 - `firstOffset()`. */
  offsetLagLow (): string
}

/** Offsets by topic and partition (`uncommittedOffsets()`). */
export interface OffsetsByTopicPartition {
  /** The topics' offsets. */
  topics: TopicOffsets[]
}

/** What `eachMessage` gets, per message. */
export interface EachMessagePayload {
  /** The message's topic. */
  topic: string
  /** The message's partition. */
  partition: number
  /** The message. */
  message: KafkaMessage
  /** Does nothing in kafkats/kafkajs: the member heartbeats on its own timer. */
  heartbeat (): Promise<void>
  /** Pauses this topic-partition (the batch's later messages come again once resumed); returns the function that resumes it. */
  pause (): () => void
}
/** What `eachBatch` gets, per batch. */
export interface EachBatchPayload {
  /** The batch. */
  batch: Batch
  /** Marks a message processed: the next fetch, and the next commit, start after it. */
  resolveOffset (offset: string): void
  /** Does nothing in kafkats/kafkajs: the member heartbeats on its own timer. */
  heartbeat (): Promise<void>
  /** Pauses this topic-partition, as `consumer.pause` does; returns the function that resumes it. */
  pause (): () => void
  /** Commits the given offsets; without them, the resolved offsets when `autoCommit` says a commit is due. */
  commitOffsetsIfNecessary (offsets?: Offsets): Promise<void>
  /** The resolved offsets not committed yet. */
  uncommittedOffsets (): OffsetsByTopicPartition
  /** Whether the consumer is still running (not stopping). */
  isRunning (): boolean
  /** Whether the rest of the batch is out of date (a seek, a rebalance): stop processing it. */
  isStale (): boolean
}
/** @types/kafkajs's name for EachMessagePayload, which kafkajs kept. */
export type ConsumerEachMessagePayload = EachMessagePayload
/** @types/kafkajs's name for EachBatchPayload, which kafkajs kept. */
export type ConsumerEachBatchPayload = EachBatchPayload
/** The `eachBatch` handler: a rejection retries the batch (unresolved messages come again). */
export type EachBatchHandler = (payload: EachBatchPayload) => Promise<void>
/** The `eachMessage` handler: a rejection retries from that message. */
export type EachMessageHandler = (payload: EachMessagePayload) => Promise<void>

/** `consumer.run(config)`: the handler and the commit schedule. */
export interface ConsumerRunConfig {
  /** Whether resolved offsets are committed (default true); false: only `commitOffsets` and transactions commit. */
  autoCommit?: boolean
  /** Commit at most this often, in ms (default null: after each fetch answer). */
  autoCommitInterval?: number | null
  /** Commit once this many messages were resolved (default null: after each fetch answer). */
  autoCommitThreshold?: number | null
  /** Whether a batch whose `eachBatch` returned counts as processed up to its last message (default true). */
  eachBatchAutoResolve?: boolean
  /** How many partitions' batches are handled at once (default 1). */
  partitionsConsumedConcurrently?: number
  /** Called per batch (instead of `eachMessage`). */
  eachBatch?: EachBatchHandler
  /** Called per message. */
  eachMessage?: EachMessageHandler
}

/** @deprecated kafkajs replaced it by ConsumerSubscribeTopics. */
export interface ConsumerSubscribeTopic {
  /** A topic name, or a pattern matched against the topics there are at subscribe(). */
  topic: string | RegExp
  /** Whether a partition without a committed offset is read from its start (default false: from its end). */
  fromBeginning?: boolean
}
/** `consumer.subscribe(subscription)`. */
export interface ConsumerSubscribeTopics {
  /** Topic names, or patterns matched against the topics there are at subscribe(). */
  topics: Array<string | RegExp>
  /** Whether a partition without a committed offset is read from its start (default false: from its end). */
  fromBeginning?: boolean
}

/** Some partitions of a topic. */
export interface TopicPartitions {
  /** The topic. */
  topic: string
  /** The partitions. */
  partitions: number[]
}
/** One partition of a topic. */
export interface TopicPartition {
  /** The topic. */
  topic: string
  /** The partition. */
  partition: number
}
/** A partition and an offset in it (`consumer.seek`). */
export type TopicPartitionOffset = TopicPartition & {
  /** The offset, as a decimal string. */
  offset: string
}
/** A partition's offset to commit, with optional metadata (`consumer.commitOffsets`). */
export type TopicPartitionOffsetAndMetadata = TopicPartitionOffset & {
  /** Free text stored with the commit. */
  metadata?: string | null
}
/** A partition's offset (admin `setOffsets`, `deleteTopicRecords`, `fetchTopicOffsets`). */
export type SeekEntry = PartitionOffset

/** A consumer's event names (`consumer.events`). */
export interface ConsumerEvents {
  /** The member heartbeated (every `heartbeatInterval` while in the group). */
  HEARTBEAT: 'consumer.heartbeat'
  /** Offsets were committed. */
  COMMIT_OFFSETS: 'consumer.commit_offsets'
  /** The member joined the group and got its assignment. */
  GROUP_JOIN: 'consumer.group_join'
  /** A fetch request was sent. */
  FETCH_START: 'consumer.fetch_start'
  /** A fetch answer came. */
  FETCH: 'consumer.fetch'
  /** A batch is handed to the handler. */
  START_BATCH_PROCESS: 'consumer.start_batch_process'
  /** The handler is done with a batch. */
  END_BATCH_PROCESS: 'consumer.end_batch_process'
  /** The consumer connected. */
  CONNECT: 'consumer.connect'
  /** The consumer disconnected. */
  DISCONNECT: 'consumer.disconnect'
  /** The consumer stopped. */
  STOP: 'consumer.stop'
  /** The consumer crashed (and restarts, or not). */
  CRASH: 'consumer.crash'
  /** The group is rebalancing. */
  REBALANCING: 'consumer.rebalancing'
  /** The member was assigned topics it does not subscribe to. */
  RECEIVED_UNSUBSCRIBED_TOPICS: 'consumer.received_unsubscribed_topics'
  /** A request was answered (see {@link RequestEvent}). */
  REQUEST: 'consumer.network.request'
  /** A request timed out. */
  REQUEST_TIMEOUT: 'consumer.network.request_timeout'
  /** A connection's count of requests awaiting an answer changed. */
  REQUEST_QUEUE_SIZE: 'consumer.network.request_queue_size'
}

/** A member's assignment: partitions by topic. */
export interface IMemberAssignment {
  /** The topic's assigned partitions. */
  [key: string]: number[]
}
/** The payload of START_BATCH_PROCESS and END_BATCH_PROCESS. */
export interface IBatchProcessEvent {
  /** The batch's topic. */
  topic: string
  /** The batch's partition. */
  partition: number
  /** The partition's high watermark when fetched. */
  highWatermark: string
  /** As {@link Batch.offsetLag}. */
  offsetLag: string
  /** As {@link Batch.offsetLagLow}. */
  offsetLagLow: string
  /** The batch's number of messages (0 for a batch of only transaction markers or aborted records). */
  batchSize: number
  /** The first message's offset (null at run time for an empty batch). */
  firstOffset: string
  /** The last message's offset. */
  lastOffset: string
}
/** HEARTBEAT: the member heartbeated. */
export type ConsumerHeartbeatEvent = InstrumentationEvent<{
  /** The group. */
  groupId: string
  /** The member's id. */
  memberId: string
  /** The group's generation. */
  groupGenerationId: number
}>
/** COMMIT_OFFSETS: offsets were committed. */
export type ConsumerCommitOffsetsEvent = InstrumentationEvent<{
  /** The group. */
  groupId: string
  /** The member's id. */
  memberId: string
  /** The group's generation. */
  groupGenerationId: number
  /** The committed offsets. */
  topics: TopicOffsets[]
}>
/** GROUP_JOIN: the member joined the group. */
export type ConsumerGroupJoinEvent = InstrumentationEvent<{
  /** How long the join took, in ms. */
  duration: number
  /** The group. */
  groupId: string
  /** Whether this member leads the group (it ran the assigner). */
  isLeader: boolean
  /** The member's own id when it leads; `''` otherwise (the classic protocol tells only the leader). */
  leaderId: string
  /** The assigner's name (`RoundRobinAssigner`). */
  groupProtocol: string
  /** The member's id. */
  memberId: string
  /** The member's partitions of subscribed topics. */
  memberAssignment: IMemberAssignment
}>
/** FETCH_START: a fetch request was sent. */
export type ConsumerFetchStartEvent = InstrumentationEvent<{
  /** The broker's node id (a string at run time, in kafkajs too). */
  nodeId: number
}>
/** FETCH: a fetch answer came. */
export type ConsumerFetchEvent = InstrumentationEvent<{
  /** The number of partitions the answer had messages for. */
  numberOfBatches: number
  /** How long the fetch took, in ms. */
  duration: number
  /** The broker's node id (a string at run time, in kafkajs too). */
  nodeId: number
}>
/** START_BATCH_PROCESS: a batch is handed to the handler. */
export type ConsumerStartBatchProcessEvent = InstrumentationEvent<IBatchProcessEvent>
/** END_BATCH_PROCESS: the handler is done with a batch (`duration` in ms). */
export type ConsumerEndBatchProcessEvent = InstrumentationEvent<IBatchProcessEvent & {
  /** How long the handler took, in ms. */
  duration: number
}>
/** CRASH: the consumer stopped on an error. */
export type ConsumerCrashEvent = InstrumentationEvent<{
  /** The error. */
  error: Error
  /** The group. */
  groupId: string
  /** Whether the consumer restarts (retriable error, and `restartOnFailure` agreed). */
  restart: boolean
}>
/** REBALANCING: the group is rebalancing. */
export type ConsumerRebalancingEvent = InstrumentationEvent<{
  /** The group. */
  groupId: string
  /** The member's id. */
  memberId: string
}>
/** RECEIVED_UNSUBSCRIBED_TOPICS: the leader assigned this member topics it does not subscribe to (they are not consumed). */
export type ConsumerReceivedUnsubcribedTopicsEvent = InstrumentationEvent<{
  /** The group. */
  groupId: string
  /** The group's generation. */
  generationId: number
  /** The member's id. */
  memberId: string
  /** The topics of the member's assignment. */
  assignedTopics: string[]
  /** The topics the member subscribes to. */
  topicsSubscribed: string[]
  /** The assigned topics it does not subscribe to. */
  topicsNotSubscribed: string[]
}>

/** Each consumer event name's event: what `consumer.on(name, listener)` hands the listener. */
export interface ConsumerEventMap {
  'consumer.heartbeat': ConsumerHeartbeatEvent
  'consumer.commit_offsets': ConsumerCommitOffsetsEvent
  'consumer.group_join': ConsumerGroupJoinEvent
  'consumer.fetch_start': ConsumerFetchStartEvent
  'consumer.fetch': ConsumerFetchEvent
  'consumer.start_batch_process': ConsumerStartBatchProcessEvent
  'consumer.end_batch_process': ConsumerEndBatchProcessEvent
  'consumer.connect': ConnectEvent
  'consumer.disconnect': DisconnectEvent
  'consumer.stop': InstrumentationEvent<null>
  'consumer.crash': ConsumerCrashEvent
  'consumer.rebalancing': ConsumerRebalancingEvent
  'consumer.received_unsubscribed_topics': ConsumerReceivedUnsubcribedTopicsEvent
  'consumer.network.request': RequestEvent
  'consumer.network.request_timeout': RequestTimeoutEvent
  'consumer.network.request_queue_size': RequestQueueSizeEvent
}

/** `kafka.consumer()`: kafkajs's consumer, on kafkats's group consumer. */
export interface Consumer {
  /** Connects to the cluster: resolves once a broker answered. */
  connect (): Promise<void>
  /** Stops the consumer (as `stop()`) and closes its connections. */
  disconnect (): Promise<void>
  /** Adds topics to consume (before `run()`); a pattern is matched against the topics there are now. */
  subscribe (subscription: ConsumerSubscribeTopics | ConsumerSubscribeTopic): Promise<void>
  /** Stops consuming: commits what is due, leaves the group and waits for the handlers. */
  stop (): Promise<void>
  /** Joins the group and starts handing out messages; resolves once the member joined. */
  run (config?: ConsumerRunConfig): Promise<void>
  /** Commits offsets (the next message to read) for partitions this member holds; others are logged as a warning and not sent. */
  commitOffsets (topicPartitions: TopicPartitionOffsetAndMetadata[]): Promise<void>
  /** Moves a partition's position (`'-1'`: its end, `'-2'`: its start), applied once the partition is assigned; after `run()`. */
  seek (topicPartitionOffset: TopicPartitionOffset): void
  /** The group's description, as the coordinator answers. */
  describeGroup (): Promise<GroupDescription>
  /** Stops fetching topics (or some of their partitions) until resumed; kept across rebalances. */
  pause (topics: Array<{ topic: string, partitions?: number[] }>): void
  /** The assigned partitions that are paused. */
  paused (): TopicPartitions[]
  /** Fetches paused topics (or some of their partitions) again. */
  resume (topics: Array<{ topic: string, partitions?: number[] }>): void
  /** Listens to `consumer.heartbeat` events; returns the function that removes the listener. */
  on (eventName: 'consumer.heartbeat', listener: (event: ConsumerHeartbeatEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.commit_offsets` events; returns the function that removes the listener. */
  on (eventName: 'consumer.commit_offsets', listener: (event: ConsumerCommitOffsetsEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.group_join` events; returns the function that removes the listener. */
  on (eventName: 'consumer.group_join', listener: (event: ConsumerGroupJoinEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.fetch_start` events; returns the function that removes the listener. */
  on (eventName: 'consumer.fetch_start', listener: (event: ConsumerFetchStartEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.fetch` events; returns the function that removes the listener. */
  on (eventName: 'consumer.fetch', listener: (event: ConsumerFetchEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.start_batch_process` events; returns the function that removes the listener. */
  on (eventName: 'consumer.start_batch_process', listener: (event: ConsumerStartBatchProcessEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.end_batch_process` events; returns the function that removes the listener. */
  on (eventName: 'consumer.end_batch_process', listener: (event: ConsumerEndBatchProcessEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.connect` events; returns the function that removes the listener. */
  on (eventName: 'consumer.connect', listener: (event: ConnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.disconnect` events; returns the function that removes the listener. */
  on (eventName: 'consumer.disconnect', listener: (event: DisconnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.stop` events; returns the function that removes the listener. */
  on (eventName: 'consumer.stop', listener: (event: InstrumentationEvent<null>) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.crash` events; returns the function that removes the listener. */
  on (eventName: 'consumer.crash', listener: (event: ConsumerCrashEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.rebalancing` events; returns the function that removes the listener. */
  on (eventName: 'consumer.rebalancing', listener: (event: ConsumerRebalancingEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.received_unsubscribed_topics` events; returns the function that removes the listener. */
  on (eventName: 'consumer.received_unsubscribed_topics', listener: (event: ConsumerReceivedUnsubcribedTopicsEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.network.request` events; returns the function that removes the listener. */
  on (eventName: 'consumer.network.request', listener: (event: RequestEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.network.request_timeout` events; returns the function that removes the listener. */
  on (eventName: 'consumer.network.request_timeout', listener: (event: RequestTimeoutEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `consumer.network.request_queue_size` events; returns the function that removes the listener. */
  on (eventName: 'consumer.network.request_queue_size', listener: (event: RequestQueueSizeEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to any of the event names, with an untyped event; returns the function that removes the listener. */
  // kafkajs's catch-all overload: any of its event names, with an untyped event.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on (eventName: ValueOf<ConsumerEvents>, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** The consumer's logger (namespace `Consumer`). */
  logger (): Logger
  /** The consumer's event names, for `on`. */
  readonly events: ConsumerEvents
}

// ---------------------------------------------------------------- group assignment

/** A group coordinator lookup's answer (kafkajs's Cluster API; kafkats/kafkajs has no Cluster). */
export interface CoordinatorMetadata {
  /** The lookup's Kafka error code (0: none). */
  errorCode: number
  /** The coordinator broker. */
  coordinator: {
    /** Its node id. */
    nodeId: number
    /** Its host name. */
    host: string
    /** Its port. */
    port: number
  }
}
/** A Metadata answer, as kafkajs's Broker decodes it. */
export interface BrokerMetadata {
  /** The cluster's brokers. */
  brokers: Array<{
    /** The broker's node id. */
    nodeId: number
    /** Its host name. */
    host: string
    /** Its port. */
    port: number
    /** Its rack, if it has one. */
    rack?: string
  }>
  /** The topics asked for. */
  topicMetadata: Array<{
    /** The topic's Kafka error code (0: none). */
    topicErrorCode: number
    /** The topic. */
    topic: string
    /** Its partitions. */
    partitionMetadata: PartitionMetadata[]
  }>
}
/** The API versions a broker supports, by API key. */
export interface ApiVersions {
  /** One API's supported versions. */
  [apiKey: number]: {
    /** The lowest version. */
    minVersion: number
    /** The highest version. */
    maxVersion: number
  }
}

/**
 * kafkajs's broker connection, as its Cluster hands it out. kafkats/kafkajs has no such
 * object (docs/migrating-from-kafkajs.md); the type is here for programs that name it.
 */
export interface Broker {
  /** kafkajs: whether the connection is open. */
  isConnected (): boolean
  /** kafkajs: opens the connection. */
  connect (): Promise<void>
  /** kafkajs: closes the connection. */
  disconnect (): Promise<void>
  /** kafkajs: the broker's API versions. */
  apiVersions (): Promise<ApiVersions>
  /** kafkajs: a Metadata request for these topics. */
  metadata (topics: string[]): Promise<BrokerMetadata>
  /** kafkajs: a DescribeGroups request. */
  // kafkajs leaves these answers untyped.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  describeGroups: (options: { groupIds: string[] }) => Promise<any>
  /** kafkajs: an OffsetCommit request. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  offsetCommit (request: { groupId: string, groupGenerationId: number, memberId: string, retentionTime?: number, topics: TopicOffsets[] }): Promise<any>
  /** kafkajs: an OffsetFetch request. */
  offsetFetch (request: { groupId: string, topics: TopicOffsets[] }): Promise<{
    /** The group's committed offsets. */
    responses: TopicOffsets[]
  }>
  /** kafkajs: a Fetch request. */
  fetch: (request: {
    replicaId?: number
    isolationLevel?: number
    maxWaitTime?: number
    minBytes?: number
    maxBytes?: number
    topics: Array<{ topic: string, partitions: Array<{ partition: number, fetchOffset: string, maxBytes: number }> }>
    rackId?: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  }) => Promise<any>
  /** kafkajs: a Produce request. */
  produce: (request: {
    topicData: Array<{ topic: string, partitions: Array<{ partition: number, firstSequence?: number, messages: Message[] }> }>
    transactionalId?: string
    producerId?: number
    producerEpoch?: number
    acks?: number
    timeout?: number
    compression?: CompressionTypes
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  }) => Promise<any>
  /** kafkajs: an AlterPartitionReassignments request. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  alterPartitionReassignments (request: { topics: PartitionReassignment[], timeout?: number }): Promise<any>
  /** kafkajs: a ListPartitionReassignments request. */
  listPartitionReassignments (request: { topics?: TopicPartitions[], timeout?: number }): Promise<ListPartitionReassignmentsResponse>
}

/**
 * kafkajs's cluster as a PartitionAssigner receives it. kafkats/kafkajs's assigners get
 * `findTopicPartitionMetadata` only (what kafkajs's own round robin uses); see the migration guide.
 */
export interface Cluster {
  /** Not available to an assigner in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: the known brokers' node ids. */
  getNodeIds (): number[]
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: the cluster's metadata. */
  metadata (): Promise<BrokerMetadata>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: forgets a broker. */
  removeBroker (options: { host: string, port: number }): void
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: adds topics to those whose metadata it keeps. */
  addMultipleTargetTopics (topics: string[]): Promise<void>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: whether it is connected. */
  isConnected (): boolean
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: connects. */
  connect (): Promise<void>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: disconnects. */
  disconnect (): Promise<void>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: refreshes the metadata. */
  refreshMetadata (): Promise<void>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: refreshes the metadata when it is older than `metadataMaxAge`. */
  refreshMetadataIfNecessary (): Promise<void>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: adds a topic to those whose metadata it keeps. */
  addTargetTopic (topic: string): Promise<void>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: the connection to a broker. */
  findBroker (node: { nodeId: string }): Promise<Broker>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: the connection to the controller. */
  findControllerBroker (): Promise<Broker>
  /** A topic's partitions, from the consumer's metadata: what kafkats/kafkajs's assigners may ask. */
  findTopicPartitionMetadata (topic: string): PartitionMetadata[]
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: partitions by their leader's node id. */
  findLeaderForPartitions (topic: string, partitions: number[]): { [leader: string]: number[] }
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: the connection to a group's coordinator. */
  findGroupCoordinator (group: { groupId: string }): Promise<Broker>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: a group coordinator lookup's answer. */
  findGroupCoordinatorMetadata (group: { groupId: string }): Promise<CoordinatorMetadata>
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: -2 (earliest) or -1 (latest). */
  defaultOffset (config: { fromBeginning: boolean }): number
  /** Not available in kafkats/kafkajs (throws KafkaJSNotImplemented); kafkajs: partitions' first, last or by-timestamp offsets. */
  fetchTopicsOffset (topics: Array<{ topic: string, partitions: Array<{ partition: number }> } & XOR<{ fromBeginning: boolean }, { fromTimestamp: number }>>): Promise<TopicOffsets[]>
}

/** Partitions by topic. */
export interface Assignment {
  /** The topic's partitions. */
  [topic: string]: number[]
}
/** A member as the leader's assigner sees it. */
export interface GroupMember {
  /** The member's id. */
  memberId: string
  /** Its subscription, encoded by `AssignerProtocol.MemberMetadata`. */
  memberMetadata: Buffer
}
/** One member's share of an assignment. */
export interface GroupMemberAssignment {
  /** The member's id. */
  memberId: string
  /** Its partitions, encoded by `AssignerProtocol.MemberAssignment`. */
  memberAssignment: Buffer
}
/** What an assigner's `protocol()` returns: its name and the member's subscription. */
export interface GroupState {
  /** The assigner's name (the group protocol's name). */
  name: string
  /** The subscription, encoded by `AssignerProtocol.MemberMetadata`. */
  metadata: Buffer
}
/** A group assignment strategy (kafkajs's API), run on the leader over the classic protocol. */
export interface Assigner {
  /** The strategy's name, which every member must offer. */
  name: string
  /** The version written in its member metadata. */
  version: number
  /** Shares the topics' partitions among the members. */
  assign (group: { members: GroupMember[], topics: string[] }): Promise<GroupMemberAssignment[]>
  /** This member's subscription, as sent when it joins. */
  protocol (subscription: { topics: string[] }): GroupState
}
/** Makes an Assigner for a consumer (`partitionAssigners` option). */
export type PartitionAssigner = (config: { cluster: Cluster, groupId: string, logger: Logger }) => Assigner

/** Encodes and decodes one of the group protocol's byte formats. */
export interface ISerializer<T> {
  /** The value as bytes. */
  encode (value: T): Buffer
  /** The bytes as a value (null when they are too short). */
  decode (buffer: Buffer): T | null
}
/** A member's subscription in the consumer protocol's format. */
export interface MemberMetadata {
  /** The format's version. */
  version: number
  /** The subscribed topics. */
  topics: string[]
  /** The assigner's own bytes. */
  userData: Buffer
}
/** A member's assignment in the consumer protocol's format. */
export interface MemberAssignment {
  /** The format's version. */
  version: number
  /** The assigned partitions by topic. */
  assignment: Assignment
  /** The assigner's own bytes. */
  userData: Buffer
}

/** kafkajs's description of a group membership (kafkajs's internal API; kafkats/kafkajs hands none out). */
export interface ConsumerGroup {
  /** The group. */
  groupId: string
  /** The group's generation. */
  generationId: number
  /** The member's id. */
  memberId: string
  /** The connection to the group's coordinator. */
  coordinator: Broker
}

// ---------------------------------------------------------------- admin

/** `kafka.admin(config)`. */
export interface AdminConfig {
  /** Accepted for compatibility and not used: kafkats's client retries admin requests, with the instance's `retry` delays. */
  retry?: RetryOptions
}

/** One partition's replicas. */
export interface ReplicaAssignment {
  /** The partition. */
  partition: number
  /** The node ids of its replicas, the preferred leader first. */
  replicas: number[]
}
/** A config's name and value. */
export interface IResourceConfigEntry {
  /** The config's name (`cleanup.policy`, ...). */
  name: string
  /** Its value, as a string. */
  value: string
}
/** A topic to create (`admin.createTopics`). */
export interface ITopicConfig {
  /** The topic's name. */
  topic: string
  /** Its number of partitions (default: the broker's `num.partitions`). */
  numPartitions?: number
  /** Its number of replicas of each partition (default: the broker's `default.replication.factor`). */
  replicationFactor?: number
  /** Each partition's replicas, instead of `numPartitions` and `replicationFactor`. */
  replicaAssignment?: ReplicaAssignment[]
  /** The topic's configs. */
  configEntries?: IResourceConfigEntry[]
}
/** Partitions to add to a topic (`admin.createPartitions`). */
export interface ITopicPartitionConfig {
  /** The topic. */
  topic: string
  /** Its number of partitions afterwards. */
  count: number
  /** The new partitions' replicas (node ids), one array per new partition. */
  assignments?: number[][]
}
/** A topic's metadata (`admin.fetchTopicMetadata`). */
export interface ITopicMetadata {
  /** The topic. */
  name: string
  /** Its partitions. */
  partitions: PartitionMetadata[]
}
/** New replicas for some partitions of a topic (`admin.alterPartitionReassignments`). */
export interface PartitionReassignment {
  /** The topic. */
  topic: string
  /** Each partition's new replicas. */
  partitionAssignment: ReplicaAssignment[]
}

/** A resource whose configs to describe. */
export interface ResourceConfigQuery {
  /** The resource's type. */
  type: ConfigResourceTypes
  /** Its name (a topic, or a broker's node id as a string). */
  name: string
  /** The configs to describe (default: all of them). */
  configNames?: string[]
}
/** A config's value from one source (`includeSynonyms`). */
export interface ConfigSynonyms {
  /** The config's name at that source. */
  configName: string
  /** Its value there. */
  configValue: string
  /** The source. */
  configSource: ConfigSource
}
/** One config of a described resource. */
export interface ConfigEntries {
  /** The config's name. */
  configName: string
  /** Its value (null at run time when sensitive). */
  configValue: string
  /** Whether the value is the default. */
  isDefault: boolean
  /** Where the value comes from. */
  configSource: ConfigSource
  /** Whether the value is secret (and not given). */
  isSensitive: boolean
  /** Whether the config cannot be altered. */
  readOnly: boolean
  /** Its values from every source, by precedence (empty without `includeSynonyms`). */
  configSynonyms: ConfigSynonyms[]
}
/** `admin.describeConfigs`'s answer. */
export interface DescribeConfigResponse {
  /** Each resource's configs. */
  resources: Array<{
    /** The resource's configs. */
    configEntries: ConfigEntries[]
    /** The resource's Kafka error code (0: none; an error rejects the call instead). */
    errorCode: number
    /** The error's message (`''` in kafkats/kafkajs). */
    errorMessage: string
    /** The resource's name. */
    resourceName: string
    /** The resource's type. */
    resourceType: ConfigResourceTypes
  }>
  /** Declared by kafkajs but not set at run time (in kafkajs too). */
  throttleTime: number
}
/** A resource's configs to set (`admin.alterConfigs`). */
export interface IResourceConfig {
  /** The resource's type. */
  type: ConfigResourceTypes
  /** Its name (a topic, or a broker's node id as a string). */
  name: string
  /** The configs to set; kafkats leaves the resource's other configs as they are. */
  configEntries: IResourceConfigEntry[]
}

/** Who may do what from where (an ACL's access part). */
export interface Acl {
  /** The principal (`User:alice`; `User:*` for anyone). */
  principal: string
  /** The host the principal connects from (`*` for any). */
  host: string
  /** The operation. */
  operation: AclOperationTypes
  /** Allow or deny. */
  permissionType: AclPermissionTypes
}
/** The resource an ACL is about. */
export interface AclResource {
  /** The resource's type. */
  resourceType: AclResourceTypes
  /** Its name, or a prefix of names (see `resourcePatternType`). */
  resourceName: string
  /** How `resourceName` matches: literally or as a prefix. */
  resourcePatternType: ResourcePatternTypes
}
/** An ACL to create: a resource and an access. */
export type AclEntry = Acl & AclResource
/** A resource and its ACLs (`describeAcls`). */
export type DescribeAclResource = AclResource & {
  /** The resource's ACLs that match the filter. */
  acls: Acl[]
}
/** `admin.describeAcls`'s answer. */
export interface DescribeAclResponse {
  /** Always 0 in kafkats/kafkajs (kafkajs: how long the broker throttled the request, in ms). */
  throttleTime: number
  /** 0: an error rejects the call instead. */
  errorCode: number
  /** null at run time (in kafkajs too). */
  errorMessage?: string
  /** The matching resources, each with its ACLs. */
  resources: DescribeAclResource[]
}
/** Which ACLs to describe or delete; ANY (and an absent name, principal or host) matches all. */
export interface AclFilter {
  /** The resource type (ANY: all). */
  resourceType: AclResourceTypes
  /** The resource name (absent or null: all). */
  resourceName?: string
  /** How the name matches (ANY: all; MATCH: every ACL that would apply to the name). */
  resourcePatternType: ResourcePatternTypes
  /** The principal (absent or null: all). */
  principal?: string
  /** The host (absent or null: all). */
  host?: string
  /** The operation (ANY: all). */
  operation: AclOperationTypes
  /** The permission (ANY: both). */
  permissionType: AclPermissionTypes
}
/** An ACL a delete filter matched (and deleted, unless `errorCode` says otherwise). */
export interface MatchingAcl {
  /** The Kafka error code of this ACL's deletion (0: deleted). */
  errorCode: number
  /** The error's message (null at run time when none). */
  errorMessage?: string
  /** The resource type. */
  resourceType: AclResourceTypes
  /** The resource name. */
  resourceName: string
  /** How the name matches. */
  resourcePatternType: ResourcePatternTypes
  /** The principal. */
  principal: string
  /** The host. */
  host: string
  /** The operation. */
  operation: AclOperationTypes
  /** Allow or deny. */
  permissionType: AclPermissionTypes
}
/** One delete filter's outcome. */
export interface DeleteAclFilterResponses {
  /** The filter's Kafka error code (0: none). */
  errorCode: number
  /** The error's message (null at run time when none). */
  errorMessage?: string
  /** The ACLs it matched. */
  matchingAcls: MatchingAcl[]
}
/** `admin.deleteAcls`'s answer. */
export interface DeleteAclResponse {
  /** Declared by kafkajs but not set at run time (in kafkajs too). */
  throttleTime: number
  /** Each filter's outcome, in the filters' order. */
  filterResponses: DeleteAclFilterResponses[]
}

/** A partition's reassignment in progress. */
export interface OngoingPartitionReassignment {
  /** The partition (named `partition` at run time, in kafkajs too). */
  partitionIndex: number
  /** Its current replicas. */
  replicas: number[]
  /** The replicas being added. */
  addingReplicas?: number[]
  /** The replicas being removed. */
  removingReplicas?: number[]
}
/** A topic's reassignments in progress. */
export interface OngoingTopicReassignment {
  /** The topic. */
  topic: string
  /** Its partitions being reassigned. */
  partitions: OngoingPartitionReassignment[]
}
/** `admin.listPartitionReassignments`'s answer. */
export interface ListPartitionReassignmentsResponse {
  /** The topics with reassignments in progress. */
  topics: OngoingTopicReassignment[]
}

/** A member of a described group. */
export interface MemberDescription {
  /** The host the member connects from. */
  clientHost: string
  /** The member's client id. */
  clientId: string
  /** The member's id. */
  memberId: string
  /** Its assignment in its protocol's format (`AssignerProtocol.MemberAssignment.decode` reads a consumer's); empty from kafkats/kafkajs's `admin.describeGroups`. */
  memberAssignment: Buffer
  /** Its subscription in its protocol's format (`AssignerProtocol.MemberMetadata.decode` reads a consumer's); empty from kafkats/kafkajs's `admin.describeGroups`. */
  memberMetadata: Buffer
}
/** Kafka's classic group states, as kafkajs lists them. */
export type ConsumerGroupState = 'Unknown' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead' | 'Empty'
/** A group's description. */
export interface GroupDescription {
  /** The group. */
  groupId: string
  /** Its members. */
  members: MemberDescription[]
  /** The assignment strategy chosen (`RoundRobinAssigner`, ...; `''` when none). */
  protocol: string
  /** The protocol type (`consumer` for consumer groups). */
  protocolType: string
  /** The group's state (`Dead` for a group that does not exist). */
  state: ConsumerGroupState
}
/** `admin.describeGroups`'s answer. */
export interface GroupDescriptions {
  /** One description per group asked for. */
  groups: GroupDescription[]
}
/** A group as `admin.listGroups` lists it. */
export interface GroupOverview {
  /** The group. */
  groupId: string
  /** Its protocol type (`consumer` for consumer groups). */
  protocolType: string
}
/** A partition's committed offset (`admin.fetchOffsets`). */
export type FetchOffsetsPartition = PartitionOffset & {
  /** The text stored with the commit; null when none. */
  metadata: string | null
}

/** An admin's event names (`admin.events`). */
export interface AdminEvents {
  /** The admin connected. */
  CONNECT: 'admin.connect'
  /** The admin disconnected. */
  DISCONNECT: 'admin.disconnect'
  /** A request was answered (see {@link RequestEvent}). */
  REQUEST: 'admin.network.request'
  /** A request timed out. */
  REQUEST_TIMEOUT: 'admin.network.request_timeout'
  /** A connection's count of requests awaiting an answer changed. */
  REQUEST_QUEUE_SIZE: 'admin.network.request_queue_size'
}
/** Each admin event name's event: what `admin.on(name, listener)` hands the listener. */
export interface AdminEventMap {
  'admin.connect': ConnectEvent
  'admin.disconnect': DisconnectEvent
  'admin.network.request': RequestEvent
  'admin.network.request_timeout': RequestTimeoutEvent
  'admin.network.request_queue_size': RequestQueueSizeEvent
}

/** `kafka.admin()`: kafkajs's admin client, on kafkats's (each call connects first if needed). */
export interface Admin {
  /** Connects to the cluster: resolves once a broker answered. */
  connect (): Promise<void>
  /** Closes the admin's connections. */
  disconnect (): Promise<void>
  /** The cluster's topic names. */
  listTopics (): Promise<string[]>
  /** Creates topics; resolves false when all of them existed already, else true (other failures: a KafkaJSAggregateError of KafkaJSCreateTopicErrors). `timeout` in ms. */
  createTopics (options: { validateOnly?: boolean, waitForLeaders?: boolean, timeout?: number, topics: ITopicConfig[] }): Promise<boolean>
  /** Deletes topics (`timeout` in ms). */
  deleteTopics (options: { topics: string[], timeout?: number }): Promise<void>
  /** Adds partitions to topics (`timeout` in ms). kafkajs declares `Promise<boolean>`; its answer (and kafkats/kafkajs's) is undefined. */
  createPartitions (options: { validateOnly?: boolean, timeout?: number, topicPartitions: ITopicPartitionConfig[] }): Promise<boolean>
  /** The topics' partitions (default: every topic's). */
  fetchTopicMetadata (options?: { topics: string[] }): Promise<{
    /** One entry per topic. */
    topics: ITopicMetadata[]
  }>
  /** A group's committed offsets (default: of every topic it has some for); `resolveOffsets` turns the -1/-2 that `resetOffsets` commits into offsets, and commits them. */
  fetchOffsets (options: { groupId: string, topics?: string[], resolveOffsets?: boolean }): Promise<Array<{
    /** The topic. */
    topic: string
    /** Its partitions' committed offsets (`'-1'`: none). */
    partitions: FetchOffsetsPartition[]
  }>>
  /** Each partition's first and next offsets (`offset` is `high`). */
  fetchTopicOffsets (topic: string): Promise<Array<SeekEntry & {
    /** The offset the next message will have (the high watermark). */
    high: string
    /** The first offset still there. */
    low: string
  }>>
  /** Each partition's first offset with a timestamp at or after `timestamp` (ms since the epoch), or its end if none (default: the end). */
  fetchTopicOffsetsByTimestamp (topic: string, timestamp?: number): Promise<SeekEntry[]>
  /** The cluster's brokers, controller and id. */
  describeCluster (): Promise<{
    /** The brokers. */
    brokers: Array<{
      /** The broker's node id. */
      nodeId: number
      /** Its host name. */
      host: string
      /** Its port. */
      port: number
    }>
    /** The controller's node id; null when unknown. */
    controller: number | null
    /** The cluster's id. */
    clusterId: string
  }>
  /** Commits a group's offsets for a topic (`'-1'`: latest, `'-2'`: earliest, kept as they are); the group must have no running member. */
  setOffsets (options: { groupId: string, topic: string, partitions: SeekEntry[] }): Promise<void>
  /** Commits -2 (earliest) or -1 (latest, the default) for each of the topic's partitions; the group must have no running member. */
  resetOffsets (options: { groupId: string, topic: string, earliest: boolean }): Promise<void>
  /** The configs of brokers and topics. */
  describeConfigs (configs: { resources: ResourceConfigQuery[], includeSynonyms: boolean }): Promise<DescribeConfigResponse>
  /** Sets configs of brokers and topics; kafkats changes only the entries given (IncrementalAlterConfigs), where kafkajs reset the others. */
  // kafkajs leaves alterConfigs's answer untyped.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  alterConfigs (configs: { validateOnly: boolean, resources: IResourceConfig[] }): Promise<any>
  /** The cluster's groups. */
  listGroups (): Promise<{
    /** One entry per group. */
    groups: GroupOverview[]
  }>
  /** Deletes groups (which must have no members); any failure rejects with a KafkaJSDeleteGroupsError. */
  deleteGroups (groupIds: string[]): Promise<DeleteGroupsResult[]>
  /** The groups' descriptions. */
  describeGroups (groupIds: string[]): Promise<GroupDescriptions>
  /** The ACLs that match the filter. */
  describeAcls (options: AclFilter): Promise<DescribeAclResponse>
  /** Deletes the ACLs that match each filter. */
  deleteAcls (options: { filters: AclFilter[] }): Promise<DeleteAclResponse>
  /** Creates ACLs; resolves true. */
  createAcls (options: { acl: AclEntry[] }): Promise<boolean>
  /** Deletes each partition's messages before an offset (`'-1'`: all of them). */
  deleteTopicRecords (options: { topic: string, partitions: SeekEntry[] }): Promise<void>
  /** Moves partitions to new replicas (`timeout` in ms). */
  alterPartitionReassignments (request: { topics: PartitionReassignment[], timeout?: number }): Promise<void>
  /** The reassignments in progress (default: of every partition; `timeout` in ms). */
  listPartitionReassignments (request: { topics?: TopicPartitions[], timeout?: number }): Promise<ListPartitionReassignmentsResponse>
  /** The admin's logger (namespace `Admin`). */
  logger (): Logger
  /** Listens to `admin.connect` events; returns the function that removes the listener. */
  on (eventName: 'admin.connect', listener: (event: ConnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `admin.disconnect` events; returns the function that removes the listener. */
  on (eventName: 'admin.disconnect', listener: (event: DisconnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `admin.network.request` events; returns the function that removes the listener. */
  on (eventName: 'admin.network.request', listener: (event: RequestEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `admin.network.request_timeout` events; returns the function that removes the listener. */
  on (eventName: 'admin.network.request_timeout', listener: (event: RequestTimeoutEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to `admin.network.request_queue_size` events; returns the function that removes the listener. */
  on (eventName: 'admin.network.request_queue_size', listener: (event: RequestQueueSizeEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** Listens to any of the event names, with an untyped event; returns the function that removes the listener. */
  // kafkajs's catch-all overload: any of its event names, with an untyped event.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on (eventName: ValueOf<AdminEvents>, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener<typeof eventName>
  /** The admin's event names, for `on`. */
  readonly events: AdminEvents
}

// ---------------------------------------------------------------- instrumentation events

/** What an event listener gets. */
export interface InstrumentationEvent<T> {
  /** The event's sequence number (a number at run time, in kafkajs too). */
  id: string
  /** The event's name (`consumer.heartbeat`, ...). */
  type: string
  /** When it happened, in ms since the epoch. */
  timestamp: number
  /** What the event says. */
  payload: T
}
/** Generic like kafkajs's own type, so code written against kafkajs compiles; the parameter is not used. */
export type RemoveInstrumentationEventListener<_T> = () => void
/** CONNECT: the client connected. */
export type ConnectEvent = InstrumentationEvent<null>
/** DISCONNECT: the client disconnected. */
export type DisconnectEvent = InstrumentationEvent<null>
/** `network.request`: a request was answered (from kafkats's connections). */
export type RequestEvent = InstrumentationEvent<{
  /** The request's API key. */
  apiKey: number
  /** The API's name, as kafkajs names it (`GroupCoordinator` for FindCoordinator). */
  apiName: string
  /** The API version used. */
  apiVersion: number
  /** The broker, as `host:port`. */
  broker: string
  /** The client id. */
  clientId: string
  /** The request's correlation id on its connection. */
  correlationId: number
  /** When the request was made, in ms since the epoch (as `sentAt`: kafkats writes a request when it is made). */
  createdAt: number
  /** How long the answer took, in ms. */
  duration: number
  /** Always 0 in kafkats/kafkajs (kafkajs: how long the request waited to be sent, in ms). */
  pendingDuration: number
  /** When the request was written, in ms since the epoch. */
  sentAt: number
  /** The request's size, in bytes (its size prefix included). */
  size: number
}>
/** `network.request_timeout`: a request got no answer within `requestTimeout`. */
export type RequestTimeoutEvent = InstrumentationEvent<{
  /** The request's API key. */
  apiKey: number
  /** The API's name, as kafkajs names it. */
  apiName: string
  /** The API version used. */
  apiVersion: number
  /** The broker, as `host:port`. */
  broker: string
  /** The client id. */
  clientId: string
  /** The request's correlation id on its connection. */
  correlationId: number
  /** When the request was made, in ms since the epoch. */
  createdAt: number
  /** Always 0 in kafkats/kafkajs. */
  pendingDuration: number
  /** When the request was written, in ms since the epoch. */
  sentAt: number
}>
/** `network.request_queue_size`: after each request's outcome, how many requests on its connection still await an answer. */
export type RequestQueueSizeEvent = InstrumentationEvent<{
  /** The broker, as `host:port`. */
  broker: string
  /** The client id. */
  clientId: string
  /** The requests still awaiting an answer on that connection. */
  queueSize: number
}>

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

export type Without<T, U> = { [P in Exclude<keyof T, keyof U>]?: never }
export type XOR<T, U> = T | U extends object ? (Without<T, U> & U) | (Without<U, T> & T) : T | U
export type ValueOf<T> = T[keyof T]

// ---------------------------------------------------------------- client configuration

export type BrokersFunction = () => string[] | Promise<string[]>

export interface SaslAuthenticationRequest { encode: () => Buffer | Promise<Buffer> }
export interface SaslAuthenticationResponse<ParseResult> {
  decode: (rawResponse: Buffer) => Buffer | Promise<Buffer>
  parse: (data: Buffer) => ParseResult
}
export interface Authenticator { authenticate: () => Promise<void> }
export interface SaslAuthenticateArgs<ParseResult> {
  request: SaslAuthenticationRequest
  response?: SaslAuthenticationResponse<ParseResult>
}
export interface AuthenticationProviderArgs {
  host: string
  port: number
  logger: Logger
  saslAuthenticate: <ParseResult>(args: SaslAuthenticateArgs<ParseResult>) => Promise<ParseResult | void>
}
/** A custom SASL mechanism (kafkajs's `sasl: { mechanism, authenticationProvider }`); kafkats/kafkajs refuses it at connect. */
export interface Mechanism {
  mechanism: string
  authenticationProvider: (args: AuthenticationProviderArgs) => Authenticator
}

export interface OauthbearerProviderResponse { value: string }
export interface SASLMechanismOptionsMap {
  plain: { username: string, password: string }
  'scram-sha-256': { username: string, password: string }
  'scram-sha-512': { username: string, password: string }
  aws: { authorizationIdentity: string, accessKeyId: string, secretAccessKey: string, sessionToken?: string }
  oauthbearer: { oauthBearerProvider: () => Promise<OauthbearerProviderResponse> }
}
export type SASLMechanism = keyof SASLMechanismOptionsMap
export type SASLMechanismOptions<T> = T extends SASLMechanism ? { mechanism: T } & SASLMechanismOptionsMap[T] : never
export type SASLOptions = SASLMechanismOptions<SASLMechanism>

export interface RetryOptions {
  maxRetryTime?: number
  initialRetryTime?: number
  factor?: number
  multiplier?: number
  retries?: number
  restartOnFailure?: (e: Error) => Promise<boolean>
}

/** kafkajs's socket factory arguments, as kafkajs types them: at run time `ssl` is undefined for plaintext. */
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
  sasl?: SASLOptions | Mechanism
  clientId?: string
  connectionTimeout?: number
  authenticationTimeout?: number
  reauthenticationThreshold?: number
  requestTimeout?: number
  enforceRequestTimeout?: boolean
  retry?: RetryOptions
  socketFactory?: ISocketFactory
  logLevel?: logLevel
  logCreator?: logCreator
}

// ---------------------------------------------------------------- logging

export interface LoggerEntryContent {
  readonly timestamp: string
  readonly message: string
  // kafkajs's entries carry whatever extra fields the caller logged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [key: string]: any
}
export interface LogEntry {
  namespace: string
  level: logLevel
  label: string
  log: LoggerEntryContent
}
export type logCreator = (logLevel: logLevel) => (entry: LogEntry) => void
export interface Logger {
  info: (message: string, extra?: object) => void
  error: (message: string, extra?: object) => void
  warn: (message: string, extra?: object) => void
  debug: (message: string, extra?: object) => void
  namespace: (namespace: string, logLevel?: logLevel) => Logger
  setLogLevel: (logLevel: logLevel) => void
}

// ---------------------------------------------------------------- producing

export interface ProducerConfig {
  createPartitioner?: ICustomPartitioner
  retry?: RetryOptions
  metadataMaxAge?: number
  allowAutoTopicCreation?: boolean
  idempotent?: boolean
  transactionalId?: string
  transactionTimeout?: number
  maxInFlightRequests?: number
}

export interface IHeaders { [key: string]: Buffer | string | Array<Buffer | string> | undefined }

export interface Message {
  key?: Buffer | string | null
  value: Buffer | string | null
  partition?: number
  headers?: IHeaders
  timestamp?: string
}

export interface PartitionerArgs {
  topic: string
  partitionMetadata: PartitionMetadata[]
  message: Message
}
export type ICustomPartitioner = () => (args: PartitionerArgs) => number
export type DefaultPartitioner = ICustomPartitioner
export type LegacyPartitioner = ICustomPartitioner


export interface ProducerRecord {
  topic: string
  messages: Message[]
  acks?: number
  timeout?: number
  compression?: CompressionTypes
}
export interface RecordMetadata {
  topicName: string
  partition: number
  errorCode: number
  offset?: string
  timestamp?: string
  baseOffset?: string
  logAppendTime?: string
  logStartOffset?: string
}
export interface TopicMessages { topic: string, messages: Message[] }
export interface ProducerBatch {
  acks?: number
  timeout?: number
  compression?: CompressionTypes
  topicMessages?: TopicMessages[]
}

export interface PartitionOffset { partition: number, offset: string }
export interface TopicOffsets { topic: string, partitions: PartitionOffset[] }
export interface Offsets { topics: TopicOffsets[] }

export interface Sender {
  send (record: ProducerRecord): Promise<RecordMetadata[]>
  sendBatch (batch: ProducerBatch): Promise<RecordMetadata[]>
}

export interface ProducerEvents {
  CONNECT: 'producer.connect'
  DISCONNECT: 'producer.disconnect'
  REQUEST: 'producer.network.request'
  REQUEST_TIMEOUT: 'producer.network.request_timeout'
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

export type Producer = Sender & {
  connect (): Promise<void>
  disconnect (): Promise<void>
  isIdempotent (): boolean
  readonly events: ProducerEvents
  on (eventName: 'producer.connect', listener: (event: ConnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'producer.disconnect', listener: (event: DisconnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'producer.network.request', listener: (event: RequestEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'producer.network.request_timeout', listener: (event: RequestTimeoutEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'producer.network.request_queue_size', listener: (event: RequestQueueSizeEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  // kafkajs's catch-all overload: any of its event names, with an untyped event.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on (eventName: ValueOf<ProducerEvents>, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener<typeof eventName>
  transaction (): Promise<Transaction>
  logger (): Logger
}

export type Transaction = Sender & {
  sendOffsets (offsets: Offsets & { consumerGroupId: string }): Promise<void>
  commit (): Promise<void>
  abort (): Promise<void>
  isActive (): boolean
}

// ---------------------------------------------------------------- consuming

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

/** A message of a pre-0.11 message set (kafkats reads record batches only: it never hands these out). */
export interface MessageSetEntry {
  key: Buffer | null
  value: Buffer | null
  timestamp: string
  attributes: number
  offset: string
  size: number
  headers?: never
}
/** A message of a record batch: what kafkats hands out. */
export interface RecordBatchEntry {
  key: Buffer | null
  value: Buffer | null
  timestamp: string
  attributes: number
  offset: string
  headers: IHeaders
  size?: never
}
export type KafkaMessage = MessageSetEntry | RecordBatchEntry

export interface Batch {
  topic: string
  partition: number
  highWatermark: string
  messages: KafkaMessage[]
  isEmpty (): boolean
  firstOffset (): string | null
  lastOffset (): string
  offsetLag (): string
  offsetLagLow (): string
}

export interface OffsetsByTopicPartition { topics: TopicOffsets[] }

export interface EachMessagePayload {
  topic: string
  partition: number
  message: KafkaMessage
  heartbeat (): Promise<void>
  pause (): () => void
}
export interface EachBatchPayload {
  batch: Batch
  resolveOffset (offset: string): void
  heartbeat (): Promise<void>
  pause (): () => void
  commitOffsetsIfNecessary (offsets?: Offsets): Promise<void>
  uncommittedOffsets (): OffsetsByTopicPartition
  isRunning (): boolean
  isStale (): boolean
}
/** @types/kafkajs's name for EachMessagePayload, which kafkajs kept. */
export type ConsumerEachMessagePayload = EachMessagePayload
/** @types/kafkajs's name for EachBatchPayload, which kafkajs kept. */
export type ConsumerEachBatchPayload = EachBatchPayload
export type EachBatchHandler = (payload: EachBatchPayload) => Promise<void>
export type EachMessageHandler = (payload: EachMessagePayload) => Promise<void>

export interface ConsumerRunConfig {
  autoCommit?: boolean
  autoCommitInterval?: number | null
  autoCommitThreshold?: number | null
  eachBatchAutoResolve?: boolean
  partitionsConsumedConcurrently?: number
  eachBatch?: EachBatchHandler
  eachMessage?: EachMessageHandler
}

/** @deprecated kafkajs replaced it by ConsumerSubscribeTopics. */
export interface ConsumerSubscribeTopic { topic: string | RegExp, fromBeginning?: boolean }
export interface ConsumerSubscribeTopics { topics: Array<string | RegExp>, fromBeginning?: boolean }

export interface TopicPartitions { topic: string, partitions: number[] }
export interface TopicPartition { topic: string, partition: number }
export type TopicPartitionOffset = TopicPartition & { offset: string }
export type TopicPartitionOffsetAndMetadata = TopicPartitionOffset & { metadata?: string | null }
export type SeekEntry = PartitionOffset

export interface ConsumerEvents {
  HEARTBEAT: 'consumer.heartbeat'
  COMMIT_OFFSETS: 'consumer.commit_offsets'
  GROUP_JOIN: 'consumer.group_join'
  FETCH_START: 'consumer.fetch_start'
  FETCH: 'consumer.fetch'
  START_BATCH_PROCESS: 'consumer.start_batch_process'
  END_BATCH_PROCESS: 'consumer.end_batch_process'
  CONNECT: 'consumer.connect'
  DISCONNECT: 'consumer.disconnect'
  STOP: 'consumer.stop'
  CRASH: 'consumer.crash'
  REBALANCING: 'consumer.rebalancing'
  RECEIVED_UNSUBSCRIBED_TOPICS: 'consumer.received_unsubscribed_topics'
  REQUEST: 'consumer.network.request'
  REQUEST_TIMEOUT: 'consumer.network.request_timeout'
  REQUEST_QUEUE_SIZE: 'consumer.network.request_queue_size'
}

export interface IMemberAssignment { [key: string]: number[] }
export interface IBatchProcessEvent {
  topic: string
  partition: number
  highWatermark: string
  offsetLag: string
  offsetLagLow: string
  batchSize: number
  firstOffset: string
  lastOffset: string
}
export type ConsumerHeartbeatEvent = InstrumentationEvent<{ groupId: string, memberId: string, groupGenerationId: number }>
export type ConsumerCommitOffsetsEvent = InstrumentationEvent<{ groupId: string, memberId: string, groupGenerationId: number, topics: TopicOffsets[] }>
export type ConsumerGroupJoinEvent = InstrumentationEvent<{
  duration: number
  groupId: string
  isLeader: boolean
  leaderId: string
  groupProtocol: string
  memberId: string
  memberAssignment: IMemberAssignment
}>
export type ConsumerFetchStartEvent = InstrumentationEvent<{ nodeId: number }>
export type ConsumerFetchEvent = InstrumentationEvent<{ numberOfBatches: number, duration: number, nodeId: number }>
export type ConsumerStartBatchProcessEvent = InstrumentationEvent<IBatchProcessEvent>
export type ConsumerEndBatchProcessEvent = InstrumentationEvent<IBatchProcessEvent & { duration: number }>
export type ConsumerCrashEvent = InstrumentationEvent<{ error: Error, groupId: string, restart: boolean }>
export type ConsumerRebalancingEvent = InstrumentationEvent<{ groupId: string, memberId: string }>
export type ConsumerReceivedUnsubcribedTopicsEvent = InstrumentationEvent<{
  groupId: string
  generationId: number
  memberId: string
  assignedTopics: string[]
  topicsSubscribed: string[]
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

export interface Consumer {
  connect (): Promise<void>
  disconnect (): Promise<void>
  subscribe (subscription: ConsumerSubscribeTopics | ConsumerSubscribeTopic): Promise<void>
  stop (): Promise<void>
  run (config?: ConsumerRunConfig): Promise<void>
  commitOffsets (topicPartitions: TopicPartitionOffsetAndMetadata[]): Promise<void>
  seek (topicPartitionOffset: TopicPartitionOffset): void
  describeGroup (): Promise<GroupDescription>
  pause (topics: Array<{ topic: string, partitions?: number[] }>): void
  paused (): TopicPartitions[]
  resume (topics: Array<{ topic: string, partitions?: number[] }>): void
  on (eventName: 'consumer.heartbeat', listener: (event: ConsumerHeartbeatEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.commit_offsets', listener: (event: ConsumerCommitOffsetsEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.group_join', listener: (event: ConsumerGroupJoinEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.fetch_start', listener: (event: ConsumerFetchStartEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.fetch', listener: (event: ConsumerFetchEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.start_batch_process', listener: (event: ConsumerStartBatchProcessEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.end_batch_process', listener: (event: ConsumerEndBatchProcessEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.connect', listener: (event: ConnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.disconnect', listener: (event: DisconnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.stop', listener: (event: InstrumentationEvent<null>) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.crash', listener: (event: ConsumerCrashEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.rebalancing', listener: (event: ConsumerRebalancingEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.received_unsubscribed_topics', listener: (event: ConsumerReceivedUnsubcribedTopicsEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.network.request', listener: (event: RequestEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.network.request_timeout', listener: (event: RequestTimeoutEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'consumer.network.request_queue_size', listener: (event: RequestQueueSizeEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  // kafkajs's catch-all overload: any of its event names, with an untyped event.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on (eventName: ValueOf<ConsumerEvents>, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener<typeof eventName>
  logger (): Logger
  readonly events: ConsumerEvents
}

// ---------------------------------------------------------------- group assignment

export interface CoordinatorMetadata {
  errorCode: number
  coordinator: { nodeId: number, host: string, port: number }
}
export interface BrokerMetadata {
  brokers: Array<{ nodeId: number, host: string, port: number, rack?: string }>
  topicMetadata: Array<{ topicErrorCode: number, topic: string, partitionMetadata: PartitionMetadata[] }>
}
export interface ApiVersions { [apiKey: number]: { minVersion: number, maxVersion: number } }

/**
 * kafkajs's broker connection, as its Cluster hands it out. kafkats/kafkajs has no such
 * object (docs/migrating-from-kafkajs.md); the type is here for programs that name it.
 */
export interface Broker {
  isConnected (): boolean
  connect (): Promise<void>
  disconnect (): Promise<void>
  apiVersions (): Promise<ApiVersions>
  metadata (topics: string[]): Promise<BrokerMetadata>
  // kafkajs leaves these answers untyped.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  describeGroups: (options: { groupIds: string[] }) => Promise<any>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  offsetCommit (request: { groupId: string, groupGenerationId: number, memberId: string, retentionTime?: number, topics: TopicOffsets[] }): Promise<any>
  offsetFetch (request: { groupId: string, topics: TopicOffsets[] }): Promise<{ responses: TopicOffsets[] }>
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
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  alterPartitionReassignments (request: { topics: PartitionReassignment[], timeout?: number }): Promise<any>
  listPartitionReassignments (request: { topics?: TopicPartitions[], timeout?: number }): Promise<ListPartitionReassignmentsResponse>
}

/**
 * kafkajs's cluster as a PartitionAssigner receives it. kafkats/kafkajs's assigners get
 * `findTopicPartitionMetadata` only (what kafkajs's own round robin uses); see the migration guide.
 */
export interface Cluster {
  getNodeIds (): number[]
  metadata (): Promise<BrokerMetadata>
  removeBroker (options: { host: string, port: number }): void
  addMultipleTargetTopics (topics: string[]): Promise<void>
  isConnected (): boolean
  connect (): Promise<void>
  disconnect (): Promise<void>
  refreshMetadata (): Promise<void>
  refreshMetadataIfNecessary (): Promise<void>
  addTargetTopic (topic: string): Promise<void>
  findBroker (node: { nodeId: string }): Promise<Broker>
  findControllerBroker (): Promise<Broker>
  findTopicPartitionMetadata (topic: string): PartitionMetadata[]
  findLeaderForPartitions (topic: string, partitions: number[]): { [leader: string]: number[] }
  findGroupCoordinator (group: { groupId: string }): Promise<Broker>
  findGroupCoordinatorMetadata (group: { groupId: string }): Promise<CoordinatorMetadata>
  defaultOffset (config: { fromBeginning: boolean }): number
  fetchTopicsOffset (topics: Array<{ topic: string, partitions: Array<{ partition: number }> } & XOR<{ fromBeginning: boolean }, { fromTimestamp: number }>>): Promise<TopicOffsets[]>
}

export interface Assignment { [topic: string]: number[] }
export interface GroupMember { memberId: string, memberMetadata: Buffer }
export interface GroupMemberAssignment { memberId: string, memberAssignment: Buffer }
export interface GroupState { name: string, metadata: Buffer }
export interface Assigner {
  name: string
  version: number
  assign (group: { members: GroupMember[], topics: string[] }): Promise<GroupMemberAssignment[]>
  protocol (subscription: { topics: string[] }): GroupState
}
export type PartitionAssigner = (config: { cluster: Cluster, groupId: string, logger: Logger }) => Assigner

export interface ISerializer<T> {
  encode (value: T): Buffer
  decode (buffer: Buffer): T | null
}
export interface MemberMetadata { version: number, topics: string[], userData: Buffer }
export interface MemberAssignment { version: number, assignment: Assignment, userData: Buffer }

export interface ConsumerGroup {
  groupId: string
  generationId: number
  memberId: string
  coordinator: Broker
}

// ---------------------------------------------------------------- admin

export interface AdminConfig { retry?: RetryOptions }

export interface ReplicaAssignment { partition: number, replicas: number[] }
export interface IResourceConfigEntry { name: string, value: string }
export interface ITopicConfig {
  topic: string
  numPartitions?: number
  replicationFactor?: number
  replicaAssignment?: ReplicaAssignment[]
  configEntries?: IResourceConfigEntry[]
}
export interface ITopicPartitionConfig { topic: string, count: number, assignments?: number[][] }
export interface ITopicMetadata { name: string, partitions: PartitionMetadata[] }
export interface PartitionReassignment { topic: string, partitionAssignment: ReplicaAssignment[] }

export interface ResourceConfigQuery { type: ConfigResourceTypes, name: string, configNames?: string[] }
export interface ConfigSynonyms { configName: string, configValue: string, configSource: ConfigSource }
export interface ConfigEntries {
  configName: string
  configValue: string
  isDefault: boolean
  configSource: ConfigSource
  isSensitive: boolean
  readOnly: boolean
  configSynonyms: ConfigSynonyms[]
}
export interface DescribeConfigResponse {
  resources: Array<{
    configEntries: ConfigEntries[]
    errorCode: number
    errorMessage: string
    resourceName: string
    resourceType: ConfigResourceTypes
  }>
  throttleTime: number
}
export interface IResourceConfig { type: ConfigResourceTypes, name: string, configEntries: IResourceConfigEntry[] }

export interface Acl {
  principal: string
  host: string
  operation: AclOperationTypes
  permissionType: AclPermissionTypes
}
export interface AclResource {
  resourceType: AclResourceTypes
  resourceName: string
  resourcePatternType: ResourcePatternTypes
}
export type AclEntry = Acl & AclResource
export type DescribeAclResource = AclResource & { acls: Acl[] }
export interface DescribeAclResponse {
  throttleTime: number
  errorCode: number
  errorMessage?: string
  resources: DescribeAclResource[]
}
export interface AclFilter {
  resourceType: AclResourceTypes
  resourceName?: string
  resourcePatternType: ResourcePatternTypes
  principal?: string
  host?: string
  operation: AclOperationTypes
  permissionType: AclPermissionTypes
}
export interface MatchingAcl {
  errorCode: number
  errorMessage?: string
  resourceType: AclResourceTypes
  resourceName: string
  resourcePatternType: ResourcePatternTypes
  principal: string
  host: string
  operation: AclOperationTypes
  permissionType: AclPermissionTypes
}
export interface DeleteAclFilterResponses { errorCode: number, errorMessage?: string, matchingAcls: MatchingAcl[] }
export interface DeleteAclResponse { throttleTime: number, filterResponses: DeleteAclFilterResponses[] }

export interface OngoingPartitionReassignment {
  partitionIndex: number
  replicas: number[]
  addingReplicas?: number[]
  removingReplicas?: number[]
}
export interface OngoingTopicReassignment { topic: string, partitions: OngoingPartitionReassignment[] }
export interface ListPartitionReassignmentsResponse { topics: OngoingTopicReassignment[] }

export interface MemberDescription {
  clientHost: string
  clientId: string
  memberId: string
  memberAssignment: Buffer
  memberMetadata: Buffer
}
/** Kafka's classic group states, as kafkajs lists them. */
export type ConsumerGroupState = 'Unknown' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead' | 'Empty'
export interface GroupDescription {
  groupId: string
  members: MemberDescription[]
  protocol: string
  protocolType: string
  state: ConsumerGroupState
}
export interface GroupDescriptions { groups: GroupDescription[] }
export interface GroupOverview { groupId: string, protocolType: string }
export type FetchOffsetsPartition = PartitionOffset & { metadata: string | null }

export interface AdminEvents {
  CONNECT: 'admin.connect'
  DISCONNECT: 'admin.disconnect'
  REQUEST: 'admin.network.request'
  REQUEST_TIMEOUT: 'admin.network.request_timeout'
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

export interface Admin {
  connect (): Promise<void>
  disconnect (): Promise<void>
  listTopics (): Promise<string[]>
  createTopics (options: { validateOnly?: boolean, waitForLeaders?: boolean, timeout?: number, topics: ITopicConfig[] }): Promise<boolean>
  deleteTopics (options: { topics: string[], timeout?: number }): Promise<void>
  /** kafkajs declares `Promise<boolean>`; its answer (and kafkats/kafkajs's) is undefined. */
  createPartitions (options: { validateOnly?: boolean, timeout?: number, topicPartitions: ITopicPartitionConfig[] }): Promise<boolean>
  fetchTopicMetadata (options?: { topics: string[] }): Promise<{ topics: ITopicMetadata[] }>
  fetchOffsets (options: { groupId: string, topics?: string[], resolveOffsets?: boolean }): Promise<Array<{ topic: string, partitions: FetchOffsetsPartition[] }>>
  fetchTopicOffsets (topic: string): Promise<Array<SeekEntry & { high: string, low: string }>>
  fetchTopicOffsetsByTimestamp (topic: string, timestamp?: number): Promise<SeekEntry[]>
  describeCluster (): Promise<{ brokers: Array<{ nodeId: number, host: string, port: number }>, controller: number | null, clusterId: string }>
  setOffsets (options: { groupId: string, topic: string, partitions: SeekEntry[] }): Promise<void>
  resetOffsets (options: { groupId: string, topic: string, earliest: boolean }): Promise<void>
  describeConfigs (configs: { resources: ResourceConfigQuery[], includeSynonyms: boolean }): Promise<DescribeConfigResponse>
  // kafkajs leaves alterConfigs's answer untyped.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  alterConfigs (configs: { validateOnly: boolean, resources: IResourceConfig[] }): Promise<any>
  listGroups (): Promise<{ groups: GroupOverview[] }>
  deleteGroups (groupIds: string[]): Promise<DeleteGroupsResult[]>
  describeGroups (groupIds: string[]): Promise<GroupDescriptions>
  describeAcls (options: AclFilter): Promise<DescribeAclResponse>
  deleteAcls (options: { filters: AclFilter[] }): Promise<DeleteAclResponse>
  createAcls (options: { acl: AclEntry[] }): Promise<boolean>
  deleteTopicRecords (options: { topic: string, partitions: SeekEntry[] }): Promise<void>
  alterPartitionReassignments (request: { topics: PartitionReassignment[], timeout?: number }): Promise<void>
  listPartitionReassignments (request: { topics?: TopicPartitions[], timeout?: number }): Promise<ListPartitionReassignmentsResponse>
  logger (): Logger
  on (eventName: 'admin.connect', listener: (event: ConnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'admin.disconnect', listener: (event: DisconnectEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'admin.network.request', listener: (event: RequestEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'admin.network.request_timeout', listener: (event: RequestTimeoutEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  on (eventName: 'admin.network.request_queue_size', listener: (event: RequestQueueSizeEvent) => void): RemoveInstrumentationEventListener<typeof eventName>
  // kafkajs's catch-all overload: any of its event names, with an untyped event.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on (eventName: ValueOf<AdminEvents>, listener: (event: InstrumentationEvent<any>) => void): RemoveInstrumentationEventListener<typeof eventName>
  readonly events: AdminEvents
}

// ---------------------------------------------------------------- instrumentation events

export interface InstrumentationEvent<T> {
  id: string
  type: string
  timestamp: number
  payload: T
}
/** Generic like kafkajs's own type, so code written against kafkajs compiles; the parameter is not used. */
export type RemoveInstrumentationEventListener<_T> = () => void
export type ConnectEvent = InstrumentationEvent<null>
export type DisconnectEvent = InstrumentationEvent<null>
export type RequestEvent = InstrumentationEvent<{
  apiKey: number
  apiName: string
  apiVersion: number
  broker: string
  clientId: string
  correlationId: number
  createdAt: number
  duration: number
  pendingDuration: number
  sentAt: number
  size: number
}>
export type RequestTimeoutEvent = InstrumentationEvent<{
  apiKey: number
  apiName: string
  apiVersion: number
  broker: string
  clientId: string
  correlationId: number
  createdAt: number
  pendingDuration: number
  sentAt: number
}>
export type RequestQueueSizeEvent = InstrumentationEvent<{ broker: string, clientId: string, queueSize: number }>


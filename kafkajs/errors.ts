/**
 * kafkajs 2.2.4's error classes: the same names, constructor signatures, `retriable`,
 * `type`, `code` and `cause`, and kafkajs's messages for Kafka's error codes, so code that
 * matches on them (`instanceof`, `e.type === 'REBALANCE_IN_PROGRESS'`, `e.retriable`) keeps
 * working. `toKafkaJSError` turns kafkats's errors into these.
 */
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError, KafkaTsError, ProtocolError } from '../protocol/errors'
import { AuthenticationError, ClientClosedError, ConnectionError, RequestTimeoutError, UnsupportedVersionError } from '../client/errors'
import type { PartitionMetadata } from './partition-metadata'

// What kafkajs's errors carry (kafkajs's types/index.d.ts names).

export interface KafkaJSErrorMetadata {
  retriable?: boolean
  topic?: string
  partitionId?: number
  metadata?: PartitionMetadata
}
export interface KafkaJSOffsetOutOfRangeMetadata { topic: string, partition: number }
export interface KafkaJSNumberOfRetriesExceededMetadata { retryCount: number, retryTime: number }
export interface KafkaJSConnectionErrorMetadata { broker?: string, code?: string }
export interface KafkaJSRequestTimeoutErrorMetadata {
  broker: string
  clientId: string
  correlationId: number
  createdAt: number
  sentAt: number
  pendingDuration: number
}
export interface KafkaJSTopicMetadataNotLoadedMetadata { topic: string }
export interface KafkaJSStaleTopicMetadataAssignmentMetadata { topic: string, unknownPartitions: PartitionMetadata[] }
export interface KafkaJSServerDoesNotSupportApiKeyMetadata { apiKey: number, apiName: string }
export interface KafkaJSDeleteGroupsErrorGroups { groupId: string, errorCode: number, error: KafkaJSError }
export interface KafkaJSDeleteTopicRecordsErrorPartition { partition: number, offset: string, error: KafkaJSError }
export interface KafkaJSDeleteTopicRecordsErrorTopic { topic: string, partitions: KafkaJSDeleteTopicRecordsErrorPartition[] }
export interface DeleteGroupsResult { groupId: string, errorCode?: number, error?: KafkaJSProtocolError }

/** What a KafkaJS error is made from: a message, or an error-like object with one (written out in the constructors, which are public). */
type MessageOrError = string | { message?: string, helpUrl?: string }

function messageOf (e: MessageOrError): string {
  return typeof e === 'string' ? e : (e.message ?? String(e))
}

export class KafkaJSError extends Error {
  retriable: boolean
  helpUrl?: string
  override cause?: Error

  /** kafkajs's metadata (`retriable`; its `topic`, `partitionId`, `metadata` are not kept, as in kafkajs) and the `cause`. */
  constructor (e: Error | string | { message?: string, helpUrl?: string }, { retriable = true, cause }: KafkaJSErrorMetadata & { cause?: Error } = {}) {
    super(messageOf(e), cause === undefined ? undefined : { cause })
    Error.captureStackTrace(this, this.constructor)
    this.name = 'KafkaJSError'
    this.retriable = retriable
    this.helpUrl = typeof e === 'string' ? undefined : (e as { helpUrl?: string }).helpUrl
    this.cause = cause
  }
}

export class KafkaJSNonRetriableError extends KafkaJSError {
  constructor (e: Error | string | { message?: string, helpUrl?: string }, { cause }: { cause?: Error } = {}) {
    super(e, { retriable: false, cause })
    this.name = 'KafkaJSNonRetriableError'
  }
}

/** What kafkajs knows about an error code: `{ type, code, retriable, message }`. */
export interface ProtocolErrorInfo { type: string, code: number, retriable: boolean, message: string, helpUrl?: string }


export class KafkaJSProtocolError extends KafkaJSError {
  type: string
  code: number

  constructor (e: Error | string | { type: string, code: number, retriable: boolean, message: string, helpUrl?: string }, { retriable }: { retriable?: boolean } = {}) {
    const info = typeof e === 'string' ? undefined : e as Partial<ProtocolErrorInfo>
    super(e, { retriable: retriable ?? info?.retriable ?? true })
    this.type = info?.type ?? ''
    this.code = info?.code ?? -1
    this.name = 'KafkaJSProtocolError'
  }
}

/**
 * A kafkajs error class that adds nothing but its name (and `fields`, copied from the
 * constructor's second argument): most of kafkajs's classes have one of these two shapes.
 * The class keeps its name (`name`, `constructor.name`), its base's constructor signature
 * and `instanceof` chain.
 */
// TypeScript lets a class extend a type parameter only when both constructors take `...args: any[]`
// (a mixin, TS2545): the one place this layer needs `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type MixinArgs = any[]
type KafkaJSErrorClass = new (...args: MixinArgs) => KafkaJSError

/** kafkajs declares these constructors without arguments (its run time takes the base's). */
function errorClass<B extends KafkaJSErrorClass> (Base: B, name: string): new (e?: ConstructorParameters<B>[0], metadata?: ConstructorParameters<B>[1]) => InstanceType<B> {
  const Named = class extends Base {
    constructor (...args: MixinArgs) {
      super(args[0], args[1])
      this.name = name
    }
  }
  Object.defineProperty(Named, 'name', { value: name })
  return Named as unknown as new (e?: ConstructorParameters<B>[0], metadata?: ConstructorParameters<B>[1]) => InstanceType<B>
}

function errorClassWithFields<F extends object, B extends KafkaJSErrorClass = typeof KafkaJSError> (Base: B, name: string, fields: Array<keyof F & string>) {
  const WithFields = class extends Base {
    constructor (...args: MixinArgs) {
      super(args[0])
      this.name = name
      for (const field of fields) (this as Record<string, unknown>)[field] = args[1]?.[field]
    }
  }
  Object.defineProperty(WithFields, 'name', { value: name })
  // kafkajs declares the fields present (they are undefined when the constructor was not given them, in kafkajs too).
  return WithFields as unknown as new (e: ConstructorParameters<B>[0], fields?: Partial<F>) => InstanceType<B> & Readonly<F>
}

export const KafkaJSOffsetOutOfRange = errorClassWithFields<{ topic: string, partition: number }, typeof KafkaJSProtocolError>(KafkaJSProtocolError, 'KafkaJSOffsetOutOfRange', ['topic', 'partition'])
export type KafkaJSOffsetOutOfRange = InstanceType<typeof KafkaJSOffsetOutOfRange>
export const KafkaJSMemberIdRequired = errorClassWithFields<{ memberId: string }, typeof KafkaJSProtocolError>(KafkaJSProtocolError, 'KafkaJSMemberIdRequired', ['memberId'])
export type KafkaJSMemberIdRequired = InstanceType<typeof KafkaJSMemberIdRequired>

export class KafkaJSNumberOfRetriesExceeded extends KafkaJSNonRetriableError {
  declare stack: string
  retryCount: number
  retryTime: number
  constructor (e: Error | string, { retryCount, retryTime }: KafkaJSNumberOfRetriesExceededMetadata = { retryCount: 0, retryTime: 0 }) {
    super(e, { cause: typeof e === 'string' ? undefined : e })
    this.stack = `KafkaJSNonRetriableError\n  Caused by: ${typeof e === 'string' ? e : e.stack ?? ''}`
    this.retryCount = retryCount
    this.retryTime = retryTime
    this.name = 'KafkaJSNumberOfRetriesExceeded'
  }
}

export const KafkaJSConnectionError = errorClassWithFields<{ broker: string, code: string }>(KafkaJSError, 'KafkaJSConnectionError', ['broker', 'code'])
export type KafkaJSConnectionError = InstanceType<typeof KafkaJSConnectionError>

export class KafkaJSConnectionClosedError extends KafkaJSConnectionError {
  host?: string
  port?: number
  constructor (e: Error | string | { message?: string, helpUrl?: string }, { host, port }: { host?: string, port?: number } = {}) {
    super(e, { broker: `${host ?? ''}:${port ?? ''}` })
    this.host = host
    this.port = port
    this.name = 'KafkaJSConnectionClosedError'
  }
}

export const KafkaJSRequestTimeoutError = errorClassWithFields<{ broker: string, clientId: string, correlationId: number, createdAt: number, sentAt: number, pendingDuration: number }>(KafkaJSError, 'KafkaJSRequestTimeoutError', ['broker', 'correlationId', 'createdAt', 'sentAt', 'pendingDuration'])
export type KafkaJSRequestTimeoutError = InstanceType<typeof KafkaJSRequestTimeoutError>
export const KafkaJSMetadataNotLoaded = errorClass(KafkaJSError, 'KafkaJSMetadataNotLoaded')
export type KafkaJSMetadataNotLoaded = InstanceType<typeof KafkaJSMetadataNotLoaded>
export const KafkaJSTopicMetadataNotLoaded = errorClassWithFields<{ topic: string }, typeof KafkaJSMetadataNotLoaded>(KafkaJSMetadataNotLoaded, 'KafkaJSTopicMetadataNotLoaded', ['topic'])
export type KafkaJSTopicMetadataNotLoaded = InstanceType<typeof KafkaJSTopicMetadataNotLoaded>
export const KafkaJSStaleTopicMetadataAssignment = errorClassWithFields<{ topic: string, unknownPartitions: unknown[] }>(KafkaJSError, 'KafkaJSStaleTopicMetadataAssignment', ['topic', 'unknownPartitions'])
export type KafkaJSStaleTopicMetadataAssignment = InstanceType<typeof KafkaJSStaleTopicMetadataAssignment>

export class KafkaJSDeleteGroupsError extends KafkaJSError {
  groups: DeleteGroupsResult[]
  constructor (e: Error | string | { message?: string, helpUrl?: string }, groups: KafkaJSDeleteGroupsErrorGroups[] = []) {
    super(e)
    // kafkajs types the field's errors as protocol errors and the argument's as any KafkaJSError; they are protocol errors.
    this.groups = groups as DeleteGroupsResult[]
    this.name = 'KafkaJSDeleteGroupsError'
  }
}

export const KafkaJSServerDoesNotSupportApiKey = errorClassWithFields<{ apiKey: number, apiName: string }, typeof KafkaJSNonRetriableError>(KafkaJSNonRetriableError, 'KafkaJSServerDoesNotSupportApiKey', ['apiKey', 'apiName'])
export type KafkaJSServerDoesNotSupportApiKey = InstanceType<typeof KafkaJSServerDoesNotSupportApiKey>
export const KafkaJSBrokerNotFound = errorClass(KafkaJSError, 'KafkaJSBrokerNotFound')
export type KafkaJSBrokerNotFound = InstanceType<typeof KafkaJSBrokerNotFound>
export const KafkaJSPartialMessageError = errorClass(KafkaJSNonRetriableError, 'KafkaJSPartialMessageError')
export type KafkaJSPartialMessageError = InstanceType<typeof KafkaJSPartialMessageError>
export const KafkaJSSASLAuthenticationError = errorClass(KafkaJSNonRetriableError, 'KafkaJSSASLAuthenticationError')
export type KafkaJSSASLAuthenticationError = InstanceType<typeof KafkaJSSASLAuthenticationError>
export const KafkaJSGroupCoordinatorNotFound = errorClass(KafkaJSNonRetriableError, 'KafkaJSGroupCoordinatorNotFound')
export type KafkaJSGroupCoordinatorNotFound = InstanceType<typeof KafkaJSGroupCoordinatorNotFound>
export const KafkaJSNotImplemented = errorClass(KafkaJSNonRetriableError, 'KafkaJSNotImplemented')
export type KafkaJSNotImplemented = InstanceType<typeof KafkaJSNotImplemented>
export const KafkaJSTimeout = errorClass(KafkaJSNonRetriableError, 'KafkaJSTimeout')
export type KafkaJSTimeout = InstanceType<typeof KafkaJSTimeout>
export const KafkaJSLockTimeout = errorClass(KafkaJSTimeout, 'KafkaJSLockTimeout')
export type KafkaJSLockTimeout = InstanceType<typeof KafkaJSLockTimeout>
export const KafkaJSUnsupportedMagicByteInMessageSet = errorClass(KafkaJSNonRetriableError, 'KafkaJSUnsupportedMagicByteInMessageSet')
export type KafkaJSUnsupportedMagicByteInMessageSet = InstanceType<typeof KafkaJSUnsupportedMagicByteInMessageSet>

export class KafkaJSDeleteTopicRecordsError extends KafkaJSError {
  partitions: KafkaJSDeleteTopicRecordsErrorPartition[]
  constructor ({ partitions }: { topic?: string, partitions: KafkaJSDeleteTopicRecordsErrorPartition[] }) {
    // Retriable only if every partition's error is.
    const retriable = partitions.filter(p => p.error != null).every(p => p.error.retriable)
    super('Error while deleting records', { retriable })
    this.name = 'KafkaJSDeleteTopicRecordsError'
    this.partitions = partitions
  }
}

export class KafkaJSInvariantViolation extends KafkaJSNonRetriableError {
  constructor (e: Error | string | { message?: string, helpUrl?: string }) {
    super(`Invariant violated: ${messageOf(e)}. This is likely a bug and should be reported.`)
    this.name = 'KafkaJSInvariantViolation'
  }
}

// kafkajs names these two 'KafkaJSNonRetriableError'.
export class KafkaJSInvalidVarIntError extends KafkaJSNonRetriableError {}
export class KafkaJSInvalidLongError extends KafkaJSNonRetriableError {}

export class KafkaJSCreateTopicError extends KafkaJSProtocolError {
  topic: string
  constructor (e: Error | string | { type: string, code: number, retriable: boolean, message: string, helpUrl?: string }, topicName: string) {
    super(e)
    this.topic = topicName
    this.name = 'KafkaJSCreateTopicError'
  }
}

export class KafkaJSAlterPartitionReassignmentsError extends KafkaJSProtocolError {
  topic?: string
  partition?: number
  constructor (e: Error | string | { type: string, code: number, retriable: boolean, message: string, helpUrl?: string }, topicName?: string, partition?: number) {
    super(e)
    this.topic = topicName
    this.partition = partition
    this.name = 'KafkaJSAlterPartitionReassignmentsError'
  }
}

export class KafkaJSAggregateError extends Error {
  errors: Array<Error | string>
  constructor (message: Error | string, errors: Array<Error | string>) {
    super(messageOf(message))
    this.errors = errors
    this.name = 'KafkaJSAggregateError'
  }
}

export class KafkaJSFetcherRebalanceError extends Error {}

export class KafkaJSNoBrokerAvailableError extends KafkaJSError {
  constructor () {
    super('No broker available')
    this.name = 'KafkaJSNoBrokerAvailableError'
  }
}

/**
 * Where kafkajs 2.2.4's table differs from Kafka's own (names it had before KIP renames,
 * shorter messages); every other code uses Kafka's name and message without the final dot.
 * Codes kafkajs did not know (above 88) keep Kafka's, which says more than kafkajs's
 * "Unknown error code".
 */
const kafkajsErrorTable: Record<number, { type?: string, message?: string, helpUrl?: string }> = {
  [ErrorCode.UNKNOWN_SERVER_ERROR]: { type: 'UNKNOWN' },
  [ErrorCode.CORRUPT_MESSAGE]: { message: 'This message has failed its CRC checksum, exceeds the valid size, or is otherwise corrupt' },
  [ErrorCode.NOT_LEADER_OR_FOLLOWER]: { type: 'NOT_LEADER_FOR_PARTITION', message: 'This server is not the leader for that topic-partition' },
  [ErrorCode.REPLICA_NOT_AVAILABLE]: { message: 'The replica is not available for the requested topic-partition' },
  [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]: { type: 'GROUP_LOAD_IN_PROGRESS', message: 'The coordinator is loading and hence can\'t process requests for this group' },
  [ErrorCode.COORDINATOR_NOT_AVAILABLE]: { type: 'GROUP_COORDINATOR_NOT_AVAILABLE', message: 'The group coordinator is not available' },
  [ErrorCode.NOT_COORDINATOR]: { type: 'NOT_COORDINATOR_FOR_GROUP', message: 'This is not the correct coordinator for this group' },
  [ErrorCode.INCONSISTENT_GROUP_PROTOCOL]: { message: 'The group member\'s supported protocols are incompatible with those of existing members' },
  [ErrorCode.INVALID_GROUP_ID]: { message: 'The configured groupId is invalid' },
  [ErrorCode.REBALANCE_IN_PROGRESS]: { helpUrl: 'https://kafka.js.org/docs/faq#what-does-it-mean-to-get-rebalance-in-progress-errors' },
  [ErrorCode.TOPIC_AUTHORIZATION_FAILED]: { message: 'Not authorized to access topics: [Topic authorization failed]' },
  [ErrorCode.GROUP_AUTHORIZATION_FAILED]: { message: 'Not authorized to access group: Group authorization failed' },
  [ErrorCode.INVALID_PARTITIONS]: { message: 'Number of partitions is invalid' },
  [ErrorCode.INVALID_REPLICATION_FACTOR]: { message: 'Replication-factor is invalid' },
  [ErrorCode.INVALID_PRODUCER_EPOCH]: { message: 'Producer attempted an operation with an old epoch. Either there is a newer producer with the same transactionalId, or the producer\'s transaction has been expired by the broker' },
  [ErrorCode.INVALID_TRANSACTION_TIMEOUT]: { message: 'The transaction timeout is larger than the maximum value allowed by the broker (as configured by max.transaction.timeout.ms)' },
  [ErrorCode.SASL_AUTHENTICATION_FAILED]: { helpUrl: 'https://kafka.js.org/docs/configuration#sasl' },
  [ErrorCode.GROUP_ID_NOT_FOUND]: { message: 'The group id was not found' },
  [ErrorCode.GROUP_MAX_SIZE_REACHED]: { message: 'The consumer group has reached its max size. It already has the configured maximum number of members' },
  [ErrorCode.FENCED_INSTANCE_ID]: { message: 'The broker rejected this static consumer since another consumer with the same group instance id has registered with a different member id' },
  [ErrorCode.INVALID_RECORD]: { message: 'This record has failed the validation on broker and hence be rejected' }
}

/** kafkajs's `{ type, code, retriable, message }` for a Kafka error code. */
export function protocolErrorInfo (code: number): ProtocolErrorInfo {
  const info = errorCodeInfo(code)
  const override = kafkajsErrorTable[code] ?? {}
  const result: ProtocolErrorInfo = { type: override.type ?? info.name, code, retriable: info.retriable, message: override.message ?? info.meaning.replace(/\.$/, '') }
  if (override.helpUrl !== undefined) result.helpUrl = override.helpUrl
  return result
}

export function createErrorFromCode (code: number): KafkaJSProtocolError {
  return new KafkaJSProtocolError(protocolErrorInfo(code))
}

/** A kafkats error (or anything thrown) as the kafkajs error a kafkajs user expects. */
export function toKafkaJSError (error: unknown): Error {
  if (error instanceof KafkaJSError || error instanceof KafkaJSAggregateError) return error
  if (error instanceof BrokerError) {
    const e = new KafkaJSProtocolError(protocolErrorInfo(error.code))
    e.cause = error
    return e
  }
  if (error instanceof AuthenticationError) {
    // kafkajs names the SCRAM mechanisms "SCRAM SHA256" / "SCRAM SHA512" in its messages.
    return new KafkaJSSASLAuthenticationError(error.message.replace(/SASL SCRAM-SHA-(256|512)/, 'SASL SCRAM SHA$1'), { cause: error })
  }
  if (error instanceof RequestTimeoutError) return new KafkaJSRequestTimeoutError(error.message)
  if (error instanceof ConnectionError) return new KafkaJSConnectionError(error.message, { broker: error.broker })
  if (error instanceof UnsupportedVersionError) return new KafkaJSServerDoesNotSupportApiKey(error.message)
  if (error instanceof ClientClosedError || error instanceof ProtocolError) return new KafkaJSNonRetriableError(error, { cause: error })
  if (error instanceof KafkaTsError) return new KafkaJSError(error.message, { retriable: error.retriable, cause: error })
  if (error instanceof Error) return error
  return new KafkaJSError(String(error))
}

export const isRebalancing = (e: { type?: string }): boolean =>
  e.type === 'REBALANCE_IN_PROGRESS' || e.type === 'NOT_COORDINATOR_FOR_GROUP' || e.type === 'ILLEGAL_GENERATION'

export const isKafkaJSError = (e: unknown): boolean => e instanceof KafkaJSError

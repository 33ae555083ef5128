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

/** The second argument of `new KafkaJSError(e, metadata)`. */
export interface KafkaJSErrorMetadata {
  /** Whether retrying may succeed (default true). */
  retriable?: boolean
  /** The topic concerned (accepted and not kept, as in kafkajs). */
  topic?: string
  /** The partition concerned (accepted and not kept, as in kafkajs). */
  partitionId?: number
  /** The partition's metadata (accepted and not kept, as in kafkajs). */
  metadata?: PartitionMetadata
}
/** What a KafkaJSOffsetOutOfRange carries. */
export interface KafkaJSOffsetOutOfRangeMetadata {
  /** The topic. */
  topic: string
  /** The partition. */
  partition: number
}
/** What a KafkaJSNumberOfRetriesExceeded carries. */
export interface KafkaJSNumberOfRetriesExceededMetadata {
  /** The retries made. */
  retryCount: number
  /** The delay the next retry would have waited, in ms. */
  retryTime: number
}
/** What a KafkaJSConnectionError carries. */
export interface KafkaJSConnectionErrorMetadata {
  /** The broker, as kafkats's error names it. */
  broker?: string
  /** The socket's error code (`ECONNREFUSED`, ...), when kafkajs had one. */
  code?: string
}
/** What a KafkaJSRequestTimeoutError carries (kafkats/kafkajs's own carry only the message). */
export interface KafkaJSRequestTimeoutErrorMetadata {
  /** The broker, as `host:port`. */
  broker: string
  /** The client id. */
  clientId: string
  /** The request's correlation id. */
  correlationId: number
  /** When the request was made, in ms since the epoch. */
  createdAt: number
  /** When it was written, in ms since the epoch. */
  sentAt: number
  /** How long it waited to be written, in ms. */
  pendingDuration: number
}
/** What a KafkaJSTopicMetadataNotLoaded carries. */
export interface KafkaJSTopicMetadataNotLoadedMetadata {
  /** The topic. */
  topic: string
}
/** What a KafkaJSStaleTopicMetadataAssignment carries. */
export interface KafkaJSStaleTopicMetadataAssignmentMetadata {
  /** The topic. */
  topic: string
  /** The assigned partitions the metadata does not know. */
  unknownPartitions: PartitionMetadata[]
}
/** What a KafkaJSServerDoesNotSupportApiKey carries. */
export interface KafkaJSServerDoesNotSupportApiKeyMetadata {
  /** The API's key. */
  apiKey: number
  /** The API's name. */
  apiName: string
}
/** A group a deletion failed for (KafkaJSDeleteGroupsError's constructor). */
export interface KafkaJSDeleteGroupsErrorGroups {
  /** The group. */
  groupId: string
  /** The Kafka error code. */
  errorCode: number
  /** The error. */
  error: KafkaJSError
}
/** A partition whose records could not be deleted. */
export interface KafkaJSDeleteTopicRecordsErrorPartition {
  /** The partition. */
  partition: number
  /** The offset asked for. */
  offset: string
  /** Why it failed. */
  error: KafkaJSError
}
/** A topic's failed record deletions (KafkaJSDeleteTopicRecordsError's constructor). */
export interface KafkaJSDeleteTopicRecordsErrorTopic {
  /** The topic. */
  topic: string
  /** The partitions that failed. */
  partitions: KafkaJSDeleteTopicRecordsErrorPartition[]
}
/** One group's outcome of `admin.deleteGroups` (or of a KafkaJSDeleteGroupsError's `groups`). */
export interface DeleteGroupsResult {
  /** The group. */
  groupId: string
  /** The Kafka error code (0: deleted). */
  errorCode?: number
  /** The error, when the deletion failed. */
  error?: KafkaJSProtocolError
}

/** What a KafkaJS error is made from: a message, or an error-like object with one (written out in the constructors, which are public). */
type MessageOrError = string | { message?: string, helpUrl?: string }

function messageOf (e: MessageOrError): string {
  return typeof e === 'string' ? e : (e.message ?? String(e))
}

/** The base of kafkajs's errors; kafkats's own errors reach kafkajs code as one of its subclasses (or as this, with `cause`). */
export class KafkaJSError extends Error {
  /** Whether retrying the operation may succeed. */
  retriable: boolean
  /** A page of kafkajs's documentation about the error, for some protocol errors. */
  helpUrl?: string
  /** The error this one stands for (kafkats's own error, when translated). */
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

/** An error retrying will not fix (`retriable` false). */
export class KafkaJSNonRetriableError extends KafkaJSError {
  /** A message (or an error whose message it takes), and the error it stands for. */
  constructor (e: Error | string | { message?: string, helpUrl?: string }, { cause }: { cause?: Error } = {}) {
    super(e, { retriable: false, cause })
    this.name = 'KafkaJSNonRetriableError'
  }
}

/** What kafkajs knows about an error code: `{ type, code, retriable, message }`. */
export interface ProtocolErrorInfo { type: string, code: number, retriable: boolean, message: string, helpUrl?: string }


/** An error code a broker answered (kafkats's BrokerError), with kafkajs's type name and message for it. */
export class KafkaJSProtocolError extends KafkaJSError {
  /** The error's name as kafkajs has it (`REBALANCE_IN_PROGRESS`, `NOT_LEADER_FOR_PARTITION`, ...). */
  type: string
  /** Kafka's error code (-1 when made from a message only). */
  code: number

  /** The `{ type, code, retriable, message }` of an error code (or a message); `retriable` overrides the code's. */
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

/** A fetch offset out of the partition's range (kafkats/kafkajs does not throw it). @class */
export const KafkaJSOffsetOutOfRange = errorClassWithFields<{
  /** The topic. */
  topic: string
  /** The partition. */
  partition: number
}, typeof KafkaJSProtocolError>(KafkaJSProtocolError, 'KafkaJSOffsetOutOfRange', ['topic', 'partition'])
export type KafkaJSOffsetOutOfRange = InstanceType<typeof KafkaJSOffsetOutOfRange>
/** The coordinator asked the member to join again with the id it gave (kafkats/kafkajs does not throw it). @class */
export const KafkaJSMemberIdRequired = errorClassWithFields<{
  /** The member id the coordinator gave. */
  memberId: string
}, typeof KafkaJSProtocolError>(KafkaJSProtocolError, 'KafkaJSMemberIdRequired', ['memberId'])
export type KafkaJSMemberIdRequired = InstanceType<typeof KafkaJSMemberIdRequired>

/** An operation failed after its last retry (a consumer's handler, `retry.retries` times); the last error is `cause`. */
export class KafkaJSNumberOfRetriesExceeded extends KafkaJSNonRetriableError {
  /** kafkajs's stack: `KafkaJSNonRetriableError`, then "Caused by:" and the last error's stack. */
  declare stack: string
  /** The retries made. */
  retryCount: number
  /** The delay the next retry would have waited, in ms. */
  retryTime: number
  /** The last error (or its message), and the retries made. */
  constructor (e: Error | string, { retryCount, retryTime }: KafkaJSNumberOfRetriesExceededMetadata = { retryCount: 0, retryTime: 0 }) {
    super(e, { cause: typeof e === 'string' ? undefined : e })
    this.stack = `KafkaJSNonRetriableError\n  Caused by: ${typeof e === 'string' ? e : e.stack ?? ''}`
    this.retryCount = retryCount
    this.retryTime = retryTime
    this.name = 'KafkaJSNumberOfRetriesExceeded'
  }
}

/** A broker connection failed or was lost. @class */
export const KafkaJSConnectionError = errorClassWithFields<{
  /** The broker, as kafkats's error names it. */
  broker: string
  /** The socket's error code (`ECONNREFUSED`, ...); not set by kafkats/kafkajs. */
  code: string
}>(KafkaJSError, 'KafkaJSConnectionError', ['broker', 'code'])
export type KafkaJSConnectionError = InstanceType<typeof KafkaJSConnectionError>

/** A connection closed while in use (kafkats/kafkajs throws KafkaJSConnectionError instead). */
export class KafkaJSConnectionClosedError extends KafkaJSConnectionError {
  /** The broker's host name. */
  host?: string
  /** The broker's port. */
  port?: number
  /** A message, and the broker's host and port (`broker` becomes `host:port`). */
  constructor (e: Error | string | { message?: string, helpUrl?: string }, { host, port }: { host?: string, port?: number } = {}) {
    super(e, { broker: `${host ?? ''}:${port ?? ''}` })
    this.host = host
    this.port = port
    this.name = 'KafkaJSConnectionClosedError'
  }
}

/** A request got no answer within `requestTimeout` (kafkats/kafkajs's carry the message only). @class */
export const KafkaJSRequestTimeoutError = errorClassWithFields<{
  /** The broker, as `host:port` (not set by kafkats/kafkajs). */
  broker: string
  /** The client id (not kept, as in kafkajs). */
  clientId: string
  /** The request's correlation id (not set by kafkats/kafkajs). */
  correlationId: number
  /** When the request was made, in ms since the epoch (not set by kafkats/kafkajs). */
  createdAt: number
  /** When it was written, in ms since the epoch (not set by kafkats/kafkajs). */
  sentAt: number
  /** How long it waited to be written, in ms (not set by kafkats/kafkajs). */
  pendingDuration: number
}>(KafkaJSError, 'KafkaJSRequestTimeoutError', ['broker', 'correlationId', 'createdAt', 'sentAt', 'pendingDuration'])
export type KafkaJSRequestTimeoutError = InstanceType<typeof KafkaJSRequestTimeoutError>
/** Metadata was needed before it was loaded (kafkats/kafkajs does not throw it). @class */
export const KafkaJSMetadataNotLoaded = errorClass(KafkaJSError, 'KafkaJSMetadataNotLoaded')
export type KafkaJSMetadataNotLoaded = InstanceType<typeof KafkaJSMetadataNotLoaded>
/** A topic's metadata was needed before it was loaded (kafkats/kafkajs does not throw it). @class */
export const KafkaJSTopicMetadataNotLoaded = errorClassWithFields<{
  /** The topic. */
  topic: string
}, typeof KafkaJSMetadataNotLoaded>(KafkaJSMetadataNotLoaded, 'KafkaJSTopicMetadataNotLoaded', ['topic'])
export type KafkaJSTopicMetadataNotLoaded = InstanceType<typeof KafkaJSTopicMetadataNotLoaded>
/** An assignment named partitions the metadata did not know (kafkats/kafkajs does not throw it). @class */
export const KafkaJSStaleTopicMetadataAssignment = errorClassWithFields<{
  /** The topic. */
  topic: string
  /** The assigned partitions the metadata did not know. */
  unknownPartitions: unknown[]
}>(KafkaJSError, 'KafkaJSStaleTopicMetadataAssignment', ['topic', 'unknownPartitions'])
export type KafkaJSStaleTopicMetadataAssignment = InstanceType<typeof KafkaJSStaleTopicMetadataAssignment>

/** `admin.deleteGroups` failed for some groups. */
export class KafkaJSDeleteGroupsError extends KafkaJSError {
  /** The groups that failed, each with its error. */
  groups: DeleteGroupsResult[]
  /** A message, and the groups that failed. */
  constructor (e: Error | string | { message?: string, helpUrl?: string }, groups: KafkaJSDeleteGroupsErrorGroups[] = []) {
    super(e)
    // kafkajs types the field's errors as protocol errors and the argument's as any KafkaJSError; they are protocol errors.
    this.groups = groups as DeleteGroupsResult[]
    this.name = 'KafkaJSDeleteGroupsError'
  }
}

/** The broker does not support a request the operation needs (kafkats's UnsupportedVersionError; carries the message only). @class */
export const KafkaJSServerDoesNotSupportApiKey = errorClassWithFields<{
  /** The API's key (not set by kafkats/kafkajs). */
  apiKey: number
  /** The API's name (not set by kafkats/kafkajs). */
  apiName: string
}, typeof KafkaJSNonRetriableError>(KafkaJSNonRetriableError, 'KafkaJSServerDoesNotSupportApiKey', ['apiKey', 'apiName'])
export type KafkaJSServerDoesNotSupportApiKey = InstanceType<typeof KafkaJSServerDoesNotSupportApiKey>
/** No broker for a partition (`admin.deleteTopicRecords` for a partition the topic does not have). @class */
export const KafkaJSBrokerNotFound = errorClass(KafkaJSError, 'KafkaJSBrokerNotFound')
export type KafkaJSBrokerNotFound = InstanceType<typeof KafkaJSBrokerNotFound>
/** kafkajs's error for a truncated message in a fetch answer (kafkats/kafkajs does not throw it). @class */
export const KafkaJSPartialMessageError = errorClass(KafkaJSNonRetriableError, 'KafkaJSPartialMessageError')
export type KafkaJSPartialMessageError = InstanceType<typeof KafkaJSPartialMessageError>
/** SASL authentication failed (kafkats's AuthenticationError, as `cause`). @class */
export const KafkaJSSASLAuthenticationError = errorClass(KafkaJSNonRetriableError, 'KafkaJSSASLAuthenticationError')
export type KafkaJSSASLAuthenticationError = InstanceType<typeof KafkaJSSASLAuthenticationError>
/** No coordinator for the group was found (kafkats/kafkajs does not throw it). @class */
export const KafkaJSGroupCoordinatorNotFound = errorClass(KafkaJSNonRetriableError, 'KafkaJSGroupCoordinatorNotFound')
export type KafkaJSGroupCoordinatorNotFound = InstanceType<typeof KafkaJSGroupCoordinatorNotFound>
/** A feature kafkats/kafkajs does not have: a compression codec whose package did not load, a Cluster method an assigner called. @class */
export const KafkaJSNotImplemented = errorClass(KafkaJSNonRetriableError, 'KafkaJSNotImplemented')
export type KafkaJSNotImplemented = InstanceType<typeof KafkaJSNotImplemented>
/** kafkajs's error for an operation that took too long (kafkats/kafkajs does not throw it). @class */
export const KafkaJSTimeout = errorClass(KafkaJSNonRetriableError, 'KafkaJSTimeout')
export type KafkaJSTimeout = InstanceType<typeof KafkaJSTimeout>
/** kafkajs's error for a lock held too long (kafkats/kafkajs does not throw it). @class */
export const KafkaJSLockTimeout = errorClass(KafkaJSTimeout, 'KafkaJSLockTimeout')
export type KafkaJSLockTimeout = InstanceType<typeof KafkaJSLockTimeout>
/** kafkajs's error for a message format it cannot read (kafkats/kafkajs does not throw it). @class */
export const KafkaJSUnsupportedMagicByteInMessageSet = errorClass(KafkaJSNonRetriableError, 'KafkaJSUnsupportedMagicByteInMessageSet')
export type KafkaJSUnsupportedMagicByteInMessageSet = InstanceType<typeof KafkaJSUnsupportedMagicByteInMessageSet>

/** `admin.deleteTopicRecords` failed for some partitions (retriable if every partition's error is). */
export class KafkaJSDeleteTopicRecordsError extends KafkaJSError {
  /** The partitions that failed, each with its error. */
  partitions: KafkaJSDeleteTopicRecordsErrorPartition[]
  /** The topic's failed partitions. */
  constructor ({ partitions }: { topic?: string, partitions: KafkaJSDeleteTopicRecordsErrorPartition[] }) {
    // Retriable only if every partition's error is.
    const retriable = partitions.filter(p => p.error != null).every(p => p.error.retriable)
    super('Error while deleting records', { retriable })
    this.name = 'KafkaJSDeleteTopicRecordsError'
    this.partitions = partitions
  }
}

/** kafkajs's error for a broken internal invariant, a bug (kafkats/kafkajs does not throw it). */
export class KafkaJSInvariantViolation extends KafkaJSNonRetriableError {
  /** What was violated; the message adds that it is likely a bug. */
  constructor (e: Error | string | { message?: string, helpUrl?: string }) {
    super(`Invariant violated: ${messageOf(e)}. This is likely a bug and should be reported.`)
    this.name = 'KafkaJSInvariantViolation'
  }
}

// kafkajs names these two 'KafkaJSNonRetriableError'.
/** kafkajs's error for a malformed varint (kafkats/kafkajs does not throw it). */
export class KafkaJSInvalidVarIntError extends KafkaJSNonRetriableError {}
/** kafkajs's error for a malformed 64-bit integer (kafkats/kafkajs does not throw it). */
export class KafkaJSInvalidLongError extends KafkaJSNonRetriableError {}

/** One topic `admin.createTopics` could not create (in a KafkaJSAggregateError's `errors`). */
export class KafkaJSCreateTopicError extends KafkaJSProtocolError {
  /** The topic. */
  topic: string
  /** The error code's `{ type, code, retriable, message }`, and the topic. */
  constructor (e: Error | string | { type: string, code: number, retriable: boolean, message: string, helpUrl?: string }, topicName: string) {
    super(e)
    this.topic = topicName
    this.name = 'KafkaJSCreateTopicError'
  }
}

/** A partition `admin.alterPartitionReassignments` could not reassign. */
export class KafkaJSAlterPartitionReassignmentsError extends KafkaJSProtocolError {
  /** The topic. */
  topic?: string
  /** The partition. */
  partition?: number
  /** The error code's `{ type, code, retriable, message }`, the topic and the partition. */
  constructor (e: Error | string | { type: string, code: number, retriable: boolean, message: string, helpUrl?: string }, topicName?: string, partition?: number) {
    super(e)
    this.topic = topicName
    this.partition = partition
    this.name = 'KafkaJSAlterPartitionReassignmentsError'
  }
}

/** Several errors of one call (`admin.createTopics`: one KafkaJSCreateTopicError per topic). */
export class KafkaJSAggregateError extends Error {
  /** The errors. */
  errors: Array<Error | string>
  /** A message, and the errors. */
  constructor (message: Error | string, errors: Array<Error | string>) {
    super(messageOf(message))
    this.errors = errors
    this.name = 'KafkaJSAggregateError'
  }
}

/** kafkajs's internal signal that a rebalance interrupted a fetch (kafkats/kafkajs does not throw it). */
export class KafkaJSFetcherRebalanceError extends Error {}

/** kafkajs's error when no broker could be reached (kafkats/kafkajs does not throw it). */
export class KafkaJSNoBrokerAvailableError extends KafkaJSError {
  /** Takes no argument: the message is "No broker available". */
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

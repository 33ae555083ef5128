/**
 * Error classes shared by every layer. Each carries `retriable` and a `kind` (one of
 * ErrorKind), and Kafka's own errors carry Kafka's numeric `code` and its `type` name
 * (e.g. NOT_LEADER_OR_FOLLOWER).
 *
 * `instanceof` works across two loaded copies of kafkats, minified or not: each class has a
 * `brand`, `Symbol.for('kafkats.error.<Name>')` written out in its source (a minifier renames
 * classes, not strings), every error carries the brands of its class and the classes above
 * it, and instanceof checks the brand (undici does the same).
 */
import { errorCodeInfo } from './error-codes'

/** Every `kind` of a KafkaTsError: match `error.kind` against these, not the message text. */
export const ErrorKind = {
  /** AbortedError: the caller's AbortSignal fired. */
  ABORTED: 'ABORTED',
  /** AuthenticationError: SASL credentials or mechanism refused. */
  AUTHENTICATION: 'AUTHENTICATION',
  /** BrokerError: a broker answered with a Kafka error code (see its `code` and `type`). */
  BROKER: 'BROKER',
  /** BufferFullError: the producer's buffer is full (`maxBufferedBytes` / `maxBufferedRecords`). */
  BUFFER_FULL: 'BUFFER_FULL',
  /** A warning: a classic-protocol-only option (session timeout, heartbeat interval) was given to a KIP-848 member, which ignores it. */
  CLASSIC_ONLY_OPTION: 'CLASSIC_ONLY_OPTION',
  /** ClientClosedError, or share acknowledgements not sent because the share consumer closed. */
  CLOSED: 'CLOSED',
  /** CompressedBatchError: `decodeRecordBatchesSync` met a compressed batch. */
  COMPRESSED_BATCH: 'COMPRESSED_BATCH',
  /** CompressionCodecUnavailableError: a codec's npm package could not be loaded. */
  COMPRESSION_CODEC_UNAVAILABLE: 'COMPRESSION_CODEC_UNAVAILABLE',
  /** ConnectionError: a connection to a broker could not be made, or died. */
  CONNECTION: 'CONNECTION',
  /** DeliveryTimeoutError: a record waited longer than `deliveryTimeoutMs` and was not written. */
  DELIVERY_TIMEOUT: 'DELIVERY_TIMEOUT',
  /** A warning: the broker lists KIP-848 but has not enabled it, so the member uses the classic protocol. */
  GROUP_PROTOCOL_FALLBACK: 'GROUP_PROTOCOL_FALLBACK',
  /** The consumer left its group while a membership step was waiting. */
  GROUP_STOPPED: 'GROUP_STOPPED',
  /** A warning: a classic-protocol heartbeat failed and is retried after a backoff. */
  HEARTBEAT_FAILED: 'HEARTBEAT_FAILED',
  /** An option's value is invalid (an unknown partitioner, a topic with no partitions to choose from). */
  INVALID_CONFIG: 'INVALID_CONFIG',
  /** Leaving the group failed; the coordinator removes the member when its session times out. */
  LEAVE_FAILED: 'LEAVE_FAILED',
  /** A leader change truncated a partition's log below the consumer's position. */
  LOG_TRUNCATION: 'LOG_TRUNCATION',
  /** A seek named a partition this consumer is not assigned. */
  NOT_ASSIGNED: 'NOT_ASSIGNED',
  /** The group has no committed offset for a partition and `offsetReset` is `'none'`. */
  NO_COMMITTED_OFFSET: 'NO_COMMITTED_OFFSET',
  /** OutcomeUnknownError: whether the records were written cannot be known. */
  OUTCOME_UNKNOWN: 'OUTCOME_UNKNOWN',
  /** ProducerClosedError: the producer was closed before the records were sent. */
  PRODUCER_CLOSED: 'PRODUCER_CLOSED',
  /** ProducerIdentityError: no producer id and epoch could be obtained (InitProducerId). */
  PRODUCER_IDENTITY: 'PRODUCER_IDENTITY',
  /** ProtocolError: bytes that do not follow the Kafka protocol. */
  PROTOCOL: 'PROTOCOL',
  /** SendError: one or more records of a send failed. */
  SEND_FAILED: 'SEND_FAILED',
  // Lower case, as it always was (a rename would break code that matches on it).
  /** SerializationError: a serializer or deserializer threw (the value is lower case). */
  SERIALIZATION: 'serialization',
  /** A share record was acknowledged a second time. */
  SHARE_ACKNOWLEDGED: 'SHARE_ACKNOWLEDGED',
  /** RequestTimeoutError: no response came within the request timeout. */
  TIMEOUT: 'TIMEOUT',
  /** TlsError: the TLS handshake failed. */
  TLS: 'TLS',
  /** TopicDeletedError: the topic was deleted while records for it were pending. */
  TOPIC_DELETED: 'TOPIC_DELETED',
  /** TransactionAbortableError: the transaction must be aborted, then the producer can go on. */
  TRANSACTION_ABORTABLE: 'TRANSACTION_ABORTABLE',
  /** TransactionAbortedError: the transaction was aborted. */
  TRANSACTION_ABORTED: 'TRANSACTION_ABORTED',
  /** TransactionFatalError: the transactional producer cannot go on and must be closed. */
  TRANSACTION_FATAL: 'TRANSACTION_FATAL',
  /** TransactionStateError: a transactional call made in the wrong state. */
  TRANSACTION_STATE: 'TRANSACTION_STATE',
  /** A warning: closing a group consumer left partitions uncommitted. */
  UNCOMMITTED_ON_CLOSE: 'UNCOMMITTED_ON_CLOSE',
  /** UnknownTopicError: the topic or partition is not in the cluster's metadata. */
  UNKNOWN_TOPIC: 'UNKNOWN_TOPIC',
  /** UnsupportedVersionError: kafkats and the broker share no version of an API. */
  UNSUPPORTED_VERSION: 'UNSUPPORTED_VERSION'
} as const
export type ErrorKind = typeof ErrorKind[keyof typeof ErrorKind]

/** The base class of every error kafkats throws. Match on `kind` (an `ErrorKind`) and `retriable`, not on message text; `instanceof` works across two copies of kafkats in one process. */
export class KafkaTsError extends Error {
  /** This class's brand (see the file header); each subclass declares its own. */
  static readonly brand: symbol = Symbol.for('kafkats.error.KafkaTsError')
  /** Whether repeating the same operation may succeed. */
  readonly retriable: boolean
  /** A stable identifier of the error, safe to match on (see ErrorKind). */
  readonly kind: ErrorKind

  /** An error of the given `kind`; `retriable` defaults to false. */
  constructor (kind: ErrorKind, message: string, options: { retriable?: boolean, cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.kind = kind
    this.retriable = options.retriable ?? false
    // The class name, also for classes that do not set it (stack traces and logs show it).
    this.name = new.target.name
    // The brands of the class made and of every class above it that declares one.
    for (let c: unknown = new.target; typeof c === 'function' && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, 'brand')) Object.defineProperty(this, (c as typeof KafkaTsError).brand, { value: true })
    }
  }

  /** True for an error that carries this class's brand, also when made by another loaded copy of kafkats; a subclass without its own `brand` checks the prototype chain. */
  static override [Symbol.hasInstance] (instance: unknown): boolean {
    // A class without a brand of its own (an application's subclass): the prototype chain decides.
    if (!Object.hasOwn(this, 'brand')) return Function.prototype[Symbol.hasInstance].call(this, instance)
    return instance !== null && typeof instance === 'object' && (instance as Record<symbol, unknown>)[this.brand] === true
  }
}

/** Bytes that do not follow the Kafka protocol: a bad length, a truncated frame, a bad CRC. */
export class ProtocolError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ProtocolError')
  /** A protocol error (never retriable); `cause` is the decoding failure, if any. */
  constructor (message: string, options: { cause?: unknown } = {}) {
    super('PROTOCOL', message, { retriable: false, cause: options.cause })
    this.name = 'ProtocolError'
  }
}

/** An error code a broker answered with. */
export class BrokerError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.BrokerError')
  /** Kafka's numeric error code. */
  readonly code: number
  /** Kafka's name for the code, e.g. NOT_LEADER_OR_FOLLOWER. */
  readonly type: string

  /** The error for Kafka error `code` answered to `context` (what was asked), with the broker's own message when it gave one; retriable as Kafka classifies the code. */
  constructor (code: number, context: string, brokerMessage?: string | null) {
    const info = errorCodeInfo(code)
    const said = brokerMessage === undefined || brokerMessage === null ? '' : brokerText(brokerMessage)
    const detail = said !== '' ? ` Broker said: ${sentence(said)}` : ''
    super('BROKER', `${context}: ${info.name} (${code}): ${sentence(info.meaning)}${detail}`, { retriable: info.retriable })
    this.name = 'BrokerError'
    this.code = code
    this.type = info.name
  }
}

/** `text` as a sentence: trimmed, ending in one period (not "failed.." when the text brings its own). */
export function sentence (text: string): string {
  const trimmed = text.trim().replace(/\.+$/, '')
  return trimmed === '' || /[?!]$/.test(trimmed) ? trimmed : `${trimmed}.`
}

/**
 * A broker's error message without what only helps Kafka's developers: the broker writes
 * some refusals as "Request Request(processor=0, connectionId=…, session=Session(…), …) is
 * not authorized", a dump of its internal request object. The dump becomes "the request".
 */
export function brokerText (message: string): string {
  let text = message
  for (let start = text.search(/(Request )?Request\(processor=/); start >= 0; start = text.search(/(Request )?Request\(processor=/)) {
    let depth = 0
    let end = text.indexOf('(', start)
    for (; end < text.length; end++) {
      if (text[end] === '(') depth++
      else if (text[end] === ')' && --depth === 0) break
    }
    text = `${text.slice(0, start)}${start === 0 ? 'The request' : 'the request'}${text.slice(end + 1)}`
  }
  return text.trim()
}

/** Throws a BrokerError when `code` is not 0 (NONE). */
export function throwIfError (code: number, context: string, brokerMessage?: string | null): void {
  if (code !== 0) throw new BrokerError(code, context, brokerMessage)
}

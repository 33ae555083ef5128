/**
 * Errors of the broker I/O core. Each says whether the request reached the socket
 * (`written`): a request that was never written definitely did nothing on the
 * broker, one that was written may have been applied — the producer treats the
 * two differently (INTERNALS.md, "Produce path": ambiguous batches are poisoned).
 */
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { KafkaTsError, ProtocolError } from '../protocol/errors'

/** What a failed request's error says of it: whether it reached the socket, and what made it fail. */
export interface RequestFailureDetails {
  /** The request's bytes were handed to the socket before it failed. */
  written: boolean
  /** The failure behind it (a socket error, the abort reason...), if any. */
  cause?: unknown
}

/** The connection to a broker could not be made, or died. */
export class ConnectionError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ConnectionError')
  /** Whether the request's bytes were handed to the socket before the connection failed: if true, the broker may have applied it. */
  readonly written: boolean
  /** The broker's address, `host:port`. */
  readonly broker: string

  /** A connection failure with `broker`; always retriable. */
  constructor (broker: string, message: string, details: RequestFailureDetails) {
    super('CONNECTION', `${broker}: ${message}`, { retriable: true, cause: details.cause })
    this.name = 'ConnectionError'
    this.broker = broker
    this.written = details.written
  }
}

/** No response came within the request timeout; the connection was closed, since the response may still arrive. */
export class RequestTimeoutError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.RequestTimeoutError')
  /** Whether the request's bytes were handed to the socket: if true, the broker may have applied it. */
  readonly written: boolean

  /** A request timeout; always retriable. */
  constructor (message: string, details: RequestFailureDetails) {
    super('TIMEOUT', message, { retriable: true, cause: details.cause })
    this.name = 'RequestTimeoutError'
    this.written = details.written
  }
}

/** The caller's AbortSignal fired. If `written`, the broker may still have applied the request. */
export class AbortedError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.AbortedError')
  /** Whether the request's bytes were handed to the socket before the abort: if true, the broker may have applied it. */
  readonly written: boolean
  /** Aborted while waiting to retry: the error of the attempt before the wait (a BrokerError, a ConnectionError…). */
  readonly lastError: unknown

  /** An abort of a request; never retriable. */
  constructor (message: string, details: RequestFailureDetails & { lastError?: unknown }) {
    super('ABORTED', message, { retriable: false, cause: details.cause })
    this.name = 'AbortedError'
    this.written = details.written
    this.lastError = details.lastError
  }
}

/** kafkats and the broker share no version of an API. */
export class UnsupportedVersionError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.UnsupportedVersionError')
  /** No shared API version; never retriable. */
  constructor (message: string) {
    super('UNSUPPORTED_VERSION', message, { retriable: false })
    this.name = 'UnsupportedVersionError'
  }
}

/** The client was closed; nothing more can be sent through it. */
export class ClientClosedError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ClientClosedError')
  /** A request on a closed client; the message has a default. */
  constructor (message = 'The client is closed: create a new Client to send more requests.') {
    super('CLOSED', message, { retriable: false })
    this.name = 'ClientClosedError'
  }
}

/**
 * SASL authentication failed: the credentials or the mechanism were refused. Carries
 * Kafka's code and name (58 SASL_AUTHENTICATION_FAILED, 33 UNSUPPORTED_SASL_MECHANISM,
 * 34 ILLEGAL_SASL_STATE). Never retried: the same credentials fail the same way.
 */
export class AuthenticationError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.AuthenticationError')
  /** Kafka's error code: 58 SASL_AUTHENTICATION_FAILED (the default), 33 UNSUPPORTED_SASL_MECHANISM or 34 ILLEGAL_SASL_STATE. */
  readonly code: number
  /** Kafka's name for `code`. */
  readonly type: string

  /** A refused authentication; `code` defaults to 58 SASL_AUTHENTICATION_FAILED. */
  constructor (message: string, options: { cause?: unknown, code?: number } = {}) {
    const code = options.code ?? ErrorCode.SASL_AUTHENTICATION_FAILED
    const type = errorCodeInfo(code).name
    super('AUTHENTICATION', message, { retriable: false, cause: options.cause })
    this.name = 'AuthenticationError'
    this.code = code
    this.type = type
  }
}

/**
 * The TLS handshake failed: the broker's certificate is not trusted or not for this name,
 * or the broker refused ours (mTLS). Never retried: it fails the same way every time.
 */
export class TlsError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.TlsError')
  /** The broker's address, `host:port`. */
  readonly broker: string
  /** Node's or OpenSSL's code, e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE, ERR_TLS_CERT_ALTNAME_INVALID, ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE. */
  readonly tlsCode: string | undefined

  /** A failed TLS handshake with `broker`; never retriable. */
  constructor (broker: string, message: string, options: { cause?: unknown, tlsCode?: string } = {}) {
    super('TLS', `${broker}: ${message}`, { retriable: false, cause: options.cause })
    this.name = 'TlsError'
    this.broker = broker
    this.tlsCode = options.tlsCode
  }
}

/** Errors that retrying with the same settings cannot fix: refused credentials or certificates. */
export function isRefusedIdentity (error: unknown): boolean {
  return error instanceof AuthenticationError || error instanceof TlsError
}

/** The topic or partition is not in the cluster's metadata (after waiting for it). */
export class UnknownTopicError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.UnknownTopicError')
  /** The topic that is not in the metadata. */
  readonly topic: string

  /** An unknown topic; retriable (the topic may yet be created). */
  constructor (topic: string, message: string) {
    super('UNKNOWN_TOPIC', message, { retriable: true })
    this.name = 'UnknownTopicError'
    this.topic = topic
  }
}

/**
 * The answer to a written request could not be decoded, or does not answer what was asked
 * (another topic or partition). The request reached the broker, so it may have been
 * applied: `written` is true, and the producer treats its batches as ambiguous.
 */
export class MalformedResponseError extends ProtocolError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.MalformedResponseError')
  /** Always true: the request reached the broker, so it may have been applied. */
  readonly written = true

  /** An undecodable or mismatched answer; never retriable. */
  constructor (message: string, options: { cause?: unknown } = {}) {
    super(message, options)
    this.name = 'MalformedResponseError'
  }
}

/**
 * A broker broke the protocol (an impossible frame size, an unknown correlation id, an
 * answer that cannot be decoded) on several connections in a row: instead of reconnecting
 * forever, the requests for it fail with this error for a while. Check what listens on
 * that address (a proxy, a non-Kafka service, a TLS listener spoken to in plaintext), or
 * raise the client's maxResponseBytes if its answers are legitimately larger.
 */
export class ProtocolViolationError extends ProtocolError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ProtocolViolationError')
  /** Always false: requests fail with this error without being sent. */
  readonly written = false
  /** The broker's address, `host:port`. */
  readonly broker: string
  /** Connections in a row that ended in a protocol violation. */
  readonly violations: number

  /** The error for `broker` after `violations` connections in a row broke the protocol, the last with `cause`. */
  constructor (broker: string, violations: number, cause: Error) {
    super(`${broker} broke the Kafka protocol on ${violations} connections in a row (last: ${cause.message}); not retrying it for now. Check that it is a Kafka listener of the right security protocol, or raise the client option maxResponseBytes if its answers are that large.`, { cause })
    this.name = 'ProtocolViolationError'
    this.broker = broker
    this.violations = violations
  }
}

/** Whether an error (of any layer) says the operation was never applied, so it can be retried without risk of duplication. */
export function wasNotWritten (error: unknown): boolean {
  return (error instanceof ConnectionError || error instanceof AbortedError || error instanceof RequestTimeoutError) && !error.written
}

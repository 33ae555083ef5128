/**
 * Errors a producer reports for records.
 */
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { RecordMetadata } from './batch'

/**
 * The record may or may not be in the log: its batch's request was written and no
 * definite answer came before the producer had to give up on it (an abort with
 * `abortUnknownOutcome: 'settle'`, a forced close, or an epoch bump). This is never a
 * failure report: do not assume the record is absent, and do not assume it is present.
 */
export class OutcomeUnknownError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.OutcomeUnknownError')
  /** A record of unknown outcome; never retriable. */
  constructor (message: string, options: { cause?: unknown } = {}) {
    super('OUTCOME_UNKNOWN', message, { retriable: false, cause: options.cause })
    this.name = 'OutcomeUnknownError'
  }
}

/** The record waited longer than `deliveryTimeoutMs` and was definitely not written. */
export class DeliveryTimeoutError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.DeliveryTimeoutError')
  /** A delivery timeout; retriable (the record was not written). */
  constructor (message: string, options: { cause?: unknown } = {}) {
    super('DELIVERY_TIMEOUT', message, { retriable: true, cause: options.cause })
    this.name = 'DeliveryTimeoutError'
  }
}

/** The producer's buffer is full (`maxBufferedBytes` / `maxBufferedRecords`). */
export class BufferFullError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.BufferFullError')
  /** A full buffer; retriable once the buffer drains. */
  constructor (message: string) {
    super('BUFFER_FULL', message, { retriable: true })
    this.name = 'BufferFullError'
  }
}

/** The producer was closed; the record was not written. */
export class ProducerClosedError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ProducerClosedError')
  /** A record refused by a closed producer; the message has a default. */
  constructor (message = 'The producer is closed: records can no longer be sent through it.') {
    super('PRODUCER_CLOSED', message, { retriable: false })
    this.name = 'ProducerClosedError'
  }
}

/**
 * The record's topic was deleted (or deleted and re-created under a new topic id) while the
 * record waited to be written: it is not in the topic's log. If an earlier attempt was
 * written, it went to the deleted log.
 */
export class TopicDeletedError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.TopicDeletedError')
  /** The deleted topic. */
  readonly topic: string
  /** Kafka's error code that revealed it (UNKNOWN_TOPIC_OR_PARTITION or UNKNOWN_TOPIC_ID). */
  readonly code: number
  /** Kafka's name for `code`. */
  readonly type: string

  /** The error for `topic`, found deleted by Kafka error `code`; never retriable. */
  constructor (topic: string, code: number, message: string) {
    super('TOPIC_DELETED', message, { retriable: false })
    this.name = 'TopicDeletedError'
    this.topic = topic
    this.code = code
    this.type = errorCodeInfo(code).name
  }
}

/**
 * A record the broker refused as too large (MESSAGE_TOO_LARGE) even in a batch of its own:
 * it is not in the log. The other records of its batch were split off and sent without it.
 * `recordBytes` is the size of the record batch holding only this record (as the broker
 * measures it, after compression); `maxMessageBytes` the topic's max.message.bytes (which
 * defaults to the broker's message.max.bytes), or undefined when it could not be read.
 */
export class RecordTooLargeError extends BrokerError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.RecordTooLargeError')
  /** The record's topic. */
  readonly topic: string
  /** -1 when the record was refused before a partition was chosen for it. */
  readonly partition: number
  /** The size in bytes of a record batch holding only this record, after compression. */
  readonly recordBytes: number
  /** The topic's max.message.bytes in bytes; undefined when it could not be read (or the producer refused the record). */
  readonly maxMessageBytes: number | undefined
  /**
   * The producer option the record is over, when the producer refused it before sending
   * (as the Java client's max.request.size / buffer.memory checks): 'maxRequestBytes' (the
   * largest Produce request; a larger one is cut off by the broker's socket.request.max.bytes)
   * or 'maxBufferedBytes'. Undefined when the broker refused it.
   */
  readonly producerOption: 'maxRequestBytes' | 'maxBufferedBytes' | undefined

  /** The error for a record of `recordBytes` bytes over the topic's `maxMessageBytes`, or over a producer limit when `producerLimit` is given. */
  constructor (topic: string, partition: number, recordBytes: number, maxMessageBytes: number | undefined, producerLimit?: { option: 'maxRequestBytes' | 'maxBufferedBytes', bytes: number }) {
    super(ErrorCode.MESSAGE_TOO_LARGE, `Produce to ${topic}-${partition}`)
    this.name = 'RecordTooLargeError'
    this.topic = topic
    this.partition = partition
    this.recordBytes = recordBytes
    this.maxMessageBytes = maxMessageBytes
    this.producerOption = producerLimit?.option
    if (producerLimit !== undefined) {
      const where = partition < 0 ? topic : `${topic}-${partition}`
      const raise = producerLimit.option === 'maxRequestBytes'
        ? 'raise the producer\'s maxRequestBytes (a request over the broker\'s socket.request.max.bytes, 100 MiB by default, is cut off, and the topic\'s max.message.bytes applies too)'
        : 'raise the producer\'s maxBufferedBytes'
      this.message = `Record for ${where}: MESSAGE_TOO_LARGE (10): the record is ${recordBytes} bytes as a record batch of its own, over the producer's ${producerLimit.option} of ${producerLimit.bytes} bytes. It was not sent. Send a smaller record, or ${raise}.`
      return
    }
    const limit = maxMessageBytes === undefined ? 'the topic\'s max.message.bytes (its value could not be read)' : `the topic's max.message.bytes of ${maxMessageBytes} bytes`
    this.message = `Produce to ${topic}-${partition}: MESSAGE_TOO_LARGE (10): the record is ${recordBytes} bytes as a record batch of its own, over ${limit}. It is not in the log (the other records of its batch were sent without it). Send a smaller record, or raise the topic's max.message.bytes (and the broker's message.max.bytes / replica.fetch.max.bytes).`
  }
}

/** One record's outcome in a SendError: where it landed, or why it did not. */
export type RecordOutcome =
  | {
    /** True: the record was written. */
    ok: true
    /** Where it was written. */
    metadata: RecordMetadata
  }
  | {
    /** False: the record failed. */
    ok: false
    /** Why it failed. */
    error: Error
  }

/**
 * `send([r0, r1, ...])` where at least one record failed: every record's outcome, by its
 * index in the call (`outcomes[i]`), so the acknowledged ones are not lost with the failure.
 * `errors` lists the failures, `cause` is the first of them.
 */
export class SendError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.SendError')
  /** Every record's outcome, by its index in the send call. */
  readonly outcomes: RecordOutcome[]

  /** The error of a send whose records got `metadata[i]` or `errors[i]`; retriable only if every failure is. */
  constructor (metadata: Array<RecordMetadata | undefined>, errors: Array<Error | undefined>) {
    const outcomes: RecordOutcome[] = []
    const failed: Array<[number, Error]> = []
    for (let i = 0; i < metadata.length; i++) {
      const error = errors[i]
      if (error !== undefined) {
        outcomes.push({ ok: false, error })
        failed.push([i, error])
      } else {
        outcomes.push({ ok: true, metadata: metadata[i]! })
      }
    }
    const shown = failed.slice(0, 3).map(([i, e]) => `record ${i}: ${e.message}`).join('; ')
    const acknowledged = metadata.length - failed.length
    // Only what was acknowledged is said to be: a send whose every record failed claims none.
    const summary = acknowledged === 0
      ? `All ${metadata.length} records of the send failed (${shown}${failed.length > 3 ? '; ...' : ''}); none was acknowledged: see outcomes[i]`
      : `${failed.length} of ${metadata.length} records of the send failed (${shown}${failed.length > 3 ? '; ...' : ''}); the other ${acknowledged} ${acknowledged === 1 ? 'was' : 'were'} acknowledged: see outcomes[i]`
    super('SEND_FAILED', summary, {
      retriable: failed.every(([, e]) => (e as { retriable?: boolean }).retriable === true),
      cause: failed[0][1]
    })
    this.name = 'SendError'
    this.outcomes = outcomes
  }

  /** The failed records' errors, by index in the send call. */
  get errors (): Array<{
    /** The record's index in the send call. */
    index: number
    /** Why that record failed. */
    error: Error
  }> {
    const list: Array<{ index: number, error: Error }> = []
    this.outcomes.forEach((o, index) => { if (!o.ok) list.push({ index, error: o.error }) })
    return list
  }
}

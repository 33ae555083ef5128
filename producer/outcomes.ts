/**
 * Outcomes: what one attempt's answer means for its batch (the Java client's
 * Sender.completeBatch/canRetry), as a pure decision. The producer acts on the meaning
 * (producer.ts `onOutcome`): it succeeds, retries, splits, bumps the epoch or fails the
 * batch. Whether a retriable answer may have been written is not what the error table's
 * retriable flag says, so it is decided here, from the code.
 */
import { ConnectionError } from '../client/errors'
import { ErrorCode } from '../protocol/error-codes'
import { KafkaTsError } from '../protocol/errors'
import type { ProducerBatch } from './batch'
import type { PartitionQueue } from './partition-queue'

/** What an attempt's answer means for its batch. */
export type AnswerMeaning =
  /** Acknowledged (or DUPLICATE_SEQUENCE_NUMBER: an earlier attempt was): the records are in the log. */
  | 'written'
  /** May have been written, no definite answer: retried with the same id, epoch and sequence until known. */
  | 'ambiguous'
  /** Definitely not written, retriable: retried, counted against `maxRetries`. */
  | 'retry'
  /** The request never reached the broker: sent again, not counted against `maxRetries`. */
  | 'unsent'
  /** A newer producer with this transactional id took over (INVALID_PRODUCER_EPOCH, PRODUCER_FENCED in a transaction). */
  | 'fenced'
  /** The broker's sequence state for this producer disagrees with ours: the partition moves to a new epoch. */
  | 'sequence'
  /** MESSAGE_TOO_LARGE: definitely not written; split, or fail a single record. */
  | 'too-large'
  /** Definitely not written and not retriable: the batch fails. */
  | 'failed'

// Produce answers that are retried, sorted by whether the batch may have been written (which
// the table's retriable flag does not say): Kafka-retriable codes, and UNKNOWN_SERVER_ERROR.
// Retriable codes in neither set (CORRUPT_MESSAGE, NOT_COORDINATOR, …) fail the batch.
const AMBIGUOUS_CODES = new Set<number>([
  ErrorCode.UNKNOWN_SERVER_ERROR, // may have failed after the append
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  ErrorCode.KAFKA_STORAGE_ERROR
])
const DEFINITE_RETRIABLE_CODES = new Set<number>([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_ENOUGH_REPLICAS,
  ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.INCONSISTENT_TOPIC_ID,
  ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  // A transactional Produce right after EndTxn, while the previous transaction's markers are written (KIP-890).
  ErrorCode.CONCURRENT_TRANSACTIONS
])

/**
 * Ambiguous answers that waiting does not change: the broker failed on the request itself
 * (a broker before 2.1 answers a zstd batch UNKNOWN_SERVER_ERROR for ever), where
 * REQUEST_TIMED_OUT and NOT_ENOUGH_REPLICAS_AFTER_APPEND wait for replication, which
 * resumes. The producer ends a batch refused the same way too often, or past its delivery
 * timeout, as unknown (producer.ts MAX_SAME_REFUSALS).
 */
export function isRefusal (code: number): boolean {
  return code === ErrorCode.UNKNOWN_SERVER_ERROR
}

/** The meaning of the partition's error code in a Produce response (0 included). */
export function meaningOfCode (code: number, transactional: boolean): AnswerMeaning {
  if (code === 0 || code === ErrorCode.DUPLICATE_SEQUENCE_NUMBER) return 'written'
  if (AMBIGUOUS_CODES.has(code)) return 'ambiguous'
  if (DEFINITE_RETRIABLE_CODES.has(code)) return 'retry'
  if (transactional && (code === ErrorCode.INVALID_PRODUCER_EPOCH || code === ErrorCode.PRODUCER_FENCED)) return 'fenced'
  if (code === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER || code === ErrorCode.UNKNOWN_PRODUCER_ID || code === ErrorCode.INVALID_PRODUCER_EPOCH) return 'sequence'
  if (code === ErrorCode.MESSAGE_TOO_LARGE) return 'too-large'
  return 'failed'
}

/**
 * The meaning of a request that got no response: `written` (the request may have reached
 * the broker) makes it ambiguous. An ambiguous batch stays ambiguous: this attempt did
 * nothing, an earlier one may have been written, so it is retried (invariant 1), whatever
 * kept this one from the wire.
 */
export function meaningOfFailure (error: Error, written: boolean, wasAmbiguous: boolean): 'ambiguous' | 'unsent' | 'failed' {
  if (written) return 'ambiguous'
  if (!wasAmbiguous && error instanceof KafkaTsError && !(error instanceof ConnectionError) && !error.retriable) return 'failed'
  return 'unsent'
}

/** Whether the partition should look for its topic in fresh metadata: the broker answered that the topic or partition is unknown. */
export function saysTopicMissing (code: number): boolean {
  return code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || code === ErrorCode.UNKNOWN_TOPIC_ID
}

/**
 * Whether a sequence error answers a gap this producer made: the partition is `leaving`
 * the identity the batch was sent under (a sent batch of it was dropped before the broker
 * took it), and the broker says the sequence is out of order or the epoch moved. Only
 * UNKNOWN_PRODUCER_ID, or a gap under an identity nothing was dropped from, can mean
 * that acknowledged records are missing (a `dataLoss`).
 */
export function madeGapItself (queue: PartitionQueue, batch: ProducerBatch, code: number): boolean {
  if (code !== ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER && code !== ErrorCode.INVALID_PRODUCER_EPOCH) return false
  return queue.leaving && batch.producerId === queue.identity.producerId && batch.producerEpoch === queue.identity.producerEpoch
}

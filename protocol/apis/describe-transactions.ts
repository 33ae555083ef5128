/**
 * DescribeTransactions (key 65): the state of transactional ids in their transaction
 * coordinator (state, timeout, start time, producer id/epoch, partitions) (KIP-664).
 * Admin-side; sent to each id's coordinator (FindCoordinator with key type transaction).
 *
 * Version notes:
 * - v0: the only version
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DescribeTransactions request (key 65). */
export interface DescribeTransactionsRequest {
  /** The transactional ids to describe; none are described if empty. */
  transactionalIds: string[]
}

/** An entry of DescribeTransactionsResponse.transactionStates: the current state of the transaction. */
export interface TransactionDescription {
  /** The error code. */
  errorCode: number
  /** The transactional id. */
  transactionalId: string
  /** Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Empty, Dead, PrepareEpochFence. */
  transactionState: string
  /** The timeout in ms for the transaction. */
  transactionTimeoutMs: number
  /** When the transaction started, in ms since the epoch. */
  transactionStartTimeMs: bigint
  /** The current producer id associated with the transaction. */
  producerId: bigint
  /** The current epoch associated with the producer id. */
  producerEpoch: number
  /** The partitions in the transaction; while it commits or aborts, only those without markers yet. */
  topics: Array<{
    /** The topic name. */
    topic: string
    /** The partition ids included in the current transaction. */
    partitions: number[]
  }>
}

/** A DescribeTransactions response (key 65). */
export interface DescribeTransactionsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The current state of the transaction. */
  transactionStates: TransactionDescription[]
}

/** The DescribeTransactions API (key 65): its versions and its request and response schemas. */
export const DescribeTransactions = defineApi<DescribeTransactionsRequest, DescribeTransactionsResponse>({
  key: 65,
  name: 'DescribeTransactions',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('transactionalIds', array('string'), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('transactionStates', array(struct(
      field('errorCode', 'int16', '0+'),
      field('transactionalId', 'string', '0+'),
      field('transactionState', 'string', '0+'),
      field('transactionTimeoutMs', 'int32', '0+'),
      field('transactionStartTimeMs', 'int64', '0+'),
      field('producerId', 'int64', '0+'),
      field('producerEpoch', 'int16', '0+'),
      field('topics', array(struct(
        field('topic', 'string', '0+'),
        field('partitions', array('int32'), '0+')
      )), '0+')
    )), '0+')
  )
})

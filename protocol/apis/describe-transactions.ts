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

export interface DescribeTransactionsRequest {
  transactionalIds: string[]
}

export interface TransactionDescription {
  errorCode: number
  transactionalId: string
  /** Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Empty, Dead, PrepareEpochFence. */
  transactionState: string
  transactionTimeoutMs: number
  transactionStartTimeMs: bigint
  producerId: bigint
  producerEpoch: number
  topics: Array<{ topic: string, partitions: number[] }>
}

export interface DescribeTransactionsResponse {
  throttleTimeMs: number
  transactionStates: TransactionDescription[]
}

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

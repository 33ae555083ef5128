/**
 * AddPartitionsToTxn (key 24): a transactional producer tells its transaction coordinator
 * which partitions the open transaction writes to, before its first Produce to each
 * (transaction version 1). On transaction version 2 (KIP-890) Produce v12+ adds the
 * partition implicitly and this request is not sent by clients.
 *
 * Version notes:
 * - v1: same as v0 (the broker answers before throttling on quota violation)
 * - v2: same as v1 (KIP-559 retries)
 * - v3: flexible
 * - v4: batched, for brokers only: `transactions` (several transactional ids, verifyOnly)
 *   replaces the v3-and-below top-level fields, and a top-level errorCode (KIP-890)
 * - v5: TRANSACTION_ABORTABLE may be returned (KIP-890)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface AddPartitionsToTxnTopic {
  name: string
  partitions: number[]
}

export interface AddPartitionsToTxnTransaction {
  transactionalId: string
  producerId: bigint
  producerEpoch: number
  /** True: only check that the partitions are in the transaction (a broker's own check). */
  verifyOnly: boolean
  topics: AddPartitionsToTxnTopic[]
}

export interface AddPartitionsToTxnRequest {
  /** v4+ (broker-to-broker): the transactions to add to or verify. */
  transactions?: AddPartitionsToTxnTransaction[]
  /** v0–v3: the one transaction of a client. */
  v3AndBelowTransactionalId?: string
  v3AndBelowProducerId?: bigint
  v3AndBelowProducerEpoch?: number
  v3AndBelowTopics?: AddPartitionsToTxnTopic[]
}

export interface AddPartitionsToTxnPartitionResult {
  partitionIndex: number
  partitionErrorCode: number
}

export interface AddPartitionsToTxnTopicResult {
  name: string
  resultsByPartition: AddPartitionsToTxnPartitionResult[]
}

export interface AddPartitionsToTxnResponse {
  throttleTimeMs: number
  /** v4+: an error for the whole request. */
  errorCode: number
  /** v4+. */
  resultsByTransaction: Array<{ transactionalId: string, topicResults: AddPartitionsToTxnTopicResult[] }>
  /** v0–v3. */
  resultsByTopicV3AndBelow: AddPartitionsToTxnTopicResult[]
}

const topic = struct(
  field('name', 'string', '0+'),
  field('partitions', array('int32'), '0+')
)

const topicResult = struct(
  field('name', 'string', '0+'),
  field('resultsByPartition', array(struct(
    field('partitionIndex', 'int32', '0+'),
    field('partitionErrorCode', 'int16', '0+')
  )), '0+')
)

export const AddPartitionsToTxn = defineApi<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>({
  key: 24,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersions: '3+',
  request: struct(
    field('transactions', array(struct(
      field('transactionalId', 'string', '4+'),
      field('producerId', 'int64', '4+'),
      field('producerEpoch', 'int16', '4+'),
      field('verifyOnly', 'bool', '4+', { default: false }),
      field('topics', array(topic), '4+')
    )), '4+'),
    field('v3AndBelowTransactionalId', 'string', '0-3'),
    field('v3AndBelowProducerId', 'int64', '0-3'),
    field('v3AndBelowProducerEpoch', 'int16', '0-3'),
    field('v3AndBelowTopics', array(topic), '0-3')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '4+', { default: 0 }),
    field('resultsByTransaction', array(struct(
      field('transactionalId', 'string', '4+'),
      field('topicResults', array(topicResult), '4+')
    )), '4+'),
    field('resultsByTopicV3AndBelow', array(topicResult), '0-3')
  )
})

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

/** An entry of AddPartitionsToTxnTransaction.topics: the partitions to add to the transaction. */
export interface AddPartitionsToTxnTopic {
  /** The name of the topic. */
  name: string
  /** The partition indexes to add to the transaction. */
  partitions: number[]
}

/** An entry of AddPartitionsToTxnRequest.transactions: the transactions to add partitions to. */
export interface AddPartitionsToTxnTransaction {
  /** The transactional id corresponding to the transaction. */
  transactionalId: string
  /** Current producer id in use by the transactional id. */
  producerId: bigint
  /** Current epoch associated with the producer id. */
  producerEpoch: number
  /** True: only check that the partitions are in the transaction (a broker's own check). */
  verifyOnly: boolean
  /** The partitions to add to the transaction. */
  topics: AddPartitionsToTxnTopic[]
}

/** An AddPartitionsToTxn request (key 24). */
export interface AddPartitionsToTxnRequest {
  /** v4+ (broker-to-broker): the transactions to add to or verify. */
  transactions?: AddPartitionsToTxnTransaction[]
  /** v0–v3: the one transaction of a client. */
  v3AndBelowTransactionalId?: string
  /** Current producer id in use by the transactional id. */
  v3AndBelowProducerId?: bigint
  /** Current epoch associated with the producer id. */
  v3AndBelowProducerEpoch?: number
  /** The partitions to add to the transaction. */
  v3AndBelowTopics?: AddPartitionsToTxnTopic[]
}

/** An entry of AddPartitionsToTxnTopicResult.resultsByPartition: the results for each partition. */
export interface AddPartitionsToTxnPartitionResult {
  /** The partition index. */
  partitionIndex: number
  /** The response error code. */
  partitionErrorCode: number
}

/** An entry of AddPartitionsToTxnResponse.resultsByTransaction.topicResults: the results for each topic. */
export interface AddPartitionsToTxnTopicResult {
  /** The topic name. */
  name: string
  /** The results for each partition. */
  resultsByPartition: AddPartitionsToTxnPartitionResult[]
}

/** An AddPartitionsToTxn response (key 24). */
export interface AddPartitionsToTxnResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** v4+: an error for the whole request. */
  errorCode: number
  /** v4+. */
  resultsByTransaction: Array<{
    /** The transactional id corresponding to the transaction. */
    transactionalId: string
    /** The results for each topic. */
    topicResults: AddPartitionsToTxnTopicResult[]
  }>
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

/** The AddPartitionsToTxn API (key 24): its versions and its request and response schemas. */
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

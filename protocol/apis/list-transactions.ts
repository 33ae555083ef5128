/**
 * ListTransactions (key 66): the transactional ids a broker coordinates, optionally
 * filtered by state, producer id, age and id pattern (KIP-664). Admin-side; sent to every
 * broker.
 *
 * Version notes:
 * - v1: durationFilter, only transactions running longer than this many ms (KIP-994)
 * - v2: transactionalIdPattern, a regular expression on the id (KIP-1152)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A ListTransactions request (key 66). */
export interface ListTransactionsRequest {
  /** States to include; empty for all. */
  stateFilters: string[]
  /** Producer ids to include; empty for all. */
  producerIdFilters: bigint[]
  /** v1+: only transactions running longer than this (ms); -1 (the default) for all. */
  durationFilter?: bigint
  /** v2+: only ids matching this regular expression; null (the default) for all. */
  transactionalIdPattern?: string | null
}

/** A ListTransactions response (key 66). */
export interface ListTransactionsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** Filter states the broker does not know. */
  unknownStateFilters: string[]
  /** The current state of the transaction for the transactional id. */
  transactionStates: Array<{
    /** The transactional id. */
    transactionalId: string
    /** The producer id. */
    producerId: bigint
    /** The current transaction state of the producer. */
    transactionState: string
  }>
}

/** The ListTransactions API (key 66): its versions and its request and response schemas. */
export const ListTransactions = defineApi<ListTransactionsRequest, ListTransactionsResponse>({
  key: 66,
  name: 'ListTransactions',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '0+',
  request: struct(
    field('stateFilters', array('string'), '0+'),
    field('producerIdFilters', array('int64'), '0+'),
    field('durationFilter', 'int64', '1+', { default: -1n }),
    field('transactionalIdPattern', 'string', '2+', { nullableVersions: '2+', default: null })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('unknownStateFilters', array('string'), '0+'),
    field('transactionStates', array(struct(
      field('transactionalId', 'string', '0+'),
      field('producerId', 'int64', '0+'),
      field('transactionState', 'string', '0+')
    )), '0+')
  )
})

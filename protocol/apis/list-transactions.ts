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

export interface ListTransactionsResponse {
  throttleTimeMs: number
  errorCode: number
  /** Filter states the broker does not know. */
  unknownStateFilters: string[]
  transactionStates: Array<{ transactionalId: string, producerId: bigint, transactionState: string }>
}

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

/**
 * DescribeClientQuotas (key 48): the quotas of users, client ids and IPs matching a filter
 * (KIP-546). Component match types: 0 exact name, 1 the default entity, 2 any.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v1):
 * - v0: the lowest a 4.4 broker accepts
 * - v1: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface DescribeClientQuotasComponent {
  entityType: string
  matchType: number
  match?: string | null
}

export interface DescribeClientQuotasRequest {
  components: DescribeClientQuotasComponent[]
  strict: boolean
}

export interface DescribeClientQuotasEntity {
  entityType: string
  entityName: string | null
}

export interface DescribeClientQuotasValue {
  key: string
  value: number
}

export interface DescribeClientQuotasEntry {
  entity: DescribeClientQuotasEntity[]
  values: DescribeClientQuotasValue[]
}

export interface DescribeClientQuotasResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
  entries: DescribeClientQuotasEntry[] | null
}

export const DescribeClientQuotas = defineApi<DescribeClientQuotasRequest, DescribeClientQuotasResponse>({
  key: 48,
  name: 'DescribeClientQuotas',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '1+',
  request: struct(
    field('components', array(struct(
      field('entityType', 'string', '0+'),
      field('matchType', 'int8', '0+'),
      field('match', 'string', '0+', { nullableVersions: '0+' })
    )), '0+'),
    field('strict', 'bool', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+' }),
    field('entries', array(struct(
      field('entity', array(struct(
        field('entityType', 'string', '0+'),
        field('entityName', 'string', '0+', { nullableVersions: '0+' })
      )), '0+'),
      field('values', array(struct(
        field('key', 'string', '0+'),
        field('value', 'float64', '0+')
      )), '0+')
    )), '0+', { nullableVersions: '0+' })
  )
})

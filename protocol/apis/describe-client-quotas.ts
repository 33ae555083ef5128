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

/** An entry of DescribeClientQuotasRequest.components: filter components to apply to quota entities. */
export interface DescribeClientQuotasComponent {
  /** The entity type that the filter component applies to. */
  entityType: string
  /** How to match the entity {0 = exact name, 1 = default name, 2 = any specified name}. */
  matchType: number
  /** The string to match against, or null if unused for the match type. */
  match?: string | null
}

/** A DescribeClientQuotas request (key 48). */
export interface DescribeClientQuotasRequest {
  /** Filter components to apply to quota entities. */
  components: DescribeClientQuotasComponent[]
  /** Whether the match is strict, i.e. should exclude entities with unspecified entity types. */
  strict: boolean
}

/** An entry of DescribeClientQuotasEntry.entity: the quota entity description. */
export interface DescribeClientQuotasEntity {
  /** The entity type. */
  entityType: string
  /** The entity name, or null if the default. */
  entityName: string | null
}

/** An entry of DescribeClientQuotasEntry.values: the quota values for the entity. */
export interface DescribeClientQuotasValue {
  /** The quota configuration key. */
  key: string
  /** The quota configuration value. */
  value: number
}

/** An entry of DescribeClientQuotasResponse.entries: a result entry. */
export interface DescribeClientQuotasEntry {
  /** The quota entity description. */
  entity: DescribeClientQuotasEntity[]
  /** The quota values for the entity. */
  values: DescribeClientQuotasValue[]
}

/** A DescribeClientQuotas response (key 48). */
export interface DescribeClientQuotasResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or `0` if the quota description succeeded. */
  errorCode: number
  /** The error message, or `null` if the quota description succeeded. */
  errorMessage: string | null
  /** A result entry. */
  entries: DescribeClientQuotasEntry[] | null
}

/** The DescribeClientQuotas API (key 48): its versions and its request and response schemas. */
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

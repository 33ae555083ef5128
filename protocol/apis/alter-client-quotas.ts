/**
 * AlterClientQuotas (key 49): sets or removes quotas of (user, client id, IP) entities,
 * each entity answering on its own (KIP-546).
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v1):
 * - v0: the lowest a 4.4 broker accepts
 * - v1: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of AlterClientQuotasEntry.entity: the quota entity to alter. */
export interface AlterClientQuotasEntity {
  /** The entity type. */
  entityType: string
  /** The name of the entity, or null if the default. */
  entityName?: string | null
}

/** An entry of AlterClientQuotasEntry.ops: one change to a quota configuration key. */
export interface AlterClientQuotasOp {
  /** The quota configuration key. */
  key: string
  /** The value to set, otherwise ignored if the value is to be removed. */
  value: number
  /** Whether the quota configuration value should be removed, otherwise set. */
  remove: boolean
}

/** An entry of AlterClientQuotasRequest.entries: the quota configuration entries to alter. */
export interface AlterClientQuotasEntry {
  /** The quota entity to alter. */
  entity: AlterClientQuotasEntity[]
  /** The changes to make to the entity's quota configuration. */
  ops: AlterClientQuotasOp[]
}

/** An AlterClientQuotas request (key 49). */
export interface AlterClientQuotasRequest {
  /** The quota configuration entries to alter. */
  entries: AlterClientQuotasEntry[]
  /** Whether the alteration should be validated, but not performed. */
  validateOnly: boolean
}

/** An entry of AlterClientQuotasEntryResponse.entity: the quota entity to alter. */
export interface AlterClientQuotasEntityResponse {
  /** The entity type. */
  entityType: string
  /** The name of the entity, or null if the default. */
  entityName: string | null
}

/** An entry of AlterClientQuotasResponse.entries: the quota configuration entries to alter. */
export interface AlterClientQuotasEntryResponse {
  /** The error code, or `0` if the quota alteration succeeded. */
  errorCode: number
  /** The error message, or `null` if the quota alteration succeeded. */
  errorMessage: string | null
  /** The quota entity to alter. */
  entity: AlterClientQuotasEntityResponse[]
}

/** An AlterClientQuotas response (key 49). */
export interface AlterClientQuotasResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The quota configuration entries to alter. */
  entries: AlterClientQuotasEntryResponse[]
}

/** The AlterClientQuotas API (key 49): its versions and its request and response schemas. */
export const AlterClientQuotas = defineApi<AlterClientQuotasRequest, AlterClientQuotasResponse>({
  key: 49,
  name: 'AlterClientQuotas',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '1+',
  request: struct(
    field('entries', array(struct(
      field('entity', array(struct(
        field('entityType', 'string', '0+'),
        field('entityName', 'string', '0+', { nullableVersions: '0+' })
      )), '0+'),
      field('ops', array(struct(
        field('key', 'string', '0+'),
        field('value', 'float64', '0+'),
        field('remove', 'bool', '0+')
      )), '0+')
    )), '0+'),
    field('validateOnly', 'bool', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('entries', array(struct(
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+' }),
      field('entity', array(struct(
        field('entityType', 'string', '0+'),
        field('entityName', 'string', '0+', { nullableVersions: '0+' })
      )), '0+')
    )), '0+')
  )
})

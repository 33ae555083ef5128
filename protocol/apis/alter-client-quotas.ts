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

export interface AlterClientQuotasEntity {
  entityType: string
  entityName?: string | null
}

export interface AlterClientQuotasOp {
  key: string
  value: number
  remove: boolean
}

export interface AlterClientQuotasEntry {
  entity: AlterClientQuotasEntity[]
  ops: AlterClientQuotasOp[]
}

export interface AlterClientQuotasRequest {
  entries: AlterClientQuotasEntry[]
  validateOnly: boolean
}

export interface AlterClientQuotasEntityResponse {
  entityType: string
  entityName: string | null
}

export interface AlterClientQuotasEntryResponse {
  errorCode: number
  errorMessage: string | null
  entity: AlterClientQuotasEntityResponse[]
}

export interface AlterClientQuotasResponse {
  throttleTimeMs: number
  entries: AlterClientQuotasEntryResponse[]
}

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

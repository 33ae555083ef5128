/**
 * CreateAcls (key 30): adds ACL bindings; each creation answers on its own (KIP-140).
 * The broker forwards it to the controller.
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v3):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 * - v3: no layout change (a behaviour change on the broker)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface CreateAclsAclCreation {
  resourceType: number
  resourceName: string
  resourcePatternType?: number
  principal: string
  host: string
  operation: number
  permissionType: number
}

export interface CreateAclsRequest {
  creations: CreateAclsAclCreation[]
}

export interface CreateAclsAclCreationResult {
  errorCode: number
  errorMessage: string | null
}

export interface CreateAclsResponse {
  throttleTimeMs: number
  results: CreateAclsAclCreationResult[]
}

export const CreateAcls = defineApi<CreateAclsRequest, CreateAclsResponse>({
  key: 30,
  name: 'CreateAcls',
  minVersion: 1,
  maxVersion: 3,
  flexibleVersions: '2+',
  request: struct(
    field('creations', array(struct(
      field('resourceType', 'int8', '1+'),
      field('resourceName', 'string', '1+'),
      field('resourcePatternType', 'int8', '1+', { default: 3 }),
      field('principal', 'string', '1+'),
      field('host', 'string', '1+'),
      field('operation', 'int8', '1+'),
      field('permissionType', 'int8', '1+')
    )), '1+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('results', array(struct(
      field('errorCode', 'int16', '1+'),
      field('errorMessage', 'string', '1+', { nullableVersions: '1+' })
    )), '1+')
  )
})

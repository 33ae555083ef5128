/**
 * DeleteAcls (key 31): removes the ACL bindings matching each filter and returns
 * what each filter removed (KIP-140).
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v3):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 * - v3: no layout change (a behaviour change on the broker)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'
import { aclBindingFilter, type DescribeAclsRequest } from './describe-acls'

/** A DeleteAcls filter has the fields of a DescribeAcls request, field for field. */
export type DeleteAclsFilter = DescribeAclsRequest

export interface DeleteAclsRequest {
  filters: DeleteAclsFilter[]
}

export interface DeleteAclsMatchingAcl {
  errorCode: number
  errorMessage: string | null
  resourceType: number
  resourceName: string
  patternType: number
  principal: string
  host: string
  operation: number
  permissionType: number
}

export interface DeleteAclsFilterResult {
  errorCode: number
  errorMessage: string | null
  matchingAcls: DeleteAclsMatchingAcl[]
}

export interface DeleteAclsResponse {
  throttleTimeMs: number
  filterResults: DeleteAclsFilterResult[]
}

export const DeleteAcls = defineApi<DeleteAclsRequest, DeleteAclsResponse>({
  key: 31,
  name: 'DeleteAcls',
  minVersion: 1,
  maxVersion: 3,
  flexibleVersions: '2+',
  request: struct(
    field('filters', array(aclBindingFilter), '1+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('filterResults', array(struct(
      field('errorCode', 'int16', '1+'),
      field('errorMessage', 'string', '1+', { nullableVersions: '1+' }),
      field('matchingAcls', array(struct(
        field('errorCode', 'int16', '1+'),
        field('errorMessage', 'string', '1+', { nullableVersions: '1+' }),
        field('resourceType', 'int8', '1+'),
        field('resourceName', 'string', '1+'),
        field('patternType', 'int8', '1+', { default: 3 }),
        field('principal', 'string', '1+'),
        field('host', 'string', '1+'),
        field('operation', 'int8', '1+'),
        field('permissionType', 'int8', '1+')
      )), '1+')
    )), '1+')
  )
})

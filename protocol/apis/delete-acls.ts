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

/** A DeleteAcls request (key 31). */
export interface DeleteAclsRequest {
  /** The filters to use when deleting ACLs. */
  filters: DeleteAclsFilter[]
}

/** An entry of DeleteAclsFilterResult.matchingAcls: the ACLs which matched this filter. */
export interface DeleteAclsMatchingAcl {
  /** The deletion error code, or 0 if the deletion succeeded. */
  errorCode: number
  /** The deletion error message, or null if the deletion succeeded. */
  errorMessage: string | null
  /** The ACL resource type. */
  resourceType: number
  /** The ACL resource name. */
  resourceName: string
  /** The ACL resource pattern type. */
  patternType: number
  /** The ACL principal. */
  principal: string
  /** The ACL host. */
  host: string
  /** The ACL operation. */
  operation: number
  /** The ACL permission type. */
  permissionType: number
}

/** An entry of DeleteAclsResponse.filterResults: the results for each filter. */
export interface DeleteAclsFilterResult {
  /** The error code, or 0 if the filter succeeded. */
  errorCode: number
  /** The error message, or null if the filter succeeded. */
  errorMessage: string | null
  /** The ACLs which matched this filter. */
  matchingAcls: DeleteAclsMatchingAcl[]
}

/** A DeleteAcls response (key 31). */
export interface DeleteAclsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The results for each filter. */
  filterResults: DeleteAclsFilterResult[]
}

/** The DeleteAcls API (key 31): its versions and its request and response schemas. */
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

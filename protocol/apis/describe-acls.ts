/**
 * DescribeAcls (key 29): the ACL bindings that match a filter (KIP-140).
 * Resource types: 1 any, 2 topic, 3 group, 4 cluster, 5 transactional id, 6 delegation
 * token, 7 user. Pattern types: 1 any, 2 match, 3 literal, 4 prefixed. Operations: 1 any,
 * 2 all, 3 read, 4 write, 5 create, 6 delete, 7 alter, 8 describe, 9 cluster action,
 * 10 describe configs, 11 alter configs, 12 idempotent write, 13 create tokens,
 * 14 describe tokens, 15 two-phase commit. Permission types: 1 any, 2 deny, 3 allow.
 *
 * Version notes (the Kafka 4.4 broker advertises v1–v3):
 * - v1: the lowest a 4.4 broker accepts
 * - v2: flexible
 * - v3: no layout change (a behaviour change on the broker)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DescribeAcls request (key 29). */
export interface DescribeAclsRequest {
  /** The resource type. */
  resourceTypeFilter: number
  /** The resource name, or null to match any resource name. */
  resourceNameFilter?: string | null
  /** The resource pattern to match. */
  patternTypeFilter?: number
  /** The principal to match, or null to match any principal. */
  principalFilter?: string | null
  /** The host to match, or null to match any host. */
  hostFilter?: string | null
  /** The operation to match. */
  operation: number
  /** The permission type to match. */
  permissionType: number
}

/** An entry of DescribeAclsResource.acls: the ACLs. */
export interface DescribeAclsAclDescription {
  /** The ACL principal. */
  principal: string
  /** The ACL host. */
  host: string
  /** The ACL operation. */
  operation: number
  /** The ACL permission type. */
  permissionType: number
}

/** An entry of DescribeAclsResponse.resources: each Resource that is referenced in an ACL. */
export interface DescribeAclsResource {
  /** The resource type. */
  resourceType: number
  /** The resource name. */
  resourceName: string
  /** The resource pattern type. */
  patternType: number
  /** The ACLs. */
  acls: DescribeAclsAclDescription[]
}

/** A DescribeAcls response (key 29). */
export interface DescribeAclsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
  /** Each Resource that is referenced in an ACL. */
  resources: DescribeAclsResource[]
}

/** Which ACLs a DescribeAcls request matches; each DeleteAcls filter is the same struct. */
export const aclBindingFilter = struct(
  field('resourceTypeFilter', 'int8', '1+'),
  field('resourceNameFilter', 'string', '1+', { nullableVersions: '1+' }),
  field('patternTypeFilter', 'int8', '1+', { default: 3 }),
  field('principalFilter', 'string', '1+', { nullableVersions: '1+' }),
  field('hostFilter', 'string', '1+', { nullableVersions: '1+' }),
  field('operation', 'int8', '1+'),
  field('permissionType', 'int8', '1+')
)

/** The DescribeAcls API (key 29): its versions and its request and response schemas. */
export const DescribeAcls = defineApi<DescribeAclsRequest, DescribeAclsResponse>({
  key: 29,
  name: 'DescribeAcls',
  minVersion: 1,
  maxVersion: 3,
  flexibleVersions: '2+',
  request: aclBindingFilter,
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '1+'),
    field('errorMessage', 'string', '1+', { nullableVersions: '1+' }),
    field('resources', array(struct(
      field('resourceType', 'int8', '1+'),
      field('resourceName', 'string', '1+'),
      field('patternType', 'int8', '1+', { default: 3 }),
      field('acls', array(struct(
        field('principal', 'string', '1+'),
        field('host', 'string', '1+'),
        field('operation', 'int8', '1+'),
        field('permissionType', 'int8', '1+')
      )), '1+')
    )), '1+')
  )
})

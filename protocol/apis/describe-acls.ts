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

export interface DescribeAclsRequest {
  resourceTypeFilter: number
  resourceNameFilter?: string | null
  patternTypeFilter?: number
  principalFilter?: string | null
  hostFilter?: string | null
  operation: number
  permissionType: number
}

export interface DescribeAclsAclDescription {
  principal: string
  host: string
  operation: number
  permissionType: number
}

export interface DescribeAclsResource {
  resourceType: number
  resourceName: string
  patternType: number
  acls: DescribeAclsAclDescription[]
}

export interface DescribeAclsResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
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

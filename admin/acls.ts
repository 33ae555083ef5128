/**
 * ACLs (StandardAuthorizer on KRaft): describe, create and delete bindings with filters.
 * Any broker answers; creations and deletions are forwarded to the controller.
 */
import { CreateAcls } from '../protocol/apis/create-acls'
import { DeleteAcls } from '../protocol/apis/delete-acls'
import { DescribeAcls } from '../protocol/apis/describe-acls'
import type { BrokerError } from '../protocol/errors'
import { checkOneOf, checkString } from '../client/validate'
import { codeMap } from './common'
import { itemError, throwIf, type AdminCallOptions, type Router } from './route'

/** The resources an ACL applies to (the public types name each, so the tables below must list exactly these). */
export type AclResourceType = 'topic' | 'group' | 'cluster' | 'transactional-id' | 'delegation-token' | 'user'
/** What an ACL allows or denies: one Kafka operation, or 'all' of them. */
export type AclOperation = 'all' | 'read' | 'write' | 'create' | 'delete' | 'alter' | 'describe' | 'cluster-action' | 'describe-configs' | 'alter-configs' | 'idempotent-write' | 'create-tokens' | 'describe-tokens' | 'two-phase-commit'

export const aclResourceTypes = codeMap<AclResourceType | 'any'>({ any: 1, topic: 2, group: 3, cluster: 4, 'transactional-id': 5, 'delegation-token': 6, user: 7 })
export const aclPatternTypes = codeMap({ any: 1, match: 2, literal: 3, prefixed: 4 })
export const aclOperations = codeMap<AclOperation | 'any'>({
  any: 1, all: 2, read: 3, write: 4, create: 5, delete: 6, alter: 7, describe: 8, 'cluster-action': 9,
  'describe-configs': 10, 'alter-configs': 11, 'idempotent-write': 12, 'create-tokens': 13, 'describe-tokens': 14, 'two-phase-commit': 15
})
export const aclPermissions = codeMap({ any: 1, deny: 2, allow: 3 })

/** How an ACL's `resourceName` matches: the exact name ('literal') or every name that starts with it ('prefixed'). */
export type AclPatternType = 'literal' | 'prefixed'
/** Whether an ACL binding allows or denies its operation. */
export type AclPermission = 'allow' | 'deny'

/** An ACL: who (`principal`, `host`) may or may not (`permission`) do what (`operation`) on which resources (`resourceType`, `resourceName`, `patternType`). */
export interface AclBinding {
  /** The kind of resource the ACL applies to. */
  resourceType: AclResourceType
  /** The resource's name ('kafka-cluster' for the cluster), or a prefix with patternType 'prefixed'; '*' matches every name. */
  resourceName: string
  /** Default 'literal'. */
  patternType?: AclPatternType
  /** E.g. 'User:alice'; 'User:*' for everyone. */
  principal: string
  /** Default '*' (every host). */
  host?: string
  /** The operation allowed or denied. */
  operation: AclOperation
  /** Whether the operation is allowed or denied. */
  permission: AclPermission
}

/** Matches bindings: every field left out matches anything. `patternType: 'match'` matches the literal, wildcard and prefixed patterns that apply to `resourceName`. */
export interface AclFilter {
  /** The resource kind to match; 'any' or left out matches every kind. */
  resourceType?: AclResourceType | 'any'
  /** The resource name to match; null or left out matches any name. */
  resourceName?: string | null
  /** The pattern type to match: 'literal', 'prefixed', 'match' (every pattern that applies to `resourceName`), or 'any' (the default). */
  patternType?: AclPatternType | 'match' | 'any'
  /** The principal to match, e.g. 'User:alice'; null or left out matches any. */
  principal?: string | null
  /** The host to match; null or left out matches any. */
  host?: string | null
  /** The operation to match; 'any' or left out matches every operation. */
  operation?: AclOperation | 'any'
  /** 'allow' or 'deny' to match; 'any' or left out matches both. */
  permission?: AclPermission | 'any'
}

function filterBody (where: string, filter: AclFilter): { resourceTypeFilter: number, resourceNameFilter: string | null, patternTypeFilter: number, principalFilter: string | null, hostFilter: string | null, operation: number, permissionType: number } {
  if (filter.resourceType !== undefined) checkOneOf(where, 'resourceType', filter.resourceType, aclResourceTypes.names)
  if (filter.patternType !== undefined) checkOneOf(where, 'patternType', filter.patternType, aclPatternTypes.names)
  if (filter.operation !== undefined) checkOneOf(where, 'operation', filter.operation, aclOperations.names)
  if (filter.permission !== undefined) checkOneOf(where, 'permission', filter.permission, aclPermissions.names)
  return {
    resourceTypeFilter: aclResourceTypes.code(filter.resourceType ?? 'any'),
    resourceNameFilter: filter.resourceName ?? null,
    patternTypeFilter: aclPatternTypes.code(filter.patternType ?? 'any'),
    principalFilter: filter.principal ?? null,
    hostFilter: filter.host ?? null,
    operation: aclOperations.code(filter.operation ?? 'any'),
    permissionType: aclPermissions.code(filter.permission ?? 'any')
  }
}

function binding (b: { resourceType: number, resourceName: string, patternType: number, principal: string, host: string, operation: number, permissionType: number }): AclBinding {
  return {
    resourceType: aclResourceTypes.name(b.resourceType) as AclResourceType,
    resourceName: b.resourceName,
    patternType: aclPatternTypes.name(b.patternType) as AclPatternType,
    principal: b.principal,
    host: b.host,
    operation: aclOperations.name(b.operation) as AclOperation,
    permission: aclPermissions.name(b.permissionType) as AclPermission
  }
}

export async function describeAcls (router: Router, filter: AclFilter = {}, options: AdminCallOptions = {}): Promise<AclBinding[]> {
  const deadline = router.deadline('describeAcls', options)
  const response = await router.any(DescribeAcls, filterBody('describeAcls', filter), deadline, options.signal)
  throwIf(response.errorCode, 'Describing ACLs', response.errorMessage)
  return response.resources.flatMap(r => r.acls.map(a => binding({ ...r, ...a })))
}

export async function createAcls (router: Router, bindings: AclBinding[], options: AdminCallOptions = {}): Promise<Array<{ binding: AclBinding, error?: BrokerError }>> {
  const deadline = router.deadline('createAcls', options)
  for (const b of bindings) {
    checkOneOf('createAcls', 'resourceType', b.resourceType, aclResourceTypes.names.filter(n => n !== 'any'))
    checkOneOf('createAcls', 'operation', b.operation, aclOperations.names.filter(n => n !== 'any'))
    checkOneOf('createAcls', 'permission', b.permission, ['allow', 'deny'])
    if (b.patternType !== undefined) checkOneOf('createAcls', 'patternType', b.patternType, ['literal', 'prefixed'])
    checkString('createAcls', 'principal', b.principal)
    checkString('createAcls', 'resourceName', b.resourceName)
  }
  const response = await router.any(CreateAcls, {
    creations: bindings.map(b => ({
      resourceType: aclResourceTypes.code(b.resourceType),
      resourceName: b.resourceName,
      resourcePatternType: aclPatternTypes.code(b.patternType ?? 'literal'),
      principal: b.principal,
      host: b.host ?? '*',
      operation: aclOperations.code(b.operation),
      permissionType: aclPermissions.code(b.permission)
    }))
  }, deadline, options.signal)
  return bindings.map((b, i) => {
    const result = response.results[i]
    return { binding: b, error: itemError(result?.errorCode ?? -1, `Creating ACL ${b.permission} ${b.operation} on ${b.resourceType} "${b.resourceName}" for ${b.principal}`, result?.errorMessage) }
  })
}

/** Deletes the bindings matching each filter; returns per filter what it deleted. */
export async function deleteAcls (router: Router, filters: AclFilter[], options: AdminCallOptions = {}): Promise<Array<{ filter: AclFilter, deleted: AclBinding[], error?: BrokerError }>> {
  const deadline = router.deadline('deleteAcls', options)
  const response = await router.any(DeleteAcls, { filters: filters.map(f => filterBody('deleteAcls', f)) }, deadline, options.signal)
  return filters.map((filter, i) => {
    const result = response.filterResults[i]
    if (result === undefined) return { filter, deleted: [], error: itemError(-1, 'Deleting ACLs: no answer for the filter') }
    return { filter, deleted: result.matchingAcls.filter(a => a.errorCode === 0).map(binding), error: itemError(result.errorCode, 'Deleting ACLs', result.errorMessage) }
  })
}

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

/** An entry of CreateAclsRequest.creations: the ACLs that we want to create. */
export interface CreateAclsAclCreation {
  /** The type of the resource. */
  resourceType: number
  /** The resource name for the ACL. */
  resourceName: string
  /** The pattern type for the ACL. */
  resourcePatternType?: number
  /** The principal for the ACL. */
  principal: string
  /** The host for the ACL. */
  host: string
  /** The operation type for the ACL (read, write, etc.). */
  operation: number
  /** The permission type for the ACL (allow, deny, etc.). */
  permissionType: number
}

/** A CreateAcls request (key 30). */
export interface CreateAclsRequest {
  /** The ACLs that we want to create. */
  creations: CreateAclsAclCreation[]
}

/** An entry of CreateAclsResponse.results: the results for each ACL creation. */
export interface CreateAclsAclCreationResult {
  /** The result error, or zero if there was no error. */
  errorCode: number
  /** The result message, or null if there was no error. */
  errorMessage: string | null
}

/** A CreateAcls response (key 30). */
export interface CreateAclsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The results for each ACL creation. */
  results: CreateAclsAclCreationResult[]
}

/** The CreateAcls API (key 30): its versions and its request and response schemas. */
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

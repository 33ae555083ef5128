/**
 * DeleteGroups (key 42): deletes empty groups and their committed offsets.
 *
 * Version notes:
 * - v1: the broker answers before throttling on quota violation
 * - v2: flexible
 * - v3: errorMessage per group
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A DeleteGroups request (key 42). */
export interface DeleteGroupsRequest {
  /** The group names to delete. */
  groupsNames: string[]
}

/** An entry of DeleteGroupsResponse.results: the deletion results. */
export interface DeleteGroupsResult {
  /** The group id. */
  groupId: string
  /** The deletion error, or 0 if the deletion succeeded. */
  errorCode: number
  /** v3+. */
  errorMessage: string | null
}

/** A DeleteGroups response (key 42). */
export interface DeleteGroupsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The deletion results. */
  results: DeleteGroupsResult[]
}

/** The DeleteGroups API (key 42): its versions and its request and response schemas. */
export const DeleteGroups = defineApi<DeleteGroupsRequest, DeleteGroupsResponse>({
  key: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 3,
  flexibleVersions: '2+',
  request: struct(
    field('groupsNames', array('string'), '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('results', array(struct(
      field('groupId', 'string', '0+'),
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '3+', { nullableVersions: '3+', default: null })
    )), '0+')
  )
})

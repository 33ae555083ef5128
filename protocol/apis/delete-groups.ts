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

export interface DeleteGroupsRequest {
  groupsNames: string[]
}

export interface DeleteGroupsResult {
  groupId: string
  errorCode: number
  /** v3+. */
  errorMessage: string | null
}

export interface DeleteGroupsResponse {
  throttleTimeMs: number
  results: DeleteGroupsResult[]
}

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

/**
 * ListGroups (key 16): the groups a broker coordinates (ask every broker for all of them).
 *
 * Version notes:
 * - v1: throttleTimeMs in the response
 * - v2: the broker answers before throttling on quota violation
 * - v3: flexible
 * - v4: statesFilter; groupState in the response (KIP-518)
 * - v5: typesFilter; groupType in the response ('classic', 'consumer', 'share'...) (KIP-848)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A ListGroups request (key 16). */
export interface ListGroupsRequest {
  /** v4+: only groups in these states (e.g. 'Stable', 'Empty'); empty for all. */
  statesFilter?: string[]
  /** v5+: only groups of these types; empty for all. */
  typesFilter?: string[]
}

/** An entry of ListGroupsResponse.groups: each group in the response. */
export interface ListGroupsGroup {
  /** The group ID. */
  groupId: string
  /** 'consumer' for consumer groups; '' for KIP-848 groups with no classic members. */
  protocolType: string
  /** v4+. */
  groupState: string
  /** v5+. */
  groupType: string
}

/** A ListGroups response (key 16). */
export interface ListGroupsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** Each group in the response. */
  groups: ListGroupsGroup[]
}

/** The ListGroups API (key 16): its versions and its request and response schemas. */
export const ListGroups = defineApi<ListGroupsRequest, ListGroupsResponse>({
  key: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersions: '3+',
  request: struct(
    field('statesFilter', array('string'), '4+'),
    field('typesFilter', array('string'), '5+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('errorCode', 'int16', '0+'),
    field('groups', array(struct(
      field('groupId', 'string', '0+'),
      field('protocolType', 'string', '0+'),
      field('groupState', 'string', '4+'),
      field('groupType', 'string', '5+')
    )), '0+')
  )
})

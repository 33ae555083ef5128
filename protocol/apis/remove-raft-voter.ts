/**
 * RemoveRaftVoter (key 81): removes a voter (by id and directory id) from the KRaft
 * quorum (KIP-853, dynamic quorums). Any broker forwards it to the active controller.
 *
 * Version notes:
 * - v0: the only version; flexible (Kafka 3.9, KRaft)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

/** A RemoveRaftVoter request (key 81). */
export interface RemoveRaftVoterRequest {
  /** Null: not checked. */
  clusterId: string | null
  /** The replica id of the voter getting removed from the topic partition. */
  voterId: number
  /** The directory id of the voter getting removed from the topic partition. */
  voterDirectoryId: string
}

/** A RemoveRaftVoter response (key 81). */
export interface RemoveRaftVoterResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
}

/** The RemoveRaftVoter API (key 81): its versions and its request and response schemas. */
export const RemoveRaftVoter = defineApi<RemoveRaftVoterRequest, RemoveRaftVoterResponse>({
  key: 81,
  name: 'RemoveRaftVoter',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersions: '0+',
  request: struct(
    field('clusterId', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('voterId', 'int32', '0+'),
    field('voterDirectoryId', 'uuid', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
  )
})

/**
 * RemoveRaftVoter (key 81): removes a voter (by id and directory id) from the KRaft
 * quorum (KIP-853, dynamic quorums). Any broker forwards it to the active controller.
 *
 * Version notes:
 * - v0: the only version; flexible (Kafka 3.9, KRaft)
 */
import { defineApi } from '../api'
import { field, struct } from '../schema'

export interface RemoveRaftVoterRequest {
  /** Null: not checked. */
  clusterId: string | null
  voterId: number
  voterDirectoryId: string
}

export interface RemoveRaftVoterResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
}

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

/**
 * AddRaftVoter (key 80): makes a controller (an observer of the metadata quorum, known by
 * its id and directory id) a voter of the KRaft quorum (KIP-853, dynamic quorums). Any
 * broker forwards it to the active controller.
 *
 * Version notes:
 * - v0: flexible (Kafka 3.9, KRaft)
 * - v1: request adds ackWhenCommitted: false answers as soon as the leader wrote the new
 *   voter set, before it is committed (KIP-1186, Kafka 4.2)
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface RaftVoterListener {
  name: string
  host: string
  port: number
}

export interface AddRaftVoterRequest {
  /** Null: not checked. */
  clusterId: string | null
  timeoutMs: number
  voterId: number
  voterDirectoryId: string
  listeners: RaftVoterListener[]
  /** v1+; true (the default) waits until the new voter set is committed. */
  ackWhenCommitted?: boolean
}

export interface AddRaftVoterResponse {
  throttleTimeMs: number
  errorCode: number
  errorMessage: string | null
}

export const AddRaftVoter = defineApi<AddRaftVoterRequest, AddRaftVoterResponse>({
  key: 80,
  name: 'AddRaftVoter',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '0+',
  request: struct(
    field('clusterId', 'string', '0+', { nullableVersions: '0+', default: null }),
    field('timeoutMs', 'int32', '0+'),
    field('voterId', 'int32', '0+'),
    field('voterDirectoryId', 'uuid', '0+'),
    field('listeners', array(struct(
      field('name', 'string', '0+'),
      field('host', 'string', '0+'),
      field('port', 'uint16', '0+')
    )), '0+'),
    field('ackWhenCommitted', 'bool', '1+', { default: true })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null })
  )
})

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

/** An entry of AddRaftVoterRequest.listeners: the endpoints that can be used to communicate with the voter. */
export interface RaftVoterListener {
  /** The name of the endpoint. */
  name: string
  /** The hostname. */
  host: string
  /** The port. */
  port: number
}

/** An AddRaftVoter request (key 80). */
export interface AddRaftVoterRequest {
  /** Null: not checked. */
  clusterId: string | null
  /** The maximum time to wait for the request to complete before returning, in ms. */
  timeoutMs: number
  /** The replica id of the voter getting added to the topic partition. */
  voterId: number
  /** The directory id of the voter getting added to the topic partition. */
  voterDirectoryId: string
  /** The endpoints that can be used to communicate with the voter. */
  listeners: RaftVoterListener[]
  /** v1+; true (the default) waits until the new voter set is committed. */
  ackWhenCommitted?: boolean
}

/** An AddRaftVoter response (key 80). */
export interface AddRaftVoterResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** The error message, or null if there was no error. */
  errorMessage: string | null
}

/** The AddRaftVoter API (key 80): its versions and its request and response schemas. */
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

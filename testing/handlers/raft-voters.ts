/**
 * AddRaftVoter (v0–v1) and RemoveRaftVoter (v0). The fake models a KRaft quorum formatted
 * with static voters (kraft.version 0, the default of a single-node `kafka-storage format`):
 * a clusterId that is not the cluster's is INCONSISTENT_CLUSTER_ID, removing a voter by the
 * all-zero directory id (what a static voter has) INVALID_REQUEST, anything else
 * UNSUPPORTED_VERSION, as Kafka 4.4 answers each there.
 */
import { AddRaftVoter, type AddRaftVoterRequest, type AddRaftVoterResponse } from '../../protocol/apis/add-raft-voter'
import { RemoveRaftVoter, type RemoveRaftVoterRequest, type RemoveRaftVoterResponse } from '../../protocol/apis/remove-raft-voter'
import { ZERO_UUID, type ClusterState } from '../state'
import { ErrorCode } from '../error-codes'
import { defineHandler } from './handler'

function staticQuorum (state: ClusterState, clusterId: string | null, what: 'adding' | 'removing'): AddRaftVoterResponse {
  if (clusterId !== null && clusterId !== state.clusterId) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, errorMessage: `The given id "${clusterId}" doesn't match the cluster id "${state.clusterId}"` }
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: `Cluster doesn't support ${what} voter because the kraft.version feature is 0` }
}

export const addRaftVoterHandler = defineHandler<AddRaftVoterRequest, AddRaftVoterResponse>({
  api: AddRaftVoter,
  handle: (ctx, request) => staticQuorum(ctx.state, request.clusterId, 'adding'),
  errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null })
})

export const removeRaftVoterHandler = defineHandler<RemoveRaftVoterRequest, RemoveRaftVoterResponse>({
  api: RemoveRaftVoter,
  handle: (ctx, request) => request.voterDirectoryId === ZERO_UUID && (request.clusterId === null || request.clusterId === ctx.state.clusterId)
    ? { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Remove voter request didn\'t include a valid voter' }
    : staticQuorum(ctx.state, request.clusterId, 'removing'),
  errorResponse: (_ctx, _request, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null })
})

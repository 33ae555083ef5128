/**
 * FindCoordinator: v0–v6.
 *
 * Group keys (key type 0) get the group's coordinator (groups.ts: by hash of the group id,
 * or as set by `cluster.setCoordinator`). Transaction keys (1) get a broker by the same
 * hash, or as set by `cluster.setTransactionCoordinator` (transactions.ts). Share keys (2) and unknown key
 * types get INVALID_REQUEST.
 *
 * Version notes:
 * - v0–v3: one key, answered at the top level
 * - v4+: several keys (coordinatorKeys), one answer each
 */
import { FindCoordinator, type FindCoordinatorEntry, type FindCoordinatorRequest, type FindCoordinatorResponse } from '../../protocol/apis/find-coordinator'
import { GroupError } from '../group-common'
import type { GroupCoordinator } from '../groups'
import type { ClusterState } from '../state'
import type { TransactionCoordinator } from '../transactions'
import { defineHandler, type ApiHandler } from './handler'

export function findCoordinatorHandler (groups: GroupCoordinator, txns: TransactionCoordinator): ApiHandler<FindCoordinatorRequest, FindCoordinatorResponse> {
  return defineHandler<FindCoordinatorRequest, FindCoordinatorResponse>({
    api: FindCoordinator,
    handle: (ctx, request) => {
      const keyType = request.keyType ?? 0
      const entries = keysOf(ctx.version, request).map(key => locate(ctx.state, groups, txns, key, keyType))
      return respond(ctx.version, entries)
    },
    errorResponse: (ctx, request, errorCode) =>
      respond(ctx.version, keysOf(ctx.version, request).map(key => ({ key, nodeId: -1, host: '', port: -1, errorCode, errorMessage: null })))
  })
}

function keysOf (version: number, request: FindCoordinatorRequest): string[] {
  return version >= 4 ? request.coordinatorKeys ?? [] : [request.key ?? '']
}

function locate (state: ClusterState, groups: GroupCoordinator, txns: TransactionCoordinator, key: string, keyType: number): FindCoordinatorEntry {
  if (keyType !== 0 && keyType !== 1) {
    return { key, nodeId: -1, host: '', port: -1, errorCode: GroupError.INVALID_REQUEST, errorMessage: `The fake broker has no coordinator for key type ${keyType}` }
  }
  const nodeId = keyType === 1 ? txns.coordinatorFor(key) : groups.coordinatorFor(key)
  const broker = state.broker(nodeId)!
  return { key, nodeId, host: broker.host, port: broker.port, errorCode: GroupError.NONE, errorMessage: null }
}

function respond (version: number, entries: FindCoordinatorEntry[]): FindCoordinatorResponse {
  if (version >= 4) return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: -1, host: '', port: -1, coordinators: entries }
  const one = entries[0]
  return { throttleTimeMs: 0, errorCode: one.errorCode, errorMessage: one.errorMessage, nodeId: one.nodeId, host: one.host, port: one.port, coordinators: [] }
}

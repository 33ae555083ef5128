/**
 * What a handler is: the API it answers, how it answers a request normally, and how it
 * answers with an error code chosen by a test (the `{ error }` interception).
 *
 * Handlers may be async (Produce decompresses, Fetch long-polls). State changes that
 * must be atomic — a sequence check and the append it allows — happen with no `await`
 * between them (see state.ts).
 */
import type { Api } from '../../protocol/api'
import type { ClusterState, PartitionState } from '../state'
import { ErrorCode } from '../error-codes'

export interface HandlerContext {
  state: ClusterState
  /** The broker the request came to. */
  brokerId: number
  version: number
  connectionId: number
  /** Settles when the connection or the cluster closes (long polls stop waiting). */
  gone: Promise<void>
}

export interface ApiHandler<Request, Response> {
  api: Api<Request, Response>
  handle: (ctx: HandlerContext, request: Request) => Response | Promise<Response>
  /** A response that answers everything in `request` with `errorCode`. */
  errorResponse: (ctx: HandlerContext, request: Request, errorCode: number) => Response
  /** False when the request wants no response at all (Produce with acks=0). */
  expectsResponse?: (request: Request) => boolean
}

/**
 * A handler in the broker's table, whatever its API. The broker passes it only requests its
 * own Api decoded (the table is keyed by API key), so the casts in `registered` hold.
 */
export interface RegisteredHandler {
  apiKey: number
  handle: (ctx: HandlerContext, request: unknown) => unknown
  errorResponse: (ctx: HandlerContext, request: unknown, errorCode: number) => unknown
  expectsResponse: (request: unknown) => boolean
}

export function registered<Request, Response> (handler: ApiHandler<Request, Response>): RegisteredHandler {
  return {
    apiKey: handler.api.key,
    handle: async (ctx, request) => await handler.handle(ctx, request as Request),
    errorResponse: (ctx, request, errorCode) => handler.errorResponse(ctx, request as Request, errorCode),
    expectsResponse: request => handler.expectsResponse?.(request as Request) !== false
  }
}

/** Helps TypeScript tie a handler's request and response types to its Api. */
export function defineHandler<Request, Response> (handler: ApiHandler<Request, Response>): ApiHandler<Request, Response> {
  return handler
}

/**
 * The leader checks of a partition-addressed request, in Kafka's order: the client's
 * leader epoch first (-1 or absent skips it), then whether this broker leads.
 */
export function leaderError (ctx: HandlerContext, partition: PartitionState, currentLeaderEpoch = -1): number {
  if (currentLeaderEpoch >= 0) {
    if (currentLeaderEpoch < partition.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH
    if (currentLeaderEpoch > partition.leaderEpoch) return ErrorCode.UNKNOWN_LEADER_EPOCH
  }
  if (partition.leader !== ctx.brokerId) return ErrorCode.NOT_LEADER_OR_FOLLOWER
  return ErrorCode.NONE
}

/** The endpoint of a broker, for the nodeEndpoints of Produce v10+ and Fetch v16+. */
export function nodeEndpoint (state: ClusterState, nodeId: number): { nodeId: number, host: string, port: number, rack: string | null } {
  const broker = state.broker(nodeId)!
  return { nodeId, host: broker.host, port: broker.port, rack: broker.rack }
}

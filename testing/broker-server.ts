/**
 * BrokerServer: one fake broker's TCP server on 127.0.0.1, and its connections.
 *
 * A connection reads size-prefixed frames, decodes each request (header, then body with
 * kafkats's own codecs) as it arrives and logs it, then handles the requests one at a
 * time, in order. Kafka does the same: it mutes a connection after reading a request
 * until that request's response is sent, so a delayed or held request holds back the
 * ones behind it, and responses always leave in request order.
 *
 *   frame → header → body → request log → [interceptors → handler → response] one by one
 *
 * Anything the fake cannot accept — a malformed frame, header or body, an API key with
 * no handler, a version outside kafkats's range — closes the connection with a log line.
 * Nothing is thrown out of the server: every socket has an error listener and every step
 * runs inside a try.
 *
 * When a connection closes, the request being handled still completes (a broker that
 * read a request applies it even if the client is gone; only the response is lost), and
 * the requests queued behind it are never handled (Kafka would not have read them).
 */
import * as net from 'node:net'
import type { AnyApi } from '../protocol/api'
import { ApiVersions } from '../protocol/apis/api-versions'
import { decodeRequestHeader, encodeResponseFrame, type RequestHeader } from '../protocol/header'
import { Reader } from '../protocol/reader'
import { unsupportedApiVersionsResponse } from './handlers/api-versions'
import type { HandlerContext, RegisteredHandler } from './handlers/handler'
import { summarizeProduce, type ProduceBatchSummary } from './handlers/produce'
import type { ProduceRequest } from '../protocol/apis/produce'
import { describeAction, type InterceptAction, type InterceptorRegistry, type RequestAction } from './intercept'
import type { ClusterState } from './state'

/** Kafka's socket.request.max.bytes default: larger frames close the connection. */
const MAX_REQUEST_BYTES = 100 * 1024 * 1024

/** What became of a logged request: pending, answered, or how it ended without an answer. */
export type RequestOutcome =
  /** Not handled yet. */
  | 'pending'
  /** The response was written. */
  | 'answered'
  /** Handled; the request asked for no response (Produce acks=0). */
  | 'no-response'
  /** An interceptor dropped the connection (see `applied`). */
  | 'dropped'
  /** The connection closed before the response could be written (see `applied`). */
  | 'unanswered'
  /** The fake could not handle it (an interceptor or handler threw, a bad `respond` body). */
  | 'failed'

/** One request as the fake received it. */
export interface RequestLogEntry<Request = unknown> {
  /** The broker that received it. */
  brokerId: number
  /** The connection it came on (an id unique in the process). */
  connectionId: number
  /** The API key, e.g. 0 for Produce. */
  apiKey: number
  /** The API's name, e.g. 'Produce'. */
  apiName: string
  /** The API version of the request. */
  version: number
  /** The request's correlation id. */
  correlationId: number
  /** The client id in the request header; null when the client sent none. */
  clientId: string | null
  /** The decoded request body. */
  request: Request
  /** Date.now() when the request was read. */
  receivedAt: number
  /** Produce only: the producer id, epoch and sequences of each partition's batch. */
  batches?: ProduceBatchSummary[]
  /** What the interceptors chose ('normal' when none did); undefined until handled. */
  action?: RequestAction
  /** Whether the broker applied the request (its handler ran to the end). */
  applied: boolean
  /** What became of the request; 'pending' until handled. */
  outcome: RequestOutcome
}

export interface ServerDependencies {
  state: ClusterState
  apis: ReadonlyMap<number, AnyApi>
  handlers: ReadonlyMap<number, RegisteredHandler>
  interceptors: InterceptorRegistry
  record: (entry: RequestLogEntry) => void
}

let nextConnectionId = 1

export class BrokerServer {
  readonly nodeId: number
  readonly #deps: ServerDependencies
  readonly #server: net.Server
  readonly #connections = new Set<FakeConnection>()

  constructor (nodeId: number, deps: ServerDependencies) {
    this.nodeId = nodeId
    this.#deps = deps
    this.#server = net.createServer(socket => this.#accept(socket))
    this.#server.on('error', error => deps.state.log(`broker ${nodeId}: server error: ${error.message}`))
  }

  /** Listens on an ephemeral port of 127.0.0.1; returns the port. */
  async listen (): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(0, '127.0.0.1', () => {
        this.#server.off('error', reject)
        resolve()
      })
    })
    return (this.#server.address() as net.AddressInfo).port
  }

  get connectionCount (): number {
    return this.#connections.size
  }

  /** Closes every open connection (the server keeps listening); returns how many. */
  closeConnections (reason: string): number {
    const count = this.#connections.size
    for (const connection of [...this.#connections]) connection.close(reason, false)
    return count
  }

  async close (): Promise<void> {
    this.closeConnections('the cluster is closing')
    await new Promise<void>(resolve => this.#server.close(() => resolve()))
  }

  #accept (socket: net.Socket): void {
    if (this.#deps.state.isClosed) {
      socket.destroy()
      return
    }
    const connection = new FakeConnection(nextConnectionId++, this.nodeId, socket, this.#deps)
    this.#connections.add(connection)
    void connection.gone.then(() => this.#connections.delete(connection))
  }
}

class FakeConnection {
  readonly id: number
  readonly #brokerId: number
  readonly #socket: net.Socket
  readonly #deps: ServerDependencies
  readonly #label: string
  #closed = false
  /** Settles when this connection or the whole cluster closes. */
  readonly gone: Promise<void>
  #markGone!: () => void
  // Requests are handled one after another on this chain.
  #chain: Promise<void> = Promise.resolve()
  // Frame reassembly: the unread bytes, and the size of the frame being read once known.
  #chunks: Buffer[] = []
  #buffered = 0
  #frameSize: number | undefined

  constructor (id: number, brokerId: number, socket: net.Socket, deps: ServerDependencies) {
    this.id = id
    this.#brokerId = brokerId
    this.#socket = socket
    this.#deps = deps
    this.#label = `broker ${brokerId} connection ${id} (${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'})`
    const connectionGone = new Promise<void>(resolve => { this.#markGone = resolve })
    this.gone = Promise.race([connectionGone, deps.state.closed])
    socket.setNoDelay(true)
    socket.on('data', chunk => this.#onData(chunk))
    socket.on('error', () => this.close('socket error', false))
    socket.on('close', () => this.close('the client closed the connection', false))
  }

  /** Closes the connection; `problem` says whether to log the reason as a refusal. */
  close (reason: string, problem: boolean): void {
    if (this.#closed) return
    this.#closed = true
    if (problem) this.#deps.state.log(`${this.#label}: ${reason}; closing the connection`)
    this.#socket.destroy()
    this.#markGone()
  }

  #onData (chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#buffered += chunk.length
    while (!this.#closed) {
      if (this.#frameSize === undefined) {
        if (this.#buffered < 4) return
        const size = this.#contiguous(4).readInt32BE(0)
        if (size < 8 || size > MAX_REQUEST_BYTES) {
          this.close(`request frame of ${size} bytes (allowed: 8 to ${MAX_REQUEST_BYTES})`, true)
          return
        }
        this.#frameSize = size
      }
      if (this.#buffered < 4 + this.#frameSize) return
      const all = this.#contiguous(this.#buffered)
      const frame = all.subarray(4, 4 + this.#frameSize)
      const rest = all.subarray(4 + this.#frameSize)
      this.#chunks = rest.length > 0 ? [rest] : []
      this.#buffered = rest.length
      this.#frameSize = undefined
      this.#onFrame(frame)
    }
  }

  /** The first `size` buffered bytes in one buffer (joins the chunks when needed). */
  #contiguous (size: number): Buffer {
    if (this.#chunks[0].length < size) this.#chunks = [Buffer.concat(this.#chunks, this.#buffered)]
    return this.#chunks[0]
  }

  #onFrame (frame: Buffer): void {
    const { apis, handlers } = this.#deps
    const reader = new Reader(frame)
    let header: RequestHeader
    try {
      header = decodeRequestHeader(reader, (apiKey, version) => apis.get(apiKey)?.isFlexible(version) ?? false)
    } catch (error) {
      this.close(`malformed request header: ${(error as Error).message}`, true)
      return
    }
    const api = apis.get(header.apiKey)
    const handler = handlers.get(header.apiKey)
    const name = api?.name ?? 'an API kafkats does not know'
    if (api === undefined || handler === undefined) {
      this.close(`no handler for API key ${header.apiKey} (${name}) v${header.apiVersion}, correlation id ${header.correlationId}; add one in kafkats's testing/handlers/`, true)
      return
    }
    if (header.apiVersion < api.minVersion || header.apiVersion > api.maxVersion) {
      if (api.key === ApiVersions.key && header.apiVersion > api.maxVersion) {
        // KIP-511: answer in v0, which every client can read, naming the versions we speak.
        this.#enqueue(() => this.#write(encodeResponseFrame(ApiVersions, 0, header.correlationId, unsupportedApiVersionsResponse())))
        return
      }
      this.close(`${api.name} v${header.apiVersion} is outside kafkats's range v${api.minVersion}–v${api.maxVersion}`, true)
      return
    }
    let request: unknown
    try {
      request = api.decodeRequest(reader, header.apiVersion)
      if (reader.remaining !== 0) throw new Error(`${reader.remaining} bytes are left after the body`)
    } catch (error) {
      this.close(`malformed ${api.name} v${header.apiVersion} request (correlation id ${header.correlationId}): ${(error as Error).message}`, true)
      return
    }
    const entry: RequestLogEntry = {
      brokerId: this.#brokerId,
      connectionId: this.id,
      apiKey: api.key,
      apiName: api.name,
      version: header.apiVersion,
      correlationId: header.correlationId,
      clientId: header.clientId,
      request,
      receivedAt: Date.now(),
      applied: false,
      outcome: 'pending'
    }
    if (api.key === 0) entry.batches = summarizeProduce(this.#deps.state, header.apiVersion, request as ProduceRequest)
    this.#deps.record(entry)
    this.#enqueue(async () => await this.#handle(entry, api, handler))
  }

  #enqueue (task: () => void | Promise<void>): void {
    this.#chain = this.#chain.then(task).catch(error => {
      this.#deps.state.log(`${this.#label}: internal error of the fake broker: ${(error as Error).stack ?? String(error)}`)
      this.close('internal error', false)
    })
  }

  async #handle (entry: RequestLogEntry, api: AnyApi, handler: RegisteredHandler): Promise<void> {
    const { state, interceptors } = this.#deps
    if (this.#closed || state.isClosed) {
      entry.outcome = 'unanswered'
      return
    }
    const ctx: HandlerContext = { state, brokerId: this.#brokerId, version: entry.version, connectionId: this.id, gone: this.gone }
    const what = `${api.name} v${entry.version} (correlation id ${entry.correlationId})`
    let action: InterceptAction
    try {
      action = await interceptors.decide({
        brokerId: entry.brokerId,
        apiKey: entry.apiKey,
        apiName: entry.apiName,
        version: entry.version,
        correlationId: entry.correlationId,
        connectionId: entry.connectionId,
        clientId: entry.clientId,
        request: entry.request
      })
    } catch (error) {
      entry.outcome = 'failed'
      this.close(`an interceptor of ${what} threw: ${(error as Error).message}`, true)
      return
    }
    entry.action = describeAction(action)

    const apply = async (): Promise<unknown> => {
      const response = await handler.handle(ctx, entry.request)
      entry.applied = true
      return response
    }
    try {
      if (action === undefined) {
        this.#answer(entry, api, handler, await apply())
      } else if ('delayMs' in action) {
        await sleep(action.delayMs, state.closed)
        if (state.isClosed) return this.#unanswered(entry)
        this.#answer(entry, api, handler, await apply())
      } else if ('hold' in action) {
        await Promise.race([action.hold.catch(() => {}), state.closed])
        if (state.isClosed) return this.#unanswered(entry)
        this.#answer(entry, api, handler, await apply())
      } else if ('drop' in action) {
        if (action.drop === 'after-apply') await apply()
        entry.outcome = 'dropped'
        this.close(`an interceptor dropped ${what} ${action.drop === 'after-apply' ? 'after' : 'before'} applying it`, false)
      } else if ('respond' in action) {
        if (action.apply === true) await apply()
        this.#answer(entry, api, handler, action.respond)
      } else if ('modify' in action) {
        const response = await apply()
        this.#answer(entry, api, handler, await action.modify(response))
      } else if ('error' in action) {
        if (action.apply === true) await apply()
        this.#answer(entry, api, handler, handler.errorResponse(ctx, entry.request, action.error))
      } else {
        throw new Error(`unknown interceptor action ${JSON.stringify(Object.keys(action as object))}`)
      }
    } catch (error) {
      entry.outcome = 'failed'
      this.close(`handling ${what} failed: ${(error as Error).stack ?? String(error)}`, true)
    }
  }

  #answer (entry: RequestLogEntry, api: AnyApi, handler: RegisteredHandler, body: unknown): void {
    if (!handler.expectsResponse(entry.request)) {
      entry.outcome = 'no-response'
      return
    }
    if (this.#closed) return this.#unanswered(entry)
    this.#write(encodeResponseFrame(api, entry.version, entry.correlationId, body))
    entry.outcome = 'answered'
  }

  #unanswered (entry: RequestLogEntry): void {
    entry.outcome = 'unanswered'
  }

  #write (frame: Buffer): void {
    if (!this.#closed) this.#socket.write(frame)
  }
}

/** Resolves after `ms`, or early when `until` settles. */
async function sleep (ms: number, until: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([new Promise<void>(resolve => { timer = setTimeout(resolve, ms) }), until])
  clearTimeout(timer)
}

/**
 * Connection: one TCP (or TLS) socket to one broker, with requests pipelined on it.
 *
 * Concurrency rules (single-threaded, so the hazards are interleavings across I/O events):
 * - `#inFlight` holds every request that was written and expects a response, in the
 *   order written. Kafka answers requests on a connection in order, so a response must
 *   carry the correlation id of the oldest entry; anything else is a protocol error that
 *   closes the connection (responses are matched strictly, never by lookup alone).
 * - A caller that gives up on a written request (abort) is answered at once, but its
 *   entry stays, marked `abandoned`, so the late response is read and dropped in order
 *   instead of being taken for the next request's.
 * - A request that times out closes the connection: its response may still come and the
 *   broker may have applied it, so the connection's state is unknown (the Java client
 *   does the same). Every other in-flight request fails with `written: true`.
 * - A malformed response fails its request with a MalformedResponseError (a ProtocolError
 *   with `written: true`: the broker may have applied the request), then closes the
 *   connection; the pool makes a new one on the next request.
 */
import * as net from 'node:net'
import * as tls from 'node:tls'
// Imported, not the global: test runners' sandboxes (jest 25/26's node environment) have no global performance.
import { performance } from 'node:perf_hooks'
import type { AnyApi, Api } from '../protocol/api'
import { brokersWith } from '../protocol/api-releases'
import { ApiVersions, type ApiVersionsResponse } from '../protocol/apis/api-versions'
import { ErrorCode } from '../protocol/error-codes'
import { ProtocolError, sentence } from '../protocol/errors'
import { decodeResponseFrame, encodeRequestChunks } from '../protocol/header'
import { Reader } from '../protocol/reader'
import { onAbort } from './abort-signal'
import { abortError } from './backoff'
import { ConnectionError, isRefusedIdentity, MalformedResponseError, RequestTimeoutError, TlsError, UnsupportedVersionError } from './errors'
import { authenticate, type SaslOptions } from './sasl'
import { clientCertificateProblem, looksLikeTlsRecord } from './tls'
import { SaslAuthenticate } from '../protocol/apis/sasl-authenticate'
import { SaslHandshake } from '../protocol/apis/sasl-handshake'
import { AuthenticationError } from './errors'
import { channels, Instrumentation, publishAsyncEnd, subscribed, type RequestTrace } from './instrumentation'
import type { RequestStats } from './metrics'
import type { ConnectionPurpose, RequestEvent } from './events'

/**
 * node:tls options, except that `servername` (SNI and the name the certificate must
 * match) may be a function of the broker's address, for clusters whose brokers have
 * names of their own behind one address scheme. Default: the host, when it is a name.
 */
export type TlsOptions = Omit<tls.ConnectionOptions, 'servername'> & {
  /** The name for SNI and the certificate check, or a function of the broker's host and port that returns it; default: the host, when it is a name. */
  servername?: string | ((host: string, port: number) => string | undefined)
}

/**
 * What a `socketFactory` is given: the broker's address, the TLS options the connection would
 * use (undefined for plaintext), and `onConnect`, to be called once the socket is connected
 * (after the TLS handshake for TLS), as `net.connect(options, onConnect)` and
 * `tls.connect(options, onConnect)` do.
 */
export interface SocketFactoryArgs {
  /** The broker's host. */
  host: string
  /** The broker's port. */
  port: number
  /** The TLS options the connection would use (with `servername` resolved); undefined for plaintext. */
  tls: tls.ConnectionOptions | undefined
  /** Call once the socket is connected (after the TLS handshake for TLS). */
  onConnect: () => void
}

/** Returns the socket a connection to one broker uses; kafkats owns it from then on (it ends and destroys it). */
export type SocketFactory = (args: SocketFactoryArgs) => net.Socket

export interface ConnectionOptions {
  host: string
  port: number
  clientId: string
  /** What this connection is for, e.g. "broker 1 (produce)"; used in errors. */
  label?: string
  connectTimeoutMs?: number
  requestTimeoutMs?: number
  /** TLS: `true` for defaults, or node:tls options (ca, cert, key, rejectUnauthorized, servername, …). */
  tls?: boolean | TlsOptions
  /** Opens the socket instead of node:net / node:tls (a proxy, a custom DNS, a test double). */
  socketFactory?: SocketFactory
  sasl?: SaslOptions
  /** A response larger than this is refused as malformed (guards against a hostile size prefix). */
  maxResponseBytes?: number
  /** The broker's node id and the connection's purpose, for events, logs and metrics (set by the pool). */
  nodeId?: number
  purpose?: ConnectionPurpose
  /** Where logs and events go (the Client's); a standalone connection logs warnings only. */
  instrumentation?: Instrumentation
}

export interface SendOptions {
  /** The version to send; defaults to the highest both sides speak. */
  version?: number
  timeoutMs?: number
  signal?: AbortSignal
  /** False for requests the broker does not answer (Produce with acks=0). */
  expectResponse?: boolean
}

interface InFlight {
  correlationId: number
  api: AnyApi
  version: number
  /** Settles the caller's promise with the decoded response (typed by the caller's Api). */
  resolve: (value: unknown) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout | undefined
  signal: AbortSignal | undefined
  /** Stops waiting for `signal` (see abort-signal.ts). */
  stopWaiting: (() => void) | undefined
  abandoned: boolean
  /** performance.now() at the write: request latency for logs, metrics and tracing. */
  startedAt: number
  /** The client's counters for this API on this broker. */
  stats: RequestStats
  /** The 'kafkats:request' context, when someone subscribed at the write. */
  trace: RequestTrace | undefined
  size: number
}

type ConnectionState = 'connecting' | 'ready' | 'closed'

const CLIENT_SOFTWARE_NAME = 'kafkats'
const CLIENT_SOFTWARE_VERSION = '0.1.0'

export class Connection {
  readonly host: string
  readonly port: number
  readonly label: string
  readonly #options: ConnectionOptions
  readonly #instrumentation: Instrumentation
  readonly #nodeId: number
  #socket: net.Socket | undefined
  #state: ConnectionState = 'connecting'
  #closeError: Error | undefined
  readonly #closeListeners: Array<(error: Error | undefined) => void> = []

  // Written requests awaiting a response, oldest first (Map keeps insertion order).
  readonly #inFlight = new Map<number, InFlight>()
  #nextCorrelationId = 0
  #answered = 0

  // Frame reassembly: the 4-byte size prefix, then the frame body.
  readonly #sizeBytes = Buffer.alloc(4)
  #sizeFilled = 0
  #frame: Buffer | undefined
  #frameFilled = 0
  // Sockets this class opens read through `onread` (#readTarget/#onRead): the body of a
  // large frame is read straight into the frame, not copied out of socket chunks. What
  // comes between frame bodies is read into `#chunk`, replaced once a frame view into it
  // was handed on (a decoded response keeps views into its frame).
  #chunk: Buffer | undefined
  #chunkViewed = false
  #readingFrame = false
  /** Whether any byte came from the broker yet (its first bytes tell a TLS listener from a Kafka answer). */
  #heardFrom = false

  // KIP-368 re-authentication (#reauthenticate): while `#reauthGate` is set, sends other
  // than SASL wait for it; it starts once nothing is in flight, because the broker reads
  // what follows SaslHandshake as part of the SASL exchange. `#onDrained` is called when
  // the last in-flight request is answered (or the connection closes).
  #reauthTimer: NodeJS.Timeout | undefined
  #reauthGate: Promise<void> | undefined
  #onDrained: (() => void) | undefined
  /** closeWhenIdle() was called with requests in flight: the connection closes once the last is answered. */
  #closeWhenDrained = false

  /** Per API key: the client's counters for it on this broker (looked up once per connection and API). */
  readonly #stats: Array<RequestStats | undefined> = []

  /** API key → the broker's [min, max] version; set by ApiVersions at connect. */
  #brokerVersions = new Map<number, { minVersion: number, maxVersion: number }>()

  private constructor (options: ConnectionOptions) {
    this.#options = options
    this.host = options.host
    this.port = options.port
    this.label = options.label ?? `${options.host}:${options.port}`
    this.#instrumentation = options.instrumentation ?? Instrumentation.standalone(options.clientId)
    this.#nodeId = options.nodeId ?? -1
  }

  /** Connects, negotiates API versions and authenticates; the connection is ready to use. */
  static async connect (options: ConnectionOptions, signal?: AbortSignal): Promise<Connection> {
    const connection = new Connection(options)
    try {
      await connection.#open(signal)
      await connection.#negotiateVersions(signal)
      if (options.sasl !== undefined) connection.#scheduleReauthentication(await connection.#authenticate(false, signal))
    } catch (error) {
      connection.close(error as Error)
      // A TLS failure found after the handshake (the broker refusing our certificate) surfaces as a closed connection.
      const closedBy = connection.#closeError
      if (closedBy instanceof TlsError) throw closedBy
      // ApiVersions or SASL was written, the caller's request was not: connecting failed, nothing to be unsure of.
      if (error instanceof ConnectionError && error.written) throw connection.#closedWhileConnecting(error)
      throw error
    }
    connection.#state = 'ready'
    return connection
  }

  /** Why the broker may have closed the connection before it was ready: usually a listener of another security protocol. */
  #closedWhileConnecting (error: ConnectionError): ConnectionError {
    const doing = this.#brokerVersions.size > 1 ? 'during SASL authentication' : 'before answering ApiVersions'
    const hint = this.#options.tls === undefined || this.#options.tls === false
      ? 'A TLS listener (SSL, SASL_SSL) does this to a plaintext client (set the tls option)'
      : 'A listener of another security protocol does this'
    return new ConnectionError(this.label, `the broker closed the connection ${doing}. ${hint}, and so does a broker that is starting or stopping, or a proxy without a backend: check the tls and sasl options against the listener's security protocol`, { written: false, cause: error })
  }

  /** Responses decoded since the connection became ready (a connection that never got one may be talking to something that is not a Kafka listener). */
  get answeredCount (): number {
    return this.#answered
  }

  get isReady (): boolean {
    return this.#state === 'ready'
  }

  get isClosed (): boolean {
    return this.#state === 'closed'
  }

  /** Requests written and not yet answered (abandoned ones included). */
  get inFlightCount (): number {
    return this.#inFlight.size
  }

  /** The requests waiting for an answer, oldest first, for diagnostics (where a caller waits). */
  inFlightRequests (): Array<{ api: string, correlationId: number, ageMs: number, abandoned: boolean }> {
    const now = performance.now()
    return [...this.#inFlight.values()].map(e => ({ api: e.api.name, correlationId: e.correlationId, ageMs: Math.round(now - e.startedAt), abandoned: e.abandoned }))
  }

  /** Called once when the connection closes, with the error that closed it (undefined for a clean close). */
  onClose (listener: (error: Error | undefined) => void): void {
    if (this.#state === 'closed') {
      listener(this.#closeError)
      return
    }
    this.#closeListeners.push(listener)
  }

  /** The broker's version range of an API, or undefined if it does not speak it. */
  brokerVersions (apiKey: number): { minVersion: number, maxVersion: number } | undefined {
    return this.#brokerVersions.get(apiKey)
  }

  /** The version to use for `api`: min(ours, broker's max), refused when the ranges do not overlap. */
  versionFor (api: AnyApi): number {
    const broker = this.#brokerVersions.get(api.key)
    if (broker === undefined) {
      throw new UnsupportedVersionError(`${this.label} does not speak ${api.name} (API key ${api.key}); kafkats speaks v${api.minVersion}–v${api.maxVersion}, ${brokersSpeaking(api)}.`)
    }
    const version = Math.min(api.maxVersion, broker.maxVersion)
    if (version < Math.max(api.minVersion, broker.minVersion)) {
      const remedy = broker.maxVersion < api.minVersion
        ? brokersSpeaking(api)
        : `this broker speaks only newer versions than this kafkats: use a kafkats release that speaks ${api.name} v${broker.minVersion}`
      throw new UnsupportedVersionError(`${this.label} speaks ${api.name} v${broker.minVersion}–v${broker.maxVersion}, kafkats speaks v${api.minVersion}–v${api.maxVersion}: no version in common; ${remedy}.`)
    }
    return version
  }

  /** Sends a request and resolves with the decoded response. */
  send<Request, Response> (api: Api<Request, Response>, body: Request, options: SendOptions = {}): Promise<Response> {
    if (this.#state === 'closed') {
      // A refused (re-)authentication is the answer for everything that waited on this connection: retrying cannot change it.
      if (isRefusedIdentity(this.#closeError)) return Promise.reject(this.#closeError)
      return Promise.reject(new ConnectionError(this.label, 'the connection is closed', { written: false, cause: this.#closeError }))
    }
    if (options.signal?.aborted === true) return Promise.reject(abortError(options.signal, `${api.name} to ${this.label}`))
    if (this.#reauthGate !== undefined && api.key !== SaslHandshake.key && api.key !== SaslAuthenticate.key) {
      // Queued in call order behind the re-authentication (then() callbacks run in order).
      return this.#reauthGate.then(() => this.send(api, body, options))
    }
    let version: number
    let frame: { chunks: Uint8Array[], size: number }
    const correlationId = this.#nextCorrelationId
    // Correlation ids are int32 on the wire: wrap before 2^31.
    this.#nextCorrelationId = correlationId === 0x7fffffff ? 0 : correlationId + 1
    try {
      version = options.version ?? this.versionFor(api)
      // Chunks: a Produce request's large record batches are written from their own buffers, not copied into the frame.
      frame = encodeRequestChunks(api, version, correlationId, this.#options.clientId, body)
    } catch (error) {
      return Promise.reject(error)
    }
    const socket = this.#socket!
    const stats = this.#stats[api.key] ?? this.#statsFor(api)
    stats.requests++
    stats.bytesSent += frame.size
    if (options.expectResponse === false) {
      const trace = subscribed(channels.request) ? this.#traceStart(api, version, correlationId, frame.size) : undefined
      return new Promise((resolve, reject) => {
        writeChunks(socket, frame.chunks, error => {
          if (trace !== undefined) publishAsyncEnd(channels.request, trace, error ?? undefined)
          if (error !== undefined && error !== null) reject(new ConnectionError(this.label, `writing ${api.name} failed: ${error.message}`, { written: true, cause: error }))
          else resolve(undefined as Response)
        })
      })
    }
    return new Promise<Response>((resolve, reject) => {
      const trace = subscribed(channels.request) ? this.#traceStart(api, version, correlationId, frame.size) : undefined
      const entry: InFlight = { correlationId, api, version, resolve: resolve as (value: unknown) => void, reject, timer: undefined, signal: options.signal, stopWaiting: undefined, abandoned: false, startedAt: performance.now(), stats, trace, size: frame.size }
      if (this.#instrumentation.log.debugOn) this.#instrumentation.log.debug(`${api.name} v${version} sent`, { broker: this.label, api: api.name, correlationId, bytes: frame.size })
      const timeoutMs = options.timeoutMs ?? this.#options.requestTimeoutMs ?? 30_000
      entry.timer = setTimeout(() => this.#onTimeout(entry, timeoutMs), timeoutMs)
      if (options.signal !== undefined) {
        entry.stopWaiting = onAbort(options.signal, () => this.#abandon(entry))
      }
      this.#inFlight.set(correlationId, entry)
      writeChunks(socket, frame.chunks)
    })
  }

  /**
   * Closes the connection once nothing is in flight (at once when nothing is): for a
   * connection nobody will use again whose answers are still awaited, e.g. a bootstrap
   * address's once the cluster's own brokers are known. No error: 'disconnect' carries none.
   */
  closeWhenIdle (): void {
    if (this.#state === 'closed') return
    if (this.#inFlight.size === 0) this.close()
    else this.#closeWhenDrained = true
  }

  /** Closes the socket and fails every request still waiting for a response. */
  close (error?: Error): void {
    if (this.#state === 'closed') return
    this.#state = 'closed'
    this.#closeError = error
    if (this.#reauthTimer !== undefined) clearTimeout(this.#reauthTimer)
    this.#socket?.destroy()
    const failure = (entry: InFlight): Error => new ConnectionError(this.label, `the connection closed before ${entry.api.name} was answered${error !== undefined ? `: ${error.message}` : ''}`, { written: true, cause: error })
    for (const entry of this.#inFlight.values()) {
      this.#settle(entry)
      this.#failed(entry, failure(entry))
    }
    this.#inFlight.clear()
    this.#onDrained?.()
    for (const listener of this.#closeListeners.splice(0)) listener(error)
  }

  /**
   * KIP-368: the broker ends a SASL session after `sessionLifetimeMs` (its
   * connections.max.reauth.ms, or a token's expiry). Authenticate again at 85–95 % of it
   * (the Java client's spread, so connections do not all do it at once).
   */
  #scheduleReauthentication (sessionLifetimeMs: number): void {
    if (sessionLifetimeMs <= 0 || this.#state === 'closed') return
    const delay = sessionLifetimeMs * (0.85 + Math.random() * 0.1)
    this.#reauthTimer = setTimeout(() => { void this.#reauthenticate() }, delay)
    this.#reauthTimer.unref()
  }

  /** Holds new requests, lets the in-flight ones finish, authenticates again, then releases the held requests in order. */
  async #reauthenticate (): Promise<void> {
    let release!: () => void
    this.#reauthGate = new Promise(resolve => { release = resolve })
    try {
      while (this.#inFlight.size > 0 && this.#state !== 'closed') {
        await new Promise<void>(resolve => { this.#onDrained = resolve })
      }
      this.#onDrained = undefined
      if (this.#state === 'closed') return
      this.#scheduleReauthentication(await this.#authenticate(true))
    } catch (error) {
      // Closed before the held requests are let go: none of them may reach the socket of a
      // session the broker is ending, where it would be written without an answer (an
      // ambiguous produce); they fail, unwritten, with the refusal (see send()).
      this.close(error as Error)
    } finally {
      this.#reauthGate = undefined
      release()
    }
  }

  /** SASL, reported as the Client's 'authenticate' or 'authenticationError' event. */
  async #authenticate (reauthentication: boolean, signal?: AbortSignal): Promise<number> {
    const sasl = this.#options.sasl!
    const { log, events } = this.#instrumentation
    const about = { nodeId: this.#nodeId, broker: this.label, purpose: this.#options.purpose ?? 'admin', mechanism: sasl.mechanism }
    try {
      const sessionLifetimeMs = await authenticate(this, sasl, signal)
      log.debug(reauthentication ? 're-authenticated' : 'authenticated', { broker: this.label, mechanism: sasl.mechanism, sessionLifetimeMs })
      events.emit('authenticate', { ...about, sessionLifetimeMs, reauthentication })
      return sessionLifetimeMs
    } catch (error) {
      if (error instanceof AuthenticationError) {
        log.debug('authentication failed', { broker: this.label, mechanism: sasl.mechanism, error })
        events.emit('authenticationError', { ...about, error })
      }
      throw error
    }
  }

  #open (signal?: AbortSignal): Promise<void> {
    const { host, port } = this.#options
    const timeoutMs = this.#options.connectTimeoutMs ?? 10_000
    return new Promise((resolve, reject) => {
      const tlsOptions = this.#options.tls
      const usesTls = tlsOptions !== undefined && tlsOptions !== false
      const factory = this.#options.socketFactory
      let settled = false
      const onConnect = (): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        stopWaiting?.()
        resolve()
      }
      const fail = (error: Error): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        stopWaiting?.()
        reject(error)
      }
      const timer = setTimeout(() => fail(new ConnectionError(this.label, `connecting timed out after ${timeoutMs} ms; is the broker running and reachable?`, { written: false })), timeoutMs)
      const stopWaiting = signal === undefined ? undefined : onAbort(signal, () => fail(abortError(signal, `connecting to ${this.label}`)))
      let socket: net.Socket
      if (factory === undefined) {
        socket = usesTls
          ? tls.connect(tlsConnectOptions(host, port, tlsOptions))
          : net.connect({ host, port, onread: { buffer: () => this.#readTarget(), callback: (bytes, buffer) => this.#onRead(bytes, buffer) } })
        socket.once(usesTls ? 'secureConnect' : 'connect', onConnect)
      } else {
        try {
          socket = factory({ host, port, tls: usesTls ? tlsConnectOptions(host, port, tlsOptions) : undefined, onConnect })
        } catch (error) {
          fail(new ConnectionError(this.label, `socketFactory threw: ${(error as Error)?.message ?? String(error)}`, { written: false, cause: error }))
          return
        }
        if (!(socket instanceof net.Socket)) {
          fail(new TypeError(`socketFactory: expected a net.Socket (or tls.TLSSocket) for ${this.label}, got ${socket === null ? 'null' : typeof socket}`))
          return
        }
      }
      this.#socket = socket
      socket.setNoDelay(true)
      // Sockets made with `onread` emit no 'data'; TLS and the factory's do.
      socket.on('data', chunk => this.#onData(chunk))
      socket.on('error', (error: NodeJS.ErrnoException) => {
        const wrapped = isTlsFailure(error)
          ? new TlsError(this.label, `the TLS handshake failed: ${sentence(error.message)} ${tlsAdvice(tlsOptions)}`, { cause: error, tlsCode: error.code })
          : usesTls && !settled && socket.bytesRead === 0 && error.code === 'ECONNRESET'
            // A plaintext Kafka listener reads the ClientHello as an impossible frame size and closes without a word.
            ? new TlsError(this.label, 'the broker closed the connection during the TLS handshake without answering it: the listener does not speak TLS (PLAINTEXT or SASL_PLAINTEXT?). Drop the tls option, or use the broker\'s SSL or SASL_SSL port.', { cause: error, tlsCode: error.code })
            : new ConnectionError(this.label, describeSocketError(error), { written: false, cause: error })
        fail(wrapped)
        this.close(wrapped)
      })
      socket.on('close', () => this.close(new ConnectionError(this.label, 'the broker closed the connection', { written: true })))
    })
  }

  /**
   * ApiVersions is bounded by what is left of the connect timeout, not the request timeout:
   * a broker that accepts TCP but never answers (SIGSTOPped, hung) must fail the connection
   * as fast as one that refuses it, so callers move on to another broker.
   */
  async #negotiateVersions (signal?: AbortSignal): Promise<void> {
    const timeoutMs = this.#options.connectTimeoutMs ?? 10_000
    const deadline = Date.now() + timeoutMs
    try {
      await this.#negotiateVersionsUntil(deadline, signal)
    } catch (error) {
      if (!(error instanceof RequestTimeoutError)) throw error
      throw new ConnectionError(this.label, `the broker accepted the connection but did not answer ApiVersions within the connect timeout (${timeoutMs} ms); it may be hung or overloaded`, { written: false, cause: error })
    }
  }

  async #negotiateVersionsUntil (deadline: number, signal?: AbortSignal): Promise<void> {
    // Until we know better, assume the broker speaks our highest ApiVersions.
    this.#brokerVersions.set(ApiVersions.key, { minVersion: 0, maxVersion: ApiVersions.maxVersion })
    const request = { clientSoftwareName: CLIENT_SOFTWARE_NAME, clientSoftwareVersion: CLIENT_SOFTWARE_VERSION }
    let response = await this.#sendApiVersions(ApiVersions.maxVersion, request, deadline, signal)
    if (response.errorCode === ErrorCode.UNSUPPORTED_VERSION) {
      // The broker answered with v0 of the body, listing its own ApiVersions range (KIP-511).
      const range = response.apiKeys.find(k => k.apiKey === ApiVersions.key)
      const version = Math.min(range?.maxVersion ?? 0, ApiVersions.maxVersion)
      response = await this.#sendApiVersions(version, request, deadline, signal)
    }
    if (response.errorCode !== 0) {
      throw new ConnectionError(this.label, `ApiVersions failed with error code ${response.errorCode}`, { written: true })
    }
    this.#brokerVersions = new Map(response.apiKeys.map(k => [k.apiKey, { minVersion: k.minVersion, maxVersion: k.maxVersion }]))
  }

  async #sendApiVersions (version: number, request: object, deadline: number, signal?: AbortSignal): Promise<ApiVersionsResponse> {
    // A broker that does not know `version` answers in v0 format, which the flexible decoder cannot read:
    // decode through a pass-through API and fall back to v0.
    const raw = await this.send(rawApiVersions, request, { version, signal, timeoutMs: Math.max(1, deadline - Date.now()) })
    try {
      return ApiVersions.decodeResponse(new Reader(raw), version)
    } catch (error) {
      const v0 = ApiVersions.decodeResponse(new Reader(raw), 0)
      if (v0.errorCode === ErrorCode.UNSUPPORTED_VERSION) return v0
      throw error
    }
  }

  /** Where the next socket read goes: the rest of the frame being filled when that is large, else the chunk buffer. */
  #readTarget (): Uint8Array {
    const frame = this.#frame
    if (frame !== undefined && frame.length - this.#frameFilled >= DIRECT_READ_MIN_BYTES) {
      this.#readingFrame = true
      return frame.subarray(this.#frameFilled)
    }
    this.#readingFrame = false
    if (this.#chunk === undefined || this.#chunkViewed) {
      this.#chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES)
      this.#chunkViewed = false
    }
    return this.#chunk
  }

  /** `bytes` were read into the buffer #readTarget gave; true: go on reading. */
  #onRead (bytes: number, buffer: Uint8Array): boolean {
    if (!this.#readingFrame) {
      this.#onData((buffer as Buffer).subarray(0, bytes))
    } else if (this.#state !== 'closed') {
      const frame = this.#frame!
      this.#frameFilled += bytes
      if (this.#frameFilled === frame.length) {
        this.#frame = undefined
        this.#onFrame(frame)
      }
    }
    return true
  }

  #onData (chunk: Buffer): void {
    if (this.#state === 'connecting' && !this.#heardFrom) {
      this.#heardFrom = true
      if (this.#options.tls === undefined || this.#options.tls === false) {
        if (looksLikeTlsRecord(chunk)) {
          this.close(new TlsError(this.label, `the broker answered with a TLS record (${chunk[0] === 0x15 ? 'an alert' : 'a handshake'}), not a Kafka response: the listener expects TLS (SSL or SASL_SSL). Set the tls option (true, or { ca } for a private CA), or use the broker's PLAINTEXT or SASL_PLAINTEXT port.`, { tlsCode: 'KAFKATS_TLS_LISTENER' }))
          return
        }
      }
    }
    let offset = 0
    while (offset < chunk.length && this.#state !== 'closed') {
      if (this.#frame === undefined) {
        // Fast path: the whole frame is inside this chunk, use a view (no copy).
        if (this.#sizeFilled === 0 && chunk.length - offset >= 4) {
          const size = chunk.readInt32BE(offset)
          if (!this.#checkFrameSize(size)) return
          if (chunk.length - offset - 4 >= size) {
            this.#chunkViewed = true
            this.#onFrame(chunk.subarray(offset + 4, offset + 4 + size))
            offset += 4 + size
            continue
          }
          this.#frame = Buffer.allocUnsafe(size)
          this.#frameFilled = 0
          offset += 4
        } else {
          const take = Math.min(4 - this.#sizeFilled, chunk.length - offset)
          chunk.copy(this.#sizeBytes, this.#sizeFilled, offset, offset + take)
          this.#sizeFilled += take
          offset += take
          if (this.#sizeFilled < 4) return
          this.#sizeFilled = 0
          const size = this.#sizeBytes.readInt32BE(0)
          if (!this.#checkFrameSize(size)) return
          this.#frame = Buffer.allocUnsafe(size)
          this.#frameFilled = 0
        }
      }
      const frame = this.#frame
      const take = Math.min(frame.length - this.#frameFilled, chunk.length - offset)
      chunk.copy(frame, this.#frameFilled, offset, offset + take)
      this.#frameFilled += take
      offset += take
      if (this.#frameFilled === frame.length) {
        this.#frame = undefined
        this.#onFrame(frame)
      }
    }
  }

  #checkFrameSize (size: number): boolean {
    const max = this.#options.maxResponseBytes ?? 1024 * 1024 * 1024
    if (size >= 4 && size <= max) return true
    this.close(new ProtocolError(`${this.label} sent a response frame of ${size} bytes (allowed: 4 to ${max}); closing the connection`))
    return false
  }

  #onFrame (frame: Buffer): void {
    const correlationId = frame.readInt32BE(0)
    const oldest = this.#inFlight.values().next().value as InFlight | undefined
    if (oldest === undefined || oldest.correlationId !== correlationId) {
      const expected = oldest === undefined ? 'none was awaited' : `expected ${oldest.correlationId}`
      this.close(new ProtocolError(`${this.label} answered correlation id ${correlationId}, ${expected}; closing the connection`))
      return
    }
    this.#inFlight.delete(correlationId)
    this.#settle(oldest)
    if (this.#inFlight.size === 0) {
      this.#onDrained?.()
      // After this answer is handed on (its caller may still be reading it), not before.
      if (this.#closeWhenDrained) queueMicrotask(() => { this.close() })
    }
    if (oldest.abandoned) return
    let response: unknown
    try {
      response = decodeResponseFrame(oldest.api, oldest.version, frame)
    } catch (error) {
      // The request was written, so the broker may have applied it: an ambiguous outcome (written: true), not a definite failure.
      this.#failed(oldest, new MalformedResponseError(`Could not decode the ${oldest.api.name} v${oldest.version} response from ${this.label}: ${(error as Error).message}; the broker may have applied the request`, { cause: error }))
      this.close(new ProtocolError(`${this.label} sent a malformed ${oldest.api.name} v${oldest.version} response; closing the connection`, { cause: error }))
      return
    }
    if (this.#state === 'ready') this.#answered++
    const stats = oldest.stats
    const seconds = (performance.now() - oldest.startedAt) / 1000
    stats.bytesReceived += frame.length
    stats.latency.observe(seconds)
    const errorCode = (response as { errorCode?: unknown }).errorCode
    if (typeof errorCode === 'number' && errorCode !== 0) stats.errors++
    // Most responses carry the broker's quota throttle; a throttled client should hear of it.
    const throttleTimeMs = (response as { throttleTimeMs?: unknown }).throttleTimeMs
    if (typeof throttleTimeMs === 'number' && throttleTimeMs > 0) this.#onThrottle(oldest.api.name, throttleTimeMs)
    if (this.#instrumentation.log.debugOn) {
      this.#instrumentation.log.debug(`${oldest.api.name} v${oldest.version} answered`, { broker: this.label, api: oldest.api.name, correlationId, bytes: frame.length, durationMs: Math.round(seconds * 1e6) / 1000 })
    }
    const trace = oldest.trace
    if (trace !== undefined) {
      trace.responseBytes = frame.length
      trace.durationMs = seconds * 1000
      trace.result = response
      publishAsyncEnd(channels.request, trace)
    }
    this.#observe(oldest, 'answered')
    oldest.resolve(response)
  }

  #statsFor (api: AnyApi): RequestStats {
    const stats = this.#instrumentation.metrics.requestStats(api.name, this.#nodeId)
    this.#stats[api.key] = stats
    return stats
  }

  #traceStart (api: AnyApi, version: number, correlationId: number, requestBytes: number): RequestTrace {
    const trace: RequestTrace = { clientId: this.#options.clientId, api: api.name, apiKey: api.key, version, correlationId, nodeId: this.#nodeId, broker: this.label, requestBytes }
    channels.request.start.publish(trace)
    channels.request.end.publish(trace)
    return trace
  }

  /** A written request that will get no answer: counted as an error, traced, and rejected unless its caller gave up on it already. */
  #failed (entry: InFlight, error: Error): void {
    if (entry.abandoned) return
    entry.stats.errors++
    if (entry.trace !== undefined) {
      entry.trace.durationMs = performance.now() - entry.startedAt
      publishAsyncEnd(channels.request, entry.trace, error)
    }
    entry.reject(error)
  }

  #onThrottle (api: string, throttleTimeMs: number): void {
    const { log, events } = this.#instrumentation
    log.info(`throttled by the broker for ${throttleTimeMs} ms (${api})`, { broker: this.label, api, throttleTimeMs })
    events.emit('throttle', { nodeId: this.#nodeId, broker: this.label, api, throttleTimeMs })
  }

  #onTimeout (entry: InFlight, timeoutMs: number): void {
    if (!this.#inFlight.has(entry.correlationId)) return
    entry.timer = undefined
    this.#inFlight.delete(entry.correlationId)
    this.#settle(entry)
    const error = new RequestTimeoutError(`${entry.api.name} to ${this.label} had no response within ${timeoutMs} ms; the broker may still have applied it`, { written: true })
    this.#observe(entry, 'timeout')
    this.#failed(entry, error)
    this.close(error)
  }

  #abandon (entry: InFlight): void {
    if (!this.#inFlight.has(entry.correlationId) || entry.abandoned) return
    entry.abandoned = true
    entry.stopWaiting?.()
    const error = abortError(entry.signal!, `${entry.api.name} to ${this.label} after it was written`, true)
    if (entry.trace !== undefined) {
      entry.trace.durationMs = performance.now() - entry.startedAt
      publishAsyncEnd(channels.request, entry.trace, error)
      entry.trace = undefined
    }
    entry.reject(error)
  }

  /** The Client's 'request' event (only while someone listens). */
  #observe (entry: InFlight, outcome: RequestEvent['outcome']): void {
    const { events } = this.#instrumentation
    if (events.listenerCount('request') === 0) return
    const durationMs = performance.now() - entry.startedAt
    events.emit('request', {
      broker: `${this.host}:${this.port}`,
      clientId: this.#options.clientId,
      apiKey: entry.api.key,
      apiName: entry.api.name,
      apiVersion: entry.version,
      correlationId: entry.correlationId,
      size: entry.size,
      sentAt: Date.now() - durationMs,
      durationMs,
      outcome,
      inFlight: this.#inFlight.size
    })
  }

  #settle (entry: InFlight): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer)
    entry.timer = undefined
    entry.stopWaiting?.()
  }
}

/** ApiVersions with a pass-through response decoder: the body is decoded by the caller, who may need to retry as v0. */
const rawApiVersions: Api<object, Buffer> = {
  ...(ApiVersions as unknown as Api<object, Buffer>),
  decodeResponse: (r: Reader) => r.raw(r.remaining)
}

function tlsConnectOptions (host: string, port: number, options: true | TlsOptions): tls.ConnectionOptions {
  const { servername, ...rest } = options === true ? {} : options
  const name = typeof servername === 'function' ? servername(host, port) : servername ?? (net.isIP(host) === 0 ? host : undefined)
  return { ...rest, host, port, servername: name }
}

/** What to check after a refused handshake; names our own certificate's dates when they are the reason. */
function tlsAdvice (options: boolean | TlsOptions | undefined): string {
  const expired = typeof options === 'object' ? clientCertificateProblem(options) : undefined
  if (expired !== undefined) return `The broker refuses ${expired}: renew it (tls.cert, tls.key).`
  return 'Check the CA (tls.ca), the name the certificate is for (tls.servername) and, for mTLS, the client certificate (tls.cert, tls.key).'
}

function isTlsFailure (error: NodeJS.ErrnoException): boolean {
  const code = error.code ?? ''
  return /^ERR_SSL_|^ERR_TLS_CERT|CERT|^UNABLE_TO_|SELF_SIGNED|^DEPTH_ZERO/.test(code) || /SSL routines|alert (bad|unknown|handshake)|certificate required/i.test(error.message)
}

function describeSocketError (error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED': return `connection refused (${error.message}); is the broker running on this address?`
    case 'ENOTFOUND': return `host not found (${error.message}); check the bootstrap address`
    case 'ECONNRESET': return `connection reset by the broker (${error.message})`
    case 'ETIMEDOUT': return `connection timed out (${error.message})`
    default: return error.message
  }
}

/** A frame with at least this much left to fill is read into directly; a shorter rest is copied from a chunk (one read instead of two). */
const DIRECT_READ_MIN_BYTES = 16 * 1024
/** The size of a socket read between frame bodies (libuv's own default). */
const READ_CHUNK_BYTES = 64 * 1024

/** Writes a frame's chunks in order, corked so they leave in one write; `done` gets the last one's outcome. */
function writeChunks (socket: net.Socket, chunks: Uint8Array[], done?: (error: Error | null | undefined) => void): void {
  if (chunks.length === 1) {
    socket.write(chunks[0], done)
    return
  }
  socket.cork()
  for (let i = 0; i < chunks.length - 1; i++) socket.write(chunks[i])
  socket.write(chunks[chunks.length - 1], done)
  socket.uncork()
}

/** Which brokers speak the lowest version of `api` kafkats speaks: the remedy of an UnsupportedVersionError. */
function brokersSpeaking (api: AnyApi): string {
  const brokers = brokersWith(api.key, api.minVersion)
  return brokers === undefined ? 'which this broker does not: upgrade the broker' : `which brokers of ${brokers} speak: upgrade the broker to one of those`
}

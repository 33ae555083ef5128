/**
 * BrokerPool: the known brokers and one connection per broker and purpose.
 *
 * Produce, fetch, group and admin traffic each get their own connection to a broker,
 * so a long-polling Fetch never sits in front of a Produce or a Heartbeat on the wire.
 * A connection that fails to open is retried with capped exponential backoff and
 * jitter, per broker, until the caller's deadline; a dead connection is dropped from the
 * pool and re-made on the next request.
 *
 * Requests any broker can answer (Metadata, most admin calls) go to `leastLoadedNode`, as
 * in the Java client: a broker we are connected to with the fewest requests waiting,
 * else one we can connect to now, else the one whose backoff ends first; ties rotate, so
 * a hung broker (accepts TCP, never answers) is left behind after its first failure
 * instead of being asked first every time.
 *
 * A broker that breaks the protocol (an impossible frame size, an unknown correlation id)
 * on PROTOCOL_VIOLATION_LIMIT connections in a row, none of which got a single good answer,
 * is not reconnected to silently forever: requests for it fail with ProtocolViolationError
 * for one maximum backoff, and the Client's `protocolViolation` event reports it.
 */
import { setMaxListeners } from 'node:events'
import { ProtocolError } from '../protocol/errors'
import type { ConnectionPurpose } from './events'
import { onAbort } from './abort-signal'
import { abortError, backoffDelay, sleep, timerDelay, type BackoffOptions } from './backoff'
import { systemClock, type Clock } from './clock'
import { Connection, type ConnectionOptions } from './connection'
import { ClientClosedError, ConnectionError, isRefusedIdentity, ProtocolViolationError, RequestTimeoutError } from './errors'
import { Instrumentation } from './instrumentation'

export type { ConnectionPurpose, ProtocolViolationEvent } from './events'

/** Connections in a row that may end in a protocol violation before requests for the broker fail instead of reconnecting. */
export const PROTOCOL_VIOLATION_LIMIT = 3


/** A broker's address, as the cluster's metadata lists it (or a bootstrap address, before the first answer). */
export interface BrokerAddress {
  /** The broker's node id; negative for a bootstrap address (-1 for the first, -2 for the second...). */
  nodeId: number
  /** The host the broker advertises. */
  host: string
  /** The port the broker advertises. */
  port: number
  /** The broker's rack; null when it has none. */
  rack: string | null
}

export type PoolConnectionOptions = Omit<ConnectionOptions, 'host' | 'port' | 'label' | 'nodeId' | 'purpose' | 'instrumentation'>

interface ConnectFailures {
  attempts: number
  nextAttemptAt: number
  lastError: Error
  /** When the first failure of this run of failures happened. */
  since: number
  /** The outage was reported (a warn line): its end is reported too (an info line). */
  warned: boolean
}


interface Violations {
  /** Connections in a row that closed on a ProtocolError without a single good answer before it. */
  inARow: number
  /** While set and in the future, requests for the broker fail with `error`. */
  refuseUntil: number
  error: ProtocolViolationError | undefined
}

export class BrokerPool {
  readonly #options: PoolConnectionOptions
  readonly #backoff: BackoffOptions
  /** Bootstrap addresses carry negative node ids (-1, -2, ...), as in the Java client. */
  readonly #bootstrap: BrokerAddress[]
  #brokers = new Map<number, BrokerAddress>()
  // Key `${nodeId}:${purpose}`; the promise is shared by everyone waiting for that connection.
  readonly #connections = new Map<string, Promise<Connection>>()
  // The same keys, for connections that are open (set when the promise resolves, removed on close).
  readonly #open = new Map<string, Connection>()
  readonly #failures = new Map<number, ConnectFailures>()
  readonly #violations = new Map<number, Violations>()
  /** Rotates the starting point of leastLoadedNode, so ties do not always pick the first broker. */
  #rotation = 0
  #closed = false
  /** Aborted by close(): connection attempts and everyone waiting for one end at once. */
  readonly #closing = new AbortController()
  /** Logs and the Client's events (connect, disconnect, reconnect, protocolViolation). */
  readonly #instrumentation: Instrumentation
  /** What backoffs, deadlines and outages are timed on (the client's clock). */
  readonly #clock: Clock

  constructor (bootstrap: Array<{ host: string, port: number }>, options: PoolConnectionOptions, backoff: BackoffOptions, instrumentation = Instrumentation.standalone(), clock: Clock = systemClock) {
    // Every request waiting for a connection listens on it (and stops listening once it has one): many at once is no leak.
    setMaxListeners(0, this.#closing.signal)
    this.#options = options
    this.#backoff = backoff
    this.#instrumentation = instrumentation
    this.#clock = clock
    this.#bootstrap = bootstrap.map((b, i) => ({ nodeId: -1 - i, host: b.host, port: b.port, rack: null }))
  }

  get closed (): boolean {
    return this.#closed
  }

  /** Brokers from the latest metadata (bootstrap addresses until there is some). */
  get brokers (): BrokerAddress[] {
    return this.#brokers.size > 0 ? [...this.#brokers.values()] : this.#bootstrap
  }

  broker (nodeId: number): BrokerAddress | undefined {
    return this.#brokers.get(nodeId) ?? this.#bootstrap.find(b => b.nodeId === nodeId)
  }

  /**
   * Replaces the broker list; connections to brokers that left or moved are closed. Once
   * the cluster's brokers are known, the bootstrap addresses' connections are closed as
   * soon as their answers are in: nothing picks a bootstrap address again (`brokers` lists
   * the cluster's), so they would stay open for nothing, one socket per client.
   */
  setBrokers (brokers: BrokerAddress[]): void {
    const next = new Map(brokers.map(b => [b.nodeId, b]))
    for (const [nodeId, old] of this.#brokers) {
      const now = next.get(nodeId)
      if (now === undefined || now.host !== old.host || now.port !== old.port) this.#closeNode(nodeId)
    }
    this.#brokers = next
    if (next.size > 0) this.#retireBootstrapConnections()
  }

  #retireBootstrapConnections (): void {
    for (const [key, pending] of this.#connections) {
      if (!key.startsWith('-')) continue
      this.#connections.delete(key)
      pending.then(c => { c.closeWhenIdle() }, () => {})
    }
  }

  /**
   * A ready connection to `nodeId` for `purpose`, connecting (and retrying with backoff)
   * until `deadline` (epoch ms).
   */
  async get (nodeId: number, purpose: ConnectionPurpose, deadline: number, signal?: AbortSignal, options: { once?: boolean } = {}): Promise<Connection> {
    try {
      return await this.#get(nodeId, purpose, deadline, signal, options.once === true)
    } catch (error) {
      // close() ends every wait at once, whatever it was waiting for.
      if (this.#closed) throw new ClientClosedError()
      throw error
    }
  }

  async #get (nodeId: number, purpose: ConnectionPurpose, deadline: number, callerSignal: AbortSignal | undefined, once: boolean): Promise<Connection> {
    const key = `${nodeId}:${purpose}`
    // Fast path (every produce and fetch comes here): an open connection, nothing to wait for.
    const open = this.#open.get(key)
    if (open !== undefined && open.isReady && callerSignal?.aborted !== true) return open
    const signal = callerSignal === undefined ? this.#closing.signal : AbortSignal.any([callerSignal, this.#closing.signal])
    for (;;) {
      if (this.#closed) throw new ClientClosedError()
      if (signal.aborted) throw abortError(signal, `waiting for a connection to broker ${nodeId}`)
      const violations = this.#violations.get(nodeId)
      if (violations?.error !== undefined && violations.refuseUntil > this.#clock.now()) throw violations.error
      const pending = this.#connections.get(key)
      if (pending !== undefined) {
        let connection: Connection | undefined
        try {
          connection = await raceSignal(pending, signal, `connecting to broker ${nodeId}`, deadline, () => this.#stillConnecting(nodeId), this.#clock)
        } catch (error) {
          // Our caller gave up: the shared connection stays in the pool for everyone else.
          if (isAborted(signal) || once || isRefusedIdentity(error) || this.#clock.now() >= deadline) throw error
        }
        if (connection?.isReady === true) return connection
        // It failed to open or has closed since: forget it, then connect again below.
        if (this.#connections.get(key) === pending) this.#connections.delete(key)
      }
      const address = this.broker(nodeId)
      if (address === undefined) {
        throw new ConnectionError(`broker ${nodeId}`, 'this broker is not in the cluster metadata (it may have left the cluster)', { written: false })
      }
      const failures = this.#failures.get(nodeId)
      if (failures !== undefined) {
        const wait = failures.nextAttemptAt - this.#clock.now()
        if (wait > 0) {
          if (this.#clock.now() + wait > deadline) {
            throw unreachableError(`Connecting to ${describe(address)}`, { brokers: [describeAddress(address)], attempts: failures.attempts, lastError: failures.lastError })
          }
          await sleep(wait, signal, failures.lastError, this.#clock)
          continue
        }
      }
      const attempt = this.#connect(address, purpose)
      this.#connections.set(key, attempt)
      // Drop the pool entry when this connection fails or later dies, unless it was replaced already.
      const forget = (): void => { if (this.#connections.get(key) === attempt) this.#connections.delete(key) }
      attempt.then(connection => connection.onClose(forget), forget)
      try {
        return await raceSignal(attempt, signal, `connecting to broker ${nodeId}`, deadline, () => this.#stillConnecting(nodeId), this.#clock)
      } catch (error) {
        // Refused credentials or certificates fail the same way on every attempt: no retry storm.
        if (error instanceof ClientClosedError || isRefusedIdentity(error) || isAborted(signal)) throw error
        // The failure is recorded by #connect; loop to back off and retry within the deadline.
        if (once) throw error
        if (this.#clock.now() >= deadline) throw unreachableError(`Connecting to ${describe(address)}`, { brokers: [describeAddress(address)], attempts: this.#failures.get(nodeId)?.attempts ?? 1, lastError: error })
      }
    }
  }

  /** The error of a wait for a connection that the caller's deadline ended while the attempt was still under way. */
  #stillConnecting (nodeId: number): Error {
    const address = this.broker(nodeId)
    const where = address === undefined ? `broker ${nodeId}` : describe(address)
    const failures = this.#failures.get(nodeId)
    const lastError = failures?.lastError ?? new ConnectionError(where, `the connection attempt was still under way at the deadline (connectTimeoutMs is ${this.#options.connectTimeoutMs ?? 10_000} ms)`, { written: false })
    return unreachableError(`Connecting to ${where}`, { brokers: [address === undefined ? where : describeAddress(address)], attempts: (failures?.attempts ?? 0) + 1, lastError })
  }

  async #connect (address: BrokerAddress, purpose: ConnectionPurpose): Promise<Connection> {
    const label = `${describe(address)} (${purpose})`
    const key = `${address.nodeId}:${purpose}`
    try {
      const instrumentation = this.#instrumentation
      const connection = await Connection.connect({ ...this.#options, host: address.host, port: address.port, label, nodeId: address.nodeId, purpose, instrumentation }, this.#closing.signal)
      if (this.#closed) {
        connection.close()
        throw new ClientClosedError()
      }
      const broker = describe(address)
      const outage = this.#failures.get(address.nodeId)
      this.#failures.delete(address.nodeId)
      if (outage?.warned === true) instrumentation.log.info(`${broker} is reachable again after ${this.#clock.now() - outage.since} ms (${outage.attempts} failed attempt(s))`, { broker, nodeId: address.nodeId, code: 'KAFKATS_BROKER_BACK' })
      this.#open.set(key, connection)
      instrumentation.log.debug('connected', { broker, purpose })
      instrumentation.events.emit('connect', { nodeId: address.nodeId, broker, purpose })
      connection.onClose(error => {
        if (this.#open.get(key) === connection) this.#open.delete(key)
        this.#countViolation(address, error, connection.answeredCount)
        instrumentation.log.debug('disconnected', { broker, purpose, error })
        instrumentation.events.emit('disconnect', { nodeId: address.nodeId, broker, purpose, error })
      })
      return connection
    } catch (error) {
      this.noteFailure(address.nodeId, error as Error)
      this.#countViolation(address, error, 0)
      throw error
    }
  }

  /**
   * Records that a broker failed us (a connection that could not be made, a request that
   * timed out): it is reconnected to only after a backoff, and leastLoadedNode avoids it
   * while others are available.
   */
  noteFailure (nodeId: number, error: Error): void {
    if (this.#closed) return
    const previous = this.#failures.get(nodeId)
    const attempts = (previous?.attempts ?? 0) + 1
    const backoffMs = Math.round(backoffDelay(attempts - 1, this.#backoff))
    const now = this.#clock.now()
    const failures: ConnectFailures = { attempts, nextAttemptAt: now + backoffMs, lastError: error, since: previous?.since ?? now, warned: previous?.warned ?? false }
    this.#failures.set(nodeId, failures)
    // Refused credentials or certificates are not retried (#get): no reconnect to announce.
    if (isRefusedIdentity(error)) return
    const address = this.broker(nodeId)
    const broker = address === undefined ? `broker ${nodeId}` : describe(address)
    // Lost for longer than a backoff (it failed again after one): worth a line at the default level, once per outage.
    if (attempts >= 2 && !failures.warned) {
      failures.warned = true
      this.#instrumentation.log.warn(`${broker} is unreachable: ${attempts} attempts over ${now - failures.since} ms failed; retrying with backoff (up to ${this.#backoff.maxMs} ms)`, { broker, nodeId, code: 'KAFKATS_BROKER_UNREACHABLE', error })
    }
    this.#instrumentation.log.debug(`reconnecting in ${backoffMs} ms`, { broker, attempt: attempts, error })
    this.#instrumentation.events.emit('reconnect', { nodeId, broker, attempt: attempts, backoffMs, reason: error })
  }

  #countViolation (address: BrokerAddress, error: unknown, answered: number): void {
    if (this.#closed) return
    const violation = protocolViolationOf(error)
    const state = this.#violations.get(address.nodeId) ?? { inARow: 0, refuseUntil: 0, error: undefined }
    if (violation === undefined) {
      // A connection that got good answers proves the broker speaks Kafka: the streak ends.
      if (answered > 0) this.#violations.delete(address.nodeId)
      return
    }
    state.inARow = (answered > 0 ? 0 : state.inARow) + 1
    this.#violations.set(address.nodeId, state)
    if (state.inARow < PROTOCOL_VIOLATION_LIMIT) return
    state.error = new ProtocolViolationError(describe(address), state.inARow, violation)
    state.refuseUntil = this.#clock.now() + this.#backoff.maxMs
    this.#instrumentation.log.warn(state.error.message, { broker: describe(address), code: 'KAFKATS_PROTOCOL_VIOLATION' })
    this.#instrumentation.events.emit('protocolViolation', { nodeId: address.nodeId, broker: describe(address), violations: state.inARow, error: state.error })
  }

  /**
   * The broker for a request any broker can answer, as the Java client's least-loaded
   * node: first one with an open connection for `purpose` (fewest requests waiting on
   * it), then one with another open connection (reachable), then one not in a reconnect
   * backoff, then the one whose backoff ends first. Brokers in `exclude` (tried already)
   * come last. Ties rotate from call to call.
   */
  leastLoadedNode (purpose: ConnectionPurpose, exclude: ReadonlySet<number> = new Set()): number {
    const brokers = this.brokers
    const now = this.#clock.now()
    const start = this.#rotation++
    let best = brokers[start % brokers.length].nodeId
    let bestScore = Infinity
    for (let i = 0; i < brokers.length; i++) {
      const nodeId = brokers[(start + i) % brokers.length].nodeId
      const score = this.#loadScore(nodeId, purpose, now) + (exclude.has(nodeId) ? 1e15 : 0)
      if (score < bestScore) {
        best = nodeId
        bestScore = score
      }
    }
    return best
  }

  /** Lower is better: a tier (×1e12) plus the requests waiting, or the time left in backoff. */
  #loadScore (nodeId: number, purpose: ConnectionPurpose, now: number): number {
    const failures = this.#failures.get(nodeId)
    const violations = this.#violations.get(nodeId)
    const refusedUntil = Math.max(failures?.nextAttemptAt ?? 0, violations?.error !== undefined ? violations.refuseUntil : 0)
    if (refusedUntil > now) return 3e12 + (refusedUntil - now)
    const own = this.#open.get(`${nodeId}:${purpose}`)
    if (own !== undefined && own.isReady) return own.inFlightCount
    for (const [key, connection] of this.#open) {
      if (connection.isReady && key.startsWith(`${nodeId}:`)) return 1e12
    }
    return 2e12
  }

  /**
   * An open connection to `nodeId`, of any purpose, with nothing in flight (undefined when
   * none is): for a one-off request that is answered at once and should not wait for a new
   * connection (a consumer closing its fetch session after ending its long poll's).
   */
  idleConnection (nodeId: number): Connection | undefined {
    for (const [key, connection] of this.#open) {
      if (key.startsWith(`${nodeId}:`) && connection.isReady && connection.inFlightCount === 0) return connection
    }
    return undefined
  }

  /** Closes the connections of one purpose (a consumer or group member that closed), on every broker. */
  closePurpose (purpose: ConnectionPurpose): void {
    for (const [key, pending] of this.#connections) {
      if (key.endsWith(`:${purpose}`)) {
        this.#connections.delete(key)
        pending.then(c => c.close(), () => {})
      }
    }
  }

  /** Open connections (every purpose), for tests and diagnostics. */
  get openConnectionCount (): number {
    return this.#open.size
  }

  /** Per open connection ("<nodeId>:<purpose>"), the requests waiting for an answer: what a stuck caller waits for. */
  inFlightRequests (): Array<{ connection: string, api: string, correlationId: number, ageMs: number, abandoned: boolean }> {
    return [...this.#open].flatMap(([key, connection]) => connection.inFlightRequests().map(r => ({ connection: key, ...r })))
  }

  #closeNode (nodeId: number): void {
    for (const [key, pending] of this.#connections) {
      if (key.startsWith(`${nodeId}:`)) {
        this.#connections.delete(key)
        pending.then(c => c.close(), () => {})
      }
    }
  }

  /** Closes every connection; connection attempts and waits end at once, later calls fail with ClientClosedError. */
  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#closing.abort(new ClientClosedError())
    const pending = [...this.#connections.values()]
    this.#connections.clear()
    await Promise.all(pending.map(p => p.then(c => c.close(), () => {})))
  }
}

/** The ProtocolError behind an error (itself, or the cause a closed connection gave its requests). */
function protocolViolationOf (error: unknown): ProtocolError | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ProtocolError) return e
  }
  return undefined
}

/** What a call that reached no broker knows: the brokers it tried, how often, and the last failure. */
export interface UnreachableDetails {
  /** host:port of each broker tried. */
  brokers: string[]
  attempts: number
  lastError: unknown
}

/** The details behind each error made by unreachableError, so an outer call can restate it with its own bound. */
const unreachableDetails = new WeakMap<object, UnreachableDetails>()

/**
 * The one error of a call that reached no broker: a ConnectionError (a RequestTimeoutError
 * when the last broker accepted the connection but never answered) naming every broker
 * tried, the call's bound and the option that set it, with the last failure as `cause`.
 * `bound` is omitted by inner layers that only know a deadline; the call that owns the
 * bound restates the error with it (restateUnreachable).
 */
export function unreachableError (what: string, details: UnreachableDetails, bound?: { ms: number, option: string }): ConnectionError | RequestTimeoutError {
  // An inner layer's error of the same kind: merge, so the cause is the failure itself, not a restatement.
  const inner = unreachableDetails.get(details.lastError as object)
  const merged: UnreachableDetails = inner === undefined
    ? { brokers: [...new Set(details.brokers)], attempts: details.attempts, lastError: details.lastError }
    : { brokers: [...new Set([...details.brokers, ...inner.brokers])], attempts: Math.max(details.attempts, inner.attempts), lastError: inner.lastError }
  const last = String((merged.lastError as Error | undefined)?.message ?? merged.lastError).replace(/[.]$/, '')
  const brokers = `${merged.brokers.length > 1 ? 'brokers' : 'broker'} ${merged.brokers.join(', ')}`
  const within = bound === undefined ? 'before its deadline' : `within ${bound.ms} ms (${bound.option})`
  const message = `${what} reached no broker ${within}: ${merged.attempts} attempt(s) to ${merged.brokers.join(', ')}; the last error: ${last}${last.endsWith('?') ? '' : '.'} ` +
    'Check that the bootstrap addresses are right and that the brokers are running and reachable from here (their listeners, a firewall, TLS or SASL settings)' +
    (merged.lastError instanceof RequestTimeoutError ? ', or raise the timeout if they are only slow to answer' : '')
  const error = merged.lastError instanceof RequestTimeoutError
    ? new RequestTimeoutError(`${brokers}: ${message}`, { written: merged.lastError.written, cause: merged.lastError })
    : new ConnectionError(brokers, message, { written: false, cause: merged.lastError })
  unreachableDetails.set(error, merged)
  return error
}

/**
 * The failure a retry loop keeps as its reason: this attempt's, unless the attempt only ran out of
 * the time the caller's deadline left it (`allottedMs`, less than a full request timeout) after an
 * earlier attempt failed for a real reason. No answer within a cut-short wait says nothing about the
 * broker (under load the last attempt can start with 1 ms left); the earlier failure stays the reason.
 */
export function failureToKeep (error: unknown, earlier: unknown, allottedMs: number, requestTimeoutMs: number): unknown {
  const cutShort = error instanceof RequestTimeoutError && allottedMs < requestTimeoutMs
  return cutShort && earlier !== undefined && !(earlier instanceof RequestTimeoutError) ? earlier : error
}

/** `error` restated with the bound of the call that owns it when it is an unreachableError; any other error as it is. */
export function restateUnreachable (error: unknown, what: string, bound: { ms: number, option: string }): unknown {
  const details = unreachableDetails.get(error as object)
  return details === undefined ? error : unreachableError(what, details, bound)
}

/** host:port of a broker. */
export function describeAddress (address: BrokerAddress): string {
  return `${address.host}:${address.port}`
}

function describe (address: BrokerAddress): string {
  return address.nodeId < 0 ? `bootstrap broker ${address.host}:${address.port}` : `broker ${address.nodeId} (${address.host}:${address.port})`
}

/** `promise`, or an AbortedError when `signal` aborts first, or `onDeadline()` when `deadline` (epoch ms on `clock`) passes first. */
function raceSignal<T> (promise: Promise<T>, signal: AbortSignal, doing: string, deadline: number, onDeadline: () => Error, clock: Clock): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal, doing))
      return
    }
    const stopWaiting = onAbort(signal, () => {
      timer.cancel()
      reject(abortError(signal, doing))
    })
    // A connection attempt may take connectTimeoutMs: the caller's deadline is not extended by it.
    const timer = clock.setTimer(() => {
      stopWaiting()
      reject(onDeadline())
    }, timerDelay(deadline, clock), { keepAlive: true })
    promise.then(value => {
      timer.cancel()
      stopWaiting()
      resolve(value)
    }, error => {
      timer.cancel()
      stopWaiting()
      reject(error)
    })
  })
}

function isAborted (signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

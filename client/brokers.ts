/**
 * BrokerPool: the known brokers and one connection per broker and purpose.
 *
 * Produce, fetch, group and admin traffic each get their own connection to a broker,
 * so a long-polling Fetch never sits in front of a Produce or a Heartbeat on the wire.
 * A connection that fails to open is retried with capped exponential backoff and
 * jitter, per broker, until the caller's deadline; a dead connection is dropped from the
 * pool and re-made on the next request.
 */
import { abortError, backoffDelay, sleep, type BackoffOptions } from './backoff'
import { Connection, type ConnectionOptions } from './connection'
import { ClientClosedError, ConnectionError } from './errors'

/**
 * What a connection carries. Each group member gets its own (`group-<n>`), and so does
 * each consumer's fetching (`fetch-<n>`): a broker answers a connection's requests one at
 * a time, and a coordinator holds JoinGroup and SyncGroup until the rebalance completes,
 * so two members or consumers sharing a connection would wait for each other.
 */
export type ConnectionPurpose = 'produce' | 'fetch' | 'group' | 'admin' | `group-${number}` | `fetch-${number}`

export interface BrokerAddress {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export type PoolConnectionOptions = Omit<ConnectionOptions, 'host' | 'port' | 'label'>

interface ConnectFailures {
  attempts: number
  nextAttemptAt: number
  lastError: Error
}

export class BrokerPool {
  readonly #options: PoolConnectionOptions
  readonly #backoff: BackoffOptions
  /** Bootstrap addresses carry negative node ids (-1, -2, ...), as in the Java client. */
  readonly #bootstrap: BrokerAddress[]
  #brokers = new Map<number, BrokerAddress>()
  // Key `${nodeId}:${purpose}`; the promise is shared by everyone waiting for that connection.
  readonly #connections = new Map<string, Promise<Connection>>()
  readonly #failures = new Map<number, ConnectFailures>()
  #closed = false

  constructor (bootstrap: Array<{ host: string, port: number }>, options: PoolConnectionOptions, backoff: BackoffOptions) {
    this.#options = options
    this.#backoff = backoff
    this.#bootstrap = bootstrap.map((b, i) => ({ nodeId: -1 - i, host: b.host, port: b.port, rack: null }))
  }

  /** Brokers from the latest metadata (bootstrap addresses until there is some). */
  get brokers (): BrokerAddress[] {
    return this.#brokers.size > 0 ? [...this.#brokers.values()] : this.#bootstrap
  }

  broker (nodeId: number): BrokerAddress | undefined {
    return this.#brokers.get(nodeId) ?? this.#bootstrap.find(b => b.nodeId === nodeId)
  }

  /** Replaces the broker list; connections to brokers that left or moved are closed. */
  setBrokers (brokers: BrokerAddress[]): void {
    const next = new Map(brokers.map(b => [b.nodeId, b]))
    for (const [nodeId, old] of this.#brokers) {
      const now = next.get(nodeId)
      if (now === undefined || now.host !== old.host || now.port !== old.port) this.#closeNode(nodeId)
    }
    this.#brokers = next
  }

  /**
   * A ready connection to `nodeId` for `purpose`, connecting (and retrying with backoff)
   * until `deadline` (epoch ms).
   */
  async get (nodeId: number, purpose: ConnectionPurpose, deadline: number, signal?: AbortSignal): Promise<Connection> {
    const key = `${nodeId}:${purpose}`
    for (;;) {
      if (this.#closed) throw new ClientClosedError()
      if (signal?.aborted === true) throw abortError(signal, `waiting for a connection to broker ${nodeId}`)
      const pending = this.#connections.get(key)
      if (pending !== undefined) {
        let connection: Connection | undefined
        try {
          connection = await raceSignal(pending, signal, `connecting to broker ${nodeId}`)
        } catch (error) {
          // Our caller gave up: the shared connection stays in the pool for everyone else.
          if (isAborted(signal)) throw error
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
        const wait = failures.nextAttemptAt - Date.now()
        if (wait > 0) {
          if (Date.now() + wait > deadline) {
            throw new ConnectionError(describe(address), `could not connect after ${failures.attempts} attempt(s): ${failures.lastError.message}`, { written: false, cause: failures.lastError })
          }
          await sleep(wait, signal)
          continue
        }
      }
      const attempt = this.#connect(address, purpose)
      this.#connections.set(key, attempt)
      // Drop the pool entry when this connection fails or later dies, unless it was replaced already.
      const forget = (): void => { if (this.#connections.get(key) === attempt) this.#connections.delete(key) }
      attempt.then(connection => connection.onClose(forget), forget)
      try {
        return await raceSignal(attempt, signal, `connecting to broker ${nodeId}`)
      } catch (error) {
        if (error instanceof ClientClosedError || isAborted(signal)) throw error
        // The failure is recorded by #connect; loop to back off and retry within the deadline.
        if (Date.now() >= deadline) throw error
      }
    }
  }

  async #connect (address: BrokerAddress, purpose: ConnectionPurpose): Promise<Connection> {
    const label = `${describe(address)} (${purpose})`
    try {
      const connection = await Connection.connect({ ...this.#options, host: address.host, port: address.port, label })
      if (this.#closed) {
        connection.close()
        throw new ClientClosedError()
      }
      this.#failures.delete(address.nodeId)
      return connection
    } catch (error) {
      const previous = this.#failures.get(address.nodeId)
      const attempts = (previous?.attempts ?? 0) + 1
      this.#failures.set(address.nodeId, { attempts, nextAttemptAt: Date.now() + backoffDelay(attempts - 1, this.#backoff), lastError: error as Error })
      throw error
    }
  }

  /** Existing connections, for callers that prefer a broker they already talk to. */
  readyNodes (purpose: ConnectionPurpose): number[] {
    const nodes: number[] = []
    for (const key of this.#connections.keys()) {
      const [nodeId, keyPurpose] = key.split(':')
      if (keyPurpose === purpose) nodes.push(Number(nodeId))
    }
    return nodes
  }

  #closeNode (nodeId: number): void {
    for (const [key, pending] of this.#connections) {
      if (key.startsWith(`${nodeId}:`)) {
        this.#connections.delete(key)
        pending.then(c => c.close(), () => {})
      }
    }
  }

  /** Closes every connection; later calls fail with ClientClosedError. */
  async close (): Promise<void> {
    this.#closed = true
    const pending = [...this.#connections.values()]
    this.#connections.clear()
    await Promise.all(pending.map(p => p.then(c => c.close(), () => {})))
  }
}

function describe (address: BrokerAddress): string {
  return address.nodeId < 0 ? `bootstrap broker ${address.host}:${address.port}` : `broker ${address.nodeId} (${address.host}:${address.port})`
}

function raceSignal<T> (promise: Promise<T>, signal: AbortSignal | undefined, doing: string): Promise<T> {
  if (signal === undefined) return promise
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal, doing))
      return
    }
    const onAbort = (): void => reject(abortError(signal, doing))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(value => {
      signal.removeEventListener('abort', onAbort)
      resolve(value)
    }, error => {
      signal.removeEventListener('abort', onAbort)
      reject(error)
    })
  })
}

function isAborted (signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

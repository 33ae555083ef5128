/**
 * Client: the entry point. It owns the broker connections and the metadata cache, and
 * offers the low-level API — `request` for any implemented API, `produceRaw`,
 * `fetchRaw` and `listOffsets` for one partition. Admin (../admin/) and the producers and
 * consumers are built on top of it.
 *
 * What is made from a Client registers itself (`client[internal].register`); `close()` closes it all:
 * every registered resource is told (`closeWithClient`), every wait for metadata or a
 * connection ends at once, and every later call fails with ClientClosedError.
 */
import type { Api } from '../protocol/api'
import { Fetch, type FetchResponse } from '../protocol/apis/fetch'
import { ListOffsets } from '../protocol/apis/list-offsets'
import { Metadata as MetadataApi } from '../protocol/apis/metadata'
import { Produce, type ProduceResponse } from '../protocol/apis/produce'
import type { CompressionCodec } from '../protocol/compression'
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { decodeRecordBatches, encodeRecordBatch, type KafkaRecord, type RecordBatch, type RecordInput } from '../protocol/record-batch'
import { backoffDelay, defaultBackoff, sleep, type BackoffOptions } from './backoff'
import { BrokerPool, describeAddress, failureToKeep, restateUnreachable, unreachableError, type ConnectionPurpose } from './brokers'
import type { Connection, SocketFactory, TlsOptions } from './connection'
import { ClientClosedError, MalformedResponseError, RequestTimeoutError, wasNotWritten } from './errors'
import { invalidatesMetadata, MetadataCache, MetadataView, type ClusterMetadata, type PartitionMetadata } from './metadata'
import { internal } from './internal'
import { dropAbortedAndControl, dropControl } from './read-committed'
import { checkSaslOptions, type SaslOptions } from './sasl'
import { checkTlsOptions } from './tls'
import { TypedEmitter, type ClientEvents, type RequestRetryEvent } from './events'
import { Instrumentation } from './instrumentation'
import { checkLoggerOptions, Log, type Logger, type LogLevel } from './logger'
import type { ClientMetrics } from './metrics'
import { clockOption, systemClock, type Clock } from './clock'
import { Coordinators } from './coordinators'
import { checkBoolean, checkDuration, checkInteger, checkKnownKeys, checkObject, checkSignal, checkString, describeValue } from './validate'

/** Options of `new Client(options)`: where the cluster is, how to connect and authenticate, and the bounds of every request. Checked when the client is made (a wrong or unknown option throws a TypeError or RangeError naming it). */
export interface ClientOptions {
  /** Bootstrap brokers, 'host:port' each (or one comma-separated string). */
  bootstrap: string[] | string
  /** The client id sent with every request, in brokers' logs and quotas (default 'kafkats'). */
  clientId?: string
  /** How long a request may wait for its response (default 30 s). */
  requestTimeoutMs?: number
  /** How long connecting to a broker may take, in ms: the socket, TLS and its ApiVersions answer (default 10 s). */
  connectTimeoutMs?: number
  /** Backoff between retries and reconnects (default 100 ms doubling to 10 s, with jitter). */
  retryBackoff?: BackoffOptions
  /** Refresh metadata of used topics at least this often (default 5 min, as the Java client). */
  metadataMaxAgeMs?: number
  /** TLS: `true` for the system's CAs, or node:tls options (ca, cert, key, rejectUnauthorized, servername — a string or a function of the broker's host and port). */
  tls?: boolean | TlsOptions
  /**
   * Opens each broker's socket instead of node:net / node:tls: `({ host, port, tls, onConnect }) => socket`
   * (call onConnect once connected, as net.connect's callback). For proxies, custom DNS or tunnels.
   */
  socketFactory?: SocketFactory
  /** SASL authentication on every connection (PLAIN, SCRAM, OAUTHBEARER or a custom mechanism); none by default. */
  sasl?: SaslOptions
  /**
   * The largest response frame accepted (default 1 GiB); a bigger (or negative) size
   * prefix is a protocol violation that closes the connection. Raise it above the
   * consumers' fetch maxBytes if answers are legitimately that large.
   */
  maxResponseBytes?: number
  /**
   * Where kafkats logs: any object with debug/info/warn/error (console, pino, winston…).
   * Without one only warnings are reported (process.emitWarning), and NODE_DEBUG=kafkats
   * prints debug lines on stderr.
   */
  logger?: Logger
  /** The least severe level logged (default 'warn'; 'debug' under NODE_DEBUG=kafkats). */
  logLevel?: LogLevel
}

const CLIENT_OPTIONS = ['bootstrap', 'clientId', 'requestTimeoutMs', 'connectTimeoutMs', 'retryBackoff', 'metadataMaxAgeMs', 'tls', 'socketFactory', 'sasl', 'maxResponseBytes', 'logger', 'logLevel'] as const
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024 * 1024
const MAX_FRAME_BYTES = 0x7fffffff

/** What kafkats's own modules use of a client: `client[internal]` (declared in ./internal-members.ts). */
export interface ClientInternals {
  /** Logs, events, channels and metrics of this client and what is made from it. */
  readonly instrumentation: Instrumentation
  readonly brokers: BrokerPool
  /** The cache behind `client.metadata`, with what only the library does: track, untrack, close. */
  readonly metadata: MetadataCache
  /**
   * Registers something made from this client, to be closed by `close()`; returns the
   * function that unregisters it (call it when the resource closes by itself). On a closed
   * client it throws ClientClosedError.
   */
  register: (resource: ClientResource) => () => void
  /** A ready connection to a broker (connecting with backoff until the request timeout). */
  connection: (nodeId: number, purpose: ConnectionPurpose, signal?: AbortSignal) => Promise<Connection>
  /** Which broker coordinates each group and transactional id: the one FindCoordinator lookup and cache (./coordinators.ts). */
  readonly coordinators: Coordinators
}

/** Something made from a Client (a producer, consumer, admin) that must end when the client closes. */
export interface ClientResource {
  /**
   * Called once by `client.close()`: end at once, failing pending work with `error` (a
   * ClientClosedError). The client closes its connections after every resource's promise settled.
   */
  closeWithClient: (error: ClientClosedError) => void | Promise<void>
}

/**
 * What every close() takes (producer, consumers). `force`: stop without waiting for work in
 * progress; each close() says what that leaves undone.
 */
export interface CloseOptions {
  /** Stop without waiting for work in progress (default false). */
  force?: boolean
}

/** Checks close()'s options; `where` names the call ('producer.close()'). */
export function checkCloseOptions (where: string, options: unknown): asserts options is CloseOptions {
  checkObject(where, 'options', options)
  checkKnownKeys(`${where} option`, options, ['force'])
  checkBoolean(`${where} option`, 'force', options.force)
}

export type { ClientEvents } from './events'

/** Options of `client.request(api, body, options)`: the broker to ask, a signal, and the call's bound. */
export interface RequestOptions {
  /** The broker to send to; any broker when omitted. */
  nodeId?: number
  /** Aborts the request: it rejects with an AbortedError. */
  signal?: AbortSignal
  /** How long the response may take, in ms (default: the client's requestTimeoutMs). */
  timeoutMs?: number
  /** Which of the broker's connections to use (default 'admin'). */
  purpose?: ConnectionPurpose
  /** Force a version instead of negotiating. */
  version?: number
}

/** How many replicas must have a record before the broker acknowledges it: `'all'` (or -1, every in-sync replica; needed by idempotence), 1 (the leader), 0 (no answer at all). */
export type Acks = 'all' | -1 | 0 | 1

/** Options of `client.produceRaw()`: one batch for one partition. */
export interface ProduceRawOptions {
  /** The topic to write to. */
  topic: string
  /** The partition to write to. */
  partition: number
  /** Records to put in one batch, or `batch`: an encoded record batch v2. */
  records?: RecordInput[]
  /** An encoded record batch v2 to write as is, instead of `records`. */
  batch?: Buffer
  /** How many replicas must have the batch before the broker answers (default 'all'). */
  acks?: Acks
  /** How long the broker waits for replication before answering (default 30 s). */
  timeoutMs?: number
  /** The codec `records` are compressed with (default 'none'; not used with `batch`). */
  compression?: CompressionCodec
  /** Aborts the call: it rejects with an AbortedError (the batch may still have been written). */
  signal?: AbortSignal
}

/** Where `client.produceRaw()`'s batch landed; -1 everywhere with `acks: 0`, which gets no answer. */
export interface ProduceRawResult {
  /** The offset of the batch's first record. */
  baseOffset: bigint
  /** The broker's append time for log-append-time topics, -1 otherwise. */
  logAppendTime: bigint
  /** The partition's log start offset. */
  logStartOffset: bigint
}

/** Which records a fetch returns: `'read_uncommitted'` (everything written, aborted transactions included) or `'read_committed'` (up to the last stable offset, committed transactions only). */
export type Isolation = 'read_uncommitted' | 'read_committed'

/** Options of `client.fetchRaw()`: one partition, from one offset. */
export interface FetchRawOptions {
  /** The topic to read. */
  topic: string
  /** The partition to read. */
  partition: number
  /** The offset to read from. */
  offset: bigint
  /** Most bytes to return for the partition (default 1 MiB); at least one batch always comes back. */
  maxBytes?: number
  /** How long the broker may wait for data (default 500 ms). */
  maxWaitMs?: number
  /** The broker answers once it has this many bytes, or after `maxWaitMs` (default 1). */
  minBytes?: number
  /** Which records to return (default 'read_uncommitted'). */
  isolation?: Isolation
  /** Aborts the call: it rejects with an AbortedError. */
  signal?: AbortSignal
}

/** What `client.fetchRaw()` read: the records, their batches, and the partition's offsets. */
export interface FetchRawResult {
  /** The records at or after the offset asked for, in offset order. */
  records: KafkaRecord[]
  /** The decoded batches, after read_committed filtering and without control batches. */
  batches: RecordBatch[]
  /** The partition's high watermark: the offset after the last record replicated to every in-sync replica. */
  highWatermark: bigint
  /** The partition's last stable offset: below it no transaction is open. */
  lastStableOffset: bigint
  /** The partition's log start offset. */
  logStartOffset: bigint
  /** The offset to fetch next. */
  nextOffset: bigint
}

/** Where to read from: the log start, the log end, or the first offset at or after a timestamp. */
export type OffsetSpec = 'earliest' | 'latest' | {
  /** A time in ms since the epoch (or a Date). */
  timestamp: bigint | number | Date
}

/**
 * The broker I/O core. Users get its subclass from the package entry (index.ts), which adds
 * the factories `producer()`, `consumer()`, `shareConsumer()` and `admin`: they need the layers
 * above, which client/ does not import.
 */
export class Client extends TypedEmitter<ClientEvents> {
  /** The client id sent with every request (option `clientId`, default 'kafkats'). */
  readonly clientId: string
  /** How long a request may wait for its response, in ms (option `requestTimeoutMs`, default 30 s). */
  readonly requestTimeoutMs: number
  /** How long connecting to a broker may take, in ms: the socket, TLS and its ApiVersions answer (option `connectTimeoutMs`, default 10 s). */
  readonly connectTimeoutMs: number
  /** The backoff between retries and reconnects (option `retryBackoff`). */
  readonly backoff: Readonly<BackoffOptions>
  /** The cluster as this client knows it: brokers, topics, partitions and their leaders. */
  readonly metadata: ClusterMetadata
  /** The time this client and what is made from it read: the system's, or the FakeClock given by kafkats/testing's `withClock`. */
  readonly clock: Clock
  #closed = false
  #closing: Promise<void> | undefined
  readonly #resources = new Set<ClientResource>()

  /** A client of the cluster `options.bootstrap` names; it connects on first use. Throws a TypeError or RangeError for a wrong option. */
  constructor (options: ClientOptions) {
    super()
    const bootstrap = checkClientOptions(options)
    this.clientId = options.clientId ?? 'kafkats'
    const clock = this.clock = (options as { [clockOption]?: Clock })[clockOption] ?? systemClock
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000
    this.backoff = options.retryBackoff ?? defaultBackoff
    const instrumentation = new Instrumentation(this.clientId, new Log(this.clientId, options.logger, options.logLevel), this)
    const brokers = new BrokerPool(bootstrap, {
      clientId: this.clientId,
      connectTimeoutMs: this.connectTimeoutMs,
      requestTimeoutMs: this.requestTimeoutMs,
      tls: options.tls,
      socketFactory: options.socketFactory,
      sasl: options.sasl,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    }, this.backoff, instrumentation, clock)
    const metadata = new MetadataCache(brokers, {
      maxAgeMs: options.metadataMaxAgeMs ?? 300_000,
      requestTimeoutMs: this.requestTimeoutMs,
      backoff: this.backoff,
      instrumentation,
      clock
    }, async (nodeId, body, deadline, signal) => await this.#sendTo(nodeId, 'admin', MetadataApi, body, { signal, deadline, anyBroker: true }))
    this.metadata = new MetadataView(metadata)
    this.#instrumentation = instrumentation
    this.#brokers = brokers
    this.#metadata = metadata
    // Not a declared member: the public types do not show it (see ./internal.ts).
    Object.defineProperty(this, internal, { value: {
      instrumentation,
      brokers,
      metadata,
      register: resource => this.#register(resource),
      connection: async (nodeId, purpose, signal) => await this.#connection(nodeId, purpose, signal),
      coordinators: new Coordinators({
        clock,
        backoff: this.backoff,
        requestTimeoutMs: this.requestTimeoutMs,
        brokers,
        metadata,
        request: async (api, body, options) => await this.request(api, body, options)
      })
    } satisfies ClientInternals })
  }

  readonly #instrumentation: Instrumentation
  readonly #brokers: BrokerPool
  readonly #metadata: MetadataCache

  /** Whether close() was called. */
  get closed (): boolean {
    return this.#closed
  }

  #register (resource: ClientResource): () => void {
    this.#checkOpen()
    this.#resources.add(resource)
    return () => { this.#resources.delete(resource) }
  }

  /**
   * Resolves once a broker answered (ApiVersions on a new connection, then Metadata) and,
   * when that was a bootstrap address, one of the brokers the cluster advertises answered
   * too: the cluster is reachable with these settings, through the addresses every later
   * request uses (a broker's advertised listener that cannot be reached from here fails
   * here). Use it at start-up to fail fast. Rejects
   * with a ConnectionError naming the brokers tried and the last failure (`cause`) when no
   * broker answered within `timeoutMs` (default requestTimeoutMs), at once with
   * AuthenticationError or TlsError for refused credentials or certificates, and with
   * AbortedError when `signal` aborts.
   */
  async connect (options: { timeoutMs?: number, signal?: AbortSignal } = {}): Promise<void> {
    checkObject('client.connect', 'options', options)
    checkKnownKeys('client.connect option', options, ['timeoutMs', 'signal'], { timeout: 'timeoutMs' })
    checkDuration('client.connect option', 'timeoutMs', options.timeoutMs, 1)
    if (options.signal !== undefined) checkSignal('client.connect option', 'signal', options.signal)
    this.#checkOpen()
    const bound = options.timeoutMs === undefined ? { ms: this.requestTimeoutMs, option: 'requestTimeoutMs' } : { ms: options.timeoutMs, option: 'timeoutMs' }
    const deadline = this.clock.now() + bound.ms
    try {
      const viaBootstrap = this.#metadata.brokers.some(b => b.nodeId < 0)
      await this.#metadata.refresh([], options.signal, deadline)
      // The bootstrap connection closes once its answer is in (BrokerPool.setBrokers): ask a cluster broker too.
      if (viaBootstrap) await this.#metadata.refresh([], options.signal, deadline)
    } catch (error) {
      throw restateUnreachable(error, 'client.connect()', bound)
    }
  }

  /**
   * Sends any implemented API's request and returns the decoded response, error codes
   * included (nothing in the body is turned into an exception). `body` may be a function
   * of the negotiated version, for requests whose shape depends on it.
   */
  async request<Request, Response> (api: Api<Request, Response>, body: Request | ((version: number) => Request), options: RequestOptions = {}): Promise<Response> {
    this.#checkOpen()
    const purpose = options.purpose ?? 'admin'
    const bound = { ms: options.timeoutMs ?? this.requestTimeoutMs, option: options.timeoutMs === undefined ? 'requestTimeoutMs' : 'timeoutMs' }
    const deadline = this.clock.now() + bound.ms
    if (options.nodeId !== undefined) {
      try {
        return await this.#sendTo(options.nodeId, purpose, api, body, { signal: options.signal, deadline, version: options.version, timeoutMs: options.timeoutMs })
      } catch (error) {
        throw restateUnreachable(error, api.name, bound)
      }
    }
    // Any broker will do: the least-loaded one; if it cannot be reached, the next, each once
    // per round, with a backoff between rounds (a request that was written is not repeated).
    const tried = new Set<number>()
    const addresses: string[] = []
    let attempts = 0
    let lastError: unknown
    for (let round = 0; ;) {
      const nodeId = this.#brokers.leastLoadedNode(purpose, tried)
      tried.add(nodeId)
      const address = this.#brokers.broker(nodeId)
      addresses.push(address === undefined ? `broker ${nodeId}` : describeAddress(address))
      const allottedMs = deadline - this.clock.now()
      try {
        return await this.#sendTo(nodeId, purpose, api, body, { signal: options.signal, deadline, version: options.version, timeoutMs: options.timeoutMs, anyBroker: true })
      } catch (error) {
        if (!wasNotWritten(error) || (options.signal?.aborted ?? false) || this.#closed) throw error
        // Past the deadline: the one error of an unreachable cluster, naming every broker tried.
        const reason = failureToKeep(error, lastError, allottedMs, this.requestTimeoutMs)
        if (this.clock.now() >= deadline) throw unreachableError(api.name, { brokers: addresses, attempts: attempts + 1, lastError: reason }, bound)
        lastError = reason
        const everyBrokerTried = this.#brokers.brokers.every(b => tried.has(b.nodeId))
        const backoffMs = everyBrokerTried ? Math.round(Math.min(backoffDelay(round, this.backoff), Math.max(0, deadline - this.clock.now()))) : 0
        this.#retrying({ api: api.name, nodeId, attempt: ++attempts, backoffMs, error: error as Error })
      }
      if (this.#brokers.brokers.every(b => tried.has(b.nodeId))) {
        tried.clear()
        await sleep(Math.min(backoffDelay(round++, this.backoff), Math.max(0, deadline - this.clock.now())), options.signal, lastError, this.clock)
      }
    }
  }

  /**
   * A snapshot of this client's metrics and of everything made from it: requests, errors,
   * bytes and latency per API and broker; batches, records, batch sizes, compression and
   * buffered bytes of its producers; records handed out, fetch latency, buffered bytes and
   * lag per partition of its consumers; rebalances and commits per group.
   * `toPrometheus()` renders it in the Prometheus text format.
   */
  metrics (): ClientMetrics {
    return this.#instrumentation.metrics.snapshot(this.clientId)
  }

  /** Reports a retry: the 'requestRetry' event and a debug line. */
  #retrying (event: RequestRetryEvent): void {
    this.#instrumentation.log.debug(`retrying ${event.api} in ${event.backoffMs} ms`, { nodeId: event.nodeId, topic: event.topic, partition: event.partition, attempt: event.attempt, error: event.error })
    this.emit('requestRetry', event)
  }

  async #connection (nodeId: number, purpose: ConnectionPurpose, signal?: AbortSignal): Promise<Connection> {
    this.#checkOpen()
    try {
      return await this.#brokers.get(nodeId, purpose, this.clock.now() + this.requestTimeoutMs, signal)
    } catch (error) {
      throw restateUnreachable(error, `Connecting to broker ${nodeId}`, { ms: this.requestTimeoutMs, option: 'requestTimeoutMs' })
    }
  }

  /**
   * Writes one batch to one partition's leader and returns where it landed. An encoded
   * `batch` is written from its own buffer, not copied: leave it unchanged until this settles.
   */
  async produceRaw (options: ProduceRawOptions): Promise<ProduceRawResult> {
    const { topic, partition, signal } = options
    const acks = options.acks === 'all' || options.acks === undefined ? -1 : options.acks
    if (options.batch === undefined && options.records === undefined) throw new TypeError('produceRaw needs `records` or an encoded `batch`')
    const records: Buffer = options.batch ?? await encodeRecordBatch({ records: options.records!, compression: options.compression ?? 'none' })
    const timeoutMs = options.timeoutMs ?? 30_000
    return await this.#withPartitionRetries('Produce', topic, partition, 'produce', signal, async (leader, connection) => {
      const version = connection.versionFor(Produce)
      const topicData = version >= 13
        ? { name: '', topicId: this.#metadata.topic(topic)!.topicId, partitionData: [{ index: partition, records }] }
        : { name: topic, topicId: '00000000-0000-0000-0000-000000000000', partitionData: [{ index: partition, records }] }
      const body = { transactionalId: null, acks, timeoutMs, topicData: [topicData] }
      if (acks === 0) {
        await connection.send(Produce, body, { version, signal, expectResponse: false })
        return { baseOffset: -1n, logAppendTime: -1n, logStartOffset: -1n }
      }
      const response: ProduceResponse = await connection.send(Produce, body, { version, signal, timeoutMs: this.requestTimeoutMs + timeoutMs })
      const answered = response.responses.find(t => version >= 13 ? t.topicId === topicData.topicId : t.name === topic)
      const p = answered?.partitionResponses.find(r => r.index === partition)
      if (p === undefined) {
        throw new MalformedResponseError(`Produce to ${topic}-${partition} on broker ${leader}: the answer is for ${describeAnswered(response.responses.map(t => ({ topic: (t.name ?? '') !== '' ? t.name! : this.#metadata.topicById(t.topicId ?? '')?.name ?? t.topicId ?? '', partitions: t.partitionResponses.map(r => r.index) })))}, not for ${topic}-${partition}; the broker may have written the batch`)
      }
      if (p.errorCode !== 0) throw new BrokerError(p.errorCode, `Produce to ${topic}-${partition} on broker ${leader}`, p.errorMessage)
      return { baseOffset: p.baseOffset, logAppendTime: p.logAppendTimeMs, logStartOffset: p.logStartOffset }
    })
  }

  /** Reads records of one partition from `offset`, from its leader. */
  async fetchRaw (options: FetchRawOptions): Promise<FetchRawResult> {
    const { topic, partition, offset, signal } = options
    const maxBytes = options.maxBytes ?? 1024 * 1024
    const maxWaitMs = options.maxWaitMs ?? 500
    const isolation = options.isolation ?? 'read_uncommitted'
    const response = await this.#withPartitionRetries('Fetch', topic, partition, 'fetch', signal, async (leader, connection, meta) => {
      const version = connection.versionFor(Fetch)
      const topicId = this.#metadata.topic(topic)!.topicId
      const body = {
        replicaId: -1,
        maxWaitMs,
        minBytes: options.minBytes ?? 1,
        maxBytes,
        isolationLevel: isolation === 'read_committed' ? 1 : 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{
          topic: version >= 13 ? '' : topic,
          topicId: version >= 13 ? topicId : '00000000-0000-0000-0000-000000000000',
          partitions: [{ partition, currentLeaderEpoch: meta.leaderEpoch, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: maxBytes }]
        }],
        forgottenTopicsData: [],
        rackId: ''
      }
      const fetched: FetchResponse = await connection.send(Fetch, body, { version, signal, timeoutMs: this.requestTimeoutMs + maxWaitMs })
      if (fetched.errorCode !== 0) throw new BrokerError(fetched.errorCode, `Fetch from broker ${leader}`)
      // Exactly what was asked: one topic, one partition. Anything else is another partition's data.
      const asked = (t: FetchResponse['responses'][number]): boolean => version >= 13 ? t.topicId === topicId : t.topic === topic
      const answered = fetched.responses.map(t => ({ topic: version >= 13 ? t.topicId : t.topic, partitions: t.partitions.map(r => r.partitionIndex), asked: asked(t) }))
      const p = fetched.responses.length === 1 && asked(fetched.responses[0]) && fetched.responses[0].partitions.length === 1 && fetched.responses[0].partitions[0].partitionIndex === partition
        ? fetched.responses[0].partitions[0]
        : undefined
      if (p === undefined) throw new MalformedResponseError(`Fetch of ${topic}-${partition} from broker ${leader}: the answer is for ${describeAnswered(answered)}, not for ${topic}-${partition} alone; refusing it`)
      if (p.errorCode !== 0) throw new BrokerError(p.errorCode, `Fetch of ${topic}-${partition} at offset ${offset} from broker ${leader}`)
      return p
    })
    const decoded = response.records === null || response.records.length === 0 ? [] : await decodeRecordBatches(response.records, { topic, partition })
    let nextOffset = offset
    for (const b of decoded) {
      const end = b.baseOffset + BigInt(b.lastOffsetDelta) + 1n
      if (end > nextOffset) nextOffset = end
    }
    const batches = isolation === 'read_committed' ? dropAbortedAndControl(decoded, response.abortedTransactions) : dropControl(decoded)
    const records: KafkaRecord[] = []
    for (const b of batches) {
      // A compressed batch can start before the requested offset: skip what was not asked for.
      for (const r of b.records) if (r.offset >= offset) records.push(r)
    }
    return { records, batches, highWatermark: response.highWatermark, lastStableOffset: response.lastStableOffset, logStartOffset: response.logStartOffset, nextOffset }
  }

  /** The offset of the first record at or after a time, or the log's start or end. */
  async listOffsets (options: { topic: string, partition: number, spec: OffsetSpec, isolation?: Isolation, signal?: AbortSignal }): Promise<{
    /** The offset found: the first at or after the time, the log start or the log end; -1 when no record is at or after the time. */
    offset: bigint
    /** The timestamp of the record at `offset` in ms since the epoch; -1 for 'earliest' and 'latest'. */
    timestamp: bigint
    /** The leader epoch of the record at `offset`; -1 when unknown. */
    leaderEpoch: number
  }> {
    const { topic, partition, spec, signal } = options
    const timestamp = spec === 'earliest' ? -2n : spec === 'latest' ? -1n : BigInt(spec.timestamp instanceof Date ? spec.timestamp.getTime() : spec.timestamp)
    return await this.#withPartitionRetries('ListOffsets', topic, partition, 'fetch', signal, async (leader, connection, meta) => {
      const response = await connection.send(ListOffsets, {
        replicaId: -1,
        isolationLevel: options.isolation === 'read_committed' ? 1 : 0,
        topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: meta.leaderEpoch, timestamp }] }],
        timeoutMs: this.requestTimeoutMs
      }, { signal })
      const p = response.topics[0]?.partitions.find(r => r.partitionIndex === partition)
      if (p === undefined) throw new BrokerError(-1, `ListOffsets of ${topic}-${partition} from broker ${leader}: the response has no entry for the partition`)
      if (p.errorCode !== 0) throw new BrokerError(p.errorCode, `ListOffsets of ${topic}-${partition} from broker ${leader}`)
      return { offset: p.offset, timestamp: p.timestamp, leaderEpoch: p.leaderEpoch }
    })
  }

  /**
   * Closes what was made from this client (each registered resource's `closeWithClient`,
   * their pending work failing with ClientClosedError), ends every wait for metadata or a
   * connection at once, then closes every connection and timer. Calls made after it
   * fail with ClientClosedError at once.
   */
  async close (): Promise<void> {
    if (this.#closing !== undefined) return await this.#closing
    this.#closed = true
    this.#closing = (async () => {
      const error = new ClientClosedError()
      this.#metadata.close()
      const resources = [...this.#resources]
      this.#resources.clear()
      await Promise.allSettled(resources.map(async resource => await resource.closeWithClient(error)))
      await this.#brokers.close()
    })()
    return await this.#closing
  }

  /**
   * Runs `attempt` against the partition's leader. Errors that prove the request did
   * nothing — a stale leader, a connection that failed before the request was written —
   * refresh metadata and retry until the request timeout; anything else is thrown.
   */
  async #withPartitionRetries<T> (api: string, topic: string, partition: number, purpose: ConnectionPurpose, signal: AbortSignal | undefined,
    attempt: (leader: number, connection: Connection, meta: PartitionMetadata) => Promise<T>): Promise<T> {
    this.#checkOpen()
    try {
      return await this.#partitionAttempts(api, topic, partition, purpose, signal, attempt)
    } catch (error) {
      // The call's bound is requestTimeoutMs, whichever step (metadata, connection) used it up.
      throw restateUnreachable(error, `${api} of ${topic}-${partition}`, { ms: this.requestTimeoutMs, option: 'requestTimeoutMs' })
    }
  }

  async #partitionAttempts<T> (api: string, topic: string, partition: number, purpose: ConnectionPurpose, signal: AbortSignal | undefined,
    attempt: (leader: number, connection: Connection, meta: PartitionMetadata) => Promise<T>): Promise<T> {
    const deadline = this.clock.now() + this.requestTimeoutMs
    for (let tries = 0; ; tries++) {
      const meta = await this.#metadata.waitForLeader(topic, partition, Math.max(0, deadline - this.clock.now()), signal)
      try {
        const connection = await this.#brokers.get(meta.leaderId, purpose, deadline, signal)
        return await attempt(meta.leaderId, connection, meta)
      } catch (error) {
        const retry = error instanceof BrokerError
          ? invalidatesMetadata(error.code) || (error.code === ErrorCode.NOT_ENOUGH_REPLICAS)
          : wasNotWritten(error) && !(signal?.aborted ?? false)
        if (!retry || this.clock.now() >= deadline) throw error
        if (error instanceof BrokerError && invalidatesMetadata(error.code)) await this.#metadata.refresh([topic], signal).catch(() => {})
        const backoffMs = Math.round(Math.min(backoffDelay(tries, this.backoff), Math.max(0, deadline - this.clock.now())))
        this.#retrying({ api, nodeId: meta.leaderId, topic, partition, attempt: tries + 1, backoffMs, error: error as Error })
        await sleep(backoffMs, signal, error, this.clock)
      }
    }
  }

  async #sendTo<Request, Response> (nodeId: number, purpose: ConnectionPurpose, api: Api<Request, Response>, body: Request | ((version: number) => Request),
    options: { signal?: AbortSignal, deadline: number, version?: number, timeoutMs?: number, anyBroker?: boolean }): Promise<Response> {
    this.#checkOpen()
    // For "any broker" requests one connection attempt is enough: the caller moves on to another broker.
    const connection = await this.#brokers.get(nodeId, purpose, options.deadline, options.signal, { once: options.anyBroker === true })
    const version = options.version ?? connection.versionFor(api)
    const resolved = typeof body === 'function' ? (body as (version: number) => Request)(version) : body
    try {
      return await connection.send(api, resolved, { version, signal: options.signal, timeoutMs: options.timeoutMs ?? Math.max(1, options.deadline - this.clock.now()) })
    } catch (error) {
      // A broker that let a request time out is avoided by leastLoadedNode for a backoff.
      if (error instanceof RequestTimeoutError) this.#brokers.noteFailure(nodeId, error)
      throw error
    }
  }

  #checkOpen (): void {
    if (this.#closed) throw new ClientClosedError()
  }
}

function describeAnswered (answered: Array<{ topic: string, partitions: number[] }>): string {
  if (answered.every(t => t.partitions.length === 0)) return 'no partition'
  return answered.flatMap(t => t.partitions.map(p => `${t.topic}-${p}`)).join(', ')
}

/** Checks every option (TypeError/RangeError naming it) and returns the parsed bootstrap addresses. */
function checkClientOptions (options: ClientOptions): Array<{ host: string, port: number }> {
  const where = 'client option'
  checkObject('new Client', 'options', options)
  checkKnownKeys(where, options, CLIENT_OPTIONS, { brokers: 'bootstrap', bootstrapServers: 'bootstrap', timeout: 'requestTimeoutMs', connectionTimeout: 'connectTimeoutMs', ssl: 'tls' })
  const bootstrap = parseBootstrap(options.bootstrap)
  checkString(where, 'clientId', options.clientId)
  checkDuration(where, 'requestTimeoutMs', options.requestTimeoutMs, 1)
  checkDuration(where, 'connectTimeoutMs', options.connectTimeoutMs, 1)
  checkDuration(where, 'metadataMaxAgeMs', options.metadataMaxAgeMs, 1)
  checkInteger(where, 'maxResponseBytes', options.maxResponseBytes, { min: 1024, max: MAX_FRAME_BYTES })
  checkLoggerOptions(where, options.logger, options.logLevel)
  if (options.retryBackoff !== undefined) {
    checkObject(where, 'retryBackoff', options.retryBackoff)
    checkKnownKeys(`${where} retryBackoff.`, options.retryBackoff, ['initialMs', 'maxMs'])
    checkDuration(where, 'retryBackoff.initialMs', options.retryBackoff.initialMs, 1)
    checkDuration(where, 'retryBackoff.maxMs', options.retryBackoff.maxMs, 1)
    if (options.retryBackoff.initialMs === undefined || options.retryBackoff.maxMs === undefined) {
      throw new TypeError(`${where} retryBackoff: expected { initialMs, maxMs } (both integers, initialMs ≤ maxMs), got ${JSON.stringify(options.retryBackoff)}`)
    }
    if (options.retryBackoff.initialMs > options.retryBackoff.maxMs) {
      throw new RangeError(`${where} retryBackoff: initialMs (${options.retryBackoff.initialMs}) must not exceed maxMs (${options.retryBackoff.maxMs})`)
    }
  }
  if (options.tls !== undefined && typeof options.tls !== 'boolean') {
    checkObject(where, 'tls', options.tls)
    checkTlsOptions(where, options.tls)
  }
  if (options.socketFactory !== undefined && typeof options.socketFactory !== 'function') {
    throw new TypeError(`${where} socketFactory: expected a function ({ host, port, tls, onConnect }) => net.Socket, got ${describeValue(options.socketFactory)}`)
  }
  if (options.sasl !== undefined) checkSaslOptions(where, options.sasl)
  return bootstrap
}

function parseBootstrap (value: unknown): Array<{ host: string, port: number }> {
  const expected = "'host:port', a comma-separated string of them or a non-empty array of them, e.g. ['localhost:9092']"
  const list = typeof value === 'string' ? value.split(',') : value
  if (!Array.isArray(list)) throw new TypeError(`client option bootstrap: expected ${expected}, got ${describeValue(value)}`)
  if (list.length === 0) throw new RangeError(`client option bootstrap: expected ${expected}, got an empty array`)
  return list.map((address: unknown, index) => {
    if (typeof address !== 'string') throw new TypeError(`client option bootstrap[${index}]: expected 'host:port', got ${describeValue(address)}`)
    return parseAddress(address, index)
  })
}

function parseAddress (address: string, index: number): { host: string, port: number } {
  const trimmed = address.trim()
  const colon = trimmed.lastIndexOf(':')
  const host = colon === -1 ? trimmed : trimmed.slice(0, colon).replace(/^\[(.*)\]$/, '$1')
  const portText = colon === -1 ? '9092' : trimmed.slice(colon + 1)
  const port = /^[0-9]+$/.test(portText) ? Number(portText) : NaN
  if (host === '' || /\s/.test(host) || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new RangeError(`client option bootstrap[${index}]: expected 'host:port' with a port from 1 to 65535, got ${describeValue(address)}`)
  }
  return { host, port }
}

export { errorCodeInfo }

/**
 * Client: the entry point. It owns the broker connections and the metadata cache, and
 * offers the low-level API — `request` for any implemented API, `produceRaw`,
 * `fetchRaw` and `listOffsets` for one partition. Admin (../admin/) and the producers and
 * consumers are built on top of it.
 * Producers and consumers are built on top of it.
 */
import type { Api } from '../protocol/api'
import { Fetch, type FetchResponse } from '../protocol/apis/fetch'
import { ListOffsets } from '../protocol/apis/list-offsets'
import { Metadata as MetadataApi, type MetadataResponse } from '../protocol/apis/metadata'
import { Produce, type ProduceResponse } from '../protocol/apis/produce'
import type { CompressionCodec } from '../protocol/compression'
import { errorCodeInfo } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { decodeRecordBatches, encodeRecordBatch, type KafkaRecord, type RecordBatch, type RecordInput } from '../protocol/record-batch'
import { backoffDelay, defaultBackoff, sleep, type BackoffOptions } from './backoff'
import { BrokerPool, type ConnectionPurpose } from './brokers'
import type { Connection } from './connection'
import { ClientClosedError, wasNotWritten } from './errors'
import { invalidatesMetadata, MetadataCache, type PartitionMetadata } from './metadata'
import { dropAbortedAndControl, dropControl } from './read-committed'
import type { SaslOptions } from './sasl'
import type * as tls from 'node:tls'

export interface ClientOptions {
  /** Bootstrap brokers, 'host:port' each (or one comma-separated string). */
  bootstrap: string[] | string
  clientId?: string
  /** How long a request may wait for its response (default 30 s). */
  requestTimeoutMs?: number
  connectTimeoutMs?: number
  /** Backoff between retries and reconnects (default 100 ms doubling to 10 s, with jitter). */
  retryBackoff?: BackoffOptions
  /** Refresh metadata of used topics at least this often (default 5 min, as the Java client). */
  metadataMaxAgeMs?: number
  tls?: boolean | tls.ConnectionOptions
  sasl?: SaslOptions
}

export interface RequestOptions {
  /** The broker to send to; any broker when omitted. */
  nodeId?: number
  signal?: AbortSignal
  timeoutMs?: number
  /** Which of the broker's connections to use (default 'admin'). */
  purpose?: ConnectionPurpose
  /** Force a version instead of negotiating. */
  version?: number
}

export type Acks = 'all' | -1 | 0 | 1

export interface ProduceRawOptions {
  topic: string
  partition: number
  /** Records to put in one batch, or `batch`: an encoded record batch v2. */
  records?: RecordInput[]
  batch?: Buffer
  acks?: Acks
  /** How long the broker waits for replication before answering (default 30 s). */
  timeoutMs?: number
  compression?: CompressionCodec
  signal?: AbortSignal
}

export interface ProduceRawResult {
  baseOffset: bigint
  /** The broker's append time for log-append-time topics, -1 otherwise. */
  logAppendTime: bigint
  logStartOffset: bigint
}

export type Isolation = 'read_uncommitted' | 'read_committed'

export interface FetchRawOptions {
  topic: string
  partition: number
  offset: bigint
  /** Most bytes to return for the partition (default 1 MiB); at least one batch always comes back. */
  maxBytes?: number
  /** How long the broker may wait for data (default 500 ms). */
  maxWaitMs?: number
  minBytes?: number
  isolation?: Isolation
  signal?: AbortSignal
}

export interface FetchRawResult {
  records: KafkaRecord[]
  /** The decoded batches, after read_committed filtering and without control batches. */
  batches: RecordBatch[]
  highWatermark: bigint
  lastStableOffset: bigint
  logStartOffset: bigint
  /** The offset to fetch next. */
  nextOffset: bigint
}

export type OffsetSpec = 'earliest' | 'latest' | { timestamp: bigint | number | Date }

export class Client {
  readonly clientId: string
  readonly requestTimeoutMs: number
  readonly backoff: BackoffOptions
  readonly brokers: BrokerPool
  readonly metadata: MetadataCache
  #closed = false

  constructor (options: ClientOptions) {
    const bootstrap = (typeof options.bootstrap === 'string' ? options.bootstrap.split(',') : options.bootstrap).map(parseAddress)
    if (bootstrap.length === 0) throw new TypeError('Client needs at least one bootstrap broker, e.g. { bootstrap: [\'localhost:9092\'] }')
    this.clientId = options.clientId ?? 'kafkats'
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000
    this.backoff = options.retryBackoff ?? defaultBackoff
    this.brokers = new BrokerPool(bootstrap, {
      clientId: this.clientId,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      requestTimeoutMs: this.requestTimeoutMs,
      tls: options.tls,
      sasl: options.sasl
    }, this.backoff)
    this.metadata = new MetadataCache(this.brokers, {
      maxAgeMs: options.metadataMaxAgeMs ?? 300_000,
      requestTimeoutMs: this.requestTimeoutMs,
      backoff: this.backoff
    }, async (nodeId, body, deadline, signal) => await this.#sendTo<any, MetadataResponse>(nodeId, 'admin', MetadataApi, body, { signal, deadline }))
  }

  /**
   * Sends any implemented API's request and returns the decoded response, error codes
   * included (nothing in the body is turned into an exception). `body` may be a function
   * of the negotiated version, for requests whose shape depends on it.
   */
  async request<Request, Response> (api: Api<Request, Response>, body: Request | ((version: number) => Request), options: RequestOptions = {}): Promise<Response> {
    const nodeId = options.nodeId ?? this.#anyBroker(options.purpose ?? 'admin')
    const deadline = Date.now() + (options.timeoutMs ?? this.requestTimeoutMs)
    return await this.#sendTo(nodeId, options.purpose ?? 'admin', api, body, { signal: options.signal, deadline, version: options.version, timeoutMs: options.timeoutMs })
  }

  /** A ready connection to a broker (connecting with backoff until the request timeout). */
  async connection (nodeId: number, purpose: ConnectionPurpose, signal?: AbortSignal): Promise<Connection> {
    this.#checkOpen()
    return await this.brokers.get(nodeId, purpose, Date.now() + this.requestTimeoutMs, signal)
  }

  /** Writes one batch to one partition's leader and returns where it landed. */
  async produceRaw (options: ProduceRawOptions): Promise<ProduceRawResult> {
    const { topic, partition, signal } = options
    const acks = options.acks === 'all' || options.acks === undefined ? -1 : options.acks
    if (options.batch === undefined && options.records === undefined) throw new TypeError('produceRaw needs `records` or an encoded `batch`')
    const records: Buffer = options.batch ?? await encodeRecordBatch({ records: options.records!, compression: options.compression ?? 'none' })
    const timeoutMs = options.timeoutMs ?? 30_000
    return await this.#withPartitionRetries(topic, partition, 'produce', signal, async (leader, connection) => {
      const version = connection.versionFor(Produce)
      const topicData = version >= 13
        ? { name: '', topicId: this.metadata.topic(topic)!.topicId, partitionData: [{ index: partition, records }] }
        : { name: topic, topicId: '00000000-0000-0000-0000-000000000000', partitionData: [{ index: partition, records }] }
      const body = { transactionalId: null, acks, timeoutMs, topicData: [topicData] }
      if (acks === 0) {
        await connection.send(Produce, body, { version, signal, expectResponse: false })
        return { baseOffset: -1n, logAppendTime: -1n, logStartOffset: -1n }
      }
      const response: ProduceResponse = await connection.send(Produce, body, { version, signal, timeoutMs: this.requestTimeoutMs + timeoutMs })
      const p = response.responses[0]?.partitionResponses.find(r => r.index === partition)
      if (p === undefined) throw new BrokerError(-1, `Produce to ${topic}-${partition} on broker ${leader}: the response has no entry for the partition`)
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
    const response = await this.#withPartitionRetries(topic, partition, 'fetch', signal, async (leader, connection, meta) => {
      const version = connection.versionFor(Fetch)
      const topicId = this.metadata.topic(topic)!.topicId
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
      const p = fetched.responses[0]?.partitions.find(r => r.partitionIndex === partition)
      if (p === undefined) throw new BrokerError(-1, `Fetch of ${topic}-${partition} from broker ${leader}: the response has no entry for the partition`)
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
  async listOffsets (options: { topic: string, partition: number, spec: OffsetSpec, isolation?: Isolation, signal?: AbortSignal }): Promise<{ offset: bigint, timestamp: bigint, leaderEpoch: number }> {
    const { topic, partition, spec, signal } = options
    const timestamp = spec === 'earliest' ? -2n : spec === 'latest' ? -1n : BigInt(spec.timestamp instanceof Date ? spec.timestamp.getTime() : spec.timestamp)
    return await this.#withPartitionRetries(topic, partition, 'fetch', signal, async (leader, connection, meta) => {
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

  /** Closes every connection and timer. */
  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.metadata.close()
    await this.brokers.close()
  }

  /**
   * Runs `attempt` against the partition's leader. Errors that prove the request did
   * nothing — a stale leader, a connection that failed before the request was written —
   * refresh metadata and retry until the request timeout; anything else is thrown.
   */
  async #withPartitionRetries<T> (topic: string, partition: number, purpose: ConnectionPurpose, signal: AbortSignal | undefined,
    attempt: (leader: number, connection: Connection, meta: PartitionMetadata) => Promise<T>): Promise<T> {
    this.#checkOpen()
    const deadline = Date.now() + this.requestTimeoutMs
    for (let tries = 0; ; tries++) {
      const topicMeta = await this.metadata.waitForTopic(topic, Math.max(0, deadline - Date.now()), signal)
      const meta = topicMeta.partitions[partition]
      if (meta === undefined) throw new BrokerError(3, `Topic "${topic}" has ${topicMeta.partitions.length} partitions, there is no partition ${partition}`)
      try {
        const connection = await this.brokers.get(meta.leaderId, purpose, deadline, signal)
        return await attempt(meta.leaderId, connection, meta)
      } catch (error) {
        const retry = error instanceof BrokerError
          ? invalidatesMetadata(error.code) || (error.code === 19 /* NOT_ENOUGH_REPLICAS */)
          : wasNotWritten(error) && !(signal?.aborted ?? false)
        if (!retry || Date.now() >= deadline) throw error
        if (error instanceof BrokerError && invalidatesMetadata(error.code)) await this.metadata.refresh([topic], signal).catch(() => {})
        await sleep(Math.min(backoffDelay(tries, this.backoff), Math.max(0, deadline - Date.now())), signal)
      }
    }
  }

  async #sendTo<Request, Response> (nodeId: number, purpose: ConnectionPurpose, api: Api<Request, Response>, body: Request | ((version: number) => Request),
    options: { signal?: AbortSignal, deadline: number, version?: number, timeoutMs?: number }): Promise<Response> {
    this.#checkOpen()
    const connection = await this.brokers.get(nodeId, purpose, options.deadline, options.signal)
    const version = options.version ?? connection.versionFor(api)
    const resolved = typeof body === 'function' ? (body as (version: number) => Request)(version) : body
    return await connection.send(api, resolved, { version, signal: options.signal, timeoutMs: options.timeoutMs ?? Math.max(1, options.deadline - Date.now()) })
  }

  #anyBroker (purpose: ConnectionPurpose): number {
    const ready = this.brokers.readyNodes(purpose)
    if (ready.length > 0) return ready[Math.floor(Math.random() * ready.length)]
    const all = this.brokers.brokers
    return all[Math.floor(Math.random() * all.length)].nodeId
  }

  #checkOpen (): void {
    if (this.#closed) throw new ClientClosedError()
  }
}

function parseAddress (address: string): { host: string, port: number } {
  const trimmed = address.trim()
  const colon = trimmed.lastIndexOf(':')
  const host = colon === -1 ? trimmed : trimmed.slice(0, colon).replace(/^\[(.*)\]$/, '$1')
  const port = colon === -1 ? 9092 : Number(trimmed.slice(colon + 1))
  if (host === '' || !Number.isInteger(port) || port <= 0 || port > 65535) throw new TypeError(`Bad broker address "${address}": expected host:port`)
  return { host, port }
}

export { errorCodeInfo }

/**
 * The metadata cache: brokers, topics, partitions, their leaders and leader epochs (KIP-320).
 *
 * Refreshes are single-flight: callers that ask while one is running wait for the next
 * one that covers their topics. Besides explicit refreshes, the cache refreshes on a
 * timer (`metadataMaxAgeMs`) and when a request fails with an error that means our
 * view is stale (see `invalidatesMetadata`).
 */
import { Metadata as MetadataApi, type MetadataResponse } from '../protocol/apis/metadata'
import { errorCodeInfo } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { backoffDelay, sleep, type BackoffOptions } from './backoff'
import type { BrokerAddress, BrokerPool } from './brokers'
import { UnknownTopicError } from './errors'

export interface PartitionMetadata {
  partition: number
  /** -1 while the partition has no leader. */
  leaderId: number
  leaderEpoch: number
  replicas: number[]
  isr: number[]
  offlineReplicas: number[]
  errorCode: number
}

export interface TopicMetadata {
  name: string
  topicId: string
  isInternal: boolean
  /** Indexed by partition number. */
  partitions: PartitionMetadata[]
}

/** Error codes that mean the cached leader or topic is out of date. */
const STALE_METADATA_CODES = new Set([
  3, // UNKNOWN_TOPIC_OR_PARTITION
  5, // LEADER_NOT_AVAILABLE
  6, // NOT_LEADER_OR_FOLLOWER
  74, // FENCED_LEADER_EPOCH
  75, // UNKNOWN_LEADER_EPOCH
  100, // UNKNOWN_TOPIC_ID
  103 // INCONSISTENT_TOPIC_ID
])

export function invalidatesMetadata (errorCode: number): boolean {
  return STALE_METADATA_CODES.has(errorCode)
}

export interface MetadataOptions {
  /** Refresh the tracked topics at least this often. */
  maxAgeMs: number
  requestTimeoutMs: number
  backoff: BackoffOptions
}

type Send = (nodeId: number, body: object, deadline: number, signal?: AbortSignal) => Promise<MetadataResponse>

export class MetadataCache {
  clusterId: string | null = null
  controllerId = -1
  readonly #topics = new Map<string, TopicMetadata>()
  readonly #topicsById = new Map<string, TopicMetadata>()
  /** Topics the client uses; each refresh asks for all of them. */
  readonly #tracked = new Set<string>()
  readonly #pool: BrokerPool
  readonly #options: MetadataOptions
  readonly #send: Send
  #refreshing: Promise<void> | undefined
  #refreshQueued: Promise<void> | undefined
  #lastRefreshAt = 0
  #timer: NodeJS.Timeout | undefined

  constructor (pool: BrokerPool, options: MetadataOptions, send: Send) {
    this.#pool = pool
    this.#options = options
    this.#send = send
    this.#timer = setInterval(() => {
      if (this.#tracked.size > 0 && Date.now() - this.#lastRefreshAt >= options.maxAgeMs) this.refresh().catch(() => {})
    }, Math.min(options.maxAgeMs, 60_000))
    this.#timer.unref()
  }

  get brokers (): BrokerAddress[] {
    return this.#pool.brokers
  }

  topic (name: string): TopicMetadata | undefined {
    return this.#topics.get(name)
  }

  topicById (topicId: string): TopicMetadata | undefined {
    return this.#topicsById.get(topicId)
  }

  partition (topic: string, partition: number): PartitionMetadata | undefined {
    return this.#topics.get(topic)?.partitions[partition]
  }

  /** Adds topics to those every refresh asks about. */
  track (topics: Iterable<string>): void {
    for (const t of topics) this.#tracked.add(t)
  }

  untrack (topics: Iterable<string>): void {
    for (const t of topics) {
      this.#tracked.delete(t)
    }
  }

  /**
   * Refreshes the tracked topics (plus `topics`). If a refresh is running, waits for it
   * and then for one more that started after this call, so the answer is never older
   * than the call.
   */
  refresh (topics: Iterable<string> = [], signal?: AbortSignal): Promise<void> {
    this.track(topics)
    if (this.#refreshing === undefined) {
      this.#refreshing = this.#doRefresh(signal).finally(() => { this.#refreshing = undefined })
      return this.#refreshing
    }
    if (this.#refreshQueued === undefined) {
      this.#refreshQueued = this.#refreshing.catch(() => {}).then(() => {
        this.#refreshQueued = undefined
        return this.refresh([], signal)
      })
    }
    return this.#refreshQueued
  }

  /** Fetches metadata for every topic in the cluster (not only tracked ones). */
  async refreshAll (signal?: AbortSignal): Promise<string[]> {
    const deadline = Date.now() + this.#options.requestTimeoutMs
    const response = await this.#request(null, deadline, signal)
    this.#apply(response, true)
    return response.topics.filter(t => t.errorCode === 0).map(t => t.name ?? '')
  }

  /**
   * The metadata of `name`, refreshing until the topic exists and each partition has a
   * leader, for at most `waitMs`; then an UnknownTopicError naming the topic.
   */
  async waitForTopic (name: string, waitMs: number, signal?: AbortSignal): Promise<TopicMetadata> {
    const deadline = Date.now() + waitMs
    let attempt = 0
    for (;;) {
      const known = this.#topics.get(name)
      if (known !== undefined && known.partitions.length > 0 && known.partitions.every(p => p !== undefined && p.leaderId >= 0)) return known
      if (attempt > 0 && Date.now() >= deadline) {
        const why = known === undefined ? 'it does not exist in the cluster (create it, or enable auto-creation on the broker)' : 'some of its partitions have no leader'
        throw new UnknownTopicError(name, `Topic "${name}" is not available after waiting ${waitMs} ms: ${why}`)
      }
      if (attempt > 0) await sleep(Math.min(backoffDelay(attempt - 1, this.#options.backoff), Math.max(0, deadline - Date.now())), signal)
      attempt++
      await this.refresh([name], signal).catch(error => {
        if (Date.now() >= deadline) throw error
      })
    }
  }

  async #doRefresh (signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + this.#options.requestTimeoutMs
    const names = [...this.#tracked]
    const response = await this.#request(names.map(name => ({ name, topicId: '00000000-0000-0000-0000-000000000000' })), deadline, signal)
    this.#apply(response, false)
  }

  async #request (topics: Array<{ name: string, topicId: string }> | null, deadline: number, signal?: AbortSignal): Promise<MetadataResponse> {
    let lastError: unknown
    let attempt = 0
    // Try the known brokers in turn: any broker can answer Metadata.
    while (Date.now() < deadline || attempt === 0) {
      const brokers = this.#pool.brokers
      const broker = brokers[attempt % brokers.length]
      try {
        return await this.#send(broker.nodeId, { topics, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }, deadline, signal)
      } catch (error) {
        lastError = error
        if (signal?.aborted === true) throw error
      }
      attempt++
      if (attempt % brokers.length === 0) await sleep(Math.min(backoffDelay(attempt / brokers.length - 1, this.#options.backoff), Math.max(0, deadline - Date.now())), signal)
    }
    throw lastError
  }

  #apply (response: MetadataResponse, all: boolean): void {
    this.#lastRefreshAt = Date.now()
    this.clusterId = response.clusterId
    this.controllerId = response.controllerId
    if (response.brokers.length > 0) {
      this.#pool.setBrokers(response.brokers.map(b => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })))
    }
    const seen = new Set<string>()
    for (const t of response.topics) {
      const name = t.name ?? ''
      if (t.errorCode === 3 || t.errorCode === 100) {
        // The topic does not exist (any more).
        const old = this.#topics.get(name)
        this.#topics.delete(name)
        if (old !== undefined) this.#topicsById.delete(old.topicId)
        continue
      }
      if (t.errorCode !== 0 && t.errorCode !== 5) {
        if (errorCodeInfo(t.errorCode).retriable) continue
        throw new BrokerError(t.errorCode, `Metadata for topic "${name}"`)
      }
      seen.add(name)
      const partitions: PartitionMetadata[] = []
      for (const p of t.partitions) {
        partitions[p.partitionIndex] = {
          partition: p.partitionIndex,
          leaderId: p.errorCode === 5 ? -1 : p.leaderId,
          leaderEpoch: p.leaderEpoch,
          replicas: p.replicaNodes,
          isr: p.isrNodes,
          offlineReplicas: p.offlineReplicas,
          errorCode: p.errorCode
        }
      }
      const previous = this.#topics.get(name)
      const topic: TopicMetadata = { name, topicId: t.topicId, isInternal: t.isInternal, partitions: mergeEpochs(previous, partitions) }
      if (previous !== undefined) this.#topicsById.delete(previous.topicId)
      this.#topics.set(name, topic)
      this.#topicsById.set(topic.topicId, topic)
    }
    if (all) {
      for (const [name, topic] of this.#topics) {
        if (!seen.has(name)) {
          this.#topics.delete(name)
          this.#topicsById.delete(topic.topicId)
        }
      }
    }
  }

  close (): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
  }
}

/**
 * KIP-320: never move a partition back to an older leader epoch. A broker that lags
 * behind the controller may answer with stale metadata; keep the newer view.
 */
function mergeEpochs (previous: TopicMetadata | undefined, next: PartitionMetadata[]): PartitionMetadata[] {
  if (previous === undefined) return next
  for (let i = 0; i < next.length; i++) {
    const old = previous.partitions[i]
    const now = next[i]
    if (old !== undefined && now !== undefined && now.leaderEpoch >= 0 && old.leaderEpoch > now.leaderEpoch) next[i] = old
  }
  return next
}

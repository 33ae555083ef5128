/**
 * The metadata cache: brokers, topics, partitions, their leaders and leader epochs (KIP-320).
 *
 * Refreshes are single-flight: callers that ask while one is running wait for the next
 * one that covers their topics. Besides explicit refreshes, the cache refreshes on a
 * timer (`metadataMaxAgeMs`) and when a request fails with an error that means our
 * view is stale (see `invalidatesMetadata`).
 *
 * Rules:
 * - A topic is its topic id: a topic deleted and re-created under the same name is a new
 *   topic, whose leaders and epochs replace the old ones (the KIP-320 "never go back to an
 *   older epoch" rule applies only within one topic id).
 * - Partitions are stored densely (index = partition number); an answer whose partition
 *   numbers are not exactly 0..n-1 is refused with a ProtocolError.
 * - A topic's non-retriable error (TOPIC_AUTHORIZATION_FAILED, INVALID_TOPIC_EXCEPTION, …)
 *   belongs to that topic alone: the refresh succeeds for the others, the topic stops
 *   being tracked, and only waitForTopic of that topic fails with it.
 * - A topic is usable once its partition count is known; partitions without a leader
 *   (leaderId -1) wait on their own (waitForLeader), they do not hold up the others.
 * - close() ends every wait at once with ClientClosedError.
 */
import type { MetadataRequest, MetadataResponse } from '../protocol/apis/metadata'
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError, ProtocolError } from '../protocol/errors'
import { onAbort } from './abort-signal'
import { abortError, backoffDelay, sleep, timerDelay, type BackoffOptions } from './backoff'
import { systemClock, type Clock, type ClockTimer } from './clock'
import { describeAddress, failureToKeep, restateUnreachable, unreachableError, type BrokerAddress, type BrokerPool, type UnreachableDetails } from './brokers'
import { AbortedError, ClientClosedError, ConnectionError, isRefusedIdentity, RequestTimeoutError, UnknownTopicError } from './errors'
import type { Instrumentation } from './instrumentation'

/** A partition as the cluster's metadata describes it: its leader (and leader epoch), replicas and in-sync replicas. */
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

/** A topic as the cluster's metadata describes it: name, id and partitions. */
export interface TopicMetadata {
  name: string
  topicId: string
  isInternal: boolean
  /** Indexed by partition number. */
  partitions: PartitionMetadata[]
}

/** Error codes that mean the cached leader or topic is out of date. */
const STALE_METADATA_CODES = new Set<number>([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.INCONSISTENT_TOPIC_ID
])

export function invalidatesMetadata (errorCode: number): boolean {
  return STALE_METADATA_CODES.has(errorCode)
}

export interface MetadataOptions {
  /** Refresh the tracked topics at least this often. */
  maxAgeMs: number
  requestTimeoutMs: number
  backoff: BackoffOptions
  /** Leader moves and partition count changes are reported as the Client's events. */
  instrumentation?: Instrumentation
  /** What the max age, backoffs and deadlines are timed on (default: the wall clock). */
  clock?: Clock
}

type Send = (nodeId: number, body: MetadataRequest, deadline: number, signal?: AbortSignal) => Promise<MetadataResponse>

const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

/** A request that got no answer (none in time, or no connection): it says nothing about the topic. */
const unanswered = (error: unknown): boolean => error instanceof RequestTimeoutError || error instanceof ConnectionError

export class MetadataCache {
  clusterId: string | null = null
  controllerId = -1
  readonly #topics = new Map<string, TopicMetadata>()
  readonly #topicsById = new Map<string, TopicMetadata>()
  /** Topics the client uses; each refresh asks for all of them. */
  readonly #tracked = new Set<string>()
  /** The non-retriable error of the latest answer about a topic (cleared when it is asked about again). */
  readonly #topicErrors = new Map<string, BrokerError>()
  readonly #closing = new AbortController()
  readonly #pool: BrokerPool
  readonly #options: MetadataOptions
  readonly #send: Send
  #refreshing: Promise<void> | undefined
  #refreshQueued: Promise<void> | undefined
  /** A double from the start, as the times it takes later (see the producer's #wakeTime). */
  #lastRefreshAt = Number.NEGATIVE_INFINITY
  /** The next check of the max age (re-armed after each). */
  #timer: ClockTimer | undefined
  readonly #clock: Clock
  /** The Metadata requests that failed since the last answer: what a wait that ends before an answer reports. */
  #failing: UnreachableDetails | undefined
  /** Failures of the background refresh already logged (one line per distinct error until a refresh succeeds). */
  readonly #loggedBackgroundFailures = new Set<string>()

  constructor (pool: BrokerPool, options: MetadataOptions, send: Send) {
    this.#pool = pool
    this.#options = options
    this.#send = send
    this.#clock = options.clock ?? systemClock
    this.#checkMaxAgeLater()
  }

  /** Every min(maxAgeMs, 60 s): refreshes the tracked topics once their metadata is maxAgeMs old. */
  #checkMaxAgeLater (): void {
    this.#timer = this.#clock.setTimer(() => {
      if (this.#timer === undefined) return
      if (this.#tracked.size > 0 && this.#clock.now() - this.#lastRefreshAt >= this.#options.maxAgeMs) this.refresh().catch(error => { this.#backgroundRefreshFailed(error) })
      this.#checkMaxAgeLater()
    }, Math.min(this.#options.maxAgeMs, 60_000))
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
    for (const t of topics) {
      this.#tracked.add(t)
      // Asked about again: a fresh answer decides (an ACL may have been granted since).
      this.#topicErrors.delete(t)
    }
  }

  /** The non-retriable error the latest answer gave for `topic` (it is no longer tracked), if any. */
  topicError (topic: string): BrokerError | undefined {
    return this.#topicErrors.get(topic)
  }

  untrack (topics: Iterable<string>): void {
    for (const t of topics) {
      this.#tracked.delete(t)
    }
  }

  /**
   * Refreshes the tracked topics (plus `topics`). If a refresh is running, waits for it
   * and then for one more that started after this call, so the answer is never older
   * than the call. A refresh retries the brokers until `deadline` (epoch ms; default
   * requestTimeoutMs from its start). The one that follows a running refresh is shared by
   * everyone who asked meanwhile, so it is nobody's own: it runs on the client's request
   * timeout, and each caller stops waiting at its own `deadline` (with the error of the
   * failures so far) or `signal`. Bound by the first caller's, it would give the others
   * what was left of that caller's wait once the running refresh ended (a slow broker
   * left 1 ms), and one caller's abort would fail them all.
   */
  refresh (topics: Iterable<string> = [], signal?: AbortSignal, deadline?: number): Promise<void> {
    if (this.#closed) return Promise.reject(new ClientClosedError())
    this.track(topics)
    if (this.#refreshing === undefined) {
      this.#refreshing = this.#closedAware(this.#doRefresh(this.#withClosing(signal), deadline)).finally(() => { this.#refreshing = undefined })
      return this.#refreshing
    }
    this.#refreshQueued ??= this.#refreshing.catch(() => {}).then(() => {
      this.#refreshQueued = undefined
      return this.refresh()
    })
    return deadline === undefined && signal === undefined ? this.#refreshQueued : this.#until(this.#refreshQueued, deadline, signal)
  }

  /** Fetches metadata for every topic in the cluster (not only tracked ones), retrying until `deadline` (default requestTimeoutMs from now). */
  async refreshAll (signal?: AbortSignal, deadline?: number): Promise<string[]> {
    if (this.#closed) throw new ClientClosedError()
    const bound = deadline === undefined ? { ms: this.#options.requestTimeoutMs, option: 'requestTimeoutMs' } : undefined
    const response = await this.#closedAware(this.#request(null, deadline ?? this.#clock.now() + this.#options.requestTimeoutMs, this.#withClosing(signal), bound))
    this.#apply(response, true)
    return response.topics.filter(t => t.errorCode === 0).map(t => t.name ?? '')
  }

  /** `promise`, or at `deadline` the error of the Metadata failures so far, or at `signal`'s abort its AbortedError (the promise goes on for whoever else waits for it). */
  #until<T> (promise: Promise<T>, deadline: number | undefined, signal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(abortError(signal, 'while waiting for a metadata refresh'))
        return
      }
      const timer = deadline === undefined
        ? undefined
        : this.#clock.setTimer(() => {
          stopListening?.()
          const failing = this.#failing
          reject(failing !== undefined && (failing.lastError instanceof ConnectionError || failing.lastError instanceof RequestTimeoutError)
            ? unreachableError('Metadata', failing)
            : new RequestTimeoutError('Metadata: no broker answered before the deadline (a request is still waiting for its answer)', { written: true }))
        }, timerDelay(deadline, this.#clock), { keepAlive: true })
      const stopListening = signal === undefined
        ? undefined
        : onAbort(signal, () => {
          timer?.cancel()
          reject(abortError(signal, 'while waiting for a metadata refresh'))
        })
      promise.then(value => {
        timer?.cancel()
        stopListening?.()
        resolve(value)
      }, error => {
        timer?.cancel()
        stopListening?.()
        reject(error)
      })
    })
  }

  /** A failure of the timer's refresh: nobody waits for it, so it is logged (once per distinct error until a refresh succeeds). */
  #backgroundRefreshFailed (error: unknown): void {
    if (this.#closed) return
    let root = error as { name?: string, message?: string, cause?: unknown } | undefined
    for (let depth = 0; root?.cause instanceof Error && depth < 4; depth++) root = root.cause as typeof root
    const key = `${root?.name ?? ''}: ${root?.message ?? String(error)}`
    if (this.#loggedBackgroundFailures.has(key)) return
    this.#loggedBackgroundFailures.add(key)
    this.#options.instrumentation?.log.warn(`the periodic metadata refresh failed (the cache may be out of date; it is tried again every ${Math.min(this.#options.maxAgeMs, 60_000)} ms)`, { code: 'KAFKATS_METADATA_REFRESH_FAILED', error })
  }

  /**
   * The metadata of `name` once the topic exists (its partition count is known),
   * refreshing for at most `waitMs`; then an UnknownTopicError naming the topic. A
   * non-retriable error of the topic's own (e.g. TOPIC_AUTHORIZATION_FAILED) is thrown
   * at once. Partitions may still lack a leader (leaderId -1): wait for one with
   * `waitForLeader`, or pass `allLeaders` to wait until every partition has one.
   */
  async waitForTopic (name: string, waitMs: number, signal?: AbortSignal, options: { allLeaders?: boolean, waitOption?: string } = {}): Promise<TopicMetadata> {
    const ready = (topic: TopicMetadata): boolean => topic.partitions.length > 0 && (options.allLeaders !== true || topic.partitions.every(p => p.leaderId >= 0))
    return await this.#waitFor(name, waitMs, signal, ready, 'some of its partitions have no leader', options.waitOption)
  }

  /** The metadata of one partition once it has a leader, refreshing for at most `waitMs` (see waitForTopic). */
  async waitForLeader (topic: string, partition: number, waitMs: number, signal?: AbortSignal): Promise<PartitionMetadata> {
    const meta = await this.#waitFor(topic, waitMs, signal, t => partition >= t.partitions.length || t.partitions[partition].leaderId >= 0, `partition ${partition} has no leader`)
    const p = meta.partitions[partition]
    if (p === undefined) throw new UnknownTopicError(topic, `Topic "${topic}" has ${meta.partitions.length} partitions, there is no partition ${partition}`)
    return p
  }

  /** `waitOption`: the option that set `waitMs`, named by the error when no broker answered within it. */
  async #waitFor (name: string, waitMs: number, callerSignal: AbortSignal | undefined, ready: (topic: TopicMetadata) => boolean, notReady: string, waitOption = 'the wait for the topic'): Promise<TopicMetadata> {
    if (this.#closed) throw new ClientClosedError()
    const signal = this.#withClosing(callerSignal)
    const deadline = this.#clock.now() + waitMs
    const bound = { ms: waitMs, option: waitOption }
    let attempt = 0
    let refreshError: unknown
    // A broker answered during this wait: what it said stands when a later ask outlasts the wait.
    let answered = false
    for (;;) {
      const known = this.#topics.get(name)
      const failed = attempt > 0 ? this.#topicErrors.get(name) : undefined
      if (failed !== undefined) throw failed
      if (known !== undefined && ready(known)) return known
      if (attempt > 0 && this.#clock.now() >= deadline) {
        // No broker answered: that is what is true, not that the topic is missing.
        if (refreshError !== undefined && !(answered && unanswered(refreshError))) throw restateUnreachable(refreshError, `Waiting for topic "${name}"`, bound)
        const why = known === undefined ? 'it does not exist in the cluster (create it, or enable auto-creation on the broker)' : notReady
        throw new UnknownTopicError(name, `Topic "${name}" is not available after waiting ${waitMs} ms: ${why}`)
      }
      try {
        if (attempt > 0) await sleep(Math.min(backoffDelay(attempt - 1, this.#options.backoff), Math.max(0, deadline - this.#clock.now())), signal, refreshError, this.#clock)
        attempt++
        refreshError = undefined
        await this.refresh([name], signal, deadline).then(() => { answered = true }, error => {
          if (error instanceof ClientClosedError || isRefusedIdentity(error)) throw error
          // At the deadline an unanswered ask says nothing new (the backoff often leaves the last
          // one next to no time): what a broker answered before stands.
          if (this.#clock.now() >= deadline && !(answered && unanswered(error))) throw error
          refreshError = error
        })
      } catch (error) {
        if (this.#closed) throw new ClientClosedError()
        throw restateUnreachable(error, `Waiting for topic "${name}"`, bound)
      }
    }
  }

  async #doRefresh (signal: AbortSignal | undefined, deadline: number | undefined): Promise<void> {
    const bound = deadline === undefined ? { ms: this.#options.requestTimeoutMs, option: 'requestTimeoutMs' } : undefined
    const names = [...this.#tracked]
    const response = await this.#request(names.map(name => ({ name, topicId: ZERO_UUID })), deadline ?? this.#clock.now() + this.#options.requestTimeoutMs, signal, bound)
    this.#apply(response, false)
  }

  /**
   * One Metadata request to the least-loaded broker; on failure the next one (each broker
   * once, then a backoff), until the deadline. A broker that hangs is left behind: it
   * fails its connection within the connect timeout, and leastLoadedNode avoids it then.
   * Past the deadline, the error names every broker tried and the last failure; `bound` is
   * the deadline's duration and the option that set it, when this request owns it.
   */
  async #request (topics: Array<{ name: string, topicId: string }> | null, deadline: number, signal: AbortSignal | undefined, bound: { ms: number, option: string } | undefined): Promise<MetadataResponse> {
    let lastError: unknown
    let attempts = 0
    let rounds = 0
    let overtime = false
    /** This round's brokers; `roundDone` once each was tried (then a backoff, and a new round). */
    const tried = new Set<number>()
    let roundDone = false
    const addresses = new Set<string>()
    for (;;) {
      // Counted in attempts, not in `tried`: a round's set is emptied after its last broker,
      // so with one broker it was always empty here and the refresh never ended.
      if (attempts > 0 && this.#clock.now() >= deadline) {
        // A broker that let the request time out used up the deadline: one more broker of the round gets a full timeout of its own.
        if (overtime || !(lastError instanceof RequestTimeoutError) || roundDone) break
        overtime = true
        deadline = this.#clock.now() + this.#options.requestTimeoutMs
      }
      // The last round tried every broker: a new round starts.
      if (roundDone) tried.clear()
      const nodeId = this.#pool.leastLoadedNode('admin', tried)
      tried.add(nodeId)
      attempts++
      const address = this.#pool.broker(nodeId)
      const described = address === undefined ? `broker ${nodeId}` : describeAddress(address)
      addresses.add(described)
      const allottedMs = deadline - this.#clock.now()
      try {
        const response = await this.#send(nodeId, { topics, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }, deadline, signal)
        this.#failing = undefined
        this.#loggedBackgroundFailures.clear()
        return response
      } catch (error) {
        // Refused credentials or certificates are refused by every broker, every time.
        if (error instanceof ClientClosedError || isRefusedIdentity(error)) throw error
        if (signal?.aborted === true) throw error instanceof AbortedError && lastError !== undefined ? abortError(signal, 'while retrying Metadata', error.written, lastError) : error
        lastError = failureToKeep(error, lastError, allottedMs, this.#options.requestTimeoutMs)
        const failing = this.#failing
        this.#failing = { brokers: failing?.brokers.includes(described) === false ? [...failing.brokers, described] : failing?.brokers ?? [described], attempts: (failing?.attempts ?? 0) + 1, lastError }
      }
      roundDone = this.#pool.brokers.every(b => tried.has(b.nodeId))
      if (roundDone) await sleep(Math.min(backoffDelay(rounds++, this.#options.backoff), Math.max(0, deadline - this.#clock.now())), signal, lastError, this.#clock)
    }
    // A protocol violation or no common version already says what is wrong: it stays as it is.
    if (!(lastError instanceof ConnectionError || lastError instanceof RequestTimeoutError)) throw lastError
    throw unreachableError('Metadata', { brokers: [...addresses], attempts, lastError }, bound)
  }

  #apply (response: MetadataResponse, all: boolean): void {
    // Check the whole answer before changing anything: a refused answer leaves the cache as it was.
    const parsed = response.topics.map(t => ({ t, partitions: t.errorCode === 0 || t.errorCode === ErrorCode.LEADER_NOT_AVAILABLE ? densePartitions(t) : [] }))
    this.#lastRefreshAt = this.#clock.now()
    this.clusterId = response.clusterId
    this.controllerId = response.controllerId
    if (response.brokers.length > 0) {
      this.#pool.setBrokers(response.brokers.map(b => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })))
    }
    const seen = new Set<string>()
    for (const { t, partitions } of parsed) {
      const name = t.name ?? ''
      if (t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || t.errorCode === ErrorCode.UNKNOWN_TOPIC_ID) {
        // The topic does not exist (any more).
        this.#forget(name)
        continue
      }
      if (t.errorCode !== 0 && t.errorCode !== ErrorCode.LEADER_NOT_AVAILABLE) {
        if (errorCodeInfo(t.errorCode).retriable) continue
        // This topic's own failure: its waiters get it, nobody else's refresh fails.
        this.#topicErrors.set(name, new BrokerError(t.errorCode, `Metadata for topic "${name}"`))
        this.#tracked.delete(name)
        this.#forget(name)
        continue
      }
      seen.add(name)
      this.#topicErrors.delete(name)
      const previous = this.#topics.get(name)
      // Same name, new topic id: the topic was deleted and re-created; nothing of the old one applies.
      const sameTopic = previous !== undefined && previous.topicId === t.topicId
      const topic: TopicMetadata = { name, topicId: t.topicId, isInternal: t.isInternal, partitions: sameTopic ? mergeEpochs(previous, partitions) : partitions }
      if (previous !== undefined) {
        this.#topicsById.delete(previous.topicId)
        this.#reportChanges(previous, topic)
      }
      this.#topics.set(name, topic)
      this.#topicsById.set(topic.topicId, topic)
    }
    if (all) {
      for (const name of this.#topics.keys()) {
        if (!seen.has(name)) this.#forget(name)
      }
    }
  }

  /** The Client's 'leaderChange' and 'partitionCountChange' events, and their debug lines. */
  #reportChanges (previous: TopicMetadata, now: TopicMetadata): void {
    const instrumentation = this.#options.instrumentation
    if (instrumentation === undefined) return
    const { log, events } = instrumentation
    const topic = now.name
    if (previous.partitions.length !== now.partitions.length) {
      log.debug(`partition count ${previous.partitions.length} → ${now.partitions.length}`, { topic })
      events.emit('partitionCountChange', { topic, previousCount: previous.partitions.length, count: now.partitions.length })
    }
    for (const p of now.partitions) {
      const before = previous.partitions[p.partition]
      if (before === undefined || before.leaderId === p.leaderId) continue
      log.debug(`leader ${before.leaderId} → ${p.leaderId} (epoch ${p.leaderEpoch})`, { topic, partition: p.partition })
      events.emit('leaderChange', { topic, partition: p.partition, leaderId: p.leaderId, previousLeaderId: before.leaderId, leaderEpoch: p.leaderEpoch })
    }
  }

  #forget (name: string): void {
    const old = this.#topics.get(name)
    this.#topics.delete(name)
    if (old !== undefined && this.#topicsById.get(old.topicId) === old) this.#topicsById.delete(old.topicId)
  }

  get #closed (): boolean {
    return this.#closing.signal.aborted
  }

  #withClosing (signal: AbortSignal | undefined): AbortSignal {
    return signal === undefined ? this.#closing.signal : AbortSignal.any([signal, this.#closing.signal])
  }

  /** Turns whatever a wait ended with into ClientClosedError once the cache is closed. */
  async #closedAware<T> (promise: Promise<T>): Promise<T> {
    try {
      return await promise
    } catch (error) {
      if (this.#closed) throw new ClientClosedError()
      throw error
    }
  }

  /** Stops the refresh timer and ends every wait with ClientClosedError. */
  close (): void {
    this.#timer?.cancel()
    this.#timer = undefined
    this.#closing.abort(new ClientClosedError())
  }
}

/**
 * The cluster as the client knows it (`client.metadata`): the brokers, topics and
 * partitions of the latest answers, and calls that refresh them or wait for a topic or a
 * leader. A view: which topics the client keeps fresh, and closing the cache, belong to
 * the client.
 */
export interface ClusterMetadata {
  /** The cluster id of the latest answer (null before the first). */
  readonly clusterId: string | null
  /** The controller's node id in the latest answer (-1 before the first). */
  readonly controllerId: number
  /** The brokers of the latest answer (the bootstrap addresses before the first). */
  readonly brokers: BrokerAddress[]
  topic: (name: string) => TopicMetadata | undefined
  topicById: (topicId: string) => TopicMetadata | undefined
  partition: (topic: string, partition: number) => PartitionMetadata | undefined
  /** The non-retriable error the latest answer gave for `topic` (e.g. TOPIC_AUTHORIZATION_FAILED), if any. */
  topicError: (topic: string) => BrokerError | undefined
  /**
   * Asks the brokers again about `topics` (kept fresh from now on) and the topics already
   * in use; never answers with metadata older than the call. Retries the brokers until
   * `deadline` (epoch ms; default requestTimeoutMs from now).
   */
  refresh: (topics?: Iterable<string>, signal?: AbortSignal, deadline?: number) => Promise<void>
  /** Fetches metadata for every topic in the cluster; resolves with the names of those without an error. */
  refreshAll: (signal?: AbortSignal, deadline?: number) => Promise<string[]>
  /**
   * The metadata of `name` once the topic exists, refreshing for at most `waitMs`; then an
   * UnknownTopicError naming the topic. `allLeaders` waits until every partition has a leader.
   */
  waitForTopic: (name: string, waitMs: number, signal?: AbortSignal, options?: { allLeaders?: boolean, waitOption?: string }) => Promise<TopicMetadata>
  /** The metadata of one partition once it has a leader, refreshing for at most `waitMs`. */
  waitForLeader: (topic: string, partition: number, waitMs: number, signal?: AbortSignal) => Promise<PartitionMetadata>
}

/** ClusterMetadata over the client's cache (the client makes it; only the interface is public). */
export class MetadataView implements ClusterMetadata {
  readonly #cache: MetadataCache

  /** @param cache the client's cache this view reads. */
  constructor (cache: MetadataCache) {
    this.#cache = cache
  }

  /** The cluster id of the latest answer (null before the first). */
  get clusterId (): string | null {
    return this.#cache.clusterId
  }

  /** The controller's node id in the latest answer (-1 before the first). */
  get controllerId (): number {
    return this.#cache.controllerId
  }

  /** The brokers of the latest answer (the bootstrap addresses before the first). */
  get brokers (): BrokerAddress[] {
    return this.#cache.brokers
  }

  topic (name: string): TopicMetadata | undefined {
    return this.#cache.topic(name)
  }

  topicById (topicId: string): TopicMetadata | undefined {
    return this.#cache.topicById(topicId)
  }

  partition (topic: string, partition: number): PartitionMetadata | undefined {
    return this.#cache.partition(topic, partition)
  }

  /** The non-retriable error the latest answer gave for `topic` (e.g. TOPIC_AUTHORIZATION_FAILED), if any. */
  topicError (topic: string): BrokerError | undefined {
    return this.#cache.topicError(topic)
  }

  /**
   * Asks the brokers again about `topics` (kept fresh from now on) and the topics already
   * in use; never answers with metadata older than the call. Retries the brokers until
   * `deadline` (epoch ms; default requestTimeoutMs from now).
   */
  async refresh (topics: Iterable<string> = [], signal?: AbortSignal, deadline?: number): Promise<void> {
    await this.#cache.refresh(topics, signal, deadline)
  }

  /** Fetches metadata for every topic in the cluster; resolves with the names of those without an error. */
  async refreshAll (signal?: AbortSignal, deadline?: number): Promise<string[]> {
    return await this.#cache.refreshAll(signal, deadline)
  }

  /**
   * The metadata of `name` once the topic exists, refreshing for at most `waitMs`; then an
   * UnknownTopicError naming the topic. `allLeaders` waits until every partition has a leader.
   */
  async waitForTopic (name: string, waitMs: number, signal?: AbortSignal, options: { allLeaders?: boolean, waitOption?: string } = {}): Promise<TopicMetadata> {
    return await this.#cache.waitForTopic(name, waitMs, signal, options)
  }

  /** The metadata of one partition once it has a leader, refreshing for at most `waitMs`. */
  async waitForLeader (topic: string, partition: number, waitMs: number, signal?: AbortSignal): Promise<PartitionMetadata> {
    return await this.#cache.waitForLeader(topic, partition, waitMs, signal)
  }
}

/**
 * A topic's partitions indexed by partition number, refusing an answer whose numbers are
 * not exactly 0..n-1 (a hostile or buggy index such as 2147483647 would otherwise make a
 * sparse array that every walk over the partitions crawls through).
 */
function densePartitions (t: MetadataResponse['topics'][number]): PartitionMetadata[] {
  const count = t.partitions.length
  const partitions = new Array<PartitionMetadata | undefined>(count).fill(undefined)
  for (const p of t.partitions) {
    const index = p.partitionIndex
    if (!Number.isInteger(index) || index < 0 || index >= count || partitions[index] !== undefined) {
      throw new ProtocolError(`Metadata for topic "${t.name ?? t.topicId}" lists ${count} partitions but has partition number ${index}${index >= 0 && index < count ? ' twice' : ''}: partitions must be numbered 0 to ${count - 1}; refusing the answer`)
    }
    partitions[index] = {
      partition: index,
      leaderId: p.errorCode === ErrorCode.LEADER_NOT_AVAILABLE ? -1 : p.leaderId,
      leaderEpoch: p.leaderEpoch,
      replicas: p.replicaNodes,
      isr: p.isrNodes,
      offlineReplicas: p.offlineReplicas,
      errorCode: p.errorCode
    }
  }
  return partitions as PartitionMetadata[]
}

/**
 * KIP-320: never move a partition back to an older leader epoch. A broker that lags
 * behind the controller may answer with stale metadata; keep the newer view. Only within
 * one topic id: a re-created topic starts its epochs again.
 */
function mergeEpochs (previous: TopicMetadata, next: PartitionMetadata[]): PartitionMetadata[] {
  for (let i = 0; i < next.length; i++) {
    const old = previous.partitions[i]
    const now = next[i]
    if (old !== undefined && now !== undefined && now.leaderEpoch >= 0 && old.leaderEpoch > now.leaderEpoch) next[i] = old
  }
  return next
}

/**
 * Source: the fetch inbox of one broker (franz-go's name). It loops: take the cursors
 * this broker serves that are ready to fetch, send one Fetch (within a fetch session),
 * use each partition's answer (decode, read_committed filter, truncation, errors), and
 * go again. One Fetch is in flight per broker at a time, as in the Java client.
 *
 * A cursor is marked `inFetch` while a request carrying it is out, so no other source
 * fetches it at the same time when its leader moves; an answer whose cursor `version`
 * changed meanwhile (a seek, reset or truncation) is dropped.
 *
 * A long poll in flight can be ended early (`endLongPoll`): a partition that gets a fetch
 * position while its broker holds the poll (fetch-scheduling.ts) would otherwise wait up
 * to maxWaitMs, and so would close(). Kafka answers a connection's requests one at a
 * time, so the next request cannot go out beside the poll on the same connection: the
 * poll's connection is closed (its answer is never read, so nothing of it is handed out)
 * and the next Fetch goes out at once on a new one, in a new session (the old id with
 * epoch 0 closes the old session, as after any failed Fetch).
 *
 * Errors never make a loop spin: an answer that cannot be used (undecodable bytes, a
 * partition or topic that was not asked for) and a retriable per-partition error back off
 * (the whole source, or that partition: `Cursor.retryAt`) and are reported as a
 * `fetchError` event; only errors no retry can fix (authorization, an unsupported
 * version) fail the consumer.
 */
import type { Client } from '../client/client'
import { backoffDelay, sleep } from '../client/backoff'
import type { ClockTimer } from '../client/clock'
import type { ConnectionPurpose } from '../client/brokers'
import { clockTimeout } from '../client/clock'
import type { Connection } from '../client/connection'
import { invalidatesMetadata } from '../client/metadata'
import { dropAbortedAndControl, dropControl } from '../client/read-committed'
import { Fetch, type FetchPartitionResponse, type FetchRequest, type FetchResponse } from '../protocol/apis/fetch'
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError, KafkaTsError, ProtocolError } from '../protocol/errors'
import { decodeScannedBatches, RECORD_MEMORY_OVERHEAD, scanRecordBatches, type RecordBatch, type ScannedBatch } from '../protocol/record-batch'
import type { BufferedBatch, Cursor, PrefetchAccount } from './cursor'
import { FetchSession, type SessionPartition } from './fetch-session'
import { internal } from '../client/internal'

const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

export interface FetchSettings {
  maxWaitMs: number
  minBytes: number
  maxBytes: number
  maxPartitionBytes: number
  isolationLevel: 0 | 1
  rack: string
  /** Where to go when an offset is out of range or the log was truncated; 'none' fails the consumer. */
  offsetReset: 'earliest' | 'latest' | 'none'
  /** Answers with only markers or aborted data become batches without records (FetchOptions.emptyBatches). */
  emptyBatches: boolean
}

/** The `truncation` event's payload: a partition's log was truncated below where this consumer was (KIP-320), and it resumes at `resumeOffset`. */
export interface TruncationEvent {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** Where we were about to fetch. */
  fetchOffset: bigint
  /** The end of the leader's log for our last fetched epoch: fetching resumes here. */
  resumeOffset: bigint
}

/** A Fetch answer (or one partition of it) that could not be used; fetching goes on after `retryInMs`. */
export interface FetchErrorEvent {
  /** The broker asked. */
  nodeId: number
  /** The partition concerned; undefined when the whole answer could not be used. */
  topic: string | undefined
  /** The partition's number; undefined when the whole answer could not be used. */
  partition: number | undefined
  /** Why it could not be used. */
  error: Error
  /** When that partition (or this broker's source) is fetched again. */
  retryInMs: number
}

/** One Fetch request answered (event 'fetch' of the consumer, emitted only while someone listens). */
/** The longest a Fetch may wait for data while a partition of its broker waits for buffer room. */
export const HELD_BACK_MAX_WAIT_MS = 100

/** The `fetch` event's payload: one Fetch answered, how long it took and how many partitions had records. */
export interface FetchEvent {
  /** The broker asked. */
  nodeId: number
  /** Partitions the answer carried records for. */
  partitionsWithRecords: number
  /** From sending the Fetch to its answer, in ms (the broker's wait for data included). */
  durationMs: number
}

export interface SourceHost {
  /** Cursors this broker should fetch now (leader or preferred replica, not paused, not backing off, with room in the buffer). */
  fetchable: (nodeId: number) => Cursor[]
  /**
   * Some partition of this broker is left out of the next Fetch only until the application
   * takes its buffered records: a long poll of the others would keep it waiting up to maxWaitMs.
   */
  heldBack: (nodeId: number) => boolean
  /** The cursor is still the consumer's, at `version` (no seek, reset or removal since). */
  isCurrent: (cursor: Cursor, version: number) => boolean
  /** A buffered batch holds at most these (a record batch is never split): answers are appended to the last while the application is behind, and split past them. */
  readonly maxBatchRecords: number
  readonly maxBatchBytes: number
  /** A batch was buffered: wake the readers. */
  buffered: () => void
  truncated: (event: TruncationEvent) => void
  fetchError: (event: FetchErrorEvent) => void
  /** Fetch requests are observed ('fetchStart' / 'fetch' events): call fetchStarted and fetched. */
  readonly observed: boolean
  fetchStarted: (nodeId: number) => void
  fetched: (event: FetchEvent) => void
  /** Ends the consumer with an error no retry can fix. */
  fail: (error: Error) => void
  /** Leaders may have moved: refresh metadata soon (and start sources for new leaders). */
  refreshMetadata: () => void
  /** A cursor's fetch broker changed (preferred replica): start its source. */
  startSources: () => void
  /** Resolve the cursor's `resetTo` (ListOffsets). */
  resolve: (cursor: Cursor) => void
  /** A fetch let go of its cursors, or a backoff ended: sources may have work. */
  released: () => void
  /** Goes up whenever there may be new work (a hand-out freed room, a seek, a resume...). */
  readonly workVersion: number
  /** Resolves when there may be something to fetch: at once if `workVersion` moved past `since`. */
  waitForWork: (signal: AbortSignal, since: number) => Promise<void>
}

/** A Fetch waiting for its answer with maxWaitMs > 0: what it carries, and whether it was ended early. */
export interface LongPoll {
  readonly connection: Connection
  readonly cursors: readonly Cursor[]
  /** Each cursor's version when the request was built (a seek since makes its answer useless). */
  readonly versions: readonly number[]
  ended: boolean
}

/** A fetch session's epoch in the request that closes it (KIP-227). */
const FINAL_EPOCH = -1

/** Answers in a row without one complete batch before a partition's stall is reported. */
const REPORT_NO_PROGRESS_AFTER = 3

export class Source {
  readonly nodeId: number
  readonly #client: Client
  readonly #host: SourceHost
  readonly #settings: FetchSettings
  readonly #session = new FetchSession()
  readonly #stop = new AbortController()
  #running: Promise<void> | undefined
  #failures = 0
  /** Wakes the sources when the earliest partition backoff of this source ends. */
  #retryTimer: ClockTimer | undefined
  #retryTimerAt = Infinity
  /** The Fetch in flight while it long-polls (undefined otherwise). */
  #longPoll: LongPoll | undefined
  /** The connection of the last Fetch. */
  #connection: Connection | undefined

  readonly #purpose: ConnectionPurpose
  /** The consumer's prefetch account (every cursor of a consumer shares one), for requests that carry no cursor. */
  #account: PrefetchAccount | undefined

  constructor (nodeId: number, client: Client, host: SourceHost, settings: FetchSettings, purpose: ConnectionPurpose = 'fetch') {
    this.nodeId = nodeId
    this.#purpose = purpose
    this.#client = client
    this.#host = host
    this.#settings = settings
  }

  /**
   * Starts the loop, and connects at once rather than when the first partition has a
   * position: the connection's setup (connect, ApiVersions, SASL) overlaps the offset
   * lookups of a new assignment (which go on this connection too, offset-resolution.ts)
   * instead of following them.
   */
  start (): void {
    if (this.#running !== undefined) return
    this.#client[internal].connection(this.nodeId, this.#purpose, this.#stop.signal).catch(() => {})
    this.#running = this.#loop()
  }

  /** The Fetch in flight while it long-polls: what it carries (read only). */
  get longPoll (): Omit<LongPoll, 'connection' | 'ended'> | undefined {
    return this.#longPoll
  }

  /**
   * Ends the long poll in flight, if any: its connection is closed (the answer is never
   * read) and the loop fetches again at once, in a new session. Returns whether there was one.
   */
  endLongPoll (): boolean {
    const poll = this.#longPoll
    if (poll === undefined) return false
    this.#longPoll = undefined
    poll.ended = true
    poll.connection.close()
    return true
  }

  /**
   * Ends the loop (and a long poll in flight, whose answer is dropped), then closes the
   * broker's fetch session (final epoch), so it does not wait for eviction.
   */
  async stop (): Promise<void> {
    this.#stop.abort()
    this.#retryTimer?.cancel()
    // The poll would hold the connection, and the session's closing request behind it, up to maxWaitMs.
    this.endLongPoll()
    await this.#running
    await this.#closeSession()
  }

  async #closeSession (): Promise<void> {
    const sessionId = this.#session.close()
    if (sessionId === 0) return
    // Best effort, within a bound: no long poll holds the connection any more (stop() ended it).
    const timeoutMs = Math.min(this.#client.requestTimeoutMs, this.#settings.maxWaitMs + 2000)
    const signal = clockTimeout(this.#client.clock, timeoutMs)
    try {
      // A session is not bound to a connection (KIP-227): an idle one of this client's spares
      // making a new one (stop() closed the long poll's).
      const brokers = this.#client[internal].brokers
      const connection = brokers.idleConnection(this.nodeId) ?? await brokers.get(this.nodeId, this.#purpose, this.#client.clock.now() + timeoutMs, signal)
      await connection.send(Fetch, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: this.#settings.maxBytes,
        isolationLevel: this.#settings.isolationLevel,
        sessionId,
        sessionEpoch: FINAL_EPOCH,
        topics: [],
        forgottenTopicsData: [],
        rackId: this.#settings.rack
      }, { version: connection.versionFor(Fetch), signal, timeoutMs })
    } catch {
      // Best effort: the broker evicts a session nobody uses.
    }
  }

  async #loop (): Promise<void> {
    const signal = this.#stop.signal
    while (!signal.aborted) {
      // Taken before looking for work, so a wake-up that comes while we fetch is not missed.
      const since = this.#host.workVersion
      let cursors = this.#host.fetchable(this.nodeId)
      const sessionOpen = this.#session.id !== 0 && this.#session.epoch !== 0
      if (cursors.length === 0 && !sessionOpen) {
        await this.#host.waitForWork(signal, since).catch(() => {})
        continue
      }
      /** What this Fetch carries, marked inFetch (none while connecting: another source may take them meanwhile). */
      let held: Cursor[] = []
      try {
        const connection = await this.#client[internal].brokers.get(this.nodeId, this.#purpose, this.#client.clock.now() + this.#client.requestTimeoutMs, signal)
        // A new connection (the first, or after a failure or an ended long poll) took round
        // trips to make: partitions positioned meanwhile go in this Fetch. From here to the
        // request's write nothing awaits, so a later position finds the poll to end.
        if (connection !== this.#connection) {
          this.#connection = connection
          cursors = this.#host.fetchable(this.nodeId)
          if (cursors.length === 0 && !sessionOpen) continue
        }
        held = cursors
        for (const c of held) c.inFetch = true
        const versions = held.map(c => c.version)
        const startedAt = this.#host.observed ? Date.now() : 0
        if (startedAt !== 0) this.#host.fetchStarted(this.nodeId)
        const response = await this.#fetch(connection, cursors, versions, signal)
        if (response !== undefined) await this.#onResponse(cursors, versions, response)
        if (startedAt !== 0 && response !== undefined) {
          let partitions = 0
          for (const t of response.responses) for (const p of t.partitions) if (p.records !== null && p.records.length > 0) partitions++
          this.#host.fetched({ nodeId: this.nodeId, partitionsWithRecords: partitions, durationMs: Date.now() - startedAt })
        }
        this.#failures = 0
        // An empty session (everything paused or buffered): wait for work instead of spinning.
        if (cursors.length === 0) await this.#host.waitForWork(signal, since).catch(() => {})
      } catch (error) {
        if (signal.aborted) break
        this.#session.restart()
        // Let go of the cursors before backing off: their leader may have moved, and the
        // new leader's source must be able to take them now, not after our sleep.
        for (const c of held) c.inFetch = false
        const delay = backoffDelay(this.#failures++, this.#client.backoff)
        this.#onSourceError(cursors, error as Error, delay)
        await sleep(delay, signal, undefined, this.#client.clock).catch(() => {})
      } finally {
        for (const c of held) c.inFetch = false
        // Another source may have skipped these cursors while we held them.
        if (held.length > 0) this.#host.released()
      }
    }
  }

  /**
   * Checks that the answer names only partitions that were asked for (a wrong one is a
   * ProtocolError: the whole answer is suspect), then uses each partition's part.
   */
  async #onResponse (cursors: Cursor[], versions: number[], response: FetchResponse): Promise<void> {
    const index = new Map(cursors.map((c, i) => [c.key, i]))
    const namesById = new Map<string, string>()
    for (const c of cursors) {
      const id = this.#client.metadata.topic(c.topic)?.topicId
      if (id !== undefined) namesById.set(id, c.topic)
    }
    const parts: Array<{ i: number, p: FetchPartitionResponse }> = []
    for (const topic of response.responses) {
      const name = topic.topic !== '' ? topic.topic : namesById.get(topic.topicId)
      if (name === undefined) throw new ProtocolError(`Fetch answer from broker ${this.nodeId} carries topic id ${topic.topicId}, which was not asked for`)
      for (const p of topic.partitions) {
        const i = index.get(`${name}-${p.partitionIndex}`)
        if (i === undefined) throw new ProtocolError(`Fetch answer from broker ${this.nodeId} carries ${name}-${p.partitionIndex}, which was not asked for`)
        parts.push({ i, p })
      }
    }
    for (const { i, p } of parts) await this.#onPartition(cursors[i], versions[i], p)
  }

  async #onPartition (cursor: Cursor, version: number, response: FetchPartitionResponse): Promise<void> {
    const host = this.#host
    if (!host.isCurrent(cursor, version)) return
    if (response.errorCode !== 0) {
      this.#onPartitionError(cursor, response)
      return
    }
    cursor.highWatermark = response.highWatermark
    if (response.preferredReadReplica >= 0 && response.preferredReadReplica !== cursor.preferredReplica) {
      cursor.preferredReplica = response.preferredReadReplica
      host.startSources()
    }
    // KIP-320: the leader's log diverged from what we fetched (an unclean leader change).
    if (response.divergingEpoch.epoch >= 0 && response.divergingEpoch.endOffset >= 0n && cursor.fetchOffset !== undefined) {
      const resumeOffset = response.divergingEpoch.endOffset < cursor.fetchOffset ? response.divergingEpoch.endOffset : cursor.fetchOffset
      this.#truncate(cursor, resumeOffset, response.divergingEpoch.epoch)
      return
    }
    const records = response.records
    if (records === null || records.length === 0 || cursor.fetchOffset === undefined) {
      cursor.fetchFailures = 0
      return
    }
    const fetchOffset = cursor.fetchOffset
    const context = { topic: cursor.topic, partition: cursor.partition }
    let scanned: ScannedBatch[]
    try {
      // Headers only (bounds and CRC checked): records are decoded when the batch is handed
      // out, so they are young garbage by the time the application is done with them.
      scanned = scanRecordBatches(records, context)
      // read_committed tells aborts from commits by the markers: a compressed control
      // batch (Kafka writes none) is decoded now.
      if (this.#settings.isolationLevel === 1 && scanned.some(b => b.batch.isControl && !b.decoded)) {
        await decodeScannedBatches(scanned.filter(b => b.batch.isControl), context)
      }
    } catch (error) {
      // Bad bytes: report and back off this partition rather than loop on them or end the consumer.
      this.#backOff(cursor, error as Error, true)
      return
    }
    if (!host.isCurrent(cursor, version)) return
    if (scanned.length === 0) {
      // Bytes but no complete batch: the broker cut the first batch at a size limit (it
      // does for any partition but the first with data), or the answer lies about a
      // batch length. Either way: not at once again.
      this.#backOff(cursor, new ProtocolError(`Fetch answers of ${cursor.key} at offset ${fetchOffset} held ${records.length} bytes but no complete record batch ${REPORT_NO_PROGRESS_AFTER} times in a row: a batch larger than maxPartitionBytes/maxBytes (${this.#settings.maxPartitionBytes}/${this.#settings.maxBytes}) or a batch length beyond the answer`), cursor.fetchFailures + 1 >= REPORT_NO_PROGRESS_AFTER)
      return
    }
    cursor.fetchFailures = 0
    // One hand-out decodes at most maxBufferedBytes of this answer (the first batch always,
    // so fetching moves on): a batch that decompresses far past its wire size waits for a later fetch.
    keepWithin(scanned, cursor.account.maxBytes)
    const last = scanned[scanned.length - 1].batch
    const nextOffset = last.baseOffset + BigInt(last.lastOffsetDelta) + 1n
    if (nextOffset <= fetchOffset) return
    const kept = this.#settings.isolationLevel === 1 ? dropAbortedAndControl(scanned, response.abortedTransactions) : dropControl(scanned)
    // What memory holds until hand-out: the answer's buffer, counted whole by the account
    // while a buffered batch views it (records decoded at arrival hold their objects too);
    // what the records will take once decoded is estimated from the headers.
    let count = 0
    let decodedBytes = 0
    let viewBytes = 0
    let pendingFrom = 0
    for (let i = 0; i < kept.length; i++) {
      const b = kept[i]
      const header = b.batch
      if (header.baseOffset + BigInt(header.lastOffsetDelta) < fetchOffset) {
        pendingFrom = i + 1
        continue
      }
      count += header.recordCount
      decodedBytes += decodedCost(b)
      viewBytes += wireBytes(header)
    }
    cursor.account.noteAnswer(viewBytes, decodedBytes)
    // The application is behind (the last answer still waits): append to it, up to the
    // batch limits, rather than handing out one small batch per fetch answer.
    const waiting = cursor.buffered[cursor.buffered.length - 1]
    const merge = waiting !== undefined && waiting.version === version && waiting.recordCount > 0 &&
      waiting.recordCount + count <= host.maxBatchRecords && waiting.bytes + decodedBytes <= host.maxBatchBytes
    const fetchedEpoch = cursor.lastFetchedEpoch
    cursor.fetchOffset = nextOffset
    cursor.lastFetchedEpoch = last.partitionLeaderEpoch
    if (count === 0 && !(this.#settings.emptyBatches && !merge)) {
      // Only control records or aborted data: the position moves on and nothing is handed out.
      if (cursor.processing === undefined && cursor.buffered.length === 0) cursor.processedOffset = nextOffset
      return
    }
    const newEntry = (from: bigint): BufferedBatch => ({ highWatermark: response.highWatermark, nextOffset, bytes: 0, ownBytes: 0, viewBytes: 0, pins: [], version, pending: [], recordCount: 0, fetchedFrom: from, fetchedEpoch, moreOfAnswer: false })
    let entry: BufferedBatch
    if (merge) {
      entry = waiting
      entry.nextOffset = nextOffset
      entry.highWatermark = response.highWatermark
    } else {
      entry = newEntry(fetchOffset)
      if (count === 0) entry.skippedFrom = scanned[0].batch.baseOffset > fetchOffset ? scanned[0].batch.baseOffset : fetchOffset
    }
    // An answer past the batch limits is buffered in parts, split between record batches
    // (never inside one): a hand-out decodes all its records at once and they stay alive
    // until the handler is done, so a big fetch handed out whole outlives the young
    // generation and costs far more collection per record.
    for (let i = pendingFrom; i < kept.length; i++) {
      const b = kept[i]
      const header = b.batch
      const cost = decodedCost(b)
      if (entry.recordCount > 0 && (entry.recordCount + header.recordCount > host.maxBatchRecords || entry.bytes + cost > host.maxBatchBytes)) {
        entry.nextOffset = header.baseOffset
        entry.moreOfAnswer = true
        entry = newEntry(header.baseOffset)
      }
      entry.pending.push(b)
      entry.recordCount += header.recordCount
      cursor.push(entry, cost, decodedOwnBytes(b), records.buffer, wireBytes(header))
    }
    // Only markers or aborted data (emptyBatches): the batch that reports them.
    if (pendingFrom >= kept.length) cursor.push(entry, 0, 0, records.buffer, 0)
    host.buffered()
  }

  #truncate (cursor: Cursor, resumeOffset: bigint, epoch: number): void {
    const event: TruncationEvent = { topic: cursor.topic, partition: cursor.partition, fetchOffset: cursor.fetchOffset!, resumeOffset }
    if (this.#settings.offsetReset === 'none') {
      this.#host.fail(new KafkaTsError('LOG_TRUNCATION', `The log of ${cursor.key} was truncated below offset ${cursor.fetchOffset} (to ${resumeOffset}) by a leader change: records this consumer read may be gone`))
      return
    }
    cursor.seek(resumeOffset)
    cursor.lastFetchedEpoch = epoch
    this.#host.truncated(event)
    this.#host.released()
  }

  #onPartitionError (cursor: Cursor, response: FetchPartitionResponse): void {
    const code = response.errorCode
    if (cursor.preferredReplica >= 0) {
      // A follower could not serve us: go back to the leader.
      cursor.preferredReplica = -1
      this.#host.startSources()
      return
    }
    const error = new BrokerError(code, `Fetch of ${cursor.key} at offset ${String(cursor.fetchOffset)} from broker ${this.nodeId}`)
    if (code === ErrorCode.OFFSET_OUT_OF_RANGE) {
      if (this.#settings.offsetReset === 'none') {
        this.#host.fail(new BrokerError(code, `Fetch of ${cursor.key} at offset ${String(cursor.fetchOffset)} (offsetReset is 'none')`))
        return
      }
      cursor.seek(this.#settings.offsetReset)
      this.#host.resolve(cursor)
      return
    }
    if (invalidatesMetadata(code) || LEADER_MOVED_CODES.has(code)) {
      // Routine during leader changes: no event, a short backoff until metadata says more.
      this.#host.refreshMetadata()
      this.#backOff(cursor, error, false)
      return
    }
    if (isRetriableFetchError(code)) {
      this.#backOff(cursor, error, true)
      return
    }
    this.#host.fail(error)
  }

  /** Keeps the partition out of fetches for a growing while; optionally reports why. */
  #backOff (cursor: Cursor, error: Error, report: boolean): void {
    const delay = backoffDelay(cursor.fetchFailures++, this.#client.backoff)
    cursor.retryAt = this.#client.clock.now() + Math.ceil(delay)
    if (report) this.#host.fetchError({ nodeId: this.nodeId, topic: cursor.topic, partition: cursor.partition, error, retryInMs: Math.round(delay) })
    this.#wakeAt(cursor.retryAt)
  }

  #wakeAt (at: number): void {
    if (this.#stop.signal.aborted || at >= this.#retryTimerAt) return
    this.#retryTimer?.cancel()
    this.#retryTimerAt = at
    const clock = this.#client.clock
    this.#retryTimer = clock.setTimer(() => {
      this.#retryTimerAt = Infinity
      this.#retryTimer = undefined
      this.#host.released()
      // Timers may fire a millisecond before Date.now() reaches `at`.
    }, Math.max(0, at - clock.now()) + 2, { keepAlive: true })
  }

  /** The request failed as a whole: its cursors may move to another broker; report what no one would see otherwise. */
  #onSourceError (cursors: Cursor[], error: Error, retryInMs: number): void {
    for (const c of cursors) c.preferredReplica = -1
    if (error instanceof BrokerError && !isRetriableFetchError(error.code)) {
      this.#host.fail(error)
      return
    }
    if (error instanceof KafkaTsError && !error.retriable && error.kind !== 'CONNECTION' && error.kind !== 'TIMEOUT' && !(error instanceof ProtocolError)) {
      this.#host.fail(error)
      return
    }
    // A lost connection is routine (a broker restarts, a leader moves) until it keeps happening.
    if (!(error instanceof KafkaTsError) || error.kind !== 'CONNECTION' || this.#failures >= REPORT_NO_PROGRESS_AFTER) {
      this.#host.fetchError({ nodeId: this.nodeId, topic: undefined, partition: undefined, error, retryInMs: Math.round(retryInMs) })
    }
    this.#host.refreshMetadata()
  }

  /** Sends one Fetch of `cursors` and returns its answer; undefined when there is none to use (the session was reset, or the long poll ended early). */
  async #fetch (connection: Connection, cursors: Cursor[], versions: number[], signal: AbortSignal): Promise<FetchResponse | undefined> {
    const version = connection.versionFor(Fetch)
    const useSessions = version >= 7
    if (!useSessions) this.#session.forget()
    // Asks for no more than the room left in the consumer's buffer (in wire bytes, by what
    // a wire byte has been costing), so one answer cannot bring more than the bound. Each
    // partition asks for maxPartitionBytes as it is (a wire limit, as in the Java client),
    // or less when the buffer's room is smaller: shrinking it by the memory a wire byte
    // costs cut kafkajs's maxBytesPerPartition 180 to 90, short of a batch and its marker.
    const settings = this.#settings
    const account = this.#account = cursors[0]?.account ?? this.#account
    const requestBytes = account === undefined ? settings.maxBytes : account.fetchBytes(settings.maxBytes)
    // At least 1: Kafka returns the first partition's first batch whole whatever the limits.
    const partitionBytes = Math.max(1, Math.min(settings.maxPartitionBytes, requestBytes))
    const wanted = new Map<string, SessionPartition>()
    for (const c of cursors) {
      const meta = this.#client.metadata.partition(c.topic, c.partition)
      wanted.set(c.key, {
        topic: c.topic,
        topicId: this.#client.metadata.topic(c.topic)?.topicId ?? ZERO_UUID,
        partition: c.partition,
        fetchOffset: c.fetchOffset!,
        lastFetchedEpoch: c.lastFetchedEpoch,
        currentLeaderEpoch: meta?.leaderEpoch ?? -1,
        maxBytes: partitionBytes
      })
    }
    const { include, forget } = this.#session.build(wanted)
    const byId = version >= 13
    const group = <T extends { topic: string, topicId: string }>(items: T[]): Map<string, T[]> => {
      const map = new Map<string, T[]>()
      for (const item of items) {
        const list = map.get(item.topic)
        if (list === undefined) map.set(item.topic, [item])
        else list.push(item)
      }
      return map
    }
    const request: FetchRequest = {
      replicaId: -1,
      // A partition left out for want of room comes back as soon as the application takes
      // its records; the broker must not hold the others' empty poll for the whole maxWaitMs
      // meanwhile (kafkajs's default is 5 s), or that partition's backlog waits as long.
      // A request that opens a session is answered at once (FetchSession.opening).
      maxWaitMs: useSessions && this.#session.opening ? 0 : this.#host.heldBack(this.nodeId) ? Math.min(this.#settings.maxWaitMs, HELD_BACK_MAX_WAIT_MS) : this.#settings.maxWaitMs,
      minBytes: this.#settings.minBytes,
      maxBytes: requestBytes,
      isolationLevel: this.#settings.isolationLevel,
      sessionId: useSessions ? this.#session.id : 0,
      sessionEpoch: useSessions ? this.#session.epoch : -1,
      topics: [...group(include)].map(([topic, parts]) => ({
        topic: byId ? '' : topic,
        topicId: byId ? parts[0].topicId : ZERO_UUID,
        partitions: parts.map(p => ({ partition: p.partition, currentLeaderEpoch: p.currentLeaderEpoch, fetchOffset: p.fetchOffset, lastFetchedEpoch: p.lastFetchedEpoch, logStartOffset: -1n, partitionMaxBytes: p.maxBytes }))
      })),
      forgottenTopicsData: useSessions
        ? [...group(forget)].map(([topic, parts]) => ({ topic: byId ? '' : topic, topicId: byId ? parts[0].topicId : ZERO_UUID, partitions: parts.map(p => p.partition) }))
        : [],
      rackId: this.#settings.rack
    }
    const poll: LongPoll | undefined = request.maxWaitMs > 0 ? { connection, cursors, versions, ended: false } : undefined
    this.#longPoll = poll
    let response: FetchResponse
    try {
      response = await connection.send(Fetch, request, { version, signal, timeoutMs: this.#client.requestTimeoutMs + this.#settings.maxWaitMs })
    } catch (error) {
      if (poll?.ended !== true) throw error
      // Ended early (endLongPoll): no failure, no backoff; the broker may or may not have
      // read the request, so the next one is full and closes the session it may have moved on.
      this.#session.restart()
      return undefined
    } finally {
      if (this.#longPoll === poll) this.#longPoll = undefined
    }
    if (useSessions) this.#session.onResponse(response.errorCode, response.sessionId)
    if (response.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND || response.errorCode === ErrorCode.INVALID_FETCH_SESSION_EPOCH) return undefined // session reset: the next request is full
    if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Fetch from broker ${this.nodeId}`)
    return response
  }
}

/** The bytes of a record batch on the wire (batchLength does not count baseOffset and itself). */
function wireBytes (header: RecordBatch): number {
  return header.batchLength + 12
}

/** What a buffered batch will take once decoded (BufferedBatch.bytes): its records, and its wire bytes while uncompressed records view the answer. */
function decodedCost (b: ScannedBatch): number {
  return b.cost + (b.batch.compression === 'none' ? wireBytes(b.batch) : 0)
}

/** What records decoded at arrival already hold. */
function decodedOwnBytes (b: ScannedBatch): number {
  return b.decoded ? b.batch.records.length * RECORD_MEMORY_OVERHEAD : 0
}

/** Cuts `scanned` before the first batch (never the first) whose decoding would take the total past `budget`. */
function keepWithin (scanned: ScannedBatch[], budget: number): void {
  let total = 0
  for (let i = 0; i < scanned.length; i++) {
    total += scanned[i].cost
    if (i > 0 && total > budget) {
      scanned.length = i
      return
    }
  }
}

/** Per-partition codes that a metadata refresh (or just time) resolves, beside invalidatesMetadata's. */
const LEADER_MOVED_CODES = new Set<number>([
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.OFFSET_NOT_AVAILABLE
])

/**
 * Fetch errors worth retrying: Kafka's retriable ones, and UNKNOWN_SERVER_ERROR (a broker
 * bug or a transient failure; the Java consumer logs it and fetches again). What no retry
 * fixes (authorization, an unsupported version or compression) is not.
 */
function isRetriableFetchError (code: number): boolean {
  return code === -1 || errorCodeInfo(code).retriable
}

/**
 * Consumer: fetched records out, in order per partition.
 *
 *   Source (per broker) → Cursor.buffered → hand-out (iterator or run()) → application
 *        → finished: Cursor.processedOffset → commits (group/)
 *
 * This class is the whole consumer for direct assignment (`assign`), and the engine the
 * group consumer (group/group-consumer.ts) drives: the group decides which partitions are
 * held, under which ownership, and what may be committed; this class fetches and hands
 * out, and reports what the application finished.
 *
 * This file keeps the public class, the assignment (cursors, predecessors) and close();
 * the rest is in files named for it, each reached through a small host interface:
 * hand-out.ts (which batch goes out next, decoding, the handed batch until finished),
 * fetch-scheduling.ts (sources and what they fetch), offset-resolution.ts (specs to
 * offsets), processing-timeout.ts (maxProcessingMs), run.ts (run()), consumer-options.ts
 * (options, checks).
 *
 * Rules:
 * - A partition has at most one batch handed out at a time; the next one goes out after
 *   the application finished the previous one, so each partition is processed in order.
 * - Fetching is bounded: nothing is fetched while the whole buffer holds
 *   `maxBufferedBytes`, and a Fetch asks only for the room left — the application's pace
 *   sets the fetch pace. `maxPartitionBytes` is the wire limit a partition's Fetch asks for
 *   (as in the Java client); a partition is not fetched again while it still buffers that
 *   much (so about one answer of it waits, not the whole buffer's worth).
 * - A batch is handed out only if its partition is still held under the same ownership
 *   and cursor version as when it was fetched; `beforeHandOut` (at-most-once) may veto it.
 * - `release` (revoke or loss) drops what was fetched and not handed out; what is being
 *   processed finishes, and its mark is dropped if the ownership was released meanwhile.
 */
import { checkCloseOptions, type Client, type CloseOptions } from '../client/client'
import type { ConnectionPurpose } from '../client/brokers'
import { TypedEmitter, type TypedEvents } from '../client/events'
import type { LogFields } from '../client/logger'
import type { MetricsRegistry, PartitionLag } from '../client/metrics'
import { AbortedError } from '../client/errors'
import { KafkaTsError } from '../protocol/errors'
import { Cursor, directOwnership, PrefetchAccount, type ConsumerBatch, type OffsetSpec, type Ownership } from './cursor'
import { OffsetResolution } from './offset-resolution'
import { HandOut, type ConsumerHooks, type CursorBatch, type HandedBatch } from './hand-out'
import { ProcessingTimeout, type ProcessingTimeoutEvent } from './processing-timeout'
import { RunLoop, type HandlerErrorEvent, type RunHost } from './run'
import { ConcurrentRun, type ConcurrentRunHost } from './concurrent/concurrent-run'
import type { FetchErrorEvent, FetchEvent, FetchSettings, TruncationEvent } from './source'
import { FetchScheduling } from './fetch-scheduling'
import { RecordDeserializer } from '../client/serializers'
import { checkAssignOptions, checkBatchesOptions, checkFetchOptions, checkRunOptions, checkSeekTarget, recordMakerOption, type AssignOptions, type BatchesOptions, type DeserializerOptions, type FetchOptions, type RunOptions, type WithRecordMaker } from './consumer-options'
import type { ClockTimer } from '../client/clock'
import { internal } from '../client/internal'

export type { FetchErrorEvent, FetchEvent, TruncationEvent } from './source'
export type { ConsumerBatch, OffsetSpec, Ownership } from './cursor'
export type { ConsumerHooks, HandedBatch } from './hand-out'
export type { HandlerErrorEvent } from './run'
export type { ProcessingTimeoutEvent } from './processing-timeout'
export { calledFromHandler } from './run'
export type { AssignOptions, BatchesOptions, DeserializerOptions, FetchOptions, RunOptions, RunRetryOptions } from './consumer-options'
// What group/ and share consumers build their option checks from.
export { checkFetchOptions, CONSUMER_OPTION_HINTS, CONSUMER_OPTION_KEYS, recordMakerOption, type WithRecordMaker } from './consumer-options'

/** The events of a Consumer, with their payloads (a group member has more: GroupConsumerEvents). */
export interface ConsumerEvents {
  /** Something went wrong that did not stop the consumer; without a listener it goes to the client's logger. */
  warning: [error: Error]
  /** The consumer failed and closed (the iterator and run() reject with the error too); emitted only while someone listens. */
  error: [error: Error]
  /** A run() handler threw; the event says what becomes of its records. */
  handlerError: [event: HandlerErrorEvent]
  /** A batch has been out with the application longer than `maxProcessingMs`. */
  processingTimeout: [event: ProcessingTimeoutEvent]
  /** A partition's log was truncated below this consumer's position (KIP-320); it resumes where the log diverged. */
  truncation: [event: TruncationEvent]
  /** A Fetch answer (or a partition of it) could not be used; fetching goes on after a backoff. */
  fetchError: [event: FetchErrorEvent]
  /** A Fetch request is sent (emitted only while someone listens to it or to 'fetch'). */
  fetchStart: [event: {
    /** The broker the Fetch goes to. */
    nodeId: number
  }]
  /** A Fetch request was answered (emitted only while someone listens). */
  fetch: [event: FetchEvent]
}

/** What kafkats's own modules (group/, the exactly-once loop, tests) use of a consumer: `consumer[internal]` (see consumerInternals). */
export interface ConsumerInternals {
  /** The group consumer's hooks into the hand-out. */
  readonly hooks: ConsumerHooks
  /**
   * Partitions are about to be added (a group member looks up their committed offsets
   * first): their leaders' fetch connections are opened now, so connecting overlaps that
   * lookup instead of following it.
   */
  connectFor: (partitions: Array<{ topic: string, partition: number }>) => void
  /** Starts fetching partitions from the given positions. */
  addPartitions: (partitions: Array<{ topic: string, partition: number, offset: bigint | OffsetSpec, leaderEpoch?: number, ownership: Ownership }>) => void
  /**
   * Stops fetching partitions and drops what was fetched and not handed out. Resolves when
   * their in-flight processing finished or `waitMs` passed; returns the cursors (with
   * `processedOffset`) so the caller can commit. Ownership is NOT released here: the
   * group releases it after its commit.
   */
  removePartitions: (keys: Array<{ topic: string, partition: number }>, waitMs: number) => Promise<Cursor[]>
  cursor: (topic: string, partition: number) => Cursor | undefined
  readonly cursors: Cursor[]
  /** nextBatch() with the batch's cursor. */
  nextBatch: (signal?: AbortSignal) => Promise<CursorBatch | undefined>
  /**
   * No more batches are handed out (close() starts here); eachRecord batches stop at the
   * next record, and fetching stops (long polls end). A group member's close() then waits
   * for run() handlers still out, unless it is called from one of them (calledFromHandler).
   */
  stopHandingOut: () => void
  /** Whether hand-outs stopped (close() began, or stopHandingOut). */
  readonly stopping: boolean
  /** A 'warning' event, or a warning through the client's logger when nobody listens (with `warnFields()` added). */
  warn: (problem: unknown, fields?: LogFields) => void
  /** What every warning this consumer logs carries (a group member sets it: its group and member id). */
  warnFields: () => LogFields
  /** Ends the consumer with an error: the iterator and run() reject with it. */
  fail: (error: Error) => void
  /** Resolves once no batch that passed maxProcessingMs is out with the application any more. */
  overdueReturned: () => Promise<void>
}

/**
 * `consumer[internal]`, typed: the member is set by the constructor and not declared in the
 * class, so the declarations users' compilers read do not show it (see client/internal.ts).
 */
export function consumerInternals (consumer: object): ConsumerInternals {
  return (consumer as unknown as { [internal]: ConsumerInternals })[internal]
}

export class Consumer<K = Buffer, V = Buffer, Events extends ConsumerEvents = ConsumerEvents> extends TypedEmitter<Events> implements AsyncIterable<ConsumerBatch<K, V>> {
  readonly #client: Client
  /** This object, typed by the events this class emits (a subclass's map may have more). */
  readonly #events: TypedEvents<ConsumerEvents> = this as unknown as TypedEvents<ConsumerEvents>
  readonly #settings: FetchSettings
  readonly #account: PrefetchAccount
  readonly #cursors = new Map<string, Cursor>()
  /** The sources, which partition each fetches from where, and their wake-ups. */
  readonly #fetching: FetchScheduling
  #closed = false
  #failure: Error | undefined
  readonly #hooks: ConsumerHooks = {}

  /** Which batch goes out next, and each handed batch until the application finishes it. */
  readonly #handOut: HandOut
  readonly #maxBatchRecords: number
  readonly #maxBatchBytes: number
  readonly #processingTimeout: ProcessingTimeout
  /** No more hand-outs: close() started. */
  #stopping = false
  /** Aborts when hand-outs stop (close() or a group member's close): ends this consumer's own waits (retry and offset-resolve backoffs, ListOffsets). */
  readonly #stop = new AbortController()
  /**
   * Cursors removed (revoked, lost, replaced) while their batch was still processed, by
   * partition key: a partition that comes back hands out nothing until that batch returned,
   * so a partition never has two handlers at once.
   */
  readonly #predecessors = new Map<string, Cursor>()
  /** Offsets of cursors positioned by a spec ('earliest', a timestamp, a reset). */
  readonly #offsets: OffsetResolution

  readonly #unregister: () => void

  /** A consumer of no partitions yet on `client`; applications make one with `client.consumer()`. Throws a TypeError or RangeError for a wrong option. */
  constructor (client: Client, options: FetchOptions & DeserializerOptions<K, V> = {}) {
    super()
    // Before anything is registered: a refused option leaves nothing behind.
    checkFetchOptions('consumer option', options)
    const deserializer = RecordDeserializer.from('consumer option', options.deserializers)
    this.#client = client
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this
    Object.defineProperty(this, internal, { value: {
      hooks: this.#hooks,
      connectFor: partitions => { this.#fetching.connectFor(partitions) },
      addPartitions: partitions => { this.#addPartitions(partitions) },
      removePartitions: async (keys, waitMs) => await this.#removePartitions(keys, waitMs),
      cursor: (topic, partition) => this.#cursor(topic, partition),
      get cursors (): Cursor[] { return [...self.#cursors.values()] },
      nextBatch: async signal => await this.#nextCursorBatch(signal),
      stopHandingOut: () => { this.#stopHandingOut() },
      get stopping (): boolean { return self.#stopping },
      warn: (problem, fields) => { this.#warn(problem, fields) },
      warnFields: () => ({}),
      fail: error => { this.#fail(error) },
      overdueReturned: async () => { await this.#processingTimeout.returned() }
    } satisfies ConsumerInternals })
    // Closed with the client: the iterator and run() end with its ClientClosedError.
    this.#unregister = client[internal].register({
      closeWithClient: async error => {
        this.#fail(error)
        await this.close()
      }
    })
    this.#settings = {
      maxWaitMs: options.maxWaitMs ?? 500,
      minBytes: options.minBytes ?? 1,
      maxBytes: options.maxBytes ?? 50 * 1024 * 1024,
      maxPartitionBytes: options.maxPartitionBytes ?? 1024 * 1024,
      isolationLevel: options.isolation === 'read_committed' ? 1 : 0,
      rack: options.rack ?? '',
      offsetReset: options.offsetReset ?? 'latest',
      emptyBatches: options.emptyBatches ?? false
    }
    this.#offsets = new OffsetResolution(client, options.isolation ?? 'read_uncommitted', this.#stop.signal, {
      isCurrent: cursor => this.#cursors.get(cursor.key) === cursor,
      resolved: () => { this.#fetching.positioned() },
      fail: error => this.#fail(error),
      get fetchPurpose (): ConnectionPurpose { return self.#fetching.purpose },
      longPolling: nodeId => this.#fetching.longPolling(nodeId)
    })
    this.#account = new PrefetchAccount(options.maxBufferedBytes ?? 64 * 1024 * 1024)
    this.#handOut = new HandOut({
      client,
      cursors: this.#cursors,
      predecessors: this.#predecessors,
      emptyBatches: this.#settings.emptyBatches,
      groupId: () => (this as unknown as { groupId?: string }).groupId,
      hooks: () => this.#hooks,
      failure: () => this.#failure,
      ended: () => this.#closed || this.#stopping,
      watchProcessing: () => { this.#processingTimeout.watch() },
      consumed: batch => { this.#metrics.batchConsumed(batch.topic, batch.records.length) },
      wakeFetching: () => { this.#fetching.wake() },
      nodeOf: cursor => this.#fetching.nodeOf(cursor),
      fetchError: event => this.#events.emit('fetchError', event),
      warn: error => { this.#warn(error) },
      fail: error => { this.#fail(error) }
    }, deserializer, (options as WithRecordMaker<FetchOptions>)[recordMakerOption])
    this.#maxBatchRecords = options.maxBatchRecords ?? 500
    this.#maxBatchBytes = options.maxBatchBytes ?? 1024 * 1024
    this.#processingTimeout = new ProcessingTimeout(options.maxProcessingMs ?? 300_000, {
      processingCursors: () => [...this.#cursors.values(), ...this.#predecessors.values()],
      overdue: (cursor, processing, event) => {
        this.#events.emit('processingTimeout', event)
        this.#hooks.onProcessingTimeout?.(cursor, processing)
      }
    }, client.clock)
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const consumer = this
    this.#fetching = new FetchScheduling(client, this.#settings, {
      cursors: () => this.#cursors.values(),
      get bufferFull (): boolean { return consumer.#account.full },
      isCurrent: (cursor, version) => cursor.version === version && this.#cursors.get(cursor.key) === cursor,
      get maxBatchRecords (): number { return consumer.#maxBatchRecords },
      get maxBatchBytes (): number { return consumer.#maxBatchBytes },
      buffered: () => this.#handOut.wake(),
      truncated: event => this.#events.emit('truncation', event),
      fetchError: event => this.#events.emit('fetchError', event),
      get observed (): boolean { return consumer.#events.listenerCount('fetch') > 0 || consumer.#events.listenerCount('fetchStart') > 0 },
      fetchStarted: nodeId => this.#events.emit('fetchStart', { nodeId }),
      fetched: event => this.#events.emit('fetch', event),
      fail: error => this.#fail(error),
      resolve: cursor => { this.#offsets.resolve(cursor) }
    })
    this.#metrics = client[internal].instrumentation.metrics
    this.#stopCollecting = this.#metrics.addCollector(into => {
      into.consumerBufferedBytes += this.#account.bytes
      for (const run of this.#concurrentRuns) {
        into.consumerRecordsInFlight += run.inFlight
        into.consumerRecordsWaiting += run.waiting
      }
      into.lag.push(...this.lag())
    })
  }

  readonly #metrics: MetricsRegistry
  /** Ends this one's part in client.metrics() (set once its collector is registered, at the end of the constructor). */
  #stopCollecting: () => void = () => {}

  /** Direct consumption: start fetching these partitions. */
  static assigned<K = Buffer, V = Buffer> (client: Client, options: AssignOptions<K, V>): Consumer<K, V> {
    checkAssignOptions(options)
    const consumer = new Consumer<K, V>(client, options)
    consumer.#addPartitions(options.assign.map(a => ({ ...a, ownership: directOwnership() })))
    return consumer
  }

  // ---------------------------------------------------------------- assignment (also used by group/)

  #addPartitions (partitions: Array<{ topic: string, partition: number, offset: bigint | OffsetSpec, leaderEpoch?: number, ownership: Ownership }>): void {
    this.#client[internal].metadata.track(partitions.map(p => p.topic))
    for (const p of partitions) {
      const cursor = new Cursor(p.topic, p.partition, p.ownership, p.offset, this.#account, p.leaderEpoch)
      const old = this.#cursors.get(cursor.key)
      if (old !== undefined) {
        old.dropBuffered()
        old.version++
        if (old.processing !== undefined) this.#predecessors.set(old.key, old)
      }
      this.#cursors.set(cursor.key, cursor)
      this.#handOut.cursorsChanged()
      if (cursor.fetchOffset === undefined) this.#offsets.resolve(cursor)
    }
    this.#fetching.startWhenKnown(partitions.map(p => p.topic))
  }

  async #removePartitions (keys: Array<{ topic: string, partition: number }>, waitMs: number): Promise<Cursor[]> {
    const removed: Cursor[] = []
    for (const { topic, partition } of keys) {
      const cursor = this.#cursors.get(`${topic}-${partition}`)
      if (cursor === undefined) continue
      this.#cursors.delete(cursor.key)
      cursor.dropBuffered()
      cursor.version++
      if (cursor.processing !== undefined) this.#predecessors.set(cursor.key, cursor)
      removed.push(cursor)
    }
    if (removed.length > 0) this.#handOut.cursorsChanged()
    // Once close() started, only run() handlers are waited for: a `for await` loop body or a
    // nextBatch() caller may be the one closing, and finishes its batch (or not) by itself.
    const processing = removed
      .filter(c => c.processing !== undefined && (!this.#stopping || this.#handOut.isRunBatch(c.processing.batch)))
      .map(c => c.processing!.finished)
    // A concurrent run()'s records of the partition that are running (those not started yet never start).
    for (const c of removed) if (c.progress !== undefined && c.progress.running > 0) processing.push(c.progress.idle())
    if (processing.length > 0) {
      let timer: ClockTimer | undefined
      await Promise.race([Promise.all(processing), new Promise<void>(resolve => { timer = this.#client.clock.setTimer(resolve, waitMs, { keepAlive: true }) })])
      timer?.cancel()
    }
    return removed
  }

  #cursor (topic: string, partition: number): Cursor | undefined {
    return this.#cursors.get(`${topic}-${partition}`)
  }

  /**
   * Per partition held: what was processed and committed, where fetching stands, the high
   * watermark of the last fetch answer and the lag behind it — from what the consumer
   * knows, without a request to the broker (`client.admin.lag(groupId)` asks the brokers).
   */
  lag (): PartitionLag[] {
    const group = (this as unknown as { groupId?: string }).groupId
    const lags: PartitionLag[] = []
    for (const c of this.#cursors.values()) {
      const highWatermark = c.highWatermark >= 0n ? c.highWatermark : undefined
      // The first record not processed: after what was processed (or committed), else the first one out or buffered, else where fetching stands.
      const from = c.processedOffset ?? c.committedOffset ?? c.processing?.firstOffset ?? c.buffered[0]?.fetchedFrom ?? c.fetchOffset
      const lag = highWatermark === undefined || from === undefined ? undefined : (highWatermark > from ? highWatermark - from : 0n)
      const entry: PartitionLag = { group, topic: c.topic, partition: c.partition, processedOffset: c.processedOffset, committedOffset: c.committedOffset, fetchOffset: c.fetchOffset, highWatermark, lag }
      // Only with a concurrent run(): records finished above the processed offset.
      if (c.progress !== undefined) entry.finishedAbove = c.progress.finishedAbove
      lags.push(entry)
    }
    return lags
  }

  /** The partitions currently fetched or processed. */
  assignment (): Array<{
    /** The partition's topic. */
    topic: string
    /** The partition's number. */
    partition: number
  }> {
    return [...this.#cursors.values()].map(c => ({ topic: c.topic, partition: c.partition }))
  }

  // ---------------------------------------------------------------- application controls

  /**
   * Moves a partition to an offset (or 'earliest', 'latest', { timestamp }). The target is
   * what counts as processed from now on (what at-least-once commits, as the Java client
   * commits its position): a batch being processed no longer moves it when it returns, and
   * the re-read moves it on from there.
   */
  seek (target: { topic: string, partition: number, offset: bigint | OffsetSpec, leaderEpoch?: number }): void {
    checkSeekTarget(target)
    const cursor = this.#cursors.get(`${target.topic}-${target.partition}`)
    if (cursor === undefined) throw new KafkaTsError('NOT_ASSIGNED', `Cannot seek ${target.topic}-${target.partition}: it is not assigned to this consumer`)
    cursor.seek(target.offset, target.leaderEpoch)
    if (cursor.processing !== undefined) cursor.processing.seeked = true
    // A concurrent run's records of the old position count for nothing; the new position gets a new progress.
    cursor.progress?.abandon()
    cursor.progress = undefined
    // What this member committed says nothing about the new position: the next commit sends it.
    cursor.committedOffset = undefined
    cursor.committedMetadata = undefined
    this.#offsets.seeked(cursor, target.offset)
    if (cursor.fetchOffset === undefined) this.#offsets.resolve(cursor)
    this.#fetching.positioned()
  }

  /** Stops fetching and handing out the partitions (those not assigned are ignored); what is buffered waits for `resume()`. */
  pause (partitions: Array<{ topic: string, partition: number }>): void {
    for (const p of partitions) {
      const cursor = this.#cursors.get(`${p.topic}-${p.partition}`)
      if (cursor !== undefined) cursor.paused = true
    }
  }

  /** Fetches and hands out the paused partitions again (those not assigned are ignored). */
  resume (partitions: Array<{ topic: string, partition: number }>): void {
    for (const p of partitions) {
      const cursor = this.#cursors.get(`${p.topic}-${p.partition}`)
      if (cursor !== undefined) cursor.paused = false
    }
    this.#fetching.wake()
    this.#handOut.wake()
  }

  /**
   * The next batch, waiting for one; undefined once the consumer is closed. Once `signal`
   * aborts no batch is handed out: it rejects with AbortedError (a batch already in hand
   * is the caller's to finish).
   */
  async nextBatch (signal?: AbortSignal): Promise<HandedBatch<K, V> | undefined> {
    const handed = await this.#nextCursorBatch(signal)
    // Without the cursor: the application finishes the batch, it does not move the position.
    return handed === undefined ? undefined : { batch: handed.batch as ConsumerBatch<K, V>, finish: handed.finish, moreOfAnswer: handed.moreOfAnswer }
  }

  async #nextCursorBatch (signal: AbortSignal | undefined): Promise<CursorBatch | undefined> {
    const stopListening = this.#handOut.wakeOnAbort(signal)
    let handed: CursorBatch | undefined
    try {
      handed = await this.#handOut.next(signal, false)
    } finally {
      stopListening()
    }
    if (handed === undefined && signal?.aborted === true && !this.#stopping) throw new AbortedError('Aborted while waiting for records', { written: false, cause: signal.reason })
    return handed
  }

  /** `for await (const batch of consumer)`: `batches()` without options. */
  [Symbol.asyncIterator] (): AsyncIterableIterator<ConsumerBatch<K, V>> {
    return this.batches()
  }

  /**
   * `for await (const batch of consumer.batches({ signal }))`. A batch counts as processed
   * when the loop asks for the next one (invariant 7). Leaving the loop early (break,
   * return, a throw) releases the batch in hand without marking it, and closes the
   * consumer: a group member commits what was processed before it and leaves, so the
   * batch is read again. `signal` ends the loop gracefully (BatchesOptions) and leaves the
   * consumer open.
   */
  batches (options: BatchesOptions = {}): AsyncIterableIterator<ConsumerBatch<K, V>> {
    checkBatchesOptions(options)
    const signal = options.signal
    let current: HandedBatch<K, V> | undefined
    const iterator: AsyncIterableIterator<ConsumerBatch<K, V>> = {
      next: async () => {
        // The loop asked for the next batch: the one in hand is processed.
        current?.finish()
        current = undefined
        const stopListening = this.#handOut.wakeOnAbort(signal)
        try {
          current = await this.#handOut.next(signal, false) as HandedBatch<K, V> | undefined
        } finally {
          stopListening()
        }
        if (current === undefined) return { done: true, value: undefined }
        return { done: false, value: current.batch }
      },
      return: async () => {
        // Left early: the batch in hand is released, not processed (the fetch position moves on, the consumer closes).
        current?.finish(null)
        current = undefined
        await this.close()
        return { done: true, value: undefined }
      },
      [Symbol.asyncIterator]: () => iterator
    }
    return iterator
  }

  /**
   * Callback style: `eachBatch` (or `eachRecord`) is called for up to
   * `partitionsConcurrently` partitions at a time, each partition in order. Resolves when
   * the consumer is closed. A throwing callback rejects run() and closes the consumer (a
   * group member leaves its group), unless `retry` is set; the records it did not finish
   * are not marked processed. `signal` stops it gracefully (RunOptions.signal).
   */
  async run (options: RunOptions<K, V>): Promise<void> {
    checkRunOptions(options as RunOptions)
    // A concurrent run's processed offset is its low watermark: a batch finished by another loop would move it past records still running.
    if (this.#concurrentRuns.size > 0 || (options.concurrency !== undefined && this.#batchRuns > 0)) {
      throw new TypeError(`run(): this consumer already runs ${this.#concurrentRuns.size > 0 ? 'a run({ concurrency })' : 'a run() without concurrency'}; a run({ concurrency }) must be its only run() (one run() can take any concurrency), or commits could pass records it has not finished`)
    }
    if (options.concurrency === undefined) {
      this.#batchRuns++
      try {
        await new RunLoop(this.#runHost, options as RunOptions).run()
      } finally {
        this.#batchRuns--
      }
      return
    }
    const run = new ConcurrentRun(this.#concurrentRunHost(), options as RunOptions)
    this.#concurrentRuns.add(run)
    try {
      await run.run()
    } finally {
      this.#concurrentRuns.delete(run)
    }
  }

  /** The concurrent run() going on, if any (its in-flight and waiting records are metrics gauges). */
  readonly #concurrentRuns = new Set<ConcurrentRun>()
  /** run()s without concurrency going on. */
  #batchRuns = 0

  #concurrentRunHost (): ConcurrentRunHost {
    const host = this.#runHost
    return {
      nextBatch: async (signal, accepts) => await this.#handOut.next(signal, false, accepts),
      get stopping (): boolean { return host.stopping },
      get stopSignal (): AbortSignal { return host.stopSignal },
      get clock (): RunHost['clock'] { return host.clock },
      isCurrent: cursor => this.#cursors.get(cursor.key) === cursor,
      partitionsHeld: () => this.#cursors.size,
      wakeHandOut: () => { this.#handOut.wake() },
      handlerError: host.handlerError,
      fail: host.fail,
      wakeOnAbort: host.wakeOnAbort,
      close: host.close
    }
  }

  /**
   * Stops fetching and ends the iterator. A direct consumer waits for nothing, so `force`
   * changes nothing here (a group member's close() says what it skips).
   */
  async close (options: CloseOptions = {}): Promise<void> {
    checkCloseOptions('consumer.close()', options)
    if (this.#closed) return
    this.#closed = true
    this.#stopping = true
    this.#stop.abort()
    this.#processingTimeout.stop()
    this.#handOut.wake()
    // The long polls in flight end (nothing of their answers is handed out); this consumer's own fetch connections go with it.
    await this.#fetching.closeSources()
    this.#unregister()
    this.#stopCollecting()
  }

  /** Whether close() was called (it may still be finishing), or the consumer ended by itself. */
  get closed (): boolean {
    return this.#closed
  }

  // ---------------------------------------------------------------- what group/ reaches (ConsumerInternals)

  #stopHandingOut (): void {
    this.#stopping = true
    this.#stop.abort()
    this.#handOut.wake()
    // Nothing fetched from now on would be handed out: the fetching stops while the member
    // leaves (close() awaits it), rather than after, behind a long poll.
    this.#fetching.closeSources().catch(() => {})
  }

  #warn (problem: unknown, fields?: LogFields): void {
    const error = problem instanceof Error ? problem : new Error(String(problem))
    if (this.#events.listenerCount('warning') > 0) this.#events.emit('warning', error)
    else this.#client[internal].instrumentation.log.warn(error.message, { code: 'KAFKATS_CONSUMER_WARNING', ...consumerInternals(this).warnFields(), ...fields, error })
  }

  // ---------------------------------------------------------------- run() (run.ts)

  /** What run() reaches of this consumer. */
  readonly #runHost: RunHost = this.#makeRunHost()

  #makeRunHost (): RunHost {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const consumer = this
    return {
      // No async wrapper: one promise per batch, as before the split.
      nextBatch: signal => this.#handOut.next(signal, true),
      get stopping (): boolean { return consumer.#stopping },
      get failed (): boolean { return consumer.#failure !== undefined },
      get stopSignal (): AbortSignal { return consumer.#stop.signal },
      get clock (): RunHost['clock'] { return consumer.#client.clock },
      trace: batch => this.#handOut.trace(batch),
      handlerError: event => this.#events.emit('handlerError', event),
      fail: error => this.#fail(error),
      wakeOnAbort: signal => this.#handOut.wakeOnAbort(signal),
      close: async () => await this.close()
    }
  }

  #fail (error: Error): void {
    if (this.#failure !== undefined) return
    this.#failure = error
    // An 'error' event without a listener would throw: the iterator reports the error anyway.
    if (this.#events.listenerCount('error') > 0) this.#events.emit('error', error)
    this.#handOut.wake()
    void this.close()
  }
}

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
 * Rules:
 * - A partition has at most one batch handed out at a time; the next one goes out after
 *   the application finished the previous one, so each partition is processed in order.
 * - Fetching is bounded: a partition is not fetched while it holds `maxPartitionBytes`
 *   of buffered data, and nothing is fetched while the whole buffer holds
 *   `maxBufferedBytes` — the application's pace sets the fetch pace.
 * - A batch is handed out only if its partition is still held under the same ownership
 *   and cursor version as when it was fetched; `beforeHandOut` (at-most-once) may veto it.
 * - `release` (revoke or loss) drops what was fetched and not handed out; what is being
 *   processed finishes, and its mark is dropped if the ownership was released meanwhile.
 */
import { EventEmitter } from 'node:events'
import type { Client } from '../client/client'
import { invalidatesMetadata } from '../client/metadata'
import { AbortedError } from '../client/errors'
import type { FetchPartitionResponse } from '../protocol/apis/fetch'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import { decodeRecordBatches, type KafkaRecord, type RecordBatch } from '../protocol/record-batch'
import { dropAbortedAndControl, dropControl } from '../client/read-committed'
import { Cursor, directOwnership, type ConsumerBatch, type OffsetSpec, type Ownership } from './cursor'
import { Source, type FetchSettings, type SourceOwner } from './source'

export type { ConsumerBatch, OffsetSpec, Ownership } from './cursor'

export interface FetchOptions {
  isolation?: 'read_uncommitted' | 'read_committed'
  /** How long a broker may hold a Fetch waiting for data (default 500 ms). */
  maxWaitMs?: number
  minBytes?: number
  /** Most bytes one Fetch response may carry (default 50 MiB, as the Java client). */
  maxBytes?: number
  /** Most bytes per partition per Fetch (default 1 MiB). */
  maxPartitionBytes?: number
  /** Prefetched, not yet handed out bytes before fetching pauses (default 64 MiB). */
  maxBufferedBytes?: number
  /** This consumer's rack: brokers may point it to a replica in the same rack (KIP-392). */
  rack?: string
  /** Where to go when an offset is out of range: 'earliest', 'latest' (default) or 'none' (an error). */
  offsetReset?: 'earliest' | 'latest' | 'none'
}

export interface AssignOptions extends FetchOptions {
  assign: Array<{ topic: string, partition: number, offset: bigint | OffsetSpec }>
}

export interface TruncationEvent {
  topic: string
  partition: number
  /** Where we were about to fetch. */
  fetchOffset: bigint
  /** The end of the leader's log for our last fetched epoch: fetching resumes here. */
  resumeOffset: bigint
}

/** A batch handed out, with the call that tells the consumer the application is done with it. */
export interface HandedBatch {
  batch: ConsumerBatch
  cursor: Cursor
  finish: () => void
}

export interface ConsumerHooks {
  /** Before a batch is handed out; false drops it (at-most-once commits first here). */
  beforeHandOut?: (cursor: Cursor, batch: ConsumerBatch) => Promise<boolean>
  /** After the application finished a batch of a partition still held. */
  onFinished?: (cursor: Cursor, batch: ConsumerBatch) => void
}

let consumerConnections = 0

export class Consumer extends EventEmitter implements AsyncIterable<ConsumerBatch> {
  protected readonly client: Client
  readonly #settings: FetchSettings
  readonly #maxBufferedBytes: number
  readonly #offsetReset: 'earliest' | 'latest' | 'none'
  readonly #cursors = new Map<string, Cursor>()
  readonly #sources = new Map<number, Source>()
  #bufferedBytes = 0
  #closed = false
  #failure: Error | undefined
  hooks: ConsumerHooks = {}

  // Wake-ups: sources wait for fetchable work, readers wait for buffered batches.
  #workWaiters: Array<() => void> = []
  #dataWaiters: Array<() => void> = []
  #resolving = new Set<Cursor>()
  #refreshTimer: NodeJS.Timeout | undefined
  #handOutStart = 0

  constructor (client: Client, options: FetchOptions = {}) {
    super()
    this.client = client
    this.#settings = {
      maxWaitMs: options.maxWaitMs ?? 500,
      minBytes: options.minBytes ?? 1,
      maxBytes: options.maxBytes ?? 50 * 1024 * 1024,
      maxPartitionBytes: options.maxPartitionBytes ?? 1024 * 1024,
      isolationLevel: options.isolation === 'read_committed' ? 1 : 0,
      rack: options.rack ?? ''
    }
    this.#maxBufferedBytes = options.maxBufferedBytes ?? 64 * 1024 * 1024
    this.#offsetReset = options.offsetReset ?? 'latest'
  }

  /** Direct consumption: start fetching these partitions. */
  static assigned (client: Client, options: AssignOptions): Consumer {
    const consumer = new Consumer(client, options)
    consumer.addPartitions(options.assign.map(a => ({ ...a, ownership: directOwnership() })))
    return consumer
  }

  // ---------------------------------------------------------------- assignment (also used by group/)

  /** Starts fetching partitions from the given positions. */
  addPartitions (partitions: Array<{ topic: string, partition: number, offset: bigint | OffsetSpec, ownership: Ownership }>): void {
    this.client.metadata.track(partitions.map(p => p.topic))
    for (const p of partitions) {
      const cursor = new Cursor(p.topic, p.partition, p.ownership, p.offset)
      const old = this.#cursors.get(cursor.key)
      if (old !== undefined) this.#dropBuffered(old)
      this.#cursors.set(cursor.key, cursor)
      if (cursor.fetchOffset === undefined) void this.#resolve(cursor)
    }
    this.#ensureMetadataThenWake(partitions.map(p => p.topic))
  }

  /**
   * Stops fetching partitions and drops what was fetched and not handed out. Resolves when
   * their in-flight processing finished or `waitMs` passed; returns the cursors (with
   * `processedOffset`) so the caller can commit. Ownership is NOT released here: the
   * group releases it after its commit.
   */
  async removePartitions (keys: Array<{ topic: string, partition: number }>, waitMs: number): Promise<Cursor[]> {
    const removed: Cursor[] = []
    for (const { topic, partition } of keys) {
      const cursor = this.#cursors.get(`${topic}-${partition}`)
      if (cursor === undefined) continue
      this.#cursors.delete(cursor.key)
      this.#dropBuffered(cursor)
      cursor.version++
      removed.push(cursor)
    }
    const processing = removed.map(c => c.processing?.finished).filter((p): p is Promise<void> => p !== undefined)
    if (processing.length > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([Promise.all(processing), new Promise<void>(resolve => { timer = setTimeout(resolve, waitMs) })])
      clearTimeout(timer)
    }
    return removed
  }

  cursor (topic: string, partition: number): Cursor | undefined {
    return this.#cursors.get(`${topic}-${partition}`)
  }

  get cursors (): Cursor[] {
    return [...this.#cursors.values()]
  }

  /** The partitions currently fetched or processed. */
  assignment (): Array<{ topic: string, partition: number }> {
    return this.cursors.map(c => ({ topic: c.topic, partition: c.partition }))
  }

  // ---------------------------------------------------------------- application controls

  /** Moves a partition to an offset (or 'earliest', 'latest', { timestamp }). */
  seek (target: { topic: string, partition: number, offset: bigint | OffsetSpec }): void {
    const cursor = this.#cursors.get(`${target.topic}-${target.partition}`)
    if (cursor === undefined) throw new KafkaTsError('NOT_ASSIGNED', `Cannot seek ${target.topic}-${target.partition}: it is not assigned to this consumer`)
    this.#bufferedBytes -= cursor.seek(target.offset)
    if (cursor.fetchOffset === undefined) void this.#resolve(cursor)
    this.#wakeWork()
  }

  pause (partitions: Array<{ topic: string, partition: number }>): void {
    for (const p of partitions) {
      const cursor = this.#cursors.get(`${p.topic}-${p.partition}`)
      if (cursor !== undefined) cursor.paused = true
    }
  }

  resume (partitions: Array<{ topic: string, partition: number }>): void {
    for (const p of partitions) {
      const cursor = this.#cursors.get(`${p.topic}-${p.partition}`)
      if (cursor !== undefined) cursor.paused = false
    }
    this.#wakeWork()
    this.#wakeData()
  }

  /** The next batch, waiting for one; undefined once the consumer is closed. */
  async nextBatch (signal?: AbortSignal): Promise<HandedBatch | undefined> {
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure
      if (this.#closed) return undefined
      const handed = this.#takeBatch()
      if (handed !== undefined) {
        const { cursor, batch } = handed
        if (this.hooks.beforeHandOut !== undefined) {
          // The batch is not "processing" yet: a revoke does not wait for a hand-out that
          // itself waits for the rebalance (at-most-once commits first), but `handingOut`
          // keeps the partition's next batch back so order holds.
          let allowed = false
          try {
            allowed = await this.hooks.beforeHandOut(cursor, batch)
          } catch (error) {
            this.emit('warning', error)
          }
          cursor.handingOut = false
          if (!allowed || cursor.ownership.released || this.#cursors.get(cursor.key) !== cursor) {
            this.#wakeData()
            continue
          }
        }
        cursor.handingOut = false
        let finish!: () => void
        const finished = new Promise<void>(resolve => { finish = resolve })
        cursor.processing = { batch, finished, finish }
        return { batch, cursor, finish: () => this.#finish(cursor, batch, true) }
      }
      if (signal?.aborted === true) throw new AbortedError('Aborted while waiting for records', { written: false, cause: signal.reason })
      await new Promise<void>(resolve => {
        const onAbort = (): void => resolve()
        signal?.addEventListener('abort', onAbort, { once: true })
        this.#dataWaiters.push(() => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        })
      })
    }
  }

  /** `for await (const batch of consumer)`: a batch is finished when the loop body returns. */
  [Symbol.asyncIterator] (): AsyncIterator<ConsumerBatch> {
    let current: HandedBatch | undefined
    return {
      next: async () => {
        current?.finish()
        current = undefined
        current = await this.nextBatch()
        if (current === undefined) return { done: true, value: undefined }
        return { done: false, value: current.batch }
      },
      return: async () => {
        current?.finish()
        current = undefined
        await this.close()
        return { done: true, value: undefined }
      }
    }
  }

  /**
   * Callback style: `eachBatch` (or `eachRecord`) is called for up to
   * `partitionsConcurrently` partitions at a time, each partition in order. Resolves when
   * the consumer is closed; rejects if a callback throws (the batch is not marked done).
   */
  async run (options: { eachBatch?: (batch: ConsumerBatch) => Promise<void> | void, eachRecord?: (record: KafkaRecord, batch: ConsumerBatch) => Promise<void> | void, partitionsConcurrently?: number }): Promise<void> {
    const workers = Math.max(1, options.partitionsConcurrently ?? 1)
    const { eachBatch, eachRecord } = options
    if (eachBatch === undefined && eachRecord === undefined) throw new TypeError('run() needs eachBatch or eachRecord')
    const worker = async (): Promise<void> => {
      for (;;) {
        const handed = await this.nextBatch()
        if (handed === undefined) return
        try {
          if (eachBatch !== undefined) await eachBatch(handed.batch)
          else for (const record of handed.batch.records) await eachRecord!(record, handed.batch)
        } catch (error) {
          this.#fail(error as Error)
          throw error
        }
        handed.finish()
      }
    }
    await Promise.all(Array.from({ length: workers }, worker))
  }

  /** Stops fetching and ends the iterator. */
  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#refreshTimer)
    this.#wakeWork()
    this.#wakeData()
    await Promise.all([...this.#sources.values()].map(async s => await s.stop()))
    this.#sources.clear()
  }

  get closed (): boolean {
    return this.#closed
  }

  /** Ends the consumer with an error: the iterator and run() reject with it. */
  protected fail (error: Error): void {
    this.#fail(error)
  }

  // ---------------------------------------------------------------- hand-out

  #takeBatch (): { cursor: Cursor, batch: ConsumerBatch } | undefined {
    const cursors = [...this.#cursors.values()]
    const n = cursors.length
    // Round-robin over partitions, so one busy partition does not starve the others.
    for (let i = 0; i < n; i++) {
      const cursor = cursors[(this.#handOutStart + i) % n]
      if (cursor.processing !== undefined || cursor.handingOut || cursor.paused || cursor.buffered.length === 0) continue
      const entry = cursor.buffered.shift()!
      cursor.bufferedBytes -= entry.bytes
      this.#bufferedBytes -= entry.bytes
      this.#wakeWork()
      if (entry.version !== cursor.version || cursor.ownership.released) continue
      this.#handOutStart = (this.#handOutStart + i + 1) % Math.max(1, n)
      cursor.handingOut = true
      return { cursor, batch: entry.batch }
    }
    return undefined
  }

  #finish (cursor: Cursor, batch: ConsumerBatch, processed: boolean): void {
    const processing = cursor.processing
    if (processing === undefined || processing.batch !== batch) return
    cursor.processing = undefined
    processing.finish()
    // A late finish for a partition that left this member is dropped, never re-inserted (invariant 3).
    if (processed && !cursor.ownership.released) {
      cursor.processedOffset = batch.nextOffset
      this.hooks.onFinished?.(cursor, batch)
    }
    this.#wakeData()
  }

  // ---------------------------------------------------------------- fetching (SourceOwner)

  /** Goes up on every wake-up of the sources, so a source that was busy fetching does not miss one. */
  #workVersion = 0
  /**
   * This consumer's own fetch connections: a broker answers a connection's requests one at
   * a time, so another consumer's long poll on a shared one would delay every fetch of ours.
   */
  readonly #fetchPurpose: `fetch-${number}` = `fetch-${++consumerConnections}`

  readonly #sourceOwner: SourceOwner = this.#makeSourceOwner()

  #makeSourceOwner (): SourceOwner {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const consumer = this
    return {
      fetchable: nodeId => this.#fetchable(nodeId),
      onPartition: async (cursor, version, response) => await this.#onPartition(cursor, version, response),
      onSourceError: (nodeId, cursors, error) => this.#onSourceError(nodeId, cursors, error),
      released: () => this.#wakeWork(),
      get workVersion (): number { return consumer.#workVersion },
      waitForWork: async (signal, since) => await new Promise<void>(resolve => {
        if (signal.aborted || this.#workVersion !== since) { resolve(); return }
        const onAbort = (): void => resolve()
        signal.addEventListener('abort', onAbort, { once: true })
        this.#workWaiters.push(() => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        })
      })
    }
  }

  #fetchable (nodeId: number): Cursor[] {
    if (this.#closed || this.#bufferedBytes >= this.#maxBufferedBytes) return []
    const cursors: Cursor[] = []
    for (const cursor of this.#cursors.values()) {
      if (cursor.paused || cursor.inFetch || cursor.fetchOffset === undefined || cursor.ownership.released) continue
      if (cursor.bufferedBytes >= this.#settings.maxPartitionBytes) continue
      if (this.#fetchNode(cursor) !== nodeId) continue
      cursors.push(cursor)
    }
    return cursors
  }

  #fetchNode (cursor: Cursor): number {
    if (cursor.preferredReplica >= 0 && this.client.brokers.broker(cursor.preferredReplica) !== undefined) return cursor.preferredReplica
    return this.client.metadata.partition(cursor.topic, cursor.partition)?.leaderId ?? -1
  }

  /** Starts a source for every broker some cursor fetches from, and wakes them. */
  #startSources (): void {
    if (this.#closed) return
    let missingLeader = false
    for (const cursor of this.#cursors.values()) {
      const nodeId = this.#fetchNode(cursor)
      if (nodeId < 0) {
        missingLeader = true
        continue
      }
      if (!this.#sources.has(nodeId)) {
        const source = new Source(nodeId, this.client, this.#sourceOwner, this.#settings, this.#fetchPurpose)
        this.#sources.set(nodeId, source)
        source.start()
      }
    }
    if (missingLeader) this.#refreshMetadataSoon()
  }

  async #onPartition (cursor: Cursor, version: number, response: FetchPartitionResponse): Promise<void> {
    if (cursor.version !== version || this.#cursors.get(cursor.key) !== cursor) return
    if (response.errorCode !== 0) {
      this.#onPartitionError(cursor, response)
      return
    }
    cursor.highWatermark = response.highWatermark
    if (response.preferredReadReplica >= 0 && response.preferredReadReplica !== cursor.preferredReplica) {
      cursor.preferredReplica = response.preferredReadReplica
      this.#startSources()
    }
    // KIP-320: the leader's log diverged from what we fetched (an unclean leader change).
    if (response.divergingEpoch.epoch >= 0 && response.divergingEpoch.endOffset >= 0n && cursor.fetchOffset !== undefined) {
      const resumeOffset = response.divergingEpoch.endOffset < cursor.fetchOffset ? response.divergingEpoch.endOffset : cursor.fetchOffset
      const event: TruncationEvent = { topic: cursor.topic, partition: cursor.partition, fetchOffset: cursor.fetchOffset, resumeOffset }
      if (this.#offsetReset === 'none') {
        this.#fail(new KafkaTsError('LOG_TRUNCATION', `The log of ${cursor.key} was truncated below offset ${cursor.fetchOffset} (to ${resumeOffset}) by a leader change: records this consumer read may be gone`))
        return
      }
      this.#bufferedBytes -= cursor.seek(resumeOffset)
      cursor.lastFetchedEpoch = response.divergingEpoch.epoch
      this.emit('truncation', event)
      this.#wakeWork()
      return
    }
    const records = response.records
    if (records === null || records.length === 0 || cursor.fetchOffset === undefined) return
    const fetchOffset = cursor.fetchOffset
    let batches: RecordBatch[]
    try {
      batches = await decodeRecordBatches(records, { topic: cursor.topic, partition: cursor.partition })
    } catch (error) {
      // Bad bytes fail this consumer with a typed error rather than looping on them.
      this.#fail(error as Error)
      return
    }
    if (cursor.version !== version || this.#cursors.get(cursor.key) !== cursor || batches.length === 0) return
    const last = batches[batches.length - 1]
    const nextOffset = last.baseOffset + BigInt(last.lastOffsetDelta) + 1n
    const kept = this.#settings.isolationLevel === 1 ? dropAbortedAndControl(batches, response.abortedTransactions) : dropControl(batches)
    const out: KafkaRecord[] = []
    for (const b of kept) {
      const rs = b.records
      if (b.baseOffset >= fetchOffset) {
        for (let i = 0; i < rs.length; i++) out.push(rs[i])
      } else {
        for (let i = 0; i < rs.length; i++) if (rs[i].offset >= fetchOffset) out.push(rs[i])
      }
    }
    if (nextOffset <= fetchOffset) return
    cursor.fetchOffset = nextOffset
    cursor.lastFetchedEpoch = last.partitionLeaderEpoch
    if (out.length === 0) {
      // Only control records or aborted data: the position moves on and nothing is handed out.
      if (cursor.processing === undefined && cursor.buffered.length === 0) cursor.processedOffset = nextOffset
      return
    }
    const bytes = records.length
    cursor.buffered.push({ batch: { topic: cursor.topic, partition: cursor.partition, records: out, highWatermark: response.highWatermark, nextOffset }, bytes, version })
    cursor.bufferedBytes += bytes
    this.#bufferedBytes += bytes
    this.#wakeData()
  }

  #onPartitionError (cursor: Cursor, response: FetchPartitionResponse): void {
    const code = response.errorCode
    if (cursor.preferredReplica >= 0) {
      // A follower could not serve us: go back to the leader.
      cursor.preferredReplica = -1
      this.#startSources()
      return
    }
    if (code === 1) { // OFFSET_OUT_OF_RANGE
      if (this.#offsetReset === 'none') {
        this.#fail(new BrokerError(code, `Fetch of ${cursor.key} at offset ${String(cursor.fetchOffset)} (offsetReset is 'none')`))
        return
      }
      this.#bufferedBytes -= cursor.seek(this.#offsetReset)
      void this.#resolve(cursor)
      return
    }
    if (invalidatesMetadata(code) || code === 56 || code === 9 || code === 78 || code === 13) {
      this.#refreshMetadataSoon()
      return
    }
    this.#fail(new BrokerError(code, `Fetch of ${cursor.key}`))
  }

  #onSourceError (nodeId: number, cursors: Cursor[], error: Error): void {
    for (const c of cursors) c.preferredReplica = -1
    this.#wakeWork()
    if (!(error instanceof KafkaTsError) || error.retriable || error.kind === 'CONNECTION' || error.kind === 'TIMEOUT') {
      this.#refreshMetadataSoon()
      return
    }
    this.#fail(error)
  }

  async #resolve (cursor: Cursor): Promise<void> {
    if (this.#resolving.has(cursor)) return
    this.#resolving.add(cursor)
    try {
      for (let attempt = 0; !this.#closed; attempt++) {
        const spec = cursor.resetTo
        if (spec === undefined || this.#cursors.get(cursor.key) !== cursor) return
        const version = cursor.version
        try {
          const { offset } = await this.client.listOffsets({ topic: cursor.topic, partition: cursor.partition, spec, isolation: this.#settings.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted' })
          if (cursor.version !== version) continue
          // A timestamp after the last record gives -1: start at the end then.
          cursor.fetchOffset = offset >= 0n ? offset : (await this.client.listOffsets({ topic: cursor.topic, partition: cursor.partition, spec: 'latest' })).offset
          cursor.resetTo = undefined
          this.#startSources()
          this.#wakeWork()
          return
        } catch (error) {
          if (error instanceof KafkaTsError && !error.retriable) {
            this.#fail(error)
            return
          }
          await new Promise(resolve => setTimeout(resolve, Math.min(1000, 100 * 2 ** attempt)))
        }
      }
    } finally {
      this.#resolving.delete(cursor)
    }
  }

  #ensureMetadataThenWake (topics: string[]): void {
    const missing = topics.filter(t => this.client.metadata.topic(t) === undefined)
    if (missing.length === 0) {
      this.#startSources()
      this.#wakeWork()
      return
    }
    Promise.all(missing.map(async t => await this.client.metadata.waitForTopic(t, 60_000))).then(() => {
      this.#startSources()
      this.#wakeWork()
    }, error => this.#fail(error))
  }

  #refreshMetadataSoon (): void {
    if (this.#refreshTimer !== undefined || this.#closed) return
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined
      this.client.metadata.refresh(new Set(this.cursors.map(c => c.topic))).then(() => {
        this.#startSources()
        this.#wakeWork()
      }, () => this.#refreshMetadataSoon())
    }, this.client.backoff.initialMs)
  }

  #dropBuffered (cursor: Cursor): void {
    this.#bufferedBytes -= cursor.bufferedBytes
    cursor.buffered.length = 0
    cursor.bufferedBytes = 0
  }

  #wakeWork (): void {
    this.#workVersion++
    for (const wake of this.#workWaiters.splice(0)) wake()
  }

  #wakeData (): void {
    for (const wake of this.#dataWaiters.splice(0)) wake()
  }

  #fail (error: Error): void {
    if (this.#failure !== undefined) return
    this.#failure = error
    // An 'error' event without a listener would throw: the iterator reports the error anyway.
    if (this.listenerCount('error') > 0) this.emit('error', error)
    this.#wakeData()
    void this.close()
  }
}

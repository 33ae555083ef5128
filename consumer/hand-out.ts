/**
 * A batch as it goes out to the application: HandOutBatch (made at hand-out from a
 * buffered entry, stale once its partition moves on), the records it holds (the decoded
 * record batches at or past where the fetch started, gathered without pushes), and
 * HandedBatch, the batch with the call that says the application is done with it; and
 * HandOut, which decides which batch goes out next and when, and follows a handed batch
 * until the application finishes it. The consumer (consumer.ts) is reached through
 * HandOutHost.
 */
import type { Client } from '../client/client'
import { backoffDelay } from '../client/backoff'
import { channels, publishAsyncEnd, subscribed, type ConsumerBatchTrace } from '../client/instrumentation'
import type { RecordDeserializer } from '../client/serializers'
import { Signal } from '../client/signal'
import { decodeScannedBatches, NO_RECORDS, type KafkaRecord, type RecordMaker, type ScannedBatch } from '../protocol/record-batch'
import type { BufferedBatch, ConsumerBatch, Cursor, Processing } from './cursor'
import type { FetchErrorEvent } from './source'

/** A batch handed out, with the call that tells the consumer the application is done with it. */
export interface HandedBatch<K = Buffer, V = Buffer> {
  /** The batch. */
  readonly batch: ConsumerBatch<K, V>
  /**
   * The application is done with the batch. `processedUpTo` is the offset after the last
   * record it processed (default: the whole batch); `null` marks nothing as processed (the
   * fetch position still moves on). Records after `processedUpTo` are not fetched again
   * unless the caller seeks back to them.
   */
  readonly finish: (processedUpTo?: bigint | null) => void
  /**
   * The fetch answer this batch was cut from goes on in the partition's next buffered batch
   * (an answer past maxBatchRecords/maxBatchBytes is handed out in parts): the kafkajs
   * drop-in commits after an answer's last part, as kafkajs commits after each fetched batch.
   */
  readonly moreOfAnswer: boolean
}

/**
 * A handed batch with the cursor of its partition, for kafkats's own loops (run(), the
 * exactly-once loop): the application's HandedBatch does not carry the cursor, whose
 * position and ownership only the consumer and its group may change.
 */
export interface CursorBatch<K = Buffer, V = Buffer> extends HandedBatch<K, V> {
  readonly cursor: Cursor
}

/**
 * A batch as the application sees it, made when it is handed out (from its buffered entry,
 * with the records decoded then). `isStale` compares the cursor's version with the one it
 * was fetched under, so it costs no closure per batch.
 */
export class HandOutBatch implements ConsumerBatch {
  readonly topic: string
  readonly partition: number
  records: KafkaRecord[]
  highWatermark: bigint
  nextOffset: bigint
  skippedFrom?: bigint
  readonly #cursor: Cursor
  readonly #version: number

  constructor (cursor: Cursor, entry: BufferedBatch, records: KafkaRecord[]) {
    this.topic = cursor.topic
    this.partition = cursor.partition
    this.records = records
    this.highWatermark = entry.highWatermark
    this.nextOffset = entry.nextOffset
    if (entry.skippedFrom !== undefined) this.skippedFrom = entry.skippedFrom
    this.#cursor = cursor
    this.#version = entry.version
  }

  isStale (): boolean {
    return this.#cursor.version !== this.#version || this.#cursor.ownership.released
  }
}

/**
 * The decoded records of pending batches at or past `from` (where the first was fetched
 * from): the decoded array itself when one batch holds them all, else one array of the
 * right size (no pushes).
 */
export function decodedRecords (pending: ScannedBatch[], from: bigint, maker: RecordMaker | undefined): KafkaRecord[] {
  if (pending[0].batch.baseOffset < from) return recordsFrom(pending, from, maker)
  if (pending.length === 1) return pending[0].batch.records
  let count = 0
  for (let i = 0; i < pending.length; i++) count += pending[i].batch.records.length
  const out: KafkaRecord[] = new Array(count)
  let n = 0
  for (let i = 0; i < pending.length; i++) {
    const rs = pending[i].batch.records
    for (let j = 0; j < rs.length; j++) out[n++] = rs[j]
  }
  return out
}

/** The records of pending batches at or past `from`, pushed one by one (the first batch starts below it). */
function recordsFrom (pending: ScannedBatch[], from: bigint, maker: RecordMaker | undefined): KafkaRecord[] {
  const out: KafkaRecord[] = []
  for (const { batch } of pending) {
    const rs = batch.records
    if (batch.baseOffset >= from) {
      for (let i = 0; i < rs.length; i++) out.push(rs[i])
    } else {
      for (let i = 0; i < rs.length; i++) if ((maker === undefined ? rs[i].offset : maker.offsetOf(rs[i])) >= from) out.push(rs[i])
    }
  }
  return out
}

export interface ConsumerHooks {
  /** Before a batch is handed out; false drops it (at-most-once commits first here). */
  beforeHandOut?: (cursor: Cursor, batch: ConsumerBatch) => Promise<boolean>
  /** After the application finished a batch of a partition still held. */
  onFinished?: (cursor: Cursor, batch: ConsumerBatch) => void
  /** A batch has been out with the application longer than maxProcessingMs (reported once per batch). */
  onProcessingTimeout?: (cursor: Cursor, processing: Processing) => void
}

/** What the hand-out reaches of its consumer. */
export interface HandOutHost {
  readonly client: Client
  /** The partitions held, by key. */
  readonly cursors: ReadonlyMap<string, Cursor>
  /**
   * Cursors removed (revoked, lost, replaced) while their batch was still processed, by
   * partition key: a partition that comes back hands out nothing until that batch returned.
   * The entry goes when that batch finishes.
   */
  readonly predecessors: Map<string, Cursor>
  /** The emptyBatches option: a batch whose records were all compacted away goes out empty. */
  readonly emptyBatches: boolean
  /** The consumer's group, for the batch trace (undefined without one). */
  groupId: () => string | undefined
  hooks: () => ConsumerHooks
  /** The error the consumer failed with. */
  failure: () => Error | undefined
  /** Closed, or hand-outs stopped (close() started). */
  ended: () => boolean
  /** A batch went out with the application: maxProcessingMs is watched. */
  watchProcessing: () => void
  /** A batch went out (client.metrics()). */
  consumed: (batch: ConsumerBatch) => void
  wakeFetching: () => void
  /** The broker `cursor` is fetched from. */
  nodeOf: (cursor: Cursor) => number
  fetchError: (event: FetchErrorEvent) => void
  warn: (error: unknown) => void
  fail: (error: Error) => void
}

/**
 * The hand-out: which buffered batch goes out next (round-robin over partitions, one batch
 * per partition at a time), decoding and deserializing it, and the handed batch's lifecycle
 * until the application finishes it.
 */
export class HandOut {
  readonly #host: HandOutHost
  /** Undefined without deserializers: batches go out as fetched. */
  readonly #deserializer: RecordDeserializer | undefined
  readonly #recordMaker: RecordMaker | undefined
  /** Wakes readers (nextBatch, batches(), run() workers) waiting for a buffered batch. */
  readonly #dataReady = new Signal()
  #handOutStart = 0
  /**
   * The cursors in the map's order, for the round-robin: made again only after
   * `cursorsChanged()`, not at every hand-out (a copy of 10,000 cursors per batch made the
   * hand-out cost grow with partitions × batches).
   */
  #order: Cursor[] | undefined
  /** Batches handed to run() handlers (not to a `for await` loop or a nextBatch() caller). */
  readonly #runBatches = new WeakSet<ConsumerBatch>()
  /** 'kafkats:consumer:batch' contexts of batches out with the application (only while someone subscribes). */
  readonly #traces = new WeakMap<ConsumerBatch, ConsumerBatchTrace>()

  constructor (host: HandOutHost, deserializer: RecordDeserializer | undefined, recordMaker: RecordMaker | undefined) {
    this.#host = host
    this.#deserializer = deserializer
    this.#recordMaker = recordMaker
  }

  /** The consumer added, replaced or removed cursors: the round-robin's order is made again at the next hand-out. */
  cursorsChanged (): void {
    this.#order = undefined
  }

  /** Whether `batch` went to a run() handler. */
  isRunBatch (batch: ConsumerBatch): boolean {
    return this.#runBatches.has(batch)
  }

  /** The 'kafkats:consumer:batch' context of a batch out (only while someone subscribes). */
  trace (batch: ConsumerBatch): ConsumerBatchTrace | undefined {
    return this.#traces.get(batch)
  }

  /**
   * Undefined once closing or once `signal` aborted (checked before a batch is taken, so an
   * abort stops the hand-out, not a batch already on its way). `forRun`: the batch goes to
   * a run() handler, which publishes its trace's start itself (so the handler runs in the
   * subscriber's context). `accepts`: only batches of the partitions it accepts (asked
   * again at every wake()).
   */
  async next (signal: AbortSignal | undefined, forRun: boolean, accepts?: (cursor: Cursor) => boolean): Promise<CursorBatch | undefined> {
    for (;;) {
      const failure = this.#host.failure()
      if (failure !== undefined) throw failure
      if (this.#host.ended() || signal?.aborted === true) return undefined
      const handed = this.#takeBatch(accepts)
      if (handed !== undefined) {
        const { cursor, entry } = handed
        const batch = entry.pending.length > 0 ? await this.#decode(cursor, entry) : new HandOutBatch(cursor, entry, [])
        if (batch === undefined) {
          cursor.handingOut = false
          this.wake()
          continue
        }
        const beforeHandOut = this.#host.hooks().beforeHandOut
        if (beforeHandOut !== undefined) {
          // The batch is not "processing" yet: a revoke does not wait for a hand-out that
          // itself waits for the rebalance (at-most-once commits first), but `handingOut`
          // keeps the partition's next batch back so order holds.
          let allowed = false
          try {
            allowed = await beforeHandOut(cursor, batch)
          } catch (error) {
            this.#host.warn(error)
          }
          cursor.handingOut = false
          if (!allowed || cursor.ownership.released || this.#host.cursors.get(cursor.key) !== cursor) {
            this.wake()
            continue
          }
        }
        cursor.handingOut = false
        let finish!: () => void
        const finished = new Promise<void>(resolve => { finish = resolve })
        const records = batch.records
        const firstOffset = records.length === 0 ? undefined : this.#recordMaker === undefined ? records[0].offset : this.#recordMaker.offsetOf(records[0])
        cursor.processing = { batch, firstOffset, finished, finish, startedAt: this.#host.client.clock.now(), seeked: false, overdue: false }
        this.#host.watchProcessing()
        if (this.#deserializer !== undefined) {
          const pending = this.#deserialize(cursor, batch)
          if (pending !== undefined) await pending
        }
        this.#host.consumed(batch)
        if (subscribed(channels.consumerBatch)) this.#traceHandOut(batch, firstOffset, forRun)
        if (forRun) this.#runBatches.add(batch)
        return { batch, cursor, finish: (processedUpTo?: bigint | null) => this.finish(cursor, batch, processedUpTo === undefined ? batch.nextOffset : processedUpTo), moreOfAnswer: entry.moreOfAnswer }
      }
      // The caller's signal wakes the waiters (#wakeOnAbort): one listener per call, not per worker.
      await this.#dataReady.wait()
    }
  }

  /** Wakes readers when `signal` aborts, so they end; call the result to stop listening. */
  wakeOnAbort (signal: AbortSignal | undefined): () => void {
    if (signal === undefined) return () => {}
    const wake = (): void => this.wake()
    signal.addEventListener('abort', wake, { once: true })
    return () => signal.removeEventListener('abort', wake)
  }

  /** A batch being handed out through the deserializers; one that fails ends the consumer (its batch is not processed). */
  #deserialize (cursor: Cursor, batch: ConsumerBatch): Promise<void> | undefined {
    const failed = (error: unknown): never => {
      this.finish(cursor, batch, null)
      this.#host.fail(error as Error)
      throw error
    }
    try {
      return this.#deserializer!.batch(batch.topic, batch.partition, batch.records)?.catch(failed)
    } catch (error) {
      return failed(error)
    }
  }

  #traceHandOut (batch: ConsumerBatch, firstOffset: bigint | undefined, forRun: boolean): void {
    const trace: ConsumerBatchTrace = {
      clientId: this.#host.client.clientId,
      group: this.#host.groupId(),
      topic: batch.topic,
      partition: batch.partition,
      records: batch.records.length,
      firstOffset,
      nextOffset: batch.nextOffset,
      highWatermark: batch.highWatermark
    }
    this.#traces.set(batch, trace)
    if (forRun) return
    channels.consumerBatch.start.publish(trace)
    channels.consumerBatch.end.publish(trace)
  }

  /** `accepts`: the caller takes batches of these partitions only (a concurrent run's full queues); the others stay buffered. */
  #takeBatch (accepts: ((cursor: Cursor) => boolean) | undefined): { cursor: Cursor, entry: BufferedBatch } | undefined {
    const cursors = this.#order ??= [...this.#host.cursors.values()]
    const n = cursors.length
    // Round-robin over partitions, so one busy partition does not starve the others.
    for (let i = 0; i < n; i++) {
      const cursor = cursors[(this.#handOutStart + i) % n]
      if (cursor.processing !== undefined || cursor.handingOut || cursor.paused || cursor.buffered.length === 0) continue
      // The partition's previous ownership still has a batch out: one handler per partition.
      if (this.#host.predecessors.size > 0 && this.#host.predecessors.has(cursor.key)) continue
      if (accepts !== undefined && !accepts(cursor)) continue
      const entry = cursor.takeBuffered()!
      this.#host.wakeFetching()
      if (entry.version !== cursor.version || cursor.ownership.released) continue
      this.#handOutStart = (this.#handOutStart + i + 1) % Math.max(1, n)
      cursor.handingOut = true
      return { cursor, entry }
    }
    return undefined
  }

  /**
   * Decodes a buffered batch's records as it is handed out (decompression, records; the
   * CRC was checked when the answer came) into the batch handed out. Undefined when there is nothing to hand out: the
   * partition moved on meanwhile, the records were all below the fetch position, or they
   * could not be decoded — then the partition is fetched again from the batch's start
   * after a backoff, with a 'fetchError' event, as for bad bytes at arrival.
   */
  async #decode (cursor: Cursor, entry: BufferedBatch): Promise<ConsumerBatch | undefined> {
    const pending = entry.pending
    entry.pending = []
    try {
      await decodeScannedBatches(pending, { topic: cursor.topic, partition: cursor.partition, recordMaker: this.#recordMaker })
    } catch (error) {
      if (entry.version === cursor.version && this.#host.cursors.get(cursor.key) === cursor) this.#undecodable(cursor, entry, error as Error)
      return undefined
    }
    if (entry.version !== cursor.version || cursor.ownership.released || this.#host.cursors.get(cursor.key) !== cursor) return undefined
    cursor.decodeFailures = 0
    // Nothing that waited in the buffer (the entry, its record batches) is left pointing at
    // the records: those objects may have reached the old generation, and an old object
    // pointing at young records keeps them alive through every scavenge until the next full
    // collection. With 9,000-record batches (the kafkajs drop-in's) that promoted half of
    // all records and took CPU per record up by half. So the batch object is made here, and
    // the record batches let go of their records.
    const batch = new HandOutBatch(cursor, entry, decodedRecords(pending, entry.fetchedFrom, this.#recordMaker))
    for (let i = 0; i < pending.length; i++) pending[i].batch.records = NO_RECORDS
    if (batch.records.length > 0) return batch
    // A compacted batch may keep its last offset and lose the records at or past the fetch position.
    if (this.#host.emptyBatches) {
      batch.skippedFrom = entry.fetchedFrom
      return batch
    }
    if (cursor.processing === undefined && cursor.buffered.length === 0) cursor.processedOffset = batch.nextOffset
    return undefined
  }

  /** A buffered batch could not be decoded: fetch it again from its start after a backoff, reported as a fetchError. */
  #undecodable (cursor: Cursor, entry: BufferedBatch, error: Error): void {
    // Drops what was buffered after it and any answer in flight (the version moves on); what was processed stands.
    cursor.seek(entry.fetchedFrom, entry.fetchedEpoch)
    const delay = backoffDelay(cursor.decodeFailures++, this.#host.client.backoff)
    cursor.retryAt = this.#host.client.clock.now() + Math.ceil(delay)
    this.#host.fetchError({ nodeId: this.#host.nodeOf(cursor), topic: cursor.topic, partition: cursor.partition, error, retryInMs: Math.round(delay) })
    this.#host.client.clock.setTimer(() => this.#host.wakeFetching(), Math.ceil(delay) + 2)
    this.#host.wakeFetching()
  }

  /** The application is done with `batch` (HandedBatch.finish): `processedUpTo` becomes the processed offset unless the partition left or was sought. */
  finish (cursor: Cursor, batch: ConsumerBatch, processedUpTo: bigint | null): void {
    const processing = cursor.processing
    if (processing === undefined || processing.batch !== batch) return
    cursor.processing = undefined
    processing.finish()
    const trace = this.#traces.get(batch)
    if (trace !== undefined) {
      this.#traces.delete(batch)
      trace.processedUpTo = processedUpTo
      publishAsyncEnd(channels.consumerBatch, trace, trace.error)
    }
    if (this.#host.predecessors.get(cursor.key) === cursor) this.#host.predecessors.delete(cursor.key)
    // A late finish for a partition that left this member is dropped, never re-inserted
    // (invariant 3); after a seek the seek target counts, not this batch's end.
    if (processedUpTo !== null && !cursor.ownership.released && !processing.seeked) {
      cursor.processedOffset = processedUpTo
      this.#host.hooks().onFinished?.(cursor, batch)
    }
    this.wake()
  }

  /** Wakes the readers waiting for a batch. */
  wake (): void {
    this.#dataReady.notify()
  }
}

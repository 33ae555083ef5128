/**
 * run({ eachRecord, concurrency }): records handled at once across all partitions, at most
 * `concurrency`, with the records of one key (or one partition) one after the other in
 * offset order (key-scheduler.ts), and per partition a progress (partition-progress.ts)
 * that says what counts as processed: the offset below which everything finished, with
 * the records finished above it written into the commit's metadata (offset-map.ts).
 *
 * The records come from the consumer's hand-out like every batch: a batch is taken (only of
 * a partition whose queue has room, `accepts`), its records go into the queues, and the
 * batch is finished at once with nothing marked processed, so the partition's next batch
 * can follow while these run; what is processed is the progress's to say. Everything the
 * group keeps for a handed batch holds for these records: the commit guard (the offsets
 * and metadata go through the committer's one commit path), a revoke waits for the
 * partition's running records (`Cursor.progress`, consumer.ts removePartitions) and commits
 * what finished, a fence releases the ownership first so nothing finished later counts.
 *
 * A record is stale (never started, its key's later records dropped with it) once its
 * partition was sought, revoked, lost or removed, or hand-outs stopped (close()).
 */
import type { Clock, ClockTimer } from '../../client/clock'
import type { KafkaRecord } from '../../protocol/record-batch'
import type { ConsumerBatch, Cursor } from '../cursor'
import type { RunOptions, RunRetryOptions } from '../consumer-options'
import type { CursorBatch } from '../hand-out'
import type { HandlerErrorEvent } from '../run'
import { Signal } from '../../client/signal'
import { KeyScheduler } from './key-scheduler'
import { decodeOffsetMap, isFinished } from './offset-map'
import { PartitionProgress, type TrackedRecord } from './partition-progress'

/** What a concurrent run() needs of its consumer. */
export interface ConcurrentRunHost {
  /** The next batch of a partition `accepts` takes; undefined once hand-outs stop or `signal` aborted. */
  nextBatch: (signal: AbortSignal | undefined, accepts: (cursor: Cursor) => boolean) => Promise<CursorBatch | undefined>
  /** Hand-outs stopped (close() started): nothing more starts. */
  readonly stopping: boolean
  /** Aborts when hand-outs stop: ends retry backoffs. */
  readonly stopSignal: AbortSignal
  readonly clock: Clock
  /** Whether `cursor` is still the consumer's cursor of its partition (not removed or replaced). */
  isCurrent: (cursor: Cursor) => boolean
  /** Partitions the consumer holds now (for each one's share of the waiting records). */
  partitionsHeld: () => number
  /** Makes waiting hand-outs ask `accepts` again (a queue has room). */
  wakeHandOut: () => void
  handlerError: (event: HandlerErrorEvent) => void
  /** Ends the consumer with the error. */
  fail: (error: Error) => void
  /** Wakes waiting hand-outs when `signal` aborts; call the result to stop listening. */
  wakeOnAbort: (signal: AbortSignal | undefined) => () => void
  close: () => Promise<void>
}

/** A record in the run: where it came from, its place in its partition's progress, its retries. */
interface RunRecord {
  readonly record: KafkaRecord
  readonly batch: ConsumerBatch
  readonly cursor: Cursor
  readonly progress: PartitionProgress
  readonly tracked: TrackedRecord
  readonly key: string
  readonly bytes: number
  attempt: number
}

const DEFAULT_MAX_WAITING_RECORDS = 10_000
const DEFAULT_MAX_WAITING_BYTES = 64 * 1024 * 1024
/** Per record, besides its key and value: the record object, its run entry and tracked offset. */
const RECORD_OVERHEAD_BYTES = 200

function sizeOf (value: unknown): number {
  return Buffer.isBuffer(value) ? value.length : typeof value === 'string' ? value.length * 2 : 0
}

/** The key a record waits on: its partition with its key, its partition, or itself. */
function orderingKey (ordering: 'key' | 'partition' | 'none', partition: string, record: KafkaRecord): string {
  if (ordering === 'partition') return partition
  if (ordering === 'none') return `${partition}@${record.offset}`
  const key: unknown = record.key
  if (key === null || key === undefined) return `${partition}\u0000`
  if (Buffer.isBuffer(key)) return `${partition}\u0001${key.toString('latin1')}`
  if (typeof key === 'string') return `${partition}\u0002${key}`
  // A deserialized key: its JSON (records whose keys print alike wait for each other, which is safe).
  let text: string
  try {
    text = JSON.stringify(key, (_k, v: unknown) => typeof v === 'bigint' ? `${v}n` : v) ?? String(key)
  } catch {
    text = String(key)
  }
  return `${partition}\u0003${text}`
}

/**
 * The function run() calls each handler through: its name marks run() handlers in async
 * stack traces, which close() looks for (`calledFromHandler`, run.ts) so a handler's
 * close() does not wait for itself. The same name as run.ts's for that reason.
 */
async function kafkatsRunHandler (eachRecord: NonNullable<RunOptions['eachRecord']>, record: KafkaRecord, batch: ConsumerBatch): Promise<void> {
  await eachRecord(record, batch)
}

export class ConcurrentRun {
  readonly #host: ConcurrentRunHost
  readonly #options: RunOptions
  readonly #retry: RunRetryOptions | undefined
  readonly #concurrency: number
  readonly #ordering: 'key' | 'partition' | 'none'
  readonly #maxWaitingRecords: number
  readonly #maxWaitingBytes: number
  readonly #maxMetadataChars: number
  readonly #scheduler = new KeyScheduler<RunRecord>()
  /** Records whose retry backoff ended, started before any new record. */
  readonly #retryReady: RunRecord[] = []
  /** Backoff timers of records waiting to be retried. */
  readonly #retryTimers = new Map<RunRecord, ClockTimer>()
  #running = 0
  /** Taken in and not started: queued, or waiting to be retried. */
  #waiting = 0
  #waitingBytes = 0
  /** The feeder was refused a partition since the queues last had room: wake the hand-out when they do. */
  #refused = false
  #failure: { error: unknown } | undefined
  /** Something the end of run() waits on changed (a record settled, the feeder ended). */
  readonly #changed = new Signal()

  constructor (host: ConcurrentRunHost, options: RunOptions) {
    this.#host = host
    this.#options = options
    this.#retry = options.retry === true ? {} : options.retry === false ? undefined : options.retry
    this.#concurrency = options.concurrency!
    this.#ordering = options.ordering ?? 'key'
    this.#maxWaitingRecords = options.maxWaiting?.records ?? DEFAULT_MAX_WAITING_RECORDS
    this.#maxWaitingBytes = options.maxWaiting?.bytes ?? DEFAULT_MAX_WAITING_BYTES
    this.#maxMetadataChars = options.maxMetadataBytes ?? 4096
  }

  /** Records whose handler runs now. */
  get inFlight (): number {
    return this.#running
  }

  /** Records taken from the consumer and not started (queued, or waiting to be retried). */
  get waiting (): number {
    return this.#waiting
  }

  /**
   * Resolves when hand-outs ended (close(), or `signal`: then every record taken in is
   * still handled) and no record runs; rejects, once the consumer closed, with a handler's
   * error that no retry or dead-letter hook took.
   */
  async run (): Promise<void> {
    const stopListening = this.#host.wakeOnAbort(this.#options.signal)
    try {
      await this.#feed()
    } catch (error) {
      this.#failure ??= { error }
    } finally {
      stopListening()
    }
    // Stopped by `signal`: what was taken in is still handled, but nothing is retried any more.
    if (this.#options.signal?.aborted === true) this.#dropRetries()
    this.#pump()
    while (this.#running > 0 || this.#waiting > 0) await this.#changed.wait()
    if (this.#failure !== undefined) {
      // Rejects once the consumer has left (its partitions are other members' now).
      await this.#host.close().catch(() => {})
      throw this.#failure.error
    }
  }

  /** Takes batches while hand-outs go on: each one's records into the queues. */
  async #feed (): Promise<void> {
    const accepts = (cursor: Cursor): boolean => this.#accepts(cursor)
    while (this.#failure === undefined) {
      const handed = await this.#host.nextBatch(this.#options.signal, accepts)
      if (handed === undefined) return
      this.#takeIn(handed)
      this.#pump()
    }
  }

  /** Whether a batch of `cursor`'s partition may come in now (backpressure: see RunOptions.maxWaiting). */
  #accepts (cursor: Cursor): boolean {
    const progress = cursor.progress as PartitionProgress | undefined
    const share = Math.ceil(this.#maxWaitingRecords / Math.max(1, this.#host.partitionsHeld()))
    const room = this.#waiting < this.#maxWaitingRecords && this.#waitingBytes < this.#maxWaitingBytes &&
      (progress === undefined || (progress.waiting < share && progress.tracked < this.#maxWaitingRecords))
    if (!room) this.#refused = true
    return room
  }

  /** A batch's records into their partition's progress and their keys' queues; the batch itself is done with. */
  #takeIn ({ batch, cursor, finish }: CursorBatch): void {
    // Nothing marked: what is processed is the progress's to say. The partition's next batch may go out.
    finish(null)
    if (batch.isStale()) return
    const records = batch.records
    let progress = cursor.progress as PartitionProgress | undefined
    const first = records.length > 0 ? records[0].offset : batch.nextOffset
    // A new progress for a partition sought, or whose position moved back (truncation, reset).
    if (progress === undefined || progress.abandoned || (progress.end !== undefined && first < progress.end)) {
      progress?.abandon()
      // The previous owner's offset map, read once, for the position it was committed at.
      const skip = cursor.version === 0 && cursor.committedOffset !== undefined ? decodeOffsetMap(cursor.committedMetadata, cursor.committedOffset) : undefined
      cursor.committedMetadata = undefined
      progress = new PartitionProgress(cursor, skip, this.#maxMetadataChars)
      cursor.progress = progress
    }
    const skip = progress.skip
    for (let i = 0; i < records.length; i++) {
      const record = records[i]
      const tracked = progress.add(record.offset)
      if (skip !== undefined && isFinished(skip, record.offset)) {
        progress.finish(tracked)
        continue
      }
      const bytes = sizeOf(record.key) + sizeOf(record.value) + RECORD_OVERHEAD_BYTES
      const entry: RunRecord = { record, batch, cursor, progress, tracked, key: orderingKey(this.#ordering, cursor.key, record), bytes, attempt: 0 }
      this.#waiting++
      this.#waitingBytes += bytes
      progress.waiting++
      this.#scheduler.push(entry.key, entry)
    }
    progress.endAt(batch.nextOffset)
  }

  #stale (entry: RunRecord): boolean {
    return entry.progress.abandoned || entry.cursor.ownership.released || this.#host.stopping || !this.#host.isCurrent(entry.cursor)
  }

  /** Starts records while there is room: retries first, then the queues in the order keys became ready. */
  #pump (): void {
    if (this.#failure !== undefined || this.#host.stopping) this.#dropAll()
    while (this.#running < this.#concurrency) {
      const entry = this.#retryReady.shift() ?? this.#scheduler.take()?.item
      if (entry === undefined) break
      this.#left(entry)
      if (this.#stale(entry)) {
        this.#giveUp(entry)
        continue
      }
      this.#start(entry)
    }
    if (this.#refused) {
      this.#refused = false
      this.#host.wakeHandOut()
    }
    this.#changed.notify()
  }

  /** The record is no longer waiting (started, or given up). */
  #left (entry: RunRecord): void {
    this.#waiting--
    this.#waitingBytes -= entry.bytes
    entry.progress.waiting--
  }

  /** Never started again: its key's queued records go too (a later record of the key must not finish before it). */
  #giveUp (entry: RunRecord): void {
    for (const dropped of this.#scheduler.dropKey(entry.key)) this.#left(dropped)
    this.#scheduler.release(entry.key)
  }

  /** Failed run or close(): nothing queued or waiting to be retried starts any more. */
  #dropAll (): void {
    for (const dropped of this.#scheduler.dropAll()) this.#left(dropped)
    this.#dropRetries()
  }

  /** Records waiting to be retried are given up (unfinished), with their keys' queued records. */
  #dropRetries (): void {
    for (const [entry, timer] of this.#retryTimers) {
      timer.cancel()
      this.#retryReady.push(entry)
    }
    this.#retryTimers.clear()
    for (const entry of this.#retryReady.splice(0)) {
      this.#left(entry)
      this.#giveUp(entry)
    }
  }

  #start (entry: RunRecord): void {
    this.#running++
    entry.progress.started()
    kafkatsRunHandler(this.#options.eachRecord!, entry.record, entry.batch).then(
      () => { this.#settled(entry, true) },
      (error: unknown) => { void this.#failed(entry, error) }
    )
  }

  /** A handler returned (`finished`) or its failure was dealt with. */
  #settled (entry: RunRecord, finished: boolean): void {
    this.#running--
    entry.progress.settled()
    if (finished) {
      entry.progress.finish(entry.tracked)
      this.#scheduler.release(entry.key)
    }
    this.#pump()
  }

  /** A handler threw: retry after a backoff (its key waits), hand it to the dead-letter hook, or fail the run. */
  async #failed (entry: RunRecord, error: unknown): Promise<void> {
    const retry = this.#retry
    const base = { error, topic: entry.batch.topic, partition: entry.batch.partition, offset: entry.record.offset }
    if (this.#stale(entry) || this.#failure !== undefined) {
      this.#giveUp(entry)
      this.#settled(entry, false)
      return
    }
    if (retry !== undefined && entry.attempt < (retry.maxRetries ?? Infinity)) {
      if (this.#options.signal?.aborted === true) {
        // run() is stopping gracefully: not retried, left unfinished (read again later).
        this.#giveUp(entry)
        this.#settled(entry, false)
        return
      }
      const retryInMs = Math.min(retry.maxMs ?? 30_000, (retry.initialMs ?? 100) * 2 ** entry.attempt)
      entry.attempt++
      this.#host.handlerError({ ...base, outcome: 'retry', attempt: entry.attempt, retryInMs })
      // Waiting again: its key stays taken, so the key's next records wait; the others go on.
      this.#waiting++
      this.#waitingBytes += entry.bytes
      entry.progress.waiting++
      this.#retryTimers.set(entry, this.#host.clock.setTimer(() => {
        this.#retryTimers.delete(entry)
        this.#retryReady.push(entry)
        this.#pump()
      }, retryInMs))
      this.#settled(entry, false)
      return
    }
    const deadLetter = this.#options.onDeadLetter
    if (deadLetter !== undefined) {
      try {
        await deadLetter(entry.record, error, entry.batch)
        this.#host.handlerError({ ...base, outcome: 'dead-letter', attempt: entry.attempt, retryInMs: 0 })
        this.#settled(entry, true)
        return
      } catch (hookError) {
        error = hookError
      }
    }
    this.#failure ??= { error }
    this.#giveUp(entry)
    this.#settled(entry, false)
    this.#host.fail(error instanceof Error ? error : new Error(String(error)))
  }
}

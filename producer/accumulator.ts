/**
 * Accumulator: the records buffered and not yet answered, by partition. It owns the
 * partitions' queues (and which of them hold batches), the open batch records are appended
 * to, and the buffer accounting that backpressure reads (maxBufferedBytes and
 * maxBufferedRecords). The producer chooses the partition and decides when to send;
 * sending and answering a batch leave it here through `finish`.
 *
 * append() runs once per record: keep it free of closures, copies and further calls.
 */
import type { Clock } from '../client/clock'
import { RECORD_BATCH_OVERHEAD, type RecordInput } from '../protocol/record-batch'
import { ProducerBatch, type SendTracker, type Waiter } from './batch'
import { RecordTooLargeError } from './errors'
import { PartitionQueue } from './partition-queue'
import type { Partitioner } from './partitioners'
import type { ProducerRecord } from './record-input'

/** What the Accumulator needs of the producer. */
export interface AccumulatorHost {
  /** `batch` was opened (its `createdAt` is now): its linger and its delivery timeout run from there. */
  batchOpened: (batch: ProducerBatch) => void
  /** A batch reached batchMaxBytes: it is sealed and may go without lingering. */
  batchFull: () => void
  /** A produce() callback threw (handed to each new batch). */
  onCallbackThrow: (error: unknown) => void
}

export interface AccumulatorLimits {
  batchMaxBytes: number
  maxRequestBytes: number
  maxBufferedBytes: number
  maxBufferedRecords: number
}

export class Accumulator {
  readonly #limits: AccumulatorLimits
  readonly #partitioner: Partitioner
  readonly #host: AccumulatorHost
  /** The client's clock: a batch's `createdAt`, read once per batch (linger and delivery timeout run from it). */
  readonly #clock: Clock
  // Created on first use; changed only on the event loop, through the methods below.
  readonly #queues = new Map<string, PartitionQueue>()
  // The same queues by topic and partition: the per-record lookup, without building a key string.
  readonly #queuesByTopic = new Map<string, PartitionQueue[]>()
  /** Queues that hold batches; the drain looks only at these. */
  readonly #active = new Set<PartitionQueue>()
  // Records appended (or waiting for their topic) and not yet answered, and their bytes.
  #bufferedBytes = 0
  #bufferedRecords = 0

  constructor (clock: Clock, limits: AccumulatorLimits, partitioner: Partitioner, host: AccumulatorHost) {
    this.#clock = clock
    this.#limits = limits
    this.#partitioner = partitioner
    this.#host = host
  }

  /** Queues that hold batches. */
  get active (): ReadonlySet<PartitionQueue> {
    return this.#active
  }

  /** Every queue created so far. */
  queues (): IterableIterator<PartitionQueue> {
    return this.#queues.values()
  }

  get bufferedBytes (): number {
    return this.#bufferedBytes
  }

  get bufferedRecords (): number {
    return this.#bufferedRecords
  }

  /** At maxBufferedBytes/maxBufferedRecords: produce() refuses, send() waits. */
  get full (): boolean {
    return this.#bufferedBytes >= this.#limits.maxBufferedBytes || this.#bufferedRecords >= this.#limits.maxBufferedRecords
  }

  /** Whether the buffer has room for a record of `bytes`: below maxBufferedRecords, and within maxBufferedBytes (an empty buffer takes any record). */
  hasRoom (bytes: number): boolean {
    if (this.#bufferedRecords >= this.#limits.maxBufferedRecords) return false
    return this.#bufferedBytes === 0 || this.#bufferedBytes + bytes <= this.#limits.maxBufferedBytes
  }

  /**
   * A record that no request or no buffer of this producer can hold, as a batch of its
   * own: refused at once (as the Java client's max.request.size and buffer.memory checks).
   * Sent anyway, a request over the broker's socket.request.max.bytes is answered by
   * closing the connection, again at every retry.
   */
  tooLarge (record: ProducerRecord, recordBytes: number): RecordTooLargeError | undefined {
    const { maxRequestBytes, maxBufferedBytes } = this.#limits
    const bytes = RECORD_BATCH_OVERHEAD + recordBytes
    if (bytes <= maxRequestBytes && bytes <= maxBufferedBytes) return undefined
    const limit = bytes > maxRequestBytes
      ? { option: 'maxRequestBytes' as const, bytes: maxRequestBytes }
      : bytes > maxBufferedBytes ? { option: 'maxBufferedBytes' as const, bytes: maxBufferedBytes } : undefined
    return limit === undefined ? undefined : new RecordTooLargeError(record.topic, record.partition ?? -1, bytes, undefined, limit)
  }

  /** Appends one record (`bytes`: its size bound) to the open batch of `topic`-`partition`, opening one when needed. */
  append (topic: string, partition: number, input: RecordInput, bytes: number, waiter: Waiter, index: number, batches: Set<ProducerBatch> | undefined): void {
    let byPartition = this.#queuesByTopic.get(topic)
    if (byPartition === undefined) this.#queuesByTopic.set(topic, byPartition = [])
    let queue = byPartition[partition]
    if (queue === undefined) {
      byPartition[partition] = queue = new PartitionQueue(topic, partition)
      this.#queues.set(queue.key, queue)
    }
    const batchMaxBytes = this.#limits.batchMaxBytes
    let batch = queue.openBatch
    if (batch !== undefined && batch.recordCount > 0 && batch.bytes + bytes > batchMaxBytes) {
      batch.sealed = true
      batch = undefined
    }
    if (batch === undefined) {
      batch = new ProducerBatch(topic, partition, this.#clock.now(), this.#host.onCallbackThrow)
      queue.push(batch)
      this.#active.add(queue)
      this.#host.batchOpened(batch)
    }
    batch.add(input, bytes, waiter, index)
    batches?.add(batch)
    this.#bufferedBytes += bytes
    this.#bufferedRecords++
    this.#partitioner.onAppend?.(topic, partition, bytes)
    if (batch.bytes >= batchMaxBytes) {
      batch.sealed = true
      this.#partitioner.onBatchComplete?.(topic, partition)
      this.#host.batchFull()
    }
  }

  /** A record held outside any batch (waiting for its topic) counts against the limits as `bytes`. */
  countWaiting (bytes: number): void {
    this.#bufferedBytes += bytes
    this.#bufferedRecords++
  }

  uncountWaiting (bytes: number): void {
    this.#bufferedBytes -= bytes
    this.#bufferedRecords--
  }

  /** `batch` was answered (or failed): out of its queue, and out of the buffer. */
  finish (queue: PartitionQueue, batch: ProducerBatch): void {
    this.#remove(queue, batch)
    this.#bufferedBytes -= batch.bytes - 61
    this.#bufferedRecords -= batch.recordCount
  }

  /** Takes `tracker`'s records out of an unsent batch (an abort) and returns their indexes; a batch left empty leaves its queue. */
  removeWaiter (queue: PartitionQueue, batch: ProducerBatch, tracker: SendTracker): number[] {
    const before = batch.records.length
    const removed = batch.removeWaiter(tracker)
    const freed = removed.length
    if (freed > 0) {
      // Approximate: the batch's bytes shrink in proportion (the exact sizes were not kept per record).
      const share = Math.round((batch.bytes - 61) * freed / before)
      batch.bytes -= share
      this.#bufferedBytes -= share
      this.#bufferedRecords -= freed
    }
    if (batch.recordCount === 0) this.#remove(queue, batch)
    return removed
  }

  /** The queue `batch` belongs to (created when the batch was). */
  queueOf (batch: ProducerBatch): PartitionQueue {
    return this.#queues.get(`${batch.topic}-${batch.partition}`)!
  }

  /** Whether `batch` is still in its queue (not answered, not dropped). */
  holds (batch: ProducerBatch): boolean {
    return this.#queues.get(`${batch.topic}-${batch.partition}`)?.batches.includes(batch) ?? false
  }

  #remove (queue: PartitionQueue, batch: ProducerBatch): void {
    queue.remove(batch)
    if (queue.batches.length === 0) this.#active.delete(queue)
  }
}

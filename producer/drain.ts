/**
 * Drain: what is sendable to which leader, and when to look again (Java's
 * RecordAccumulator.ready/drain and its next ready-check delay). A drain wakes the sink of
 * every leader whose partitions hold batches (and asks for metadata when a partition has
 * none); each sink then takes, per request, at most one batch per partition it leads
 * (takeSendable): one whose retry backoff is over, with room in flight
 * (PartitionQueue.mayAddInFlight), under an identity Sequencing allows, of a partition in
 * the transaction, and whose linger is over unless it is full or the producer flushes.
 * A batch held back by a backoff or a linger sets the next wake-up (DrainSchedule.at, on
 * the client's clock); a batch whose connection died before goes alone (a suspect).
 */
import type { Client } from '../client/client'
import type { Accumulator } from './accumulator'
import type { ProducerBatch } from './batch'
import { DrainSchedule } from './drain-schedule'
import type { ProducerIdentity } from './identity'
import type { PartitionQueue } from './partition-queue'
import type { Sequencing } from './sequencing'
import { Sink, type SendItem, type SinkOptions, type SinkHost } from './sink'
import type { TransactionManager } from './transaction'

/** What the Drain needs of the producer. */
export interface DrainHost {
  /** Whether a batch that is not full waits out its linger: not while the producer flushes or closes. */
  lingering: () => boolean
  /** A partition with batches has no leader: refresh metadata soon. */
  refreshMetadata: () => void
}

export interface DrainOptions {
  idempotent: boolean
  lingerMs: number
  /** The sinks' options (the same object: a transaction lowers maxProduceVersion in it). */
  sink: SinkOptions
}

export class Drain {
  readonly #client: Client
  readonly #accumulator: Accumulator
  readonly #identity: ProducerIdentity
  readonly #sequencing: Sequencing
  readonly #txn: TransactionManager | undefined
  readonly #options: DrainOptions
  readonly #host: DrainHost
  /** Whom the sinks hand outcomes to (the producer). */
  readonly #sinkHost: SinkHost
  readonly #sinks = new Map<number, Sink>()
  readonly #schedule: DrainSchedule
  /** Batches whose connection died after their request was written, and that have not been answered since (see producer.ts MAX_CONNECTION_DEATHS). */
  readonly #suspects = new Set<ProducerBatch>()
  /** Drains on the next turn: a value made once, for the accumulator, Sequencing and the producer. */
  readonly soon: () => void

  constructor (client: Client, accumulator: Accumulator, identity: ProducerIdentity, sequencing: Sequencing, txn: TransactionManager | undefined, sinkHost: SinkHost, options: DrainOptions, host: DrainHost) {
    this.#client = client
    this.#accumulator = accumulator
    this.#identity = identity
    this.#sequencing = sequencing
    this.#txn = txn
    this.#sinkHost = sinkHost
    this.#options = options
    this.#host = host
    this.#schedule = new DrainSchedule(client.clock, () => { this.#run() })
    this.soon = this.#schedule.soon
  }

  /** The sinks made so far, by broker (for debugState). */
  get sinks (): ReadonlyMap<number, Sink> {
    return this.#sinks
  }

  /** `batch` was opened: it is sendable when its linger ends (at once without one, or while flushing). */
  batchOpened (batch: ProducerBatch): void {
    if (this.#options.lingerMs <= 0 || !this.#host.lingering()) this.soon()
    else this.#schedule.at(batch.createdAt + this.#options.lingerMs)
  }

  /** Drains at `time` (ms since the epoch, on the client's clock): a retry's backoff ends. */
  at (time: number): void {
    this.#schedule.at(time)
  }

  /** The producer closed: no wake-up is left. */
  stop (): void {
    this.#schedule.stop()
  }

  /** The connection died with `batch`'s request written: it is sent alone from now on. */
  suspect (batch: ProducerBatch): void {
    this.#suspects.add(batch)
  }

  /** `batch` was answered or dropped: it is no suspect any more. */
  clearSuspect (batch: ProducerBatch): void {
    this.#suspects.delete(batch)
  }

  #run (): void {
    if (this.#accumulator.active.size === 0) return
    if (this.#options.idempotent && !this.#identity.ready) {
      this.#sequencing.acquire()
      return
    }
    const leaders = new Set<number>()
    let needMetadata = false
    for (const queue of this.#accumulator.active) {
      const leader = this.#client.metadata.partition(queue.topic, queue.partition)?.leaderId ?? -1
      if (leader < 0) needMetadata = true
      else leaders.add(leader)
    }
    if (needMetadata) this.#host.refreshMetadata()
    for (const nodeId of leaders) {
      let sink = this.#sinks.get(nodeId)
      if (sink === undefined) this.#sinks.set(nodeId, sink = new Sink(nodeId, this.#client, this.#sinkHost, this.#options.sink))
      sink.drain()
    }
  }

  /** One sendable batch per partition led by `nodeId`, marked in flight (see SinkHost.takeSendable). One clock read per call. */
  takeSendable (nodeId: number, maxBytes: number, nothingInFlight: boolean): SendItem[] {
    const items: SendItem[] = []
    const now = this.#client.clock.now()
    if (this.#suspects.size > 0) {
      // A batch whose connection died goes alone, with nothing else in flight to its broker:
      // if the connection dies again, it was this request (see MAX_CONNECTION_DEATHS).
      const suspect = this.#readySuspect(nodeId, now)
      if (suspect !== undefined) {
        if (nothingInFlight) this.#markSent(suspect.queue, suspect.batch, nodeId, items)
        return items
      }
    }
    let bytes = 0
    for (const queue of this.#accumulator.active) {
      if (this.#client.metadata.partition(queue.topic, queue.partition)?.leaderId !== nodeId) continue
      const batch = this.#nextSendable(queue, nodeId, now)
      if (batch === undefined) continue
      // Transaction version 1: the partition joins the transaction before its first batch is sent.
      if (this.#txn !== undefined && !this.#txn.isPartitionReady(queue.topic, queue.partition)) continue
      if (items.length > 0 && bytes + batch.bytes > maxBytes) break
      bytes += batch.bytes
      this.#markSent(queue, batch, nodeId, items)
    }
    return items
  }

  /** The first batch led by `nodeId` that may be sent now and whose connection died before. */
  #readySuspect (nodeId: number, now: number): SendItem | undefined {
    for (const queue of this.#accumulator.active) {
      if (this.#client.metadata.partition(queue.topic, queue.partition)?.leaderId !== nodeId) continue
      const batch = this.#nextSendable(queue, nodeId, now)
      if (batch === undefined || !this.#suspects.has(batch)) continue
      if (this.#txn !== undefined && !this.#txn.isPartitionReady(queue.topic, queue.partition)) continue
      return { queue, batch }
    }
    return undefined
  }

  /** Seals `batch`, gives it its sequence at its first send, and counts it in flight to `nodeId`. */
  #markSent (queue: PartitionQueue, batch: ProducerBatch, nodeId: number, items: SendItem[]): void {
    queue.markSent(batch, nodeId, this.#options.idempotent)
    batch.topicId ??= this.#client.metadata.topic(queue.topic)?.topicId
    items.push({ queue, batch })
  }

  #nextSendable (queue: PartitionQueue, nodeId: number, now: number): ProducerBatch | undefined {
    if (now < queue.retryAt) {
      this.#schedule.at(queue.retryAt)
      return undefined
    }
    if (!queue.mayAddInFlight(nodeId, this.#options.idempotent)) return undefined
    for (const batch of queue.batches) {
      if (batch.inFlight) continue
      if (batch.recordCount === 0) return undefined
      if (this.#options.idempotent && !this.#sequencing.allows(queue, batch)) return undefined
      if (!batch.sealed && this.#host.lingering()) {
        const lingerEnds = batch.createdAt + this.#options.lingerMs
        if (now < lingerEnds) {
          // Nothing else may come to drain this partition: wake up when its linger ends.
          this.#schedule.at(lingerEnds)
          return undefined
        }
      }
      return batch
    }
    return undefined
  }
}

/**
 * Cursor: the consumer's state for one assigned partition — where to fetch next, what
 * was fetched and not handed out, what is being processed, and what was processed.
 *
 * Who changes what (all on the event loop):
 * - `fetchOffset`, `lastFetchedEpoch`, `buffered`: the source that fetches the partition
 *   (source.ts), and seek/reset (consumer.ts). `version` goes up on every seek, reset or
 *   truncation, so a fetch that was in flight across one is recognised and dropped.
 * - `processing`, `processedOffset`: the hand-out loop (consumer.ts) when a batch is given
 *   to the application and when the application is done with it.
 * - `ownership`: set at assignment by the group (group/), never changed by consumer/.
 *   A released ownership means the partition left this member: nothing about it may be
 *   committed any more, and late marks are dropped (invariant 3).
 */
import type { KafkaRecord } from '../protocol/record-batch'

/** The membership a partition is held under; the group layer owns and stamps it. */
export interface Ownership {
  /** Set once the partition is revoked or lost: no commit or mark for it is accepted after. */
  released: boolean
  /** The member id the partition was assigned or last confirmed under ('' without a group). */
  memberId: string
  /** The classic generation or the KIP-848 member epoch of that assignment or confirmation. */
  generation: number
}

export const directOwnership = (): Ownership => ({ released: false, memberId: '', generation: -1 })

export interface ConsumerBatch {
  topic: string
  partition: number
  records: KafkaRecord[]
  highWatermark: bigint
  /** The offset after this batch: where a commit of it points, and where reading resumes. */
  nextOffset: bigint
  /**
   * True once the partition moved on since this batch was fetched: revoked, lost, seeked
   * or closed. What a handler does with a stale batch no longer counts; stop early.
   */
  isStale: () => boolean
}

/** The batch out with the application, and how far into it the application got. */
export interface Processing {
  batch: ConsumerBatch
  finished: Promise<void>
  finish: () => void
  /** When it was handed out (Date.now()), for maxProcessingMs. */
  startedAt: number
  /** A seek moved the partition while it was processed: its end no longer counts as processed. */
  seeked: boolean
  /** maxProcessingMs passed (reported once). */
  overdue: boolean
}

export type OffsetSpec = 'earliest' | 'latest' | { timestamp: bigint | number | Date }

export interface BufferedBatch {
  batch: ConsumerBatch
  bytes: number
  /** The cursor version the batch was fetched under. */
  version: number
}

/**
 * What a consumer's cursors buffer (fetched, not handed out), against its
 * `maxBufferedBytes`. Every cursor of a consumer shares one; cursors keep it right
 * themselves (push, take, drop, seek).
 */
export class PrefetchAccount {
  bytes = 0
  readonly maxBytes: number

  constructor (maxBytes: number) {
    this.maxBytes = maxBytes
  }

  get full (): boolean {
    return this.bytes >= this.maxBytes
  }
}

export class Cursor {
  readonly topic: string
  readonly partition: number
  readonly ownership: Ownership
  /** Undefined while the start offset is being resolved (`resetTo`). */
  fetchOffset: bigint | undefined
  resetTo: OffsetSpec | undefined
  /**
   * Leader epoch of the last fetched batch, sent so the broker can report divergence
   * (KIP-320). A position given with an epoch (a committed offset, a seek) starts with it,
   * so the first fetch validates the position against the leader's log: the broker runs
   * the OffsetForLeaderEpoch lookup on the fetch itself and answers a diverging epoch
   * when the log was truncated below the position.
   */
  lastFetchedEpoch = -1
  version = 0
  paused = false
  inFetch = false
  /** The follower the leader told us to fetch from (KIP-392), or -1 for the leader. */
  preferredReplica = -1
  readonly buffered: BufferedBatch[] = []
  bufferedBytes = 0
  readonly account: PrefetchAccount
  /** Not fetched before this time (ms since the epoch): a retriable error backs it off. */
  retryAt = 0
  /** Fetch answers in a row for this partition that could not be used. */
  fetchFailures = 0
  /** A batch was taken from `buffered` and waits for `beforeHandOut` (e.g. an at-most-once commit). */
  handingOut = false
  /** The batch handed to the application and not finished yet. */
  processing: Processing | undefined
  /** The offset after the last record the application finished: what at-least-once commits. */
  processedOffset: bigint | undefined
  /** The last offset this member committed for the partition. */
  committedOffset: bigint | undefined
  highWatermark = -1n

  constructor (topic: string, partition: number, ownership: Ownership, start: bigint | OffsetSpec, account = new PrefetchAccount(Infinity), leaderEpoch = -1) {
    this.topic = topic
    this.partition = partition
    this.ownership = ownership
    this.account = account
    if (typeof start === 'bigint') {
      this.fetchOffset = start
      this.lastFetchedEpoch = leaderEpoch
    } else {
      this.resetTo = start
    }
  }

  get key (): string {
    return `${this.topic}-${this.partition}`
  }

  /** Buffers a fetched batch. */
  push (entry: BufferedBatch): void {
    this.buffered.push(entry)
    this.bufferedBytes += entry.bytes
    this.account.bytes += entry.bytes
  }

  /** `entry` (buffered) took `bytes` more: records merged into it. */
  grow (entry: BufferedBatch, bytes: number): void {
    entry.bytes += bytes
    this.bufferedBytes += bytes
    this.account.bytes += bytes
  }

  /** The oldest buffered batch, out of the buffer (and its accounting). */
  takeBuffered (): BufferedBatch | undefined {
    const entry = this.buffered.shift()
    if (entry === undefined) return undefined
    this.bufferedBytes -= entry.bytes
    this.account.bytes -= entry.bytes
    return entry
  }

  /** Drops everything buffered. */
  dropBuffered (): void {
    this.account.bytes -= this.bufferedBytes
    this.buffered.length = 0
    this.bufferedBytes = 0
  }

  /**
   * Moves to `offset` (or a spec to resolve), dropping what was fetched for the old
   * position; `leaderEpoch` is the epoch the offset was read under, if known (validated
   * by the next fetch).
   */
  seek (to: bigint | OffsetSpec, leaderEpoch = -1): void {
    this.version++
    this.dropBuffered()
    this.lastFetchedEpoch = typeof to === 'bigint' ? leaderEpoch : -1
    this.preferredReplica = -1
    this.retryAt = 0
    this.fetchFailures = 0
    // A batch out with the application no longer moves what counts as processed.
    if (this.processing !== undefined) this.processing.seeked = true
    if (typeof to === 'bigint') {
      this.fetchOffset = to
      this.resetTo = undefined
    } else {
      this.fetchOffset = undefined
      this.resetTo = to
    }
  }
}

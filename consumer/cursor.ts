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
import type { ConsumerRecord } from '../client/serializers'
import type { ScannedBatch } from '../protocol/record-batch'

/** The membership a partition is held under; the group layer owns and stamps it. */
export interface Ownership {
  /** Set once the partition is revoked or lost: no commit or mark for it is accepted after. */
  released: boolean
  /** Why it was released ('revoked …' or 'lost …'), set with `released`: what an aborted transaction names. */
  releasedBecause?: string
  /** The member id the partition was assigned or last confirmed under ('' without a group). */
  memberId: string
  /** The classic generation or the KIP-848 member epoch of that assignment or confirmation. */
  generation: number
}

export const directOwnership = (): Ownership => ({ released: false, memberId: '', generation: -1 })

/** K and V: what the consumer's deserializers make of keys and values (Buffer without). */
export interface ConsumerBatch<K = Buffer, V = Buffer> {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The records, in offset order (empty for a batch that only skips, see `skippedFrom`). */
  records: Array<ConsumerRecord<K, V>>
  /** The partition's high watermark in the fetch answer: the offset after its last replicated record. */
  highWatermark: bigint
  /** The offset after this batch: where a commit of it points, and where reading resumes. */
  nextOffset: bigint
  /** A batch without records (FetchOptions.emptyBatches): the first offset of the markers or aborted data it skipped. */
  skippedFrom?: bigint
  /**
   * True once the partition moved on since this batch was fetched: revoked, lost, seeked
   * or closed. What a handler does with a stale batch no longer counts; stop early.
   */
  isStale: () => boolean
}

/** The batch out with the application, and how far into it the application got. */
export interface Processing {
  batch: ConsumerBatch
  /** Its first record's offset (undefined without records), read once: with a record maker the records are not KafkaRecords. */
  firstOffset: bigint | undefined
  finished: Promise<void>
  finish: () => void
  /** When it was handed out (Date.now()), for maxProcessingMs. */
  startedAt: number
  /** A seek moved the partition while it was processed: its end no longer counts as processed. */
  seeked: boolean
  /** maxProcessingMs passed (reported once). */
  overdue: boolean
}

/**
 * A concurrent run()'s progress on a partition (consumer/concurrent/partition-progress.ts):
 * what a revoke waits for besides a handed batch, and what a commit writes into the
 * offset's metadata (the records finished above the committed offset).
 */
export interface ConcurrentProgress {
  /** Handlers running for the partition's records. */
  readonly running: number
  /** Resolves once no handler runs for the partition. */
  idle: () => Promise<void>
  /** The partition was sought: nothing finished from now on counts. */
  abandon: () => void
  /** Records finished above the processed offset. */
  readonly finishedAbove: number
  /** The metadata of a commit at `offset`: an offset map of the records finished above it, or null. */
  metadataFor: (offset: bigint) => string | null
  /** Records finished since the last accepted commit's metadata. */
  readonly metadataChanged: boolean
  /** The coordinator accepted the commit whose metadata was built last. */
  metadataAccepted: () => void
  /** The coordinator refused the metadata as too large: use less room from now on. */
  metadataTooLarge: () => void
}

/** Where a partition starts or moves to: the log start ('earliest'), the log end ('latest'), or the first offset at or after a time. */
export type OffsetSpec = 'earliest' | 'latest' | {
  /** A time in ms since the epoch (or a Date). */
  timestamp: bigint | number | Date
}

/**
 * A batch waiting to be handed out. It holds its record batches as fetched and no batch
 * object: the consumer makes that at hand-out, with the records it decodes then.
 */
export interface BufferedBatch {
  /** The partition's high watermark in the answer last merged in. */
  highWatermark: bigint
  /** The offset after the batch: where a commit of it points, and where the next part starts. */
  nextOffset: bigint
  /** A batch without records (FetchOptions.emptyBatches): the first offset of the markers or aborted data it skipped. */
  skippedFrom?: bigint
  /**
   * What the records will take in memory once decoded (decompressed bytes, RECORD_MEMORY_OVERHEAD
   * per record, uncompressed record bytes), estimated from the batch headers. Counts against
   * maxPartitionBytes and the merge limits; the prefetch account counts what is held instead.
   */
  bytes: number
  /** What the account counts for it besides the answers it views: a copy of its own (after compaction), records decoded at arrival. */
  ownBytes: number
  /** The fetched bytes it views in answers (`pins`), counted there. */
  viewBytes: number
  /** The answers' buffers its batches are views into; counted whole while any buffered batch views them. */
  pins: ArrayBufferLike[]
  /** The cursor version the batch was fetched under. */
  version: number
  /**
   * Its record batches as fetched (checked, CRC included), in offset order; decoded at
   * hand-out. Records below `fetchedFrom` are left out then: only the first answer's
   * first batch can hold some (a merged answer was fetched from where the one before ended).
   */
  pending: ScannedBatch[]
  /** Records the headers claim (an upper bound: the first batch may start before the fetch offset), for maxBatchRecords. */
  recordCount: number
  /** Where its first answer was fetched from, and the leader epoch sent then: where a batch that cannot be decoded is fetched again. */
  fetchedFrom: bigint
  fetchedEpoch: number
  /** Split from the rest of its fetch answer at the batch limits: the next buffered batch goes on with it (HandedBatch.moreOfAnswer). */
  moreOfAnswer: boolean
}

interface Pin {
  /** The whole buffer: what stays in memory while any view into it does. */
  bytes: number
  /** The buffered batches viewing it, with the bytes each views. */
  users: Map<BufferedBatch, number>
  /** Sum of the users' bytes. */
  used: number
}

/**
 * What a consumer's cursors buffer (fetched, not handed out), against its
 * `maxBufferedBytes`. Every cursor of a consumer shares one; cursors keep it right
 * themselves (push, take, drop, seek).
 *
 * It counts what memory holds, not what the wire carried: decompressed bytes, an
 * overhead per record, and — because uncompressed records are views into the Fetch
 * answer (no copy on the normal path) — each answer's whole buffer while any buffered
 * batch views it. When the account is full and an answer is held mostly by a few waiting
 * batches (a stalled partition's; the rest was handed out), those batches are copied out
 * and the answer is let go: copies happen only for what outlives its answer.
 */
export class PrefetchAccount {
  bytes = 0
  readonly maxBytes: number
  readonly #pins = new Map<ArrayBufferLike, Pin>()

  /**
   * What a fetched wire byte has been costing in memory (the answer's buffer, decompressed
   * bytes, the per-record overhead), learnt from answers: 100-byte records cost ~4×.
   */
  expansion = 2

  constructor (maxBytes: number) {
    this.maxBytes = maxBytes
  }

  /**
   * The wire bytes a Fetch may ask for (up to `limit`) so that what it brings fits the
   * room left. At least 1: Kafka still returns the first batch whole, so fetching moves on.
   */
  fetchBytes (limit: number): number {
    if (this.maxBytes === Infinity) return limit
    return Math.max(1, Math.min(limit, Math.floor(Math.max(0, this.maxBytes - this.bytes) / this.expansion)))
  }

  /** Learns `expansion` from what `wireBytes` of an answer cost once buffered. */
  noteAnswer (wireBytes: number, memoryBytes: number): void {
    if (wireBytes > 0) this.expansion = Math.max(1, (this.expansion + memoryBytes / wireBytes) / 2)
  }

  /** Whether fetching must pause; first copies out batches that pin answers mostly let go of. */
  get full (): boolean {
    if (this.bytes < this.maxBytes) return false
    this.#compact()
    return this.bytes >= this.maxBytes
  }

  /** Counts a buffered batch (its own bytes, and the answers it views: what memory holds until it is decoded). */
  add (entry: BufferedBatch, ownBytes: number, pin: ArrayBufferLike | undefined, viewBytes: number): void {
    this.bytes += ownBytes
    if (pin === undefined || viewBytes === 0) return
    let held = this.#pins.get(pin)
    if (held === undefined) {
      held = { bytes: pin.byteLength, users: new Map(), used: 0 }
      this.#pins.set(pin, held)
      this.bytes += held.bytes
    }
    if (!entry.pins.includes(pin)) entry.pins.push(pin)
    held.users.set(entry, (held.users.get(entry) ?? 0) + viewBytes)
    held.used += viewBytes
  }

  /** A buffered batch left the buffer (handed out or dropped). */
  remove (entry: BufferedBatch): void {
    this.bytes -= entry.ownBytes
    this.#unpin(entry)
  }

  #unpin (entry: BufferedBatch): void {
    for (const pin of entry.pins) {
      const held = this.#pins.get(pin)
      if (held === undefined) continue
      held.used -= held.users.get(entry) ?? 0
      held.users.delete(entry)
      if (held.users.size === 0) {
        this.#pins.delete(pin)
        this.bytes -= held.bytes
      }
    }
    entry.pins.length = 0
  }

  /** Copies out the batches holding answers that are mostly unused, so the answers can go. */
  #compact (): void {
    for (const held of [...this.#pins.values()]) {
      if (held.used * 2 > held.bytes) continue
      for (const entry of [...held.users.keys()]) {
        const copied = copyOut(entry.pending)
        this.#unpin(entry)
        // The copy is the batch's own now (its views were counted in the answer, just let go).
        this.bytes += copied
        entry.ownBytes += copied
        entry.viewBytes = 0
      }
    }
  }
}

/**
 * Moves the fetched bytes of pending batches (and the keys, values and header values of
 * those decoded at arrival) into one new buffer; returns its size.
 */
function copyOut (pending: ScannedBatch[]): number {
  let total = 0
  for (const scanned of pending) {
    total += scanned.data.length
    if (scanned.data.length > 0) continue
    for (const r of scanned.batch.records) {
      total += (r.key?.length ?? 0) + (r.value?.length ?? 0)
      for (const h of r.headers) total += h.value?.length ?? 0
    }
  }
  const out = Buffer.allocUnsafeSlow(total)
  let at = 0
  const move = (view: Buffer): Buffer => {
    view.copy(out, at)
    at += view.length
    return out.subarray(at - view.length, at)
  }
  for (const scanned of pending) {
    if (scanned.data.length > 0) {
      scanned.data = move(scanned.data)
      continue
    }
    for (const r of scanned.batch.records) {
      if (r.key !== null) r.key = move(r.key)
      if (r.value !== null) r.value = move(r.value)
      for (const h of r.headers) if (h.value !== null) h.value = move(h.value)
    }
  }
  return total
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
  /** Not fetched before this time (ms since the epoch): a retriable error backs it off. -Infinity (a double, as times are) when not backing off, so a first back-off does not change the cursor's hidden class. */
  retryAt = Number.NEGATIVE_INFINITY
  /** Fetch answers in a row for this partition that could not be used. */
  fetchFailures = 0
  /**
   * Buffered batches in a row that could not be decoded when handed out (their answers
   * scanned well, which resets fetchFailures): the backoff before fetching them again.
   */
  decodeFailures = 0
  /** A batch was taken from `buffered` and waits for `beforeHandOut` (e.g. an at-most-once commit). */
  handingOut = false
  /** The batch handed to the application and not finished yet. */
  processing: Processing | undefined
  /** The offset after the last record the application finished: what at-least-once commits. */
  processedOffset: bigint | undefined
  /** The last offset this member committed for the partition. */
  committedOffset: bigint | undefined
  /** The committed offset's metadata found at assignment (a concurrent run reads its offset map once). */
  committedMetadata: string | undefined
  /** A concurrent run()'s progress on the partition, while one runs. */
  progress: ConcurrentProgress | undefined
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

  /**
   * Buffers fetched batches: a new buffered batch, or more merged into the last one.
   * `decodedBytes`: what they will take once decoded (BufferedBatch.bytes); `ownBytes`:
   * what they hold besides views (records decoded at arrival); `viewBytes`: fetched bytes
   * that are views into `pin`, the Fetch answer's buffer.
   */
  push (entry: BufferedBatch, decodedBytes: number, ownBytes: number, pin: ArrayBufferLike | undefined, viewBytes: number): void {
    if (this.buffered[this.buffered.length - 1] !== entry) this.buffered.push(entry)
    entry.bytes += decodedBytes
    entry.ownBytes += ownBytes
    entry.viewBytes += viewBytes
    this.bufferedBytes += decodedBytes
    this.account.add(entry, ownBytes, pin, viewBytes)
  }

  /** The oldest buffered batch, out of the buffer (and its accounting). */
  takeBuffered (): BufferedBatch | undefined {
    const entry = this.buffered.shift()
    if (entry === undefined) return undefined
    this.bufferedBytes -= entry.bytes
    this.account.remove(entry)
    return entry
  }

  /** Drops everything buffered. */
  dropBuffered (): void {
    for (const entry of this.buffered) this.account.remove(entry)
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
    this.retryAt = Number.NEGATIVE_INFINITY
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

/**
 * One partition's progress in a concurrent run(): the records taken in, in offset order,
 * and which of them finished. What counts as processed (`cursor.processedOffset`, what
 * at-least-once commits) is the low watermark: the first unfinished record's offset, or
 * the end of the last batch taken in when none is unfinished — so a commit never passes a
 * record that has not finished. Records finished above it go into the commit's metadata
 * (offset-map.ts) through the Cursor's `progress` (ConcurrentProgress), which the
 * committer reads when it builds an OffsetCommit: the one commit path, under its guard.
 *
 * Marks follow the batch mode's rules (run.ts's recordDone, HandOut.finish): nothing counts
 * once the ownership is released (revoked, lost) or the partition was sought (`abandon`),
 * and the processed offset never moves back (at-most-once committed a batch's end before
 * its records came in; the low watermark may be below it).
 */
import { Signal } from '../../client/signal'
import type { ConcurrentProgress, Cursor } from '../cursor'
import { encodeOffsetMap, type FinishedRanges } from './offset-map'

/** A record taken in: its offset, and whether its handler finished (or the offset map said it had). */
export interface TrackedRecord {
  readonly offset: bigint
  done: boolean
}

export class PartitionProgress implements ConcurrentProgress {
  readonly cursor: Cursor
  /** What the previous owner's offset map said was finished (skipped, not processed again). */
  readonly skip: FinishedRanges | undefined
  /** Records from the low watermark on, in offset order; `#head` is the first still held. */
  #records: TrackedRecord[] = []
  #head = 0
  /** The first offset taken in: the map never claims anything below it. */
  #start: bigint | undefined
  /** The offset after the last batch taken in. */
  #end: bigint | undefined
  #unfinished = 0
  /** Taken in and not started (queued, or waiting to be retried). */
  waiting = 0
  #running = 0
  readonly #idle = new Signal()
  #abandoned = false
  /** Bumped by every finish: the metadata committed last may be out of date. */
  #finishes = 0
  #finishesEncoded = 0
  #finishesAccepted = 0
  #maxMetadataChars: number

  constructor (cursor: Cursor, skip: FinishedRanges | undefined, maxMetadataChars: number) {
    this.cursor = cursor
    this.skip = skip
    this.#maxMetadataChars = maxMetadataChars
  }

  /** The partition was sought (or its position moved back): its records count for nothing any more. */
  get abandoned (): boolean {
    return this.#abandoned
  }

  /** The offset after the last batch taken in. */
  get end (): bigint | undefined {
    return this.#end
  }

  /** Handlers running for the partition's records. */
  get running (): number {
    return this.#running
  }

  /** Records taken in and not finished (waiting, running or failed). */
  get unfinished (): number {
    return this.#unfinished
  }

  /** Records held from the low watermark on (finished or not): what a stuck record makes grow. */
  get tracked (): number {
    return this.#records.length - this.#head
  }

  /** Records finished above the low watermark (what the offset map records). */
  get finishedAbove (): number {
    return this.tracked - this.#unfinished
  }

  /** The first unfinished record's offset, or the end of what was taken in; undefined before anything was. */
  get lowWatermark (): bigint | undefined {
    return this.#head < this.#records.length ? this.#records[this.#head].offset : this.#end
  }

  /** A record taken in (offsets must come in increasing order). */
  add (offset: bigint): TrackedRecord {
    const record: TrackedRecord = { offset, done: false }
    this.#start ??= offset
    this.#records.push(record)
    this.#unfinished++
    return record
  }

  /** The batch taken in ends at `nextOffset` (markers and compacted records after its last record included). */
  endAt (nextOffset: bigint): void {
    this.#start ??= nextOffset
    if (this.#end === undefined || nextOffset > this.#end) this.#end = nextOffset
    this.#advance()
  }

  started (): void {
    this.#running++
  }

  /** A handler returned or threw (finished or not). */
  settled (): void {
    if (--this.#running === 0) this.#idle.notify()
  }

  /** Resolves once no handler runs for the partition (what a revoke waits for). */
  async idle (): Promise<void> {
    while (this.#running > 0) await this.#idle.wait()
  }

  finish (record: TrackedRecord): void {
    if (record.done) return
    record.done = true
    this.#unfinished--
    this.#finishes++
    this.#advance()
  }

  /** The partition was sought: what this progress finishes from now on counts for nothing. */
  abandon (): void {
    this.#abandoned = true
  }

  /** Pops finished records off the front and moves the processed offset up to the low watermark. */
  #advance (): void {
    const records = this.#records
    while (this.#head < records.length && records[this.#head].done) this.#head++
    if (this.#head > 1024 && this.#head * 2 > records.length) {
      this.#records = records.slice(this.#head)
      this.#head = 0
    }
    const low = this.lowWatermark
    const cursor = this.cursor
    if (low === undefined || this.#abandoned || cursor.ownership.released) return
    if (cursor.processedOffset === undefined || low > cursor.processedOffset) cursor.processedOffset = low
  }

  // ------------------------------------------------------------ the commit's metadata (ConcurrentProgress)

  /** The offset map of a commit at `offset`: the records finished at or above it, within the size limit. */
  metadataFor (offset: bigint): string | null {
    this.#finishesEncoded = this.#finishes
    const low = this.lowWatermark
    if (this.#abandoned || low === undefined || this.#start === undefined || this.#end === undefined) return null
    // Below what was taken in, or past it, this progress knows nothing.
    if (offset < this.#start || offset > low || offset >= this.#end) return null
    const ranges: Array<readonly [bigint, bigint]> = []
    let from = offset
    for (let i = this.#head; i < this.#records.length; i++) {
      const record = this.#records[i]
      if (record.done) continue
      if (record.offset > from) ranges.push([from, record.offset])
      from = record.offset + 1n
    }
    if (from < this.#end) ranges.push([from, this.#end])
    return encodeOffsetMap({ base: offset, top: this.#end, ranges }, this.#maxMetadataChars)
  }

  /** Records finished since the last accepted commit's map: worth a commit even at the same offset. */
  get metadataChanged (): boolean {
    return this.#finishes !== this.#finishesAccepted && this.finishedAbove > 0
  }

  /** The coordinator accepted the commit whose metadata was built last. */
  metadataAccepted (): void {
    this.#finishesAccepted = this.#finishesEncoded
  }

  /** The coordinator refused the metadata as too large (OFFSET_METADATA_TOO_LARGE): later maps get half the room. */
  metadataTooLarge (): void {
    this.#maxMetadataChars = Math.floor(this.#maxMetadataChars / 2)
  }
}

/**
 * A batch as it goes out to the application: HandOutBatch (made at hand-out from a
 * buffered entry, stale once its partition moves on), the records it holds (the decoded
 * record batches at or past where the fetch started, gathered without pushes), and
 * HandedBatch, the batch with the call that says the application is done with it.
 * The consumer's hand-out (consumer.ts) decides which batch goes out and when.
 */
import type { KafkaRecord, RecordMaker, ScannedBatch } from '../protocol/record-batch'
import type { BufferedBatch, ConsumerBatch, Cursor } from './cursor'

/** A batch handed out, with the call that tells the consumer the application is done with it. */
export interface HandedBatch<K = Buffer, V = Buffer> {
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

/**
 * kafkajs's message and batch shapes made from kafkats's batches: records decoded straight
 * into kafkajs's messages (KafkaMessageMaker), and a batch's offsets and Batch object as
 * kafkajs reports them.
 */
import type { ConsumerBatch } from '../consumer/cursor'
import type { KafkaRecord, RecordBatch, RecordHeader, RecordMaker } from '../protocol/record-batch'
import type { Batch, RecordBatchEntry } from './types'

/** A kafkajs message of a record batch (v2, what kafkats reads): kafkajs's RecordBatchEntry with its `magicByte`. */
export interface KafkaMessage extends RecordBatchEntry {
  magicByte: number
}

export type { Batch } from './types'

/** A record's headers as kafkajs gives them: a fresh object per message, repeated keys as arrays. */
function headersOf (list: RecordHeader[]): Record<string, Buffer | Buffer[]> {
  const headers: Record<string, Buffer | Buffer[]> = {}
  for (let i = 0; i < list.length; i++) {
    const { key, value } = list[i]
    const v = value ?? Buffer.alloc(0)
    const known = headers[key]
    if (known === undefined) headers[key] = v
    else if (Array.isArray(known)) known.push(v)
    else headers[key] = [known, v]
  }
  return headers
}

/**
 * The `headers` of a message without headers: a fresh empty plain object per message, as
 * kafkajs's. Made by a constructor whose prototype is Object.prototype (so its prototype and
 * `constructor` are a literal's) because V8 then gives it no in-object slots: 24 bytes
 * instead of a `{}` literal's 56, with ~33,000 of them alive per 4 MiB batch.
 */
const EmptyHeaders = function (this: object) {} as unknown as new () => Record<string, Buffer | Buffer[]>
EmptyHeaders.prototype = Object.prototype

/** Offsets and timestamps this far from 0 take number arithmetic with an int32 or 27-bit delta exactly. */
const EXACT_BASE = 2 ** 53 - 2 ** 31

/**
 * Decodes records straight into kafkajs's messages (the consumer's RecordMaker): plain
 * objects with own enumerable fields, as kafkajs's are, and no KafkaRecord, offset bigint
 * or timestamp bigint per record besides. An offset string is the batch's base offset plus
 * the record's delta in number arithmetic (exact below 2^53 - 2^31, bigints beyond); records
 * of a batch mostly share a timestamp, so its string is made once per run of equal deltas
 * (converting a bigint to a string was half of what a message cost).
 */
export class KafkaMessageMaker implements RecordMaker<KafkaMessage> {
  #baseOffset = 0n
  /** The base offset as a number, NaN when number arithmetic would not be exact. */
  #baseOffsetNumber = 0
  #baseTimestamp = 0n
  #baseTimestampNumber = 0
  /** Log-append time: every record's timestamp is the batch's maxTimestamp. */
  #logAppendTimestamp: string | undefined
  #lastDelta: number | bigint = NaN
  #timestamp = ''
  // fromRecord's own run of equal timestamps.
  #lastTimestamp: bigint | undefined
  #recordTimestamp = ''

  startBatch (batch: RecordBatch): void {
    this.#baseOffset = batch.baseOffset
    this.#baseOffsetNumber = batch.baseOffset <= EXACT_BASE && batch.baseOffset >= -EXACT_BASE ? Number(batch.baseOffset) : NaN
    this.#baseTimestamp = batch.baseTimestamp
    this.#baseTimestampNumber = batch.baseTimestamp <= EXACT_BASE && batch.baseTimestamp >= -EXACT_BASE ? Number(batch.baseTimestamp) : NaN
    this.#logAppendTimestamp = batch.timestampType === 'log-append' ? String(batch.maxTimestamp) : undefined
    this.#lastDelta = NaN
  }

  make (offsetDelta: number, timestampDelta: number | bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]): KafkaMessage {
    const base = this.#baseOffsetNumber
    const offset = base === base ? String(base + offsetDelta) : String(this.#baseOffset + BigInt(offsetDelta))
    return { magicByte: 2, key, value, timestamp: this.#logAppendTimestamp ?? this.#timestampOf(timestampDelta), attributes: 0, offset, headers: headers.length === 0 ? new EmptyHeaders() : headersOf(headers) }
  }

  #timestampOf (delta: number | bigint): string {
    if (delta === this.#lastDelta) return this.#timestamp
    this.#lastDelta = delta
    const base = this.#baseTimestampNumber
    this.#timestamp = typeof delta === 'number' && base === base ? String(base + delta) : String(this.#baseTimestamp + BigInt(delta))
    return this.#timestamp
  }

  /** The message of a record decoded as a KafkaRecord (what toKafkaMessages makes). */
  fromRecord (record: KafkaRecord): KafkaMessage {
    if (record.timestamp !== this.#lastTimestamp) {
      this.#lastTimestamp = record.timestamp
      this.#recordTimestamp = String(record.timestamp)
    }
    return { magicByte: 2, key: record.key, value: record.value, timestamp: this.#recordTimestamp, attributes: 0, offset: String(record.offset), headers: record.headers.length === 0 ? new EmptyHeaders() : headersOf(record.headers) }
  }

  offsetOf (message: KafkaMessage): bigint {
    return BigInt(message.offset)
  }
}

/** kafkajs's messages of decoded records (see KafkaMessageMaker). */
export function toKafkaMessages (records: KafkaRecord[]): KafkaMessage[] {
  const count = records.length
  const messages: KafkaMessage[] = new Array(count)
  const maker = new KafkaMessageMaker()
  for (let i = 0; i < count; i++) messages[i] = maker.fromRecord(records[i])
  return messages
}

/** A batch's offsets as kafkajs reports them (its Batch methods, START/END_BATCH_PROCESS). */
export interface BatchOffsets { highWatermark: string, firstOffset: string | null, lastOffset: string, offsetLag: string, offsetLagLow: string }

export function batchOffsets (batch: ConsumerBatch, messages: KafkaMessage[]): BatchOffsets {
  const hw = batch.highWatermark
  // A batch of only markers or aborted data: kafkajs reports the offsets it skipped.
  const first = messages.length > 0 ? BigInt(messages[0].offset) : batch.skippedFrom
  const last = messages.length > 0 ? BigInt(messages[messages.length - 1].offset) : (batch.skippedFrom !== undefined ? batch.nextOffset - 1n : undefined)
  return {
    highWatermark: String(hw),
    firstOffset: first === undefined ? null : String(first),
    lastOffset: String(last ?? hw - 1n),
    offsetLag: String(last === undefined ? 0n : hw - 1n - last),
    offsetLagLow: String(first === undefined ? 0n : hw - 1n - first)
  }
}

export function toBatch (batch: ConsumerBatch, messages: KafkaMessage[], offsets: BatchOffsets): Batch {
  return {
    topic: batch.topic,
    partition: batch.partition,
    highWatermark: offsets.highWatermark,
    messages,
    isEmpty: () => messages.length === 0,
    firstOffset: () => offsets.firstOffset,
    lastOffset: () => offsets.lastOffset,
    offsetLag: () => offsets.offsetLag,
    offsetLagLow: () => offsets.offsetLagLow
  }
}

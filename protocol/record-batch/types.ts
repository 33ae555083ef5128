/**
 * Record batch v2 (magic 2), the format Kafka 4 writes: its layout, the offsets of the
 * header fields, and the shapes the codec takes (RecordInput, options) and gives
 * (RecordBatch, KafkaRecord). The job of this file: say what the bytes are; encode.ts,
 * scan.ts, records.ts, decode.ts and legacy.ts work on them.
 *
 *   RecordBatch =>                       offset in the batch
 *     baseOffset           int64          0
 *     batchLength          int32          8   bytes after this field
 *     partitionLeaderEpoch int32         12
 *     magic                int8          16   always 2
 *     crc                  uint32        17   CRC-32C of bytes [21, end)
 *     attributes           int16         21   bits 0-2 codec, 3 log-append time, 4 transactional, 5 control
 *     lastOffsetDelta      int32         23
 *     baseTimestamp        int64         27
 *     maxTimestamp         int64         35
 *     producerId           int64         43
 *     producerEpoch        int16         51
 *     baseSequence         int32         53
 *     recordCount          int32         57
 *     records              ...           61   compressed as one unit when the codec is not none
 *
 *   Record =>
 *     length varint, attributes int8, timestampDelta varlong, offsetDelta varint,
 *     keyLength varint (-1 = null), key, valueLength varint (-1 = null), value,
 *     headerCount varint, [headerKeyLength varint, headerKey, headerValueLength varint (-1 = null), headerValue]
 */
import type { CompressionCodec } from '../compression'

/** One header of a record: a string key and a value (bytes, or null). Keys may repeat. */
export interface RecordHeader {
  /** The header's key. */
  key: string
  /** The header's value; null when it has none. */
  value: Buffer | null
}

/** A record to write. A record without a timestamp gets the time the batch is encoded. */
export interface RecordInput {
  /** The record's key; none (null) by default. */
  key?: Buffer | null
  /** The record's value; null for a tombstone. */
  value: Buffer | null
  /** The record's headers, in order; none by default. */
  headers?: RecordHeader[]
  /** The record's timestamp in ms since the epoch; default the time the batch is encoded. */
  timestamp?: bigint
}

/** A decoded record. key, value and header values are views into the fetched bytes. */
export interface KafkaRecord {
  /** The record's offset in its partition. */
  offset: bigint
  /** The record's timestamp in ms since the epoch: its create time, or the broker's append time for a log-append-time topic. */
  timestamp: bigint
  /** The record's key; null when it has none. */
  key: Buffer | null
  /** The record's value; null for a tombstone. */
  value: Buffer | null
  /** The record's headers, in order (empty when it has none). */
  headers: RecordHeader[]
}

/** The record of a control batch: a transaction marker (abort/commit) or a KRaft-only type. */
export interface ControlRecord {
  /** A transaction marker's outcome ('abort' or 'commit'), or 'unknown' for another type. */
  type: 'abort' | 'commit' | 'unknown'
  /** The type number from the key (0 abort, 1 commit; others are KRaft metadata log types). */
  typeId: number
  /** Version of the control record key. */
  version: number
  /** For abort/commit markers: the epoch of the transaction coordinator; -1 otherwise. */
  coordinatorEpoch: number
}

/** A decoded record batch: its header's fields (see the layout above) and its records. */
export interface RecordBatch {
  /** The offset of the batch's first record. */
  baseOffset: bigint
  /** The batch's length in bytes, after the batchLength field. */
  batchLength: number
  /** The leader epoch of the leader that wrote the batch; -1 when unknown. */
  partitionLeaderEpoch: number
  /** The format version: 2 (0 or 1 for a legacy message set). */
  magic: number
  /** The CRC-32C the batch carries, of its bytes from the attributes on. */
  crc: number
  /** The attributes field: bits 0-2 the codec, 3 log-append time, 4 transactional, 5 control. */
  attributes: number
  /** The codec the records were compressed with. */
  compression: CompressionCodec
  /** Whether the timestamps are the producers' create times or the broker's append time. */
  timestampType: 'create' | 'log-append'
  /** Whether the batch belongs to a transaction. */
  isTransactional: boolean
  /** Whether it is a control batch (a transaction marker), not data. */
  isControl: boolean
  /** The last record's offset minus `baseOffset`. */
  lastOffsetDelta: number
  /** The first record's timestamp in ms since the epoch (the record timestamps are deltas from it). */
  baseTimestamp: bigint
  /** The largest record timestamp in ms since the epoch (the append time, for log-append time). */
  maxTimestamp: bigint
  /** The id of the producer that wrote it; -1 for a non-idempotent producer. */
  producerId: bigint
  /** That producer's epoch; -1 for a non-idempotent producer. */
  producerEpoch: number
  /** The sequence number of the first record; -1 for a non-idempotent producer. */
  baseSequence: number
  /** The number of records the header announces. */
  recordCount: number
  /** The decoded records (those a `recordMaker` made, when one was given). */
  records: KafkaRecord[]
  /** Bytes of the records section once decompressed; 0 when uncompressed (the records are views into the input). */
  decompressedBytes: number
  /** Set on control batches: their (single) record decoded. The record is in `records` too. */
  controlRecord: ControlRecord | undefined
}

/** What `encodeRecordBatch` writes: the records, and the batch header's fields (the defaults suit a plain, non-idempotent producer). */
export interface EncodeRecordBatchOptions {
  /** The records, in offset order. */
  records: readonly RecordInput[]
  /** The codec to compress the records with (default 'none'). */
  compression?: CompressionCodec
  /** The first record's offset (default 0; the broker assigns offsets on produce). */
  baseOffset?: bigint
  /** The leader epoch to write (default -1). */
  partitionLeaderEpoch?: number
  /** The producer id (default -1: not idempotent). */
  producerId?: bigint
  /** The producer epoch (default -1). */
  producerEpoch?: number
  /** The first record's sequence number (default -1). */
  baseSequence?: number
  /** Marks the batch transactional (default false). */
  transactional?: boolean
  /** Marks it a control batch (default false). */
  control?: boolean
  /** The timestamp type to mark (default 'create'). */
  timestampType?: 'create' | 'log-append'
  /** Defaults to the first record's timestamp, or now. */
  baseTimestamp?: bigint
  /**
   * The batch's size as RECORD_BATCH_OVERHEAD plus each record's recordSizeUpperBound, when
   * the caller has added it up already (the producer has): the first size of the buffer
   * the batch is written to, which grows if it is short.
   */
  sizeHint?: number
}

/** Options of decoding record batches: where they come from (for error messages) and the bounds to keep. */
export interface DecodeContext {
  /** Named in error messages. */
  topic?: string
  /** Named in error messages. */
  partition?: number
  /** Refuse a compressed batch whose records decompress to more bytes than this (default 256 MiB). */
  maxDecompressedBytes?: number
  /**
   * Verify each batch's CRC-32C (default true, like the Java consumer's check.crcs). On large
   * uncompressed batches the checksum is most of the decoding time.
   */
  checkCrc?: boolean
  /**
   * Bounds what one call adds to memory: decoding stops before a batch (never the first)
   * whose decompressed bytes (an upper bound until decompressed) plus
   * RECORD_MEMORY_OVERHEAD per record would take the call's total past this. Batches left
   * out are like a partial batch at the end: the caller fetches them again later.
   */
  memoryBudget?: number
  /**
   * What each record of a data batch is made into instead of a KafkaRecord (decodeRecordBatches
   * and decodeScannedBatches; decodeRecordBatchesSync ignores it): the batch's `records` then
   * hold what it made. Control batches stay KafkaRecords.
   */
  recordMaker?: RecordMaker
}

/**
 * Makes the objects a batch's records are decoded into when a consumer hands out another
 * shape than KafkaRecord (the kafkajs drop-in's messages): one object per record instead of
 * a KafkaRecord and its copy, and no offset or timestamp bigint per record. Offsets and
 * timestamps come as deltas from the batch's (startBatch gets the batch first).
 */
export interface RecordMaker<R = unknown> {
  /** Before the records of `batch` (its baseOffset, baseTimestamp, timestampType and maxTimestamp are read). */
  startBatch (batch: RecordBatch): void
  /** `timestampDelta` from baseTimestamp is a bigint only when it needs more than 27 bits. Log-append batches: the record's time is maxTimestamp. */
  make (offsetDelta: number, timestampDelta: number | bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]): R
  /** What it makes of a record decoded as a KafkaRecord (legacy message sets, magic 0 and 1). */
  fromRecord (record: KafkaRecord): R
  /** The offset of a record it made. */
  offsetOf (record: R): bigint
}

/**
 * Heap bytes a decoded record costs besides the bytes of its key, value and headers (the
 * record object, two bigints, Buffer views, the headers array), rounded up from a
 * measurement on Node 20/22 (~220 bytes for a record with a value only).
 */
export const RECORD_MEMORY_OVERHEAD = 300

/** Bytes of a batch header (up to and including recordCount): what a batch costs besides its records. */
export const RECORD_BATCH_OVERHEAD = 61

/** baseOffset and batchLength: the bytes not counted by batchLength. */
export const LOG_OVERHEAD = 12
export const MAGIC = 2

export const OFFSET_LENGTH = 8
export const OFFSET_EPOCH = 12
export const OFFSET_MAGIC = 16
export const OFFSET_CRC = 17
export const OFFSET_ATTRIBUTES = 21
export const OFFSET_LAST_OFFSET_DELTA = 23
export const OFFSET_BASE_TIMESTAMP = 27
export const OFFSET_MAX_TIMESTAMP = 35
export const OFFSET_PRODUCER_ID = 43
export const OFFSET_PRODUCER_EPOCH = 51
export const OFFSET_BASE_SEQUENCE = 53
export const OFFSET_RECORD_COUNT = 57

export const ATTRIBUTE_CODEC_MASK = 0x07
export const ATTRIBUTE_LOG_APPEND_TIME = 0x08
export const ATTRIBUTE_TRANSACTIONAL = 0x10
export const ATTRIBUTE_CONTROL = 0x20

/**
 * The `headers` of every decoded record that has none: one frozen empty array, not a new
 * one per record (a record's own array was a tenth of its memory). Frozen, so a push
 * into it throws instead of giving the header to every record.
 */
export const NO_HEADERS: RecordHeader[] = Object.freeze([]) as unknown as RecordHeader[]

/** The records of a record batch whose records were moved on (a consumer's hand-out holds them now): frozen and empty. */
export const NO_RECORDS: KafkaRecord[] = Object.freeze([]) as unknown as KafkaRecord[]

/** The topic and partition a decode is for, for error messages. */
export function where (context: DecodeContext): string {
  const topic = context.topic ?? '?'
  const partition = context.partition ?? '?'
  return `topic ${topic} partition ${partition}`
}

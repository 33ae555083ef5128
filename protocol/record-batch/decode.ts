/**
 * Decoding record batches: the entry points that scan the bytes (scan.ts), then decode
 * each batch's records (records.ts, legacy.ts), decompressing compressed batches
 * concurrently. The job of this file: fetched bytes in, RecordBatches with their records out.
 *
 * Decoding returns keys, values and header values as views into the input buffer (no
 * copies), checking every length against the bytes that exist, so bad bytes are a
 * ProtocolError and never a RangeError.
 */
import { KafkaTsError, ProtocolError } from '../errors'
import { DEFAULT_MAX_DECOMPRESSED_BYTES, decompress, type CompressionCodec } from '../compression'
import { MAGIC, OFFSET_MAGIC, RECORD_BATCH_OVERHEAD, type DecodeContext, type KafkaRecord, type RecordBatch } from './types'
import { decodeLegacyEntry, decodeLegacyWrapper } from './legacy'
import { decodeRecordsInContext, inBatch } from './records'
import { completeBatchEnd, decodeBatchHeader, decodeScanned, scanRecordBatches, type ScannedBatch } from './scan'

/** A compressed batch given to decodeRecordBatchesSync, which only decodes uncompressed ones. */
export class CompressedBatchError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.CompressedBatchError')
  /** The error for a batch compressed with `codec`; never retriable. */
  constructor (codec: CompressionCodec) {
    super('COMPRESSED_BATCH', `decodeRecordBatchesSync met a ${codec}-compressed record batch; decode compressed data with decodeRecordBatches`, { retriable: false })
    this.name = 'CompressedBatchError'
  }
}

/**
 * Decodes the concatenated batches of a records field (as in a Fetch response). A partial
 * batch at the end, which brokers leave when they cut a response at its byte limit, is
 * ignored. Compressed batches are decompressed concurrently.
 */
export async function decodeRecordBatches (buffer: Buffer, context: DecodeContext = {}): Promise<RecordBatch[]> {
  const scanned = scanRecordBatches(buffer, context)
  const complete = await decodeScannedBatches(scanned, context)
  const batches: RecordBatch[] = new Array(complete)
  for (let i = 0; i < complete; i++) batches[i] = scanned[i].batch
  return batches
}

/**
 * Decodes the records of scanned batches (decompressing concurrently) into each one's
 * `batch.records`. Returns how many of them, from the first, were decoded: a batch held
 * to its size hint (memoryBudget) that decompressed past it is left out with those after
 * it, to be fetched again. Bad bytes are a ProtocolError. With `context.recordMaker`, each
 * data batch must be decoded by one call only (its legacy records are made over at the end).
 */
export async function decodeScannedBatches (scanned: readonly ScannedBatch[], context: DecodeContext = {}): Promise<number> {
  let pending: Array<Promise<void>> | undefined
  let overLimitAt = scanned.length
  const maxDecompressed = context.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
  try {
    for (let i = 0; i < scanned.length; i++) {
      const s = scanned[i]
      if (s.decoded) continue
      const batch = s.batch
      if (batch.compression === 'none') {
        decodeScanned(s, context)
        continue
      }
      const decoding = batch.magic < MAGIC ? decodeLegacyWrapper(batch, s.data, context, s.maxBytes) : decodeCompressedRecords(batch, s.data, context, s.maxBytes)
      ;(pending ??= []).push(decoding.then(() => { s.decoded = true }, (error: unknown) => {
        if (!(error instanceof DecompressedTooLargeError) || s.maxBytes === maxDecompressed) throw error
        overLimitAt = Math.min(overLimitAt, i)
      }))
    }
  } catch (error) {
    // A later batch is bad while earlier ones are still decompressing: their failures must
    // not surface as unhandled rejections (which end a Node process).
    if (pending !== undefined) for (const p of pending) p.catch(() => {})
    throw error
  }
  if (pending !== undefined) await Promise.all(pending)
  const maker = context.recordMaker
  if (maker !== undefined) {
    for (let i = 0; i < overLimitAt; i++) {
      const batch = scanned[i].batch
      if (batch.magic < MAGIC) batch.records = batch.records.map(record => maker.fromRecord(record)) as KafkaRecord[]
    }
  }
  return overLimitAt
}

/** A batch decompressed past the limit it was given (its own size hint). */
class DecompressedTooLargeError extends ProtocolError {}

/** Synchronous decodeRecordBatches for uncompressed data; a compressed batch is a CompressedBatchError. */
export function decodeRecordBatchesSync (buffer: Buffer, context: DecodeContext = {}): RecordBatch[] {
  const batches: RecordBatch[] = []
  let pos = 0
  for (;;) {
    const end = completeBatchEnd(buffer, pos, context)
    if (end < 0) break
    if (buffer[pos + OFFSET_MAGIC] < MAGIC) {
      const legacy = decodeLegacyEntry(buffer, pos, end, context)
      if (legacy.compression !== 'none') throw new CompressedBatchError(legacy.compression)
      batches.push(legacy)
      pos = end
      continue
    }
    const batch = decodeBatchHeader(buffer, pos, end, context)
    if (batch.recordCount > 0) {
      if (batch.compression !== 'none') throw new CompressedBatchError(batch.compression)
      decodeRecordsInContext(batch, buffer, pos + RECORD_BATCH_OVERHEAD, end, context)
    }
    batches.push(batch)
    pos = end
  }
  return batches
}

async function decodeCompressedRecords (batch: RecordBatch, compressed: Buffer, context: DecodeContext, maxBytes: number): Promise<void> {
  let records: Buffer
  try {
    records = await decompress(batch.compression, compressed, { maxBytes })
  } catch (error) {
    if (maxBytes !== (context.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES) && error instanceof ProtocolError) throw new DecompressedTooLargeError(error.message)
    if (error instanceof ProtocolError) throw inBatch(batch, context, error)
    throw error
  }
  batch.decompressedBytes = records.length
  decodeRecordsInContext(batch, records, 0, records.length, context, context.recordMaker)
}

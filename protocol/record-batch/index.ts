/**
 * Record batches: the public names of the codec, so importers need not know which file
 * holds what. types.ts says what the bytes are; encode.ts writes batches; scan.ts finds
 * and checks them (headers, CRC); records.ts decodes a batch's records; decode.ts is the
 * decoding entry points; legacy.ts reads message sets of magic 0 and 1.
 */
export {
  NO_HEADERS, NO_RECORDS, RECORD_BATCH_OVERHEAD, RECORD_MEMORY_OVERHEAD,
  type ControlRecord, type DecodeContext, type EncodeRecordBatchOptions, type KafkaRecord, type RecordBatch, type RecordHeader,
  type RecordInput, type RecordMaker
} from './types'
export { controlRecordInput, encodeRecordBatch, encodeRecordBatchSync, recordSizeUpperBound } from './encode'
export { scanRecordBatches, type ScannedBatch } from './scan'
export { CompressedBatchError, decodeRecordBatches, decodeRecordBatchesSync, decodeScannedBatches } from './decode'

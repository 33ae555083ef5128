/**
 * Writes legacy message sets (magic 0 and 1) for tests, as Kafka's LegacyRecord and the
 * old Java producer laid them out: offset, size, CRC-32 (IEEE) of the rest, magic,
 * attributes, [timestamp,] key and value with int32 lengths; a compressed wrapper's
 * value is its compressed inner message set.
 */
import * as zlib from 'node:zlib'
import { compress, type CompressionCodec } from '../../protocol/compression'

const CODEC_IDS: Record<Exclude<CompressionCodec, 'zstd'>, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3 }

export interface LegacyMessageInput {
  offset: bigint
  key?: Buffer | null
  value: Buffer | null
  /** Magic 1 only. */
  timestamp?: bigint
  /** Extra attribute bits (0x08: log-append time). */
  flags?: number
}

export function legacyMessage (magic: 0 | 1, message: LegacyMessageInput, codec: Exclude<CompressionCodec, 'zstd'> = 'none'): Buffer {
  const key = message.key ?? null
  const value = message.value
  const body = Buffer.alloc(2 + (magic === 1 ? 8 : 0) + 4 + (key?.length ?? 0) + 4 + (value?.length ?? 0))
  let pos = body.writeInt8(magic, 0)
  pos = body.writeInt8(CODEC_IDS[codec] | (message.flags ?? 0), pos)
  if (magic === 1) pos = body.writeBigInt64BE(message.timestamp ?? 0n, pos)
  pos = body.writeInt32BE(key === null ? -1 : key.length, pos)
  if (key !== null) pos += key.copy(body, pos)
  pos = body.writeInt32BE(value === null ? -1 : value.length, pos)
  if (value !== null) value.copy(body, pos)
  const head = Buffer.alloc(16)
  head.writeBigInt64BE(message.offset, 0)
  head.writeInt32BE(4 + body.length, 8)
  head.writeUInt32BE(zlib.crc32(body), 12)
  return Buffer.concat([head, body])
}

/**
 * A compressed wrapper of `inner` messages. Magic 1: inner offsets 0..n-1 and the wrapper
 * at `lastOffset`; magic 0: inner offsets absolute (lastOffset - n + 1 ...).
 */
export async function legacyWrapper (magic: 0 | 1, codec: 'gzip' | 'snappy' | 'lz4', lastOffset: bigint, inner: Array<Omit<LegacyMessageInput, 'offset'>>, wrapper: { timestamp?: bigint, flags?: number } = {}): Promise<Buffer> {
  const n = BigInt(inner.length)
  const set = Buffer.concat(inner.map((m, i) => legacyMessage(magic, { ...m, offset: magic === 1 ? BigInt(i) : lastOffset - n + 1n + BigInt(i) })))
  return legacyMessage(magic, { offset: lastOffset, value: await compress(codec, set), timestamp: wrapper.timestamp, flags: wrapper.flags }, codec)
}

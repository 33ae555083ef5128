/**
 * Compression codecs of record batches: attributes bits 0–2 name the codec, and the
 * records section (everything after the 61-byte header) is compressed as one unit.
 *
 * gzip comes from node:zlib. snappy, lz4 and zstd come from native packages that are
 * optional dependencies: each is `require`d the first time its codec is used, so an
 * application that never sees the codec never needs the package, and a missing package
 * is a `CompressionCodecUnavailableError` that names the package to install.
 *
 * Wire formats are the Java client's:
 * - snappy: xerial framing (a 16-byte header, then blocks of int32 length + raw snappy,
 *   each block at most 32 KiB before compression). Raw snappy is read too.
 * - lz4: the LZ4 frame format, independent blocks (the Java client refuses dependent ones).
 * - zstd: standard zstd frames.
 *
 * Decompression bombs: `decompress` takes `maxBytes` (default 256 MiB) and refuses data
 * that would decompress to more before the output is allocated:
 * - gzip: zlib's `maxOutputLength` stops inflating at the limit.
 * - snappy: every raw snappy block starts with its uncompressed length; the lengths are
 *   summed and checked before any block is decompressed.
 * - lz4 and zstd: the native calls take no limit, so the frames are walked first (headers
 *   and block sizes only, no decompression) to get an upper bound of the output: a declared
 *   content size, and per block its stored size or the format's maximum block size
 *   (lz4: 64 KiB–4 MiB from the frame descriptor; zstd: 128 KiB). Data whose bound passes
 *   the limit is refused. The bound is tight for real data (blocks are full but the last).
 */
import { promisify } from 'node:util'
import * as zlib from 'node:zlib'
import { KafkaTsError, ProtocolError } from './errors'

/** A record batch's compression codec (`compression` of a producer; the consumer reads all of them). */
export type CompressionCodec = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'

/** Codec by its id in the batch attributes (bits 0–2). */
export const COMPRESSION_CODECS: readonly CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

/** Id of each codec in the batch attributes. */
export const COMPRESSION_CODEC_IDS: Readonly<Record<CompressionCodec, number>> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 }

/**
 * The lowest Produce version that may carry a batch of each codec: zstd came with Produce v7
 * (Kafka 2.1, KIP-110); an older broker cannot read it (it answers UNKNOWN_SERVER_ERROR).
 */
export const MIN_PRODUCE_VERSION: Readonly<Record<CompressionCodec, number>> = { none: 0, gzip: 0, snappy: 0, lz4: 0, zstd: 7 }

/** Default for `maxBytes`: no batch decompresses to more than this. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024

/** A codec that needs a native package (CODEC_PACKAGES names it). */
export type NativeCodec = 'snappy' | 'lz4' | 'zstd'

/** The npm package each native codec needs. */
export const CODEC_PACKAGES: Readonly<Record<NativeCodec, string>> = { snappy: 'snappy', lz4: 'lz4-napi', zstd: '@mongodb-js/zstd' }

/** A codec whose package is not installed (or fails to load). */
export class CompressionCodecUnavailableError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.CompressionCodecUnavailableError')
  /** The codec that was needed: 'snappy', 'lz4' or 'zstd'. */
  readonly codec: CompressionCodec
  /** The npm package that codec needs ('snappy', 'lz4-napi' or '@mongodb-js/zstd'). */
  readonly packageName: string

  /** The error for `codec`, whose package failed to load with `cause`; never retriable. */
  constructor (codec: NativeCodec, cause: unknown) {
    const packageName = CODEC_PACKAGES[codec]
    super('COMPRESSION_CODEC_UNAVAILABLE', `The ${codec} compression codec needs the "${packageName}" package, which could not be loaded. Install it with \`npm install ${packageName}\`.`, { retriable: false, cause })
    this.name = 'CompressionCodecUnavailableError'
    this.codec = codec
    this.packageName = packageName
  }
}

/** The codec with id `id`, or a ProtocolError for ids 5–7 (unused by Kafka). */
export function codecFromId (id: number): CompressionCodec {
  const codec = COMPRESSION_CODECS[id]
  if (codec === undefined) throw new ProtocolError(`Unknown compression codec id ${id} in record batch attributes`)
  return codec
}

// ---------------------------------------------------------------------------------------
// Lazy loading of the native packages

interface SnappyModule {
  compressSync: (input: Uint8Array) => Buffer
  uncompressSync: (input: Uint8Array, options?: { asBuffer?: boolean }) => string | Buffer
}
interface Lz4Module {
  compressFrame: (data: Uint8Array) => Promise<Buffer>
  decompressFrame: (data: Uint8Array) => Promise<Buffer>
}
interface ZstdModule {
  compress: (data: Buffer, level?: number) => Promise<Buffer>
  decompress: (data: Buffer) => Promise<Buffer>
}

type PackageLoader = (packageName: string) => unknown
// The codec packages are optional dependencies: required on first use, so a missing one costs nothing until then.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const defaultLoader: PackageLoader = (packageName) => require(packageName)
let loader: PackageLoader = defaultLoader
const loaded = new Map<NativeCodec, unknown>()

function loadCodec (codec: NativeCodec): unknown {
  let module = loaded.get(codec)
  if (module === undefined) {
    try {
      module = loader(CODEC_PACKAGES[codec])
    } catch (error) {
      throw new CompressionCodecUnavailableError(codec, error)
    }
    loaded.set(codec, module)
  }
  return module
}

/**
 * Test hook: replaces how codec packages are loaded (pass undefined to restore `require`)
 * and forgets the packages loaded so far. No entry point exports it.
 */
export function setCodecPackageLoaderForTests (replacement: PackageLoader | undefined): void {
  loader = replacement ?? defaultLoader
  loaded.clear()
}

// ---------------------------------------------------------------------------------------
// compress / decompress

const gzipAsync = promisify(zlib.gzip)
const gunzipAsync = promisify(zlib.gunzip) as (data: Uint8Array, options: zlib.ZlibOptions) => Promise<Buffer>

/** Level the Java client uses by default for zstd. */
const ZSTD_LEVEL = 3

/** Compresses a records section with `codec` ('none' returns the data as is). */
export async function compress (codec: CompressionCodec, data: Buffer): Promise<Buffer> {
  switch (codec) {
    case 'none': return data
    case 'gzip': return await gzipAsync(data)
    case 'snappy': return snappyXerialCompress(loadCodec('snappy') as SnappyModule, data)
    case 'lz4': return await (loadCodec('lz4') as Lz4Module).compressFrame(data)
    case 'zstd': return await (loadCodec('zstd') as ZstdModule).compress(data, ZSTD_LEVEL)
    default: throw new TypeError(`Unknown compression codec ${String(codec)}`)
  }
}

export interface DecompressOptions {
  /** Refuse data that decompresses to more bytes than this (default 256 MiB). */
  maxBytes?: number
}

/**
 * Decompresses a records section. Bad compressed data, and data that would decompress
 * past `maxBytes`, is a ProtocolError naming the codec.
 */
export async function decompress (codec: CompressionCodec, data: Buffer, options: DecompressOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
  switch (codec) {
    case 'none': return data
    case 'gzip': return await gunzipLimited(data, maxBytes)
    case 'snappy': return snappyDecompress(loadCodec('snappy') as SnappyModule, data, maxBytes)
    case 'lz4': {
      const lz4 = loadCodec('lz4') as Lz4Module
      lz4OutputBound(data, maxBytes)
      const output = await nativeCall('lz4', () => lz4.decompressFrame(data))
      return checkOutputSize('lz4', output, maxBytes)
    }
    case 'zstd': {
      const zstd = loadCodec('zstd') as ZstdModule
      zstdOutputBound(data, maxBytes)
      const output = await nativeCall('zstd', () => zstd.decompress(data))
      return checkOutputSize('zstd', output, maxBytes)
    }
    default: throw new TypeError(`Unknown compression codec ${String(codec)}`)
  }
}

/**
 * What `data` will decompress to, before decompressing it: an upper bound for zstd and
 * lz4 (from frame headers and block sizes), the exact sum of the declared block lengths
 * for snappy, and for gzip the size its trailer declares (ISIZE: exact for the one-member
 * gzip every Kafka client writes; `decompress` with `maxBytes` set to it refuses a
 * trailer that lies). Data that would pass `maxBytes` is a ProtocolError, as in decompress.
 */
export function decompressedSizeHint (codec: CompressionCodec, data: Buffer, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): number {
  switch (codec) {
    case 'none': return data.length
    case 'gzip': {
      if (data.length < 18) throw new ProtocolError(`Malformed gzip data in a record batch: ${data.length} bytes cannot hold a gzip header and trailer`)
      const size = data.readUInt32LE(data.length - 4)
      if (size > maxBytes) throw tooLarge('gzip', size, maxBytes)
      return size
    }
    case 'snappy': return snappyOutputSize(data, maxBytes)
    case 'lz4': return lz4OutputBound(data, maxBytes)
    case 'zstd': return zstdOutputBound(data, maxBytes)
    default: throw new TypeError(`Unknown compression codec ${String(codec)}`)
  }
}

async function nativeCall (codec: CompressionCodec, call: () => Promise<Buffer>): Promise<Buffer> {
  try {
    return await call()
  } catch (error) {
    throw new ProtocolError(`Malformed ${codec} data in a record batch: ${(error as Error)?.message ?? String(error)}`, { cause: error })
  }
}

function checkOutputSize (codec: CompressionCodec, output: Buffer, maxBytes: number): Buffer {
  if (output.length > maxBytes) throw tooLarge(codec, output.length, maxBytes)
  return output
}

function tooLarge (codec: CompressionCodec, size: number | string, maxBytes: number): ProtocolError {
  return new ProtocolError(`${codec} data in a record batch decompresses to ${size} bytes, more than the limit of ${maxBytes}`)
}

async function gunzipLimited (data: Buffer, maxBytes: number): Promise<Buffer> {
  try {
    return await gunzipAsync(data, { maxOutputLength: Math.max(1, maxBytes) })
  } catch (error) {
    if ((error as { code?: string })?.code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge('gzip', 'more than the limit', maxBytes)
    throw new ProtocolError(`Malformed gzip data in a record batch: ${(error as Error)?.message ?? String(error)}`, { cause: error })
  }
}

// ---------------------------------------------------------------------------------------
// snappy: xerial framing

/** 0x82 'SNAPPY' 0x00, then int32 version 1 and int32 minimum compatible version 1. */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00])
const XERIAL_HEADER_SIZE = 16
/** The Java client's snappy block size (xerial SnappyOutputStream's default). */
const XERIAL_BLOCK_SIZE = 32 * 1024

function snappyXerialCompress (snappy: SnappyModule, data: Buffer): Buffer {
  const blocks: Buffer[] = []
  let total = XERIAL_HEADER_SIZE
  for (let start = 0; start < data.length; start += XERIAL_BLOCK_SIZE) {
    const block = snappy.compressSync(data.subarray(start, Math.min(start + XERIAL_BLOCK_SIZE, data.length)))
    blocks.push(block)
    total += 4 + block.length
  }
  const out = Buffer.allocUnsafe(total)
  XERIAL_MAGIC.copy(out, 0)
  out.writeInt32BE(1, 8)
  out.writeInt32BE(1, 12)
  let pos = XERIAL_HEADER_SIZE
  for (const block of blocks) {
    out.writeInt32BE(block.length, pos)
    block.copy(out, pos + 4)
    pos += 4 + block.length
  }
  return out
}

function isXerialFramed (data: Buffer): boolean {
  return data.length >= XERIAL_MAGIC.length && data.compare(XERIAL_MAGIC, 0, XERIAL_MAGIC.length, 0, XERIAL_MAGIC.length) === 0
}

function snappyDecompress (snappy: SnappyModule, data: Buffer, maxBytes: number): Buffer {
  if (!isXerialFramed(data)) {
    const length = snappyRawLength(data)
    if (length > maxBytes) throw tooLarge('snappy', length, maxBytes)
    return snappyBlock(snappy, data)
  }
  if (data.length < XERIAL_HEADER_SIZE) throw new ProtocolError(`Truncated xerial snappy header: ${data.length} bytes, expected ${XERIAL_HEADER_SIZE}`)
  // Check every block's bounds and declared size before decompressing any of them.
  const blocks: Buffer[] = []
  let total = 0
  let pos = XERIAL_HEADER_SIZE
  while (pos < data.length) {
    if (data.length - pos < 4) throw new ProtocolError(`Truncated xerial snappy block length at offset ${pos} of ${data.length}`)
    const length = data.readInt32BE(pos)
    pos += 4
    if (length < 0 || length > data.length - pos) throw new ProtocolError(`Bad xerial snappy block length ${length} at offset ${pos - 4}: ${data.length - pos} bytes remain`)
    const block = data.subarray(pos, pos + length)
    pos += length
    total += snappyRawLength(block)
    if (total > maxBytes) throw tooLarge('snappy', `at least ${total}`, maxBytes)
    blocks.push(block)
  }
  if (blocks.length === 1) return snappyBlock(snappy, blocks[0])
  const out = Buffer.allocUnsafe(total)
  let at = 0
  for (const block of blocks) {
    const plain = snappyBlock(snappy, block)
    if (plain.length > total - at) throw new ProtocolError('Malformed snappy data in a record batch: a block is longer than it declares')
    plain.copy(out, at)
    at += plain.length
  }
  return at === total ? out : out.subarray(0, at)
}

/** The bytes snappy data (xerial-framed or raw) declares it decompresses to. */
function snappyOutputSize (data: Buffer, maxBytes: number): number {
  if (!isXerialFramed(data)) return snappyRawLength(data)
  let total = 0
  for (let pos = XERIAL_HEADER_SIZE; pos < data.length;) {
    if (data.length - pos < 4) throw new ProtocolError(`Truncated xerial snappy block length at offset ${pos} of ${data.length}`)
    const length = data.readInt32BE(pos)
    pos += 4
    if (length < 0 || length > data.length - pos) throw new ProtocolError(`Bad xerial snappy block length ${length} at offset ${pos - 4}: ${data.length - pos} bytes remain`)
    total += snappyRawLength(data.subarray(pos, pos + length))
    if (total > maxBytes) throw tooLarge('snappy', `at least ${total}`, maxBytes)
    pos += length
  }
  return total
}

/** The uncompressed length a raw snappy block declares (its varint preamble). */
function snappyRawLength (block: Buffer): number {
  let length = 0
  let multiplier = 1
  for (let i = 0; i < 5; i++) {
    if (i >= block.length) throw new ProtocolError('Malformed snappy data in a record batch: truncated length preamble')
    const byte = block[i]
    length += (byte & 0x7f) * multiplier
    if (byte < 0x80) return length
    multiplier *= 128
  }
  throw new ProtocolError('Malformed snappy data in a record batch: length preamble longer than 5 bytes')
}

function snappyBlock (snappy: SnappyModule, block: Buffer): Buffer {
  try {
    return snappy.uncompressSync(block, { asBuffer: true }) as Buffer
  } catch (error) {
    throw new ProtocolError(`Malformed snappy data in a record batch: ${(error as Error)?.message ?? String(error)}`, { cause: error })
  }
}

// ---------------------------------------------------------------------------------------
// Output bounds of lz4 and zstd frames, from their headers and block sizes

const SKIPPABLE_MASK = 0xfffffff0
const SKIPPABLE_MAGIC = 0x184d2a50

function truncated (codec: CompressionCodec, what: string, at: number): ProtocolError {
  return new ProtocolError(`Malformed ${codec} data in a record batch: truncated ${what} at offset ${at}`)
}

/** Skips a skippable frame (same layout in lz4 and zstd) at `pos`; returns the next position. */
function skipSkippableFrame (codec: CompressionCodec, data: Buffer, pos: number): number {
  if (data.length - pos < 8) throw truncated(codec, 'skippable frame', pos)
  const size = data.readUInt32LE(pos + 4)
  if (size > data.length - pos - 8) throw truncated(codec, 'skippable frame', pos)
  return pos + 8 + size
}

const LZ4_MAGIC = 0x184d2204
const LZ4_BLOCK_MAX_SIZES: Record<number, number> = { 4: 64 * 1024, 5: 256 * 1024, 6: 1024 * 1024, 7: 4 * 1024 * 1024 }

/** An upper bound of what LZ4 frames decompress to; throws when it passes `maxBytes`. */
export function lz4OutputBound (data: Buffer, maxBytes: number): number {
  let bound = 0
  let pos = 0
  let frames = 0
  while (pos < data.length) {
    if (data.length - pos < 4) throw truncated('lz4', 'frame magic', pos)
    const magic = data.readUInt32LE(pos)
    if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
      pos = skipSkippableFrame('lz4', data, pos)
      continue
    }
    if (magic !== LZ4_MAGIC) {
      // Bytes after a complete frame are the library's to judge (it may ignore them).
      if (frames > 0) break
      throw new ProtocolError('Malformed lz4 data in a record batch: not an LZ4 frame (bad magic number)')
    }
    if (data.length - pos < 7) throw truncated('lz4', 'frame descriptor', pos)
    const flags = data[pos + 4]
    const blockMaxSize = LZ4_BLOCK_MAX_SIZES[(data[pos + 5] >> 4) & 7]
    if (flags >> 6 !== 1 || blockMaxSize === undefined) throw new ProtocolError(`Malformed lz4 data in a record batch: unsupported frame descriptor ${data[pos + 4]}/${data[pos + 5]}`)
    const hasBlockChecksum = (flags & 0x10) !== 0
    const hasContentSize = (flags & 0x08) !== 0
    const hasContentChecksum = (flags & 0x04) !== 0
    const hasDictId = (flags & 0x01) !== 0
    let p = pos + 6
    if (hasContentSize) {
      if (data.length - p < 8) throw truncated('lz4', 'content size', p)
      const contentSize = data.readBigUInt64LE(p)
      if (contentSize > BigInt(maxBytes)) throw tooLarge('lz4', contentSize.toString(), maxBytes)
      p += 8
    }
    if (hasDictId) p += 4
    p += 1 // header checksum
    for (;;) {
      if (data.length - p < 4) throw truncated('lz4', 'block size', p)
      const word = data.readUInt32LE(p)
      p += 4
      if (word === 0) break // end mark
      const stored = word & 0x7fffffff
      const isUncompressed = word !== stored
      if (stored > data.length - p) throw truncated('lz4', 'block', p)
      p += stored + (hasBlockChecksum ? 4 : 0)
      bound += isUncompressed ? stored : blockMaxSize
      if (bound > maxBytes + blockMaxSize) throw tooLarge('lz4', `up to ${bound}`, maxBytes)
    }
    if (hasContentChecksum) p += 4
    if (p > data.length) throw truncated('lz4', 'checksum', data.length)
    pos = p
    frames++
  }
  return bound
}

const ZSTD_MAGIC = 0xfd2fb528
/** zstd's Block_Maximum_Size: no block decompresses to more. */
const ZSTD_BLOCK_MAX_SIZE = 128 * 1024
const ZSTD_DICT_ID_SIZES = [0, 1, 2, 4]
const ZSTD_CONTENT_SIZE_SIZES = [0, 2, 4, 8]

/** An upper bound of what zstd frames decompress to; throws when it passes `maxBytes`. */
export function zstdOutputBound (data: Buffer, maxBytes: number): number {
  let bound = 0
  let pos = 0
  let frames = 0
  while (pos < data.length) {
    if (data.length - pos < 4) throw truncated('zstd', 'frame magic', pos)
    const magic = data.readUInt32LE(pos)
    if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
      pos = skipSkippableFrame('zstd', data, pos)
      continue
    }
    if (magic !== ZSTD_MAGIC) {
      if (frames > 0) break
      throw new ProtocolError('Malformed zstd data in a record batch: not a zstd frame (bad magic number)')
    }
    if (data.length - pos < 5) throw truncated('zstd', 'frame header', pos)
    const descriptor = data[pos + 4]
    const contentSizeFlag = descriptor >> 6
    const singleSegment = (descriptor & 0x20) !== 0
    const hasChecksum = (descriptor & 0x04) !== 0
    let p = pos + 5
    if (!singleSegment) p += 1 // window descriptor
    p += ZSTD_DICT_ID_SIZES[descriptor & 3]
    const contentSizeSize = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : ZSTD_CONTENT_SIZE_SIZES[contentSizeFlag]
    if (data.length - p < contentSizeSize) throw truncated('zstd', 'frame header', pos)
    if (contentSizeSize > 0) {
      let contentSize: bigint
      if (contentSizeSize === 1) contentSize = BigInt(data[p])
      else if (contentSizeSize === 2) contentSize = BigInt(data.readUInt16LE(p) + 256)
      else if (contentSizeSize === 4) contentSize = BigInt(data.readUInt32LE(p))
      else contentSize = data.readBigUInt64LE(p)
      if (contentSize > BigInt(maxBytes)) throw tooLarge('zstd', contentSize.toString(), maxBytes)
    }
    p += contentSizeSize
    for (;;) {
      if (data.length - p < 3) throw truncated('zstd', 'block header', p)
      const header = data[p] | (data[p + 1] << 8) | (data[p + 2] << 16)
      p += 3
      const isLast = (header & 1) !== 0
      const type = (header >> 1) & 3
      const size = header >>> 3
      if (type === 0) { // raw
        if (size > data.length - p) throw truncated('zstd', 'raw block', p)
        p += size
        bound += size
      } else if (type === 1) { // RLE: one byte repeated `size` times
        if (data.length - p < 1) throw truncated('zstd', 'RLE block', p)
        p += 1
        bound += Math.min(size, ZSTD_BLOCK_MAX_SIZE)
      } else if (type === 2) { // compressed
        if (size > data.length - p) throw truncated('zstd', 'compressed block', p)
        p += size
        bound += ZSTD_BLOCK_MAX_SIZE
      } else {
        throw new ProtocolError(`Malformed zstd data in a record batch: reserved block type at offset ${p - 3}`)
      }
      if (bound > maxBytes + ZSTD_BLOCK_MAX_SIZE) throw tooLarge('zstd', `up to ${bound}`, maxBytes)
      if (isLast) break
    }
    if (hasChecksum) p += 4
    if (p > data.length) throw truncated('zstd', 'checksum', data.length)
    pos = p
    frames++
  }
  return bound
}

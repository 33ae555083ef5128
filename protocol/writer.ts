/**
 * Writer: encodes Kafka primitives into one growing Buffer.
 *
 * The buffer doubles when full, so a request is built with O(log n) copies at
 * most; `reserve*`/`patch*` let a caller write a length or CRC before the bytes
 * it covers are known (the request size prefix, a record batch's length and CRC).
 */
import { SMALL_VARLONG_MAX, SMALL_VARLONG_MIN, writeUvarint, writeVarint, writeVarlong } from './varint'

const EMPTY = Buffer.alloc(0)

/** Byte ranges from this size on are referred to by a writer of references, smaller ones copied. */
export const REFERENCE_MIN_BYTES = 16 * 1024

/** Encodes Kafka's primitive types into one growing buffer, big-endian; every write returns the writer, so calls chain. */
export class Writer {
  /** The buffer written to; replaced by a larger one when full (bytes [0, offset) are written). */
  buffer: Buffer
  /** Next write position; bytes [0, offset) are written. */
  offset = 0
  /**
   * A writer of references (made with `references: true`, for request frames the
   * connection writes as chunks) keeps large ranges given to `rawOrReference` where they
   * are: each goes on the wire after the bytes written before it (`chunks()`), so a record
   * batch is not copied into the frame. Undefined for other writers, which copy.
   */
  readonly #references: Array<{ at: number, bytes: Uint8Array }> | undefined
  /** Bytes of the referred-to ranges: with `offset`, the frame's length. */
  referencedBytes = 0

  constructor (initialSize = 1024, references = false) {
    this.buffer = Buffer.allocUnsafe(initialSize)
    if (references) this.#references = []
  }

  /** Whether `rawOrReference` refers to a range of `length` bytes rather than copying it. */
  references (length: number): boolean {
    return this.#references !== undefined && length >= REFERENCE_MIN_BYTES
  }

  /** Appends `bytes`: referred to (see `references`), or copied. A referred range must not change until it is written. */
  rawOrReference (bytes: Uint8Array): this {
    if (!this.references(bytes.length)) return this.raw(bytes)
    this.#references!.push({ at: this.offset, bytes })
    this.referencedBytes += bytes.length
    return this
  }

  /** The bytes from `start` on, with the referred-to ranges in place: the chunks to write in order (views, no copies). */
  chunks (start = 0): Uint8Array[] {
    const out: Uint8Array[] = []
    let from = start
    for (const { at, bytes } of this.#references ?? []) {
      if (at > from) out.push(this.buffer.subarray(from, at))
      out.push(bytes)
      from = at
    }
    if (this.offset > from || out.length === 0) out.push(this.buffer.subarray(from, this.offset))
    return out
  }

  /** Makes room for `size` more bytes. */
  ensure (size: number): void {
    const needed = this.offset + size
    if (needed <= this.buffer.length) return
    let capacity = this.buffer.length * 2
    while (capacity < needed) capacity *= 2
    const grown = Buffer.allocUnsafe(capacity)
    this.buffer.copy(grown, 0, 0, this.offset)
    this.buffer = grown
  }

  /** The written bytes (a view, not a copy). */
  finish (): Buffer {
    return this.buffer.subarray(0, this.offset)
  }

  /** Appends an INT8: a signed byte. */
  int8 (value: number): this {
    this.ensure(1)
    this.buffer.writeInt8(value, this.offset)
    this.offset += 1
    return this
  }

  /** Appends an unsigned byte. */
  uint8 (value: number): this {
    this.ensure(1)
    this.buffer[this.offset++] = value
    return this
  }

  /** Appends an INT16: a signed 16-bit integer. */
  int16 (value: number): this {
    this.ensure(2)
    this.buffer.writeInt16BE(value, this.offset)
    this.offset += 2
    return this
  }

  /** Appends a UINT16: an unsigned 16-bit integer. */
  uint16 (value: number): this {
    this.ensure(2)
    this.buffer.writeUInt16BE(value, this.offset)
    this.offset += 2
    return this
  }

  /** Appends an INT32: a signed 32-bit integer. */
  int32 (value: number): this {
    this.ensure(4)
    this.buffer.writeInt32BE(value, this.offset)
    this.offset += 4
    return this
  }

  /** Appends a UINT32: an unsigned 32-bit integer. */
  uint32 (value: number): this {
    this.ensure(4)
    this.buffer.writeUInt32BE(value, this.offset)
    this.offset += 4
    return this
  }

  /** Appends an INT64: a signed 64-bit integer. */
  int64 (value: bigint): this {
    this.ensure(8)
    this.buffer.writeBigInt64BE(value, this.offset)
    this.offset += 8
    return this
  }

  /** Appends a FLOAT64: an IEEE 754 double. */
  float64 (value: number): this {
    this.ensure(8)
    this.buffer.writeDoubleBE(value, this.offset)
    this.offset += 8
    return this
  }

  /** Appends a BOOLEAN: one byte, 1 for true, 0 for false. */
  bool (value: boolean): this {
    return this.uint8(value ? 1 : 0)
  }

  /** Unsigned LEB128 varint of a value in [0, 2^32). */
  uvarint (value: number): this {
    this.ensure(5)
    this.offset = writeUvarint(this.buffer, this.offset, value)
    return this
  }

  /** Zigzag varint of a signed 32-bit value (record fields). */
  varint (value: number): this {
    this.ensure(5)
    this.offset = writeVarint(this.buffer, this.offset, value)
    return this
  }

  /** Zigzag varlong of a signed 64-bit value (record timestamp and offset deltas). */
  varlong (value: bigint): this {
    // Deltas are almost always small: take the 32-bit path when the value fits.
    if (value >= SMALL_VARLONG_MIN && value <= SMALL_VARLONG_MAX) return this.varint(Number(value))
    this.ensure(10)
    this.offset = writeVarlong(this.buffer, this.offset, value)
    return this
  }

  /** Raw bytes, no length prefix. */
  raw (bytes: Uint8Array): this {
    this.ensure(bytes.length)
    this.buffer.set(bytes, this.offset)
    this.offset += bytes.length
    return this
  }

  /** UTF-8 bytes of a string, no length prefix. */
  utf8 (value: string, byteLength: number): this {
    this.ensure(byteLength)
    this.offset += this.buffer.write(value, this.offset, byteLength, 'utf8')
    return this
  }

  /** STRING / NULLABLE_STRING: int16 length (-1 for null), UTF-8 bytes. */
  string (value: string | null): this {
    if (value === null) return this.int16(-1)
    const length = Buffer.byteLength(value, 'utf8')
    return this.int16(length).utf8(value, length)
  }

  /** COMPACT_STRING / COMPACT_NULLABLE_STRING: uvarint length+1 (0 for null), UTF-8 bytes. */
  compactString (value: string | null): this {
    if (value === null) return this.uvarint(0)
    const length = Buffer.byteLength(value, 'utf8')
    return this.uvarint(length + 1).utf8(value, length)
  }

  /** BYTES / NULLABLE_BYTES: int32 length (-1 for null), bytes. */
  bytes (value: Uint8Array | null): this {
    if (value === null) return this.int32(-1)
    return this.int32(value.length).raw(value)
  }

  /** COMPACT_BYTES / COMPACT_NULLABLE_BYTES: uvarint length+1 (0 for null), bytes. */
  compactBytes (value: Uint8Array | null): this {
    if (value === null) return this.uvarint(0)
    return this.uvarint(value.length + 1).raw(value)
  }

  /** A UUID as 16 bytes, from its 32-hex-digit form (dashes allowed). */
  uuid (value: string): this {
    const hex = value.length === 36 ? value.replace(/-/g, '') : value
    if (hex.length !== 32) throw new TypeError(`Not a UUID: ${value}`)
    this.ensure(16)
    this.offset += this.buffer.write(hex, this.offset, 16, 'hex')
    return this
  }

  /** An empty tagged-field section. */
  emptyTaggedFields (): this {
    return this.uint8(0)
  }

  /** Reserves `size` bytes to patch later; returns their position. */
  reserve (size: number): number {
    this.ensure(size)
    const at = this.offset
    this.offset += size
    return at
  }

  /** Overwrites the 4 bytes at `at` (from `reserve`) with a signed 32-bit integer. */
  patchInt32 (at: number, value: number): void {
    this.buffer.writeInt32BE(value, at)
  }

  /** Overwrites the 4 bytes at `at` (from `reserve`) with an unsigned 32-bit integer (a CRC). */
  patchUint32 (at: number, value: number): void {
    this.buffer.writeUInt32BE(value, at)
  }
}

export { EMPTY as EMPTY_BUFFER }

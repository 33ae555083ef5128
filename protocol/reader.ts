/**
 * Reader: decodes Kafka primitives from a Buffer, checking every bound.
 *
 * Every read checks that its bytes are inside [offset, end) first and throws a
 * ProtocolError when they are not, so a truncated or hostile frame can never
 * raise a RangeError, loop without end, or make us allocate what a length claims.
 * Lengths are checked against the bytes actually left before anything is built.
 */
import { ProtocolError } from './errors'
import { readEnd, readUvarint, readVarint, readVarlong } from './varint'

const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

/** Decodes Kafka's primitive types from a buffer, big-endian, checking every bound: a read past `end` throws a ProtocolError. */
export class Reader {
  /** The buffer read from. */
  readonly buffer: Buffer
  /** Where the next read starts, in bytes from the buffer's start; each read moves it. */
  offset: number
  /** Reads stop here: the end of the frame or sub-section being decoded. */
  readonly end: number

  constructor (buffer: Buffer, offset = 0, end = buffer.length) {
    if (offset < 0 || end > buffer.length || offset > end) throw new ProtocolError(`Reader window [${offset}, ${end}) is outside a buffer of ${buffer.length} bytes`)
    this.buffer = buffer
    this.offset = offset
    this.end = end
  }

  /** Bytes left to read before `end`. */
  get remaining (): number {
    return this.end - this.offset
  }

  /** Throws unless `size` more bytes are available. */
  need (size: number, what: string): void {
    if (size > this.end - this.offset) {
      throw new ProtocolError(`Truncated data: reading ${what} needs ${size} bytes at offset ${this.offset}, but only ${this.end - this.offset} remain`)
    }
  }

  /** INT8: a signed byte. */
  int8 (): number {
    this.need(1, 'int8')
    return this.buffer.readInt8(this.offset++)
  }

  /** An unsigned byte. */
  uint8 (): number {
    this.need(1, 'uint8')
    return this.buffer[this.offset++]
  }

  /** INT16: a signed 16-bit integer. */
  int16 (): number {
    this.need(2, 'int16')
    const value = this.buffer.readInt16BE(this.offset)
    this.offset += 2
    return value
  }

  /** UINT16: an unsigned 16-bit integer. */
  uint16 (): number {
    this.need(2, 'uint16')
    const value = this.buffer.readUInt16BE(this.offset)
    this.offset += 2
    return value
  }

  /** INT32: a signed 32-bit integer. */
  int32 (): number {
    this.need(4, 'int32')
    const value = this.buffer.readInt32BE(this.offset)
    this.offset += 4
    return value
  }

  /** UINT32: an unsigned 32-bit integer. */
  uint32 (): number {
    this.need(4, 'uint32')
    const value = this.buffer.readUInt32BE(this.offset)
    this.offset += 4
    return value
  }

  /** INT64: a signed 64-bit integer. */
  int64 (): bigint {
    this.need(8, 'int64')
    const value = this.buffer.readBigInt64BE(this.offset)
    this.offset += 8
    return value
  }

  /** FLOAT64: an IEEE 754 double. */
  float64 (): number {
    this.need(8, 'float64')
    const value = this.buffer.readDoubleBE(this.offset)
    this.offset += 8
    return value
  }

  /** BOOLEAN: one byte, anything but 0 is true. */
  bool (): boolean {
    return this.uint8() !== 0
  }

  /** Unsigned varint of at most 5 bytes (a value below 2^32). */
  uvarint (): number {
    const value = readUvarint(this.buffer, this.offset, this.end, 'unsigned varint')
    this.offset = readEnd()
    return value
  }

  /** Zigzag varint (signed 32-bit). */
  varint (): number {
    const value = readVarint(this.buffer, this.offset, this.end, 'varint')
    this.offset = readEnd()
    return value
  }

  /** Zigzag varlong (signed 64-bit), at most 10 bytes. */
  varlong (): bigint {
    const value = readVarlong(this.buffer, this.offset, this.end, 'varlong')
    this.offset = readEnd()
    return value
  }

  /** `size` raw bytes as a view into the frame (no copy). */
  raw (size: number, what = 'bytes'): Buffer {
    if (size < 0) throw new ProtocolError(`Negative length ${size} for ${what} at offset ${this.offset}`)
    this.need(size, what)
    const view = this.buffer.subarray(this.offset, this.offset + size)
    this.offset += size
    return view
  }

  private utf8 (size: number): string {
    this.need(size, 'string')
    const value = this.buffer.toString('utf8', this.offset, this.offset + size)
    this.offset += size
    return value
  }

  /** STRING: int16 length, UTF-8. */
  string (): string {
    const length = this.int16()
    if (length < 0) throw new ProtocolError(`Null or negative length ${length} for a non-nullable string at offset ${this.offset - 2}`)
    return this.utf8(length)
  }

  /** NULLABLE_STRING: int16 length (-1 = null), UTF-8. */
  nullableString (): string | null {
    const length = this.int16()
    if (length === -1) return null
    if (length < 0) throw new ProtocolError(`Negative length ${length} for a string at offset ${this.offset - 2}`)
    return this.utf8(length)
  }

  /** COMPACT_STRING: uvarint length+1, UTF-8. */
  compactString (): string {
    const lengthPlusOne = this.uvarint()
    if (lengthPlusOne === 0) throw new ProtocolError(`Null for a non-nullable compact string at offset ${this.offset - 1}`)
    return this.utf8(lengthPlusOne - 1)
  }

  /** COMPACT_NULLABLE_STRING: uvarint length+1 (0 = null), UTF-8. */
  compactNullableString (): string | null {
    const lengthPlusOne = this.uvarint()
    if (lengthPlusOne === 0) return null
    return this.utf8(lengthPlusOne - 1)
  }

  /** BYTES: int32 length, bytes (a view). */
  bytes (): Buffer {
    const length = this.int32()
    if (length < 0) throw new ProtocolError(`Null or negative length ${length} for non-nullable bytes at offset ${this.offset - 4}`)
    return this.raw(length)
  }

  /** NULLABLE_BYTES: int32 length (-1 = null), bytes (a view). */
  nullableBytes (): Buffer | null {
    const length = this.int32()
    if (length === -1) return null
    return this.raw(length)
  }

  /** COMPACT_BYTES: uvarint length+1, bytes (a view). */
  compactBytes (): Buffer {
    const lengthPlusOne = this.uvarint()
    if (lengthPlusOne === 0) throw new ProtocolError(`Null for non-nullable compact bytes at offset ${this.offset - 1}`)
    return this.raw(lengthPlusOne - 1)
  }

  /** COMPACT_NULLABLE_BYTES: uvarint length+1 (0 = null), bytes (a view). */
  compactNullableBytes (): Buffer | null {
    const lengthPlusOne = this.uvarint()
    if (lengthPlusOne === 0) return null
    return this.raw(lengthPlusOne - 1)
  }

  /** UUID: 16 bytes, returned as the dashed 36-character form. */
  uuid (): string {
    this.need(16, 'uuid')
    const hex = this.buffer.toString('hex', this.offset, this.offset + 16)
    this.offset += 16
    if (hex === '00000000000000000000000000000000') return ZERO_UUID
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }

  /**
   * An element count for an array: int32 (-1 = null) or, compact, uvarint count+1 (0 = null).
   * Each element takes at least `minElementSize` bytes, so a count larger than what the
   * remaining bytes can hold is refused before any allocation.
   */
  arrayLength (compact: boolean, minElementSize = 1): number {
    const at = this.offset
    let count: number
    if (compact) {
      count = this.uvarint() - 1
    } else {
      count = this.int32()
      if (count < -1) throw new ProtocolError(`Negative array length ${count} at offset ${at}`)
    }
    if (count > 0 && count * Math.max(minElementSize, 1) > this.end - this.offset) {
      throw new ProtocolError(`Array length ${count} at offset ${at} exceeds the ${this.end - this.offset} bytes that remain`)
    }
    return count
  }

  /** Skips a tagged-field section, returning the unknown fields (tag → bytes) if any. */
  taggedFields (): Array<{
    /** The field's tag. */
    tag: number
    /** The field's bytes (a view into the frame). */
    data: Buffer
  }> | undefined {
    const count = this.uvarint()
    if (count === 0) return undefined
    if (count > this.end - this.offset) throw new ProtocolError(`Tagged field count ${count} exceeds the remaining bytes`)
    const fields: Array<{ tag: number, data: Buffer }> = []
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint()
      const size = this.uvarint()
      fields.push({ tag, data: this.raw(size, `tagged field ${tag}`) })
    }
    return fields
  }

  /** A sub-reader over the next `size` bytes, which this reader skips. */
  slice (size: number, what: string): Reader {
    this.need(size, what)
    const sub = new Reader(this.buffer, this.offset, this.offset + size)
    this.offset += size
    return sub
  }
}

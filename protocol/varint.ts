/**
 * Varints, the one implementation: unsigned LEB128 (compact lengths and counts, tags),
 * zigzag varints (signed 32-bit: record lengths, deltas and counts) and zigzag varlongs
 * (signed 64-bit: record timestamp deltas). Writer, Reader and the record-batch codec use
 * these functions; none of them keeps a copy.
 *
 * Writes go at `pos` of a buffer the caller has made room in (5 bytes for a varint, 10
 * for a varlong at most; sizeOf* says how many exactly) and return the position after.
 * Reads take the position and the end they must not read at or past, return the value
 * and leave the position after it for readEnd(), so a read allocates nothing (no pair
 * returned, no closure). Bytes that run past the end, or a varint longer than its type,
 * are a ProtocolError naming `what` was read and where.
 */
import { ProtocolError } from './errors'

/**
 * Varlongs in [SMALL_VARLONG_MIN, SMALL_VARLONG_MAX] are written from a Number as a
 * varint (the same bytes) without bigint arithmetic: the range of a small integer
 * (Smi) on 64-bit V8, so the Number is never a heap number.
 */
export const SMALL_VARLONG_MIN = -0x40000000n
export const SMALL_VARLONG_MAX = 0x3fffffffn

/** What readSmallVarlong returns for a varlong that needs a bigint (read it with readVarlong). */
export const LARGE_VARLONG = 2 ** 31

// ---------------------------------------------------------------------------------------
// Writing and sizes

/** Writes the unsigned varint of a value in [0, 2^32) at `pos`; returns the position after it. */
export function writeUvarint (buf: Buffer, pos: number, value: number): number {
  value >>>= 0
  while (value > 0x7f) {
    buf[pos++] = (value & 0x7f) | 0x80
    value >>>= 7
  }
  buf[pos++] = value
  return pos
}

/** Writes the zigzag varint of a signed 32-bit value at `pos`; returns the position after it. */
export function writeVarint (buf: Buffer, pos: number, value: number): number {
  return writeUvarint(buf, pos, (value << 1) ^ (value >> 31))
}

/** Bytes of the zigzag varint of a signed 32-bit value. */
export function sizeOfVarint (value: number): number {
  const zigzag = ((value << 1) ^ (value >> 31)) >>> 0
  return zigzag < 0x80 ? 1 : zigzag < 0x4000 ? 2 : zigzag < 0x200000 ? 3 : zigzag < 0x10000000 ? 4 : 5
}

function zigzag64 (value: bigint): bigint {
  return BigInt.asUintN(64, (value << 1n) ^ (value >> 63n))
}

/** Writes the zigzag varlong of a signed 64-bit value at `pos` with bigint arithmetic; returns the position after it. */
export function writeVarlong (buf: Buffer, pos: number, value: bigint): number {
  let zigzag = zigzag64(value)
  while (zigzag > 0x7fn) {
    buf[pos++] = Number(zigzag & 0x7fn) | 0x80
    zigzag >>= 7n
  }
  buf[pos++] = Number(zigzag)
  return pos
}

/** Bytes of the zigzag varlong of a signed 64-bit value. */
export function sizeOfVarlong (value: bigint): number {
  let zigzag = zigzag64(value)
  let size = 1
  while (zigzag > 0x7fn) {
    zigzag >>= 7n
    size++
  }
  return size
}

// ---------------------------------------------------------------------------------------
// Reading

/** Where the last read stopped: the position after the value it returned. */
let after = 0

/** The position after the value the last read function returned. */
export function readEnd (): number {
  return after
}

function truncated (what: string, start: number): ProtocolError {
  return new ProtocolError(`Truncated data: ${what} at byte ${start} runs past the end`)
}

/** An unsigned varint of at most 5 bytes (a value below 2^32) at `start`, not reading at or past `limit`. */
export function readUvarint (buf: Buffer, start: number, limit: number, what: string): number {
  let pos = start
  let result = 0
  for (let shift = 0; ; shift += 7) {
    if (pos >= limit) throw truncated(what, start)
    const byte = buf[pos++]
    if (shift === 28) {
      if (byte > 0x0f) throw new ProtocolError(`Malformed ${what} at byte ${start}: a varint of more than 32 bits`)
      result |= byte << 28
      break
    }
    result |= (byte & 0x7f) << shift
    if (byte < 0x80) break
  }
  after = pos
  return result >>> 0
}

/**
 * A zigzag varint (signed 32-bit) at `pos`, not reading at or past `limit`. One and two
 * bytes (values -8192..8191: lengths, deltas and counts of most records) are read
 * without the loop.
 */
export function readVarint (buf: Buffer, pos: number, limit: number, what: string): number {
  if (pos + 1 < limit) {
    const b0 = buf[pos]
    if (b0 < 0x80) {
      after = pos + 1
      return (b0 >>> 1) ^ -(b0 & 1)
    }
    const b1 = buf[pos + 1]
    if (b1 < 0x80) {
      const result = (b0 & 0x7f) | (b1 << 7)
      after = pos + 2
      return (result >>> 1) ^ -(result & 1)
    }
  }
  const zigzag = readUvarint(buf, pos, limit, what)
  return (zigzag >>> 1) ^ -(zigzag & 1)
}

/**
 * A zigzag varlong at `pos` as a number when it takes at most 4 bytes (|value| < 2^27,
 * almost every delta), so no bigint is made for it; otherwise LARGE_VARLONG, having read
 * nothing: read it again with readVarlong.
 */
export function readSmallVarlong (buf: Buffer, pos: number, limit: number, what: string): number {
  if (pos < limit && buf[pos] < 0x80) {
    const b0 = buf[pos]
    after = pos + 1
    return (b0 >>> 1) ^ -(b0 & 1)
  }
  let at = pos
  let small = 0
  for (let shift = 0; shift < 28; shift += 7) {
    if (at >= limit) throw truncated(what, pos)
    const byte = buf[at++]
    small |= (byte & 0x7f) << shift
    if (byte < 0x80) {
      after = at
      return (small >>> 1) ^ -(small & 1)
    }
  }
  return LARGE_VARLONG
}

/** A zigzag varlong (signed 64-bit, at most 10 bytes) at `start`, not reading at or past `limit`. */
export function readVarlong (buf: Buffer, start: number, limit: number, what: string): bigint {
  const small = readSmallVarlong(buf, start, limit, what)
  if (small !== LARGE_VARLONG) return BigInt(small)
  // Five bytes or more (|value| >= 2^27, rare): the first four, which readSmallVarlong
  // found in bounds and continued, hold 28 bits; the rest take bigint arithmetic.
  const low = (buf[start] & 0x7f) | (buf[start + 1] & 0x7f) << 7 | (buf[start + 2] & 0x7f) << 14 | (buf[start + 3] & 0x7f) << 21
  let result = BigInt(low)
  let pos = start + 4
  for (let shift = 28n; ; shift += 7n) {
    if (pos >= limit) throw truncated(what, start)
    if (shift > 63n) throw new ProtocolError(`Malformed ${what} at byte ${start}: a varlong of more than 64 bits`)
    const byte = buf[pos++]
    result |= BigInt(byte & 0x7f) << shift
    if (byte < 0x80) break
  }
  after = pos
  result = BigInt.asUintN(64, result)
  return (result >> 1n) ^ -(result & 1n)
}

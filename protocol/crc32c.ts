/**
 * CRC-32C (Castagnoli), the checksum of record batch v2.
 *
 * The table-driven work is done by the `crc-32` package (slicing by 16); this wrapper
 * takes a byte range so a batch can be checked where it lies in a frame, without a copy
 * (a `subarray` is a view).
 */
import { buf as crc32cSigned } from 'crc-32/crc32c'

/** CRC-32C of `buffer[start, end)`, as an unsigned 32-bit number. */
export function crc32c (buffer: Uint8Array, start = 0, end = buffer.length): number {
  const range = start === 0 && end === buffer.length ? buffer : buffer.subarray(start, end)
  return crc32cSigned(range, 0) >>> 0
}

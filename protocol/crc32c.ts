/**
 * CRC-32C (Castagnoli), the checksum of record batch v2.
 *
 * Small ranges go to the `crc-32` package (table-driven, slicing by 16). Ranges of 1 KiB
 * and more go to `@node-rs/crc32` when it is installed (an optional dependency): it uses
 * the CPU's CRC32C instruction and is about 4x faster there (bench/codec measures it),
 * while the native call's overhead makes it slower on small inputs. Both take a byte
 * range, so a batch is checked where it lies in a frame, without a copy.
 */
import { buf as crc32cSigned } from 'crc-32/crc32c'

type NativeCrc32c = (input: Uint8Array, initial?: number) => number

const NATIVE_THRESHOLD = 1024
let native: NativeCrc32c | null | undefined

function loadNative (): NativeCrc32c | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('@node-rs/crc32') as { crc32c?: NativeCrc32c }
    return typeof mod.crc32c === 'function' ? mod.crc32c : null
  } catch {
    return null
  }
}

/** CRC-32C of `buffer[start, end)`, as an unsigned 32-bit number. */
export function crc32c (buffer: Uint8Array, start = 0, end = buffer.length): number {
  const range = start === 0 && end === buffer.length ? buffer : buffer.subarray(start, end)
  if (range.length >= NATIVE_THRESHOLD) {
    if (native === undefined) native = process.env.KAFKATS_PURE_JS_CRC === '1' ? null : loadNative()
    if (native !== null) return native(range, 0) >>> 0
  }
  return crc32cSigned(range, 0) >>> 0
}

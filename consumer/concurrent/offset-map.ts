/**
 * The offset map: which records at or above a committed offset were already finished, as
 * the OffsetCommit's metadata string, so the partition's next owner (or this member after a
 * restart) skips them instead of processing them again.
 *
 * Format (ASCII, so Kafka's `offset.metadata.max.bytes`, counted in characters, is bytes):
 *
 *   kts1;<base>;<top>;R<payload>   run lengths: base64url of unsigned varints, alternating
 *                                  unfinished, finished, unfinished, … runs from `base`
 *   kts1;<base>;<top>;B<payload>   bitmap: base64url of bits, bit i (LSB first) set when
 *                                  offset base + i is finished
 *
 * Both cover [base, top); the encoder writes whichever is shorter (runs win when finished
 * records come in long stretches, the bitmap when they alternate). What the map says
 * nothing about — offsets at or past `top` — counts as unfinished, so cutting a map short
 * only costs records processed again, never a record skipped: that is the size limit's
 * fallback (`encodeOffsetMap`'s `maxChars`), as Parallel Consumer drops its payload past
 * its limit (we keep the longest prefix that fits instead of nothing). The reader trusts a
 * map only when its `base` is the committed offset it came with: anyone who committed
 * another offset since (an admin reset, a consumer of another library) wrote other
 * metadata, or none.
 */

const PREFIX = 'kts1;'

/** Finished records of one partition at or above a base offset: sorted, disjoint [start, end) ranges. */
export interface FinishedRanges {
  /** The committed offset the map belongs to. */
  readonly base: bigint
  /** The map says nothing at or past this offset. */
  readonly top: bigint
  /** Sorted by start, disjoint, each within [base, top), none empty. */
  readonly ranges: ReadonlyArray<readonly [bigint, bigint]>
}

/** Unsigned varints (LEB128) of run lengths: numbers up to 2^53. */
function writeRuns (runs: number[]): Buffer {
  const bytes: number[] = []
  for (let value of runs) {
    while (value >= 0x80) {
      bytes.push((value % 0x80) | 0x80)
      value = Math.floor(value / 0x80)
    }
    bytes.push(value)
  }
  return Buffer.from(bytes)
}

function readRuns (buf: Buffer): number[] | undefined {
  const runs: number[] = []
  let value = 0
  let scale = 1
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]
    value += (b & 0x7f) * scale
    if ((b & 0x80) === 0) {
      runs.push(value)
      value = 0
      scale = 1
    } else {
      scale *= 0x80
      if (scale > 2 ** 56) return undefined
    }
  }
  return value === 0 && scale === 1 ? runs : undefined
}

/** Alternating run lengths (unfinished first, possibly 0) of `ranges` over [base, top). */
function runsOf (map: FinishedRanges): number[] {
  const runs: number[] = []
  let at = map.base
  for (const [start, end] of map.ranges) {
    runs.push(Number(start - at), Number(end - start))
    at = end
  }
  if (at < map.top) runs.push(Number(map.top - at))
  return runs
}

function bitmapOf (map: FinishedRanges): Buffer {
  const bits = Buffer.alloc(Math.ceil(Number(map.top - map.base) / 8))
  for (const [start, end] of map.ranges) {
    for (let i = Number(start - map.base), n = Number(end - map.base); i < n; i++) bits[i >> 3] |= 1 << (i & 7)
  }
  return bits
}

function render (base: bigint, top: bigint, kind: 'R' | 'B', payload: Buffer): string {
  return `${PREFIX}${base};${top};${kind}${payload.toString('base64url')}`
}

/** The map with everything at or past `top` dropped (unknown, so unfinished). */
function cutAt (map: FinishedRanges, top: bigint): FinishedRanges {
  const ranges: Array<readonly [bigint, bigint]> = []
  for (const [start, end] of map.ranges) {
    if (start >= top) break
    ranges.push([start, end < top ? end : top])
  }
  return { base: map.base, top, ranges }
}

/** The shorter of the two encodings of `map`. */
function encodeWhole (map: FinishedRanges): string {
  const runs = render(map.base, map.top, 'R', writeRuns(runsOf(map)))
  // A bitmap is worth trying only while it could be the shorter one (a byte per 8 offsets).
  if (Number(map.top - map.base) / 8 * 4 / 3 >= runs.length) return runs
  const bitmap = render(map.base, map.top, 'B', bitmapOf(map))
  return bitmap.length < runs.length ? bitmap : runs
}

/**
 * The metadata of a commit at `map.base` recording `map`'s finished records, in at most
 * `maxChars` characters: when the whole map does not fit, the longest prefix of its ranges
 * that does (found by halving), ending where the last kept range ends. Null when nothing
 * finished is recorded (nothing above the base, or not even the first range fits).
 */
export function encodeOffsetMap (map: FinishedRanges, maxChars: number): string | null {
  const ranges = map.ranges
  if (ranges.length === 0) return null
  const whole = encodeWhole(map)
  if (whole.length <= maxChars) return whole
  // Keep ranges[0..n) with top at the end of the last kept one: the longest prefix that fits.
  let fits = 0
  let tooLong = ranges.length
  let best: string | null = null
  while (tooLong - fits > 1) {
    const n = (fits + tooLong) >> 1
    const encoded = encodeWhole(cutAt(map, ranges[n - 1][1]))
    if (encoded.length <= maxChars) {
      fits = n
      best = encoded
    } else {
      tooLong = n
    }
  }
  return best
}

/**
 * The finished records a commit's metadata records, if it is an offset map written at
 * `committedOffset`; undefined for anything else (no map, another base, damaged), which
 * means "nothing above the committed offset is known finished".
 */
export function decodeOffsetMap (metadata: string | null | undefined, committedOffset: bigint): FinishedRanges | undefined {
  if (metadata === null || metadata === undefined || !metadata.startsWith(PREFIX)) return undefined
  const parts = metadata.slice(PREFIX.length).split(';')
  if (parts.length !== 3 || !/^\d+$/.test(parts[0]) || !/^\d+$/.test(parts[1])) return undefined
  const base = BigInt(parts[0])
  const top = BigInt(parts[1])
  const kind = parts[2][0]
  const payload = Buffer.from(parts[2].slice(1), 'base64url')
  if (base !== committedOffset || top <= base || top - base > BigInt(Number.MAX_SAFE_INTEGER)) return undefined
  const span = Number(top - base)
  const ranges: Array<readonly [bigint, bigint]> = []
  if (kind === 'R') {
    const runs = readRuns(payload)
    if (runs === undefined) return undefined
    let at = 0
    for (let i = 0; i < runs.length; i++) {
      const next = at + runs[i]
      if (next > span) return undefined
      if (i % 2 === 1 && runs[i] > 0) ranges.push([base + BigInt(at), base + BigInt(next)])
      at = next
    }
    if (at !== span) return undefined
  } else if (kind === 'B') {
    if (payload.length !== Math.ceil(span / 8)) return undefined
    let start = -1
    for (let i = 0; i <= span; i++) {
      const set = i < span && (payload[i >> 3] & (1 << (i & 7))) !== 0
      if (set && start < 0) start = i
      if (!set && start >= 0) {
        ranges.push([base + BigInt(start), base + BigInt(i)])
        start = -1
      }
    }
  } else {
    return undefined
  }
  return { base, top, ranges }
}

/** Whether `offset` is in one of `map`'s finished ranges (binary search). */
export function isFinished (map: FinishedRanges, offset: bigint): boolean {
  const ranges = map.ranges
  let low = 0
  let high = ranges.length - 1
  while (low <= high) {
    const mid = (low + high) >> 1
    const [start, end] = ranges[mid]
    if (offset < start) high = mid - 1
    else if (offset >= end) low = mid + 1
    else return true
  }
  return false
}

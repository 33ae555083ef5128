/**
 * Fuzzing every response decoder in `allApis`, at every version it speaks (invariant 5:
 * bad bytes never crash or hang the client).
 *
 * Valid responses are generated from each API's schema with random values, encoded, then
 * mutated (bit flips, byte sets, truncation, extension, inserted and deleted bytes, length
 * fields overwritten with huge or negative values); pure random bytes are mixed in. Each
 * frame goes through `api.decodeResponse` (the body alone) or `decodeResponseFrame` (the
 * frame after its size prefix), alternately. A decode must either succeed or throw
 * ProtocolError; it must finish quickly; memory must stay flat; and no decode may ask for
 * an array longer than its input has bytes (a hostile count is refused before allocation).
 *
 * Reproduce a failure with the seed it prints:
 *   KAFKATS_FUZZ_SEED=<seed> KAFKATS_FUZZ_FRAMES=<n> node --test dist/tests/protocol/fuzz.test.js
 */
import * as zlib from 'node:zlib'
import { legacyMessage, legacyWrapper } from '../support/legacy-messages'
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { allApis } from '../../protocol/apis'
import type { AnyApi } from '../../protocol/api'
import { Reader } from '../../protocol/reader'
import * as varint from '../../protocol/varint'
import { Writer } from '../../protocol/writer'
import { ProtocolError } from '../../protocol/errors'
import { decodeResponseFrame, encodeResponseFrame } from '../../protocol/header'
import { inRange, type FieldType, type StructType } from '../../protocol/schema'
import { CompressedBatchError, controlRecordInput, decodeRecordBatches, decodeRecordBatchesSync, encodeRecordBatch, type RecordInput } from '../../protocol/record-batch'
import { CompressionCodecUnavailableError, type CompressionCodec } from '../../protocol/compression'
import { crc32c } from '../../protocol/crc32c'
import { SeededRandom as Random } from '../support/random'

const FRAMES = Number(process.env.KAFKATS_FUZZ_FRAMES ?? 100000)
const SEED = process.env.KAFKATS_FUZZ_SEED !== undefined ? Number(process.env.KAFKATS_FUZZ_SEED) >>> 0 : randomBytes(4).readUInt32BE(0)
/** Valid encodings generated per API and version, the material for mutations. */
const SAMPLES_PER_VERSION = 6
/**
 * Reads a decode may make per byte of its input (plus READS_BASE): each counted read consumes
 * at least one byte, or follows a length that did (an empty compact string: a uvarint and a
 * zero-length read). A decoder that loops without consuming input (a hang, or quadratic work on
 * hostile input) exceeds it, whatever the machine's speed: work is counted, not timed.
 */
const READS_PER_BYTE = 4
const READS_BASE = 64
/** Heap and ArrayBuffer growth allowed across the whole run, after a full GC. */
const MAX_RETAINED_BYTES = 32 * 1024 * 1024
/** Peak heap growth allowed while running (garbage included). */
const MAX_PEAK_BYTES = 256 * 1024 * 1024

// ---------------------------------------------------------------------------------------
// Random valid values from a schema

const STRINGS = ['', 'a', 'topic-0', 'é€🙂', '__consumer_offsets', 'x'.repeat(40)]

function randomValue (type: FieldType, version: number, flexible: boolean, nullable: boolean, rng: Random, depth: number): unknown {
  if (typeof type === 'string') {
    switch (type) {
      case 'int8': return rng.below(256) - 128
      case 'int16': return rng.chance(0.3) ? -1 : rng.below(65536) - 32768
      case 'int32': return rng.chance(0.3) ? rng.below(10) - 1 : rng.u32() | 0
      case 'int64': return rng.chance(0.3) ? BigInt(rng.below(10) - 1) : BigInt.asIntN(64, (BigInt(rng.u32()) << 32n) | BigInt(rng.u32()))
      case 'uint16': return rng.below(65536)
      case 'uint32': return rng.u32()
      case 'float64': return (rng.u32() - 0x80000000) / 7
      case 'bool': return rng.chance(0.5)
      case 'uuid': return rng.bytes(16).toString('hex')
      case 'string':
        if (nullable && rng.chance(0.2)) return null
        return rng.chance(0.7) ? rng.pick(STRINGS) : rng.bytes(rng.below(12)).toString('hex')
      case 'bytes':
      case 'records':
        if (nullable && rng.chance(0.2)) return null
        return rng.bytes(rng.below(24))
    }
  }
  if (type.kind === 'struct') {
    if (nullable && rng.chance(0.2)) return null
    return randomStruct(type, version, flexible, rng, depth + 1)
  }
  if (nullable && rng.chance(0.15)) return null
  const length = depth < 3 ? rng.below(4) : 0
  const items: unknown[] = []
  for (let i = 0; i < length; i++) items.push(randomValue(type.of, version, flexible, false, rng, depth + 1))
  return items
}

function randomStruct (type: StructType, version: number, flexible: boolean, rng: Random, depth = 0): Record<string, unknown> {
  const value: Record<string, unknown> = {}
  for (const spec of type.fields) {
    const isTagged = spec.taggedVersions !== undefined
    const present = isTagged ? flexible && inRange(spec.taggedVersions, version) : inRange(spec.versions, version)
    // Tagged fields stay at their default half the time, so both shapes are covered.
    if (!present || (isTagged && rng.chance(0.5))) continue
    value[spec.name] = randomValue(spec.type, version, flexible, inRange(spec.nullableVersions, version), rng, depth)
  }
  return value
}

// ---------------------------------------------------------------------------------------
// Mutations

const SPECIAL_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff]
const HUGE_INT32 = [0x7fffffff, -1, -2, -0x80000000, 0x10000000, 0x00ffffff]
const HUGE_INT16 = [0x7fff, -1, -2, -0x8000]
const HUGE_UVARINT = [Buffer.from('ffffffff0f', 'hex'), Buffer.from('ffffff7f', 'hex'), Buffer.from('8080808008', 'hex')]

function mutateOnce (input: Buffer, rng: Random): Buffer {
  const length = input.length
  const kind = length === 0 ? 3 : rng.below(9)
  switch (kind) {
    case 0: { // flip bits
      const out = Buffer.from(input)
      for (let n = 1 + rng.below(4); n > 0; n--) out[rng.below(length)] ^= 1 << rng.below(8)
      return out
    }
    case 1: { // set bytes
      const out = Buffer.from(input)
      for (let n = 1 + rng.below(3); n > 0; n--) out[rng.below(length)] = rng.chance(0.7) ? rng.pick(SPECIAL_BYTES) : rng.below(256)
      return out
    }
    case 2: // truncate
      return Buffer.from(input.subarray(0, rng.below(length)))
    case 3: // extend
      return Buffer.concat([input, rng.bytes(1 + rng.below(16))])
    case 4: { // an int32 length or count made huge or negative
      if (length < 4) return mutateOnce(input, rng)
      const out = Buffer.from(input)
      out.writeInt32BE(rng.pick(HUGE_INT32), rng.below(length - 3))
      return out
    }
    case 5: { // an int16 length made huge or negative
      if (length < 2) return mutateOnce(input, rng)
      const out = Buffer.from(input)
      out.writeInt16BE(rng.pick(HUGE_INT16), rng.below(length - 1))
      return out
    }
    case 6: { // a compact length made huge
      const out = Buffer.from(input)
      const varint = rng.pick(HUGE_UVARINT)
      varint.copy(out, rng.below(length), 0, varint.length)
      return out
    }
    case 7: { // insert bytes
      const at = rng.below(length + 1)
      return Buffer.concat([input.subarray(0, at), rng.bytes(1 + rng.below(8)), input.subarray(at)])
    }
    default: { // delete bytes
      const at = rng.below(length)
      return Buffer.concat([input.subarray(0, at), input.subarray(at + 1 + rng.below(8))])
    }
  }
}

function mutate (input: Buffer, rng: Random): Buffer {
  let out = mutateOnce(input, rng)
  for (let n = rng.below(3); n > 0; n--) out = mutateOnce(out, rng)
  return out
}

// ---------------------------------------------------------------------------------------
// Guards: allocation size, memory, time

/**
 * While armed, `new Array(n)` and Buffer allocations are checked against the size of the
 * input being decoded: an array can never need more elements than its input has bytes.
 */
class AllocationGuard {
  inputLength = 0
  /** Buffer allocations above this are flagged (by default a bound derived from inputLength). */
  bufferLimit: number | undefined
  largestArray = 0
  violations: string[] = []
  private readonly originalArray = globalThis.Array
  private readonly originalAlloc = { alloc: Buffer.alloc, allocUnsafe: Buffer.allocUnsafe, allocUnsafeSlow: Buffer.allocUnsafeSlow }

  arm (): void {
    globalThis.Array = new Proxy(this.originalArray, {
      construct: (target, args, newTarget) => {
        this.check(args)
        return Reflect.construct(target, args, newTarget)
      },
      apply: (target, self, args) => {
        this.check(args)
        return Reflect.apply(target, self, args)
      }
    })
    for (const name of ['alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const) {
      const original = this.originalAlloc[name] as (size: number, ...rest: unknown[]) => Buffer
      ;(Buffer as unknown as Record<string, unknown>)[name] = (size: number, ...rest: unknown[]): Buffer => {
        // Buffers may legitimately exceed the input (a Writer starts at 1 KiB), so only
        // sizes far beyond anything a response of this size could need are flagged.
        if (size > (this.bufferLimit ?? Math.max(1 << 20, this.inputLength * 64))) this.violations.push(`Buffer.${name}(${size}) for a ${this.inputLength}-byte input`)
        return original.call(Buffer, size, ...rest)
      }
    }
  }

  disarm (): void {
    globalThis.Array = this.originalArray
    Object.assign(Buffer, this.originalAlloc)
  }

  private check (args: unknown[]): void {
    if (args.length !== 1 || typeof args[0] !== 'number') return
    const length = args[0]
    if (length > this.largestArray) this.largestArray = length
    if (length > this.inputLength) this.violations.push(`new Array(${length}) for a ${this.inputLength}-byte input`)
  }
}

/**
 * Counts the decoders' reads: Reader's bounds check (every fixed-size and length-prefixed read
 * makes one) and the varint readers (Reader's and the record decoder's). The work a decode
 * did, independent of the machine's speed.
 */
class ReadCounter {
  reads = 0
  private readonly originalNeed = Reader.prototype.need
  private readonly originalVarint = { readUvarint: varint.readUvarint, readVarint: varint.readVarint, readVarlong: varint.readVarlong, readSmallVarlong: varint.readSmallVarlong }

  arm (): void {
    const need = this.originalNeed
    const count = (): void => { this.reads++ }
    Reader.prototype.need = function (this: Reader, size: number, what: string): void {
      count()
      need.call(this, size, what)
    }
    const module = varint as unknown as Record<string, (...args: unknown[]) => unknown>
    for (const [name, original] of Object.entries(this.originalVarint) as Array<[string, (...args: unknown[]) => unknown]>) {
      module[name] = (...args: unknown[]): unknown => {
        count()
        return original(...args)
      }
    }
  }

  disarm (): void {
    Reader.prototype.need = this.originalNeed
    Object.assign(varint, this.originalVarint)
  }
}

function fullGc (): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc')
    return runInNewContext('gc') as () => void
  } catch {
    return undefined
  }
}

function memory (gc: (() => void) | undefined): { heapUsed: number, arrayBuffers: number } {
  gc?.()
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return { heapUsed, arrayBuffers }
}

function mb (bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

// ---------------------------------------------------------------------------------------

type Side = 'response' | 'request'

interface Target {
  api: AnyApi
  version: number
  side: Side
  /** Encoded bodies, and (responses only) the same bodies as frames after their size prefix. */
  bodies: Buffer[]
  frames: Buffer[]
}

type Path = 'body' | 'frame'

function decodeOnce (target: Target, path: Path, input: Buffer): void {
  if (target.side === 'request') target.api.decodeRequest(new Reader(input), target.version)
  else if (path === 'body') target.api.decodeResponse(new Reader(input), target.version)
  else decodeResponseFrame(target.api, target.version, input)
}

function buildTargets (rng: Random, side: Side): Target[] {
  const targets: Target[] = []
  for (const api of allApis) {
    for (let version = api.minVersion; version <= api.maxVersion; version++) {
      const target: Target = { api, version, side, bodies: [], frames: [] }
      for (let i = 0; i < SAMPLES_PER_VERSION; i++) {
        const body = randomStruct(side === 'response' ? api.response : api.request, version, api.isFlexible(version), rng)
        const w = new Writer(64)
        if (side === 'request') {
          api.encodeRequest(w, version, body)
          target.bodies.push(Buffer.from(w.finish()))
          continue
        }
        api.encodeResponse(w, version, body)
        target.bodies.push(Buffer.from(w.finish()))
        const frame = encodeResponseFrame(api, version, rng.u32() | 0, body)
        target.frames.push(Buffer.from(frame.subarray(4)))
      }
      targets.push(target)
    }
  }
  return targets
}

/**
 * What both fuzz loops record of each decode: decoded, refused (the error the decoder is
 * meant to raise) or a failure (anything else thrown, an allocation past the input, or more
 * reads than the input allows), and the most reads per byte seen.
 */
class DecodeOutcomes {
  decoded = 0
  refused = 0
  readonly failures: string[] = []
  mostReads = { perByte: 0, where: '' }

  /** One decode: what it threw (undefined: nothing), whether that was expected, the guard's new violations, the reads it made for `inputLength` bytes. */
  note (where: string, error: unknown, expected: boolean, violations: string[], reads: number, inputLength: number): void {
    if (error === undefined) this.decoded++
    else if (expected) this.refused++
    else if (this.failures.length < 10) this.failures.push(`${where}\n  threw ${String((error as Error)?.stack ?? error)}`)
    if (violations.length > 0 && this.failures.length < 10) this.failures.push(`${where}\n  allocated: ${violations.join('; ')}`)
    const perByte = reads / Math.max(1, inputLength)
    if (perByte > this.mostReads.perByte) this.mostReads = { perByte, where }
    const allowed = READS_PER_BYTE * inputLength + READS_BASE
    if (reads > allowed && this.failures.length < 10) this.failures.push(`${where}\n  made ${reads} reads for ${inputLength} bytes (allowed: ${allowed}): work that grows faster than the input`)
  }
}

function fuzz (t: TestContext, side: Side, frames: number, seed: number): void {
  const rng = new Random(seed)
  const targets = buildTargets(rng, side)
  const describeTarget = (target: Target): string => `${target.api.name} v${target.version}`

  // Every unmutated encoding must decode: the fuzzing starts from valid frames.
  for (const target of targets) {
    for (let i = 0; i < target.bodies.length; i++) {
      assert.doesNotThrow(() => decodeOnce(target, 'body', target.bodies[i]), `${describeTarget(target)} decodes its own encoding`)
      if (side === 'response') assert.doesNotThrow(() => decodeOnce(target, 'frame', target.frames[i]), `${describeTarget(target)} decodes its own frame`)
    }
  }

  const gc = fullGc()
  const before = memory(gc)
  let peakHeap = before.heapUsed
  const guard = new AllocationGuard()
  const counter = new ReadCounter()
  const outcomes = new DecodeOutcomes()
  const counts = { pristine: 0, random: 0, mutated: 0 }
  const started = performance.now()

  guard.arm()
  counter.arm()
  try {
    for (let n = 0; n < frames; n++) {
      const target = targets[n % targets.length]
      const path: Path = side === 'request' || (n >> 1) % 2 === 0 ? 'body' : 'frame'
      const pool = path === 'body' ? target.bodies : target.frames
      const roll = rng.below(100)
      let input: Buffer
      if (roll < 5) {
        input = pool[rng.below(pool.length)]
        counts.pristine++
      } else if (roll < 20) {
        input = rng.bytes(rng.below(rng.chance(0.5) ? 16 : 256))
        counts.random++
      } else {
        input = mutate(pool[rng.below(pool.length)], rng)
        counts.mutated++
      }

      guard.inputLength = input.length
      const violationsBefore = guard.violations.length
      const readsBefore = counter.reads
      let error: unknown
      try {
        decodeOnce(target, path, input)
      } catch (err) {
        error = err
      }
      const where = `frame ${n}: ${describeTarget(target)} (${path}) input ${input.subarray(0, 256).toString('hex')}${input.length > 256 ? '…' : ''}`
      outcomes.note(where, error, error instanceof ProtocolError, guard.violations.slice(violationsBefore), counter.reads - readsBefore, input.length)
      if (n % 4096 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
    }
  } finally {
    counter.disarm()
    guard.disarm()
  }

  const seconds = (performance.now() - started) / 1000
  const after = memory(gc)
  const summary = [
    `${side}s: seed=${seed} frames=${frames} (api versions: ${targets.length}, APIs: ${allApis.length}) in ${seconds.toFixed(2)} s`,
    `pristine=${counts.pristine} random=${counts.random} mutated=${counts.mutated}; decoded=${outcomes.decoded} refused with ProtocolError=${outcomes.refused}`,
    `most reads per input byte ${outcomes.mostReads.perByte.toFixed(2)} (allowed ${READS_PER_BYTE}, plus ${READS_BASE}; ${outcomes.mostReads.where.slice(0, 80)}…)`,
    `largest array asked for: ${guard.largestArray}`,
    `heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} (peak ${mb(peakHeap)}), arrayBuffers ${mb(before.arrayBuffers)} → ${mb(after.arrayBuffers)}${gc === undefined ? ' (no gc available)' : ''}`
  ]
  for (const line of summary) {
    t.diagnostic(line)
    console.log(`fuzz: ${line}`)
  }

  assert.deepEqual(outcomes.failures, [], `seed ${seed}: decoders raised something other than ProtocolError, allocated beyond their input or read more than it allows`)
  assert.ok(outcomes.decoded > 0 && outcomes.refused > 0, 'the fuzzer produced both decodable and refused frames')
  assert.ok(after.heapUsed - before.heapUsed < MAX_RETAINED_BYTES, `heap grew by ${mb(after.heapUsed - before.heapUsed)}`)
  assert.ok(after.arrayBuffers - before.arrayBuffers < MAX_RETAINED_BYTES, `arrayBuffers grew by ${mb(after.arrayBuffers - before.arrayBuffers)}`)
  assert.ok(peakHeap - before.heapUsed < MAX_PEAK_BYTES, `heap peaked ${mb(peakHeap - before.heapUsed)} above the start`)
}

test(`response decoders survive ${FRAMES} random and mutated frames`, { timeout: 600_000 }, t => {
  fuzz(t, 'response', FRAMES, SEED)
})

// The fake broker decodes requests: a fifth as many frames through every request decoder.
test(`request decoders survive ${Math.ceil(FRAMES / 5)} random and mutated bodies`, { timeout: 600_000 }, t => {
  fuzz(t, 'request', Math.ceil(FRAMES / 5), (SEED + 1) >>> 0)
})

test('the allocation guard notices an array longer than its input', () => {
  const guard = new AllocationGuard()
  guard.arm()
  try {
    guard.inputLength = 8
    // Built the way a careless decoder would: a count straight off the wire.
    const count = new Reader(Buffer.from('7fffffff', 'hex')).int32()
    const items = new Array(count)
    assert.equal(items.length, count)
    assert.ok(Array.isArray(items) && items instanceof Array)
  } finally {
    guard.disarm()
  }
  assert.equal(guard.violations.length, 1)
  assert.equal(globalThis.Array, Array)
})

test('a hostile length at every offset of every valid response is refused before allocation', t => {
  const rng = new Random(SEED ^ 0x5eed)
  const targets = buildTargets(rng, 'response')
  const patterns = [
    (b: Buffer, at: number) => { if (at + 4 <= b.length) b.writeInt32BE(0x7fffffff, at) },
    (b: Buffer, at: number) => { if (at + 4 <= b.length) b.writeInt32BE(-2, at) },
    (b: Buffer, at: number) => { if (at + 2 <= b.length) b.writeInt16BE(0x7fff, at) },
    (b: Buffer, at: number) => { if (at + 2 <= b.length) b.writeInt16BE(-2, at) },
    (b: Buffer, at: number) => { HUGE_UVARINT[0].copy(b, at) }
  ]
  const guard = new AllocationGuard()
  const failures: string[] = []
  let decodes = 0
  guard.arm()
  try {
    for (const target of targets) {
      for (const path of ['body', 'frame'] as const) {
        const input = (path === 'body' ? target.bodies : target.frames)[0]
        for (let at = 0; at < input.length; at++) {
          for (const pattern of patterns) {
            const hostile = Buffer.from(input)
            pattern(hostile, at)
            guard.inputLength = hostile.length
            const violationsBefore = guard.violations.length
            decodes++
            try {
              decodeOnce(target, path, hostile)
            } catch (err) {
              if (!(err instanceof ProtocolError) && failures.length < 10) failures.push(`${target.api.name} v${target.version} ${path} @${at}: ${String(err)}`)
            }
            if (guard.violations.length > violationsBefore && failures.length < 10) {
              failures.push(`${target.api.name} v${target.version} ${path} @${at}: ${guard.violations[violationsBefore]}`)
            }
          }
        }
      }
    }
  } finally {
    guard.disarm()
  }
  t.diagnostic(`${decodes} decodes with a hostile length, largest array asked for: ${guard.largestArray}`)
  assert.deepEqual(failures, [])
})

// ---------------------------------------------------------------------------------------
// Record batches (protocol/record-batch.ts)

const BATCH_FRAMES = Math.ceil(FRAMES / 5)
/** Compressed batches may not decompress past this while fuzzing. */
const MAX_DECOMPRESSED = 1 << 20
// Batch header offsets (see record-batch.ts).
const OFFSET_LENGTH = 8
const OFFSET_CRC = 17
const OFFSET_ATTRIBUTES = 21
const OFFSET_LAST_OFFSET_DELTA = 23
const OFFSET_RECORD_COUNT = 57
const BATCH_HEADER = 61

function randomRecords (rng: Random): RecordInput[] {
  const records: RecordInput[] = []
  const base = 1_700_000_000_000n + BigInt(rng.below(1000))
  for (let n = rng.below(6); n > 0; n--) {
    records.push({
      key: rng.chance(0.3) ? null : rng.bytes(rng.below(12)),
      value: rng.chance(0.1) ? null : rng.bytes(rng.below(64)),
      headers: rng.chance(0.5) ? [] : [{ key: rng.pick(STRINGS), value: rng.chance(0.2) ? null : rng.bytes(rng.below(8)) }],
      timestamp: base + BigInt(rng.below(100_000))
    })
  }
  return records
}

/** Rewrites the CRC of every batch whose length fits, so mutations get past the CRC check. */
function fixCrcs (buf: Buffer): void {
  let pos = 0
  while (buf.length - pos >= 17) {
    const length = buf.readInt32BE(pos + OFFSET_LENGTH)
    const end = pos + 12 + length
    if (buf[pos + 16] < 2) {
      // A legacy message: CRC-32 (IEEE) of everything after it, at byte 12.
      if (length < 5 || end > buf.length) return
      buf.writeUInt32BE(zlib.crc32(buf.subarray(pos + 16, end)), pos + 12)
      pos = end
      continue
    }
    if (buf.length - pos < BATCH_HEADER || length < BATCH_HEADER - 12 || end > buf.length) return
    buf.writeUInt32BE(crc32c(buf, pos + OFFSET_ATTRIBUTES, end), pos + OFFSET_CRC)
    pos = end
  }
}

/** Mutations aimed at the batch header: lengths, counts and attributes. */
function mutateBatchHeader (input: Buffer, rng: Random): Buffer {
  const out = Buffer.from(input)
  if (out.length < BATCH_HEADER) return out
  switch (rng.below(4)) {
    case 0: out.writeInt32BE(rng.pick(HUGE_INT32), OFFSET_RECORD_COUNT); break
    case 1: out.writeInt32BE(rng.pick([...HUGE_INT32, 0, 1, 48, 49, out.length - 12, out.length - 11]), OFFSET_LENGTH); break
    case 2: out.writeInt16BE(rng.below(0x40), OFFSET_ATTRIBUTES); break // any codec id 0-7, control and transactional bits
    default: out.writeInt32BE(rng.pick(HUGE_INT32), OFFSET_LAST_OFFSET_DELTA)
  }
  return out
}

test(`record batch decoder survives ${BATCH_FRAMES} mutated batches`, { timeout: 600_000 }, async t => {
  const rng = new Random((SEED ^ 0xba7c4) >>> 0)
  const samples: Buffer[] = []
  const unavailable: string[] = []
  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as CompressionCodec[]) {
    try {
      for (let i = 0; i < 4; i++) {
        const batch = await encodeRecordBatch({
          records: randomRecords(rng),
          compression: codec,
          baseOffset: BigInt(rng.below(1_000_000)),
          producerId: rng.chance(0.5) ? -1n : BigInt(rng.below(1000)),
          producerEpoch: rng.below(5),
          baseSequence: rng.below(1000),
          transactional: rng.chance(0.3),
          timestampType: rng.chance(0.2) ? 'log-append' : 'create'
        })
        samples.push(Buffer.from(batch))
      }
    } catch (err) {
      if (!(err instanceof CompressionCodecUnavailableError)) throw err
      unavailable.push(codec)
    }
  }
  samples.push(Buffer.from(await encodeRecordBatch({ records: [controlRecordInput('commit', 3, 1n)], control: true, transactional: true, producerId: 7n })))
  // Legacy message sets (magic 0 and 1), plain and in compressed wrappers.
  const legacyInputs = (): Array<{ key: Buffer | null, value: Buffer | null, timestamp: bigint }> => [...randomRecords(rng), { value: Buffer.from('x') }].map((r, i) => ({ key: r.key ?? null, value: r.value, timestamp: BigInt(i) }))
  for (const magic of [0, 1] as const) {
    samples.push(Buffer.concat(legacyInputs().map((r, i) => legacyMessage(magic, { ...r, offset: BigInt(i) }))))
    for (const codec of ['gzip', 'snappy', 'lz4'] as const) {
      if (unavailable.includes(codec) || (codec === 'lz4' && magic === 0)) continue
      const inner = legacyInputs()
      samples.push(await legacyWrapper(magic, codec, BigInt(inner.length + rng.below(1000)), inner, { timestamp: 5n, flags: rng.chance(0.3) ? 0x08 : 0 }))
    }
  }
  // Several batches back to back, as in a Fetch response, some ending in a partial batch
  // (made only from single batches: a partial batch in the middle would be corrupt data).
  const singles = samples.slice()
  for (let i = 0; i < 8; i++) {
    const parts = [rng.pick(singles), rng.pick(singles), rng.pick(singles)]
    if (rng.chance(0.5)) parts.push(rng.pick(singles).subarray(0, rng.below(80)))
    samples.push(Buffer.concat(parts))
  }
  for (const [i, sample] of samples.entries()) {
    const batches = await decodeRecordBatches(sample).catch((err: unknown) => assert.fail(`unmutated sample ${i} (${sample.toString('hex')}) does not decode: ${String(err)}`))
    assert.ok(batches.length >= 1, `unmutated sample ${i} decodes to at least one batch`)
  }

  const context = { topic: 'fuzz', partition: 0, maxDecompressedBytes: MAX_DECOMPRESSED }
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', onUnhandled)
  const gc = fullGc()
  const before = memory(gc)
  const guard = new AllocationGuard()
  guard.bufferLimit = 4 * MAX_DECOMPRESSED
  const counter = new ReadCounter()
  const outcomes = new DecodeOutcomes()
  const counts = { crcFixed: 0 }
  const started = performance.now()

  guard.arm()
  counter.arm()
  try {
    for (let n = 0; n < BATCH_FRAMES; n++) {
      const sample = rng.pick(samples)
      let input = rng.chance(0.1) ? rng.bytes(rng.below(200)) : rng.chance(0.3) ? mutateBatchHeader(sample, rng) : mutate(sample, rng)
      if (rng.chance(0.2)) input = mutate(input, rng)
      if (rng.chance(0.7)) {
        fixCrcs(input)
        counts.crcFixed++
      }
      const sync = n % 4 === 3
      // Records may come out of decompression: allow arrays as long as its limit.
      guard.inputLength = sync ? input.length : input.length + MAX_DECOMPRESSED
      const violationsBefore = guard.violations.length
      const readsBefore = counter.reads
      let error: unknown
      try {
        if (sync) decodeRecordBatchesSync(input, context)
        else await decodeRecordBatches(input, context)
      } catch (err) {
        error = err
      }
      const where = `batch frame ${n} (${sync ? 'sync' : 'async'}) input ${input.subarray(0, 256).toString('hex')}${input.length > 256 ? '…' : ''}`
      const expected = error instanceof ProtocolError || error instanceof CompressedBatchError || error instanceof CompressionCodecUnavailableError
      // The reads of decompressed records count against what decompression may produce (guard.inputLength).
      outcomes.note(where, error, expected, guard.violations.slice(violationsBefore), counter.reads - readsBefore, guard.inputLength)
    }
  } finally {
    counter.disarm()
    guard.disarm()
  }
  // Rejections nobody awaited surface once their decompression (zlib's thread pool, no event
  // to wait on) failed. Kept as a pause: a slow machine can only hide such a rejection, never fail the test for it.
  await new Promise(resolve => setTimeout(resolve, 50))
  process.off('unhandledRejection', onUnhandled)

  const seconds = (performance.now() - started) / 1000
  const after = memory(gc)
  const summary = [
    `record batches: seed=${SEED} frames=${BATCH_FRAMES} from ${samples.length} valid samples in ${seconds.toFixed(2)} s${unavailable.length > 0 ? ` (codecs unavailable: ${unavailable.join(', ')})` : ''}`,
    `decoded=${outcomes.decoded} refused=${outcomes.refused} crc re-computed on ${counts.crcFixed}; unhandled rejections=${unhandled.length}`,
    `most reads per input byte ${outcomes.mostReads.perByte.toFixed(2)}, largest array asked for: ${guard.largestArray}`,
    `heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)}, arrayBuffers ${mb(before.arrayBuffers)} → ${mb(after.arrayBuffers)}`
  ]
  for (const line of summary) {
    t.diagnostic(line)
    console.log(`fuzz: ${line}`)
  }
  assert.deepEqual(outcomes.failures, [], `seed ${SEED}: the record batch decoder raised something other than ProtocolError or allocated too much`)
  assert.deepEqual(unhandled.map(String).slice(0, 5), [], `seed ${SEED}: a decode left a rejected promise nobody awaited`)
  assert.ok(outcomes.decoded > 0 && outcomes.refused > 0, 'the fuzzer produced both decodable and refused batches')
  assert.ok(after.heapUsed - before.heapUsed < MAX_RETAINED_BYTES, `heap grew by ${mb(after.heapUsed - before.heapUsed)}`)
  assert.ok(after.arrayBuffers - before.arrayBuffers < MAX_RETAINED_BYTES, `arrayBuffers grew by ${mb(after.arrayBuffers - before.arrayBuffers)}`)
})

// Found by the fuzzer above: decompression of an earlier batch had started when a later
// batch turned out corrupt, and the decoder threw without waiting for it. When that
// decompression failed too, its rejection had no handler: an unhandledRejection, which
// ends a Node process by default.
test('a corrupt compressed batch followed by a corrupt batch leaves no unhandled rejection', async () => {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', onUnhandled)
  try {
    const gzip = Buffer.from(await encodeRecordBatch({ records: [{ value: Buffer.from('hello') }], compression: 'gzip' }))
    gzip[BATCH_HEADER] ^= 0xff // no longer gzip magic
    fixCrcs(gzip)
    const plain = Buffer.from(await encodeRecordBatch({ records: [{ value: Buffer.from('x') }] }))
    plain[OFFSET_CRC] ^= 1
    await assert.rejects(decodeRecordBatches(Buffer.concat([gzip, plain])), (err: unknown) => err instanceof ProtocolError)
    // The orphaned decompression fails on zlib's thread pool, with no event to wait for: kept as a
    // pause (a slow machine can only hide the rejection, never fail the test for it).
    await new Promise(resolve => setTimeout(resolve, 50))
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
  assert.deepEqual(unhandled.map(String), [])
})

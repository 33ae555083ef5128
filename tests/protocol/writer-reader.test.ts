/**
 * The primitives of protocol/writer.ts and protocol/reader.ts: golden bytes worked out by
 * hand from the Kafka protocol guide, round trips over random values, and malformed input
 * (truncated, overlong, negative or oversized lengths), which must raise ProtocolError and
 * nothing else.
 */
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Writer } from '../../protocol/writer'
import { Reader } from '../../protocol/reader'
import { ProtocolError } from '../../protocol/errors'

/** Bytes from a hex string with optional spaces: hex('00 ff') → <00 ff>. */
function hex (text: string): Buffer {
  return Buffer.from(text.replace(/\s+/g, ''), 'hex')
}

function written (write: (w: Writer) => void): string {
  // Start tiny so every golden case also exercises the buffer growing.
  const w = new Writer(1)
  write(w)
  return w.finish().toString('hex')
}

function readerOf (text: string): Reader {
  return new Reader(hex(text))
}

/** Runs `fn` and checks it threw a ProtocolError (not a RangeError, TypeError or nothing). */
function throwsProtocolError (fn: () => unknown, context = ''): void {
  let thrown: unknown
  try {
    fn()
  } catch (err) {
    thrown = err
  }
  assert.ok(thrown !== undefined, `expected a ProtocolError ${context}, but nothing was thrown`)
  assert.ok(thrown instanceof ProtocolError, `expected a ProtocolError ${context}, got ${String(thrown)}`)
}

/** One golden case: a value, its bytes, how to write it and how to read it back. */
interface Golden<T> {
  value: T
  bytes: string
}

function checkGolden<T> (cases: Array<Golden<T>>, write: (w: Writer, v: T) => void, read: (r: Reader) => T): void {
  for (const { value, bytes } of cases) {
    const expected = bytes.replace(/\s+/g, '')
    assert.equal(written(w => write(w, value)), expected, `writing ${String(value)}`)
    const r = readerOf(bytes)
    assert.deepEqual(read(r), value, `reading ${bytes}`)
    assert.equal(r.remaining, 0, `reading ${bytes} consumes every byte`)
    // Every proper prefix is a truncation and must be refused.
    const full = hex(bytes)
    for (let cut = 0; cut < full.length; cut++) {
      throwsProtocolError(() => read(new Reader(full.subarray(0, cut))), `for ${bytes} cut to ${cut} bytes`)
    }
  }
}

describe('golden bytes', () => {
  test('int8', () => {
    checkGolden([
      { value: 0, bytes: '00' },
      { value: 1, bytes: '01' },
      { value: -1, bytes: 'ff' },
      { value: 127, bytes: '7f' },
      { value: -128, bytes: '80' }
    ], (w, v) => w.int8(v), r => r.int8())
  })

  test('int16 (big-endian)', () => {
    checkGolden([
      { value: 0, bytes: '0000' },
      { value: 0x1234, bytes: '1234' },
      { value: -2, bytes: 'fffe' },
      { value: 32767, bytes: '7fff' },
      { value: -32768, bytes: '8000' }
    ], (w, v) => w.int16(v), r => r.int16())
  })

  test('uint16', () => {
    checkGolden([
      { value: 0, bytes: '0000' },
      { value: 0xffff, bytes: 'ffff' },
      { value: 0x8001, bytes: '8001' }
    ], (w, v) => w.uint16(v), r => r.uint16())
  })

  test('int32 (big-endian)', () => {
    checkGolden([
      { value: 0, bytes: '00000000' },
      { value: 1, bytes: '00000001' },
      { value: -1, bytes: 'ffffffff' },
      { value: 0x12345678, bytes: '12345678' },
      { value: 2 ** 31 - 1, bytes: '7fffffff' },
      { value: -(2 ** 31), bytes: '80000000' }
    ], (w, v) => w.int32(v), r => r.int32())
  })

  test('uint32', () => {
    checkGolden([
      { value: 0, bytes: '00000000' },
      { value: 2 ** 31, bytes: '80000000' },
      { value: 2 ** 32 - 1, bytes: 'ffffffff' },
      { value: 0xdeadbeef, bytes: 'deadbeef' }
    ], (w, v) => w.uint32(v), r => r.uint32())
  })

  test('int64 (big-endian)', () => {
    checkGolden([
      { value: 0n, bytes: '0000000000000000' },
      { value: 1n, bytes: '0000000000000001' },
      { value: -1n, bytes: 'ffffffffffffffff' },
      { value: 0x0102030405060708n, bytes: '0102030405060708' },
      { value: 2n ** 63n - 1n, bytes: '7fffffffffffffff' },
      { value: -(2n ** 63n), bytes: '8000000000000000' }
    ], (w, v) => w.int64(v), r => r.int64())
  })

  test('float64 (IEEE 754, big-endian)', () => {
    checkGolden([
      { value: 0, bytes: '0000000000000000' },
      { value: 1.5, bytes: '3ff8000000000000' },
      { value: -2, bytes: 'c000000000000000' }
    ], (w, v) => w.float64(v), r => r.float64())
  })

  test('bool (any non-zero byte reads as true)', () => {
    checkGolden([
      { value: false, bytes: '00' },
      { value: true, bytes: '01' }
    ], (w, v) => w.bool(v), r => r.bool())
    assert.equal(readerOf('02').bool(), true)
  })

  test('uvarint (unsigned LEB128)', () => {
    checkGolden([
      { value: 0, bytes: '00' },
      { value: 1, bytes: '01' },
      { value: 127, bytes: '7f' },
      { value: 128, bytes: '80 01' },
      { value: 300, bytes: 'ac 02' },
      { value: 16383, bytes: 'ff 7f' },
      { value: 16384, bytes: '80 80 01' },
      { value: 2 ** 31, bytes: '80 80 80 80 08' },
      { value: 2 ** 32 - 1, bytes: 'ff ff ff ff 0f' }
    ], (w, v) => w.uvarint(v), r => r.uvarint())
  })

  // Zigzag maps 0, -1, 1, -2, 2 … to 0, 1, 2, 3, 4 …, then LEB128.
  const zigzag32: Array<Golden<number>> = [
    { value: 0, bytes: '00' },
    { value: -1, bytes: '01' },
    { value: 1, bytes: '02' },
    { value: 63, bytes: '7e' },
    { value: -64, bytes: '7f' },
    { value: 64, bytes: '80 01' },
    { value: -65, bytes: '81 01' },
    { value: 2 ** 31 - 1, bytes: 'fe ff ff ff 0f' },
    { value: -(2 ** 31), bytes: 'ff ff ff ff 0f' }
  ]

  test('varint (zigzag, 32-bit)', () => {
    checkGolden(zigzag32, (w, v) => w.varint(v), r => r.varint())
  })

  test('varlong (zigzag, 64-bit)', () => {
    checkGolden([
      ...zigzag32.map(({ value, bytes }) => ({ value: BigInt(value), bytes })),
      // 2^30 is where the writer leaves its 32-bit fast path.
      { value: 2n ** 30n, bytes: '80 80 80 80 08' },
      { value: -(2n ** 30n) - 1n, bytes: '81 80 80 80 08' },
      { value: 2n ** 32n, bytes: '80 80 80 80 20' },
      { value: 2n ** 63n - 1n, bytes: 'fe ff ff ff ff ff ff ff ff 01' },
      { value: -(2n ** 63n), bytes: 'ff ff ff ff ff ff ff ff ff 01' }
    ], (w, v) => w.varlong(v), r => r.varlong())
  })

  test('STRING and NULLABLE_STRING: int16 length, UTF-8', () => {
    checkGolden([
      { value: '', bytes: '0000' },
      { value: 'kafka', bytes: '0005 6b61666b61' },
      // é is 2 UTF-8 bytes and € is 3: the length counts bytes, not characters.
      { value: 'é€', bytes: '0005 c3a9 e282ac' }
    ], (w, v) => w.string(v), r => r.string())
    checkGolden<string | null>([
      { value: null, bytes: 'ffff' },
      { value: '', bytes: '0000' },
      { value: 'é€', bytes: '0005 c3a9 e282ac' }
    ], (w, v) => w.string(v), r => r.nullableString())
  })

  test('COMPACT_STRING and COMPACT_NULLABLE_STRING: uvarint length+1', () => {
    checkGolden([
      { value: '', bytes: '01' },
      { value: 'kafka', bytes: '06 6b61666b61' },
      { value: 'é€', bytes: '06 c3a9 e282ac' },
      { value: 'x'.repeat(127), bytes: '80 01' + '78'.repeat(127) }
    ], (w, v) => w.compactString(v), r => r.compactString())
    checkGolden<string | null>([
      { value: null, bytes: '00' },
      { value: '', bytes: '01' },
      { value: '🙂', bytes: '05 f09f9982' }
    ], (w, v) => w.compactString(v), r => r.compactNullableString())
  })

  test('BYTES and NULLABLE_BYTES: int32 length', () => {
    checkGolden([
      { value: Buffer.alloc(0), bytes: '00000000' },
      { value: hex('010203'), bytes: '00000003 010203' }
    ], (w, v) => w.bytes(v), r => r.bytes())
    checkGolden<Buffer | null>([
      { value: null, bytes: 'ffffffff' },
      { value: Buffer.alloc(0), bytes: '00000000' },
      { value: hex('ff'), bytes: '00000001 ff' }
    ], (w, v) => w.bytes(v), r => r.nullableBytes())
  })

  test('COMPACT_BYTES and COMPACT_NULLABLE_BYTES: uvarint length+1', () => {
    checkGolden([
      { value: Buffer.alloc(0), bytes: '01' },
      { value: hex('010203'), bytes: '04 010203' }
    ], (w, v) => w.compactBytes(v), r => r.compactBytes())
    checkGolden<Buffer | null>([
      { value: null, bytes: '00' },
      { value: Buffer.alloc(0), bytes: '01' },
      { value: hex('abcd'), bytes: '03 abcd' }
    ], (w, v) => w.compactBytes(v), r => r.compactNullableBytes())
  })

  test('UUID: 16 raw bytes', () => {
    checkGolden([
      { value: '00112233-4455-6677-8899-aabbccddeeff', bytes: '00112233445566778899aabbccddeeff' },
      { value: '00000000-0000-0000-0000-000000000000', bytes: '00'.repeat(16) },
      { value: 'ffffffff-ffff-ffff-ffff-ffffffffffff', bytes: 'ff'.repeat(16) }
    ], (w, v) => w.uuid(v), r => r.uuid())
    // The undashed 32-digit form is accepted on write.
    assert.equal(written(w => w.uuid('00112233445566778899aabbccddeeff')), '00112233445566778899aabbccddeeff')
    assert.throws(() => new Writer().uuid('not-a-uuid'), TypeError)
  })

  test('array lengths: int32 (-1 null) and compact uvarint count+1 (0 null)', () => {
    assert.equal(readerOf('00000002 0000').arrayLength(false), 2)
    assert.equal(readerOf('ffffffff').arrayLength(false), -1)
    assert.equal(readerOf('00000000').arrayLength(false), 0)
    assert.equal(readerOf('03 0000').arrayLength(true), 2)
    assert.equal(readerOf('00').arrayLength(true), -1)
    assert.equal(readerOf('01').arrayLength(true), 0)
  })

  test('tagged fields: count, then tag, size, bytes per field', () => {
    assert.equal(readerOf('00').taggedFields(), undefined)
    const r = readerOf('02 00 01 ab 05 02 cdef')
    assert.deepEqual(r.taggedFields(), [
      { tag: 0, data: hex('ab') },
      { tag: 5, data: hex('cdef') }
    ])
    assert.equal(r.remaining, 0)
    // A tag above 127 takes a two-byte uvarint.
    assert.deepEqual(readerOf('01 8001 00').taggedFields(), [{ tag: 128, data: Buffer.alloc(0) }])
    assert.equal(written(w => w.emptyTaggedFields()), '00')
    const full = hex('02 00 01 ab 05 02 cdef')
    for (let cut = 0; cut < full.length; cut++) {
      throwsProtocolError(() => new Reader(full.subarray(0, cut)).taggedFields(), `cut to ${cut}`)
    }
  })

  test('a sequence of mixed primitives reads back in order', () => {
    const bytes = written(w => w.int16(7).compactString('t').varint(-3).int64(-2n).uvarint(300).bool(true).string(null))
    assert.equal(bytes, '0007' + '0274' + '05' + 'fffffffffffffffe' + 'ac02' + '01' + 'ffff')
    const r = new Reader(Buffer.from(bytes, 'hex'))
    assert.deepEqual([r.int16(), r.compactString(), r.varint(), r.int64(), r.uvarint(), r.bool(), r.nullableString()], [7, 't', -3, -2n, 300, true, null])
  })
})

describe('Writer mechanics', () => {
  test('grows from one byte and keeps what it wrote', () => {
    const w = new Writer(1)
    for (let i = 0; i < 10000; i++) w.int32(i)
    const r = new Reader(w.finish())
    for (let i = 0; i < 10000; i++) assert.equal(r.int32(), i)
    assert.equal(r.remaining, 0)
  })

  test('reserve and patch write a length after the bytes it covers', () => {
    const w = new Writer(2)
    const at = w.reserve(4)
    w.compactString('abc')
    w.patchInt32(at, w.offset - at - 4)
    const crcAt = w.reserve(4)
    w.patchUint32(crcAt, 0xdeadbeef)
    assert.equal(w.finish().toString('hex'), '00000004' + '04616263' + 'deadbeef')
  })

  test('raw and utf8 copy bytes without a prefix', () => {
    assert.equal(written(w => w.raw(hex('0102')).utf8('é', 2)), '0102c3a9')
  })
})

describe('round trips (fast-check)', () => {
  const runs = { numRuns: 500 }

  function roundTrip<T> (arb: fc.Arbitrary<T>, write: (w: Writer, v: T) => void, read: (r: Reader) => T): void {
    fc.assert(fc.property(arb, value => {
      const w = new Writer(4)
      write(w, value)
      const r = new Reader(w.finish())
      const back = read(r)
      const same = Buffer.isBuffer(value) ? Buffer.isBuffer(back) && value.equals(back) : Object.is(back, value)
      assert.ok(same, `${String(value)} read back as ${String(back)}`)
      assert.equal(r.remaining, 0)
    }), runs)
  }

  test('fixed-width integers', () => {
    roundTrip(fc.integer({ min: -128, max: 127 }), (w, v) => w.int8(v), r => r.int8())
    roundTrip(fc.integer({ min: -32768, max: 32767 }), (w, v) => w.int16(v), r => r.int16())
    roundTrip(fc.integer({ min: 0, max: 0xffff }), (w, v) => w.uint16(v), r => r.uint16())
    roundTrip(fc.integer(), (w, v) => w.int32(v), r => r.int32())
    roundTrip(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (w, v) => w.uint32(v), r => r.uint32())
    roundTrip(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (w, v) => w.int64(v), r => r.int64())
    roundTrip(fc.double(), (w, v) => w.float64(v), r => r.float64())
  })

  test('varints', () => {
    roundTrip(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (w, v) => w.uvarint(v), r => r.uvarint())
    roundTrip(fc.integer(), (w, v) => w.varint(v), r => r.varint())
    roundTrip(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (w, v) => w.varlong(v), r => r.varlong())
    // Small values take the varlong fast paths on both sides.
    roundTrip(fc.bigInt({ min: -(2n ** 31n), max: 2n ** 31n }), (w, v) => w.varlong(v), r => r.varlong())
  })

  test('strings, bytes and UUIDs', () => {
    const text = fc.fullUnicodeString({ maxLength: 40 })
    roundTrip(text, (w, v) => w.string(v), r => r.string())
    roundTrip(fc.option(text), (w, v) => w.string(v), r => r.nullableString())
    roundTrip(text, (w, v) => w.compactString(v), r => r.compactString())
    roundTrip(fc.option(text), (w, v) => w.compactString(v), r => r.compactNullableString())
    const data = fc.uint8Array({ maxLength: 200 }).map((a): Buffer => Buffer.from(a))
    roundTrip(data, (w, v) => w.bytes(v), r => r.bytes())
    roundTrip(fc.option(data), (w, v) => w.bytes(v), r => r.nullableBytes())
    roundTrip(data, (w, v) => w.compactBytes(v), r => r.compactBytes())
    roundTrip(fc.option(data), (w, v) => w.compactBytes(v), r => r.compactNullableBytes())
    roundTrip(fc.uuid(), (w, v) => w.uuid(v), r => r.uuid())
  })
})

describe('malformed input raises ProtocolError', () => {
  test('every read on an empty buffer', () => {
    const reads: Array<(r: Reader) => unknown> = [
      r => r.int8(), r => r.uint8(), r => r.int16(), r => r.uint16(), r => r.int32(), r => r.uint32(),
      r => r.int64(), r => r.float64(), r => r.bool(), r => r.uvarint(), r => r.varint(), r => r.varlong(),
      r => r.string(), r => r.nullableString(), r => r.compactString(), r => r.compactNullableString(),
      r => r.bytes(), r => r.nullableBytes(), r => r.compactBytes(), r => r.compactNullableBytes(),
      r => r.uuid(), r => r.arrayLength(false), r => r.arrayLength(true), r => r.taggedFields(),
      r => r.raw(1), r => r.slice(1, 'section')
    ]
    for (const read of reads) throwsProtocolError(() => read(new Reader(Buffer.alloc(0))), String(read))
  })

  test('a reader window outside its buffer', () => {
    throwsProtocolError(() => new Reader(Buffer.alloc(4), 5))
    throwsProtocolError(() => new Reader(Buffer.alloc(4), 0, 5))
    throwsProtocolError(() => new Reader(Buffer.alloc(4), -1))
    throwsProtocolError(() => new Reader(Buffer.alloc(4), 3, 2))
  })

  test('reads stop at the window end, not the buffer end', () => {
    const r = new Reader(hex('00000001 ff'), 0, 4)
    assert.equal(r.int32(), 1)
    throwsProtocolError(() => r.int8())
    const outer = readerOf('0001 00000002')
    const sub = outer.slice(2, 'section')
    assert.equal(sub.int16(), 1)
    throwsProtocolError(() => sub.int8())
    assert.equal(outer.int32(), 2)
  })

  test('overlong varints', () => {
    // Six bytes: more than the 32 bits an unsigned varint may carry.
    throwsProtocolError(() => readerOf('80 80 80 80 80 01').uvarint())
    throwsProtocolError(() => readerOf('80 80 80 80 80 01').varint())
    throwsProtocolError(() => readerOf('ff ff ff ff ff 0f').uvarint())
    // A fifth byte with more than 4 bits set overflows 32 bits too.
    throwsProtocolError(() => readerOf('ff ff ff ff 1f').uvarint())
    throwsProtocolError(() => readerOf('80 80 80 80 10').uvarint())
    // Eleven bytes: more than the 64 bits a varlong may carry.
    throwsProtocolError(() => readerOf('80 80 80 80 80 80 80 80 80 80 01').varlong())
    throwsProtocolError(() => readerOf('ff'.repeat(11) + '01').varlong())
    // A varint that never ends runs into the end of the buffer.
    throwsProtocolError(() => readerOf('ff ff ff').uvarint())
    throwsProtocolError(() => readerOf('ff'.repeat(9)).varlong())
    // A long varint is still fine as a length when the bytes behind it are there.
    assert.equal(readerOf('81 80 80 80 00').uvarint(), 1)
  })

  test('negative lengths', () => {
    throwsProtocolError(() => readerOf('ffff').string()) // null for a non-nullable string
    throwsProtocolError(() => readerOf('fffe 00').string())
    throwsProtocolError(() => readerOf('fffe 00').nullableString())
    throwsProtocolError(() => readerOf('8000').nullableString())
    throwsProtocolError(() => readerOf('ffffffff').bytes())
    throwsProtocolError(() => readerOf('fffffffe 00').bytes())
    throwsProtocolError(() => readerOf('fffffffe 00').nullableBytes())
    throwsProtocolError(() => readerOf('80000000').nullableBytes())
    throwsProtocolError(() => readerOf('fffffffe').arrayLength(false))
    throwsProtocolError(() => readerOf('80000000').arrayLength(false))
    throwsProtocolError(() => readerOf('00').compactString()) // null for a non-nullable compact string
    throwsProtocolError(() => readerOf('00').compactBytes())
    throwsProtocolError(() => readerOf('0000').raw(-1))
  })

  test('lengths beyond the buffer', () => {
    throwsProtocolError(() => readerOf('0003 6161').string())
    throwsProtocolError(() => readerOf('7fff 61').nullableString())
    throwsProtocolError(() => readerOf('04 6161').compactString())
    throwsProtocolError(() => readerOf('ff ff ff ff 0f 61').compactNullableString())
    throwsProtocolError(() => readerOf('00000003 0101').bytes())
    throwsProtocolError(() => readerOf('7fffffff 01').nullableBytes())
    throwsProtocolError(() => readerOf('ff ff ff ff 0f').compactBytes())
    throwsProtocolError(() => readerOf('04 0101').compactNullableBytes())
    throwsProtocolError(() => readerOf('01 00 05 0101').taggedFields())
    throwsProtocolError(() => readerOf('0102').slice(3, 'section'))
  })

  test('array counts larger than the remaining bytes are refused before allocation', () => {
    throwsProtocolError(() => readerOf('7fffffff').arrayLength(false))
    throwsProtocolError(() => readerOf('00000003 0000').arrayLength(false))
    // Two int32 elements need eight bytes; seven remain.
    throwsProtocolError(() => readerOf('00000002 00000000000000').arrayLength(false, 4))
    assert.equal(readerOf('00000002 0000000000000000').arrayLength(false, 4), 2)
    throwsProtocolError(() => readerOf('ff ff ff ff 0f').arrayLength(true))
    throwsProtocolError(() => readerOf('04 0000').arrayLength(true))
    throwsProtocolError(() => readerOf('03 00000000').arrayLength(true, 4))
    // A minimum element size of 0 still counts each element as one byte.
    throwsProtocolError(() => readerOf('00000005 0000').arrayLength(false, 0))
  })

  test('tagged-field counts larger than the remaining bytes', () => {
    throwsProtocolError(() => readerOf('ff ff ff ff 0f').taggedFields())
    throwsProtocolError(() => readerOf('05 00 00').taggedFields())
  })

  test('random bytes through every read raise only ProtocolError', () => {
    const reads: Array<(r: Reader) => unknown> = [
      r => r.uvarint(), r => r.varint(), r => r.varlong(), r => r.string(), r => r.nullableString(),
      r => r.compactString(), r => r.compactNullableString(), r => r.bytes(), r => r.nullableBytes(),
      r => r.compactBytes(), r => r.compactNullableBytes(), r => r.uuid(), r => r.arrayLength(false, 2),
      r => r.arrayLength(true, 2), r => r.taggedFields()
    ]
    fc.assert(fc.property(fc.uint8Array({ maxLength: 24 }), fc.nat(reads.length - 1), (data, which) => {
      const r = new Reader(Buffer.from(data))
      try {
        reads[which](r)
        assert.ok(r.offset <= r.end)
      } catch (err) {
        assert.ok(err instanceof ProtocolError, `${String(err)} for ${Buffer.from(data).toString('hex')}`)
      }
    }), { numRuns: 5000 })
  })
})

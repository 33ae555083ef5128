/**
 * The message schema DSL (protocol/schema.ts) on a small hand-made struct: which bytes each
 * version writes, tagged fields (only when not at their default, in tag order, unknown tags
 * kept), nullability per version, defaults for fields a version lacks, and describeStruct.
 */
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { array, compileStruct, defaultStruct, describeStruct, field, kUnknownTags, struct, tagged } from '../../protocol/schema'
import { Reader } from '../../protocol/reader'
import { Writer } from '../../protocol/writer'
import { ProtocolError } from '../../protocol/errors'

// Flexible from v3, like a Kafka message whose "flexibleVersions" is "3+".
const FLEXIBLE_FROM = 3

// Tags are declared out of order on purpose: the wire order is by tag number.
const Sample = struct(
  field('id', 'int32', '0+'),
  field('name', 'string', '0+', { nullableVersions: '2+' }),
  field('items', array('int16'), '0+', { nullableVersions: '2+' }),
  field('extra', 'int64', '1+', { default: -1n }),
  field('child', struct(field('x', 'int8', '0+')), '0+'),
  field('maybe', struct(field('y', 'int16', '0+')), '2+', { nullableVersions: '2+', default: null }),
  tagged('tagC', 'int32', 5, '3+', { default: -1 }),
  tagged('tagA', 'string', 1, '3+', { nullableVersions: '3+', default: null }),
  tagged('tagB', array('int8'), 3, '3+')
)

function codec (version: number): ReturnType<typeof compileStruct> {
  return compileStruct(Sample, version, version >= FLEXIBLE_FROM)
}

function encode (version: number, value: Record<string, unknown>): string {
  const w = new Writer(8)
  codec(version).encode(w, value)
  return w.finish().toString('hex')
}

function decode (version: number, hex: string): Record<string, unknown> {
  const r = new Reader(Buffer.from(hex.replace(/\s+/g, ''), 'hex'))
  const value = codec(version).decode(r)
  assert.equal(r.remaining, 0, 'decoding consumes the whole encoding')
  return value
}

function strip (hex: string): string {
  return hex.replace(/\s+/g, '')
}

function throwsProtocolError (fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => err instanceof ProtocolError)
}

const base = { id: 1, name: 'a', items: [], extra: 5n, child: { x: 2 }, maybe: null }
// The v3 bytes of `base`, up to its top-level tagged-field section.
const baseV3 = '00000001 0261 01 0000000000000005 0200 ff'

describe('tagged fields', () => {
  test('are written only when they differ from their default', () => {
    assert.equal(encode(3, { ...base }), strip(baseV3 + ' 00'))
    assert.equal(encode(3, { ...base, tagC: -1, tagA: null, tagB: [] }), strip(baseV3 + ' 00'))
  })

  test('are written in tag order, whatever the declaration order', () => {
    const bytes = encode(3, { ...base, tagC: 7, tagA: 'z', tagB: [1] })
    // count 3; tag 1 size 2 'z'; tag 3 size 2 [1]; tag 5 size 4 int32 7
    assert.equal(bytes, strip(baseV3 + ' 03  01 02 027a  03 02 0201  05 04 00000007'))
    const back = decode(3, bytes)
    assert.equal(back.tagA, 'z')
    assert.deepEqual(back.tagB, [1])
    assert.equal(back.tagC, 7)
  })

  test('that are unknown are kept on decode and written back in tag order', () => {
    // Unknown tag 2 (one byte) sits between known tags; unknown tag 9 (empty) comes last.
    const bytes = strip(baseV3 + ' 03  01 02 027a  02 01 ff  09 00')
    const value = decode(3, bytes)
    assert.equal(value.tagA, 'z')
    assert.deepEqual(value[kUnknownTags], [
      { tag: 2, data: Buffer.from('ff', 'hex') },
      { tag: 9, data: Buffer.alloc(0) }
    ])
    assert.equal(encode(3, value), bytes)
    // A known tag set later is merged into the same order.
    assert.equal(encode(3, { ...value, tagC: 7 }), strip(baseV3 + ' 04  01 02 027a  02 01 ff  05 04 00000007  09 00'))
  })

  test('a known tag with bytes left over, or a count beyond the frame, is a ProtocolError', () => {
    // tag 5 (int32) given 5 bytes
    throwsProtocolError(() => decode(3, baseV3 + ' 01 05 05 0000000700'))
    // tag 5 given 2 bytes
    throwsProtocolError(() => decode(3, baseV3 + ' 01 05 02 0000'))
    throwsProtocolError(() => decode(3, baseV3 + ' 7f'))
    throwsProtocolError(() => decode(3, baseV3 + ' 01 05 7f 00000007'))
  })

  test('are not part of non-flexible versions', () => {
    const bytes = encode(2, { ...base, tagC: 7, tagA: 'z' })
    assert.equal(bytes, strip('00000001 00 0161 00000000 0000000000000005 02 ff'))
  })
})

describe('nullable fields per version', () => {
  test('v1: string and array are not nullable', () => {
    assert.throws(() => encode(1, { ...base, name: null }), TypeError)
    assert.throws(() => encode(1, { ...base, items: null }), TypeError)
    // id, name (null), items, extra, child
    throwsProtocolError(() => decode(1, '00000001 ffff 00000000 0000000000000005 02'))
    throwsProtocolError(() => decode(1, '00000001 0000 ffffffff 0000000000000005 02'))
  })

  test('v2: null string, array and struct use the non-compact null markers', () => {
    const bytes = encode(2, { ...base, name: null, items: null, maybe: null })
    assert.equal(bytes, strip('00000001 ffff ffffffff 0000000000000005 02 ff'))
    const back = decode(2, bytes)
    assert.equal(back.name, null)
    assert.equal(back.items, null)
    assert.equal(back.maybe, null)
    // A present nullable struct is preceded by 1.
    const present = encode(2, { ...base, maybe: { y: 258 } })
    assert.equal(present, strip('00000001 0001 61 00000000 0000000000000005 02 01 0102'))
    assert.deepEqual(decode(2, present).maybe, { y: 258 })
  })

  test('v3 (flexible): null is a zero length', () => {
    const bytes = encode(3, { ...base, name: null, items: null, maybe: { y: 1 } })
    assert.equal(bytes, strip('00000001 00 00 0000000000000005 0200 01 0001 00 00'))
    const back = decode(3, bytes)
    assert.equal(back.name, null)
    assert.equal(back.items, null)
    assert.deepEqual(back.maybe, { y: 1 })
  })
  test('a null struct counts as its one-byte marker when bounding an array count', () => {
    // One element: a null nullable struct (1 byte) in a flexible struct (tags: 1 byte). The
    // struct present would take 4 + 1 bytes, more than the 3 bytes that remain after the count.
    const Outer = struct(field('items', array(struct(
      field('inner', struct(field('a', 'int32', '0+')), '0+', { nullableVersions: '0+', default: null })
    )), '0+'))
    const r = new Reader(Buffer.from(strip('02 ff 00 00'), 'hex'))
    assert.deepEqual(compileStruct(Outer, 0, true).decode(r), { items: [{ inner: null }] })
  })
})

describe('versions', () => {
  test('a field absent from a version decodes as its default', () => {
    // v0: id, name, items, child only.
    const v0 = decode(0, '00000001 0001 61 00000001 0007 09')
    assert.deepEqual(v0, { id: 1, name: 'a', items: [7], child: { x: 9 }, extra: -1n, maybe: null, tagC: -1, tagA: null, tagB: [] })
    // v3 with an empty tagged section: every tagged field at its default.
    const v3 = decode(3, baseV3 + ' 00')
    assert.equal(v3.tagC, -1)
    assert.equal(v3.tagA, null)
    assert.deepEqual(v3.tagB, [])
  })

  test('a field missing from the value is written as its default', () => {
    assert.equal(encode(1, {}), strip('00000000 0000 00000000 ffffffffffffffff 00'))
    assert.deepEqual(defaultStruct(Sample), { id: 0, name: '', items: [], extra: -1n, child: { x: 0 }, maybe: null, tagC: -1, tagA: null, tagB: [] })
  })

  test('an array count beyond the remaining bytes is refused before allocation', () => {
    throwsProtocolError(() => decode(1, '00000001 0000 7fffffff'))
    // Three int16 elements need six bytes; the rest of the frame has five.
    throwsProtocolError(() => decode(1, '00000001 0000 00000003 0000000000'))
    throwsProtocolError(() => decode(3, '00000001 01 ffffffff0f'))
  })

  test('truncation anywhere is a ProtocolError', () => {
    const bytes = Buffer.from(encode(3, { ...base, tagC: 7, tagA: 'z', tagB: [1], maybe: { y: 1 } }), 'hex')
    for (let cut = 0; cut < bytes.length; cut++) {
      throwsProtocolError(() => codec(3).decode(new Reader(bytes.subarray(0, cut))))
    }
  })
})

describe('describeStruct', () => {
  const Small = struct(
    field('throttleTimeMs', 'int32', '1+'),
    field('topics', array(struct(
      field('name', 'string', '0+'),
      field('topicId', 'uuid', '2+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+' })
    )), '0+'),
    field('data', 'bytes', '0+', { nullableVersions: '1+' }),
    tagged('leaderEpoch', 'int32', 2, '2+'),
    tagged('hint', 'string', 0, '2+')
  )

  test('renders like Kafka’s Schema.toString, per version', () => {
    assert.equal(describeStruct(Small, 0, false),
      '{topics:ARRAY({name:STRING, error_message:NULLABLE_STRING}), data:BYTES}')
    assert.equal(describeStruct(Small, 1, false),
      '{throttle_time_ms:INT32, topics:ARRAY({name:STRING, error_message:NULLABLE_STRING}), data:NULLABLE_BYTES}')
    assert.equal(describeStruct(Small, 2, true),
      '{throttle_time_ms:INT32, topics:COMPACT_ARRAY({name:COMPACT_STRING, topic_id:UUID, error_message:COMPACT_NULLABLE_STRING, _tagged_fields:TAGS()}), ' +
      'data:COMPACT_NULLABLE_BYTES, _tagged_fields:TAGS(tag0 hint:COMPACT_STRING; tag2 leader_epoch:INT32; )}')
  })
})

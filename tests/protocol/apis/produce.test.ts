/**
 * Produce (protocol/apis/produce.ts): golden bytes worked out by hand from Kafka's
 * ProduceRequest schema, so the schema layer is checked against the spec and not only
 * against itself; then the hand-written request encoder against the schema encoder, byte
 * for byte, at every version on generated requests.
 */
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Produce, type ProduceRequest } from '../../../protocol/apis'
import { schemaCodecs } from '../../../protocol/api'
import { REFERENCE_MIN_BYTES, Writer } from '../../../protocol/writer'
import { encodeRequestChunks, encodeRequestFrame } from '../../../protocol/header'
import { ProtocolError } from '../../../protocol/errors'
import { kUnknownTags } from '../../../protocol/schema'

const schemaProduce = schemaCodecs(Produce)

function hotEncode (version: number, request: ProduceRequest, writer = new Writer(16)): Buffer {
  Produce.encodeRequest(writer, version, request)
  return Buffer.from(writer.finish())
}

function schemaEncode (version: number, request: ProduceRequest): Buffer {
  const writer = new Writer(16)
  schemaProduce.encodeRequest(writer, version, request)
  return Buffer.from(writer.finish())
}

/** Both encoders must give `expected`. */
function assertBytes (version: number, request: ProduceRequest, expected: Buffer): void {
  assert.deepStrictEqual(schemaEncode(version, request), expected, 'schema encoder')
  assert.deepStrictEqual(hotEncode(version, request), expected, 'hand-written encoder')
}

// The records field is opaque to this layer: any bytes stand in for a record batch here.
const BATCH = Buffer.from([0xde, 0xad, 0xbe, 0xef])

describe('golden bytes', () => {
  test('Produce v3 (not flexible)', () => {
    const request: ProduceRequest = {
      transactionalId: null,
      acks: -1,
      timeoutMs: 30000,
      topicData: [{ name: 'foo', partitionData: [{ index: 0, records: BATCH }] }]
    }
    assertBytes(3, request, Buffer.from([
      0xff, 0xff, //                transactional_id: NULLABLE_STRING, length -1 = null
      0xff, 0xff, //                acks: INT16 -1 (all in-sync replicas)
      0x00, 0x00, 0x75, 0x30, //    timeout_ms: INT32 30000
      0x00, 0x00, 0x00, 0x01, //    topic_data: ARRAY, int32 count 1
      0x00, 0x03, 0x66, 0x6f, 0x6f, //  name: STRING, int16 length 3, "foo"
      0x00, 0x00, 0x00, 0x01, //        partition_data: ARRAY, int32 count 1
      0x00, 0x00, 0x00, 0x00, //          index: INT32 0
      0x00, 0x00, 0x00, 0x04, //          records: NULLABLE_RECORDS, int32 length 4
      0xde, 0xad, 0xbe, 0xef //           the record batch bytes
    ]))
  })

  test('Produce v9 (flexible)', () => {
    const request: ProduceRequest = {
      transactionalId: 'tx',
      acks: 1,
      timeoutMs: 1000,
      topicData: [{
        name: 'foo',
        partitionData: [
          { index: 2, records: Buffer.from([0x01, 0x02, 0x03]) },
          { index: 5, records: null }
        ]
      }]
    }
    assertBytes(9, request, Buffer.from([
      0x03, 0x74, 0x78, //          transactional_id: COMPACT_NULLABLE_STRING, uvarint length+1 = 3, "tx"
      0x00, 0x01, //                acks: INT16 1
      0x00, 0x00, 0x03, 0xe8, //    timeout_ms: INT32 1000
      0x02, //                      topic_data: COMPACT_ARRAY, uvarint count+1 = 2
      0x04, 0x66, 0x6f, 0x6f, //      name: COMPACT_STRING, uvarint length+1 = 4, "foo"
      0x03, //                        partition_data: COMPACT_ARRAY, count+1 = 3
      0x00, 0x00, 0x00, 0x02, //        index: INT32 2
      0x04, 0x01, 0x02, 0x03, //        records: COMPACT_NULLABLE_RECORDS, length+1 = 4, 3 bytes
      0x00, //                          partition _tagged_fields: none
      0x00, 0x00, 0x00, 0x05, //        index: INT32 5
      0x00, //                          records: 0 = null
      0x00, //                          partition _tagged_fields: none
      0x00, //                        topic _tagged_fields: none
      0x00 //                       request _tagged_fields: none
    ]))
  })

  test('Produce v13 addresses the topic by topic id', () => {
    const topicId = '0102030405060708090a0b0c0d0e0f10'
    const request: ProduceRequest = {
      acks: 0,
      timeoutMs: 5,
      topicData: [{ name: 'ignored in v13', topicId, partitionData: [{ index: 1, records: BATCH }] }]
    }
    assertBytes(13, request, Buffer.from([
      0x00, //                      transactional_id: null (unset = default null)
      0x00, 0x00, //                acks: INT16 0
      0x00, 0x00, 0x00, 0x05, //    timeout_ms: INT32 5
      0x02, //                      topic_data: COMPACT_ARRAY of 1
      ...Buffer.from(topicId, 'hex'), // topic_id: UUID, 16 bytes
      0x02, //                        partition_data: COMPACT_ARRAY of 1
      0x00, 0x00, 0x00, 0x01, //        index: INT32 1
      0x05, 0xde, 0xad, 0xbe, 0xef, //  records: length+1 = 5, 4 bytes
      0x00, 0x00, 0x00 //             partition, topic, request _tagged_fields: none
    ]))
  })
})

const int16 = fc.integer({ min: -32768, max: 32767 })
const int32 = fc.integer({ min: -0x80000000, max: 0x7fffffff })
const records = fc.option(fc.uint8Array({ maxLength: 300 }).map(bytes => Buffer.from(bytes)), { freq: 5 })
const unknownTags = fc.array(fc.record({
  tag: fc.integer({ min: 0, max: 300 }),
  data: fc.uint8Array({ maxLength: 5 }).map(bytes => Buffer.from(bytes))
}), { maxLength: 3 })

/** Adds kept-unknown tagged fields (as a decode would) to some objects. */
function withUnknownTags<T> (arb: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.tuple(arb, fc.option(unknownTags, { freq: 3 })).map(([value, tags]) => tags === null ? value : { ...value, [kUnknownTags]: tags })
}

const partition = withUnknownTags(fc.record({ index: int32, records }))
const topic = withUnknownTags(fc.record({
  name: fc.fullUnicodeString({ maxLength: 20 }),
  topicId: fc.uuid(),
  partitionData: fc.array(partition, { maxLength: 4 })
}, { requiredKeys: ['partitionData'] }))
const request = withUnknownTags(fc.record({
  transactionalId: fc.option(fc.fullUnicodeString({ maxLength: 20 })),
  acks: fc.oneof(fc.constantFrom(-1, 0, 1), int16),
  timeoutMs: int32,
  topicData: fc.array(topic, { maxLength: 4 })
}, { requiredKeys: ['acks', 'timeoutMs', 'topicData'] }))

test('the hand-written encoder writes the schema encoder\'s bytes at every version', () => {
  fc.assert(fc.property(request, fc.integer({ min: 3, max: 13 }), (req, version) => {
    assert.deepStrictEqual(hotEncode(version, req as ProduceRequest), schemaEncode(version, req as ProduceRequest))
  }), { numRuns: 3000 })
})

test('the hand-written encoder appends after what the writer already holds', () => {
  const req: ProduceRequest = { acks: 1, timeoutMs: 10, topicData: [{ name: 't', partitionData: [{ index: 0, records: Buffer.alloc(100_000, 7) }] }] }
  const writer = new Writer(8)
  writer.int32(0x01020304)
  Produce.encodeRequest(writer, 9, req)
  const bytes = writer.finish()
  assert.deepStrictEqual(bytes.subarray(0, 4), Buffer.from([1, 2, 3, 4]))
  assert.deepStrictEqual(Buffer.from(bytes.subarray(4)), schemaEncode(9, req))
})

test('a request frame in chunks (what the connection writes) is the frame byte for byte; large batches are referred to, not copied', () => {
  const large = Buffer.alloc(REFERENCE_MIN_BYTES, 7)
  const larger = Buffer.alloc(100_000, 9)
  const small = Buffer.alloc(REFERENCE_MIN_BYTES - 1, 5)
  for (const version of [3, 9, 13]) {
    const req: ProduceRequest = {
      transactionalId: null,
      acks: -1,
      timeoutMs: 30000,
      topicData: [
        { name: 'a', topicId: '0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9', partitionData: [{ index: 0, records: large }, { index: 1, records: small }, { index: 2, records: null }] },
        { name: 'b', topicId: '1a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9', partitionData: [{ index: 0, records: larger }] }
      ]
    }
    const frame = encodeRequestFrame(Produce, version, 42, 'client', req)
    const { chunks, size } = encodeRequestChunks(Produce, version, 42, 'client', req)
    assert.equal(size, frame.length)
    assert.deepStrictEqual(Buffer.concat(chunks), frame, `v${version}`)
    // The large batches are chunks of their own (the same memory); the small one was copied.
    assert.ok(chunks.includes(large) && chunks.includes(larger), 'large batches referred to')
    assert.ok(!chunks.includes(small), 'a small batch is copied')
    // What comes before `large`, large, the copied bytes between, larger, then (flexible versions) the tagged fields after it.
    assert.equal(chunks.length, version >= 9 ? 5 : 4)
  }
  // A request with no large range is one chunk.
  const { chunks } = encodeRequestChunks(Produce, 9, 1, null, { acks: 1, timeoutMs: 10, topicData: [{ name: 't', partitionData: [{ index: 0, records: small }] }] })
  assert.equal(chunks.length, 1)
})

test('versions kafkats does not speak are refused', () => {
  const req: ProduceRequest = { acks: 1, timeoutMs: 10, topicData: [] }
  for (const version of [-1, 0, 2, 14, 3.5]) {
    assert.throws(() => hotEncode(version, req), ProtocolError)
  }
})

test('a null topic name is refused below v13, as the schema refuses it', () => {
  const req = { acks: 1, timeoutMs: 10, topicData: [{ name: null, partitionData: [] }] } as unknown as ProduceRequest
  assert.throws(() => schemaEncode(9, req), TypeError)
  assert.throws(() => hotEncode(9, req), TypeError)
})

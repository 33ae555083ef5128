/**
 * Fetch (protocol/apis/fetch.ts): golden response bytes worked out by hand from Kafka's
 * FetchResponse schema (a v4 one and a flexible v16 one with tagged fields), checked
 * against both the schema codecs and the hand-written decoder; then the hand-written
 * decoder against the schema decoder on generated responses at every version, and on
 * truncated and mutated bytes, where it may only throw ProtocolError.
 */
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Fetch, type FetchResponse, type FetchPartitionResponse } from '../../../protocol/apis'
import { schemaCodecs } from '../../../protocol/api'
import { Reader } from '../../../protocol/reader'
import { Writer } from '../../../protocol/writer'
import { ProtocolError } from '../../../protocol/errors'
import { kUnknownTags } from '../../../protocol/schema'

const schemaFetch = schemaCodecs(Fetch)
const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

function hotDecode (version: number, bytes: Buffer): FetchResponse {
  const r = new Reader(bytes)
  const response = Fetch.decodeResponse(r, version)
  assert.equal(r.remaining, 0, 'the hand-written decoder reads the whole body')
  return response
}

function schemaDecode (version: number, bytes: Buffer): FetchResponse {
  const r = new Reader(bytes)
  const response = schemaFetch.decodeResponse(r, version)
  assert.equal(r.remaining, 0, 'the schema decoder reads the whole body')
  return response
}

function schemaEncode (version: number, response: FetchResponse): Buffer {
  const w = new Writer(64)
  schemaFetch.encodeResponse(w, version, response)
  return Buffer.from(w.finish())
}

/** The schema decoder keeps unknown tagged fields; the hand-written one skips them. */
function withoutUnknownTags (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUnknownTags)
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value
  const copy: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) if (key !== kUnknownTags) copy[key] = withoutUnknownTags(inner)
  return copy
}

function defaultTagged (): Pick<FetchPartitionResponse, 'divergingEpoch' | 'currentLeader' | 'snapshotId'> {
  return {
    divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1n, epoch: -1 }
  }
}

const i64 = (value: number): number[] => [...Buffer.from(BigInt.asUintN(64, BigInt(value)).toString(16).padStart(16, '0'), 'hex')]

describe('golden bytes', () => {
  test('Fetch v4 response (not flexible)', () => {
    const bytes = Buffer.from([
      0x00, 0x00, 0x00, 0x00, //          throttle_time_ms: INT32 0
      0x00, 0x00, 0x00, 0x01, //          responses: ARRAY, int32 count 1
      0x00, 0x03, 0x66, 0x6f, 0x6f, //      topic: STRING, int16 length 3, "foo"
      0x00, 0x00, 0x00, 0x01, //            partitions: ARRAY, count 1
      0x00, 0x00, 0x00, 0x00, //              partition_index: INT32 0
      0x00, 0x00, //                          error_code: INT16 0
      ...i64(10), //                        high_watermark: INT64 10
      ...i64(8), //                         last_stable_offset: INT64 8
      0x00, 0x00, 0x00, 0x01, //              aborted_transactions: NULLABLE_ARRAY, count 1
      ...i64(7), //                           producer_id: INT64 7
      ...i64(3), //                           first_offset: INT64 3
      0x00, 0x00, 0x00, 0x04, //              records: NULLABLE_RECORDS, int32 length 4
      0xde, 0xad, 0xbe, 0xef //               the record batch bytes
    ])
    const expected: FetchResponse = {
      throttleTimeMs: 0,
      errorCode: 0, //          v7+: default
      sessionId: 0, //          v7+: default
      responses: [{
        topic: 'foo',
        topicId: ZERO_UUID, //  v13+: default
        partitions: [{
          partitionIndex: 0,
          errorCode: 0,
          highWatermark: 10n,
          lastStableOffset: 8n,
          logStartOffset: -1n, //       v5+: default -1
          ...defaultTagged(), //        v12+ tagged: defaults
          abortedTransactions: [{ producerId: 7n, firstOffset: 3n }],
          preferredReadReplica: -1, //  v11+: default -1
          records: Buffer.from([0xde, 0xad, 0xbe, 0xef])
        }]
      }],
      nodeEndpoints: [] //      v16+ tagged: default
    }
    assert.deepStrictEqual(hotDecode(4, bytes), expected)
    assert.deepStrictEqual(schemaDecode(4, bytes), expected)
    assert.deepStrictEqual(schemaEncode(4, expected), bytes)
  })

  const topicId = '0102030405060708090a0b0c0d0e0f10'
  const v16 = Buffer.from([
    0x00, 0x00, 0x00, 0x05, //            throttle_time_ms: INT32 5
    0x00, 0x00, //                        error_code: INT16 0
    0x00, 0x00, 0x00, 0x2a, //            session_id: INT32 42
    0x02, //                              responses: COMPACT_ARRAY, uvarint count+1 = 2
    ...Buffer.from(topicId, 'hex'), //      topic_id: UUID
    0x02, //                                partitions: COMPACT_ARRAY of 1
    0x00, 0x00, 0x00, 0x02, //                partition_index: INT32 2
    0x00, 0x06, //                            error_code: INT16 6 (NOT_LEADER_OR_FOLLOWER)
    ...i64(100), //                         high_watermark: INT64 100
    ...i64(90), //                          last_stable_offset: INT64 90
    ...i64(0), //                           log_start_offset: INT64 0
    0x00, //                                  aborted_transactions: COMPACT_NULLABLE_ARRAY, 0 = null
    0xff, 0xff, 0xff, 0xff, //                preferred_read_replica: INT32 -1
    0x00, //                                  records: COMPACT_NULLABLE_RECORDS, 0 = null
    0x02, //                                  _tagged_fields: 2 fields
    0x00, 0x0d, //                              tag 0 (diverging_epoch), 13 bytes:
    0x00, 0x00, 0x00, 0x04, //                    epoch: INT32 4
    ...i64(80), //                              end_offset: INT64 80
    0x00, //                                      _tagged_fields: none
    0x01, 0x09, //                              tag 1 (current_leader), 9 bytes:
    0x00, 0x00, 0x00, 0x03, //                    leader_id: INT32 3
    0x00, 0x00, 0x00, 0x07, //                    leader_epoch: INT32 7
    0x00, //                                      _tagged_fields: none
    0x00, //                                _tagged_fields (topic): none
    0x01, //                              _tagged_fields: 1 field
    0x00, 0x0e, //                          tag 0 (node_endpoints), 14 bytes:
    0x02, //                                  COMPACT_ARRAY of 1
    0x00, 0x00, 0x00, 0x03, //                  node_id: INT32 3
    0x03, 0x62, 0x33, //                        host: COMPACT_STRING, length+1 = 3, "b3"
    0x00, 0x00, 0x23, 0x84, //                  port: INT32 9092
    0x00, //                                    rack: COMPACT_NULLABLE_STRING, null
    0x00 //                                     _tagged_fields: none
  ])
  const v16Expected: FetchResponse = {
    throttleTimeMs: 5,
    errorCode: 0,
    sessionId: 42,
    responses: [{
      topic: '', // up to v12 only: default
      topicId: '01020304-0506-0708-090a-0b0c0d0e0f10',
      partitions: [{
        partitionIndex: 2,
        errorCode: 6,
        highWatermark: 100n,
        lastStableOffset: 90n,
        logStartOffset: 0n,
        divergingEpoch: { epoch: 4, endOffset: 80n },
        currentLeader: { leaderId: 3, leaderEpoch: 7 },
        snapshotId: { endOffset: -1n, epoch: -1 }, // tag 2 absent: default
        abortedTransactions: null,
        preferredReadReplica: -1,
        records: null
      }]
    }],
    nodeEndpoints: [{ nodeId: 3, host: 'b3', port: 9092, rack: null }]
  }

  test('Fetch v16 response (flexible, tagged fields)', () => {
    assert.deepStrictEqual(hotDecode(16, v16), v16Expected)
    assert.deepStrictEqual(schemaDecode(16, v16), v16Expected)
    assert.deepStrictEqual(schemaEncode(16, v16Expected), v16)
  })

  test('unknown tags are skipped by the hand-written decoder (and kept by the schema one)', () => {
    const partitionTagsAt = v16.indexOf(Buffer.from([0x02, 0x00, 0x0d]))
    const topTagsAt = v16.length - 17
    assert.equal(v16[topTagsAt], 0x01)
    const bytes = Buffer.concat([
      v16.subarray(0, partitionTagsAt),
      Buffer.from([0x03]), // partition tagged fields: now 3
      Buffer.from([0x00, 0x0d]), v16.subarray(partitionTagsAt + 3, partitionTagsAt + 3 + 13), // tag 0 as before
      Buffer.from([0x01, 0x09]), v16.subarray(partitionTagsAt + 3 + 15, partitionTagsAt + 3 + 15 + 9), // tag 1 as before
      Buffer.from([0x09, 0x02, 0xaa, 0xbb]), // tag 9, unknown, 2 bytes
      v16.subarray(partitionTagsAt + 3 + 24, topTagsAt),
      Buffer.from([0x02]), // top-level tagged fields: now 2
      v16.subarray(topTagsAt + 1),
      Buffer.from([0x05, 0x01, 0xcc]) // tag 5, unknown, 1 byte
    ])
    assert.deepStrictEqual(hotDecode(16, bytes), v16Expected)
    const schemaDecoded = schemaDecode(16, bytes)
    const unknownTagsOf = (value: object): unknown => (value as Record<string, unknown>)[kUnknownTags]
    assert.deepStrictEqual(unknownTagsOf(schemaDecoded), [{ tag: 5, data: Buffer.from([0xcc]) }])
    assert.deepStrictEqual(unknownTagsOf(schemaDecoded.responses[0].partitions[0]), [{ tag: 9, data: Buffer.from([0xaa, 0xbb]) }])
    assert.deepStrictEqual(withoutUnknownTags(schemaDecoded), v16Expected)
  })

  test('tag 0 at the top level is not nodeEndpoints before v16', () => {
    // Same body as v16 read as v15: tag 0 is unknown there, so it is skipped.
    const decoded = hotDecode(15, v16)
    assert.deepStrictEqual(decoded.nodeEndpoints, [])
    assert.deepStrictEqual(withoutUnknownTags(schemaDecode(15, v16)), decoded)
  })
})

test('records are a view into the response frame, not a copy', () => {
  const frame = schemaEncode(12, {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [{ topic: 't', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 1n, lastStableOffset: 1n, logStartOffset: 0n, ...defaultTagged(), abortedTransactions: [], preferredReadReplica: -1, records: Buffer.alloc(64, 9) }] }],
    nodeEndpoints: []
  })
  const records = hotDecode(12, frame).responses[0].partitions[0].records!
  assert.equal(records.buffer, frame.buffer)
  frame[frame.length - 4] = 1 // the last record byte; the partition, topic and response tag sections follow
  assert.equal(records[records.length - 1], 1)
})

test('versions kafkats does not speak are refused', () => {
  for (const version of [-1, 0, 3, 19, 12.5, NaN]) {
    assert.throws(() => Fetch.decodeResponse(new Reader(Buffer.alloc(64)), version), ProtocolError)
  }
})

const int16 = fc.integer({ min: -32768, max: 32767 })
const int32 = fc.integer({ min: -0x80000000, max: 0x7fffffff })
const int64 = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n })
const bytes = fc.uint8Array({ maxLength: 40 }).map(array => Buffer.from(array))

/** Unknown tags (numbered above the known ones) that the schema encoder writes out. */
function withUnknownTags<T> (arb: fc.Arbitrary<T>, firstFreeTag: number): fc.Arbitrary<T> {
  const tags = fc.uniqueArray(fc.record({ tag: fc.integer({ min: firstFreeTag, max: 200 }), data: bytes }), { maxLength: 2, selector: t => t.tag })
  return fc.tuple(arb, fc.option(tags, { freq: 4 })).map(([value, unknown]) => unknown === null ? value : { ...value, [kUnknownTags]: unknown })
}

/** A tagged struct: often at its default (so it is left out), sometimes set. */
function taggedStruct<T> (dflt: T, arb: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof(fc.constant(dflt), withUnknownTags(arb, 0))
}

const partitionArb = withUnknownTags(fc.record({
  partitionIndex: int32,
  errorCode: int16,
  highWatermark: int64,
  lastStableOffset: int64,
  logStartOffset: int64,
  divergingEpoch: taggedStruct({ epoch: -1, endOffset: -1n }, fc.record({ epoch: int32, endOffset: int64 })),
  currentLeader: taggedStruct({ leaderId: -1, leaderEpoch: -1 }, fc.record({ leaderId: int32, leaderEpoch: int32 })),
  snapshotId: taggedStruct({ endOffset: -1n, epoch: -1 }, fc.record({ endOffset: int64, epoch: int32 })),
  abortedTransactions: fc.option(fc.array(withUnknownTags(fc.record({ producerId: int64, firstOffset: int64 }), 0), { maxLength: 3 })),
  preferredReadReplica: int32,
  records: fc.option(bytes)
}), 3)

const responseArb = withUnknownTags(fc.record({
  throttleTimeMs: int32,
  errorCode: int16,
  sessionId: int32,
  responses: fc.array(withUnknownTags(fc.record({
    topic: fc.fullUnicodeString({ maxLength: 12 }),
    topicId: fc.uuid(),
    partitions: fc.array(partitionArb, { maxLength: 3 })
  }), 0), { maxLength: 3 }),
  nodeEndpoints: fc.array(withUnknownTags(fc.record({
    nodeId: int32,
    host: fc.fullUnicodeString({ maxLength: 12 }),
    port: int32,
    rack: fc.option(fc.fullUnicodeString({ maxLength: 6 }))
  }), 0), { maxLength: 2 })
}), 1)

const versionArb = fc.integer({ min: Fetch.minVersion, max: Fetch.maxVersion })

test('the hand-written decoder gives the schema decoder\'s result at every version', () => {
  fc.assert(fc.property(responseArb, versionArb, (response, version) => {
    const encoded = schemaEncode(version, response as FetchResponse)
    assert.deepStrictEqual(hotDecode(version, encoded), withoutUnknownTags(schemaDecode(version, encoded)))
  }), { numRuns: 3000 })
})

function decodesOrThrowsProtocolError (version: number, input: Buffer): boolean {
  try {
    Fetch.decodeResponse(new Reader(input), version)
    return true
  } catch (error) {
    if (error instanceof ProtocolError) return false
    throw error
  }
}

test('truncated bytes throw ProtocolError, at every cut', () => {
  fc.assert(fc.property(responseArb, versionArb, (response, version) => {
    const encoded = schemaEncode(version, response as FetchResponse)
    for (let length = 0; length < encoded.length; length++) {
      assert.equal(decodesOrThrowsProtocolError(version, encoded.subarray(0, length)), false, `a cut at ${length} of ${encoded.length} decoded`)
    }
  }), { numRuns: 300 })
})

test('mutated bytes decode or throw ProtocolError, nothing else', () => {
  const mutation = fc.record({
    at: fc.nat(),
    value: fc.integer({ min: 0, max: 255 }),
    count: fc.integer({ min: 1, max: 4 })
  })
  fc.assert(fc.property(responseArb, versionArb, fc.array(mutation, { minLength: 1, maxLength: 4 }), (response, version, mutations) => {
    const encoded = schemaEncode(version, response as FetchResponse)
    if (encoded.length === 0) return
    for (const { at, value, count } of mutations) {
      const start = at % encoded.length
      encoded.fill(value, start, Math.min(encoded.length, start + count))
    }
    decodesOrThrowsProtocolError(version, encoded)
  }), { numRuns: 5000 })
})

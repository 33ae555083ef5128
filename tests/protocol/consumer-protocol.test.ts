/**
 * The consumer protocol bytes (protocol/consumer-protocol.ts): golden bytes worked out by
 * hand from ConsumerProtocolSubscription.json / ConsumerProtocolAssignment.json, bytes
 * written by the Java client, round trips at every version, newer versions read as ours,
 * and bad bytes refused with a ProtocolError.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import {
  ASSIGNMENT_MAX_VERSION,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  SUBSCRIPTION_MAX_VERSION,
  type ConsumerProtocolAssignment,
  type ConsumerProtocolSubscription
} from '../../protocol/consumer-protocol'
import { ProtocolError } from '../../protocol/errors'

function hex (text: string): Buffer {
  return Buffer.from(text.replace(/\s+/g, ''), 'hex')
}

/*
 * Made with the Kafka 4.4.0 client jars by a throwaway Java program (not in the repo):
 *   ConsumerProtocol.serializeSubscription(new Subscription(
 *     List.of("orders", "audit"), ByteBuffer.wrap("ud".getBytes(UTF_8)),
 *     List.of(new TopicPartition("orders", 2), new TopicPartition("audit", 0), new TopicPartition("orders", 0)),
 *     7, Optional.of("rack-a")))
 * (the highest version, v3; the same with version (short) 0 for the v0 bytes), and
 *   ConsumerProtocol.serializeAssignment(new Assignment(
 *     List.of(new TopicPartition("orders", 1), new TopicPartition("orders", 3), new TopicPartition("audit", 0)), null))
 * Java sorts the topics and owned partitions of a subscription.
 */
const JAVA_SUBSCRIPTION_V3 = '0003000000020005617564697400066f72646572730000000275640000000200056175646974000000010000000000066f72646572730000000200000000000000020000000700067261636b2d61'
const JAVA_SUBSCRIPTION_V0 = '0000000000020005617564697400066f7264657273000000027564'
const JAVA_ASSIGNMENT_V3 = '00030000000200066f7264657273000000020000000100000003000561756469740000000100000000ffffffff'

describe('subscription', () => {
  test('v0: topics and userData, by hand', () => {
    const bytes = Buffer.concat([
      hex('0000'), // version 0
      hex('00000002 0001 61 0002 6263'), // topics: ["a", "bc"]
      hex('ffffffff') // userData: null
    ])
    assert.deepStrictEqual(encodeSubscription({ topics: ['a', 'bc'] }, 0), bytes)
    assert.deepStrictEqual(decodeSubscription(bytes), {
      version: 0,
      topics: ['a', 'bc'],
      userData: null,
      ownedPartitions: [],
      generationId: -1,
      rackId: null
    })
  })

  test('v3: every field, by hand', () => {
    const subscription: ConsumerProtocolSubscription = {
      topics: ['t'],
      userData: Buffer.from([0x01, 0x02]),
      ownedPartitions: [{ topic: 't', partitions: [0, 5] }],
      generationId: 9,
      rackId: 'r1'
    }
    const bytes = Buffer.concat([
      hex('0003'), // version 3
      hex('00000001 0001 74'), // topics: ["t"]
      hex('00000002 0102'), // userData: 2 bytes
      hex('00000001 0001 74 00000002 00000000 00000005'), // ownedPartitions: t [0, 5]
      hex('00000009'), // generationId 9
      hex('0002 7231') // rackId "r1"
    ])
    assert.deepStrictEqual(encodeSubscription(subscription, 3), bytes)
    assert.deepStrictEqual(encodeSubscription(subscription), bytes, 'v3 is the default version')
    assert.deepStrictEqual(decodeSubscription(bytes), { ...subscription, version: 3 })
  })

  test('decodes the Java client\'s v3 and v0 bytes', () => {
    assert.deepStrictEqual(decodeSubscription(hex(JAVA_SUBSCRIPTION_V3)), {
      version: 3,
      topics: ['audit', 'orders'],
      userData: Buffer.from('ud'),
      ownedPartitions: [{ topic: 'audit', partitions: [0] }, { topic: 'orders', partitions: [0, 2] }],
      generationId: 7,
      rackId: 'rack-a'
    })
    assert.deepStrictEqual(decodeSubscription(hex(JAVA_SUBSCRIPTION_V0)), {
      version: 0,
      topics: ['audit', 'orders'],
      userData: Buffer.from('ud'),
      ownedPartitions: [],
      generationId: -1,
      rackId: null
    })
  })

  test('writes the Java client\'s bytes for the same subscription', () => {
    const subscription: ConsumerProtocolSubscription = {
      topics: ['audit', 'orders'],
      userData: Buffer.from('ud'),
      ownedPartitions: [{ topic: 'audit', partitions: [0] }, { topic: 'orders', partitions: [0, 2] }],
      generationId: 7,
      rackId: 'rack-a'
    }
    assert.equal(encodeSubscription(subscription).toString('hex'), JAVA_SUBSCRIPTION_V3)
    assert.equal(encodeSubscription(subscription, 0).toString('hex'), JAVA_SUBSCRIPTION_V0)
  })

  test('round-trips at every version; fields a version lacks decode to their defaults', () => {
    const full: ConsumerProtocolSubscription = {
      topics: ['x', 'yé'],
      userData: Buffer.from([9, 8, 7]),
      ownedPartitions: [{ topic: 'x', partitions: [3, 1] }],
      generationId: 42,
      rackId: 'az-1'
    }
    for (let version = 0; version <= SUBSCRIPTION_MAX_VERSION; version++) {
      const decoded = decodeSubscription(encodeSubscription(full, version))
      assert.deepStrictEqual(decoded, {
        version,
        topics: full.topics,
        userData: full.userData,
        ownedPartitions: version >= 1 ? full.ownedPartitions : [],
        generationId: version >= 2 ? full.generationId : -1,
        rackId: version >= 3 ? full.rackId : null
      }, `v${version}`)
      assert.deepStrictEqual(encodeSubscription(decoded, version), encodeSubscription(full, version), `v${version} re-encodes the same`)
    }
    // Nullable fields stay null.
    assert.deepStrictEqual(decodeSubscription(encodeSubscription({ topics: [], userData: null, rackId: null })), {
      version: 3, topics: [], userData: null, ownedPartitions: [], generationId: -1, rackId: null
    })
  })

  test('a newer version is read with the fields we know, as Java does', () => {
    const v3 = hex(JAVA_SUBSCRIPTION_V3)
    // v7, with a field appended that we do not know.
    const v7 = Buffer.concat([hex('0007'), v3.subarray(2), hex('00000063 0003 616263')])
    const decoded = decodeSubscription(v7)
    assert.equal(decoded.version, 7)
    assert.deepStrictEqual({ ...decoded, version: 3 }, decodeSubscription(v3))
  })

  test('bad bytes are a ProtocolError', () => {
    const v3 = hex(JAVA_SUBSCRIPTION_V3)
    for (let size = 0; size < v3.length; size++) {
      assert.throws(() => decodeSubscription(v3.subarray(0, size)), ProtocolError, `truncated to ${size} bytes`)
    }
    assert.throws(() => decodeSubscription(hex('ffff 00000000 ffffffff')), ProtocolError, 'negative version')
    assert.throws(() => decodeSubscription(hex('0000 7fffffff 0001 61')), ProtocolError, 'topic count beyond the bytes')
    assert.throws(() => decodeSubscription(hex('0000 00000001 7fff 61')), ProtocolError, 'string length beyond the bytes')
    assert.throws(() => decodeSubscription(hex('0000 00000000 7ffffff0')), ProtocolError, 'userData length beyond the bytes')
    assert.throws(() => decodeSubscription(hex('0000 ffffffff ffffffff')), ProtocolError, 'null topics')
  })

  test('versions kafkats does not write are refused', () => {
    assert.throws(() => encodeSubscription({ topics: [] }, SUBSCRIPTION_MAX_VERSION + 1), ProtocolError)
    assert.throws(() => encodeSubscription({ topics: [] }, -1), ProtocolError)
  })
})

describe('assignment', () => {
  test('v0, by hand', () => {
    const bytes = Buffer.concat([
      hex('0000'), // version 0
      hex('00000001 0001 74 00000001 00000001'), // assignedPartitions: t [1]
      hex('ffffffff') // userData: null
    ])
    assert.deepStrictEqual(encodeAssignment({ assignedPartitions: [{ topic: 't', partitions: [1] }] }, 0), bytes)
    assert.deepStrictEqual(decodeAssignment(bytes), { version: 0, assignedPartitions: [{ topic: 't', partitions: [1] }], userData: null })
  })

  test('v3, by hand', () => {
    const assignment: ConsumerProtocolAssignment = {
      assignedPartitions: [{ topic: 'ab', partitions: [0, 2] }],
      userData: Buffer.from([0xaa])
    }
    const bytes = Buffer.concat([
      hex('0003'), // version 3
      hex('00000001 0002 6162 00000002 00000000 00000002'), // assignedPartitions: ab [0, 2]
      hex('00000001 aa') // userData: 1 byte
    ])
    assert.deepStrictEqual(encodeAssignment(assignment, 3), bytes)
    assert.deepStrictEqual(encodeAssignment(assignment), bytes, 'v3 is the default version')
    assert.deepStrictEqual(decodeAssignment(bytes), { ...assignment, version: 3 })
  })

  test('decodes and writes the Java client\'s v3 bytes', () => {
    const expected = {
      version: 3,
      assignedPartitions: [{ topic: 'orders', partitions: [1, 3] }, { topic: 'audit', partitions: [0] }],
      userData: null
    }
    assert.deepStrictEqual(decodeAssignment(hex(JAVA_ASSIGNMENT_V3)), expected)
    assert.equal(encodeAssignment(expected).toString('hex'), JAVA_ASSIGNMENT_V3)
  })

  test('round-trips at every version', () => {
    const assignment = { assignedPartitions: [{ topic: 'x', partitions: [0] }, { topic: 'y', partitions: [4, 2] }], userData: Buffer.from('hi') }
    for (let version = 0; version <= ASSIGNMENT_MAX_VERSION; version++) {
      const bytes = encodeAssignment(assignment, version)
      assert.equal(bytes.readInt16BE(0), version)
      assert.deepStrictEqual(decodeAssignment(bytes), { ...assignment, version }, `v${version}`)
    }
  })

  test('a newer version is read with the fields we know', () => {
    const v9 = Buffer.concat([hex('0009'), hex(JAVA_ASSIGNMENT_V3).subarray(2), hex('01020304')])
    assert.deepStrictEqual(decodeAssignment(v9), { ...decodeAssignment(hex(JAVA_ASSIGNMENT_V3)), version: 9 })
  })

  test('empty bytes (the leader assigned this member nothing) are an empty assignment', () => {
    assert.deepStrictEqual(decodeAssignment(Buffer.alloc(0)), { version: 0, assignedPartitions: [], userData: null })
  })

  test('bad bytes are a ProtocolError', () => {
    const v3 = hex(JAVA_ASSIGNMENT_V3)
    for (let size = 1; size < v3.length; size++) {
      assert.throws(() => decodeAssignment(v3.subarray(0, size)), ProtocolError, `truncated to ${size} bytes`)
    }
    assert.throws(() => decodeAssignment(hex('8000 00000000 ffffffff')), ProtocolError, 'negative version')
    assert.throws(() => decodeAssignment(hex('0000 00000001 0001 74 7fffffff')), ProtocolError, 'partition count beyond the bytes')
    assert.throws(() => encodeAssignment({ assignedPartitions: [] }, ASSIGNMENT_MAX_VERSION + 1), ProtocolError)
  })
})

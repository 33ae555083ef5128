import { test, describe, mock } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Partitioners, type PartitionMetadata } from 'kafkajs'
import {
  createPartitioner,
  DefaultPartitioner,
  KafkajsPartitioner,
  RoundRobinPartitioner,
  kafkajsLegacyMurmur2,
  type Partitioner,
  type PartitionerInput
} from '../../producer/partitioners'
import { KafkaTsError } from '../../protocol/errors'
import { murmur2 } from '../../protocol/murmur2'

function utf8 (text: string): Buffer { return Buffer.from(text, 'utf8') }
function hex (bytes: string): Buffer { return Buffer.from(bytes, 'hex') }
/** The first `length` letters of the alphabet. */
function ascii (length: number): Buffer { return Buffer.from('abcdefghijklmnopqrst'.slice(0, length)) }
/** 1000 bytes, byte i = (i * 31 + 7) & 0xff. */
function longKey (): Buffer {
  const key = Buffer.alloc(1000)
  for (let i = 0; i < key.length; i++) key[i] = (i * 31 + 7) & 0xff
  return key
}
function range (count: number): number[] { return Array.from({ length: count }, (_, i) => i) }

function input (partitionCount: number, key: Buffer | null, availablePartitions: readonly number[] = range(partitionCount), topic = 't'): PartitionerInput {
  return { topic, key, value: null, partitionCount, availablePartitions }
}

/*
 * Partitions chosen by Kafka's own Java code, not by ours: a throwaway program (kept outside the
 * repository, in /tmp) read each key's bytes and printed
 *   org.apache.kafka.common.utils.Utils.toPositive(Utils.murmur2(keyBytes)) % n
 * for n = 1, 3, 6, 7, 100, run against kafka-clients-4.4.0.jar (java 17). The keys cover every
 * length 0..20 (so every murmur2 tail), multi-byte UTF-8, binary bytes >= 0x80 (Java's signed
 * bytes), a 43-byte sentence and a 1000-byte key.
 */
const partitionCounts = [1, 3, 6, 7, 100]
const javaVectors: Array<[Buffer, number[]]> = [
  [ascii(0), [0, 0, 3, 2, 81]],
  [ascii(1), [0, 1, 4, 5, 24]],
  [ascii(2), [0, 2, 2, 0, 34]],
  [ascii(3), [0, 0, 3, 4, 7]],
  [ascii(4), [0, 2, 2, 5, 0]],
  [ascii(5), [0, 1, 1, 4, 41]],
  [ascii(6), [0, 0, 0, 5, 8]],
  [ascii(7), [0, 1, 1, 4, 73]],
  [ascii(8), [0, 0, 3, 0, 85]],
  [ascii(9), [0, 0, 0, 1, 38]],
  [ascii(10), [0, 1, 1, 6, 47]],
  [ascii(11), [0, 2, 5, 2, 99]],
  [ascii(12), [0, 2, 5, 6, 11]],
  [ascii(13), [0, 2, 5, 4, 55]],
  [ascii(14), [0, 0, 0, 4, 12]],
  [ascii(15), [0, 0, 0, 6, 26]],
  [ascii(16), [0, 1, 4, 5, 60]],
  [ascii(17), [0, 1, 1, 2, 15]],
  [ascii(18), [0, 2, 5, 3, 39]],
  [ascii(19), [0, 0, 0, 3, 40]],
  [ascii(20), [0, 1, 1, 1, 5]],
  [utf8('kafka'), [0, 1, 4, 3, 80]],
  [utf8('user-42'), [0, 1, 4, 1, 60]],
  [utf8('order-123456'), [0, 1, 4, 2, 72]],
  [utf8('ü'), [0, 2, 2, 0, 58]],
  [utf8('日本語'), [0, 1, 4, 6, 70]],
  [utf8('🚀'), [0, 1, 1, 6, 25]],
  [utf8('naïve café'), [0, 0, 3, 0, 13]],
  [utf8('Ελληνικά'), [0, 1, 1, 4, 57]],
  [utf8('привет мир'), [0, 2, 5, 4, 37]],
  [hex('ff'), [0, 0, 3, 5, 63]],
  [hex('80'), [0, 2, 2, 1, 92]],
  [hex('00'), [0, 2, 2, 0, 88]],
  [hex('00000000'), [0, 1, 4, 6, 20]],
  [hex('ffffffff'), [0, 2, 5, 6, 29]],
  [hex('7f80ff00'), [0, 2, 5, 2, 95]],
  [hex('0102030405060708090a'), [0, 0, 3, 4, 7]],
  [hex('fefdfcfbfaf9f8'), [0, 1, 4, 1, 56]],
  [hex('deadbeefcafebabe0011223344'), [0, 0, 3, 0, 31]],
  [utf8('The quick brown fox jumps over the lazy dog'), [0, 0, 0, 3, 18]],
  [longKey(), [0, 1, 4, 2, 70]]
]

describe('default partitioner, keyed records: the partitions of the Java client', () => {
  test('every key and partition count matches Java', () => {
    const partitioner = createPartitioner('default', { batchMaxBytes: 16384 })
    for (const [key, expected] of javaVectors) {
      const actual = partitionCounts.map(count => partitioner.partition(input(count, key)))
      assert.deepEqual(actual, expected, `key ${key.toString('hex').slice(0, 40)}`)
    }
  })

  test('hashes over all partitions, even those without a leader', () => {
    const partitioner = createPartitioner('default', { batchMaxBytes: 16384 })
    for (const [key, expected] of javaVectors) {
      // Only partition 0 has a leader: the key still goes where Java sends it.
      assert.equal(partitioner.partition(input(100, key, [0])), expected[4])
      assert.equal(partitioner.partition(input(7, key, [])), expected[3])
    }
  })

  test('an empty key is hashed, not treated as keyless', () => {
    const partitioner = createPartitioner('default', { batchMaxBytes: 16384 })
    for (let i = 0; i < 20; i++) assert.equal(partitioner.partition(input(100, Buffer.alloc(0))), 81)
  })

  test("'kafkajs-default' picks the same partitions as Java for keys", () => {
    const partitioner = createPartitioner('kafkajs-default', { batchMaxBytes: 16384 })
    for (const [key, expected] of javaVectors) {
      assert.deepEqual(partitionCounts.map(count => partitioner.partition(input(count, key))), expected)
    }
  })
})

/** kafkajs's view of a topic: partitions without a leader have leader -1. */
function kafkajsMetadata (partitionCount: number, available: readonly number[]): PartitionMetadata[] {
  return range(partitionCount).map(partitionId => ({
    partitionId,
    leader: available.includes(partitionId) ? 1 : -1,
    partitionErrorCode: 0,
    replicas: [1],
    isr: [1]
  }))
}

function randomKey (): Buffer {
  const kind = Math.random()
  if (kind < 0.7) return randomBytes(Math.floor(Math.random() * 40))
  if (kind < 0.9) return Buffer.from(`user-${Math.floor(Math.random() * 1e9)}`)
  return randomBytes(Math.floor(Math.random() * 500))
}

/** Partition counts with, for each, a list of partitions that have a leader. */
const topologies: Array<[number, number[]]> = [
  [1, [0]],
  [2, [0, 1]],
  [3, [0, 1, 2]],
  [3, [1]],
  [7, [0, 1, 2, 3, 4, 5, 6]],
  [7, [0, 2, 3, 6]],
  [12, []],
  [16, range(16)],
  [100, range(100).filter(p => p % 3 !== 0)],
  [1000, range(1000)]
]
const topologyMetadata = topologies.map(([count, available]) => kafkajsMetadata(count, available))

/** kafkajs reads its counter start from 4 random bytes: make them `start`, big-endian. */
function withKafkajsCounterStart<T> (start: number, run: () => T): T {
  const stub = mock.method(globalThis.crypto, 'getRandomValues', <A extends ArrayBufferView | null>(array: A): A => {
    const bytes = Buffer.from((array as unknown as Uint8Array).buffer, (array as unknown as Uint8Array).byteOffset, (array as unknown as Uint8Array).byteLength)
    bytes.fill(0)
    bytes.writeUInt32BE(start, 0)
    return array
  })
  try {
    return run()
  } finally {
    stub.mock.restore()
  }
}

for (const variant of ['default', 'legacy'] as const) {
  describe(`'kafkajs-${variant}' is byte-identical to kafkajs 2.2.4's ${variant === 'default' ? 'DefaultPartitioner' : 'LegacyPartitioner'}`, () => {
    const createKafkajs = variant === 'default' ? Partitioners.DefaultPartitioner : Partitioners.LegacyPartitioner

    test('10,000 random keys, several partition counts and leader sets', () => {
      const theirs = createKafkajs()
      const ours = createPartitioner(`kafkajs-${variant}`, { batchMaxBytes: 16384 })
      for (let i = 0; i < 10_000; i++) {
        const key = randomKey()
        for (let t = 0; t < topologies.length; t++) {
          const [count, available] = topologies[t]
          const expected = theirs({ topic: 't', partitionMetadata: topologyMetadata[t], message: { key, value: null } })
          const actual = ours.partition(input(count, key, available))
          if (actual !== expected) assert.fail(`key ${key.toString('hex')} over ${count} partitions: kafkajs ${expected}, ours ${actual}`)
        }
      }
    })

    test('keyless records: the same round robin from the same counter start', () => {
      // Starts near 2^31 and 2^32, where kafkajs's toPositive wraps the counter.
      for (const start of [0, 12345, 0x7ffffff0, 0xfffffff0]) {
        const theirs = withKafkajsCounterStart(start, () => {
          const partitioner = createKafkajs()
          // Draw each topic's start while the stub is in place.
          for (const topic of ['a', 'b']) partitioner({ topic, partitionMetadata: kafkajsMetadata(1, [0]), message: { value: null } })
          return partitioner
        })
        const ours = new KafkajsPartitioner(variant, () => start)
        for (const topic of ['a', 'b']) ours.partition(input(1, null, [0], topic))
        for (let i = 0; i < 10_000; i++) {
          const t = (i * 7) % topologies.length
          const [count, available] = topologies[t]
          const topic = i % 3 === 0 ? 'b' : 'a'
          const expected = theirs({ topic, partitionMetadata: topologyMetadata[t], message: { value: null } })
          assert.equal(ours.partition(input(count, null, available, topic)), expected, `record ${i}, start ${start}`)
        }
      }
    })
  })
}

describe('kafkajs legacy murmur2', () => {
  test('is not Java\'s murmur2', () => {
    // It mixes a partial last word in twice, and rounds its products in floating point.
    let differing = 0
    for (const [key] of javaVectors) if (kafkajsLegacyMurmur2(key) !== murmur2(key)) differing++
    assert.ok(differing > javaVectors.length / 2, `${differing} of ${javaVectors.length} differ`)
  })

  test('returns a signed 32-bit integer', () => {
    for (let i = 0; i < 1000; i++) {
      const hash = kafkajsLegacyMurmur2(randomKey())
      assert.equal(hash, hash | 0)
    }
  })
})

/** A randomIndex that replays `picks` (as indexes into the available list) and records each bound. */
function scriptedRandom (picks: number[]): { randomIndex: (bound: number) => number, bounds: number[] } {
  const bounds: number[] = []
  let next = 0
  return {
    bounds,
    randomIndex: bound => {
      bounds.push(bound)
      const pick = picks[next++ % picks.length]
      assert.ok(pick < bound)
      return pick
    }
  }
}

/** Partitions `count` keyless records of `bytes` each, appending each where it was sent. */
function sendKeyless (partitioner: Partitioner, count: number, bytes: number, topicInput: PartitionerInput): number[] {
  const chosen: number[] = []
  for (let i = 0; i < count; i++) {
    const partition = partitioner.partition(topicInput)
    partitioner.onAppend?.(topicInput.topic, partition, bytes)
    chosen.push(partition)
  }
  return chosen
}

describe('default partitioner, keyless records: uniform sticky (KIP-794)', () => {
  test('stays on one partition until batchMaxBytes bytes were appended to it, then switches', () => {
    const random = scriptedRandom([2, 5, 0])
    const partitioner = new DefaultPartitioner(1000, random.randomIndex)
    const topic = input(6, null)
    // 100-byte records: 10 fill the 1000 bytes, the 11th goes to the next partition.
    assert.deepEqual(sendKeyless(partitioner, 25, 100, topic), [
      ...Array(10).fill(2), ...Array(10).fill(5), ...Array(5).fill(0)
    ])
    assert.deepEqual(random.bounds, [6, 6, 6])
  })

  test('does not switch before batchMaxBytes, switches on the record that reaches it', () => {
    const random = scriptedRandom([1, 3])
    const partitioner = new DefaultPartitioner(1000, random.randomIndex)
    const topic = input(4, null)
    assert.deepEqual(sendKeyless(partitioner, 3, 333, topic), [1, 1, 1]) // 999 bytes
    assert.deepEqual(sendKeyless(partitioner, 1, 1, topic), [1]) // 1000 bytes: switch after this one
    assert.deepEqual(sendKeyless(partitioner, 1, 1, topic), [3])
  })

  test('a record bigger than batchMaxBytes gets a partition to itself', () => {
    const random = scriptedRandom([0, 1, 2])
    const partitioner = new DefaultPartitioner(1000, random.randomIndex)
    assert.deepEqual(sendKeyless(partitioner, 3, 5000, input(3, null)), [0, 1, 2])
  })

  test('bytes appended to other partitions do not count', () => {
    const random = scriptedRandom([1, 2])
    const partitioner = new DefaultPartitioner(1000, random.randomIndex)
    const topic = input(3, null)
    assert.equal(partitioner.partition(topic), 1)
    partitioner.onAppend('t', 0, 5000)
    partitioner.onAppend('other-topic', 1, 5000)
    assert.equal(partitioner.partition(topic), 1)
    partitioner.onAppend('t', 1, 1000)
    assert.equal(partitioner.partition(topic), 2)
  })

  test('topics are sticky independently', () => {
    const random = scriptedRandom([0, 1, 2, 3])
    const partitioner = new DefaultPartitioner(1000, random.randomIndex)
    assert.equal(partitioner.partition(input(4, null, range(4), 'a')), 0)
    assert.equal(partitioner.partition(input(4, null, range(4), 'b')), 1)
    partitioner.onAppend('a', 0, 1000)
    assert.equal(partitioner.partition(input(4, null, range(4), 'b')), 1)
    assert.equal(partitioner.partition(input(4, null, range(4), 'a')), 2)
  })

  test('only picks partitions that have a leader', () => {
    const partitioner = createPartitioner('default', { batchMaxBytes: 500 })
    const available = [1, 4, 5]
    const chosen = sendKeyless(partitioner, 20_000, 100, input(8, null, available))
    assert.deepEqual([...new Set(chosen)].sort((a, b) => a - b), available)
  })

  test('leaves a sticky partition that lost its leader', () => {
    const random = scriptedRandom([0, 1])
    const partitioner = new DefaultPartitioner(1000, random.randomIndex)
    assert.equal(partitioner.partition(input(3, null, [0, 1, 2])), 0)
    // Metadata changed: partition 0 has no leader; the choice is among [1, 2].
    assert.equal(partitioner.partition(input(3, null, [1, 2])), 2)
    assert.deepEqual(random.bounds, [3, 2])
    // A new metadata array that still holds the partition keeps it.
    assert.equal(partitioner.partition(input(3, null, [0, 2])), 2)
  })

  test('with no partition leader at all, picks among all partitions', () => {
    const random = scriptedRandom([4])
    const partitioner = new DefaultPartitioner(1000, random.randomIndex)
    assert.equal(partitioner.partition(input(5, null, [])), 4)
    assert.deepEqual(random.bounds, [5])
  })

  test('over many records the distribution is roughly uniform', () => {
    const partitioner = createPartitioner('default', { batchMaxBytes: 1000 })
    const counts = new Array(6).fill(0)
    // 10,000 stints of 10 records each.
    for (const partition of sendKeyless(partitioner, 100_000, 100, input(6, null))) counts[partition]++
    for (const count of counts) assert.ok(Math.abs(count - 100_000 / 6) < 100_000 / 6 * 0.1, `counts ${counts.join(',')}`)
  })

  test('keyed records in between keep their hash partition', () => {
    const partitioner = createPartitioner('default', { batchMaxBytes: 1000 })
    for (let i = 0; i < 100; i++) {
      partitioner.partition(input(100, null))
      assert.equal(partitioner.partition(input(100, utf8('kafka'))), 80)
    }
  })
})

describe('round-robin partitioner', () => {
  test('cycles through the partitions that have a leader, keyed or not', () => {
    const partitioner = createPartitioner('round-robin', { batchMaxBytes: 1000 })
    const chosen = range(9).map(i => partitioner.partition(input(5, i % 2 === 0 ? null : utf8(`key-${i}`), [0, 2, 3])))
    assert.deepEqual(chosen, [0, 2, 3, 0, 2, 3, 0, 2, 3])
  })

  test('keeps one counter per topic, starting at 0', () => {
    const partitioner = new RoundRobinPartitioner()
    assert.equal(partitioner.partition(input(3, null, range(3), 'a')), 0)
    assert.equal(partitioner.partition(input(3, null, range(3), 'a')), 1)
    assert.equal(partitioner.partition(input(3, null, range(3), 'b')), 0)
    assert.equal(partitioner.partition(input(3, null, range(3), 'a')), 2)
  })

  test('follows the leader set as it changes', () => {
    const partitioner = new RoundRobinPartitioner()
    assert.deepEqual(range(4).map(() => partitioner.partition(input(4, null))), [0, 1, 2, 3])
    // Counter is 4 now: 4 % 2 = 0 → partition 1, then 3, 1.
    assert.deepEqual(range(3).map(() => partitioner.partition(input(4, null, [1, 3]))), [1, 3, 1])
  })

  test('with no partition leader at all, cycles through all partitions', () => {
    const partitioner = new RoundRobinPartitioner()
    assert.deepEqual(range(5).map(() => partitioner.partition(input(3, null, []))), [0, 1, 2, 0, 1])
  })
})

test('a producer takes every partitioner by name', async () => {
  const { Client } = await import('../../index')
  const client = new Client({ bootstrap: ['127.0.0.1:1'] })
  try {
    for (const partitioner of ['default', 'round-robin', 'kafkajs-default', 'kafkajs-legacy'] as const) {
      assert.doesNotThrow(() => client.producer({ partitioner }), `partitioner '${partitioner}'`)
    }
    assert.throws(() => client.producer({ partitioner: 'murmur3' as never }), RangeError)
  } finally {
    await client.close()
  }
})

describe('createPartitioner', () => {
  test("no option is 'default'", () => {
    assert.ok(createPartitioner(undefined, { batchMaxBytes: 1000 }) instanceof DefaultPartitioner)
    assert.ok(createPartitioner('default', { batchMaxBytes: 1000 }) instanceof DefaultPartitioner)
  })

  test('wraps a function', () => {
    const seen: PartitionerInput[] = []
    const partitioner = createPartitioner(topicInput => { seen.push(topicInput); return topicInput.partitionCount - 1 }, { batchMaxBytes: 1000 })
    assert.equal(partitioner.partition(input(9, utf8('k'))), 8)
    assert.equal(seen.length, 1)
    assert.equal(partitioner.onAppend, undefined)
  })

  test('uses a Partitioner object as it is', () => {
    const custom: Partitioner = { partition: () => 3, onAppend: () => {} }
    assert.equal(createPartitioner(custom, { batchMaxBytes: 1000 }), custom)
  })

  test('refuses an unknown option with a typed error', () => {
    assert.throws(() => createPartitioner('murmur3' as never, { batchMaxBytes: 1000 }), (error: unknown) => error instanceof KafkaTsError)
  })

  test('a topic without partitions is a typed error, not NaN', () => {
    for (const option of ['default', 'round-robin', 'kafkajs-default', 'kafkajs-legacy'] as const) {
      const partitioner = createPartitioner(option, { batchMaxBytes: 1000 })
      assert.throws(() => partitioner.partition(input(0, utf8('k'), [])), (error: unknown) => error instanceof KafkaTsError)
    }
  })
})

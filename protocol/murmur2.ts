/**
 * murmur2 exactly as Kafka's Java client computes it (`Utils.murmur2`, seed 0x9747b28c),
 * so a keyed record lands on the same partition as it would from a Java producer.
 *
 * Java works on signed 32-bit ints with wrapping multiplication: `Math.imul` and `| 0`
 * give the same bits here.
 */
const SEED = 0x9747b28c
const M = 0x5bd1e995

/** Kafka's murmur2 of the bytes, as a signed 32-bit int (what Java returns). */
export function murmur2 (data: Uint8Array): number {
  const length = data.length
  let h = (SEED ^ length) | 0
  const length4 = length & ~3
  for (let i = 0; i < length4; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
    k = Math.imul(k, M)
    k ^= k >>> 24
    k = Math.imul(k, M)
    h = Math.imul(h, M) ^ k
  }
  // The tail: Java's switch falls through from 3 to 1.
  const tail = length & 3
  if (tail !== 0) {
    if (tail === 3) h ^= data[length4 + 2] << 16
    if (tail >= 2) h ^= data[length4 + 1] << 8
    h ^= data[length4]
    h = Math.imul(h, M)
  }
  h ^= h >>> 13
  h = Math.imul(h, M)
  h ^= h >>> 15
  return h | 0
}

/** Kafka's `Utils.toPositive`: clears the sign bit (not Math.abs, which differs for MIN_VALUE). */
export function toPositive (n: number): number {
  return n & 0x7fffffff
}

/** The partition Java's default partitioner picks for a non-null key. */
export function javaPartition (key: Uint8Array, numPartitions: number): number {
  return toPositive(murmur2(key)) % numPartitions
}

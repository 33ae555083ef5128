import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { murmur2, toPositive, javaPartition } from '../../protocol/murmur2'

/*
 * Vectors produced by Kafka's own Java code, not by this implementation: a throwaway
 * program (kept outside the repository) called
 *   org.apache.kafka.common.utils.Utils.murmur2(key)
 *   Utils.toPositive(Utils.murmur2(key)) % n   for n = 3, 12, 100
 * with the kafka-clients-4.4.0 jar, for each key below (strings as UTF-8 bytes). The keys
 * cover the empty key, every tail length (1..9 bytes), multi-byte UTF-8, bytes >= 0x80
 * (Java's signed bytes) and long keys.
 */
const vectors: Array<{ label: string, hex: string, murmur2: number, p3: number, p12: number, p100: number }> = [
  { label: '', hex: '', murmur2: 275646681, p3: 0, p12: 9, p100: 81 },
  { label: 'a', hex: '61', murmur2: -1563381124, p3: 1, p12: 4, p100: 24 },
  { label: 'ab', hex: '6162', murmur2: 316155434, p3: 2, p12: 2, p100: 34 },
  { label: 'abc', hex: '616263', murmur2: 479470107, p3: 0, p12: 3, p100: 7 },
  { label: 'abcd', hex: '61626364', murmur2: -1323649548, p3: 2, p12: 8, p100: 0 },
  { label: 'abcde', hex: '6162636465', murmur2: 461995741, p3: 1, p12: 1, p100: 41 },
  { label: 'abcdef', hex: '616263646566', murmur2: 1870650108, p3: 0, p12: 0, p100: 8 },
  { label: 'abcdefg', hex: '61626364656667', murmur2: -346467175, p3: 1, p12: 1, p100: 73 },
  { label: 'abcdefgh', hex: '6162636465666768', murmur2: -955427363, p3: 0, p12: 9, p100: 85 },
  { label: 'abcdefghi', hex: '616263646566676869', murmur2: -619679810, p3: 0, p12: 6, p100: 38 },
  { label: 'kafka', hex: '6b61666b61', murmur2: -798503068, p3: 1, p12: 4, p100: 80 },
  { label: 'hello world', hex: '68656c6c6f20776f726c64', murmur2: 1221641059, p3: 1, p12: 7, p100: 59 },
  { label: 'key-1', hex: '6b65792d31', murmur2: 193331640, p3: 0, p12: 0, p100: 40 },
  { label: '0', hex: '30', murmur2: 971027396, p3: 2, p12: 8, p100: 96 },
  { label: 'user-12345', hex: '757365722d3132333435', murmur2: -243491053, p3: 1, p12: 7, p100: 95 },
  { label: 'ü', hex: 'c3bc', murmur2: 1419834458, p3: 2, p12: 2, p100: 58 },
  { label: '日本語', hex: 'e697a5e69cace8aa9e', murmur2: 1431860170, p3: 1, p12: 10, p100: 70 },
  { label: '🚀 rocket', hex: 'f09f9a8020726f636b6574', murmur2: -1710445744, p3: 1, p12: 4, p100: 4 },
  { label: 'κόσμε', hex: 'cebacf8ccf83cebcceb5', murmur2: 1230415863, p3: 0, p12: 3, p100: 63 },
  { label: 'The quick brown fox jumps over the lazy dog', hex: '54686520717569636b2062726f776e20666f78206a756d7073206f76657220746865206c617a7920646f67', murmur2: 495243318, p3: 0, p12: 6, p100: 18 },
  { label: 'bytes ff', hex: 'ff', murmur2: -311467685, p3: 0, p12: 3, p100: 63 },
  { label: 'bytes 80 81 82', hex: '808182', murmur2: -1975640061, p3: 2, p12: 11, p100: 87 },
  { label: 'bytes 00 00 00 00', hex: '00000000', murmur2: 850957120, p3: 1, p12: 4, p100: 20 },
  { label: 'bytes ff x5', hex: 'ffffffffff', murmur2: -363838622, p3: 0, p12: 6, p100: 26 },
  { label: 'bytes fe fd fc fb fa f9 f8', hex: 'fefdfcfbfaf9f8', murmur2: 1573890256, p3: 1, p12: 4, p100: 56 },
  { label: 'order-0|order-1|order-2|order-3|order-4|order-5|order-6|order-7|order-8|order-9|order-10|order-11|order-12|order-13|order-14|order-15|order-16|order-17|order-18|order-19|order-20|order-21|order-22|order-23|order-24|', hex: '6f726465722d307c6f726465722d317c6f726465722d327c6f726465722d337c6f726465722d347c6f726465722d357c6f726465722d367c6f726465722d377c6f726465722d387c6f726465722d397c6f726465722d31307c6f726465722d31317c6f726465722d31327c6f726465722d31337c6f726465722d31347c6f726465722d31357c6f726465722d31367c6f726465722d31377c6f726465722d31387c6f726465722d31397c6f726465722d32307c6f726465722d32317c6f726465722d32327c6f726465722d32337c6f726465722d32347c', murmur2: 1619685655, p3: 1, p12: 7, p100: 55 },
]

/** Keys too long to list as hex: generated here exactly as the Java program built them. */
const generated: Array<{ label: string, key: Buffer, murmur2: number, p3: number, p12: number, p100: number }> = [
  { label: 'bytes 00..ff, 300 long', key: Buffer.from(Array.from({ length: 300 }, (_, i) => i & 0xff)), murmur2: 1221000034, p3: 1, p12: 10, p100: 34 },
  { label: 'bytes (i*31+7), 1027 long', key: Buffer.from(Array.from({ length: 1027 }, (_, i) => (i * 31 + 7) & 0xff)), murmur2: 60911254, p3: 1, p12: 10, p100: 54 },
]

describe('murmur2 (Java-compatible)', () => {
  test('matches Utils.murmur2 and toPositive(..) % n from the Java client', () => {
    assert.equal(vectors.length, 26)
    for (const v of vectors) {
      const key = Buffer.from(v.hex, 'hex')
      assert.equal(murmur2(key), v.murmur2, `murmur2 of ${v.label}`)
      assert.equal(javaPartition(key, 3), v.p3, `partition of ${v.label} among 3`)
      assert.equal(javaPartition(key, 12), v.p12, `partition of ${v.label} among 12`)
      assert.equal(javaPartition(key, 100), v.p100, `partition of ${v.label} among 100`)
    }
  })

  test('string labels are the UTF-8 bytes of the key', () => {
    for (const v of vectors) {
      if (v.label.startsWith('bytes ')) continue
      assert.equal(Buffer.from(v.label, 'utf8').toString('hex'), v.hex)
    }
  })

  test('long generated keys', () => {
    for (const v of generated) {
      assert.equal(murmur2(v.key), v.murmur2, `murmur2 of ${v.label}`)
      assert.equal(javaPartition(v.key, 3), v.p3)
      assert.equal(javaPartition(v.key, 12), v.p12)
      assert.equal(javaPartition(v.key, 100), v.p100)
    }
  })

  test('toPositive clears the sign bit like Java (not Math.abs)', () => {
    assert.equal(toPositive(-1), 0x7fffffff)
    assert.equal(toPositive(-2147483648), 0)
    assert.equal(toPositive(5), 5)
  })

  test('murmur2 reads a view without looking outside it', () => {
    const frame = Buffer.from('xxkafkayy')
    assert.equal(murmur2(frame.subarray(2, 7)), murmur2(Buffer.from('kafka')))
  })
})

// kafkajs's messages as toKafkaMessages builds them from decoded records: plain objects with
// kafkajs's own enumerable fields, each timestamp and offset its own record's (the timestamp
// string is shared between records of one value only), and a fresh headers object per message.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { toKafkaMessages } from '../../kafkajs/consumer'
import { NO_HEADERS, type KafkaRecord } from '../../protocol/record-batch'

const record = (offset: bigint, timestamp: bigint, headers = NO_HEADERS): KafkaRecord => ({ offset, timestamp, key: null, value: Buffer.from(`v${offset}`), headers })

test('each message carries its own record\'s offset and timestamp as strings, whether timestamps repeat or not', () => {
  const records = [record(7n, 1000n), record(8n, 1000n), record(9n, 1001n), record(10n, 1000n), record(2n ** 63n - 1n, -1n)]
  const messages = toKafkaMessages(records)
  assert.deepEqual(messages.map(m => [m.offset, m.timestamp]), [['7', '1000'], ['8', '1000'], ['9', '1001'], ['10', '1000'], ['9223372036854775807', '-1']])
  assert.deepEqual(messages.map(m => m.value?.toString()), ['v7', 'v8', 'v9', 'v10', 'v9223372036854775807'])
})

test('a message is a plain object: its fields are own and enumerable, and spread and JSON keep them', () => {
  const [message] = toKafkaMessages([record(3n, 5n)])
  assert.equal(Object.getPrototypeOf(message), Object.prototype)
  assert.deepEqual(Object.keys(message), ['magicByte', 'key', 'value', 'timestamp', 'attributes', 'offset', 'headers'])
  assert.deepEqual({ ...message }, { magicByte: 2, key: null, value: Buffer.from('v3'), timestamp: '5', attributes: 0, offset: '3', headers: {} })
  assert.equal(JSON.stringify({ ...message, value: null }), '{"magicByte":2,"key":null,"value":null,"timestamp":"5","attributes":0,"offset":"3","headers":{}}')
})

test('every message gets its own headers object; repeated header keys become arrays and a null value an empty Buffer', () => {
  const messages = toKafkaMessages([
    record(0n, 1n),
    record(1n, 1n),
    record(2n, 1n, [{ key: 'a', value: Buffer.from('1') }, { key: 'b', value: null }, { key: 'a', value: Buffer.from('2') }, { key: 'a', value: Buffer.from('3') }])
  ])
  assert.notEqual(messages[0].headers, messages[1].headers)
  messages[0].headers!.added = Buffer.from('x')
  assert.deepEqual(messages[1].headers, {})
  assert.deepEqual(messages[2].headers, { a: [Buffer.from('1'), Buffer.from('2'), Buffer.from('3')], b: Buffer.alloc(0) })
})

// kafkajs's messages as toKafkaMessages builds them from decoded records: plain objects with
// kafkajs's own enumerable fields, each timestamp and offset its own record's (the timestamp
// string is shared between records of one value only), and a fresh headers object per message.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { KafkaMessageMaker, toKafkaMessages, type KafkaMessage } from '../../kafkajs/messages'
import { controlRecordInput, decodeRecordBatches, encodeRecordBatch, encodeRecordBatchSync, NO_HEADERS, type KafkaRecord, type RecordInput } from '../../protocol/record-batch'
import { legacyMessage, legacyWrapper } from '../support/legacy-messages'

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

// The consumer decodes records straight into these messages (KafkaMessageMaker as the decoder's
// record maker): what it makes must equal what toKafkaMessages makes of the decoded records.
describe('records decoded straight into kafkajs messages', () => {
  const b = (s: string): Buffer => Buffer.from(s)
  const T = 1_700_000_000_000n
  /** The messages of `bytes` both ways: made by the decoder, and from decoded KafkaRecords. */
  async function bothWays (bytes: Buffer): Promise<{ made: unknown[][], fromRecords: unknown[][] }> {
    const made = (await decodeRecordBatches(bytes, { recordMaker: new KafkaMessageMaker() })).map(batch => batch.isControl ? batch.records : batch.records as unknown[])
    const fromRecords = (await decodeRecordBatches(bytes)).map(batch => batch.isControl ? batch.records : toKafkaMessages(batch.records))
    return { made, fromRecords }
  }

  const records: RecordInput[] = [
    { key: null, value: b('a'), timestamp: T },
    { key: b('k'), value: null, timestamp: T },
    { key: b(''), value: b(''), timestamp: T + 3n, headers: [{ key: 'h', value: b('1') }, { key: 'n', value: null }, { key: 'h', value: b('2') }] },
    { value: b('back'), timestamp: T - 7n },
    { value: b('far'), timestamp: T + 2n ** 30n },
    { value: b('same'), timestamp: T }
  ]

  for (const baseOffset of [0n, 2n ** 32n + 5n, 2n ** 53n - 2n ** 31n - 3n, 2n ** 53n - 3n, 2n ** 63n - 10n]) {
    test(`base offset ${baseOffset}: offsets, timestamps, keys, values and headers as toKafkaMessages makes them`, async () => {
      const { made, fromRecords } = await bothWays(encodeRecordBatchSync({ records, baseOffset }))
      assert.deepEqual(made, fromRecords)
      const messages = made[0] as KafkaMessage[]
      assert.deepEqual(messages.map(m => m.offset), records.map((_, i) => String(baseOffset + BigInt(i))))
      assert.deepEqual(messages.map(m => m.timestamp), records.map(r => String(r.timestamp)))
      assert.deepEqual(messages[2].headers, { h: [b('1'), b('2')], n: Buffer.alloc(0) })
      assert.deepEqual(Object.keys(messages[0]), ['magicByte', 'key', 'value', 'timestamp', 'attributes', 'offset', 'headers'])
      assert.notEqual(messages[0].headers, messages[1].headers)
    })
  }

  test('timestamps far from the base, and base timestamps beyond 2^53 or none (-1)', async () => {
    const odd: RecordInput[] = [{ value: b('x'), timestamp: 2n ** 60n }, { value: b('y'), timestamp: 2n ** 60n + 2n ** 40n }, { value: b('z'), timestamp: 2n ** 60n - 1n }]
    for (const bytes of [encodeRecordBatchSync({ records: odd }), encodeRecordBatchSync({ records: [{ value: b('x'), timestamp: -1n }, { value: b('y'), timestamp: -1n }] })]) {
      const { made, fromRecords } = await bothWays(bytes)
      assert.deepEqual(made, fromRecords)
    }
  })

  test('log-append time: every message has the batch\'s maxTimestamp', async () => {
    const { made, fromRecords } = await bothWays(encodeRecordBatchSync({ records, timestampType: 'log-append', baseOffset: 9n }))
    assert.deepEqual(made, fromRecords)
    assert.ok((made[0] as KafkaMessage[]).every(m => m.timestamp === (made[0][0] as KafkaMessage).timestamp))
  })

  for (const compression of ['gzip', 'lz4', 'zstd'] as const) {
    test(`${compression} batches among transaction markers: data batches become messages, markers stay records`, async () => {
      const bytes = Buffer.concat([
        await encodeRecordBatch({ records, compression, baseOffset: 100n, transactional: true, producerId: 4n, producerEpoch: 0 }),
        encodeRecordBatchSync({ records: [controlRecordInput('commit', 2, T)], control: true, transactional: true, producerId: 4n, producerEpoch: 0, baseOffset: 106n }),
        await encodeRecordBatch({ records: records.slice(0, 2), compression, baseOffset: 107n })
      ])
      const { made, fromRecords } = await bothWays(bytes)
      assert.deepEqual(made, fromRecords)
      assert.deepEqual(made.map(batch => batch.map(m => (m as { offset: unknown }).offset)), [['100', '101', '102', '103', '104', '105'], [106n], ['107', '108']])
      const [, marker] = await decodeRecordBatches(bytes, { recordMaker: new KafkaMessageMaker() })
      assert.equal(marker.controlRecord?.type, 'commit')
    })
  }

  test('legacy message sets (magic 0 and 1, plain and compressed) are made over from their decoded records', async () => {
    const bytes = Buffer.concat([
      legacyMessage(0, { offset: 0n, key: b('k0'), value: b('v0') }),
      legacyMessage(1, { offset: 1n, value: null, timestamp: 1000n }),
      await legacyWrapper(1, 'lz4', 4n, [{ value: b('1'), timestamp: 10n }, { key: b('k'), value: b('2'), timestamp: 12n }, { value: b('3'), timestamp: 12n }])
    ])
    const { made, fromRecords } = await bothWays(bytes)
    assert.deepEqual(made, fromRecords)
    assert.deepEqual(made.flat().map(m => [(m as KafkaMessage).offset, (m as KafkaMessage).timestamp]), [['0', '-1'], ['1', '1000'], ['2', '10'], ['3', '12'], ['4', '12']])
  })

  test('offsetOf gives a made message\'s offset back as a bigint', async () => {
    const maker = new KafkaMessageMaker()
    const [batch] = await decodeRecordBatches(encodeRecordBatchSync({ records, baseOffset: 2n ** 53n + 7n }), { recordMaker: maker })
    assert.deepEqual(batch.records.map(m => maker.offsetOf(m as unknown as KafkaMessage)), records.map((_, i) => 2n ** 53n + 7n + BigInt(i)))
  })
})

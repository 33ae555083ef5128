// kafkajs's error classes as applications match on them: name (and constructor name),
// instanceof chain, retriable, the fields each constructor takes, cause and messages.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as kjs from '../../kafkajs/index'
import { createErrorFromCode } from '../../kafkajs/errors'

const cases: Array<[string, Error, string[], boolean | undefined]> = [
  ['KafkaJSOffsetOutOfRange', new kjs.KafkaJSOffsetOutOfRange(createErrorFromCode(1), { topic: 't', partition: 2 }), ['KafkaJSProtocolError', 'KafkaJSError'], false],
  ['KafkaJSMemberIdRequired', new kjs.KafkaJSMemberIdRequired(createErrorFromCode(79), { memberId: 'm' }), ['KafkaJSProtocolError', 'KafkaJSError'], false],
  ['KafkaJSConnectionError', new kjs.KafkaJSConnectionError('down', { broker: 'b:1', code: 'ECONNREFUSED' }), ['KafkaJSError'], true],
  ['KafkaJSConnectionClosedError', new kjs.KafkaJSConnectionClosedError('closed', { host: 'h', port: 1 }), ['KafkaJSConnectionError', 'KafkaJSError'], true],
  ['KafkaJSRequestTimeoutError', new kjs.KafkaJSRequestTimeoutError('late', { broker: 'b:1', correlationId: 3, createdAt: 4, sentAt: 5, pendingDuration: 6 }), ['KafkaJSError'], true],
  ['KafkaJSMetadataNotLoaded', new kjs.KafkaJSMetadataNotLoaded('no metadata', { retriable: false }), ['KafkaJSError'], false],
  ['KafkaJSTopicMetadataNotLoaded', new kjs.KafkaJSTopicMetadataNotLoaded('no topic', { topic: 't' }), ['KafkaJSMetadataNotLoaded', 'KafkaJSError'], true],
  ['KafkaJSStaleTopicMetadataAssignment', new kjs.KafkaJSStaleTopicMetadataAssignment('stale', { topic: 't', unknownPartitions: [1] }), ['KafkaJSError'], true],
  ['KafkaJSServerDoesNotSupportApiKey', new kjs.KafkaJSServerDoesNotSupportApiKey('old', { apiKey: 1, apiName: 'Fetch' }), ['KafkaJSNonRetriableError', 'KafkaJSError'], false],
  ['KafkaJSBrokerNotFound', new kjs.KafkaJSBrokerNotFound('Could not find the leader for the partition'), ['KafkaJSError'], true],
  ['KafkaJSPartialMessageError', new kjs.KafkaJSPartialMessageError('partial'), ['KafkaJSNonRetriableError', 'KafkaJSError'], false],
  ['KafkaJSSASLAuthenticationError', new kjs.KafkaJSSASLAuthenticationError('SASL PLAIN authentication failed'), ['KafkaJSNonRetriableError', 'KafkaJSError'], false],
  ['KafkaJSGroupCoordinatorNotFound', new kjs.KafkaJSGroupCoordinatorNotFound('none'), ['KafkaJSNonRetriableError', 'KafkaJSError'], false],
  ['KafkaJSNotImplemented', new kjs.KafkaJSNotImplemented('LZ4'), ['KafkaJSNonRetriableError', 'KafkaJSError'], false],
  ['KafkaJSTimeout', new kjs.KafkaJSTimeout('timeout'), ['KafkaJSNonRetriableError', 'KafkaJSError'], false],
  ['KafkaJSLockTimeout', new kjs.KafkaJSLockTimeout('lock'), ['KafkaJSTimeout', 'KafkaJSNonRetriableError', 'KafkaJSError'], false],
  ['KafkaJSUnsupportedMagicByteInMessageSet', new kjs.KafkaJSUnsupportedMagicByteInMessageSet('magic'), ['KafkaJSNonRetriableError', 'KafkaJSError'], false]
]

test('every KafkaJS* class keeps its name, instanceof chain and retriable', () => {
  for (const [name, error, bases, retriable] of cases) {
    assert.equal(error.name, name)
    assert.equal(error.constructor.name, name)
    assert.ok(error instanceof (kjs as unknown as Record<string, new (...args: never[]) => Error>)[name], `${name} instanceof itself`)
    for (const base of bases) assert.ok(error instanceof (kjs as unknown as Record<string, new (...args: never[]) => Error>)[base], `${name} instanceof ${base}`)
    assert.ok(error instanceof Error)
    assert.equal((error as kjs.KafkaJSError).retriable, retriable, `${name}.retriable`)
    assert.match(String(error.stack), new RegExp(name === 'KafkaJSConnectionClosedError' ? 'closed' : '.'))
  }
})

test('constructor arguments become fields; messages and causes are kept', () => {
  const outOfRange = new kjs.KafkaJSOffsetOutOfRange(createErrorFromCode(1), { topic: 't', partition: 2 })
  assert.deepEqual([outOfRange.topic, outOfRange.partition, outOfRange.type, outOfRange.code], ['t', 2, 'OFFSET_OUT_OF_RANGE', 1])
  const timeout = new kjs.KafkaJSRequestTimeoutError('late', { broker: 'b:1', correlationId: 3, createdAt: 4, sentAt: 5, pendingDuration: 6 })
  assert.deepEqual([timeout.message, timeout.broker, timeout.correlationId, timeout.createdAt, timeout.sentAt, timeout.pendingDuration], ['late', 'b:1', 3, 4, 5, 6])
  const closed = new kjs.KafkaJSConnectionClosedError('closed', { host: 'h', port: 1 })
  assert.deepEqual([closed.broker, closed.host, closed.port], ['h:1', 'h', 1])
  assert.deepEqual([new kjs.KafkaJSConnectionError('x', { broker: 'b', code: 'E' }).code, new kjs.KafkaJSConnectionError('x').broker], ['E', undefined])
  assert.equal(new kjs.KafkaJSTopicMetadataNotLoaded('x', { topic: 't' }).topic, 't')
  assert.deepEqual(new kjs.KafkaJSStaleTopicMetadataAssignment('x', { topic: 't', unknownPartitions: [1] }).unknownPartitions, [1])
  const api = new kjs.KafkaJSServerDoesNotSupportApiKey('x', { apiKey: 1, apiName: 'Fetch' })
  assert.deepEqual([api.apiKey, api.apiName], [1, 'Fetch'])
  assert.equal(new kjs.KafkaJSMemberIdRequired(createErrorFromCode(79), { memberId: 'm' }).memberId, 'm')
  const cause = new Error('root')
  const wrapped = new kjs.KafkaJSNotImplemented('x', { cause })
  assert.equal(wrapped.cause, cause)
  assert.equal(new kjs.KafkaJSBrokerNotFound({ message: 'from an object' }).message, 'from an object')
})

/**
 * Checks of what users hand the producer: its options at construction, and each record
 * before anything of a send is buffered (client/validate.ts does the messages). A wrong
 * value fails where it was passed, naming the option or the record's index and field.
 */
import { checkBoolean, checkDuration, checkInteger, checkKnownKeys, checkObject, checkOneOf, checkString, describeValue } from '../client/validate'
import type { CompressionCodec } from '../protocol/compression'

const WHERE = 'producer option'
const CODECS: readonly CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
const PARTITIONERS = ['default', 'round-robin', 'kafkajs-default', 'kafkajs-legacy'] as const

export const PRODUCER_OPTION_KEYS = [
  'acks', 'idempotent', 'lingerMs', 'maxBatchBytes', 'batchMaxBytes', 'maxRequestBytes', 'maxBufferedBytes', 'maxBufferedRecords',
  'requestTimeoutMs', 'deliveryTimeoutMs', 'maxRetries', 'retries', 'compression', 'compressionByTopic', 'partitioner',
  'metadataWaitMs', 'allowAutoTopicCreation', 'abortUnknownOutcome', 'transactionalId', 'transactionTimeoutMs', 'serializers'
] as const

/** Old names still taken (deprecated): old → new. */
export const RENAMED_PRODUCER_OPTIONS = { batchMaxBytes: 'maxBatchBytes', retries: 'maxRetries' }

const HINTS: Record<string, string> = {
  linger: 'lingerMs',
  batchSize: 'maxBatchBytes',
  timeout: 'requestTimeoutMs',
  idempotence: 'idempotent',
  createPartitioner: 'partitioner',
  transactionTimeout: 'transactionTimeoutMs',
  autoCreateTopics: 'allowAutoTopicCreation'
}

/** Throws a TypeError/RangeError naming the first wrong producer option. */
export function checkProducerOptions (options: unknown): void {
  if (options === undefined) return
  checkObject('new Producer', 'options', options)
  checkKnownKeys(WHERE, options, PRODUCER_OPTION_KEYS, HINTS)
  checkOneOf(WHERE, 'acks', options.acks, ['all', -1, 0, 1])
  checkBoolean(WHERE, 'idempotent', options.idempotent)
  checkDuration(WHERE, 'lingerMs', options.lingerMs)
  for (const name of ['maxBatchBytes', 'batchMaxBytes', 'maxRequestBytes', 'maxBufferedBytes', 'maxBufferedRecords'] as const) {
    checkInteger(WHERE, name, options[name], { min: 1 })
  }
  for (const name of ['requestTimeoutMs', 'deliveryTimeoutMs', 'transactionTimeoutMs'] as const) {
    checkDuration(WHERE, name, options[name], 1)
  }
  checkDuration(WHERE, 'metadataWaitMs', options.metadataWaitMs)
  checkBoolean(WHERE, 'allowAutoTopicCreation', options.allowAutoTopicCreation)
  for (const name of ['maxRetries', 'retries'] as const) {
    if (options[name] !== Number.POSITIVE_INFINITY) checkInteger(WHERE, name, options[name], { min: 0 })
  }
  checkOneOf(WHERE, 'compression', options.compression, CODECS)
  if (options.compressionByTopic !== undefined) {
    checkObject(WHERE, 'compressionByTopic', options.compressionByTopic)
    for (const [topic, codec] of Object.entries(options.compressionByTopic)) checkOneOf(WHERE, `compressionByTopic["${topic}"]`, codec, CODECS)
  }
  const partitioner = options.partitioner
  if (partitioner !== undefined && typeof partitioner !== 'function' &&
      !(typeof partitioner === 'object' && partitioner !== null && typeof (partitioner as { partition?: unknown }).partition === 'function')) {
    if (typeof partitioner === 'string') checkOneOf(WHERE, 'partitioner', partitioner, PARTITIONERS)
    else throw new TypeError(`${WHERE} partitioner: expected one of ${PARTITIONERS.map(p => `'${p}'`).join(', ')}, a function or an object with partition(), got ${describeValue(partitioner)}`)
  }
  checkOneOf(WHERE, 'abortUnknownOutcome', options.abortUnknownOutcome, ['wait', 'settle'])
  checkString(WHERE, 'transactionalId', options.transactionalId)
  if (options.deliveryTimeoutMs !== undefined && options.requestTimeoutMs !== undefined && (options.deliveryTimeoutMs as number) < (options.requestTimeoutMs as number)) {
    throw new RangeError(`${WHERE} deliveryTimeoutMs: expected at least requestTimeoutMs (${String(options.requestTimeoutMs)}), got ${String(options.deliveryTimeoutMs)}: a record must be allowed one whole request`)
  }
}

const BYTES = 'a Buffer, Uint8Array, string or null'
const TOPIC_NAME = /^[a-zA-Z0-9._-]+$/

/** The last topic name checkRecord found good (strings compare by value, so a copy matches too). */
let lastGoodTopic = ''

function isTopicName (topic: string): boolean {
  if (topic.length > 249 || topic === '.' || topic === '..' || !TOPIC_NAME.test(topic)) return false
  lastGoodTopic = topic
  return true
}

function isBytes (value: unknown): boolean {
  return typeof value === 'string' || value instanceof Uint8Array
}

/**
 * checkRecord for every record of one call. With `indexed`, the error names the failing
 * record's index (\`send() record 2\`): the label is made only then, not once per record.
 */
export function checkRecords (where: string, records: readonly unknown[], indexed: boolean): void {
  let i = 0
  try {
    for (; i < records.length; i++) checkRecord(where, records[i])
  } catch (error) {
    if (indexed) checkRecord(`${where} ${i}`, records[i])
    throw error
  }
}

/**
 * Throws a TypeError naming `where` (e.g. 'send() record 2') and the field when a record is
 * not one the producer can write. Runs for every record of a call before any is buffered.
 */
export function checkRecord (where: string, record: unknown): void {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new TypeError(`${where}: expected a record { topic, value, key?, headers?, partition?, timestamp? }, got ${describeValue(record)}`)
  }
  const r = record as Record<string, unknown>
  if (typeof r.topic !== 'string' || r.topic.length === 0) {
    throw new TypeError(`${where} topic: expected a non-empty string, got ${describeValue(r.topic)}`)
  }
  // Kafka's own rule (Topic.validate): a broker answers INVALID_TOPIC_EXCEPTION for anything else.
  // Records mostly go to the topic of the record before: a name once found good is not tested again.
  if (r.topic !== lastGoodTopic && !isTopicName(r.topic)) {
    throw new RangeError(`${where} topic: expected a Kafka topic name (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'; not '.' or '..'), got ${describeValue(r.topic)}; the broker would refuse it with INVALID_TOPIC_EXCEPTION`)
  }
  if (!('value' in r) || (r.value !== null && !isBytes(r.value))) {
    throw new TypeError(`${where} value: expected ${BYTES} (null for a tombstone), got ${describeValue(r.value)}`)
  }
  if (r.key !== undefined && r.key !== null && !isBytes(r.key)) {
    throw new TypeError(`${where} key: expected ${BYTES}, got ${describeValue(r.key)}`)
  }
  if (r.partition !== undefined) checkInteger(where, 'partition', r.partition, { min: 0, max: 2_147_483_647 })
  const ts = r.timestamp
  if (ts !== undefined && !(typeof ts === 'bigint' || (typeof ts === 'number' && Number.isFinite(ts)) || (ts instanceof Date && !isNaN(ts.getTime())))) {
    throw new TypeError(`${where} timestamp: expected milliseconds since the epoch as a number or bigint, or a Date, got ${describeValue(ts)}`)
  }
  const headers = r.headers
  if (headers === undefined || headers === null) return
  if (Array.isArray(headers)) {
    headers.forEach((header: unknown, i) => {
      if (typeof header !== 'object' || header === null || typeof (header as { key?: unknown }).key !== 'string') {
        throw new TypeError(`${where} headers[${i}]: expected { key: string, value: ${BYTES} }, got ${describeValue(header)}`)
      }
      const value = (header as { value?: unknown }).value
      if (value !== null && !isBytes(value)) throw new TypeError(`${where} headers[${i}].value: expected ${BYTES}, got ${describeValue(value)}`)
    })
    return
  }
  if (typeof headers !== 'object') {
    throw new TypeError(`${where} headers: expected an array of { key, value } or an object { name: value }, got ${describeValue(headers)}`)
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value === null || isBytes(value)) continue
    // kafkajs accepts an array of values for a repeated header.
    if (Array.isArray(value) && value.every(isBytes)) continue
    throw new TypeError(`${where} headers["${name}"]: expected ${BYTES} (or an array of them), got ${describeValue(value)}`)
  }
}

/** The kafkajs call shape `send({ topic, messages })`, refused with the way to write it here. */
export function refuseKafkajsShape (records: unknown): void {
  if (typeof records !== 'object' || records === null || Array.isArray(records)) return
  if (!('messages' in records)) return
  throw new TypeError('send() takes a record { topic, value, key? } or an array of them, not the kafkajs shape { topic, messages }: ' +
    'write producer.send(messages.map(m => ({ topic, ...m }))), or use the kafkajs-compatible API from \'kafkats/kafkajs\'')
}


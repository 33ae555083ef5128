/**
 * What a consumer is configured with, and the checks of it: the option types a user passes
 * (FetchOptions, AssignOptions, run()'s and batches()'s options), the known keys with the
 * names other clients use for them, and the value checks, run before anything is
 * registered so a refused option leaves nothing behind. Shared with group/ and share
 * consumers, which add their own keys to these.
 */
import { checkBoolean, checkDuration, checkFunction, checkInteger, checkKnownKeys, checkObject, checkOneOf, checkSignal, checkString, describeValue, optionKeys } from '../client/validate'
import type { RecordMaker } from '../protocol/record-batch'
import type { ConsumerRecord, Deserializers } from '../client/serializers'
import type { ConsumerBatch, OffsetSpec } from './cursor'

/** What every consumer takes for fetching: sizes, waits, isolation, the rack to fetch from and how much may be buffered. */
export interface FetchOptions {
  /** Which records to read: everything written ('read_uncommitted', the default) or committed transactions only ('read_committed'). */
  isolation?: 'read_uncommitted' | 'read_committed'
  /** How long a broker may hold a Fetch waiting for data (default 500 ms). */
  maxWaitMs?: number
  /** A broker answers a Fetch once it has this many bytes, or after `maxWaitMs` (default 1). */
  minBytes?: number
  /** Most bytes one Fetch response may carry (default 50 MiB, as the Java client). */
  maxBytes?: number
  /**
   * Most bytes per partition per Fetch (default 1 MiB), sent to the broker as it is; a
   * partition that still buffers this much is not fetched again until its records go out.
   */
  maxPartitionBytes?: number
  /** Prefetched, not yet handed out bytes before fetching pauses (default 64 MiB). */
  maxBufferedBytes?: number
  /** This consumer's rack: brokers may point it to a replica in the same rack (KIP-392). */
  rack?: string
  /** Where to go when an offset is out of range: 'earliest', 'latest' (default) or 'none' (an error). */
  offsetReset?: 'earliest' | 'latest' | 'none'
  /**
   * Records a batch holds at most (default 500, as the Java client's max.poll.records):
   * while the application is behind, fetch answers of a partition waiting in the buffer are
   * merged up to it, and an answer holding more is handed out in parts. A record batch (as
   * the producer wrote it) is never split, so one larger than this comes whole.
   */
  maxBatchRecords?: number
  /** The same bound in the memory the decoded records take (default 1 MiB). */
  maxBatchBytes?: number
  /**
   * How long one batch may be out with the application (default 300000, as the Java
   * client's max.poll.interval.ms). Past it a 'processingTimeout' event is emitted, and a
   * group member leaves the group, so its partitions go to other members, and rejoins once
   * the slow handler returned.
   */
  maxProcessingMs?: number
  /**
   * Hand out a batch without records when a fetch answer held only transaction markers or
   * aborted data (default false: such answers only move the position). Its `nextOffset` and
   * `skippedFrom` say what it covered; finishing it commits past the markers at once.
   */
  emptyBatches?: boolean
}


/** The `retry` option of `run()`: a throwing handler's unfinished records are handed again after a backoff, up to `maxRetries` times. */
export interface RunRetryOptions {
  /** Retries of one batch before run() rejects (default: no limit). */
  maxRetries?: number
  /** First wait before handing the records again (default 100 ms); doubles each time. */
  initialMs?: number
  /** Longest wait between retries (default 30000 ms). */
  maxMs?: number
}

/** Options of `consumer.run(options)`: the handler (`eachBatch` or `eachRecord`), how many partitions are handled at once, retries of a throwing handler, and the signal that stops handing out. */
export interface RunOptions<K = Buffer, V = Buffer> {
  /** Called per batch; a batch whose handler returns counts as processed (give this or `eachRecord`). */
  eachBatch?: (batch: ConsumerBatch<K, V>) => Promise<void> | void
  /** Called per record; each record that returns counts as processed (a revoke or a commit sees it). */
  eachRecord?: (record: ConsumerRecord<K, V>, batch: ConsumerBatch<K, V>) => Promise<void> | void
  /** Partitions handled at the same time (default 1); each partition stays in order. */
  partitionsConcurrently?: number
  /**
   * Records handled at the same time across all partitions (docs/concurrent-processing.md).
   * Setting it makes run() call `eachRecord` for several records of a partition at once, as
   * `ordering` allows; what is committed is, per partition, the offset below which every
   * record finished, and the records finished above it go into the commit's metadata, so
   * the partition's next owner skips them. Not with eachBatch or partitionsConcurrently.
   */
  concurrency?: number
  /**
   * With `concurrency`: which records wait for each other. 'key' (default): records of one
   * key in one partition start in offset order, each after the one before finished;
   * 'partition': one record of a partition at a time, in offset order; 'none': any order.
   */
  ordering?: 'key' | 'partition' | 'none'
  /**
   * With `concurrency`: records taken from the consumer and not started yet, at most (default
   * 10000 records, 64 MiB of keys and values). A partition takes no new batch while it holds
   * its share of `records` (split evenly over the partitions held) or tracks `records`
   * above its committed offset, nor does any once the total is reached; its prefetch then
   * fills and its fetching pauses. A batch is taken whole, so a bound is passed by at most one batch.
   */
  maxWaiting?: {
    /** Records waiting at most (default 10000). */
    records?: number
    /** Bytes of their keys and values at most (default 64 MiB). */
    bytes?: number
  }
  /**
   * With `concurrency`: a record whose handler failed (after `retry`'s retries, or at once
   * without `retry`) is handed here and then counts as finished; without it such a record
   * fails run() (the consumer closes, its records in flight finish and are committed). A
   * throw from this hook fails run().
   */
  onDeadLetter?: (record: ConsumerRecord<K, V>, error: unknown, batch: ConsumerBatch<K, V>) => Promise<void> | void
  /**
   * With `concurrency`: the most characters the offset map in a commit's metadata takes
   * (default 4096, Kafka's offset.metadata.max.bytes default). A map that does not fit keeps
   * only the finished records nearest the committed offset: the rest are processed again
   * after a restart or a rebalance, never skipped. Halved for the partition when the broker
   * refuses a map as too large.
   */
  maxMetadataBytes?: number
  /**
   * What a throwing handler does. Without it (the default), run() rejects with the error,
   * the consumer closes and a group member leaves the group. With it, the records that
   * were not processed are handed again after a backoff ('handlerError' event each time),
   * while the partition is still held.
   */
  retry?: boolean | RunRetryOptions
  /**
   * Stops run() gracefully: no batch is handed out after it aborts, handlers already
   * running finish their batch (eachRecord: every record of it), which counts as
   * processed, and run() resolves then. A batch waiting to be retried is not retried; it
   * stays unprocessed. The consumer stays open: close() then commits and leaves.
   */
  signal?: AbortSignal
}

/** Options of `consumer.batches()`. */
export interface BatchesOptions {
  /**
   * Ends the loop gracefully: once it aborts, the next `next()` (the loop asking for the
   * next batch) marks the batch in hand processed and ends the loop instead of handing out
   * another; a loop waiting for records ends at once. The consumer stays open: close() then
   * commits and leaves.
   */
  signal?: AbortSignal
}

/** K and V are what the `deserializers` make of keys and values (Buffer without). */
export interface DeserializerOptions<K = Buffer, V = Buffer> {
  /**
   * Typed keys and values: `{ key, value }`, each with `deserialize(topic, data, headers)`
   * (sync, or a promise), e.g. `deserializers.json<Order>()` (client/serializers.ts). Null
   * stays null. A deserializer that throws ends the consumer with SerializationError
   * (topic, partition, offset); the batch is not marked processed.
   */
  deserializers?: Deserializers<K, V>
}

export interface AssignOptions<K = Buffer, V = Buffer> extends FetchOptions, DeserializerOptions<K, V> {
  /**
   * `leaderEpoch`: the leader epoch the offset was read under (a record's, or a committed
   * offset's): the first fetch then checks it against the leader's log (KIP-320), so a
   * truncation while the consumer was away resumes where the log diverged.
   */
  assign: Array<{
    /** The topic. */
    topic: string
    /** The partition. */
    partition: number
    /** Where to start: an offset, 'earliest', 'latest' or { timestamp }. */
    offset: bigint | OffsetSpec
    /** The leader epoch the offset was read under; none by default (no truncation check). */
    leaderEpoch?: number
  }>
}

/** Where a partition starts or moves to: a bigint offset, 'earliest', 'latest' or { timestamp }. */
function checkOffset (what: string, offset: unknown): void {
  if (typeof offset === 'bigint') {
    if (offset < 0n) throw new RangeError(`${what}: expected an offset ≥ 0n, got ${describeValue(offset)}; use 'earliest' or 'latest' for the ends of the log`)
    return
  }
  if (offset === 'earliest' || offset === 'latest') return
  if (typeof offset === 'object' && offset !== null && 'timestamp' in offset) {
    const ts = (offset as { timestamp: unknown }).timestamp
    if (typeof ts === 'bigint' || (typeof ts === 'number' && Number.isSafeInteger(ts)) || (ts instanceof Date && !isNaN(ts.getTime()))) return
    throw new TypeError(`${what}: expected { timestamp } with a number, bigint or Date, got { timestamp: ${describeValue(ts)} }`)
  }
  const hint = typeof offset === 'number' && Number.isSafeInteger(offset) ? ` (write ${offset}n for offset ${offset})` : ''
  throw new TypeError(`${what}: expected a bigint offset${hint}, 'earliest', 'latest' or { timestamp }, got ${describeValue(offset)}`)
}

/**
 * What records are decoded into instead of KafkaRecords (the kafkajs drop-in's messages):
 * batches then hold what it makes, so deserializers and run() don't apply. Only kafkats's
 * own modules can give it: the option is keyed by this symbol, which no entry point exports.
 */
export const recordMakerOption: unique symbol = Symbol('kafkats.recordMaker')

/** The options the kafkajs drop-in gives a consumer: a user's, plus its record maker. */
export type WithRecordMaker<Options> = Options & { [recordMakerOption]?: RecordMaker }

/** The options every consumer takes (FetchOptions, deserializers), as checkKnownKeys takes them. */
export const CONSUMER_OPTION_KEYS = optionKeys<FetchOptions & DeserializerOptions>()([
  'isolation', 'maxWaitMs', 'minBytes', 'maxBytes', 'maxPartitionBytes', 'maxBufferedBytes', 'rack', 'offsetReset',
  'maxBatchRecords', 'maxBatchBytes', 'maxProcessingMs', 'emptyBatches', 'deserializers'
])

const ASSIGN_OPTION_KEYS = optionKeys<AssignOptions>()([...CONSUMER_OPTION_KEYS, 'assign'])

/** A partition's position (`assign` entries, seek()). */
const POSITION_KEYS = ['topic', 'partition', 'offset', 'leaderEpoch'] as const

/** The names other clients (kafkajs, Java) give these options. */
export const CONSUMER_OPTION_HINTS: Record<string, string> = {
  isolationLevel: 'isolation',
  readUncommitted: 'isolation',
  readCommitted: 'isolation',
  maxWaitTime: 'maxWaitMs',
  maxWaitTimeInMs: 'maxWaitMs',
  fetchMaxWaitMs: 'maxWaitMs',
  maxBytesPerPartition: 'maxPartitionBytes',
  autoOffsetReset: 'offsetReset',
  maxPollRecords: 'maxBatchRecords',
  maxPollIntervalMs: 'maxProcessingMs',
  rackId: 'rack'
}

/** Checks the values of the options every consumer takes (FetchOptions); `where` names the consumer kind. */
export function checkFetchOptions (where: string, options: FetchOptions): void {
  checkObject(where, 'options', options)
  checkOneOf(where, 'isolation', options.isolation, ['read_uncommitted', 'read_committed'])
  checkDuration(where, 'maxWaitMs', options.maxWaitMs)
  checkInteger(where, 'minBytes', options.minBytes, { min: 0, max: 0x7fffffff })
  for (const name of ['maxBytes', 'maxPartitionBytes'] as const) checkInteger(where, name, options[name], { min: 1, max: 0x7fffffff })
  checkInteger(where, 'maxBufferedBytes', options.maxBufferedBytes, { min: 1 })
  checkString(where, 'rack', options.rack)
  checkOneOf(where, 'offsetReset', options.offsetReset, ['earliest', 'latest', 'none'])
  checkInteger(where, 'maxBatchRecords', options.maxBatchRecords, { min: 1 })
  checkInteger(where, 'maxBatchBytes', options.maxBatchBytes, { min: 1 })
  checkDuration(where, 'maxProcessingMs', options.maxProcessingMs, 1)
  checkBoolean(where, 'emptyBatches', options.emptyBatches)
}

/** run()'s options; `signal` stops the loop. */
const RUN_OPTION_KEYS = optionKeys<RunOptions>()(['eachBatch', 'eachRecord', 'partitionsConcurrently', 'retry', 'signal', 'concurrency', 'ordering', 'maxWaiting', 'onDeadLetter', 'maxMetadataBytes'])
const CONCURRENT_ONLY_KEYS = ['ordering', 'maxWaiting', 'onDeadLetter', 'maxMetadataBytes'] as const
const RUN_RETRY_OPTION_KEYS = optionKeys<RunRetryOptions>()(['maxRetries', 'initialMs', 'maxMs'])

export function checkRunOptions (options: RunOptions): void {
  checkObject('run() option', 'options', options)
  checkKnownKeys('run() option', options, RUN_OPTION_KEYS, { eachMessage: 'eachRecord', partitionsConsumedConcurrently: 'partitionsConcurrently' })
  checkFunction('run() option', 'eachBatch', options.eachBatch)
  checkFunction('run() option', 'eachRecord', options.eachRecord)
  if ((options.eachBatch === undefined) === (options.eachRecord === undefined)) throw new TypeError('run() needs exactly one of eachBatch and eachRecord')
  checkInteger('run() option', 'partitionsConcurrently', options.partitionsConcurrently, { min: 1, max: 10_000 })
  checkConcurrentOptions(options)
  checkSignal('run() option', 'signal', options.signal)
  const retry = options.retry
  if (retry === undefined || typeof retry === 'boolean') {
    checkBoolean('run() option', 'retry', retry)
    return
  }
  checkObject('run() option', 'retry', retry)
  checkKnownKeys('run() option retry', retry, RUN_RETRY_OPTION_KEYS)
  checkInteger('run() option', 'retry.maxRetries', retry.maxRetries, { min: 0 })
  checkDuration('run() option', 'retry.initialMs', retry.initialMs)
  checkDuration('run() option', 'retry.maxMs', retry.maxMs)
}

/** Consumer.assigned()'s options: the keys, and each `assign` entry (the fetch options' values are checked by the constructor). */
export function checkAssignOptions<K, V> (options: AssignOptions<K, V>): void {
  checkObject('client.consumer()', 'options', options)
  checkKnownKeys('consumer option', options, ASSIGN_OPTION_KEYS, CONSUMER_OPTION_HINTS)
  if (!Array.isArray(options.assign)) throw new TypeError(`consumer option assign: expected an array of { topic, partition, offset }, got ${describeValue(options.assign)}`)
  options.assign.forEach((a, i) => {
    checkObject('consumer option', `assign[${i}]`, a)
    checkKnownKeys(`consumer option assign[${i}]`, a, POSITION_KEYS)
    checkString('consumer option', `assign[${i}].topic`, a.topic)
    if (a.topic === undefined) throw new TypeError(`consumer option assign[${i}].topic: expected a non-empty string, got undefined`)
    checkInteger('consumer option', `assign[${i}].partition`, a.partition, { min: 0 })
    if (a.partition === undefined) throw new TypeError(`consumer option assign[${i}].partition: expected an integer ≥ 0, got undefined`)
    checkOffset(`consumer option assign[${i}].offset`, a.offset)
    checkInteger('consumer option', `assign[${i}].leaderEpoch`, a.leaderEpoch, { min: 0 })
  })
}

/** seek()'s target (its topic-partition is checked against the assignment by seek() itself). */
export function checkSeekTarget (target: { topic: string, partition: number, offset: bigint | OffsetSpec, leaderEpoch?: number }): void {
  checkObject('seek()', 'target', target)
  checkKnownKeys('seek() target', target, POSITION_KEYS)
  checkOffset('seek() offset', target.offset)
  checkInteger('seek()', 'leaderEpoch', target.leaderEpoch, { min: 0 })
}

/** The `batches()` options. */
export function checkBatchesOptions (options: BatchesOptions): void {
  checkObject('batches()', 'options', options as unknown)
  checkKnownKeys('batches() option', options, ['signal'])
  checkSignal('batches() option', 'signal', options.signal)
}

/** run()'s record-level concurrency options (docs/concurrent-processing.md). */
function checkConcurrentOptions (options: RunOptions): void {
  if (options.concurrency === undefined) {
    const stray = CONCURRENT_ONLY_KEYS.find(k => options[k] !== undefined)
    if (stray !== undefined) throw new TypeError(`run() option ${stray}: applies only with concurrency (records handled at once across partitions); set concurrency too, or leave ${stray} out`)
    return
  }
  checkInteger('run() option', 'concurrency', options.concurrency, { min: 1, max: 100_000 })
  if (options.eachBatch !== undefined) throw new TypeError('run() option concurrency: works per record, with eachRecord; eachBatch handles a partition\'s batch at a time (use partitionsConcurrently for that)')
  if (options.partitionsConcurrently !== undefined) throw new TypeError('run() option partitionsConcurrently: not with concurrency, which already bounds the records handled at once across all partitions')
  checkOneOf('run() option', 'ordering', options.ordering, ['key', 'partition', 'none'])
  if (options.maxWaiting !== undefined) {
    checkObject('run() option', 'maxWaiting', options.maxWaiting)
    checkKnownKeys('run() option maxWaiting', options.maxWaiting, ['records', 'bytes'])
    checkInteger('run() option', 'maxWaiting.records', options.maxWaiting.records, { min: 1 })
    checkInteger('run() option', 'maxWaiting.bytes', options.maxWaiting.bytes, { min: 1 })
  }
  checkFunction('run() option', 'onDeadLetter', options.onDeadLetter)
  checkInteger('run() option', 'maxMetadataBytes', options.maxMetadataBytes, { min: 64, max: 0x7fff })
}

/**
 * Producer: records in, acknowledgements out. This file is the public API, the send
 * paths (checks, backpressure, partitioning), acting on each batch's outcome, and the
 * wiring of the parts beside it: record-input.ts (record → RecordInput), accumulator.ts
 * (queues, open batches, buffer accounting), topic-wait.ts (records of topics not in
 * metadata yet), drain.ts (what is sendable to which leader, and when to look again;
 * drain-schedule.ts, due-timer.ts), expiry.ts (the delivery timeout and aborts),
 * partition-queue.ts (one partition's state), outcomes.ts (what an answer means),
 * sequencing.ts and identity.ts (idempotence), sink.ts (transport per broker). Timing
 * reads the client's clock (client.clock), so tests move it (kafkats/testing FakeClock).
 *
 *   record → partitioner → Accumulator → PartitionQueue (open batch, linger) → Sink of
 *          the leader → Produce request → outcome → the record's promise or callback
 *
 * Idempotence is on by default (acks=all): the producer gets a producer id and epoch
 * (InitProducerId) and every batch carries a per-partition sequence, so the broker
 * drops duplicates of retried batches and answers them with the original offset.
 *
 * Invariant 1 — an acknowledged record is in the log, at the offset we reported — rests
 * on three rules kept here and in the files above (INTERNALS.md, "Produce path", walks through them):
 * 1. A batch whose request was written but got no definite answer is *ambiguous*. It is
 *    retried with the same producer id, epoch and sequence until the outcome is known;
 *    no abort, delivery timeout or retry limit fails it, and the partition's later
 *    batches wait behind it.
 * 2. A sent batch's sequence is never given to another batch under the same identity.
 *    When a sent batch must be dropped (a definite failure, a timeout, an abort), its
 *    partition leaves its producer id/epoch: it gets a new one (KIP-360, identity.ts) and
 *    restarts its sequences at 0 once none of its batches is in flight or ambiguous. Each
 *    partition keeps its own identity, so other partitions' ambiguous batches go on being
 *    retried under theirs until their outcome is known; they adopt the new identity when
 *    they are idle.
 * 3. Sequences are assigned at a batch's first send in queue order, and requests reach
 *    the socket in that order (sink.ts).
 */
import { checkCloseOptions, type Client, type CloseOptions } from '../client/client'
import type { ClockTimer } from '../client/clock'
import { TypedEmitter } from '../client/events'
import { channels, subscribed, type ProducerSendTrace } from '../client/instrumentation'
import type { MetricsRegistry } from '../client/metrics'
import { ConnectionError, RequestTimeoutError } from '../client/errors'
import { invalidatesMetadata } from '../client/metadata'
import { backoffDelay, describeError } from '../client/backoff'
import type { CompressionCodec } from '../protocol/compression'
import { DescribeConfigs } from '../protocol/apis/describe-configs'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { recordSizeUpperBound, type RecordInput } from '../protocol/record-batch'
import { notifyWaiter, type ProducerBatch, type RecordCallback, type RecordMetadata, type SendAnswer, type Waiter } from './batch'
import { BufferFullError, OutcomeUnknownError, ProducerClosedError, RecordTooLargeError, SendError, TopicDeletedError } from './errors'
import { NO_IDENTITY, ProducerIdentity, ProducerIdentityError } from './identity'
import { checkProducerOptions, checkRecord, checkRecords, refuseKafkajsShape, RENAMED_PRODUCER_OPTIONS } from './input'
import { checkSignal, describeValue, renamedOptions } from '../client/validate'
import type { PartitionQueue } from './partition-queue'
import { BatchBuffers } from './batch-buffers'
import type { Writer } from '../protocol/writer'
import { availablePartitions, createPartitioner, type Partitioner, type PartitionerInput, type PartitionerOption } from './partitioners'
import { adoptAsRecordInput, toRecordInput, waitingSize, type ProducerBytes, type ProducerRecord } from './record-input'
import { Sequencing } from './sequencing'
import { TopicWaits } from './topic-wait'
import { Accumulator } from './accumulator'
import { Drain } from './drain'
import { Expiry, type AbortableTracker } from './expiry'
import { isRefusal, madeGapItself, meaningOfCode, meaningOfFailure, saysTopicMissing } from './outcomes'
import type { ItemOutcome, SendItem, SinkOptions, SinkHost } from './sink'
import { RecordSerializer, type Serializers } from '../client/serializers'
import { AbortedError } from '../client/errors'
import { onAbort } from '../client/abort-signal'
import { Signal } from '../client/signal'
import { internal } from '../client/internal'
import {
  TransactionManager, TransactionAbortableError, type ConsumerGroupMetadata, type SendOffsetsOptions, type TransactionCallOptions, type TransactionHost, type TransactionState
} from './transaction'

export type { ProducerBytes, ProducerHeaders, ProducerRecord } from './record-input'

/** Options of `client.producer(options)`: acknowledgements, idempotence, batching, buffering, compression, partitioning, transactions and serializers. Checked when the producer is made. */
export interface ProducerOptions<K = ProducerBytes, V = ProducerBytes> {
  /**
   * Typed keys and values: `{ key, value }`, each with `serialize(topic, data)` (sync, or a
   * promise), e.g. `serializers.json<Order>()` (client/serializers.ts). Null is not serialized.
   */
  serializers?: Serializers<K, V>
  /** 'all' (default), 1 (the leader has it) or 0 (no answer). */
  acks?: 'all' | -1 | 0 | 1
  /** Deduplicate retries with producer ids and sequences (default true; needs acks='all'). */
  idempotent?: boolean
  /** How long a batch may wait for more records (default 5 ms, as the Java client). */
  lingerMs?: number
  /** Largest record batch (default 1,000,000 bytes: under the broker's message.max.bytes). */
  maxBatchBytes?: number
  /** @deprecated The old name of `maxBatchBytes` (taken for now, with a warning). */
  batchMaxBytes?: number
  /** Largest Produce request (default 32 MiB). */
  maxRequestBytes?: number
  /** Buffered, unacknowledged bytes before `send` waits (default 64 MiB). */
  maxBufferedBytes?: number
  /** Buffered, unacknowledged records before `send` waits (default 500,000). */
  maxBufferedRecords?: number
  /** How long the broker may wait for replication, and how long we wait for its answer (default 30 s). */
  requestTimeoutMs?: number
  /** A record not sent within this time fails, unless its outcome is unknown (default 120 s). */
  deliveryTimeoutMs?: number
  /** Retries of a batch after definite, retriable errors (default: unlimited within deliveryTimeoutMs). */
  maxRetries?: number
  /** @deprecated The old name of `maxRetries` (taken for now, with a warning). */
  retries?: number
  /** The codec batches are compressed with (default 'none'); snappy, lz4 and zstd need their npm packages. */
  compression?: CompressionCodec
  /** Compression per topic, overriding `compression`. */
  compressionByTopic?: Record<string, CompressionCodec>
  /** Which partition a record without one goes to (default 'default': murmur2 of the key as the Java client, sticky for keyless records). */
  partitioner?: PartitionerOption
  /** How long to wait for an unknown topic to appear in metadata (default 60 s). */
  metadataWaitMs?: number
  /**
   * Ask the broker to create a topic that does not exist (Metadata's allow_auto_topic_creation;
   * the broker must have auto.create.topics.enable). Default false: a misspelt topic name
   * fails instead of creating a topic with the broker's default partitions and settings.
   */
  allowAutoTopicCreation?: boolean
  /**
   * What an abort does to a record whose batch's outcome is unknown. 'wait' (default):
   * the send settles when the outcome is known. 'settle': it settles at once with
   * OutcomeUnknownError; the producer drops the batch and moves to a new epoch before
   * anything else is sent, so no later record can be deduplicated against it.
   */
  abortUnknownOutcome?: 'wait' | 'settle'
  /** Makes the producer transactional (see producer/transaction.ts): records are sent only inside transactions. */
  transactionalId?: string
  /** How long the coordinator lets a transaction stay open before aborting it (default 60 s). */
  transactionTimeoutMs?: number
}

/** What a `producer.transaction(async tx => …)` callback may call. */
export interface TransactionScope<K = ProducerBytes, V = ProducerBytes> {
  /** The producer's `send`, inside the transaction. */
  send: Producer<K, V>['send']
  /** The producer's `produce`, inside the transaction. */
  produce: Producer<K, V>['produce']
  /** Commits a consumer group's offsets as part of the transaction (TxnOffsetCommit). */
  sendOffsets: (options: SendOffsetsOptions) => Promise<void>
}

export type { ConsumerGroupMetadata }

/** Options of `producer.send(records, options)`. */
export interface SendOptions {
  /** Aborts the send: records not yet sent fail with an AbortedError; one whose request was written settles with its outcome. */
  signal?: AbortSignal
}

/** The `dataLoss` event's payload: the broker's answer shows that records it acknowledged earlier may be missing from the partition. */
export interface DataLossEvent {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** Kafka's error code that revealed it (OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID, ...). */
  code: number
  /** What happened and what may be missing, for people. */
  message: string
}

/** A batch was written and got no definite answer: it is retried with the same sequence until its outcome is known. */
export interface AmbiguousEvent {
  /** The batch's topic. */
  topic: string
  /** The batch's partition. */
  partition: number
  /** The batch's first sequence number, which its retries keep. */
  baseSequence: number
  /** The failure that left the outcome unknown (a timeout, a connection that died after the write...). */
  error: Error
}

/** The producer moved to a new producer id or epoch (KIP-360), after a sequence problem or a dropped batch. */
export interface EpochBumpEvent {
  /** The producer id now in use. */
  producerId: bigint
  /** The producer epoch now in use. */
  producerEpoch: number
  /** Why it moved, for people. */
  reason: string
}

/** The events of a Producer, with their payloads. */
export interface ProducerEvents {
  /** A batch was written and got no definite answer; it is retried with the same sequence. */
  ambiguous: [event: AmbiguousEvent]
  /** The producer moved to a new producer id or epoch. */
  epochBump: [event: EpochBumpEvent]
  /** Without a listener: a warning through the client's logger (KAFKATS_DATA_LOSS). */
  dataLoss: [event: DataLossEvent]
  /** A produce() callback threw; without a listener: a warning through the client's logger (KAFKATS_CALLBACK_ERROR). */
  callbackError: [error: unknown]
  /** Buffer space was freed: a full producer takes records again. */
  drain: []
}

/**
 * Connection deaths in a row, with the request written, after which a batch is given up on
 * (OutcomeUnknownError, and its partition moves to a new epoch). The 2nd to the last are
 * deaths with the batch's request alone on its connection: a broker that is up and
 * closes the connection on the same request every time (one over its
 * socket.request.max.bytes) would otherwise be retried for ever without a word.
 */
const MAX_CONNECTION_DEATHS = 5
/**
 * The same refusal (outcomes.ts `isRefusal`: UNKNOWN_SERVER_ERROR) to a batch this many
 * times in a row from a broker that is up ends the batch as unknown (OutcomeUnknownError,
 * and its partition moves to a new epoch), as does its delivery timeout: the answer will
 * not change, and retrying it hung send() and close() for ever.
 */
const MAX_SAME_REFUSALS = 5
/** DescribeConfigs resource type of a topic. */
const TOPIC_RESOURCE = 2
/** Idle encode buffers a producer keeps (see BatchBuffers), and the largest batchMaxBytes it keeps them for. */
const POOLED_BATCH_BUFFERS = 8
const MAX_POOLED_BATCH_BYTES = 4 * 1024 * 1024

/** What kafkats's own modules use of a producer: `producer[internal]` (declared in ./internal-members.ts). */
export interface ProducerInternals {
  /**
   * kafkats/kafkajs's send(): send() of records already in bytes (no serializers), each
   * record's outcome handed to `answer.settle` by its index (see Producer's #sendTo).
   */
  sendTo: <T>(records: ProducerRecord[], answer: SendAnswer<T>) => Promise<T>
  /** Internal state for debugging a stall: queues, batches, in-flight counts. */
  debugState: () => object
}

export class Producer<K = ProducerBytes, V = ProducerBytes> extends TypedEmitter<ProducerEvents> {
  readonly #client: Client
  readonly #acks: number
  readonly #idempotent: boolean
  readonly #lingerMs: number
  readonly #batchMaxBytes: number
  readonly #maxRequestBytes: number
  readonly #requestTimeoutMs: number
  readonly #deliveryTimeoutMs: number
  readonly #retries: number
  readonly #compression: CompressionCodec
  readonly #compressionByTopic: Record<string, CompressionCodec>
  readonly #partitioner: Partitioner
  /** Reused buffers for uncompressed batches (undefined when batchMaxBytes is too large to keep idle buffers of). */
  readonly #batchBuffers: BatchBuffers | undefined
  /** The built-in partitioners keep nothing of their input: one object serves every record. A partitioner of the application's gets a fresh one each time. */
  readonly #sharedPartitionerInput: PartitionerInput | undefined
  readonly #abortUnknownOutcome: 'wait' | 'settle'
  readonly #sinkOptions: SinkOptions
  /** Undefined without serializers: then send() and produce() take bytes as they are. */
  readonly #serializer: RecordSerializer | undefined

  /** The partitions' queues and batches, and the buffer accounting (accumulator.ts). */
  readonly #accumulator: Accumulator
  /** Records of topics not in metadata yet (topic-wait.ts). */
  readonly #topicWaits: TopicWaits
  /** What is sendable to which leader, and when to look again (drain.ts). */
  readonly #drain: Drain
  /** The delivery timeout and aborts (expiry.ts). */
  readonly #expiry: Expiry
  /** Schedules a drain on the next turn: a value made once, for the accumulator and Sequencing. */
  readonly #wake = (): void => { this.#drain.soon() }

  // Backpressure: sends waiting for buffer space.
  readonly #spaceFreed = new Signal()
  /** Sends waiting for room to buffer the rest of their records, in call order (one token each). */
  readonly #waitingSends: object[] = []

  // Idempotence: the identity new sequences are issued under (each partition keeps its own, see identity.ts).
  readonly #identity: ProducerIdentity
  /** Under which identity each partition sends, and when it needs a new epoch (sequencing.ts). */
  readonly #sequencing: Sequencing
  /** Set for a transactional producer: the transaction's state and its coordinator requests. */
  readonly #txn: TransactionManager | undefined

  #flushing = 0
  #closed = false
  /** close() was called (it may still be flushing): what `closed` says. */
  #closeCalled = false
  /** Why the producer is closed: ProducerClosedError, or the client's ClientClosedError. */
  #closedError: Error | undefined
  readonly #unregister: () => void
  /** Aborted when the producer closes: ends the retry sleeps of InitProducerId and of the transaction's requests. */
  readonly #closing = new AbortController()
  readonly #metrics: MetricsRegistry
  /** Ends this one's part in client.metrics() (set once its collector is registered, at the end of the constructor). */
  #stopCollecting: () => void = () => {}

  /** A producer on `client`'s connections; applications make one with `client.producer()`. Throws a TypeError or RangeError for a wrong option. */
  constructor (client: Client, given: ProducerOptions<K, V> = {}) {
    super()
    checkProducerOptions(given)
    const options = renamedOptions('producer option', given, RENAMED_PRODUCER_OPTIONS, client[internal].instrumentation.log)
    this.#serializer = RecordSerializer.from('producer option', options.serializers)
    this.#client = client
    this.#acks = options.acks === 'all' || options.acks === undefined ? -1 : options.acks
    this.#idempotent = options.idempotent ?? this.#acks === -1
    if (this.#idempotent && this.#acks !== -1) {
      throw new TypeError(`An idempotent producer needs acks='all' (got acks=${String(options.acks)}): set acks to 'all', or idempotent to false`)
    }
    this.#lingerMs = options.lingerMs ?? 5
    this.#maxRequestBytes = options.maxRequestBytes ?? 32 * 1024 * 1024
    // A batch never outgrows the request that carries it.
    this.#batchMaxBytes = Math.min(options.maxBatchBytes ?? 1_000_000, this.#maxRequestBytes)
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000
    this.#deliveryTimeoutMs = options.deliveryTimeoutMs ?? 120_000
    this.#retries = options.maxRetries ?? Number.POSITIVE_INFINITY
    this.#compression = options.compression ?? 'none'
    this.#compressionByTopic = options.compressionByTopic ?? {}
    this.#batchBuffers = this.#batchMaxBytes <= MAX_POOLED_BATCH_BYTES ? new BatchBuffers(POOLED_BATCH_BUFFERS, this.#batchMaxBytes) : undefined
    this.#partitioner = createPartitioner(options.partitioner, { batchMaxBytes: this.#batchMaxBytes })
    this.#sharedPartitionerInput = options.partitioner === undefined || typeof options.partitioner === 'string' ? { topic: '', key: null, value: null, partitionCount: 0, availablePartitions: [] } : undefined
    this.#abortUnknownOutcome = options.abortUnknownOutcome ?? 'wait'
    this.#sinkOptions = {
      acks: this.#acks,
      requestTimeoutMs: this.#requestTimeoutMs,
      maxRequestBytes: this.#maxRequestBytes,
      maxInFlightRequests: 5,
      transactionalId: options.transactionalId ?? null,
      maxProduceVersion: Number.POSITIVE_INFINITY
    }
    if (options.transactionalId !== undefined && !this.#idempotent) {
      throw new TypeError('A transactional producer is idempotent: leave idempotent unset (or true) and acks \'all\' with transactionalId')
    }
    this.#txn = options.transactionalId === undefined ? undefined : new TransactionManager(this.#transactionHost(), { transactionalId: options.transactionalId, transactionTimeoutMs: options.transactionTimeoutMs })
    this.#identity = new ProducerIdentity(client, {
      transactionalId: this.#txn?.transactionalId ?? null,
      transactionTimeoutMs: this.#txn?.transactionTimeoutMs ?? 60_000,
      // A transaction's InitProducerId goes to its coordinator, and is retried there (transaction.ts).
      send: this.#txn === undefined ? undefined : async request => await this.#txn!.sendInitProducerId(request),
      keepTrying: () => !this.#closed && (this.#txn !== undefined || this.#hasBatchesWaitingForIdentity()),
      closing: this.#closing.signal
    })
    this.#accumulator = new Accumulator(client.clock, {
      batchMaxBytes: this.#batchMaxBytes,
      maxRequestBytes: this.#maxRequestBytes,
      maxBufferedBytes: options.maxBufferedBytes ?? 64 * 1024 * 1024,
      maxBufferedRecords: options.maxBufferedRecords ?? 500_000
    }, this.#partitioner, {
      batchOpened: batch => {
        this.#expiry.batchOpened(batch)
        this.#drain.batchOpened(batch)
      },
      batchFull: this.#wake,
      onCallbackThrow: this.#onCallbackThrow
    })
    this.#topicWaits = new TopicWaits(client, { allowAutoTopicCreation: options.allowAutoTopicCreation ?? false, metadataWaitMs: options.metadataWaitMs ?? 60_000, requestTimeoutMs: this.#requestTimeoutMs }, {
      append: held => this.#append(held.record, held.waiter, held.index, held.batches),
      unbuffer: record => this.#unbufferWaiting(record),
      onCallbackThrow: this.#onCallbackThrow
    })
    this.#sequencing = new Sequencing(this.#identity, this.#txn, {
      wake: this.#wake,
      epochBumped: (producerId, producerEpoch, reason) => {
        this.#client[internal].instrumentation.log.info(`new producer epoch: ${reason}`, { producerId, producerEpoch })
        this.emit('epochBump', { producerId, producerEpoch, reason })
      },
      identityFailed: error => this.#failWaitingForIdentity(error)
    })
    const sinkHost: SinkHost = {
      takeSendable: (nodeId, maxBytes, nothingInFlight) => this.#takeSendable(nodeId, maxBytes, nothingInFlight),
      onOutcome: (nodeId, item, outcome) => { this.#onOutcome(nodeId, item, outcome) },
      onRequestDone: () => { this.#onRequestDone() },
      compressionFor: topic => this.#compressionFor(topic),
      batchWriter: sizeBound => this.#batchWriter(sizeBound)
    }
    Object.defineProperty(this, internal, { value: {
      sendTo: async (records, answer) => await this.#sendTo(records, answer),
      debugState: () => this.#debugState()
    } satisfies ProducerInternals })
    this.#drain = new Drain(client, this.#accumulator, this.#identity, this.#sequencing, this.#txn, sinkHost, {
      idempotent: this.#idempotent, lingerMs: this.#lingerMs, sink: this.#sinkOptions
    }, {
      lingering: () => this.#flushing === 0 && !this.#closed,
      refreshMetadata: () => this.#refreshMetadataSoon()
    })
    this.#expiry = new Expiry(client.clock, this.#accumulator, this.#topicWaits, {
      deliveryTimeoutMs: this.#deliveryTimeoutMs, idempotent: this.#idempotent, abortUnknownOutcome: this.#abortUnknownOutcome
    }, {
      fail: (queue, batch, error) => this.#finishBatch(queue, batch, error, null),
      failUnknown: (queue, batch, error) => this.#endUnknown(queue, batch, error),
      failSent: (queue, batch, error) => this.#failDefinitely(queue, batch, error),
      dropAbandoned: (queue, batch, error) => this.#retryAmbiguous(queue, batch, error),
      emptied: batch => this.#resolveDone(batch),
      waitReason: queue => (this.#sequencing.waitsForIdentity(queue) ? this.#identity.lastError : undefined) ?? (this.#hasNoLeader(queue) ? this.#metadataFailure : undefined),
      wake: this.#wake
    })
    // Closed with its client: pending work fails with the client's ClientClosedError at once.
    this.#unregister = client[internal].register({ closeWithClient: error => this.#abandonAll(error, error) })
    this.#metrics = client[internal].instrumentation.metrics
    this.#stopCollecting = this.#metrics.addCollector(into => {
      into.producerBufferedBytes += this.#accumulator.bufferedBytes
      into.producerBufferedRecords += this.#accumulator.bufferedRecords
    })
  }

  /**
   * A produce() callback threw: the records after it still get theirs; the error is
   * emitted as 'callbackError' (or a process warning when nobody listens).
   */
  readonly #onCallbackThrow = (error: unknown): void => {
    if (this.listenerCount('callbackError') > 0) {
      this.emit('callbackError', error)
      return
    }
    this.#client[internal].instrumentation.log.warn('a produce() callback threw (the other records\' callbacks still ran)', { code: 'KAFKATS_CALLBACK_ERROR', error })
  }

  // ---------------------------------------------------------------- transactions (transactionalId set)

  /** The transaction's state, undefined for a producer without transactionalId. */
  get transactionState (): TransactionState | undefined {
    return this.#txn?.state
  }

  /** Opens a transaction; the first call gets the producer id for the transactional id, fencing older producers with it. */
  async beginTransaction (options?: TransactionCallOptions): Promise<void> {
    await this.#transactional('beginTransaction').beginTransaction(options)
  }

  /** Adds consumed offsets to the open transaction: they become the group's committed offsets when it commits. */
  async sendOffsets (options: SendOffsetsOptions): Promise<void> {
    await this.#transactional('sendOffsets').sendOffsets(options)
  }

  /** Flushes, then commits: refuses (TransactionAbortableError) if a record of the transaction failed. */
  async commitTransaction (options?: TransactionCallOptions): Promise<void> {
    await this.#transactional('commitTransaction').commitTransaction(options)
  }

  /** Fails what was not sent yet, waits for what is in flight, then aborts: nothing of the transaction becomes visible. */
  async abortTransaction (options?: TransactionCallOptions): Promise<void> {
    await this.#transactional('abortTransaction').abortTransaction(options)
  }

  /**
   * Runs `work` in a transaction: commits when it resolves, aborts when it throws (or when
   * the commit refuses), and rethrows. Resolves with what `work` returned.
   */
  async transaction<T> (work: (tx: TransactionScope<K, V>) => Promise<T>, options: TransactionCallOptions = {}): Promise<T> {
    if (typeof work !== 'function') throw new TypeError(`producer.transaction(work): expected a function, got ${typeof work}`)
    const txn = this.#transactional('transaction')
    await txn.beginTransaction(options)
    const scope: TransactionScope<K, V> = {
      send: this.send.bind(this) as Producer<K, V>['send'],
      produce: this.produce.bind(this),
      sendOffsets: async offsets => await txn.sendOffsets(offsets)
    }
    let result: T
    try {
      result = await work(scope)
      await txn.commitTransaction(options)
    } catch (error) {
      if (txn.state === 'inTransaction' || txn.state === 'abortableError') {
        await txn.abortTransaction(options).catch(abortError => {
          throw new TransactionAbortableError(`The transaction failed (${(error as Error).message}) and then its abort failed too: ${(abortError as Error).message}`, { cause: error })
        })
      }
      throw error
    }
    return result
  }

  #transactional (call: string): TransactionManager {
    if (this.#txn === undefined) throw new TypeError(`producer.${call}() needs a transactional producer: create it with client.producer({ transactionalId })`)
    return this.#txn
  }

  #transactionHost (): TransactionHost {
    return {
      client: this.#client,
      flush: async () => await this.flush(),
      failUnsent: error => {
        // Everything not in flight and not ambiguous is definitely not written; a sent one leaves a sequence gap.
        let gap = false
        for (const queue of [...this.#accumulator.active]) {
          for (const batch of [...queue.batches]) {
            if (batch.inFlight || batch.ambiguous) continue
            if (batch.sent) {
              gap = true
              queue.leaveIdentity()
            }
            this.#finishBatch(queue, batch, error, null)
          }
        }
        this.#topicWaits.failAll(error)
        return gap
      },
      acquireIdentity: async replacing => await this.#identity.acquire(replacing ? this.#identity.current : undefined),
      adoptIdentity: identity => this.#identity.adopt(identity),
      identity: () => this.#identity.current,
      fail: error => {
        // A failed transaction is never committed: its records are not visible, whatever reached the log.
        for (const queue of [...this.#accumulator.active]) for (const batch of [...queue.batches]) this.#finishBatch(queue, batch, error, null)
        this.#topicWaits.failAll(error)
      },
      wake: () => this.#scheduleDrain(),
      capProduceVersion: max => { this.#sinkOptions.maxProduceVersion = max },
      closing: this.#closing.signal
    }
  }

  /** Internal state for debugging a stall: queues, batches, in-flight counts. */
  #debugState (): object {
    return {
      inFlightBatches: [...this.#accumulator.queues()].reduce((sum, q) => sum + q.inFlight, 0),
      acquiringIdentity: this.#identity.acquiring,
      producerId: String(this.#identity.current.producerId),
      producerEpoch: this.#identity.current.producerEpoch,
      sinks: [...this.#drain.sinks.values()].map(s => ({ nodeId: s.nodeId, inFlightRequests: s.inFlightRequests })),
      queues: [...this.#accumulator.active].map(q => ({
        key: q.key,
        inFlight: q.inFlight,
        inFlightNode: q.inFlightNode,
        serial: q.serial,
        retryInMs: Math.max(0, q.retryAt - this.#client.clock.now()),
        nextSequence: q.nextSequence,
        identity: `${q.identity.producerId}/${q.identity.producerEpoch}${q.leaving ? ' (leaving)' : ''}`,
        leader: this.#client.metadata.partition(q.topic, q.partition)?.leaderId,
        batches: q.batches.slice(0, 5).map(b => ({ records: b.recordCount, seq: b.baseSequence, epoch: b.producerEpoch, inFlight: b.inFlight, ambiguous: b.ambiguous, sealed: b.sealed, attempts: b.attempts, lastError: b.lastError?.message.slice(0, 160) }))
      }))
    }
  }

  /** Records and bytes buffered and not yet answered (what maxBufferedRecords/maxBufferedBytes limit). */
  get buffered (): {
    /** Records buffered and not yet answered. */
    records: number
    /** Their bytes. */
    bytes: number
  } {
    return { records: this.#accumulator.bufferedRecords, bytes: this.#accumulator.bufferedBytes }
  }

  /** The producer id and epoch in use (-1 before the first send, or without idempotence). */
  get producerIdentity (): {
    /** The producer id; -1 before the first send or without idempotence. */
    producerId: bigint
    /** The producer epoch; -1 before the first send or without idempotence. */
    producerEpoch: number
  } {
    const { producerId, producerEpoch } = this.#identity.current
    return { producerId, producerEpoch }
  }

  /**
   * Sends records and resolves, per record, with where it landed once the broker
   * acknowledged it. Waits while the buffer is full.
   */
  async send (records: ProducerRecord<K, V>, options?: SendOptions): Promise<RecordMetadata>
  async send (records: Array<ProducerRecord<K, V>>, options?: SendOptions): Promise<RecordMetadata[]>
  async send (input: ProducerRecord<K, V> | Array<ProducerRecord<K, V>>, options: SendOptions = {}): Promise<RecordMetadata | RecordMetadata[]> {
    let records = input as ProducerRecord | ProducerRecord[]
    if (this.#serializer !== undefined) {
      const serialized = this.#serializer.records(input) as ProducerRecord | ProducerRecord[] | Promise<ProducerRecord | ProducerRecord[]>
      records = serialized instanceof Promise ? await serialized : serialized
    }
    return await this.#traced(records, async () => await this.#send(records, options))
  }

  /**
   * kafkats/kafkajs's send(): send() of records already in bytes (no serializers),
   * each record's outcome handed to `answer.settle` by its index instead of kept in an array
   * of results; resolves with `answer.finish()` once every record is answered. Same checks,
   * waiting for room, call order and tracing as send(). The records become the caller's no
   * more: each is buffered as its own RecordInput (its bytes, headers and timestamp
   * converted in place), not copied into a second object.
   */
  async #sendTo<T> (records: ProducerRecord[], answer: SendAnswer<T>): Promise<T> {
    return await this.#traced(records, async () => {
      checkRecords('send() record', records, true)
      await this.#enter(records, answer, undefined, true)
      return answer.finish()
    })
  }

  /** Runs one send call inside a 'kafkats:producer:send' trace while anyone listens (no extra promise otherwise). */
  #traced<T> (records: unknown, run: () => Promise<T>): Promise<T> {
    if (!subscribed(channels.producerSend)) return run()
    const first: unknown = Array.isArray(records) ? records[0] : records
    const topic = typeof first === 'object' && first !== null && typeof (first as { topic?: unknown }).topic === 'string' ? (first as { topic: string }).topic : ''
    const trace: ProducerSendTrace = { clientId: this.#client.clientId, topic, records: Array.isArray(records) ? records.length : 1 }
    return channels.producerSend.tracePromise(run, trace)
  }

  async #send (records: ProducerRecord | ProducerRecord[], options: SendOptions): Promise<RecordMetadata | RecordMetadata[]> {
    const many = Array.isArray(records)
    const list = many ? records : [records]
    if (!many) refuseKafkajsShape(records)
    checkRecords('send() record', list, many)
    const answer = new ResultsAnswer(list.length, many)
    await this.#enter(list, answer, options.signal, false)
    const results = answer.finish()
    return many ? results : results[0]
  }

  /**
   * Buffers the records of one send call (checked already): what fits before this returns,
   * so an abort or close right after the call finds it; the rest as acknowledgements make
   * room, behind earlier calls still waiting. Resolves once every record was answered.
   * `adopt`: the records are the producer's to convert in place (sendTo).
   */
  async #enter (list: ProducerRecord[], answer: SendAnswer<unknown>, signal: AbortSignal | undefined, adopt: boolean): Promise<void> {
    checkSignal('send() option', 'signal', signal)
    if (signal?.aborted === true) throw new AbortedError('Aborted before the records were buffered', { written: false, cause: signal.reason })
    this.#checkOpen()
    this.#txn?.checkSend()
    this.#txn?.onAppend()
    if (list.length === 0) return
    await new Promise<void>(resolve => {
      let remaining = list.length
      const tracker: CallTracker = {
        batches: new Set(),
        adopt,
        settle: (index, error, result) => {
          answer.settle(index, error, result)
          if (--remaining === 0) {
            stopWaiting?.()
            resolve()
          }
        }
      }
      // One listener per signal however many sends share it (abort-signal.ts).
      const stopWaiting = signal === undefined ? undefined : onAbort(signal, () => this.#expiry.abort(tracker, signal))
      const next = this.#waitingSends.length > 0 ? 0 : this.#appendWhileRoom(list, 0, tracker)
      if (next < list.length) void this.#appendAsRoomFrees(list, next, tracker, signal)
    })
  }

  /**
   * Buffers one record and calls `callback` when it is acknowledged or failed, without
   * a promise per record. Returns whether the record was accepted: false means it was
   * refused and `callback` was already called with the reason (BufferFullError when the
   * buffer is full: `await producer.waitForSpace()`, then produce again). To pause before
   * a refusal, check `producer.full`.
   */
  produce (input: ProducerRecord<K, V>, callback: RecordCallback): boolean {
    const record = (this.#serializer === undefined ? input : this.#serializer.recordNow(input)) as ProducerRecord
    checkRecord('produce() record', record)
    if (typeof callback !== 'function') throw new TypeError(`produce() callback: expected a function (error, result) => void, got ${describeValue(callback)}`)
    if (this.#closed) {
      callback(this.#closedError ?? new ProducerClosedError(), null)
      return false
    }
    if (this.#txn !== undefined) {
      try {
        this.#txn.checkSend()
      } catch (error) {
        callback(error as Error, null)
        return false
      }
      this.#txn.onAppend()
    }
    const prepared = toRecordInput(record)
    const bytes = recordSizeUpperBound(prepared)
    const tooLarge = this.#accumulator.tooLarge(record, bytes)
    if (tooLarge !== undefined) {
      callback(tooLarge, null)
      return false
    }
    if (this.#accumulator.full) {
      callback(new BufferFullError(`The producer buffer is full (${this.#accumulator.bufferedRecords} records, ${this.#accumulator.bufferedBytes} bytes): wait for producer.waitForSpace() or use await producer.send()`), null)
      return false
    }
    this.#append(record, callback, 0, undefined, prepared, bytes)
    return true
  }

  /** Appends records of one send from `from` on while each fits the buffer; returns the index of the first that does not. */
  #appendWhileRoom (list: ProducerRecord[], from: number, tracker: CallTracker): number {
    for (let i = from; i < list.length; i++) {
      const input = tracker.adopt ? adoptAsRecordInput(list[i]) : toRecordInput(list[i])
      const bytes = recordSizeUpperBound(input)
      const tooLarge = this.#accumulator.tooLarge(list[i], bytes)
      if (tooLarge !== undefined) {
        tracker.settle(i, tooLarge, null)
        continue
      }
      if (!this.#accumulator.hasRoom(bytes)) return i
      this.#append(list[i], tracker, i, tracker.batches, input, bytes)
    }
    return list.length
  }

  /**
   * The rest of a send larger than the room in the buffer: its records enter in order as
   * acknowledgements free room, so the buffer never holds more than its limits. Waiting
   * sends take turns in call order (`#waitingSends`), so records of sends made one after
   * the other keep that order in each partition. Records not buffered when the wait ends
   * (an abort, a close, a failed transaction) settle with its error; buffered ones keep
   * their own outcome.
   */
  async #appendAsRoomFrees (list: ProducerRecord[], from: number, tracker: CallTracker, signal: AbortSignal | undefined): Promise<void> {
    const turn = {}
    this.#waitingSends.push(turn)
    let next = from
    try {
      while (next < list.length) {
        const bytes = recordSizeUpperBound(tracker.adopt ? adoptAsRecordInput(list[next]) : toRecordInput(list[next]))
        // A record too large for the buffer is refused on its turn, not after the buffer emptied.
        const size = this.#accumulator.tooLarge(list[next], bytes) === undefined ? bytes : 0
        await this.#waitUntil(() => this.#waitingSends[0] === turn && this.#accumulator.hasRoom(size), signal, true)
        this.#checkOpen()
        if (signal?.aborted === true) throw new AbortedError('Aborted while waiting for room in the producer buffer: the record is not in the log', { written: false, cause: signal.reason })
        // A commit waits for this send's records (they are the transaction's); a failed or ended transaction takes no more.
        if (this.#txn !== undefined && this.#txn.state !== 'committing') this.#txn.checkSend()
        next = this.#appendWhileRoom(list, next, tracker)
      }
    } catch (error) {
      for (let i = next; i < list.length; i++) tracker.settle(i, error as Error, null)
    } finally {
      this.#waitingSends.splice(this.#waitingSends.indexOf(turn), 1)
      this.#wakeSpaceWaiters()
    }
  }

  /** Whether the buffer is at maxBufferedBytes/maxBufferedRecords: produce() would refuse, send() would wait. */
  get full (): boolean {
    return this.#accumulator.full
  }

  /** Resolves when the buffer has room again. */
  async waitForSpace (signal?: AbortSignal): Promise<void> {
    await this.#waitForSpace(signal)
  }

  /** Sends everything buffered now, without lingering, and resolves when all of it is answered. */
  async flush (): Promise<void> {
    this.#flushing++
    this.#scheduleDrain()
    try {
      // Sends larger than the buffer that are still entering it are flushed whole.
      const entering = [...this.#waitingSends]
      if (entering.length > 0) await this.#waitUntil(() => entering.every(turn => !this.#waitingSends.includes(turn)), undefined, false)
      const batches: ProducerBatch[] = []
      for (const queue of this.#accumulator.active) batches.push(...queue.batches)
      await this.#topicWaits.settled()
      await Promise.all(batches.map(async b => await this.#whenDone(b)))
      // Records that waited for metadata went into new batches.
      const more: ProducerBatch[] = []
      for (const queue of this.#accumulator.active) more.push(...queue.batches.filter(b => !batches.includes(b)))
      await Promise.all(more.map(async b => await this.#whenDone(b)))
    } finally {
      this.#flushing--
    }
  }

  /**
   * Flushes, then stops. With `force`, buffered records that were never sent fail with
   * ProducerClosedError, and batches in flight are not waited for (their records get
   * OutcomeUnknownError, since they may be in the log).
   */
  async close (options: CloseOptions = {}): Promise<void> {
    checkCloseOptions('producer.close()', options)
    this.#closeCalled = true
    if (options.force === true) {
      this.#abandonAll(new ProducerClosedError('The producer was closed with force before this record was sent'), new ProducerClosedError())
    } else {
      await this.flush()
      this.#closed = true
      this.#closedError ??= new ProducerClosedError()
      this.#releaseResources()
    }
  }

  /** Whether close() was called (it may still be flushing), or the client closed the producer. */
  get closed (): boolean {
    return this.#closeCalled || this.#closed
  }

  /** Closes at once: unsent records fail with `unsent`, sent ones with OutcomeUnknownError. */
  #abandonAll (unsent: Error, closedError: Error): void {
    this.#closed = true
    this.#closedError ??= closedError
    for (const queue of [...this.#accumulator.active]) {
      for (const batch of [...queue.batches]) {
        this.#finishBatch(queue, batch, batch.sent
          ? new OutcomeUnknownError(`The producer was closed (${unsent.message}) while ${queue.key}'s batch was in flight: it may or may not be in the log`, { cause: unsent })
          : unsent, null)
      }
    }
    this.#topicWaits.failAll(unsent)
    this.#wakeSpaceWaiters()
    this.#releaseResources()
  }

  #releaseResources (): void {
    this.#closing.abort(this.#closedError)
    this.#expiry.stop()
    this.#drain.stop()
    this.#refreshTimer?.cancel()
    this.#refreshTimer = undefined
    this.#unregister()
    this.#stopCollecting()
  }

  // ---------------------------------------------------------------- appending

  readonly #batchDone = new WeakMap<ProducerBatch, { promise: Promise<void>, resolve: () => void }>()

  #append (record: ProducerRecord, waiter: Waiter, index: number, batches: Set<ProducerBatch> | undefined, prepared?: RecordInput, preparedBytes?: number): void {
    const topic = this.#client.metadata.topic(record.topic)
    if (topic === undefined || topic.partitions.length === 0) {
      this.#appendAfterMetadata(record, waiter, index, batches)
      return
    }
    const input = prepared ?? toRecordInput(record)
    const bytes = prepared !== undefined && preparedBytes !== undefined ? preparedBytes : recordSizeUpperBound(input)
    let partition = record.partition
    if (partition === undefined) {
      const partitionerInput: PartitionerInput = this.#sharedPartitionerInput ?? { topic: '', key: null, value: null, partitionCount: 0, availablePartitions: [] }
      partitionerInput.topic = record.topic
      partitionerInput.key = input.key ?? null
      partitionerInput.value = input.value
      partitionerInput.partitionCount = topic.partitions.length
      partitionerInput.availablePartitions = availablePartitions(topic.partitions)
      partition = this.#partitioner.partition(partitionerInput)
    }
    if (!Number.isInteger(partition) || partition < 0 || partition >= topic.partitions.length) {
      const error = new BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Record for ${record.topic}: partition ${partition} does not exist (the topic has ${topic.partitions.length}${record.partition === undefined ? '; the partitioner chose it' : ''})`)
      notifyWaiter(waiter, index, error, null, this.#onCallbackThrow)
      return
    }
    this.#accumulator.append(record.topic, partition, input, bytes, waiter, index, batches)
  }

  /** Holds records of a topic not in metadata yet, until it appears or `metadataWaitMs` passes (topic-wait.ts). */
  #appendAfterMetadata (record: ProducerRecord, waiter: Waiter, index: number, batches: Set<ProducerBatch> | undefined): void {
    this.#topicWaits.hold({ record, waiter, index, batches })
    // Waiting records count against the buffer limits like buffered ones.
    this.#accumulator.countWaiting(waitingSize(record))
  }

  #unbufferWaiting (record: ProducerRecord): void {
    this.#accumulator.uncountWaiting(waitingSize(record))
    if (!this.#accumulator.full) this.#wakeSpaceWaiters()
  }

  // ---------------------------------------------------------------- sending (drain.ts decides what goes)

  #scheduleDrain (): void {
    this.#drain.soon()
  }

  /** Sink callback: one sendable batch per partition led by `nodeId` (drain.ts). */
  #takeSendable (nodeId: number, maxBytes: number, nothingInFlight: boolean): SendItem[] {
    return this.#drain.takeSendable(nodeId, maxBytes, nothingInFlight)
  }

  /** Sink callback: see BatchBuffers. */
  #batchWriter (sizeBound: number): Writer | undefined {
    return this.#batchBuffers?.take(sizeBound)
  }

  /** Sink callback: the codec of a topic's batches. */
  #compressionFor (topic: string): CompressionCodec {
    return this.#compressionByTopic[topic] ?? this.#compression
  }

  /** Sink callback: a request finished, there may be room to send more. */
  #onRequestDone (): void {
    this.#scheduleDrain()
  }

  /** Sink callback: decides what the outcome of one batch's attempt means. */
  #onOutcome (nodeId: number, item: SendItem, outcome: ItemOutcome): void {
    this.#actOnOutcome(nodeId, item, outcome)
    // A retry past its delivery timeout expires now (it was in flight when its deadline passed).
    if (!item.batch.finished) this.#expiry.answered(item.batch)
  }

  #actOnOutcome (nodeId: number, item: SendItem, outcome: ItemOutcome): void {
    const { queue, batch } = item
    queue.markAnswered(batch)
    // Answered already (a forced close): only the in-flight accounting above was left to do.
    if (batch.finished) return
    // A streak of one refusal (MAX_SAME_REFUSALS) ends with any other outcome.
    const answered = outcome.kind === 'response' ? outcome.partition?.errorCode : undefined
    if (answered === undefined || answered !== batch.refusalCode) {
      batch.refusalCode = undefined
      batch.sameRefusals = 0
    }
    if (outcome.kind === 'no-response') {
      this.#succeed(queue, batch, -1n, -1n, -1n)
      return
    }
    if (outcome.kind === 'error') {
      // The broker may be gone and its partitions led elsewhere now.
      if (outcome.error instanceof ConnectionError || outcome.error instanceof RequestTimeoutError) this.#refreshMetadataSoon()
      const meaning = meaningOfFailure(outcome.error, outcome.written, batch.ambiguous)
      if (meaning === 'ambiguous') {
        if (!(outcome.error instanceof ConnectionError)) this.#clearSuspect(batch)
        else if (this.#connectionDied(queue, batch, nodeId, outcome.error)) return
        this.#retryAmbiguous(queue, batch, outcome.error)
      } else if (meaning === 'failed') {
        this.#failDefinitely(queue, batch, outcome.error)
      } else {
        this.#retryDefinite(queue, batch, outcome.error, false)
      }
      return
    }
    // The broker answered: whatever closed connections before, it reads this request.
    this.#clearSuspect(batch)
    const response = outcome.partition
    if (response === undefined) {
      this.#retryAmbiguous(queue, batch, new BrokerError(-1, `Produce to ${queue.key} on broker ${nodeId}: the response has no entry for the partition`))
      return
    }
    const code = response.errorCode
    const meaning = meaningOfCode(code, this.#txn !== undefined)
    if (meaning === 'written') {
      this.#succeed(queue, batch, response.baseOffset, response.logAppendTimeMs, response.logStartOffset)
      // The broker answered the one request that ever carried the batch, so it read all of
      // it: the socket is done with the encoded bytes, and they are reused (BatchBuffers).
      // Not for acks=0 (no answer proves the write finished) nor after any other attempt.
      if (!batch.ambiguous && batch.attempts === 0 && batch.encoded !== undefined && this.#batchBuffers !== undefined) {
        this.#batchBuffers.give(batch.encoded)
        batch.encoded = undefined
      }
      return
    }
    const error = new BrokerError(code, `Produce to ${queue.key} on broker ${nodeId}`, response.errorMessage)
    switch (meaning) {
      case 'ambiguous':
        if (isRefusal(code) && this.#refusedTooOften(queue, batch, nodeId, error)) return
        this.#retryAmbiguous(queue, batch, error)
        return
      case 'retry':
        if (saysTopicMissing(code)) queue.noteTopicMissing(code)
        if (invalidatesMetadata(code)) this.#refreshMetadataSoon()
        this.#retryDefinite(queue, batch, error, true)
        return
      case 'fenced': {
        // A newer producer with this transactional id took over: fenced, not a sequence problem.
        const fenced = this.#txn!.fencedBy(error)
        if (this.#isPending(batch)) this.#finishBatch(queue, batch, fenced, null)
        return
      }
      case 'sequence':
        this.#onSequenceError(queue, batch, error)
        return
      case 'too-large':
        this.#onTooLarge(queue, batch, error)
        return
      default:
        this.#failDefinitely(queue, batch, error)
    }
  }

  /**
   * The connection died with the batch's request written. The batch becomes a suspect (sent
   * alone from now on); after MAX_CONNECTION_DEATHS in a row it is given up on: its records
   * get OutcomeUnknownError and the partition leaves its identity, so nothing later can be
   * deduplicated against it (invariant 1). True when the batch was given up on.
   */
  #connectionDied (queue: PartitionQueue, batch: ProducerBatch, nodeId: number, error: ConnectionError): boolean {
    batch.connectionDeaths++
    if (batch.connectionDeaths < MAX_CONNECTION_DEATHS) {
      this.#drain.suspect(batch)
      return false
    }
    const bytes = batch.encoded?.length ?? batch.bytes
    const message = `Produce to ${queue.key} on broker ${nodeId}: the connection closed ${batch.connectionDeaths} times in a row after this batch's request (${bytes} bytes of records) was written, the last ${batch.connectionDeaths - 1} times with nothing else in flight to the broker. A broker closes the connection on a request larger than its socket.request.max.bytes (100 MiB by default) or one it cannot read; lower maxRequestBytes below that limit. The records may or may not be in the log${this.#idempotent ? '; the partition moves to a new producer epoch' : ''}. Last error: ${error.message}`
    this.#client[internal].instrumentation.log.warn(message, { code: 'KAFKATS_CONNECTION_CLOSED_ON_REQUEST', topic: batch.topic, partition: batch.partition, nodeId })
    this.#endUnknown(queue, batch, new OutcomeUnknownError(message, { cause: error }))
    return true
  }

  /**
   * The broker refused the batch with `error` (a refusal, outcomes.ts): after
   * MAX_SAME_REFUSALS of the same in a row it is given up on as unknown (the refusal may
   * have come after the append). True when it was; past its delivery timeout, Expiry ends
   * it sooner.
   */
  #refusedTooOften (queue: PartitionQueue, batch: ProducerBatch, nodeId: number, error: BrokerError): boolean {
    batch.refusalCode = error.code
    batch.sameRefusals++
    if (batch.sameRefusals < MAX_SAME_REFUSALS) return false
    this.#endUnknown(queue, batch, new OutcomeUnknownError(`Produce to ${queue.key} on broker ${nodeId} was answered ${error.type} (${error.code}) ${batch.sameRefusals} times in a row: the broker is up and fails on this request every time, so retrying cannot help. The records may or may not be in the log${this.#idempotent ? '; the partition moves to a new producer epoch' : ''}. Check the broker's log for the cause. Last error: ${error.message}`, { cause: error }))
    return true
  }

  /** Gives `batch` up as unknown (`error`, an OutcomeUnknownError): it ends, and its partition leaves the identity, so nothing later is deduplicated against it (invariant 1). */
  #endUnknown (queue: PartitionQueue, batch: ProducerBatch, error: OutcomeUnknownError): void {
    this.#finishBatch(queue, batch, error, null)
    this.#leaveIdentity(queue, `a batch of ${queue.key} whose outcome is unknown was given up on: ${error.message}`)
    this.#scheduleDrain()
  }

  #clearSuspect (batch: ProducerBatch): void {
    if (batch.connectionDeaths === 0) return
    batch.connectionDeaths = 0
    this.#drain.clearSuspect(batch)
  }

  #succeed (queue: PartitionQueue, batch: ProducerBatch, baseOffset: bigint, logAppendTime: bigint, logStartOffset: bigint): void {
    const topic = batch.topic
    const partition = batch.partition
    const encodedBytes = batch.encoded?.length ?? batch.bytes
    this.#metrics.batchProduced(topic, batch.recordCount, encodedBytes, batch.bytes, (this.#compressionByTopic[topic] ?? this.#compression) !== 'none')
    // Records are answered in order: each offset is the previous one + 1n (one bigint per
    // record, not two), unless one was skipped (answered early).
    // The bigint comparisons are made once per batch, not per record.
    const hasOffsets = baseOffset >= 0n
    const appendTime = logAppendTime >= 0n ? logAppendTime : undefined
    const records = batch.records
    let lastIndex = -2
    let lastOffset = -1n
    this.#finishBatch(queue, batch, null, i => {
      let offset = -1n
      if (hasOffsets) offset = i === lastIndex + 1 ? lastOffset + 1n : baseOffset + BigInt(i)
      lastIndex = i
      lastOffset = offset
      return { topic, partition, offset, timestamp: appendTime ?? records[i].timestamp!, logStartOffset }
    })
    queue.onWritten(batch)
  }

  /** No definite answer: retry with the same id, epoch and sequence, whatever the limits say. */
  #retryAmbiguous (queue: PartitionQueue, batch: ProducerBatch, error: Error): void {
    if (batch.abandoned) {
      // Every waiter was answered already (outcome unknown); drop it and move to a new epoch.
      this.#finishBatch(queue, batch, null, null)
      this.#leaveIdentity(queue, 'a batch whose outcome is unknown was abandoned after an abort')
      return
    }
    batch.ambiguous = true
    batch.lastError = error
    const aborts = batch.pendingAborts
    if (aborts !== undefined) {
      batch.pendingAborts = undefined
      for (const tracker of aborts) this.#expiry.settleAbortedUnknown(queue, batch, tracker)
      if (batch.finished) return
    }
    this.#backOff(queue, batch.attempts++)
    this.emit('ambiguous', { topic: batch.topic, partition: batch.partition, baseSequence: batch.baseSequence, error })
  }

  /** Definitely not written: retry unless the batch ran out of retries (then it fails, which needs a new epoch if it had a sequence). */
  #retryDefinite (queue: PartitionQueue, batch: ProducerBatch, error: Error, counts: boolean): void {
    batch.lastError = error
    if (counts && !batch.ambiguous && batch.attempts >= this.#retries) {
      this.#failDefinitely(queue, batch, error)
      return
    }
    if (batch.abandoned && !batch.ambiguous) {
      this.#failDefinitely(queue, batch, error)
      return
    }
    this.#backOff(queue, batch.attempts++)
  }

  /**
   * MESSAGE_TOO_LARGE: this attempt was definitely not written. A batch of several records
   * is split in two in its place and both halves are retried (as the Java client does),
   * down to single records; the halves cover the batch's sequences in order, so nothing
   * after them needs new ones. A single record still too large fails alone with
   * RecordTooLargeError, once the topic's limit is read for its message (the batch counts
   * as in flight meanwhile, so nothing overtakes it); its sequence gap moves the partition
   * to a new identity as any definite failure of a sent batch does.
   */
  #onTooLarge (queue: PartitionQueue, batch: ProducerBatch, error: BrokerError): void {
    if (batch.ambiguous) {
      // An earlier attempt may be in the log under these sequences: split halves would be
      // refused as out of order (or resent as duplicates under a new epoch).
      this.#finishBatch(queue, batch, new OutcomeUnknownError(`${error.message}; an earlier attempt of ${queue.key}'s batch (sequence ${batch.baseSequence}) was written without a definite answer, so it may or may not be in the log`, { cause: error }), null)
      this.#leaveIdentity(queue, `a batch of ${queue.key} whose outcome was unknown was answered MESSAGE_TOO_LARGE`)
      return
    }
    batch.lastError = error
    if (batch.recordCount > 1) {
      queue.insertAfter(batch, batch.splitOff(Math.ceil(batch.recordCount / 2)))
      // Pipelined batches behind it are refused as out of order: resend from the head, one at a time.
      queue.becomeSerial()
      this.#scheduleDrain()
      return
    }
    const recordBytes = batch.encoded?.length ?? batch.bytes
    queue.hold(batch)
    void this.#topicMessageLimit(queue.topic).then(limit => {
      queue.markAnswered(batch)
      if (!batch.finished) this.#failDefinitely(queue, batch, new RecordTooLargeError(queue.topic, queue.partition, recordBytes, limit))
      this.#scheduleDrain()
    })
  }

  /** The topic's max.message.bytes (DescribeConfigs answers the broker's default when the topic sets none), or undefined. */
  async #topicMessageLimit (topic: string): Promise<number | undefined> {
    try {
      const response = await this.#client.request(DescribeConfigs, {
        resources: [{ resourceType: TOPIC_RESOURCE, resourceName: topic, configurationKeys: ['max.message.bytes'] }]
      }, { timeoutMs: Math.min(this.#requestTimeoutMs, 5000) })
      const value = Number(response.results[0]?.configs.find(c => c.name === 'max.message.bytes')?.value)
      return Number.isInteger(value) && value > 0 ? value : undefined
    } catch {
      return undefined
    }
  }

  #onSequenceError (queue: PartitionQueue, batch: ProducerBatch, error: BrokerError): void {
    batch.lastError = error
    if (queue.hasUnresolvedBefore(batch)) {
      // An earlier batch failed and will be retried first; this one follows it.
      this.#backOff(queue, 0)
      return
    }
    if (madeGapItself(queue, batch, error.code)) {
      // The producer dropped a sent batch of this identity itself (a definite failure, a
      // timeout, an abort): the broker refuses what follows the gap, and nothing it
      // acknowledged is missing. The partition is leaving the identity already.
      if (this.#client[internal].instrumentation.log.debugOn) this.#client[internal].instrumentation.log.debug(`${error.message}: expected after a batch of ${queue.key} was dropped; resent under the new epoch`, { topic: batch.topic, partition: batch.partition })
    } else {
      // The broker's sequence state does not match ours with nothing ahead of this batch:
      // records acknowledged earlier may have been lost (e.g. an unclean leader election).
      const event: DataLossEvent = { topic: batch.topic, partition: batch.partition, code: error.code, message: `${error.message}: the broker lost track of this producer's sequence on ${queue.key}; records acknowledged earlier may be missing from the log. The producer moves to a new epoch and resends what is pending.` }
      if (this.listenerCount('dataLoss') > 0) this.emit('dataLoss', event)
      else this.#client[internal].instrumentation.log.warn(event.message, { code: 'KAFKATS_DATA_LOSS', topic: event.topic, partition: event.partition })
    }
    // The broker refused this attempt; whatever an earlier attempt did is now resolved as "not in the log".
    batch.ambiguous = false
    queue.becomeSerial()
    this.#leaveIdentity(queue, error.message)
  }

  #failDefinitely (queue: PartitionQueue, batch: ProducerBatch, error: Error): void {
    const hadSequence = batch.baseSequence >= 0
    this.#finishBatch(queue, batch, error, null)
    // Its sequence was never used by the broker; later batches of this epoch would be out of order.
    if (hadSequence) this.#leaveIdentity(queue, `a batch of ${queue.key} failed: ${error.message}`)
  }

  #backOff (queue: PartitionQueue, attempt: number): void {
    queue.backOffUntil(this.#client.clock.now() + backoffDelay(attempt, this.#client.backoff))
    this.#drain.at(queue.retryAt)
  }

  #finishBatch (queue: PartitionQueue, batch: ProducerBatch, error: Error | null, resultOf: ((i: number) => RecordMetadata) | null): void {
    // Once: a forced close answers in-flight batches, and their outcome arrives later.
    if (batch.finished) return
    batch.finished = true
    this.#drain.clearSuspect(batch)
    this.#accumulator.finish(queue, batch)
    this.#wakeIfRoom()
    batch.settleAll(error, resultOf)
    this.#resolveDone(batch)
    if (error !== null) this.#txn?.onRecordFailed(error)
  }

  /** Buffer space was freed: sends waiting for room go on, and 'drain' tells produce() callers. */
  #wakeIfRoom (): void {
    if (!this.#accumulator.full) {
      this.#wakeSpaceWaiters()
      this.emit('drain')
    }
  }

  // ---------------------------------------------------------------- idempotence

  /**
   * A sent batch of `queue` was dropped (or the broker lost its sequences): it issues no
   * further sequence under its identity (see Sequencing.leave). Nothing to do without idempotence.
   */
  #leaveIdentity (queue: PartitionQueue, reason: string): void {
    if (this.#idempotent) this.#sequencing.leave(queue, reason)
  }

  /** Batches that cannot be sent until the producer gets an identity. */
  #hasBatchesWaitingForIdentity (): boolean {
    for (const queue of this.#accumulator.active) if (this.#sequencing.waitsForIdentity(queue)) return true
    return false
  }

  /** InitProducerId failed for good: records that needed an identity fail (none of them is in the log). */
  #failWaitingForIdentity (error: Error): void {
    const failure = error instanceof ProducerClosedError ? error : new ProducerIdentityError(error)
    for (const queue of [...this.#accumulator.active]) {
      if (!this.#sequencing.waitsForIdentity(queue)) continue
      for (const batch of [...queue.batches]) {
        if (batch.ambiguous || batch.inFlight) continue
        this.#finishBatch(queue, batch, failure, null)
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  #refreshTimer: ClockTimer | undefined

  #refreshMetadataSoon (): void {
    if (this.#refreshTimer !== undefined) return
    this.#refreshTimer = this.#client.clock.setTimer(() => {
      this.#refreshTimer = undefined
      const topics = new Set([...this.#accumulator.active].map(q => q.topic))
      this.#client.metadata.refresh(topics).then(() => {
        this.#metadataFailure = undefined
        this.#failDeletedTopics()
        this.#scheduleDrain()
      }, (error: Error) => {
        if (this.#closed) return
        this.#onMetadataFailure(error)
        this.#scheduleDrain()
      })
    }, this.#client.backoff.initialMs, { keepAlive: true })
  }

  /** The last failure of the producer's own metadata refresh, until one succeeds: the delivery timeout of a partition without a leader names it. */
  #metadataFailure: Error | undefined

  /** A refresh failed: a warning once per run of failures (each refresh is retried while records wait), and the error kept for their messages. */
  #onMetadataFailure (error: Error): void {
    const first = this.#metadataFailure === undefined
    this.#metadataFailure = error
    if (!first) return
    this.#client[internal].instrumentation.log.warn(`the producer could not refresh metadata (${describeError(error)}); records whose partition leader is unknown or moved wait and it is tried again, until their deliveryTimeoutMs (${this.#deliveryTimeoutMs} ms)`, { code: 'KAFKATS_PRODUCER_METADATA', error })
  }

  /**
   * Partitions whose broker said the topic is unknown, and whose topic the refreshed metadata
   * no longer lists (or lists under another topic id): their records can never be written
   * to the log they were meant for, ambiguous ones included (that log is gone), so they fail.
   */
  #failDeletedTopics (): void {
    for (const queue of [...this.#accumulator.active]) {
      const topic = this.#client.metadata.topic(queue.topic)
      // A topic missing from refreshed metadata was deleted, whether or not a broker said so yet.
      const noted = queue.takeTopicMissingCode()
      const code = noted !== 0 ? noted : topic === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : 0
      if (code === 0) continue
      const sentUnder = queue.batches.find(b => b.topicId !== undefined)?.topicId
      if (topic !== undefined && (sentUnder === undefined || topic.topicId === sentUnder)) continue
      const why = topic === undefined ? 'is no longer in the cluster\'s metadata' : `was re-created (topic id ${sentUnder} became ${topic.topicId})`
      for (const batch of [...queue.batches]) {
        if (batch.inFlight) continue
        const state = batch.ambiguous ? 'an earlier attempt may have been written to the deleted topic\'s log' : 'it was not written'
        this.#finishBatch(queue, batch, new TopicDeletedError(queue.topic, code, `Topic "${queue.topic}" was deleted while records for partition ${queue.partition} waited to be written: it ${why}. The record is not in the topic's log (${state}); create the topic again and resend if it is still needed.`), null)
      }
      // The broker has no producer state for a new topic: start over on it.
      if (queue.inFlight === 0) queue.adopt(NO_IDENTITY)
    }
  }

  #hasNoLeader (queue: PartitionQueue): boolean {
    return (this.#client.metadata.partition(queue.topic, queue.partition)?.leaderId ?? -1) < 0
  }

  async #waitForSpace (signal?: AbortSignal): Promise<void> {
    await this.#waitUntil(() => !this.#accumulator.full, signal, true)
  }

  /** Waits until `condition` holds, rechecked whenever buffer space is released or a waiting send is done. */
  async #waitUntil (condition: () => boolean, signal: AbortSignal | undefined, failIfClosed: boolean): Promise<void> {
    while (!condition()) {
      if (failIfClosed) this.#checkOpen()
      else if (this.#closed) return
      await this.#spaceFreed.wait(signal).catch((reason: unknown) => {
        throw new AbortedError('Aborted while waiting for room in the producer buffer', { written: false, cause: reason })
      })
    }
  }

  #wakeSpaceWaiters (): void {
    this.#spaceFreed.notify()
  }

  async #whenDone (batch: ProducerBatch): Promise<void> {
    if (!this.#isPending(batch)) return
    let done = this.#batchDone.get(batch)
    if (done === undefined) {
      let resolve!: () => void
      const promise = new Promise<void>(r => { resolve = r })
      this.#batchDone.set(batch, done = { promise, resolve })
    }
    await done.promise
  }

  #isPending (batch: ProducerBatch): boolean {
    return this.#accumulator.holds(batch)
  }

  #resolveDone (batch: ProducerBatch): void {
    this.#batchDone.get(batch)?.resolve()
  }

  #checkOpen (): void {
    if (this.#closed) throw this.#closedError ?? new ProducerClosedError()
  }
}

/** What the records of one send()/sendTo() call are buffered with: where their outcomes go, their batches (for an abort), and whether the records are the producer's to convert in place. */
type CallTracker = AbortableTracker & { adopt: boolean }

/** send()'s answer: every record's metadata in call order; one record's own error, or a SendError with every record's outcome. */
class ResultsAnswer implements SendAnswer<RecordMetadata[]> {
  readonly #results: RecordMetadata[]
  #errors: Array<Error | undefined> | undefined
  readonly #many: boolean

  constructor (count: number, many: boolean) {
    this.#results = new Array<RecordMetadata>(count)
    this.#many = many
  }

  settle (index: number, error: Error | null, result: RecordMetadata | null): void {
    if (error !== null) (this.#errors ??= new Array(this.#results.length))[index] = error
    else this.#results[index] = result!
  }

  finish (): RecordMetadata[] {
    const errors = this.#errors
    if (errors === undefined) return this.#results
    throw this.#many ? new SendError(this.#results, errors) : errors.find(e => e !== undefined)!
  }
}

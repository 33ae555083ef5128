/**
 * kafkajs's producer on kafkats's Producer. `send`/`sendBatch` validate as kafkajs does,
 * choose partitions with kafkajs's partitioners (byte-identical), and answer with kafkajs's
 * result: one entry per topic-partition with string offsets.
 *
 * What stays kafkats's: a record is acknowledged only once the broker has it at the offset
 * reported, and with `idempotent: true` a batch whose outcome is unknown is retried under its
 * sequence until known (kafkajs could acknowledge a retried batch at another's offset).
 */
import { ErrorCode } from '../protocol/error-codes'
import type { Client } from '../index'
import { Metadata } from '../protocol/apis/metadata'
import { compress, CompressionCodecUnavailableError, type CompressionCodec } from '../protocol/compression'
import type { RecordHeader } from '../protocol/record-batch'
import type { Producer, ProducerOptions, ProducerRecord } from '../producer/producer'
import type { RecordMetadata as NativeRecordMetadata, SendAnswer } from '../producer/batch'
import '../index'
import type { PartitionMetadata } from './assigners'
import { CompressionTypes } from './constants'
import { KafkaJSError, KafkaJSNonRetriableError, KafkaJSNotImplemented, KafkaJSProtocolError, protocolErrorInfo, toKafkaJSError } from './errors'
import { Instrumentation, producerEvents, type ProducerEventPayloads } from './instrumentation'
import type { ProducerEventMap, RemoveInstrumentationEventListener } from './types'
import type { ClientContext } from './config'
import type { Logger } from './logger'
import { Partitioners } from './partitioners'
import { internal } from '../client/internal'

import type { IHeaders, Message, ProducerBatch, ProducerConfig, ProducerRecord as ProducerRecordKJS, RecordMetadata, Transaction } from './types'

/** The compression codecs kafkajs users register; kafkats's native codecs are there by default. */
export const CompressionCodecs: Record<1 | 2 | 3 | 4, () => unknown> = {
  [CompressionTypes.GZIP]: () => ({ native: 'gzip' }),
  [CompressionTypes.Snappy]: () => ({ native: 'snappy' }),
  [CompressionTypes.LZ4]: () => ({ native: 'lz4' }),
  [CompressionTypes.ZSTD]: () => ({ native: 'zstd' })
}

const CODEC_NAMES: Record<number, CompressionCodec> = { 0: 'none', 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' }

const available = new Set<CompressionCodec>(['none', 'gzip'])

/** kafkajs's KafkaJSNotImplemented for a codec that cannot compress here (its native package does not load), before anything is sent. */
async function checkAvailable (codec: CompressionCodec): Promise<void> {
  if (available.has(codec)) return
  try {
    await compress(codec, Buffer.alloc(1))
  } catch (error) {
    if (error instanceof CompressionCodecUnavailableError) throw new KafkaJSNotImplemented(`${codec} compression not implemented: ${error.message}`)
    throw error
  }
  available.add(codec)
}

function isValidTopicName (topic: string): boolean {
  return typeof topic === 'string' && topic.length <= 249 && /^[a-zA-Z0-9._-]+$/.test(topic) && topic !== '.' && topic !== '..'
}

function codecOf (compression: number | undefined): CompressionCodec {
  const type = compression ?? CompressionTypes.None
  const name = CODEC_NAMES[type]
  if (name === undefined) throw new KafkaJSNotImplemented(`Compression type ${String(compression)} is not known`)
  if (name !== 'none') {
    const factory = (CompressionCodecs as Record<number, (() => unknown) | undefined>)[type]
    if (typeof factory !== 'function') throw new KafkaJSNotImplemented(`${name} compression not implemented`)
    // A codec registered by the application (kafkajs-snappy, kafkajs-lz4, ...) is accepted;
    // the records are compressed by kafkats's own codec of that type, which writes the same format.
    factory()
  }
  return name
}

function toHeaders (headers: IHeaders | undefined): RecordHeader[] | undefined {
  if (headers === undefined || headers === null) return undefined
  const out: RecordHeader[] = []
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) out.push({ key, value: Buffer.isBuffer(v) ? v : Buffer.from(String(v)) })
  }
  return out
}

export function partitionMetadataOf (client: Client, topic: string): PartitionMetadata[] {
  const meta = client.metadata.topic(topic)
  if (meta === undefined) return []
  return meta.partitions.filter(p => p !== undefined).map(p => ({ partitionErrorCode: p.errorCode, partitionId: p.partition, leader: p.leaderId, replicas: p.replicas, isr: p.isr, offlineReplicas: p.offlineReplicas }))
}

type ConnectionStatus = 'connected' | 'disconnecting' | 'disconnected'

/** One topic-partition's answer to a send(), and the lowest offset written there. */
interface PartitionResult { first: bigint, metadata: RecordMetadata }

/**
 * What one send() call gathers from its records' acknowledgements (the native sendTo()'s
 * answer): kafkajs's answer (per topic-partition, the lowest offset written there, in
 * first-seen order) and the first error. No per-record result outlives its settle: the
 * native send()'s array of them, held until the whole call was answered, made the drop-in's
 * produce spend a fifth more CPU, most of it in garbage collection.
 */
class KafkaJSAnswer implements SendAnswer<RecordMetadata[]> {
  readonly #partitions: PartitionResult[] = []
  #error: Error | undefined
  readonly #acks: number
  /** The partitions of each topic in an array by partition number (no string key per record). */
  readonly #byTopic = new Map<string, Array<PartitionResult | undefined>>()
  #lastTopic: string | undefined
  #ofTopic: Array<PartitionResult | undefined> = []

  constructor (acks: number) {
    this.#acks = acks
  }

  settle (_index: number, error: Error | null, r: NativeRecordMetadata | null): void {
    if (error !== null) this.#error ??= error
    else if (r !== null) this.#add(r)
  }

  /** kafkajs's answer; a failure with the first failed record's error, as kafkajs reports it. */
  finish (): RecordMetadata[] {
    if (this.#error !== undefined) throw toKafkaJSError(this.#error)
    return this.#acks === 0 ? [] : this.#partitions.map(result => result.metadata)
  }

  #add (r: NativeRecordMetadata): void {
    if (r.topic !== this.#lastTopic) {
      this.#lastTopic = r.topic
      let known = this.#byTopic.get(r.topic)
      if (known === undefined) this.#byTopic.set(r.topic, known = [])
      this.#ofTopic = known
    }
    const result = this.#ofTopic[r.partition]
    if (result === undefined) {
      const first = { first: r.offset, metadata: { topicName: r.topic, partition: r.partition, errorCode: 0, baseOffset: String(r.offset), logAppendTime: '-1', logStartOffset: String(r.logStartOffset) } }
      this.#ofTopic[r.partition] = first
      this.#partitions.push(first)
    } else if (r.offset < result.first) {
      result.first = r.offset
      result.metadata.baseOffset = String(r.offset)
    }
  }
}

/**
 * Makes a KafkaJSProducer (kafka.producer()). Its constructor is private, so applications, which take it
 * from a Kafka instance as with kafkajs, see no constructor and no internal context type;
 * the class's static block sets this function.
 */
export let createProducer: (context: ClientContext, config: ProducerConfig) => KafkaJSProducer

export class KafkaJSProducer {
  readonly events = producerEvents
  readonly #context: ClientContext
  readonly #config: ProducerConfig
  readonly #logger: Logger
  readonly #instrumentation = new Instrumentation<ProducerEventPayloads, ProducerEventMap>('producer', producerEvents)
  readonly #idempotent: boolean
  /** `idempotent: true` asked for: kafkajs refuses its sends without acks -1 (a transactional id alone does not). */
  readonly #explicitlyIdempotent: boolean
  readonly #partitioner: ((args: { topic: string, partitionMetadata: PartitionMetadata[], message: Message }) => number) | undefined
  readonly #nativePartitioner: 'kafkajs-default' | 'kafkajs-legacy'
  #client: Client | undefined
  #connecting: Promise<Client> | undefined
  readonly #producers = new Map<string, Producer>()
  #transactional: Producer | undefined
  #status: ConnectionStatus = 'disconnected'

  static {
    createProducer = (context, config) => new KafkaJSProducer(context, config)
  }

  private constructor (context: ClientContext, config: ProducerConfig = {}) {
    this.#context = context
    this.#config = config
    this.#logger = context.logger.namespace('Producer')
    this.#idempotent = config.idempotent === true || config.transactionalId !== undefined
    this.#explicitlyIdempotent = config.idempotent === true
    const retries = config.retry?.retries
    if (this.#idempotent && retries !== undefined && retries < 1) {
      throw new KafkaJSNonRetriableError('Idempotent producer must allow retries to protect against transient errors')
    }
    if (this.#idempotent && retries !== undefined && retries < Number.MAX_SAFE_INTEGER) {
      this.#logger.warn('Limiting retries for the idempotent producer may invalidate EoS guarantees')
    }
    const create = config.createPartitioner
    if (create === undefined || create === Partitioners.DefaultPartitioner || create === Partitioners.JavaCompatiblePartitioner) {
      this.#nativePartitioner = 'kafkajs-default'
    } else if (create === Partitioners.LegacyPartitioner) {
      this.#nativePartitioner = 'kafkajs-legacy'
    } else {
      this.#nativePartitioner = 'kafkajs-default'
      this.#partitioner = create()
    }
  }

  logger (): Logger {
    return this.#logger
  }

  on<E extends keyof ProducerEventMap & string> (eventName: E, listener: (event: ProducerEventMap[E]) => void): RemoveInstrumentationEventListener<E> {
    return this.#instrumentation.on(eventName, listener)
  }

  isIdempotent (): boolean {
    return this.#idempotent
  }

  async connect (): Promise<void> {
    if (this.#client !== undefined) return
    this.#connecting ??= this.#context.connect('Producer', { metadataMaxAge: this.#config.metadataMaxAge, onRequest: event => { this.#instrumentation.network('producer', event) } })
    try {
      this.#client = await this.#connecting
    } finally {
      this.#connecting = undefined
    }
    this.#status = 'connected'
    this.#instrumentation.emit(producerEvents.CONNECT, null)
  }

  async disconnect (): Promise<void> {
    if (this.#client === undefined) return
    this.#status = 'disconnecting'
    const client = this.#client
    try {
      await Promise.all([...this.#producers.values(), ...(this.#transactional !== undefined ? [this.#transactional] : [])].map(async p => await p.close()))
    } finally {
      this.#producers.clear()
      this.#transactional = undefined
      this.#client = undefined
      this.#status = 'disconnected'
      await client.close()
      this.#instrumentation.emit(producerEvents.DISCONNECT, null)
    }
  }

  async send (record: ProducerRecordKJS): Promise<RecordMetadata[]> {
    const { acks, timeout, compression, topic, messages } = record ?? ({} as ProducerRecordKJS)
    // Not through this.sendBatch: instrumentations wrap both public methods (as kafkajs's send
    // calls its own function, a send is one send, not also a sendBatch).
    return await this.#sendBatch({ acks, timeout, compression, topicMessages: [{ topic, messages }] })
  }

  async sendBatch (batch: ProducerBatch): Promise<RecordMetadata[]> {
    return await this.#sendBatch(batch)
  }

  async #sendBatch (batch: ProducerBatch): Promise<RecordMetadata[]> {
    const { client, records, acks, codec, timeout } = await this.#prepare(batch)
    return await this.#deliver(this.#producerFor(client, acks, codec, timeout), records, acks)
  }

  /** kafkajs's checks, then the records in kafkats's shape (partitions chosen by a custom partitioner here). */
  async #prepare ({ acks = -1, timeout, compression, topicMessages = [] }: ProducerBatch): Promise<{ client: Client, records: ProducerRecord[], acks: number, codec: CompressionCodec, timeout: number | undefined }> {
    if (topicMessages.some(({ topic }) => topic === undefined || topic === null || topic === '')) throw new KafkaJSNonRetriableError('Invalid topic')
    // kafkajs hears INVALID_TOPIC_EXCEPTION from the broker; kafkats knows the rule and says it before sending.
    if (topicMessages.some(({ topic }) => !isValidTopicName(topic))) throw new KafkaJSProtocolError(protocolErrorInfo(ErrorCode.INVALID_TOPIC_EXCEPTION))
    if (this.#explicitlyIdempotent && acks !== -1) throw new KafkaJSNonRetriableError('Not requiring ack for all messages invalidates the idempotent producer\'s EoS guarantees')
    for (const { topic, messages } of topicMessages) {
      if (messages === undefined || messages === null || !Array.isArray(messages)) throw new KafkaJSNonRetriableError(`Invalid messages array [${String(messages)}] for topic "${topic}"`)
      for (let i = 0; i < messages.length; i++) {
        if (messages[i].value === undefined) throw new KafkaJSNonRetriableError(`Invalid message without value for topic "${topic}": ${JSON.stringify(messages[i])}`)
      }
    }
    if (this.#status === 'disconnecting') throw new KafkaJSNonRetriableError('The producer is disconnecting; therefore, it can\'t safely accept messages anymore')
    const client = this.#client
    if (this.#status === 'disconnected' || client === undefined) throw new KafkaJSError('The producer is disconnected')
    const codec = codecOf(compression)
    await checkAvailable(codec)
    // Handed to the native sendTo(), which buffers each of these objects as it is (no copy).
    const records: ProducerRecord[] = []
    for (const { topic, messages } of topicMessages) {
      await this.#ensureTopic(client, topic)
      for (let i = 0; i < messages.length; i++) {
        const message = messages[i]
        let partition = message.partition
        if (partition === undefined && this.#partitioner !== undefined) {
          partition = this.#partitioner({ topic, partitionMetadata: partitionMetadataOf(client, topic), message })
        }
        const { headers, timestamp } = message
        records.push({
          topic,
          key: message.key ?? null,
          value: message.value,
          headers: headers === undefined || headers === null ? undefined : toHeaders(headers),
          partition,
          timestamp: timestamp === undefined || timestamp === null ? undefined : Number(timestamp)
        })
      }
    }
    return { client, records, acks, codec, timeout }
  }

  /**
   * Sends through the native sendTo() (its checks of every record before any is buffered,
   * its waiting for room in call order, its trace), answering as kafkajs does.
   */
  async #deliver (producer: Producer, records: ProducerRecord[], acks: number): Promise<RecordMetadata[]> {
    if (records.length === 0) return []
    try {
      return await producer[internal].sendTo(records, new KafkaJSAnswer(acks))
    } catch (error) {
      throw toKafkaJSError(error)
    }
  }

  /**
   * kafkajs's transaction object over kafkats's transactional producer (one per kafkajs
   * producer; sends outside a transaction go through an idempotent, non-transactional one).
   */
  async transaction (): Promise<Transaction> {
    const transactionalId = this.#config.transactionalId
    if (transactionalId === undefined) throw new KafkaJSNonRetriableError('Must provide transactional id for transactional producer')
    const client = this.#client
    if (client === undefined) throw new KafkaJSError('The producer is disconnected')
    this.#transactional ??= client.producer({ transactionalId, transactionTimeoutMs: this.#config.transactionTimeout ?? 60_000, lingerMs: 0, partitioner: this.#nativePartitioner })
    const native = this.#transactional
    if (native.transactionState === 'inTransaction') {
      throw new KafkaJSNonRetriableError('There is already an ongoing transaction for this producer. Please end the transaction before beginning another.')
    }
    try {
      await native.beginTransaction()
    } catch (error) {
      throw toKafkaJSError(error)
    }
    let ended = false
    const sentOffsets: Array<[string, Array<{ topic: string, partition: number, offset: bigint }>]> = []
    const isActive = (): boolean => !ended && (native.transactionState === 'inTransaction' || native.transactionState === 'abortableError')
    const guard = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
      if (!isActive()) throw new KafkaJSNonRetriableError('Cannot continue to use transaction once ended')
      try {
        return await fn(...args)
      } catch (error) {
        throw toKafkaJSError(error)
      }
    }
    const sendBatch = async (batch: ProducerBatch): Promise<RecordMetadata[]> => {
      const { records, acks } = await this.#prepare(batch)
      return await this.#deliver(native, records, acks)
    }
    return {
      send: guard(async (record: ProducerRecordKJS) => await sendBatch({ acks: record?.acks, timeout: record?.timeout, compression: record?.compression, topicMessages: [{ topic: record?.topic, messages: record?.messages }] })),
      sendBatch: guard(sendBatch),
      sendOffsets: guard(async ({ consumerGroupId, topics }: { consumerGroupId: string, topics: Array<{ topic: string, partitions: Array<{ partition: number, offset: string }> }> }) => {
        const offsets = topics.flatMap(t => t.partitions.map(p => ({ topic: t.topic, partition: Number(p.partition), offset: BigInt(p.offset) })))
        await native.sendOffsets({
          groupMetadata: { groupId: consumerGroupId, memberId: '', generationId: -1, groupInstanceId: null },
          offsets
        })
        sentOffsets.push([consumerGroupId, offsets])
      }),
      commit: guard(async () => {
        await native.commitTransaction()
        ended = true
        for (const [groupId, offsets] of sentOffsets) this.#context.committedOffsets.emit('committed', groupId, offsets)
      }),
      abort: guard(async () => {
        await native.abortTransaction()
        ended = true
      }),
      isActive
    }
  }

  /** kafkats producers by acks and codec (kafkajs takes both per send, kafkats per producer). */
  #producerFor (client: Client, acks: number, codec: CompressionCodec, timeout: number | undefined): Producer {
    const key = `${acks}/${codec}`
    let producer = this.#producers.get(key)
    if (producer === undefined) {
      const options: ProducerOptions = {
        acks: acks === -1 ? 'all' : acks as 0 | 1,
        // Idempotence needs acks all: a transactional producer's acks 0/1 sends outside a transaction go without it, as in kafkajs.
        idempotent: this.#idempotent && acks === -1,
        compression: codec,
        partitioner: this.#nativePartitioner,
        // kafkajs sends at once; kafkats batches what is sent together in one call anyway.
        lingerMs: 0,
        // kafkajs asks the broker to create unknown topics unless told not to.
        allowAutoTopicCreation: this.#config.allowAutoTopicCreation !== false
      }
      if (timeout !== undefined) options.requestTimeoutMs = timeout
      if (options.idempotent !== true) options.maxRetries = this.#config.retry?.retries ?? this.#context.config.retry?.retries ?? 5
      producer = client.producer(options)
      this.#producers.set(key, producer)
    }
    return producer
  }

  /** kafkajs auto-creates unknown topics (allowAutoTopicCreation, default true) through Metadata. */
  async #ensureTopic (client: Client, topic: string): Promise<void> {
    if (client.metadata.topic(topic) !== undefined) return
    if (this.#config.allowAutoTopicCreation !== false) {
      await client.request(Metadata, { topics: [{ name: topic }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }).catch(() => {})
    }
    if (this.#partitioner !== undefined) {
      try {
        await client.metadata.waitForTopic(topic, client.requestTimeoutMs)
      } catch (error) {
        throw toKafkaJSError(error)
      }
    }
  }
}

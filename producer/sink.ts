/**
 * Sink: the produce outbox of one broker (franz-go's name). It takes sendable batches
 * of the partitions this broker leads — one per partition per request — builds a
 * Produce request, sends it on the broker's produce connection, and hands every
 * outcome back to the producer, which decides what each batch's result means.
 *
 * Rules:
 * - Requests reach the socket in the order their batches were taken, because
 *   sequences were assigned in that order: a later request waits for the earlier
 *   one's write (`#writeOrder`) even if its own encoding or connecting finished first.
 * - At most `maxInFlightRequests` requests are outstanding on the connection.
 * - `written` on the outcome tells whether the request may have reached the broker:
 *   a failure before the write can never have appended anything.
 * - A batch whose codec the negotiated Produce version cannot carry (zstd below v7, a
 *   broker before Kafka 2.1) fails before the write with UnsupportedVersionError: the
 *   broker would answer UNKNOWN_SERVER_ERROR to every attempt.
 */
import type { Client } from '../client/client'
import { brokersWith } from '../protocol/api-releases'
import { Produce, type ProducePartitionResponse, type ProduceRequest } from '../protocol/apis/produce'
import { encodeRecordBatch } from '../protocol/record-batch'
import { COMPRESSION_CODECS, MIN_PRODUCE_VERSION, type CompressionCodec } from '../protocol/compression'
import { UnsupportedVersionError } from '../client/errors'
import type { ProducerBatch } from './batch'
import type { PartitionQueue } from './partition-queue'
import type { Writer } from '../protocol/writer'
import { internal } from '../client/internal'

export interface SendItem {
  queue: PartitionQueue
  batch: ProducerBatch
}

export type ItemOutcome =
  | { kind: 'response', partition: ProducePartitionResponse | undefined }
  | { kind: 'no-response' } // acks=0
  | { kind: 'error', error: Error, written: boolean }

export interface SinkHost {
  /**
   * Takes up to one sendable batch per partition led by `nodeId`, marking them in flight.
   * A batch whose connection died before is taken alone, and only when `nothingInFlight`.
   */
  takeSendable: (nodeId: number, maxBytes: number, nothingInFlight: boolean) => SendItem[]
  /** Every item of a finished request, with its outcome. */
  onOutcome: (nodeId: number, item: SendItem, outcome: ItemOutcome) => void
  /** A request finished: there may be room to send more. */
  onRequestDone: (nodeId: number) => void
  compressionFor: (topic: string) => CompressionCodec
  /** A writer over a reused buffer for a batch of up to `sizeBound` bytes before compression, or undefined (the encoder allocates). */
  batchWriter: (sizeBound: number) => Writer | undefined
}

export interface SinkOptions {
  acks: number
  requestTimeoutMs: number
  maxRequestBytes: number
  maxInFlightRequests: number
  transactionalId: string | null
  /** The highest Produce version to use (a transaction on transaction.version 1 stays at v11). */
  maxProduceVersion: number
}

export class Sink {
  readonly nodeId: number
  readonly #client: Client
  readonly #host: SinkHost
  readonly #options: SinkOptions
  #inFlightRequests = 0
  /** Settles when the previous request was handed to the socket (or failed before that). */
  #writeOrder: Promise<void> = Promise.resolve()

  constructor (nodeId: number, client: Client, host: SinkHost, options: SinkOptions) {
    this.nodeId = nodeId
    this.#client = client
    this.#host = host
    this.#options = options
  }

  get inFlightRequests (): number {
    return this.#inFlightRequests
  }

  /** Sends requests while there is room on the connection and batches to send. */
  drain (): void {
    while (this.#inFlightRequests < this.#options.maxInFlightRequests && !this.#aloneInFlight) {
      const nothingInFlight = this.#inFlightRequests === 0
      const items = this.#host.takeSendable(this.nodeId, this.#options.maxRequestBytes, nothingInFlight)
      if (items.length === 0) return
      this.#inFlightRequests++
      // A retry of a request whose connection died has the connection to itself (see producer.ts MAX_CONNECTION_DEATHS).
      const alone = items.length === 1 && items[0].batch.connectionDeaths > 0
      const sending = this.#produce(items)
      if (alone) {
        this.#aloneInFlight = true
        void sending.finally(() => { this.#aloneInFlight = false })
      }
    }
  }

  /** A batch whose connection died before is in flight: nothing else is sent to the broker until it is answered. */
  #aloneInFlight = false

  async #produce (items: SendItem[]): Promise<void> {
    const previousWrite = this.#writeOrder
    let markWritten!: () => void
    this.#writeOrder = new Promise(resolve => { markWritten = resolve })
    let sendable = items
    try {
      sendable = await this.#encode(items)
      if (sendable.length === 0) return
      const deadline = this.#client.clock.now() + this.#options.requestTimeoutMs
      const connection = await this.#client[internal].brokers.get(this.nodeId, 'produce', deadline)
      await previousWrite
      const version = Math.min(connection.versionFor(Produce), this.#options.maxProduceVersion)
      sendable = this.#refuseCodecsAbove(sendable, version, connection.brokerVersions(Produce.key)?.maxVersion)
      if (sendable.length === 0) return
      const request = this.#buildRequest(sendable, version)
      const expectResponse = this.#options.acks !== 0
      // The broker waits up to requestTimeoutMs for replication; give its answer time to arrive.
      const timeoutMs = this.#options.requestTimeoutMs + Math.max(1000, this.#options.requestTimeoutMs / 2)
      const pending = connection.send(Produce, request, { version, timeoutMs, expectResponse })
      markWritten()
      const response = await pending
      if (!expectResponse) {
        for (const item of sendable) this.#host.onOutcome(this.nodeId, item, { kind: 'no-response' })
        return
      }
      // Matched by what the request named (the topic id it carried), not by today's metadata;
      // through a map, so a request of thousands of partitions is not matched in quadratic time.
      const answers = new Map<string, Map<number, ProducePartitionResponse>>()
      for (const topic of response.responses) {
        const key = version >= 13 ? topic.topicId : topic.name
        let byIndex = answers.get(key)
        if (byIndex === undefined) answers.set(key, byIndex = new Map())
        for (const partition of topic.partitionResponses) if (!byIndex.has(partition.index)) byIndex.set(partition.index, partition)
      }
      for (const item of sendable) {
        const key = version >= 13 ? this.#requestTopicId(item.batch) : item.batch.topic
        const partition = answers.get(key)?.get(item.batch.partition)
        this.#host.onOutcome(this.nodeId, item, { kind: 'response', partition })
      }
    } catch (error) {
      const written = (error as { written?: boolean }).written ?? false
      for (const item of sendable) this.#host.onOutcome(this.nodeId, item, { kind: 'error', error: error as Error, written })
    } finally {
      markWritten()
      this.#inFlightRequests--
      this.#host.onRequestDone(this.nodeId)
    }
  }

  /** Encodes batches not encoded under their current epoch; a batch that cannot be encoded fails alone. */
  async #encode (items: SendItem[]): Promise<SendItem[]> {
    const failed = new Set<SendItem>()
    await Promise.all(items.map(async item => {
      const batch = item.batch
      if (batch.encoded === undefined) {
        try {
          const compression = this.#host.compressionFor(batch.topic)
          batch.encoded = await encodeRecordBatch({
            records: batch.records,
            sizeHint: batch.bytes,
            compression,
            producerId: batch.producerId,
            producerEpoch: batch.producerEpoch,
            baseSequence: batch.baseSequence,
            transactional: this.#options.transactionalId !== null
          }, this.#host.batchWriter(batch.bytes))
        } catch (error) {
          failed.add(item)
          this.#host.onOutcome(this.nodeId, item, { kind: 'error', error: error as Error, written: false })
        }
      }
    }))
    // In the order the batches were taken in.
    return failed.size === 0 ? items : items.filter(item => !failed.has(item))
  }

  /** Fails (not written) the batches whose codec Produce `version` cannot carry; returns the others. */
  #refuseCodecsAbove (items: SendItem[], version: number, brokerMax: number | undefined): SendItem[] {
    const sendable: SendItem[] = []
    for (const item of items) {
      const codec = this.#host.compressionFor(item.batch.topic)
      const needed = MIN_PRODUCE_VERSION[codec]
      if (version >= needed) {
        sendable.push(item)
        continue
      }
      const others = COMPRESSION_CODECS.filter(c => c !== 'none' && MIN_PRODUCE_VERSION[c] <= version).map(c => `'${c}'`).join(', ')
      const error = new UnsupportedVersionError(`Produce to ${item.batch.topic}-${item.batch.partition} on broker ${this.nodeId}: compression '${codec}' needs Produce v${needed} or later (${brokersWith(Produce.key, needed) ?? 'a newer Kafka'}), and this broker speaks Produce up to v${brokerMax ?? version}, so it cannot read the batch. The record was not sent and is not in the log. Use compression ${others} or 'none' for this topic (the producer's compression, or compressionByTopic), or upgrade the broker.`)
      this.#host.onOutcome(this.nodeId, item, { kind: 'error', error, written: false })
    }
    return sendable
  }

  #buildRequest (items: SendItem[], version: number): ProduceRequest {
    // Per topic: the topic id of its first batch (v13+) and its partitions' batches.
    const byTopic = new Map<string, { topicId: string, partitionData: Array<{ index: number, records: Buffer }> }>()
    for (const { batch } of items) {
      let topic = byTopic.get(batch.topic)
      if (topic === undefined) byTopic.set(batch.topic, topic = { topicId: version >= 13 ? this.#requestTopicId(batch) : '', partitionData: [] })
      topic.partitionData.push({ index: batch.partition, records: batch.encoded! })
    }
    const topicData = [...byTopic].map(([name, { topicId, partitionData }]) => version >= 13
      ? { name: '', topicId, partitionData }
      : { name, partitionData })
    return { transactionalId: this.#options.transactionalId, acks: this.#options.acks, timeoutMs: this.#options.requestTimeoutMs, topicData }
  }

  /** The topic id a batch is sent to: the one of its first send, so a retry never lands in a re-created topic. */
  #requestTopicId (batch: ProducerBatch): string {
    return batch.topicId ?? this.#client.metadata.topic(batch.topic)?.topicId ?? '00000000-0000-0000-0000-000000000000'
  }
}

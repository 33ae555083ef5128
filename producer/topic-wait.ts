/**
 * Topic waits: records for a topic not in metadata yet, held until it appears or
 * metadataWaitMs passes (asking the broker to create it first with allowAutoTopicCreation).
 * The producer counts held records against its buffer limits; they are in no batch, so an
 * abort or a failure settles them here, and they enter a batch only once the topic exists.
 */
import type { Client } from '../client/client'
import { UnknownTopicError } from '../client/errors'
import { Metadata } from '../protocol/apis/metadata'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { notifyWaiter, type ProducerBatch, type Waiter } from './batch'
import type { ProducerRecord } from './record-input'

/** One record held for its topic, with where its outcome goes. */
export interface HeldRecord {
  record: ProducerRecord
  waiter: Waiter
  index: number
  batches?: Set<ProducerBatch>
}

/** What TopicWaits needs of the producer. */
export interface TopicWaitsHost {
  /** The topic appeared: append the record as a new one. */
  append: (held: HeldRecord) => void
  /** The record leaves the wait (appended, failed or aborted): it counts against the buffer no more. */
  unbuffer: (record: ProducerRecord) => void
  /** A produce() callback threw while a record was failed. */
  onCallbackThrow: (error: unknown) => void
}

export interface TopicWaitsOptions {
  allowAutoTopicCreation: boolean
  metadataWaitMs: number
  requestTimeoutMs: number
}

interface TopicWait {
  ready: Promise<void>
  records: HeldRecord[]
  fail: (error: Error) => void
}

export class TopicWaits {
  readonly #client: Client
  readonly #options: TopicWaitsOptions
  readonly #host: TopicWaitsHost
  readonly #waits = new Map<string, TopicWait>()

  constructor (client: Client, options: TopicWaitsOptions, host: TopicWaitsHost) {
    this.#client = client
    this.#options = options
    this.#host = host
  }

  /** Topics records wait for. */
  get size (): number {
    return this.#waits.size
  }

  /** Holds `held` until its topic appears (then host.append) or the wait fails (then its waiter gets the error). */
  hold (held: HeldRecord): void {
    const topic = held.record.topic
    let wait = this.#waits.get(topic)
    if (wait === undefined) {
      const records: HeldRecord[] = []
      const fail = (error: Error): void => {
        if (this.#waits.get(topic) === entry) this.#waits.delete(topic)
        for (const r of records.splice(0)) {
          this.#host.unbuffer(r.record)
          notifyWaiter(r.waiter, r.index, error, null, this.#host.onCallbackThrow)
        }
      }
      const ready = this.#waitForTopic(topic).then(() => {
        this.#waits.delete(topic)
        for (const r of records.splice(0)) {
          this.#host.unbuffer(r.record)
          this.#host.append(r)
        }
      }, fail)
      const entry = { ready, records, fail }
      wait = entry
      this.#waits.set(topic, entry)
    }
    wait.records.push(held)
  }

  /** Fails every held record with `error`. */
  failAll (error: Error): void {
    for (const wait of [...this.#waits.values()]) wait.fail(error)
  }

  /** Takes `waiter`'s records out of the waits (an abort): unbuffered, then `settle`d by index. */
  release (waiter: Waiter, settle: (index: number) => void): void {
    for (const wait of this.#waits.values()) {
      const kept = wait.records.filter(r => r.waiter !== waiter)
      if (kept.length === wait.records.length) continue
      const removed = wait.records.filter(r => r.waiter === waiter)
      wait.records.splice(0, wait.records.length, ...kept)
      for (const r of removed) this.#host.unbuffer(r.record)
      for (const r of removed) settle(r.index)
    }
  }

  /** Resolves when every wait begun so far has ended, either way. */
  async settled (): Promise<void> {
    await Promise.allSettled([...this.#waits.values()].map(async w => await w.ready))
  }

  /**
   * The topic's metadata once it exists, for up to metadataWaitMs; with allowAutoTopicCreation
   * the broker is asked to create it first. A topic that never appeared fails with an
   * UnknownTopicError that says whether creation was asked for and what the broker answered.
   */
  async #waitForTopic (topic: string): Promise<void> {
    const { allowAutoTopicCreation, metadataWaitMs } = this.#options
    const refusal = allowAutoTopicCreation ? await this.#askToCreate(topic) : undefined
    try {
      await this.#client.metadata.waitForTopic(topic, metadataWaitMs, undefined, { waitOption: 'metadataWaitMs' })
    } catch (error) {
      if (!(error instanceof UnknownTopicError) || this.#client.metadata.topic(topic) !== undefined) throw error
      const why = !allowAutoTopicCreation
        ? 'The producer did not ask the broker to create it (allowAutoTopicCreation is off): create it (admin.createTopics, kafka-topics.sh), or set allowAutoTopicCreation: true for a broker with auto.create.topics.enable'
        : refusal === undefined
          ? 'The broker was asked to create it (allowAutoTopicCreation) and it did not appear in time'
          : refusal.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            ? 'The broker was asked to create it (allowAutoTopicCreation) and did not: its auto.create.topics.enable is off. Create the topic (admin.createTopics, kafka-topics.sh)'
            : `The broker was asked to create it (allowAutoTopicCreation) and refused: ${refusal.message}`
      throw new UnknownTopicError(topic, `Topic "${topic}" does not exist (waited metadataWaitMs, ${metadataWaitMs} ms, for it). ${why}. The record was not written.`)
    }
  }

  /** A Metadata request that lets the broker create `topic` (KIP-487's allow_auto_topic_creation); the broker's refusal, if it answered one. */
  async #askToCreate (topic: string): Promise<BrokerError | undefined> {
    try {
      const response = await this.#client.request(Metadata, { topics: [{ name: topic }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }, { timeoutMs: Math.min(this.#options.requestTimeoutMs, this.#options.metadataWaitMs) })
      const code = response.topics.find(t => t.name === topic)?.errorCode ?? 0
      // 5 LEADER_NOT_AVAILABLE: being created.
      return code === 0 || code === ErrorCode.LEADER_NOT_AVAILABLE ? undefined : new BrokerError(code, `Metadata (creating topic "${topic}")`)
    } catch {
      // No answer: the wait below reports what it finds.
      return undefined
    }
  }
}

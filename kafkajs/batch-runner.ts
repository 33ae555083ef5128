/**
 * kafkajs's run() loop on the GroupConsumer: each worker takes a batch and runs it through
 * eachMessage or eachBatch (with resolveOffset, heartbeat, pause, commitOffsetsIfNecessary),
 * moves the partition's position to its last resolved offset (what was not resolved comes
 * again), and retries a failing batch on kafkajs's schedule. The consumer is reached only
 * through BatchRunnerHost.
 */
import type { HandedBatch } from '../consumer/consumer'
import type { GroupConsumer } from '../group/group-consumer'
import { key, type AutoCommit } from './auto-commit'
import type { ConsumerRunConfig, Offsets } from './consumer-options'
import { KafkaJSNumberOfRetriesExceeded } from './errors'
import { consumerEvents, type ConsumerEventPayloads, type Instrumentation } from './instrumentation'
import type { ConsumerEventMap } from './types'
import { retryDelay, type RetryOptions } from './config'
import type { Logger } from './logger'
import { batchOffsets, toBatch, type KafkaMessage } from './messages'

export interface BatchRunnerHost {
  readonly groupId: string
  readonly logger: Logger
  readonly instrumentation: Instrumentation<ConsumerEventPayloads, ConsumerEventMap>
  readonly autoCommit: AutoCommit
  /** run() is on (stop() turns it off). */
  running: () => boolean
  /** The GroupConsumer of the current run (a restart makes a new one). */
  group: () => GroupConsumer | undefined
  runConfig: () => ConsumerRunConfig
  /** The consumer's retry options over the Kafka instance's. */
  retry: () => RetryOptions
  /** How often a failing batch is retried before the consumer crashes. */
  retries: () => number
  isPaused: (topic: string, partition: number) => boolean
  pause: (topicPartitions: Array<{ topic: string, partitions?: number[] }>) => void
  resume: (topicPartitions: Array<{ topic: string, partitions?: number[] }>) => void
}

export class BatchRunner {
  readonly #host: BatchRunnerHost

  constructor (host: BatchRunnerHost) {
    this.#host = host
  }

  /** One worker: batches until the consumer stops, or a batch fails past its retries (thrown). */
  async work (group: GroupConsumer): Promise<void> {
    const attempts = new Map<string, number>()
    while (this.#host.running() && this.#host.group() === group) {
      if (!await this.#workOne(group, attempts)) return
    }
  }

  /**
   * One batch taken and processed; false when the consumer is closed. Its own frame, so the
   * batch is garbage once processed: a suspended loop keeps its locals, and a batch held
   * while the next one is decoded (up to 2 MiB of messages) survives the
   * young generation and costs collection per record.
   */
  async #workOne (group: GroupConsumer, attempts: Map<string, number>): Promise<boolean> {
    const handed = await group.nextBatch()
    if (handed === undefined) return false
    const k = key(handed.batch.topic, handed.batch.partition)
    try {
      await this.#process(group, handed)
      attempts.delete(k)
    } catch (error) {
      const attempt = attempts.get(k) ?? 0
      const retries = this.#host.retries()
      const err = error as Error & { retriable?: boolean }
      if (err.retriable === false || attempt >= retries) {
        throw attempt >= retries ? new KafkaJSNumberOfRetriesExceeded(err, { retryCount: attempt, retryTime: retryDelay(this.#host.retry(), attempt) }) : err
      }
      attempts.set(k, attempt + 1)
      await new Promise(resolve => setTimeout(resolve, retryDelay(this.#host.retry(), attempt)))
    }
    return true
  }

  /** One batch through eachMessage or eachBatch, then its resolved offsets into position and commits. */
  async #process (group: GroupConsumer, handed: HandedBatch): Promise<void> {
    const { batch } = handed
    const { topic, partition } = batch
    const k = key(topic, partition)
    let state = this.#host.autoCommit.partitions.get(k)
    if (state === undefined) this.#host.autoCommit.partitions.set(k, state = { interrupted: false })
    state.interrupted = false
    const startResolved = state.resolved
    const config = this.#host.runConfig()
    // Decoded into kafkajs's messages (KafkaMessageMaker): the handler's array is the batch's own.
    const messages = batch.records as unknown as KafkaMessage[]
    const firstOffset = messages.length > 0 ? BigInt(messages[0].offset) : undefined
    // What this batch's handler resolved: it sets the partition's resolved offset whatever that
    // was before, as kafkajs's resolveOffset does (a seek past the end had set 100; the records
    // read again from 0 after the reset never counted as resolved and were handed out for ever).
    let batchResolved: bigint | undefined
    const resolveOffset = (offset: string): void => {
      const next = BigInt(offset) + 1n
      if (batchResolved !== undefined && next <= batchResolved) return
      batchResolved = next
      // A seek during the batch decides where the partition goes on and what is committed.
      if (state!.interrupted) return
      state!.resolved = next
      this.#host.autoCommit.resolved()
    }
    const pauseThis = (): (() => void) => {
      this.#host.pause([{ topic, partitions: [partition] }])
      return () => this.#host.resume([{ topic, partitions: [partition] }])
    }
    const heartbeat = async (): Promise<void> => {}
    const offsets = batchOffsets(batch, messages)
    const payloadBase = { topic, partition, highWatermark: offsets.highWatermark, offsetLag: offsets.offsetLag, offsetLagLow: offsets.offsetLagLow, batchSize: messages.length, firstOffset: offsets.firstOffset, lastOffset: offsets.lastOffset }
    const started = Date.now()
    this.#host.instrumentation.emit(consumerEvents.START_BATCH_PROCESS, payloadBase)
    if (messages.length === 0) {
      // Only transaction markers or aborted data: kafkajs calls no handler, resolves past them and commits.
      resolveOffset(String(batch.nextOffset - 1n))
      handed.finish(config.autoCommit !== false ? batch.nextOffset : null)
      this.#host.instrumentation.emit(consumerEvents.END_BATCH_PROCESS, { ...payloadBase, duration: Date.now() - started })
      await this.#host.autoCommit.commitIfDue(group, false)
      return
    }
    let failure: unknown
    try {
      if (config.eachMessage !== undefined) {
        for (let i = 0; i < messages.length; i++) {
          if (!this.#host.running() || state.interrupted || this.#host.isPaused(topic, partition)) break
          const message = messages[i]
          try {
            await config.eachMessage({ topic, partition, message, heartbeat, pause: pauseThis })
          } catch (error) {
            this.#host.logger.error(`Error when calling eachMessage`, { topic, partition, offset: message.offset, stack: (error as Error).stack, error })
            throw error
          }
          resolveOffset(message.offset)
        }
      } else if (config.eachBatch !== undefined) {
        await config.eachBatch({
          batch: toBatch(batch, messages, offsets),
          resolveOffset,
          heartbeat,
          pause: pauseThis,
          commitOffsetsIfNecessary: async (offsets?: Offsets) => {
            if (offsets !== undefined) {
              await this.#host.autoCommit.commit(group, offsets.topics.flatMap(t => t.partitions.map(p => ({ topic: t.topic, partition: Number(p.partition), offset: BigInt(p.offset) }))))
            } else if (config.autoCommit !== false) {
              await this.#host.autoCommit.commitIfDue(group, false)
            }
          },
          uncommittedOffsets: () => this.#host.autoCommit.uncommitted(),
          isRunning: () => this.#host.running(),
          isStale: () => state!.interrupted || this.#host.group() !== group
        })
        if (config.eachBatchAutoResolve !== false && !state.interrupted && messages.length > 0) resolveOffset(messages[messages.length - 1].offset)
      }
    } catch (error) {
      failure = error
    }
    // The next fetch starts at the last resolved offset, as in kafkajs: what was not resolved comes again.
    const interrupted = state.interrupted
    // Moved during the batch by the handler's resolves, or by a commit (commitOffsets, a transaction's sendOffsets).
    const advanced = state.resolved !== undefined && (startResolved === undefined || state.resolved > startResolved) ? state.resolved : undefined
    const resolved = interrupted || batchResolved === undefined || (advanced !== undefined && advanced > batchResolved) ? advanced : batchResolved
    handed.finish(config.autoCommit !== false && resolved !== undefined ? resolved : null)
    const position = resolved ?? firstOffset
    const fetchAgain = !interrupted && position !== undefined && position < batch.nextOffset
    if (fetchAgain && this.#host.group() === group) {
      try {
        group.seek({ topic, partition, offset: position })
      } catch (error) {
        // The partition left this member while the batch ran (a revoke that stopped waiting, a
        // fence): its next owner reads from the committed offset, unresolved messages included.
        this.#host.logger.warn('Could not rewind the partition to the first unresolved message; its next consumer reads it from the committed offset', { groupId: this.#host.groupId, topic, partition, offset: String(position), error: (error as Error).message })
      }
    }
    this.#host.instrumentation.emit(consumerEvents.END_BATCH_PROCESS, { ...payloadBase, duration: Date.now() - started })
    // Mid-answer, kafkajs's commit after the batch waits for the answer's last part, unless
    // the rest will not come now (a seek, unresolved messages fetched again, a pause; a
    // failure forces the commit anyway).
    const midAnswer = handed.moreOfAnswer && !interrupted && !fetchAgain && !this.#host.isPaused(topic, partition)
    if (config.autoCommit !== false) await this.#host.autoCommit.commitIfDue(group, failure !== undefined, midAnswer)
    if (failure !== undefined) throw failure
  }
}

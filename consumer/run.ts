/**
 * run(): the callback style of consuming. Up to `partitionsConcurrently` workers each take a
 * batch from the consumer's hand-out and call the application's eachBatch/eachRecord with
 * it; a throwing handler rejects run() and closes the consumer, or with `retry` gets the
 * unprocessed records again after a backoff ('handlerError'); `signal` ends the loop
 * gracefully. The consumer is reached only through RunHost.
 */
import { sleep } from '../client/backoff'
import type { Clock } from '../client/clock'
import { channels, type ConsumerBatchTrace } from '../client/instrumentation'
import type { KafkaRecord } from '../protocol/record-batch'
import type { ConsumerBatch, Cursor } from './cursor'
import type { RunOptions, RunRetryOptions } from './consumer-options'
import type { CursorBatch } from './hand-out'

/**
 * A run() handler threw, and the consumer goes on ('handlerError' event of Consumer,
 * GroupConsumer and ShareConsumer): Consumer's `run({ retry })` hands the records again
 * after a backoff; a ShareConsumer releases or rejects the records the throw left open.
 */
export interface HandlerErrorEvent {
  /** What the handler threw. */
  error: unknown
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The first record the throw left unprocessed (ShareConsumer's eachRecord: the record whose handler threw). */
  offset: bigint
  /**
   * What becomes of the records from `offset`: 'retry', handed to this consumer again after
   * `retryInMs`; a share group's 'release' (delivered again, to any member) or 'reject'
   * (archived), as `onHandlerError` says; 'none' in explicit acknowledgement, where they stay
   * as the handler left them; 'dead-letter': a concurrent run() handed the record to its
   * `onDeadLetter` hook, and it counts as finished.
   */
  outcome: 'retry' | 'release' | 'reject' | 'none' | 'dead-letter'
  /** 'retry': 1 for the first retry. A ShareConsumer's: the record's delivery count (1 for its first delivery). */
  attempt: number
  /** When the records are handed again ('retry'); 0 for the others. */
  retryInMs: number
}

/** What run() needs of its consumer. */
export interface RunHost {
  /** The next batch for a run() handler (its trace not started yet); undefined once hand-outs stop or `signal` aborted. */
  nextBatch: (signal: AbortSignal | undefined) => Promise<CursorBatch | undefined>
  /** Hand-outs stopped (close() started): a batch out stops at its next record and is not retried. */
  readonly stopping: boolean
  /** The consumer failed: a throwing handler is not retried. */
  readonly failed: boolean
  /** Aborts when hand-outs stop: ends a retry's backoff. */
  readonly stopSignal: AbortSignal
  /** What a retry's backoff is timed on (the client's clock). */
  readonly clock: Clock
  /** The 'kafkats:consumer:batch' context of a batch (only while someone subscribes). */
  trace: (batch: ConsumerBatch) => ConsumerBatchTrace | undefined
  handlerError: (event: HandlerErrorEvent) => void
  /** Ends the consumer with the handler's error. */
  fail: (error: Error) => void
  /** Wakes waiting hand-outs when `signal` aborts; call the result to stop listening. */
  wakeOnAbort: (signal: AbortSignal | undefined) => () => void
  close: () => Promise<void>
}

/**
 * Calls the application's callback for one batch of run(), from record `progress.next`;
 * false if it stopped early (`keepGoing`). Its name marks run() handlers in async stack
 * traces: close() looks for it (calledFromHandler) to know it must not wait for handlers.
 */
async function kafkatsRunHandler (options: RunOptions, batch: ConsumerBatch, progress: { next: number }, keepGoing: () => boolean, recordDone: (record: KafkaRecord) => void): Promise<boolean> {
  if (options.eachBatch !== undefined) {
    await options.eachBatch(batch)
    return true
  }
  const records = batch.records
  for (; progress.next < records.length; progress.next++) {
    if (!keepGoing()) return false
    await options.eachRecord!(records[progress.next], batch)
    recordDone(records[progress.next])
  }
  return true
}

/**
 * Whether the caller runs inside a run() handler (an `async` one: V8's async stack traces
 * follow awaits). close() from a handler must not wait for handlers, itself among them;
 * AsyncLocalStorage would tell exactly, but it triples the cost of every promise on Node 20.
 * Called only by close(), so the stack capture costs nothing on a hot path.
 */
export function calledFromHandler (): boolean {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 200
  try {
    return new Error().stack?.includes('kafkatsRunHandler') ?? false
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** The handler inside the trace's start (runStores: a subscriber's async context, e.g. an OpenTelemetry span, is the handler's). */
async function tracedHandler (trace: ConsumerBatchTrace, ...args: Parameters<typeof kafkatsRunHandler>): Promise<boolean> {
  const running = channels.consumerBatch.start.runStores(trace, kafkatsRunHandler, undefined, ...args)
  channels.consumerBatch.end.publish(trace)
  return await running
}

/** eachRecord: one record finished; it counts as processed unless the partition moved on. */
function recordDone (cursor: Cursor, batch: ConsumerBatch, record: KafkaRecord): void {
  const processing = cursor.processing
  if (processing === undefined || processing.batch !== batch || processing.seeked || cursor.ownership.released) return
  cursor.processedOffset = record.offset + 1n
}

/** One run() call: its options (checked by the caller) and its workers. */
export class RunLoop {
  readonly #host: RunHost
  readonly #options: RunOptions
  readonly #retry: RunRetryOptions | undefined

  constructor (host: RunHost, options: RunOptions) {
    this.#host = host
    this.#options = options
    this.#retry = options.retry === true ? {} : options.retry === false ? undefined : options.retry
  }

  /** Resolves when hand-outs end; rejects (once the consumer closed) with a handler's error. */
  async run (): Promise<void> {
    const workers = this.#options.partitionsConcurrently ?? 1
    const worker = async (): Promise<void> => {
      while (await this.#runOne());
    }
    const stopListening = this.#host.wakeOnAbort(this.#options.signal)
    const results = await Promise.allSettled(Array.from({ length: workers }, worker))
    stopListening()
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed !== undefined) {
      // Rejects once the consumer has left (its partitions are other members' now).
      await this.#host.close().catch(() => {})
      throw failed.reason
    }
  }

  /**
   * One batch of run() taken and processed; false once the consumer is closed. Its own
   * frame, so the batch is garbage once processed: a suspended loop keeps its locals, and
   * a batch held while the next one is decoded survives the young generation.
   */
  async #runOne (): Promise<boolean> {
    const handed = await this.#host.nextBatch(this.#options.signal)
    if (handed === undefined) return false
    await this.#process(handed)
    return true
  }

  /** One batch through the application's callback: per-record progress, retries, stale stops. */
  async #process ({ batch, cursor, finish }: CursorBatch): Promise<void> {
    const host = this.#host
    const options = this.#options
    const retry = this.#retry
    const records = batch.records
    const progress = { next: 0 }
    // A revoked, lost or seeked batch stops at the next record; so does one out when close() starts.
    const keepGoing = (): boolean => !batch.isStale() && !host.stopping
    const done = (record: KafkaRecord): void => recordDone(cursor, batch, record)
    const trace = host.trace(batch)
    for (let attempt = 0; ; attempt++) {
      try {
        const complete = trace !== undefined && attempt === 0
          ? await tracedHandler(trace, options, batch, progress, keepGoing, done)
          : await kafkatsRunHandler(options, batch, progress, keepGoing, done)
        // Stopped early: what recordDone marked stands, nothing more.
        finish(complete ? batch.nextOffset : null)
        return
      } catch (error) {
        const retries = retry?.maxRetries ?? Infinity
        if (trace !== undefined) trace.error = error
        if (retry === undefined || attempt >= retries || batch.isStale() || host.stopping || host.failed) {
          finish(null)
          host.fail(error as Error)
          throw error
        }
        const retryInMs = Math.min(retry.maxMs ?? 30_000, (retry.initialMs ?? 100) * 2 ** attempt)
        host.handlerError({ error, topic: batch.topic, partition: batch.partition, offset: records[progress.next]?.offset ?? batch.nextOffset, outcome: 'retry', attempt: attempt + 1, retryInMs })
        // Ended early by close() (or a member's close) and by run()'s signal: the batch is not retried then.
        const wait = options.signal === undefined ? host.stopSignal : AbortSignal.any([host.stopSignal, options.signal])
        await sleep(retryInMs, wait, error, host.clock).catch(() => {})
        if (batch.isStale() || host.stopping || options.signal?.aborted === true) {
          finish(null)
          return
        }
      }
    }
  }
}

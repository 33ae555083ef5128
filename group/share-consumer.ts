/**
 * ShareConsumer: a member of a share group (KIP-932, "queues for Kafka"). Members read the
 * same partitions cooperatively; each record is acquired for one member under a time lock
 * and acknowledged one by one: accepted (done), released (deliver again, to anyone) or
 * rejected (never again). A record whose lock runs out (a member died, hung, or was too
 * slow) is delivered again with its deliveryCount raised.
 *
 * Membership is group/share-membership.ts; fetching and acknowledging is one ShareSource
 * per broker (consumer/share-source.ts). This class keeps the bounded prefetch, hands
 * batches out (iterator, nextBatch, run) and applies the acknowledgement mode:
 * - implicit: a batch's records not acknowledged otherwise are accepted when the handler
 *   returns (run) or the next batch is asked for (for await / nextBatch), and released —
 *   or rejected, `onHandlerError` — when the handler throws or the loop is left early;
 * - explicit: the application calls accept/release/reject/renew on each record; commit()
 *   sends what was acknowledged and returns the broker's answers.
 * close() releases every record acquired and not acknowledged, so other members get it at
 * once instead of after the lock duration.
 */
import { TypedEmitter } from '../client/events'
import { checkCloseOptions, type Client, type CloseOptions } from '../client/client'
import type { LogFields } from '../client/logger'
import { checkDuration, checkFunction, checkInteger, checkKnownKeys, checkObject, checkOneOf, checkSignal, checkString, optionKeys } from '../client/validate'
import { acknowledgeIfOpen, lockLost, ShareSource, type ShareAcknowledgementResult, type ShareBatch, type ShareRecord, type ShareSourceHost } from '../consumer/share-source'
import { nextFetchPurpose } from '../consumer/fetch-scheduling'
import type { FetchErrorEvent, HandlerErrorEvent } from '../consumer/consumer'
import { GroupCoordinator } from './coordinator'
import { ShareMembership } from './share-membership'
import { Signal } from '../client/signal'
import type { TopicPartition } from './membership'
import { internal } from '../client/internal'

/** How a share consumer acknowledges: `'implicit'` (the default: accepted when the handler returns or the next batch is asked for, released when it throws) or `'explicit'` (the application calls `accept()`, `release()` or `reject()` on each record). */
export type ShareAcknowledgementMode = 'implicit' | 'explicit'

/** The `deadLetter` option of a share consumer: records delivered more than `afterDeliveries` times go to `handler`, and are rejected once it resolves. */
export interface ShareDeadLetterOptions {
  /** Records delivered more than this many times go to `handler` instead of the application. */
  afterDeliveries: number
  /**
   * Gets each such record (e.g. produces it to a dead-letter topic). When it resolves the
   * record is rejected (never delivered again); when it throws, the record is released.
   */
  handler: (record: ShareRecord) => unknown
}

/** Options of `client.shareConsumer(options)`: the group and topics, the acknowledgement mode, fetch sizes, what a throwing handler does, and dead letters. Checked when the consumer is made. */
export interface ShareConsumerOptions {
  /** The share group to join. */
  groupId: string
  /** Topic names (a string is one topic). */
  topics: string[] | string
  /** Default 'implicit'. */
  acknowledgement?: ShareAcknowledgementMode
  /**
   * Most records one ShareFetch acquires (default 500). The consumer holds at most twice
   * this many acquired and not yet acknowledged records (buffered or handed out) before it
   * stops fetching: each holds a lock other members wait for.
   */
  maxRecords?: number
  /** How long the broker may hold a ShareFetch for records to arrive (default 500 ms); also how long piggy-backed acknowledgements may wait. */
  maxWaitMs?: number
  /** Most bytes of one ShareFetch answer (default 50 MiB). */
  maxBytes?: number
  /** Implicit mode: what a handler's throw does to the batch's open records (default 'release'). */
  onHandlerError?: 'release' | 'reject'
  /** Where records delivered too many times go instead of the application; none by default. */
  deadLetter?: ShareDeadLetterOptions
  /** The consumer's rack (sent on joining). */
  rack?: string
  /** Aborting closes the consumer. */
  signal?: AbortSignal
}

/** Options of `shareConsumer.run(options)`: the handler (`eachRecord` or `eachBatch`), how many run at once, and the signal that stops it. */
export interface ShareRunOptions {
  /** Called per record; in implicit mode its return accepts the record, its throw releases (or rejects) that record alone. */
  eachRecord?: (record: ShareRecord) => unknown
  /** Called per batch (records of one partition); in implicit mode its return accepts the open records. */
  eachBatch?: (batch: ShareBatch) => unknown
  /** Batches handled at once (default 1); share groups keep no order, so any batches may run side by side. */
  concurrency?: number
  /** Aborting stops handing out: run() resolves once the handlers running finished (the consumer stays open). */
  signal?: AbortSignal
}

/** The events of a ShareConsumer and their payloads (`queue.on('acknowledged', result => …)`). */
export interface ShareConsumerEvents {
  /** The broker answered acknowledgements of one partition (error null: taken). */
  acknowledged: [result: ShareAcknowledgementResult]
  /** A fetch or acknowledgement failed and will be retried after `retryInMs`. */
  fetchError: [event: FetchErrorEvent]
  /**
   * A handler threw (run): eachBatch's open records, or eachRecord's record, were released
   * or rejected (implicit mode; `outcome` says which); eachRecord goes on with the batch's next record.
   */
  handlerError: [event: HandlerErrorEvent]
  /** The consumer ended with an error no retry fixes. */
  error: [error: Error]
}

const WHERE = 'shareConsumer option'
const SHARE_OPTION_KEYS = optionKeys<ShareConsumerOptions>()(['groupId', 'topics', 'acknowledgement', 'maxRecords', 'maxWaitMs', 'maxBytes', 'onHandlerError', 'deadLetter', 'rack', 'signal'])
const SHARE_RUN_OPTION_KEYS = optionKeys<ShareRunOptions>()(['eachRecord', 'eachBatch', 'concurrency', 'signal'])
/** The names other clients give these options (closestName finds the plain typos). */
const SHARE_OPTION_HINTS: Record<string, string> = { ackMode: 'acknowledgement', acknowledgementMode: 'acknowledgement', maxPollRecords: 'maxRecords', maxWaitTimeInMs: 'maxWaitMs', rackId: 'rack' }

function validate (options: ShareConsumerOptions): void {
  checkObject('client.shareConsumer()', 'options', options as unknown)
  checkKnownKeys(WHERE, options, SHARE_OPTION_KEYS, SHARE_OPTION_HINTS)
  checkString(WHERE, 'groupId', options.groupId)
  const topics = typeof options.topics === 'string' ? [options.topics] : options.topics
  if (!Array.isArray(topics) || topics.length === 0) throw new TypeError(`${WHERE} topics: expected a topic name or a non-empty array of them`)
  topics.forEach((t, i) => checkString(WHERE, `topics[${i}]`, t))
  if (options.acknowledgement !== undefined) checkOneOf(WHERE, 'acknowledgement', options.acknowledgement, ['implicit', 'explicit'])
  if (options.maxRecords !== undefined) checkInteger(WHERE, 'maxRecords', options.maxRecords, { min: 1, max: 100_000 })
  if (options.maxWaitMs !== undefined) checkDuration(WHERE, 'maxWaitMs', options.maxWaitMs)
  if (options.maxBytes !== undefined) checkInteger(WHERE, 'maxBytes', options.maxBytes, { min: 1, max: 0x7fffffff })
  if (options.onHandlerError !== undefined) checkOneOf(WHERE, 'onHandlerError', options.onHandlerError, ['release', 'reject'])
  if (options.deadLetter !== undefined) {
    checkObject(WHERE, 'deadLetter', options.deadLetter as unknown)
    checkKnownKeys(`${WHERE} deadLetter`, options.deadLetter, optionKeys<ShareDeadLetterOptions>()(['afterDeliveries', 'handler']))
    checkInteger(WHERE, 'deadLetter.afterDeliveries', options.deadLetter.afterDeliveries, { min: 1, max: 32767 })
    if (options.deadLetter.handler === undefined) throw new TypeError(`${WHERE} deadLetter.handler: expected a function that takes each record delivered more than afterDeliveries times`)
    checkFunction(WHERE, 'deadLetter.handler', options.deadLetter.handler)
  }
  if (options.rack !== undefined) checkString(WHERE, 'rack', options.rack)
  if (options.signal !== undefined) checkSignal(WHERE, 'signal', options.signal)
}

export class ShareConsumer extends TypedEmitter<ShareConsumerEvents> implements AsyncIterable<ShareBatch> {
  readonly #client: Client
  /** The share group this member belongs to. */
  readonly groupId: string
  /** The topics it subscribes to. */
  readonly topics: readonly string[]
  /** How it acknowledges (option `acknowledgement`, default 'implicit'). */
  readonly acknowledgement: ShareAcknowledgementMode
  readonly #options: ShareConsumerOptions
  readonly #coordinator: GroupCoordinator
  readonly #membership: ShareMembership
  readonly #purpose = nextFetchPurpose()
  readonly #sources = new Map<number, ShareSource>()
  #assigned: TopicPartition[] = []
  readonly #buffer: ShareBatch[] = []
  /**
   * Records acquired for us and not finally acknowledged, buffered or handed out: each holds
   * a lock other members wait for, so fetching stops at twice maxRecords of them.
   */
  #openRecords = 0
  /**
   * Whether the application asked for records yet (nextBatch, for await, run): nothing is
   * acquired before, since acquired records hold locks that other members wait out.
   */
  #asked = false
  /** Batches handed out with records still open: close() releases those. */
  readonly #outstanding = new Set<ShareBatch>()
  readonly #bufferChanged = new Signal()
  readonly #work = new Signal()
  #workVersion = 0
  #closing: Promise<void> | undefined
  #error: Error | undefined
  readonly #stop = new AbortController()
  readonly #unregister: () => void
  #refreshing: Promise<void> | undefined

  /** A member of the share group `options.groupId` on `client`; applications make one with `client.shareConsumer()`. Throws a TypeError or RangeError for a wrong option. */
  constructor (client: Client, options: ShareConsumerOptions) {
    super()
    validate(options)
    this.#client = client
    this.#options = options
    this.groupId = options.groupId
    this.topics = typeof options.topics === 'string' ? [options.topics] : [...options.topics]
    this.acknowledgement = options.acknowledgement ?? 'implicit'
    this.#coordinator = new GroupCoordinator(client, options.groupId)
    this.#membership = new ShareMembership(client, this.#coordinator, {
      groupId: options.groupId,
      topics: this.topics,
      rack: options.rack ?? null,
      assigned: partitions => this.#setAssignment(partitions),
      fatal: error => this.#fail(error)
    })
    this.#unregister = client[internal].register({ closeWithClient: async () => await this.close() })
    client[internal].metadata.track(this.topics)
    options.signal?.addEventListener('abort', () => { void this.close() }, { once: true })
    this.#membership.start()
  }

  /** The member id this consumer chose (KIP-932). */
  get memberId (): string {
    return this.#membership.memberId
  }

  /** The partitions the coordinator assigned to this member (others may have them too); a method, as every consumer's. */
  assignment (): TopicPartition[] {
    return [...this.#assigned]
  }

  /** Resolves once the member joined the group. */
  async ready (signal?: AbortSignal): Promise<void> {
    await this.#membership.whenJoined(signal)
  }

  #setAssignment (partitions: TopicPartition[]): void {
    this.#assigned = partitions
    this.#bumpWork()
    this.#startSources()
    if (partitions.some(p => this.#client.metadata.partition(p.topic, p.partition) === undefined)) this.#refreshMetadata()
  }

  #startSources (): void {
    if (this.#closing !== undefined) return
    for (const p of this.#assigned) {
      const leader = this.#client.metadata.partition(p.topic, p.partition)?.leaderId
      if (leader === undefined || leader < 0 || this.#sources.has(leader)) continue
      const source = new ShareSource(this.#client, leader, this.#sourceHost, {
        maxWaitMs: this.#options.maxWaitMs ?? 500,
        minBytes: 1,
        maxBytes: this.#options.maxBytes ?? 50 * 1024 * 1024,
        maxRecords: this.#options.maxRecords ?? 500
      }, this.#purpose)
      this.#sources.set(leader, source)
      source.start()
    }
  }

  #refreshMetadata (): void {
    if (this.#refreshing !== undefined) return
    this.#refreshing = this.#client.metadata.refresh(this.topics, this.#stop.signal)
      .catch(() => {})
      .finally(() => {
        this.#refreshing = undefined
        this.#startSources()
        this.#bumpWork()
      })
  }

  #bumpWork (): void {
    this.#workVersion++
    this.#work.notify()
  }

  readonly #sourceHost: ShareSourceHost = {
    groupId: () => this.groupId,
    memberId: () => this.#membership.memberId,
    partitionsFor: (nodeId) => {
      const list: Array<{ topic: string, topicId: string, partition: number }> = []
      if (this.#membership.memberEpoch <= 0) return list
      for (const p of this.#assigned) {
        const meta = this.#client.metadata.partition(p.topic, p.partition)
        const topicId = this.#client.metadata.topic(p.topic)?.topicId
        if (meta?.leaderId === nodeId && topicId !== undefined) list.push({ topic: p.topic, topicId, partition: p.partition })
      }
      return list
    },
    hasRoom: () => this.#asked && this.#openRecords < 2 * (this.#options.maxRecords ?? 500),
    recordsClosed: count => {
      this.#openRecords -= count
      this.#bumpWork()
    },
    deliver: batch => {
      this.#buffer.push(batch)
      this.#openRecords += batch.records.length
      this.#bufferChanged.notify()
    },
    acknowledged: result => {
      // Records whose acknowledgement failed come again (to any member). Without a listener
      // nobody hears of it in implicit mode, nor at close (explicit mode: commit() returns it).
      if (result.error !== null && this.listenerCount('acknowledged') === 0 && (this.acknowledgement === 'implicit' || this.#closing !== undefined)) {
        this.#warn(`share consumer: acknowledging ${result.offsets.length} record(s) of ${result.topic}[${result.partition}] failed; they will be delivered again, to this or another member`, result.error, { topic: result.topic, partition: result.partition })
      }
      this.emit('acknowledged', result)
    },
    fetchError: event => { if (this.listenerCount('fetchError') > 0) this.emit('fetchError', event) },
    fail: error => this.#fail(error),
    refreshMetadata: () => this.#refreshMetadata(),
    memberUnknown: () => this.#membership.wake(),
    workVersion: () => this.#workVersion,
    waitForWork: async (signal, since) => {
      while (this.#workVersion === since) await this.#work.wait(signal)
    }
  }

  /** A failure that does not end the consumer, through the client's logger. */
  #warn (message: string, error: unknown, fields: LogFields = {}): void {
    this.#client[internal].instrumentation.log.warn(message, { group: this.groupId, memberId: this.#membership.memberId, error, ...fields })
  }

  #fail (error: Error): void {
    if (this.#error !== undefined) return
    this.#error = error
    this.#bufferChanged.notify()
    if (this.listenerCount('error') > 0) this.emit('error', error)
    void this.close()
  }

  /** The batch nextBatch() handed out last: implicit mode accepts what it still has open at the next call. */
  #lastNext: ShareBatch | undefined

  /**
   * The next batch of acquired records (one partition's), waiting for one. In implicit
   * mode, asking for it accepts what is still open of the batch nextBatch() handed out
   * before — at once, not when the next batch comes: those records count against the
   * prefetch bound, and one answer may hold more than it (Kafka acquires whole batches),
   * so waiting would wait forever.
   */
  async nextBatch (signal?: AbortSignal): Promise<ShareBatch | undefined> {
    if (this.#lastNext !== undefined) this.#finish(this.#lastNext, 'accept')
    this.#lastNext = await this.#next(signal)
    return this.#lastNext
  }

  /** The next batch from the buffer, waiting for one; undefined once closing or when `signal` aborts. */
  async #next (signal?: AbortSignal): Promise<ShareBatch | undefined> {
    if (!this.#asked) {
      this.#asked = true
      this.#bumpWork()
    }
    for (;;) {
      if (this.#error !== undefined) throw this.#error
      // An aborted signal stops the hand-out, also of batches already buffered (close() releases them).
      if (this.#closing !== undefined || signal?.aborted === true) return undefined
      const batch = this.#buffer.shift()
      if (batch === undefined) {
        const stops = signal === undefined ? this.#stop.signal : AbortSignal.any([signal, this.#stop.signal])
        await this.#bufferChanged.wait(stops).catch(() => {})
        continue
      }
      const records = await this.#deadLetter(this.#dropLapsed(batch.records))
      if (records.length === 0) continue
      batch.records = records
      this.#outstanding.add(batch)
      return batch
    }
  }

  /**
   * Leaves out records the broker has surely taken back while they waited in the buffer
   * (lock run out, connection lost): another member may have them now, so handing them out
   * would process them twice, and acknowledging them could touch that member's delivery.
   */
  #dropLapsed (records: ShareRecord[]): ShareRecord[] {
    const now = Date.now()
    let lapsed = 0
    for (const record of records) if (lockLost(record, now)) lapsed++
    if (lapsed === 0) return records
    const log = this.#client[internal].instrumentation.log
    if (log.debugOn) log.debug(`share consumer: ${lapsed} buffered records of ${records[0].topic}[${records[0].partition}] lost their acquisition lock before the application asked for them; not handed out`, { group: this.groupId, topic: records[0].topic, partition: records[0].partition })
    this.#openRecords -= lapsed
    this.#bumpWork()
    return records.filter(record => !lockLost(record, now))
  }

  /** Routes records past the delivery limit to the dead-letter handler; returns the others. */
  async #deadLetter (records: ShareRecord[]): Promise<ShareRecord[]> {
    const dead = this.#options.deadLetter
    if (dead === undefined) return records
    const kept: ShareRecord[] = []
    for (const record of records) {
      if (record.deliveryCount <= dead.afterDeliveries) { kept.push(record); continue }
      try {
        await dead.handler(record)
        acknowledgeIfOpen(record, 'reject')
      } catch {
        acknowledgeIfOpen(record, 'release')
      }
    }
    return kept
  }

  /** Accepts (implicit mode) what a batch still has open and forgets it. */
  #finish (batch: ShareBatch, kind: 'accept' | 'release' | 'reject'): void {
    if (this.acknowledgement === 'implicit') for (const record of batch.records) acknowledgeIfOpen(record, kind)
    if (this.acknowledgement === 'implicit' || batch.records.every(r => r.acknowledged !== undefined)) this.#outstanding.delete(batch)
  }

  /** The batches, one at a time until the consumer closes. In implicit mode, asking for the next one accepts the last one's open records, and leaving the loop early releases them. */
  async * [Symbol.asyncIterator] (): AsyncGenerator<ShareBatch> {
    let last: ShareBatch | undefined
    let done = false
    try {
      for (;;) {
        // Accepted before waiting: its records hold prefetch room the next batch may need.
        if (last !== undefined) this.#finish(last, 'accept')
        last = undefined
        const batch = await this.#next()
        if (batch === undefined) { done = true; return }
        last = batch
        yield batch
      }
    } finally {
      // Left early (break, throw): what the loop did not finish goes back to the group.
      if (!done && last !== undefined) this.#finish(last, 'release')
    }
  }

  /** Hands batches (or records) to the handler until the consumer closes or `signal` aborts. */
  async run (options: ShareRunOptions): Promise<void> {
    checkObject('shareConsumer.run()', 'options', options as unknown)
    checkKnownKeys('shareConsumer.run() option', options, SHARE_RUN_OPTION_KEYS, { eachMessage: 'eachRecord', partitionsConcurrently: 'concurrency' })
    if ((options.eachRecord === undefined) === (options.eachBatch === undefined)) throw new TypeError('shareConsumer.run() needs exactly one of eachRecord and eachBatch')
    if (options.eachRecord !== undefined) checkFunction('shareConsumer.run() option', 'eachRecord', options.eachRecord)
    if (options.eachBatch !== undefined) checkFunction('shareConsumer.run() option', 'eachBatch', options.eachBatch)
    if (options.concurrency !== undefined) checkInteger('shareConsumer.run() option', 'concurrency', options.concurrency, { min: 1, max: 1000 })
    if (options.signal !== undefined) checkSignal('shareConsumer.run() option', 'signal', options.signal)
    const onError = this.#options.onHandlerError ?? 'release'
    const worker = async (): Promise<void> => {
      for (;;) {
        const batch = await this.#next(options.signal)
        if (batch === undefined) return
        try {
          if (options.eachBatch !== undefined) {
            await options.eachBatch(batch)
          } else {
            // Records of a share group are independent: a throw releases (or rejects) its own
            // record only, and the batch goes on — ending it would raise the delivery count of
            // every record behind it, and at the limit the broker archives them.
            for (const record of batch.records) {
              try {
                await options.eachRecord!(record)
                if (this.acknowledgement === 'implicit') acknowledgeIfOpen(record, 'accept')
              } catch (error) {
                if (this.acknowledgement === 'implicit') acknowledgeIfOpen(record, onError)
                if (this.listenerCount('handlerError') > 0) this.emit('handlerError', this.#handlerError(error, record, onError))
              }
            }
          }
          this.#finish(batch, 'accept')
        } catch (error) {
          // The first record the throw left open (in explicit mode, not acknowledged), before #finish closes them.
          const first = batch.records.find(r => r.acknowledged === undefined) ?? batch.records[0]
          this.#finish(batch, onError)
          if (this.listenerCount('handlerError') > 0 && first !== undefined) this.emit('handlerError', this.#handlerError(error, first, onError))
        }
      }
    }
    await Promise.all(Array.from({ length: options.concurrency ?? 1 }, worker))
    if (this.#error !== undefined) throw this.#error
  }

  /** The 'handlerError' event of a throw that left `record` (and those after it) open. */
  #handlerError (error: unknown, record: ShareRecord, onError: 'release' | 'reject'): HandlerErrorEvent {
    return { error, topic: record.topic, partition: record.partition, offset: record.offset, outcome: this.acknowledgement === 'implicit' ? onError : 'none', attempt: record.deliveryCount, retryInMs: 0 }
  }

  /** Sends every acknowledgement made so far and resolves with the broker's answers, per partition. */
  async commit (): Promise<ShareAcknowledgementResult[]> {
    const results = await Promise.all([...this.#sources.values()].map(async source => await source.flush()))
    return results.flat()
  }

  /**
   * Releases what is acquired and not acknowledged, sends the last acknowledgements, closes
   * the share sessions and leaves the group. Records out with handlers are released at once,
   * not waited for, so `force` changes nothing here.
   */
  async close (options: CloseOptions = {}): Promise<void> {
    checkCloseOptions('shareConsumer.close()', options)
    this.#closing ??= this.#close()
    await this.#closing
  }

  /** Whether close() was called (it may still be leaving the group), or the consumer ended by itself. */
  get closed (): boolean {
    return this.#closing !== undefined
  }

  async #close (): Promise<void> {
    this.#stop.abort()
    this.#bufferChanged.notify()
    this.#work.notify()
    const now = Date.now()
    // A buffered record whose lock lapsed is not ours to release (another member may hold it).
    for (const batch of this.#buffer) for (const record of batch.records) if (!lockLost(record, now)) acknowledgeIfOpen(record, 'release')
    for (const batch of this.#outstanding) for (const record of batch.records) acknowledgeIfOpen(record, 'release')
    this.#buffer.length = 0
    this.#outstanding.clear()
    await Promise.all([...this.#sources.values()].map(async source => {
      await source.close().catch(error => { this.#warn(`share consumer: closing the share session with broker ${source.nodeId} failed; records it held stay locked until their acquisition lock runs out`, error) })
    }))
    const leaveFailure = await this.#membership.stop(true).catch(error => error as Error)
    if (leaveFailure !== undefined) this.#warn(`share consumer: leaving share group "${this.groupId}" failed; the coordinator removes the member when its session times out`, leaveFailure)
    this.#coordinator.closeConnections()
    this.#client[internal].brokers.closePurpose(this.#purpose)
    this.#client[internal].metadata.untrack(this.topics)
    this.#unregister()
  }
}

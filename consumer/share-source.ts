/**
 * ShareSource: the share-group fetch path of one broker (KIP-932), the share counterpart of
 * source.ts. It keeps one share session with the broker and loops: one request in flight
 * at a time (the session's epoch orders them), either a ShareFetch for the assigned
 * partitions this broker leads, carrying the acknowledgements made since the last
 * request, or — when the prefetch is full or a partition left the assignment — a
 * ShareAcknowledge with the acknowledgements alone.
 *
 * Session rules (the broker's): epoch 0 opens a session with the full partition list and
 * carries no acknowledgements; each later request uses the next epoch (wrapping to 1) and
 * lists only partitions added (in `topics`) and removed (`forgottenTopicsData`); -1 sends
 * the last acknowledgements and closes it. SHARE_SESSION_NOT_FOUND or
 * INVALID_SHARE_SESSION_EPOCH: the session is gone but the member keeps its records; the
 * next request opens a new one and the refused acknowledgements go again. A lost request
 * (its connection closes) loses the records too: the broker releases them, so their
 * acknowledgements fail here with SHARE_SESSION_NOT_FOUND (see INTERNALS.md).
 *
 * The broker answers `records` (whole record batches) and `acquiredRecords` (the offset
 * ranges locked for this member, with their delivery counts): only records inside a range
 * are handed out, and acquired offsets that hold no record (control records, compacted
 * gaps) are acknowledged as GAP at once so they do not wait out the lock.
 */
import type { Client } from '../client/client'
import { UnsupportedVersionError } from '../client/errors'
import { backoffDelay, sleep } from '../client/backoff'
import type { ConnectionPurpose } from '../client/brokers'
import { invalidatesMetadata } from '../client/metadata'
import { dropControl } from '../client/read-committed'
import { Signal } from '../client/signal'
import { ShareAcknowledge } from '../protocol/apis/share-acknowledge'
import { AcknowledgeType, ShareFetch, type AcknowledgementBatch, type ShareFetchResponse, type ShareFetchResponsePartition } from '../protocol/apis/share-fetch'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import { decodeRecordBatches, type KafkaRecord, type RecordHeader } from '../protocol/record-batch'
import { internal } from '../client/internal'
import type { FetchErrorEvent } from './source'

const OPEN_EPOCH = 0
const CLOSE_EPOCH = -1

/** What the application did with a record; renew keeps it acquired for another lock period. */
export type AcknowledgementKind = 'accept' | 'release' | 'reject' | 'renew'

const KIND_CODE: Record<AcknowledgementKind, number> = {
  accept: AcknowledgeType.ACCEPT,
  release: AcknowledgeType.RELEASE,
  reject: AcknowledgeType.REJECT,
  renew: AcknowledgeType.RENEW
}

/** What the broker said about acknowledgements of one partition sent in one request. */
export interface ShareAcknowledgementResult {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The offsets acknowledged (gaps left out), in order. */
  offsets: bigint[]
  /** null when the broker took them; else why not (INVALID_RECORD_STATE: the lock had expired). */
  error: BrokerError | null
}

/** Offsets and their acknowledgement type codes, in the order they were made. */
class AckList {
  offsets: bigint[] = []
  types: number[] = []
  get size (): number { return this.offsets.length }
  push (offset: bigint, type: number): void {
    this.offsets.push(offset)
    this.types.push(type)
  }
}

/**
 * Offsets with acknowledgement types as ShareFetch/ShareAcknowledge want them: sorted, the
 * last type given to an offset wins, and consecutive offsets of one type in one range.
 */
export function toAcknowledgementBatches (offsets: readonly bigint[], types: readonly number[]): AcknowledgementBatch[] {
  const order = offsets.map((_, i) => i).sort((a, b) => offsets[a] < offsets[b] ? -1 : offsets[a] > offsets[b] ? 1 : a - b)
  const batches: AcknowledgementBatch[] = []
  let current: AcknowledgementBatch | undefined
  for (let k = 0; k < order.length; k++) {
    const i = order[k]
    const offset = offsets[i]
    const type = types[i]
    if (current !== undefined && current.lastOffset === offset) {
      // The same offset again: the later acknowledgement replaces the earlier one.
      if (current.firstOffset === offset) { current.acknowledgeTypes[0] = type; continue }
      current.lastOffset = offset - 1n
      current = undefined
    }
    if (current !== undefined && current.lastOffset + 1n === offset && current.acknowledgeTypes[0] === type) {
      current.lastOffset = offset
    } else {
      current = { firstOffset: offset, lastOffset: offset, acknowledgeTypes: [type] }
      batches.push(current)
    }
  }
  return batches
}

/** One partition of a share session, as this source fetches it. */
export class SharePartition {
  readonly topic: string
  readonly topicId: string
  readonly partition: number
  readonly key: string
  readonly source: ShareSource
  /** Acknowledgements waiting for the next request. */
  pending = new AckList()
  renewals = new AckList()
  /** Acknowledgements of records whose session's connection was lost: failed, never sent. */
  lost = new AckList()

  constructor (source: ShareSource, topic: string, topicId: string, partition: number) {
    this.source = source
    this.topic = topic
    this.topicId = topicId
    this.partition = partition
    this.key = `${topicId}:${partition}`
  }
}

/** A record acquired for this member: the application acknowledges it (or the consumer does, in implicit mode). */
/**
 * Whether the broker has surely taken `record` back: its lock ran out (at `now`) while it
 * waited in the prefetch buffer, or the connection its session lived on was lost (a 4.4
 * broker releases a member's records when that connection closes). For the share
 * consumer: a function of this module, not a method, so the application does not see it;
 * ShareRecord's static block sets it, as only the class reads its private fields.
 */
export let lockLost: (record: ShareRecord, now: number) => boolean

/** A record acquired for this member (ShareRecord's constructor is private: applications only receive them). */
let makeShareRecord: (owner: SharePartition, record: KafkaRecord, deliveryCount: number, lockedUntil?: number) => ShareRecord

/** Acknowledges `record` unless it already was; true when this call did (the share consumer's implicit mode and close). */
export function acknowledgeIfOpen (record: ShareRecord, kind: Exclude<AcknowledgementKind, 'renew'>): boolean {
  if (record.acknowledged !== undefined) return false
  record[kind]()
  return true
}

/** A record of a share group: a `KafkaRecord` with where it came from, its `deliveryCount`, and (in explicit mode) `accept()`, `release()`, `reject()` and `renew()`. */
export class ShareRecord implements KafkaRecord {
  /** The record's topic. */
  readonly topic: string
  /** The record's partition. */
  readonly partition: number
  /** The record's offset in its partition. */
  readonly offset: bigint
  /** The record's timestamp in ms since the epoch. */
  readonly timestamp: bigint
  /** The record's key; null when it has none. */
  readonly key: Buffer | null
  /** The record's value; null for a tombstone. */
  readonly value: Buffer | null
  /** The record's headers, in order. */
  readonly headers: RecordHeader[]
  /** 1 on first delivery; each release or lock expiry adds one. */
  readonly deliveryCount: number
  readonly #owner: SharePartition
  /**
   * When the acquisition lock ends at the latest (Date.now() ms; the request's
   * send time + the broker's acquisitionLockTimeoutMs, so never later than the broker's
   * deadline), or Infinity when the broker did not say.
   */
  readonly #lockedUntil: number
  /** The source's connection generation the record was acquired in (see ShareSource.generation). */
  readonly #generation: number
  #acknowledged: AcknowledgementKind | undefined

  static {
    makeShareRecord = (owner, record, deliveryCount, lockedUntil) => new ShareRecord(owner, record, deliveryCount, lockedUntil)
  }

  private constructor (owner: SharePartition, record: KafkaRecord, deliveryCount: number, lockedUntil = Infinity) {
    this.#owner = owner
    this.#lockedUntil = lockedUntil
    this.#generation = owner.source.generation
    this.topic = owner.topic
    this.partition = owner.partition
    this.offset = record.offset
    this.timestamp = record.timestamp
    this.key = record.key
    this.value = record.value
    this.headers = record.headers
    this.deliveryCount = deliveryCount
  }

  static {
    lockLost = (record, now) => now >= record.#lockedUntil || record.#lost()
  }

  /** Acquired over a connection that was lost since: the broker released it. */
  #lost (): boolean {
    return this.#generation !== this.#owner.source.generation
  }

  /** The final acknowledgement given, if any (renew is not final). */
  get acknowledged (): AcknowledgementKind | undefined {
    return this.#acknowledged
  }

  /** Processed: never delivered again. */
  accept (): void { this.#ack('accept') }
  /** Not processed: deliver it again (to any member), with deliveryCount + 1. */
  release (): void { this.#ack('release') }
  /** Cannot be processed: never deliver it again (the broker archives it). */
  reject (): void { this.#ack('reject') }
  /**
   * Still being processed: extend the lock by another lock duration (KIP-1222; needs a
   * broker speaking ShareAcknowledge v2, Kafka 4.2+). The record still needs one of the others.
   */
  renew (): void {
    if (this.#acknowledged !== undefined) throw new KafkaTsError('SHARE_ACKNOWLEDGED', `Record ${this.topic}[${this.partition}]@${this.offset} was already acknowledged (${this.#acknowledged}); it cannot be renewed`)
    if (this.#owner.source.renewSupported === false) throw new UnsupportedVersionError(`Renewing the lock of a share record needs ShareFetch/ShareAcknowledge v2 (KIP-1222, Kafka 4.2+); broker ${this.#owner.source.nodeId} does not speak them. Accept or release the record instead.`)
    this.#owner[this.#lost() ? 'lost' : 'renewals'].push(this.offset, KIND_CODE.renew)
    this.#owner.source.acknowledgementsAdded(0)
  }

  #ack (kind: Exclude<AcknowledgementKind, 'renew'>): void {
    if (this.#acknowledged !== undefined) {
      if (this.#acknowledged === kind) return
      throw new KafkaTsError('SHARE_ACKNOWLEDGED', `Record ${this.topic}[${this.partition}]@${this.offset} was already acknowledged (${this.#acknowledged}); it cannot be acknowledged again as ${kind}`)
    }
    this.#acknowledged = kind
    this.#owner[this.#lost() ? 'lost' : 'pending'].push(this.offset, KIND_CODE[kind])
    this.#owner.source.acknowledgementsAdded(1)
  }
}

/** Records of one partition from one ShareFetch answer. */
export interface ShareBatch {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The records acquired, in offset order. */
  records: ShareRecord[]
}

export interface ShareFetchSettings {
  maxWaitMs: number
  minBytes: number
  maxBytes: number
  maxRecords: number
}

export interface ShareSourceHost {
  groupId: () => string
  memberId: () => string
  /** The assigned partitions this broker leads (to fetch from). */
  partitionsFor: (nodeId: number) => Array<{ topic: string, topicId: string, partition: number }>
  /** Whether the prefetch has room for another answer. */
  hasRoom: () => boolean
  /** Records handed out got their final acknowledgement (they no longer hold a lock for us). */
  recordsClosed: (count: number) => void
  /** An answer's records for one partition. */
  deliver: (batch: ShareBatch) => void
  /** The broker answered acknowledgements of one partition. */
  acknowledged: (result: ShareAcknowledgementResult) => void
  /** A request or partition failed and will be retried. */
  fetchError: (event: FetchErrorEvent) => void
  /** An error no retry can fix. */
  fail: (error: Error) => void
  /** Leaders may have moved. */
  refreshMetadata: () => void
  /** The broker does not know the member (fenced or not joined yet): heartbeat now. */
  memberUnknown: () => void
  /** Goes up whenever there may be new work (room in the prefetch, a new assignment). */
  workVersion: () => number
  waitForWork: (signal: AbortSignal, since: number) => Promise<void>
}

/** Acknowledgements taken into one request, to be answered per partition. */
interface InFlightAcks {
  partition: SharePartition
  acks: AckList
}

/** Per-partition error codes in a ShareFetch answer that mean "the leader is elsewhere". */
const MOVED = new Set<number>([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_TOPIC_ID])

export class ShareSource {
  readonly nodeId: number
  readonly #client: Client
  readonly #host: ShareSourceHost
  readonly #settings: ShareFetchSettings
  readonly #purpose: ConnectionPurpose
  /** The epoch of the next request; 0 when no session is open. */
  #epoch = OPEN_EPOCH
  /** Partitions the broker has in our session. */
  readonly #inSession = new Map<string, SharePartition>()
  /** Every partition this source has fetched (acknowledgements refer to them). */
  readonly #partitions = new Map<string, SharePartition>()
  readonly #stop = new AbortController()
  #running: Promise<void> | undefined
  #failures = 0
  /** Waiters of flush(): resolved by the answers of the requests that carry what was pending. */
  #flushWaiters: Array<{ resolve: (results: ShareAcknowledgementResult[]) => void, results: ShareAcknowledgementResult[] }> = []
  /**
   * Whether the broker speaks v2 of ShareFetch/ShareAcknowledge (KIP-1222 renewals); set by
   * every request, so known before the first record is handed out.
   */
  renewSupported: boolean | undefined
  /**
   * Goes up when a request is lost (timed out, connection gone): the broker drops a share
   * session's member records when its connection closes, so records acquired in an earlier
   * generation are no longer ours, and are not handed out.
   */
  generation = 0

  constructor (client: Client, nodeId: number, host: ShareSourceHost, settings: ShareFetchSettings, purpose: ConnectionPurpose) {
    this.#client = client
    this.nodeId = nodeId
    this.#host = host
    this.#settings = settings
    this.#purpose = purpose
  }

  start (): void {
    this.#running ??= this.#run()
  }

  /** Called by ShareRecord when it is acknowledged (`closed` records got a final acknowledgement): the loop may have work. */
  acknowledgementsAdded (closed: number): void {
    if (closed > 0) this.#host.recordsClosed(closed)
    this.#woken.notify()
  }

  /** Wakes the loop when it idles (acknowledgements added, a flush, close). */
  readonly #woken = new Signal()

  /** The SharePartition of a partition (made on first use). */
  partition (topic: string, topicId: string, partition: number): SharePartition {
    const key = `${topicId}:${partition}`
    let p = this.#partitions.get(key)
    if (p === undefined) this.#partitions.set(key, p = new SharePartition(this, topic, topicId, partition))
    return p
  }

  #hasPending (): boolean {
    for (const p of this.#partitions.values()) if (p.pending.size > 0 || p.renewals.size > 0 || p.lost.size > 0) return true
    return false
  }

  /**
   * Sends what is pending now and resolves with the broker's answers for it, and for the
   * acknowledgements of a request already out (the answer may not have come yet).
   */
  async flush (): Promise<ShareAcknowledgementResult[]> {
    const inFlight = this.#ackRequest
    const pending = this.#hasPending()
      ? new Promise<ShareAcknowledgementResult[]>(resolve => {
        this.#flushWaiters.push({ resolve, results: [] })
        this.#woken.notify()
      })
      : undefined
    return [...(await inFlight) ?? [], ...(await pending) ?? []]
  }

  /** The answers to the acknowledgements of the request out now, if it carries any. */
  #ackRequest: Promise<ShareAcknowledgementResult[]> | undefined

  /** Runs a request that carries `taken`, so flush() can wait for its answers. */
  async #carrying<T> (taken: InFlightAcks[], send: () => Promise<T>): Promise<T> {
    if (taken.length === 0) return await send()
    const results: ShareAcknowledgementResult[] = []
    let done!: () => void
    const request = new Promise<ShareAcknowledgementResult[]>(resolve => { done = () => resolve(results) })
    this.#ackRequest = request
    this.#requestResults = results
    try {
      return await send()
    } finally {
      done()
      if (this.#ackRequest === request) this.#ackRequest = undefined
      this.#requestResults = undefined
    }
  }

  #requestResults: ShareAcknowledgementResult[] | undefined

  /**
   * Stops fetching and sends what is pending with epoch -1, closing the session. A request
   * out is let finish (a long poll ends within maxWaitMs): cutting it off would leave the
   * session's epoch unknown, and the acknowledgements could not be sent.
   */
  async close (): Promise<void> {
    this.#stop.abort()
    this.#woken.notify()
    await this.#running?.catch(() => {})
    if (this.#epoch !== OPEN_EPOCH) {
      const taken = this.#take(() => true, 'pending')
      try {
        const response = await this.#client.request(ShareAcknowledge, {
          groupId: this.#host.groupId(),
          memberId: this.#host.memberId(),
          shareSessionEpoch: CLOSE_EPOCH,
          topics: this.#ackTopics(taken)
        }, { nodeId: this.nodeId, purpose: this.#purpose, timeoutMs: 5000 })
        this.#answerAcks(taken, response.errorCode, response.errorMessage, response.responses.flatMap(t => t.partitions.map(p => ({ topicId: t.topicId, ...p }))))
      } catch (error) {
        this.#failAcks(taken, error)
      }
      this.#epoch = OPEN_EPOCH
    }
    this.#failLost()
    this.#failAcks([...this.#take(() => true, 'pending'), ...this.#take(() => true, 'renewals')], new KafkaTsError('CLOSED', 'The share consumer closed before these acknowledgements were sent'))
    this.#resolveFlushes(this.#flushWaiters.splice(0))
  }

  async #run (): Promise<void> {
    const signal = this.#stop.signal
    while (!signal.aborted) {
      const since = this.#host.workVersion()
      try {
        const worked = await this.#step(signal)
        this.#failures = 0
        if (!worked) await this.#idle(signal, since)
      } catch (error) {
        if (signal.aborted) return
        if (error instanceof KafkaTsError && !error.retriable && !(error instanceof BrokerError && isSessionError(error.code))) {
          this.#host.fail(error)
          return
        }
        const retryInMs = backoffDelay(this.#failures++, this.#client.backoff)
        this.#host.fetchError({ nodeId: this.nodeId, topic: undefined, partition: undefined, error: error as Error, retryInMs: Math.round(retryInMs) })
        await sleep(retryInMs, signal).catch(() => {})
      }
    }
  }

  async #idle (signal: AbortSignal, since: number): Promise<void> {
    const idle = new AbortController()
    await Promise.race([this.#woken.wait(idle.signal), this.#host.waitForWork(signal, since)]).catch(() => {})
    idle.abort()
  }

  /** One request, or false when there was nothing to do. */
  async #step (signal: AbortSignal): Promise<boolean> {
    const wanted = new Map<string, SharePartition>()
    for (const p of this.#host.partitionsFor(this.nodeId)) {
      const sp = this.partition(p.topic, p.topicId, p.partition)
      wanted.set(sp.key, sp)
    }
    this.#failLost()
    // Renewals go alone (isRenewAck), so they never wait behind a long poll.
    if ([...this.#partitions.values()].some(p => p.renewals.size > 0) && this.#epoch !== OPEN_EPOCH) {
      await this.#acknowledge(this.#take(() => true, 'renewals'), true)
      return true
    }
    const flushing = this.#flushWaiters.length > 0
    const ackForUnwanted = [...this.#partitions.values()].some(p => p.pending.size > 0 && !wanted.has(p.key))
    const room = this.#host.hasRoom()
    if (this.#epoch !== OPEN_EPOCH && this.#hasPending() && (ackForUnwanted || !room || flushing || wanted.size === 0)) {
      await this.#acknowledge(this.#take(() => true, 'pending'), false)
      return true
    }
    // Acknowledgements pending while no session is open wait for the new one (its first
    // request may carry none): a 4.4 broker keeps the member's records across epoch 0. With
    // no room to fetch, the session is opened with no partitions, acquiring nothing.
    if (this.#epoch === OPEN_EPOCH && this.#hasPending() && (!room || wanted.size === 0)) {
      await this.#fetch(new Map(), signal)
      return true
    }
    if (wanted.size === 0 && this.#inSession.size === 0) return false
    if (!room || wanted.size === 0) return false
    await this.#fetch(wanted, signal)
    return true
  }

  /** Takes the pending acknowledgements of the partitions `which` selects, with the flush waiters they answer. */
  #take (which: (p: SharePartition) => boolean, list: 'pending' | 'renewals' | 'lost'): InFlightAcks[] {
    const taken: InFlightAcks[] = []
    for (const p of this.#partitions.values()) {
      if (p[list].size === 0 || !which(p)) continue
      taken.push({ partition: p, acks: p[list] })
      p[list] = new AckList()
    }
    return taken
  }

  #ackTopics (taken: InFlightAcks[]): Array<{ topicId: string, partitions: Array<{ partitionIndex: number, acknowledgementBatches: AcknowledgementBatch[] }> }> {
    const byTopic = new Map<string, Array<{ partitionIndex: number, acknowledgementBatches: AcknowledgementBatch[] }>>()
    for (const { partition, acks } of taken) {
      let list = byTopic.get(partition.topicId)
      if (list === undefined) byTopic.set(partition.topicId, list = [])
      list.push({ partitionIndex: partition.partition, acknowledgementBatches: toAcknowledgementBatches(acks.offsets, acks.types) })
    }
    return [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions }))
  }

  /** A debug line about this share session (NODE_DEBUG=kafkats or logLevel 'debug'); `fields` is called only then. */
  #debug (message: string, fields?: () => Record<string, unknown>): void {
    const log = this.#client[internal].instrumentation.log
    if (log.debugOn) log.debug(`share session with broker ${this.nodeId}: ${message}`, { nodeId: this.nodeId, group: this.#host.groupId(), memberId: this.#host.memberId(), epoch: this.#epoch, ...fields?.() })
  }

  #nextEpoch (): void {
    this.#epoch = this.#epoch >= 0x7fffffff ? 1 : this.#epoch + 1
  }

  #resetSession (): void {
    this.#debug('reset: the next request opens a new session')
    this.#epoch = OPEN_EPOCH
    this.#inSession.clear()
  }

  async #acknowledge (taken: InFlightAcks[], renew: boolean): Promise<void> {
    const waiters = this.#flushWaiters.splice(0)
    try {
      await this.#carrying(taken, async () => {
        let response
        try {
          response = await this.#client.request(ShareAcknowledge, version => {
            this.renewSupported = version >= 2
            return {
              groupId: this.#host.groupId(),
              memberId: this.#host.memberId(),
              shareSessionEpoch: this.#epoch,
              isRenewAck: renew,
              topics: this.#ackTopics(taken)
            }
          }, { nodeId: this.nodeId, purpose: this.#purpose })
        } catch (error) {
          this.#debug(`ShareAcknowledge failed: ${(error as Error).message}`, () => ({ renew }))
          this.#failAcks(taken, error, waiters)
          this.#resetSessionAfterLostRequest(error)
          throw error
        }
        this.#debug('ShareAcknowledge answered', () => ({ renew, errorCode: response.errorCode, codes: response.responses.flatMap(t => t.partitions.map(p => p.errorCode)) }))
        if (response.errorCode === ErrorCode.INVALID_SHARE_SESSION_EPOCH) this.#requeue(taken, renew ? 'renewals' : 'pending', waiters)
        if (response.errorCode === ErrorCode.SHARE_SESSION_NOT_FOUND) this.#sessionLost(taken, waiters)
        if (isSessionError(response.errorCode)) this.#topLevelError(response.errorCode, response.errorMessage)
        this.#answerAcks(taken, response.errorCode, response.errorMessage, response.responses.flatMap(t => t.partitions.map(p => ({ topicId: t.topicId, ...p }))), waiters)
        if (response.errorCode !== 0) this.#topLevelError(response.errorCode, response.errorMessage)
        this.#nextEpoch()
      })
    } finally {
      this.#resolveFlushes(waiters)
    }
  }

  async #fetch (wanted: Map<string, SharePartition>, signal: AbortSignal): Promise<void> {
    const opening = this.#epoch === OPEN_EPOCH
    const taken = opening ? [] : this.#take(p => wanted.has(p.key), 'pending')
    // A session's first request carries no acknowledgements: flush() waiters wait for the next.
    const waiters = opening ? [] : this.#flushWaiters.splice(0)
    const ackBatches = new Map(taken.map(t => [t.partition.key, toAcknowledgementBatches(t.acks.offsets, t.acks.types)]))
    const topics = new Map<string, Array<{ partitionIndex: number, acknowledgementBatches: AcknowledgementBatch[] }>>()
    const added: SharePartition[] = []
    for (const p of wanted.values()) {
      const batches = ackBatches.get(p.key)
      const isNew = !this.#inSession.has(p.key)
      if (!isNew && batches === undefined) continue
      if (isNew) added.push(p)
      let list = topics.get(p.topicId)
      if (list === undefined) topics.set(p.topicId, list = [])
      list.push({ partitionIndex: p.partition, acknowledgementBatches: batches ?? [] })
    }
    const forgotten = new Map<string, number[]>()
    const removed: SharePartition[] = []
    for (const p of this.#inSession.values()) {
      if (wanted.has(p.key)) continue
      removed.push(p)
      let list = forgotten.get(p.topicId)
      if (list === undefined) forgotten.set(p.topicId, list = [])
      list.push(p.partition)
    }
    // The broker starts the locks after the request arrived: deadlines counted from now are early, never late.
    const sentAt = Date.now()
    const response = await this.#carrying(taken, async () => {
      let response: ShareFetchResponse
      try {
        response = await this.#client.request(ShareFetch, version => {
          // Renewals came with v2 of both share APIs (KIP-1222).
          this.renewSupported = version >= 2
          return {
            groupId: this.#host.groupId(),
            memberId: this.#host.memberId(),
            shareSessionEpoch: this.#epoch,
            maxWaitMs: this.#settings.maxWaitMs,
            minBytes: this.#settings.minBytes,
            maxBytes: this.#settings.maxBytes,
            maxRecords: this.#settings.maxRecords,
            batchSize: this.#settings.maxRecords,
            ...(version >= 2 ? { shareAcquireMode: 0, isRenewAck: false } : {}),
            topics: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
            forgottenTopicsData: [...forgotten].map(([topicId, partitions]) => ({ topicId, partitions }))
          }
        }, { nodeId: this.nodeId, purpose: this.#purpose, timeoutMs: this.#client.requestTimeoutMs + this.#settings.maxWaitMs })
      } catch (error) {
        this.#debug(`ShareFetch failed: ${(error as Error).message}`)
        this.#failAcks(taken, error, waiters)
        this.#resolveFlushes(waiters)
        this.#resetSessionAfterLostRequest(error)
        throw error
      }
      this.#debug('ShareFetch answered', () => ({ errorCode: response.errorCode, acquired: response.responses.flatMap(t => t.partitions.map(p => p.acquiredRecords.map(r => `${r.firstOffset}-${r.lastOffset}x${r.deliveryCount}`).join(','))) }))
      if (response.errorCode !== 0) {
        if (response.errorCode === ErrorCode.INVALID_SHARE_SESSION_EPOCH) this.#requeue(taken, 'pending', waiters)
        else if (response.errorCode === ErrorCode.SHARE_SESSION_NOT_FOUND) this.#sessionLost(taken, waiters)
        else this.#answerAcks(taken, response.errorCode, response.errorMessage, [], waiters)
        this.#resolveFlushes(waiters)
        this.#topLevelError(response.errorCode, response.errorMessage)
      }
      this.#nextEpoch()
      for (const p of added) this.#inSession.set(p.key, p)
      for (const p of removed) this.#inSession.delete(p.key)
      const answers = response.responses.flatMap(t => t.partitions.map(p => ({ topicId: t.topicId, partitionIndex: p.partitionIndex, errorCode: p.acknowledgeErrorCode, errorMessage: p.acknowledgeErrorMessage })))
      this.#answerAcks(taken, 0, null, answers, waiters)
      this.#resolveFlushes(waiters)
      return response
    })
    const partitions = response.responses.flatMap(t => t.partitions.map(p => ({ topicId: t.topicId, ...p })))
    let moved = false
    for (const p of partitions) {
      const sp = this.#partitions.get(`${p.topicId}:${p.partitionIndex}`)
      if (sp === undefined) continue
      if (p.errorCode !== 0) {
        const error = new BrokerError(p.errorCode, `ShareFetch of ${sp.topic}[${sp.partition}] from broker ${this.nodeId}`, p.errorMessage)
        if (MOVED.has(p.errorCode) || invalidatesMetadata(p.errorCode)) moved = true
        if (!error.retriable && !MOVED.has(p.errorCode)) { this.#host.fail(error); return }
        // The partition is asked for again in the next ShareFetch, at once.
        this.#host.fetchError({ nodeId: this.nodeId, topic: sp.topic, partition: sp.partition, error, retryInMs: 0 })
        continue
      }
      if (p.acquiredRecords.length > 0) await this.#deliver(sp, p, response.acquisitionLockTimeoutMs > 0 ? sentAt + response.acquisitionLockTimeoutMs : Infinity)
    }
    if (moved) {
      // Forget the partitions so a new leader's source takes them; the locks went with the leader.
      this.#host.refreshMetadata()
      await sleep(Math.min(1000, backoffDelay(this.#failures++, this.#client.backoff)), signal).catch(() => {})
    }
  }

  async #deliver (sp: SharePartition, p: ShareFetchResponsePartition, lockedUntil: number): Promise<void> {
    const batches = dropControl(await decodeRecordBatches(p.records, { topic: sp.topic, partition: sp.partition }))
    const records: ShareRecord[] = []
    const ranges = [...p.acquiredRecords].sort((a, b) => a.firstOffset < b.firstOffset ? -1 : 1)
    let r = 0
    let expected = ranges[0].firstOffset
    for (const batch of batches) {
      for (const record of batch.records) {
        while (r < ranges.length && record.offset > ranges[r].lastOffset) {
          // Acquired offsets no record was returned for: nothing to process, nothing to wait for.
          this.#gaps(sp, expected, ranges[r].lastOffset)
          r++
          if (r < ranges.length) expected = ranges[r].firstOffset
        }
        if (r === ranges.length) break
        if (record.offset < ranges[r].firstOffset) continue
        this.#gaps(sp, expected, record.offset - 1n)
        records.push(makeShareRecord(sp, record, ranges[r].deliveryCount, lockedUntil))
        expected = record.offset + 1n
      }
    }
    for (; r < ranges.length; r++) {
      if (expected < ranges[r].firstOffset) expected = ranges[r].firstOffset
      this.#gaps(sp, expected, ranges[r].lastOffset)
    }
    if (records.length > 0) this.#host.deliver({ topic: sp.topic, partition: sp.partition, records })
  }

  #gaps (sp: SharePartition, from: bigint, to: bigint): void {
    for (let offset = from; offset <= to; offset++) sp.pending.push(offset, AcknowledgeType.GAP)
  }

  #topLevelError (code: number, message: string | null): never {
    const error = new BrokerError(code, `Share session with broker ${this.nodeId} (epoch ${this.#epoch})`, message)
    if (isSessionError(code)) this.#resetSession()
    if (code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.FENCED_MEMBER_EPOCH) {
      this.#resetSession()
      this.#host.memberUnknown()
    }
    throw error
  }

  /** A request whose answer never came may or may not have moved the session's epoch: start a new session. */
  #resetSessionAfterLostRequest (error: unknown): void {
    if (error instanceof BrokerError) return
    // Lost requests close the connection, and the broker released the member's records with it.
    this.#sessionLost([])
  }

  /**
   * The broker no longer holds the records of our session: its connection closed (a lost
   * request, or SHARE_SESSION_NOT_FOUND: a 4.4 broker removes a session only when its
   * connection closes, it is closed with -1, or the broker restarted). What is acquired and
   * not yet acknowledged is no longer ours; `taken` (refused, not applied) fails with it.
   */
  #sessionLost (taken: InFlightAcks[], waiters?: Array<{ results: ShareAcknowledgementResult[] }>): void {
    this.#failAcks(taken, this.#lostError(), waiters)
    this.generation++
    for (const p of this.#partitions.values()) {
      for (const list of ['pending', 'renewals'] as const) {
        const acks = p[list]
        p[list] = new AckList()
        for (let i = 0; i < acks.size; i++) if (acks.types[i] !== AcknowledgeType.GAP) p.lost.push(acks.offsets[i], acks.types[i])
      }
    }
    this.#resetSession()
  }

  /** Fails the acknowledgements of records lost with a connection (see #resetSessionAfterLostRequest); flush() waiters get them. */
  #failLost (): void {
    const lost = this.#take(() => true, 'lost')
    if (lost.length === 0) return
    this.#failAcks(lost, this.#lostError(), this.#flushWaiters)
    if (!this.#hasPending()) this.#resolveFlushes(this.#flushWaiters.splice(0))
  }

  #lostError (): BrokerError {
    return new BrokerError(ErrorCode.SHARE_SESSION_NOT_FOUND, `Acknowledging records acquired in a share session with broker ${this.nodeId} whose connection was lost (a request timed out or failed, or the broker restarted): the broker released them, and they will be delivered again, maybe to another member`)
  }

  /** Acknowledgements a session error refused (nothing applied) go back to be sent in the new session, with their flush() waiters. */
  #requeue (taken: InFlightAcks[], list: 'pending' | 'renewals', waiters: Array<{ resolve: (results: ShareAcknowledgementResult[]) => void, results: ShareAcknowledgementResult[] }>): void {
    for (const { partition, acks } of taken) {
      const later = partition[list]
      for (let i = 0; i < later.size; i++) acks.push(later.offsets[i], later.types[i])
      partition[list] = acks
    }
    this.#flushWaiters.unshift(...waiters.splice(0))
  }

  #answerAcks (taken: InFlightAcks[], topCode: number, topMessage: string | null, answers: Array<{ topicId: string, partitionIndex: number, errorCode: number, errorMessage: string | null }>, waiters?: Array<{ results: ShareAcknowledgementResult[] }>): void {
    const byKey = new Map(answers.map(a => [`${a.topicId}:${a.partitionIndex}`, a]))
    for (const { partition, acks } of taken) {
      const answer = byKey.get(partition.key)
      const code = topCode !== 0 ? topCode : answer?.errorCode ?? 0
      const message = topCode !== 0 ? topMessage : answer?.errorMessage ?? null
      const renewal = acks.types[0] === AcknowledgeType.RENEW
      const why = code !== ErrorCode.INVALID_RECORD_STATE
        ? ''
        : renewal
          ? ' (their acquisition lock had expired, or the group does not allow renewals: its share.renew.acknowledge.enable is false)'
          : ' (their acquisition lock had expired, or they were acknowledged already)'
      const error = code === 0 ? null : new BrokerError(code, `${renewal ? 'Renewing the locks of' : 'Acknowledging'} records of ${partition.topic}[${partition.partition}]${why}`, message)
      this.#report(partition, acks, error, waiters)
    }
  }

  #failAcks (taken: InFlightAcks[], cause: unknown, waiters?: Array<{ results: ShareAcknowledgementResult[] }>): void {
    const error = cause instanceof BrokerError ? cause : new BrokerError(-1, `Acknowledging records with broker ${this.nodeId}: ${(cause as Error).message}`)
    for (const { partition, acks } of taken) this.#report(partition, acks, error, waiters)
  }

  #report (partition: SharePartition, acks: AckList, error: BrokerError | null, waiters?: Array<{ results: ShareAcknowledgementResult[] }>): void {
    const offsets: bigint[] = []
    for (let i = 0; i < acks.offsets.length; i++) if (acks.types[i] !== AcknowledgeType.GAP) offsets.push(acks.offsets[i])
    if (offsets.length === 0) return
    offsets.sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
    const result: ShareAcknowledgementResult = { topic: partition.topic, partition: partition.partition, offsets, error }
    this.#host.acknowledged(result)
    this.#requestResults?.push(result)
    if (waiters !== undefined) for (const w of waiters) w.results.push(result)
  }

  #resolveFlushes (waiters: Array<{ resolve: (results: ShareAcknowledgementResult[]) => void, results: ShareAcknowledgementResult[] }>): void {
    for (const w of waiters) w.resolve(w.results)
    waiters.length = 0
  }
}

function isSessionError (code: number): boolean {
  return code === ErrorCode.SHARE_SESSION_NOT_FOUND || code === ErrorCode.INVALID_SHARE_SESSION_EPOCH
}

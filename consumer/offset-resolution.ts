/**
 * Offset resolution: turns a partition's position given as a spec ('earliest', 'latest',
 * { timestamp }, or an out-of-range reset) into an offset with ListOffsets, retrying with
 * a backoff until it is known, the cursor is replaced, or the consumer stops. Owns which
 * cursors are being resolved and which were seeked to a spec (their resolved offset then
 * counts as processed); the consumer is told through OffsetResolutionHost.
 *
 * Partitions to resolve are gathered for a turn and asked for together, as the Java client
 * and franz-go do: one ListOffsets per leader for every partition it leads (a join that
 * assigns N partitions makes one request per broker, not N). The request goes on the
 * consumer's own fetch connection to that broker when no long poll holds it, so the
 * connection the first Fetch needs is set up once, by whichever of the two asks first
 * (the sources start connecting as soon as the assignment is known), instead of a second
 * connection being opened after the offsets came back.
 */
import type { Client, Isolation } from '../client/client'
import { sleep } from '../client/backoff'
import type { ConnectionPurpose } from '../client/brokers'
import { internal } from '../client/internal'
import { invalidatesMetadata } from '../client/metadata'
import { ListOffsets, OffsetSpec as SpecialTimestamp, type ListOffsetsResponse } from '../protocol/apis/list-offsets'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { Cursor, OffsetSpec } from './cursor'

export interface OffsetResolutionHost {
  /** Whether `cursor` is still the one held for its partition (a replaced one is not resolved). */
  isCurrent: (cursor: Cursor) => boolean
  /** Cursors got their fetch offset: fetching them can start. */
  resolved: () => void
  /** A resolution failed for good (a non-retriable error): the consumer ends with it. */
  fail: (error: Error) => void
  /** The purpose of the consumer's own fetch connections (FetchScheduling's). */
  readonly fetchPurpose: ConnectionPurpose
  /** Whether the consumer's source for `nodeId` has a long poll in flight (a request behind it on that connection waits for it). */
  longPolling: (nodeId: number) => boolean
}

/** A partition's place in one ListOffsets: the cursor, what was asked, and under which cursor version. */
interface Asked {
  cursor: Cursor
  /** The spec asked ('latest' when a timestamp found nothing and the end is asked instead). */
  spec: OffsetSpec
  version: number
}

export class OffsetResolution {
  readonly #client: Client
  readonly #isolation: Isolation
  /** Aborts when the consumer stops handing out: ends the ListOffsets in flight and the backoffs. */
  readonly #stop: AbortSignal
  readonly #host: OffsetResolutionHost
  /**
   * Cursors being resolved (waiting for the next round, in a request, or backing off): one
   * resolution per cursor; a seek while it runs is picked up when its answer comes.
   */
  readonly #resolving = new Set<Cursor>()
  /** Cursors waiting for the next round of requests, sent together at the end of the turn. */
  readonly #queued = new Set<Cursor>()
  #roundDue = false
  /** Cursors whose seek to an offset spec is being resolved: the resolved offset counts as processed. */
  readonly #seekedToSpec = new WeakSet<Cursor>()
  /** A timestamp past the last record found nothing (-1): the end is asked for instead, at this cursor version. */
  readonly #endInstead = new WeakMap<Cursor, number>()
  /** Failed attempts in a row per cursor (its backoff); forgotten once resolved. */
  readonly #failures = new WeakMap<Cursor, number>()

  constructor (client: Client, isolation: Isolation, stop: AbortSignal, host: OffsetResolutionHost) {
    this.#client = client
    this.#isolation = isolation
    this.#stop = stop
    this.#host = host
  }

  /**
   * seek() moved `cursor` to `target`: an offset counts as processed at once, a spec once
   * it is resolved (a later seek to an offset cancels that).
   */
  seeked (cursor: Cursor, target: bigint | OffsetSpec): void {
    if (typeof target === 'bigint') {
      this.#seekedToSpec.delete(cursor)
      cursor.processedOffset = target
    } else {
      this.#seekedToSpec.add(cursor)
    }
  }

  /** Resolves `cursor.resetTo` into `cursor.fetchOffset`, in the next round; a second call while one runs does nothing. */
  resolve (cursor: Cursor): void {
    if (this.#resolving.has(cursor)) return
    this.#resolving.add(cursor)
    this.#queue(cursor)
  }

  /**
   * Puts `cursor` in the next round. The round goes out after this turn's I/O callbacks
   * (setImmediate), so the partitions an assignment adds, or a Fetch answer resets, share
   * one request per broker.
   */
  #queue (cursor: Cursor): void {
    this.#queued.add(cursor)
    if (this.#roundDue) return
    this.#roundDue = true
    setImmediate(() => {
      this.#roundDue = false
      this.#round().catch(error => { this.#host.fail(error as Error) })
    })
  }

  /** Whether `cursor` still needs its offset (current, a spec to resolve, consumer not stopped); if not it is let go. */
  #wanted (cursor: Cursor): boolean {
    if (!this.#stop.aborted && cursor.resetTo !== undefined && this.#host.isCurrent(cursor)) return true
    this.#resolving.delete(cursor)
    return false
  }

  /** Sends one ListOffsets per leader for the cursors queued. */
  async #round (): Promise<void> {
    const byLeader = new Map<number, Cursor[]>()
    /** Cursors of topics the metadata does not know yet (a new client's consumer): one wait per topic, not per partition. */
    const unknownTopics = new Map<string, Cursor[]>()
    const metadata = this.#client.metadata
    for (const cursor of this.#queued) {
      if (!this.#wanted(cursor)) continue
      const topic = metadata.topic(cursor.topic)
      const leader = topic?.partitions[cursor.partition]?.leaderId ?? -1
      if (leader < 0) {
        if (topic !== undefined) {
          void this.#whenLeaderKnown(cursor)
          continue
        }
        const list = unknownTopics.get(cursor.topic)
        if (list === undefined) unknownTopics.set(cursor.topic, [cursor])
        else list.push(cursor)
        continue
      }
      const list = byLeader.get(leader)
      if (list === undefined) byLeader.set(leader, [cursor])
      else list.push(cursor)
    }
    this.#queued.clear()
    for (const [topic, cursors] of unknownTopics) void this.#whenTopicKnown(topic, cursors)
    await Promise.all([...byLeader].map(async ([nodeId, cursors]) => await this.#ask(nodeId, cursors)))
  }

  /**
   * Partitions of a topic the metadata does not know yet wait for it together (a wait per
   * partition cost a refresh waiter, an abort signal and a timer each: 10,000 of them for a
   * new client assigned 10,000 partitions), then join the next round; one still without a
   * leader then waits for it on its own (#whenLeaderKnown).
   */
  async #whenTopicKnown (topic: string, cursors: Cursor[]): Promise<void> {
    try {
      await this.#client.metadata.waitForTopic(topic, this.#client.requestTimeoutMs, this.#stop)
    } catch (error) {
      for (const cursor of cursors) this.#failed(cursor, error)
      return
    }
    for (const cursor of cursors) if (this.#wanted(cursor)) this.#queue(cursor)
  }

  /** A partition without a known leader waits for one (metadata refreshes meanwhile), then joins the next round. */
  async #whenLeaderKnown (cursor: Cursor): Promise<void> {
    try {
      await this.#client.metadata.waitForLeader(cursor.topic, cursor.partition, this.#client.requestTimeoutMs, this.#stop)
    } catch (error) {
      this.#failed(cursor, error)
      return
    }
    if (this.#wanted(cursor)) this.#queue(cursor)
  }

  /** One ListOffsets to `nodeId` for `cursors`; each partition's answer is used on its own. */
  async #ask (nodeId: number, cursors: Cursor[]): Promise<void> {
    const asked: Asked[] = cursors.map(cursor => ({
      cursor,
      spec: this.#endInstead.get(cursor) === cursor.version ? 'latest' : cursor.resetTo!,
      version: cursor.version
    }))
    const byTopic = new Map<string, Asked[]>()
    for (const a of asked) {
      const list = byTopic.get(a.cursor.topic)
      if (list === undefined) byTopic.set(a.cursor.topic, [a])
      else list.push(a)
    }
    const metadata = this.#client.metadata
    let response: ListOffsetsResponse
    try {
      // The consumer's fetch connection, which the first Fetch then finds ready, unless its
      // source long-polls on it (Kafka answers a connection's requests in order: this one
      // would wait up to maxWaitMs); then the client's shared fetch connection. No await
      // between that check and the write: no long poll can slip in front meanwhile.
      const connect = this.#client[internal].connection
      let connection = await connect(nodeId, this.#host.fetchPurpose, this.#stop)
      if (this.#host.longPolling(nodeId)) connection = await connect(nodeId, 'fetch', this.#stop)
      response = await connection.send(ListOffsets, {
        replicaId: -1,
        isolationLevel: this.#isolation === 'read_committed' ? 1 : 0,
        topics: [...byTopic].map(([name, list]) => ({
          name,
          partitions: list.map(a => ({ partitionIndex: a.cursor.partition, currentLeaderEpoch: metadata.partition(name, a.cursor.partition)?.leaderEpoch ?? -1, timestamp: specTimestamp(a.spec) }))
        })),
        timeoutMs: this.#client.requestTimeoutMs
      }, { signal: this.#stop, timeoutMs: this.#client.requestTimeoutMs })
    } catch (error) {
      for (const a of asked) this.#failed(a.cursor, error)
      return
    }
    const answers = new Map<string, ListOffsetsResponse['topics'][number]['partitions'][number]>()
    for (const t of response.topics) for (const p of t.partitions) answers.set(`${t.name}-${p.partitionIndex}`, p)
    let positioned = false
    let refresh = false
    for (const a of asked) {
      const { cursor } = a
      if (!this.#wanted(cursor)) continue
      // Seeked (or reset) while we asked: this answer is for the old position; ask again for the new one.
      if (cursor.version !== a.version) {
        this.#queue(cursor)
        continue
      }
      const p = answers.get(cursor.key)
      if (p === undefined) {
        this.#failed(cursor, new BrokerError(-1, `ListOffsets of ${cursor.key} from broker ${nodeId}: the response has no entry for the partition`))
        continue
      }
      if (p.errorCode !== 0) {
        if (invalidatesMetadata(p.errorCode)) refresh = true
        this.#failed(cursor, new BrokerError(p.errorCode, `ListOffsets of ${cursor.key} from broker ${nodeId}`))
        continue
      }
      if (p.offset < 0n) {
        // A timestamp after the last record gives -1: start at the end then (asked in the next round).
        this.#endInstead.set(cursor, cursor.version)
        this.#queue(cursor)
        continue
      }
      cursor.fetchOffset = p.offset
      cursor.resetTo = undefined
      if (this.#seekedToSpec.delete(cursor)) cursor.processedOffset = cursor.fetchOffset
      this.#endInstead.delete(cursor)
      this.#failures.delete(cursor)
      this.#resolving.delete(cursor)
      positioned = true
    }
    if (refresh) metadata.refresh(cursors.map(c => c.topic), this.#stop).catch(() => {})
    // Once for the whole answer: the partitions it positioned join their broker's fetch together.
    if (positioned) this.#host.resolved()
  }

  /** An attempt for `cursor` failed: the consumer fails on an error no retry fixes, else the cursor is asked again after a backoff. */
  #failed (cursor: Cursor, error: unknown): void {
    // Stopped: the error is the abort of the request in flight, not a failure.
    if (this.#stop.aborted) {
      this.#resolving.delete(cursor)
      return
    }
    if (error instanceof KafkaTsError && !error.retriable) {
      this.#resolving.delete(cursor)
      this.#host.fail(error)
      return
    }
    const attempt = this.#failures.get(cursor) ?? 0
    this.#failures.set(cursor, attempt + 1)
    // close() ends the wait (and the resolution) at once.
    sleep(Math.min(1000, 100 * 2 ** attempt), this.#stop, undefined, this.#client.clock).then(() => {
      if (this.#wanted(cursor)) this.#queue(cursor)
    }, () => { this.#resolving.delete(cursor) })
  }
}

/** The ListOffsets timestamp that asks for `spec`. */
function specTimestamp (spec: OffsetSpec): bigint {
  if (spec === 'earliest') return SpecialTimestamp.EARLIEST
  if (spec === 'latest') return SpecialTimestamp.LATEST
  return BigInt(spec.timestamp instanceof Date ? spec.timestamp.getTime() : spec.timestamp)
}

/**
 * Fetch scheduling: which broker fetches which partition, and when. Keeps one Source per
 * broker some held partition fetches from (its leader, or a preferred replica), tells each
 * which of its partitions to fetch now (not paused, not backing off, with room in the
 * buffer) and wakes them when there may be work; refreshes metadata when a leader is
 * missing. A partition that gets a fetch position joins its broker's fetch at once: a long
 * poll in flight that leaves it out is ended (`positioned`). Owns the sources, the consumer's own fetch connections and the work wake-ups;
 * reads the consumer's cursors and passes the sources' reports on through
 * FetchSchedulingHost.
 */
import type { Client } from '../client/client'
import { Signal } from '../client/signal'
import type { ClockTimer } from '../client/clock'
import type { Cursor } from './cursor'
import { Source, type FetchSettings, type SourceHost } from './source'
import { internal } from '../client/internal'

let consumerConnections = 0

/** Each fetching consumer (plain, group or share) gets its own fetch connections. */
export function nextFetchPurpose (): `fetch-${number}` {
  return `fetch-${++consumerConnections}`
}

/** What the sources report, passed on to the consumer as they come (SourceHost's meanings). */
type SourceReports = Pick<SourceHost, 'isCurrent' | 'maxBatchRecords' | 'maxBatchBytes' | 'buffered' | 'truncated' | 'fetchError' | 'observed' | 'fetchStarted' | 'fetched' | 'fail' | 'resolve'>

export interface FetchSchedulingHost extends SourceReports {
  /** The partitions held. */
  cursors: () => Iterable<Cursor>
  /** The prefetch buffer holds maxBufferedBytes: nothing is fetched. */
  readonly bufferFull: boolean
}

export class FetchScheduling {
  readonly #client: Client
  readonly #settings: FetchSettings
  readonly #host: FetchSchedulingHost
  readonly #sources = new Map<number, Source>()
  /**
   * This consumer's own fetch connections: a broker answers a connection's requests one at
   * a time, so another consumer's long poll on a shared one would delay every fetch of ours.
   */
  readonly #purpose = nextFetchPurpose()
  /** Wakes the sources waiting for fetchable work. */
  readonly #work = new Signal()
  /** Goes up on every wake-up of the sources, so a source that was busy fetching does not miss one. */
  #workVersion = 0
  #refreshTimer: ClockTimer | undefined
  /** The consumer closed: nothing is fetched, started or refreshed any more. */
  #stopped = false
  /** A check for long polls that leave out newly positioned partitions is due this turn. */
  #joinDue = false
  /** The sources stopping (close): one promise for every caller. */
  #closing: Promise<void> | undefined
  readonly #sourceHost: SourceHost

  constructor (client: Client, settings: FetchSettings, host: FetchSchedulingHost) {
    this.#client = client
    this.#settings = settings
    this.#host = host
    this.#sourceHost = this.#makeSourceHost()
  }

  #makeSourceHost (): SourceHost {
    const host = this.#host
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const scheduling = this
    return {
      fetchable: nodeId => this.#fetchable(nodeId),
      heldBack: nodeId => this.#heldBack(nodeId),
      isCurrent: (cursor, version) => host.isCurrent(cursor, version),
      get maxBatchRecords (): number { return host.maxBatchRecords },
      get maxBatchBytes (): number { return host.maxBatchBytes },
      buffered: () => host.buffered(),
      truncated: event => host.truncated(event),
      fetchError: event => host.fetchError(event),
      get observed (): boolean { return host.observed },
      fetchStarted: nodeId => host.fetchStarted(nodeId),
      fetched: event => host.fetched(event),
      fail: error => host.fail(error),
      refreshMetadata: () => this.#refreshMetadataSoon(),
      startSources: () => this.startSources(),
      resolve: cursor => host.resolve(cursor),
      released: () => this.wake(),
      get workVersion (): number { return scheduling.#workVersion },
      waitForWork: async (signal, since) => {
        if (this.#workVersion === since) await this.#work.wait(signal).catch(() => {})
      }
    }
  }

  #fetchable (nodeId: number): Cursor[] {
    if (this.#stopped || this.#host.bufferFull) return []
    const cursors: Cursor[] = []
    const now = this.#client.clock.now()
    for (const cursor of this.#host.cursors()) {
      if (cursor.inFetch || !this.#ready(cursor, now)) continue
      if (this.nodeOf(cursor) !== nodeId) continue
      cursors.push(cursor)
    }
    return cursors
  }

  /** Whether `cursor` may be fetched now, in fetch or not: positioned, not paused, released or backing off, with room. */
  #ready (cursor: Cursor, now: number): boolean {
    if (cursor.paused || cursor.fetchOffset === undefined || cursor.ownership.released || cursor.retryAt > now) return false
    // Memory against the wire limit: one full answer of the partition (which costs more in memory than on the wire) stops it until it is handed out.
    return cursor.bufferedBytes < this.#settings.maxPartitionBytes
  }

  /**
   * Whether `source`'s long poll leaves out a partition it could fetch now: one not in any
   * Fetch, or one in this poll whose position moved since (a seek: the poll's answer for it
   * is dropped). A partition in another broker's Fetch (its leader moved) waits for that one.
   */
  #pollLeavesOut (source: Source, now: number): boolean {
    const poll = source.longPoll
    if (poll === undefined || this.#host.bufferFull) return false
    for (let i = 0; i < poll.cursors.length; i++) {
      const cursor = poll.cursors[i]
      if (cursor.version !== poll.versions[i] && this.#host.isCurrent(cursor, cursor.version) && this.#ready(cursor, now)) return true
    }
    for (const cursor of this.#host.cursors()) {
      if (!cursor.inFetch && this.#ready(cursor, now) && this.nodeOf(cursor) === source.nodeId) return true
    }
    return false
  }

  #heldBack (nodeId: number): boolean {
    for (const cursor of this.#host.cursors()) {
      if (cursor.paused || cursor.inFetch || cursor.fetchOffset === undefined || cursor.ownership.released) continue
      if (cursor.bufferedBytes >= this.#settings.maxPartitionBytes && this.nodeOf(cursor) === nodeId) return true
    }
    return false
  }

  /** The broker a cursor fetches from: its preferred replica while that is known, else its leader (-1: none known). */
  nodeOf (cursor: Cursor): number {
    if (cursor.preferredReplica >= 0 && this.#client[internal].brokers.broker(cursor.preferredReplica) !== undefined) return cursor.preferredReplica
    return this.#client.metadata.partition(cursor.topic, cursor.partition)?.leaderId ?? -1
  }

  /** The purpose of this consumer's own fetch connections (offset resolution sends its ListOffsets on them too). */
  get purpose (): `fetch-${number}` {
    return this.#purpose
  }

  /** Whether the source of `nodeId` has a long poll in flight: a request sent behind it on its connection would wait for it. */
  longPolling (nodeId: number): boolean {
    return this.#sources.get(nodeId)?.longPoll !== undefined
  }

  /**
   * Opens this consumer's fetch connections to the leaders of `partitions` (those known),
   * ahead of their first Fetch: a connection's setup (connect, ApiVersions, SASL) then
   * overlaps what comes before that Fetch (a group member's OffsetFetch, the ListOffsets
   * of offset resolution) instead of following it. A failure is the first Fetch's to see.
   */
  connectFor (partitions: Iterable<{ topic: string, partition: number }>): void {
    if (this.#stopped) return
    const nodes = new Set<number>()
    for (const p of partitions) nodes.add(this.#client.metadata.partition(p.topic, p.partition)?.leaderId ?? -1)
    nodes.delete(-1)
    // No signal: closeSources() closes this purpose's connections, made or being made.
    for (const nodeId of nodes) this.#client[internal].connection(nodeId, this.#purpose).catch(() => {})
  }

  /** Starts a source for every broker some cursor fetches from, and wakes them. */
  startSources (): void {
    if (this.#stopped) return
    let missingLeader = false
    for (const cursor of this.#host.cursors()) {
      const nodeId = this.nodeOf(cursor)
      if (nodeId < 0) {
        missingLeader = true
        continue
      }
      if (!this.#sources.has(nodeId)) {
        const source = new Source(nodeId, this.#client, this.#sourceHost, this.#settings, this.#purpose)
        this.#sources.set(nodeId, source)
        source.start()
      }
    }
    if (missingLeader) this.#refreshMetadataSoon()
  }

  /** Partitions of these topics were added: start fetching once their metadata is known. */
  startWhenKnown (topics: Iterable<string>): void {
    // One wait per topic, not per partition (10,000 waits for 1,000 topics x 10 partitions otherwise).
    const missing = [...new Set(topics)].filter(t => this.#client.metadata.topic(t) === undefined)
    if (missing.length === 0) {
      this.positioned()
      return
    }
    Promise.all(missing.map(async t => await this.#client.metadata.waitForTopic(t, 60_000))).then(() => {
      this.positioned()
    }, error => this.#host.fail(error))
  }

  /**
   * Partitions got a fetch position (added with one, resolved, seeked): they join their
   * broker's fetch at once. A source long-polling without them ends its poll and fetches
   * again with them, rather than leave them waiting up to maxWaitMs (the first record
   * after a join came ~5 s late with kafkajs's default). Positions that come in the same
   * turn (answers read together) end a poll once: the check runs after the turn's I/O.
   */
  positioned (): void {
    this.startSources()
    this.wake()
    if (this.#joinDue || this.#stopped) return
    this.#joinDue = true
    setImmediate(() => {
      this.#joinDue = false
      if (this.#stopped) return
      const now = this.#client.clock.now()
      for (const source of this.#sources.values()) {
        if (this.#pollLeavesOut(source, now)) source.endLongPoll()
      }
    })
  }

  #refreshMetadataSoon (): void {
    if (this.#refreshTimer !== undefined || this.#stopped) return
    this.#refreshTimer = this.#client.clock.setTimer(() => {
      this.#refreshTimer = undefined
      this.#client.metadata.refresh(new Set([...this.#host.cursors()].map(c => c.topic))).then(() => {
        this.startSources()
        this.wake()
      }, () => this.#refreshMetadataSoon())
    }, this.#client.backoff.initialMs, { keepAlive: true })
  }

  /** There may be something to fetch (room freed, a seek, a resume, a position resolved): wakes the sources. */
  wake (): void {
    this.#workVersion++
    this.#work.notify()
  }

  /** close() begins: nothing is fetched, started or refreshed from now on; the sources wake to see it. */
  stop (): void {
    this.#stopped = true
    this.#refreshTimer?.cancel()
    this.wake()
  }

  /**
   * Stops fetching: ends each source's long poll (its answer is dropped), closes its fetch
   * session and this consumer's fetch connections (a long-lived Client would collect them
   * otherwise). Every call gets the same promise.
   */
  async closeSources (): Promise<void> {
    this.stop()
    this.#closing ??= (async () => {
      await Promise.all([...this.#sources.values()].map(async s => await s.stop()))
      this.#sources.clear()
      this.#client[internal].brokers.closePurpose(this.#purpose)
    })()
    await this.#closing
  }
}

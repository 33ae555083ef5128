/**
 * Source: the fetch inbox of one broker (franz-go's name). It loops: take the cursors
 * this broker serves that are ready to fetch, send one Fetch (within a fetch session),
 * hand each partition's answer to the consumer, and go again. One Fetch is in flight
 * per broker at a time, as in the Java client.
 *
 * A cursor is marked `inFetch` while a request carrying it is out, so no other source
 * fetches it at the same time when its leader moves; the consumer drops an answer whose
 * cursor `version` changed meanwhile (a seek, reset or truncation).
 */
import type { Client } from '../client/client'
import { backoffDelay, sleep } from '../client/backoff'
import type { ConnectionPurpose } from '../client/brokers'
import { Fetch, type FetchPartitionResponse, type FetchRequest, type FetchResponse } from '../protocol/apis/fetch'
import { BrokerError } from '../protocol/errors'
import type { Cursor } from './cursor'
import { FetchSession, type SessionPartition } from './fetch-session'

const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

export interface FetchSettings {
  maxWaitMs: number
  minBytes: number
  maxBytes: number
  maxPartitionBytes: number
  isolationLevel: 0 | 1
  rack: string
}

export interface SourceOwner {
  /** Cursors this broker should fetch now (leader or preferred replica, not paused, with room in the buffer). */
  fetchable: (nodeId: number) => Cursor[]
  /** One partition's answer; `version` is the cursor version the request was built under. */
  onPartition: (cursor: Cursor, version: number, response: FetchPartitionResponse) => Promise<void>
  /** The request failed as a whole; the cursors may move to another broker. */
  onSourceError: (nodeId: number, cursors: Cursor[], error: Error) => void
  /** A fetch let go of its cursors (they may be another source's now). */
  released: () => void
  /** Goes up whenever there may be new work (a hand-out freed room, a seek, a resume...). */
  readonly workVersion: number
  /** Resolves when there may be something to fetch: at once if `workVersion` moved past `since`. */
  waitForWork: (signal: AbortSignal, since: number) => Promise<void>
}

export class Source {
  readonly nodeId: number
  readonly #client: Client
  readonly #owner: SourceOwner
  readonly #settings: FetchSettings
  readonly #session = new FetchSession()
  readonly #stop = new AbortController()
  #running: Promise<void> | undefined
  #failures = 0

  readonly #purpose: ConnectionPurpose

  constructor (nodeId: number, client: Client, owner: SourceOwner, settings: FetchSettings, purpose: ConnectionPurpose = 'fetch') {
    this.nodeId = nodeId
    this.#purpose = purpose
    this.#client = client
    this.#owner = owner
    this.#settings = settings
  }

  start (): void {
    this.#running ??= this.#loop()
  }

  async stop (): Promise<void> {
    this.#stop.abort()
    await this.#running
  }

  async #loop (): Promise<void> {
    const signal = this.#stop.signal
    while (!signal.aborted) {
      // Taken before looking for work, so a wake-up that comes while we fetch is not missed.
      const since = this.#owner.workVersion
      const cursors = this.#owner.fetchable(this.nodeId)
      if (cursors.length === 0 && this.#session.id === 0) {
        await this.#owner.waitForWork(signal, since).catch(() => {})
        continue
      }
      for (const c of cursors) c.inFetch = true
      const versions = cursors.map(c => c.version)
      try {
        const response = await this.#fetch(cursors, signal)
        this.#failures = 0
        if (response !== undefined) {
          const byKey = new Map(cursors.map((c, i) => [c.key, i]))
          for (const topic of response.responses) {
            const name = topic.topic !== '' ? topic.topic : this.#client.metadata.topicById(topic.topicId)?.name
            if (name === undefined) continue
            for (const p of topic.partitions) {
              const i = byKey.get(`${name}-${p.partitionIndex}`)
              if (i === undefined) continue
              await this.#owner.onPartition(cursors[i], versions[i], p)
            }
          }
        }
        // An empty session (everything paused or buffered): wait for work instead of spinning.
        if (cursors.length === 0) await this.#owner.waitForWork(signal, since).catch(() => {})
      } catch (error) {
        if (signal.aborted) break
        this.#session.reset()
        // Let go of the cursors before backing off: their leader may have moved, and the
        // new leader's source must be able to take them now, not after our sleep.
        for (const c of cursors) c.inFetch = false
        this.#owner.onSourceError(this.nodeId, cursors, error as Error)
        await sleep(backoffDelay(this.#failures++, this.#client.backoff), signal).catch(() => {})
      } finally {
        for (const c of cursors) c.inFetch = false
        // Another source may have skipped these cursors while we held them.
        if (cursors.length > 0) this.#owner.released()
      }
    }
  }

  async #fetch (cursors: Cursor[], signal: AbortSignal): Promise<FetchResponse | undefined> {
    const deadline = Date.now() + this.#client.requestTimeoutMs
    const connection = await this.#client.brokers.get(this.nodeId, this.#purpose, deadline, signal)
    const version = connection.versionFor(Fetch)
    const useSessions = version >= 7
    if (!useSessions) this.#session.reset()
    const wanted = new Map<string, SessionPartition>()
    for (const c of cursors) {
      const meta = this.#client.metadata.partition(c.topic, c.partition)
      wanted.set(c.key, {
        topic: c.topic,
        topicId: this.#client.metadata.topic(c.topic)?.topicId ?? ZERO_UUID,
        partition: c.partition,
        fetchOffset: c.fetchOffset!,
        lastFetchedEpoch: c.lastFetchedEpoch,
        currentLeaderEpoch: meta?.leaderEpoch ?? -1,
        maxBytes: this.#settings.maxPartitionBytes
      })
    }
    const { include, forget } = this.#session.build(wanted)
    const byId = version >= 13
    const group = <T extends { topic: string, topicId: string }>(items: T[]): Map<string, T[]> => {
      const map = new Map<string, T[]>()
      for (const item of items) {
        const list = map.get(item.topic)
        if (list === undefined) map.set(item.topic, [item])
        else list.push(item)
      }
      return map
    }
    const request: FetchRequest = {
      replicaId: -1,
      maxWaitMs: this.#settings.maxWaitMs,
      minBytes: this.#settings.minBytes,
      maxBytes: this.#settings.maxBytes,
      isolationLevel: this.#settings.isolationLevel,
      sessionId: useSessions ? this.#session.id : 0,
      sessionEpoch: useSessions ? this.#session.epoch : -1,
      topics: [...group(include)].map(([topic, parts]) => ({
        topic: byId ? '' : topic,
        topicId: byId ? parts[0].topicId : ZERO_UUID,
        partitions: parts.map(p => ({ partition: p.partition, currentLeaderEpoch: p.currentLeaderEpoch, fetchOffset: p.fetchOffset, lastFetchedEpoch: p.lastFetchedEpoch, logStartOffset: -1n, partitionMaxBytes: p.maxBytes }))
      })),
      forgottenTopicsData: useSessions
        ? [...group(forget)].map(([topic, parts]) => ({ topic: byId ? '' : topic, topicId: byId ? parts[0].topicId : ZERO_UUID, partitions: parts.map(p => p.partition) }))
        : [],
      rackId: this.#settings.rack
    }
    const response = await connection.send(Fetch, request, { version, signal, timeoutMs: this.#client.requestTimeoutMs + this.#settings.maxWaitMs })
    if (useSessions) this.#session.onResponse(response.errorCode, response.sessionId)
    if (response.errorCode === 70 || response.errorCode === 71) return undefined // session reset: the next request is full
    if (response.errorCode !== 0) throw new BrokerError(response.errorCode, `Fetch from broker ${this.nodeId}`)
    return response
  }
}

/**
 * Offset resolution: turns a partition's position given as a spec ('earliest', 'latest',
 * { timestamp }, or an out-of-range reset) into an offset with ListOffsets, retrying with
 * a backoff until it is known, the cursor is replaced, or the consumer stops. Owns which
 * cursors are being resolved and which were seeked to a spec (their resolved offset then
 * counts as processed); the consumer is told through OffsetResolutionHost.
 */
import type { Client, Isolation } from '../client/client'
import { sleep } from '../client/backoff'
import { KafkaTsError } from '../protocol/errors'
import type { Cursor, OffsetSpec } from './cursor'

export interface OffsetResolutionHost {
  /** Whether `cursor` is still the one held for its partition (a replaced one is not resolved). */
  isCurrent: (cursor: Cursor) => boolean
  /** A cursor got its fetch offset: fetching it can start. */
  resolved: () => void
  /** A resolution failed for good (a non-retriable error): the consumer ends with it. */
  fail: (error: Error) => void
}

export class OffsetResolution {
  readonly #client: Client
  readonly #isolation: Isolation
  /** Aborts when the consumer stops handing out: ends the ListOffsets in flight and the backoff. */
  readonly #stop: AbortSignal
  readonly #host: OffsetResolutionHost
  /** Cursors with a resolve loop running: one loop per cursor. */
  readonly #resolving = new Set<Cursor>()
  /** Cursors whose seek to an offset spec is being resolved: the resolved offset counts as processed. */
  readonly #seekedToSpec = new WeakSet<Cursor>()

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

  /** Resolves `cursor.resetTo` into `cursor.fetchOffset`; a second call while one runs does nothing. */
  async resolve (cursor: Cursor): Promise<void> {
    if (this.#resolving.has(cursor)) return
    this.#resolving.add(cursor)
    try {
      const stop = this.#stop
      for (let attempt = 0; !stop.aborted; attempt++) {
        const spec = cursor.resetTo
        if (spec === undefined || !this.#host.isCurrent(cursor)) return
        const version = cursor.version
        try {
          const { offset } = await this.#client.listOffsets({ topic: cursor.topic, partition: cursor.partition, spec, isolation: this.#isolation, signal: stop })
          if (cursor.version !== version) continue
          // A timestamp after the last record gives -1: start at the end then.
          cursor.fetchOffset = offset >= 0n ? offset : (await this.#client.listOffsets({ topic: cursor.topic, partition: cursor.partition, spec: 'latest', signal: stop })).offset
          cursor.resetTo = undefined
          if (this.#seekedToSpec.delete(cursor)) cursor.processedOffset = cursor.fetchOffset
          this.#host.resolved()
          return
        } catch (error) {
          // Stopped: the error is the abort of the ListOffsets in flight, not a failure.
          if (stop.aborted) return
          if (error instanceof KafkaTsError && !error.retriable) {
            this.#host.fail(error)
            return
          }
          // close() ends the wait (and the loop) at once.
          await sleep(Math.min(1000, 100 * 2 ** attempt), stop, undefined, this.#client.clock).catch(() => {})
        }
      }
    } finally {
      this.#resolving.delete(cursor)
    }
  }
}

/**
 * The group consumer's committer: builds and sends its OffsetCommits under the commit guard
 * (invariants 2, 3 and 8 of group-consumer.ts: an offset goes in only if its partition is
 * held under the identity the request carries, and never for a partition left to
 * transactions), keeps one commit per partition in flight, and runs the auto-commit timer.
 * The consumer is reached only through CommitterHost.
 */
import { performance } from 'node:perf_hooks'
import type { Client } from '../client/client'
import { clockTimeout } from '../client/clock'
import type { TypedEvents } from '../client/events'
import type { ConsumerBatch } from '../consumer/consumer'
import type { Cursor } from '../consumer/cursor'
import { OffsetCommit, type OffsetCommitRequest } from '../protocol/apis/offset-commit'
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import type { GroupCoordinator } from './coordinator'
import type { BatchDroppedEvent, GroupConsumerEvents, RefusedCommit } from './group-events'
import type { DeliveryMode } from './group-options'
import { isFencingError, partitionKey, type MemberIdentity, type Membership, type TopicPartition } from './membership'
import { internal } from '../client/internal'

export interface CommitterHost {
  readonly client: Client
  readonly groupId: string
  readonly instanceId: string | null
  readonly delivery: DeliveryMode
  readonly coordinator: GroupCoordinator
  readonly rebalanceTimeoutMs: number
  /** The consumer, which emits 'commitRefused' and 'batchDropped'. */
  readonly events: TypedEvents<GroupConsumerEvents>
  /** The membership now (undefined before the consumer started one). */
  membership: () => Membership | undefined
  /** The partitions held (the consumer's cursors). */
  cursors: () => Cursor[]
  cursor: (topic: string, partition: number) => Cursor | undefined
}

/** One partition of an OffsetCommit: its offset, and whether the last attempt carried a concurrent run's offset map. */
interface CommitItem {
  cursor: Cursor
  offset: bigint
  withMetadata?: boolean
}

/** Thrown inside an OffsetCommit's body builder: every partition of the commit left it while it was retried. */
class NothingLeftToCommit extends Error {}

/** Why `cursor` may not be committed under `identity`, or undefined when it may. */
function notHeldUnder (cursor: Cursor, identity: MemberIdentity): string | undefined {
  const ownership = cursor.ownership
  if (ownership.released) return `the partition was ${ownership.releasedBecause ?? 'revoked or lost'}`
  if (ownership.memberId !== identity.memberId || ownership.generation !== identity.generation) {
    return `held under member ${ownership.memberId} generation/epoch ${ownership.generation}, not ${identity.memberId} ${identity.generation}`
  }
  return undefined
}

async function untilSettledOrAborted (promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason
  let onAbort: () => void = () => {}
  try {
    await Promise.race([promise, new Promise((_resolve, reject) => { onAbort = () => reject(signal.reason); signal.addEventListener('abort', onAbort, { once: true }) })])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

function describeAbort (signal: AbortSignal): string {
  const reason = signal.reason as { name?: string, message?: string } | undefined
  return reason?.name === 'TimeoutError' ? 'the rebalance timeout passed' : String(reason?.message ?? 'aborted')
}

export class Committer {
  readonly #host: CommitterHost
  /** The autoCommit option: the timer's, a revoke's and close()'s commits of what was processed. */
  readonly autoCommit: boolean
  #commitTimer: NodeJS.Timeout | undefined
  /**
   * Invariant 8: the partitions whose offsets go into transactions ('all': runTransactional
   * drives this consumer). No ordinary OffsetCommit of them is built, by anyone, for good.
   */
  #inTransactions: Set<string> | 'all' = new Set()
  #committing: Promise<void> | undefined

  constructor (host: CommitterHost, autoCommit: boolean) {
    this.#host = host
    this.autoCommit = autoCommit
  }

  /** At-least-once with autoCommit (and not driven by runTransactional): `commit` every `intervalMs`. */
  startAutoCommit (intervalMs: number, commit: () => Promise<unknown>, warn: (error: unknown) => void): void {
    if (this.#host.delivery === 'at-least-once' && this.autoCommit && this.#inTransactions !== 'all') {
      this.#commitTimer = setInterval(() => { void commit().catch(warn) }, intervalMs)
      this.#commitTimer.unref()
    }
  }

  stopAutoCommit (): void {
    clearInterval(this.#commitTimer)
  }

  /**
   * Invariant 8: from now on the offsets of `partitions` (every partition, when
   * left out: runTransactional drives this consumer) are committed only inside transactions
   * (TxnOffsetCommit). This consumer builds no ordinary OffsetCommit of them: no timer,
   * revoke or close commit, and commit()/commitOffsets() leave them out; an ordinary commit
   * between a TxnOffsetCommit and its COMMIT marker would make the coordinator keep the
   * older offset. Resolves once no ordinary commit of them is still in flight.
   */
  async commitInTransactions (partitions?: TopicPartition[]): Promise<void> {
    if (this.#host.delivery === 'at-most-once') {
      throw new TypeError(`The consumer of group "${this.#host.groupId}" delivers at-most-once: it commits each batch before handing it out, and that ordinary commit would supersede a transaction's offsets. Exactly-once needs delivery: 'at-least-once'`)
    }
    if (partitions === undefined) {
      this.#inTransactions = 'all'
      clearInterval(this.#commitTimer)
    } else if (this.#inTransactions !== 'all') {
      for (const p of partitions) this.#inTransactions.add(partitionKey(p))
    }
    const keys = partitions === undefined ? [...this.#commitsInFlight.keys()] : partitions.map(partitionKey)
    await Promise.allSettled(keys.map(k => this.#commitsInFlight.get(k)))
  }

  /** Whether the partition's offsets go into transactions only (invariant 8). */
  #committedInTransactions (cursor: Cursor): boolean {
    return this.#inTransactions === 'all' || this.#inTransactions.has(cursor.key)
  }

  /** Processed past what this member committed, and committed by ordinary commits (not by transactions). */
  ordinaryCommitDue (cursor: Cursor): boolean {
    // A concurrent run's records finished above the offset count too: a revoke commits their map even when the offset stands still.
    return cursor.processedOffset !== undefined && (cursor.processedOffset !== cursor.committedOffset || cursor.progress?.metadataChanged === true) && !this.#committedInTransactions(cursor)
  }

  /** Why an ordinary OffsetCommit under `identity` may not carry `cursor`, or undefined when it may. */
  #whyNotCommittable (cursor: Cursor, identity: MemberIdentity): string | undefined {
    if (this.#committedInTransactions(cursor)) return 'its offsets are committed inside transactions (runTransactional / sendOffsets): an ordinary commit would supersede them'
    return notHeldUnder(cursor, identity)
  }

  /**
   * Commits what the application finished (at-least-once). Waits for any rebalance in
   * progress first; partitions not held under the identity the request carries are left
   * out. Bounded by `signal`. Resolves with the offsets left out and why.
   */
  async commit (membership: Membership, signal: AbortSignal): Promise<RefusedCommit[]> {
    let refused: RefusedCommit[] = []
    await this.#oneCommitAtATime(membership, signal, async identity => {
      if (identity === undefined) return
      refused = await this.commitCursors(this.#host.cursors().filter(c => this.ordinaryCommitDue(c)), identity, c => c.processedOffset!, signal)
    })
    return refused
  }

  /**
   * Commits the given offsets (the offset of the next record to read, per partition) instead
   * of what was processed — e.g. to commit less, or part of a batch. The same guard applies:
   * only partitions held under the identity the request carries are committed; the others
   * come back as refused. A committed offset also counts as processed, so the automatic
   * commit does not move it back.
   */
  async commitOffsets (membership: Membership, offsets: Array<{ topic: string, partition: number, offset: bigint }>, signal: AbortSignal): Promise<RefusedCommit[]> {
    let refused: RefusedCommit[] = []
    await this.#oneCommitAtATime(membership, signal, async identity => {
      const wanted = new Map(offsets.map(o => [`${o.topic}-${o.partition}`, o]))
      const cursors: Cursor[] = []
      for (const o of wanted.values()) {
        const cursor = this.#host.cursor(o.topic, o.partition)
        if (cursor === undefined || identity === undefined) refused.push({ ...o, reason: 'the partition is not assigned to this member' })
        else cursors.push(cursor)
      }
      if (identity === undefined || cursors.length === 0) return
      for (const cursor of cursors) if (!cursor.ownership.released) cursor.processedOffset = wanted.get(cursor.key)!.offset
      refused = refused.concat(await this.commitCursors(cursors, identity, c => wanted.get(c.key)!.offset, signal))
    })
    return refused
  }

  /**
   * One commit() or commitOffsets() at a time: a later call waits for the one running, then
   * for the membership to be stable, and `commit` gets the identity it is stable under (what
   * is new is committed then).
   */
  async #oneCommitAtATime (membership: Membership, signal: AbortSignal, commit: (identity: MemberIdentity | undefined) => Promise<void>): Promise<void> {
    while (this.#committing !== undefined) await this.#committing.catch(() => {})
    const run = (async () => {
      await membership.whenStable(signal)
      await commit(membership.identity())
    })()
    this.#committing = run
    try {
      await run
    } finally {
      if (this.#committing === run) this.#committing = undefined
    }
  }

  /**
   * Per partition, the commit being sent: a partition's commits go one after the other,
   * so a retried commit can never land after a later one (e.g. the revoke's) and move the
   * committed offset back (invariant 3).
   */
  readonly #commitsInFlight = new Map<string, Promise<void>>()

  /**
   * The OffsetCommit itself, built when sent: after earlier commits of the same partitions
   * finished, each cursor goes in only if its ownership is not released and carries
   * exactly `identity`, and every retry checks that again (a partition revoked or
   * re-stamped meanwhile drops out). Everything left out, refused by the coordinator or not
   * committed before `signal` is returned (and emitted as 'commitRefused').
   */
  /** One commit round (`#commitRound`), counted and timed for client.metrics(). */
  async commitCursors (cursors: Cursor[], identity: MemberIdentity, offsetOf: (c: Cursor) => bigint, signal: AbortSignal): Promise<RefusedCommit[]> {
    const stats = this.#host.client[internal].instrumentation.metrics.group(this.#host.groupId)
    const started = performance.now()
    stats.commits++
    try {
      const refused = await this.#commitRound(cursors, identity, offsetOf, signal)
      if (refused.length > 0) stats.commitErrors++
      return refused
    } catch (error) {
      stats.commitErrors++
      throw error
    } finally {
      stats.commitLatency.observe((performance.now() - started) / 1000)
    }
  }

  async #commitRound (cursors: Cursor[], identity: MemberIdentity, offsetOf: (c: Cursor) => bigint, signal: AbortSignal): Promise<RefusedCommit[]> {
    const refused: RefusedCommit[] = []
    /** `code`: Kafka's, when the coordinator's answer (or the error that ended the commit) carried one. */
    const refuse = (cursor: Cursor, offset: bigint, reason: string, code?: number): void => {
      refused.push(code === undefined
        ? { topic: cursor.topic, partition: cursor.partition, offset, reason }
        : { topic: cursor.topic, partition: cursor.partition, offset, reason, code, type: errorCodeInfo(code).name })
    }
    let release: () => void = () => {}
    const mine = new Promise<void>(resolve => { release = resolve })
    try {
      for (;;) {
        const earlier = [...new Set(cursors.map(c => this.#commitsInFlight.get(c.key)).filter(p => p !== undefined))]
        if (earlier.length === 0) break
        await untilSettledOrAborted(Promise.allSettled(earlier), signal)
      }
    } catch {
      for (const cursor of cursors) refuse(cursor, offsetOf(cursor), `an earlier commit of the partition was still being retried when the time ran out (${describeAbort(signal)})`)
      this.#host.events.emit('commitRefused', refused)
      return refused
    }
    for (const cursor of cursors) this.#commitsInFlight.set(cursor.key, mine)
    try {
      let included: CommitItem[] = []
      for (const cursor of cursors) {
        const offset = offsetOf(cursor)
        const reason = this.#whyNotCommittable(cursor, identity)
        if (reason !== undefined) refuse(cursor, offset, reason)
        else included.push({ cursor, offset })
      }
      for (let attempt = 0; included.length > 0; attempt++) {
        let outcome: { codes: Map<string, number>, sent: CommitItem[] }
        try {
          outcome = await this.#sendCommit(included, identity, signal)
        } catch (error) {
          if (!signal.aborted) throw error
          for (const item of included) refuse(item.cursor, item.offset, `not committed in time (${describeAbort(signal)}): ${(error as Error).message}`, error instanceof BrokerError ? error.code : undefined)
          break
        }
        const sent = new Set(outcome.sent)
        for (const item of included) if (!sent.has(item)) refuse(item.cursor, item.offset, this.#whyNotCommittable(item.cursor, identity) ?? 'left the commit while it was retried')
        const retry: CommitItem[] = []
        for (const item of outcome.sent) {
          const code = outcome.codes.get(partitionKey(item.cursor)) ?? -1
          if (code === 0) {
            if (item.cursor.committedOffset === undefined || item.offset > item.cursor.committedOffset) item.cursor.committedOffset = item.offset
            if (item.withMetadata) item.cursor.progress?.metadataAccepted()
            continue
          }
          // A concurrent run's offset map over the broker's offset.metadata.max.bytes: the next ones get less room.
          if (code === ErrorCode.OFFSET_METADATA_TOO_LARGE) item.cursor.progress?.metadataTooLarge()
          if (code === ErrorCode.STALE_MEMBER_EPOCH && attempt === 0) {
            retry.push(item)
            continue
          }
          // Only a refusal of the identity we hold now says something about our membership:
          // a commit retried across a rebalance (coordinator errors) carries the old one.
          const current = this.#host.membership()?.identity()
          const stillCurrent = current === undefined || (current.memberId === identity.memberId && current.generation === identity.generation)
          if (isFencingError(code) && stillCurrent) this.#host.membership()?.onFencedResponse(code)
          if (code === ErrorCode.REBALANCE_IN_PROGRESS && stillCurrent) this.#host.membership()?.requestRejoin()
          refuse(item.cursor, item.offset, new BrokerError(code, 'OffsetCommit').message, code)
        }
        if (retry.length === 0) break
        // KIP-848: our epoch moved on; after the next heartbeat, commit again what is still held under the new epoch.
        try {
          await this.#host.membership()?.nextHeartbeat(signal)
        } catch {
          for (const item of retry) refuse(item.cursor, item.offset, `STALE_MEMBER_EPOCH, and no heartbeat in time (${describeAbort(signal)})`, ErrorCode.STALE_MEMBER_EPOCH)
          break
        }
        identity = this.#host.membership()?.identity() ?? identity
        included = []
        for (const item of retry) {
          if (this.#whyNotCommittable(item.cursor, identity) === undefined) included.push(item)
          else refuse(item.cursor, item.offset, 'STALE_MEMBER_EPOCH and the partition is no longer held under the current epoch', ErrorCode.STALE_MEMBER_EPOCH)
        }
      }
    } finally {
      for (const cursor of cursors) if (this.#commitsInFlight.get(cursor.key) === mine) this.#commitsInFlight.delete(cursor.key)
      release()
    }
    if (refused.length > 0) this.#host.events.emit('commitRefused', refused)
    return refused
  }

  /**
   * Sends one OffsetCommit (retried by the coordinator on coordinator and connection
   * errors). Every attempt is rebuilt from the items still held under `identity`; when
   * none is left, nothing is sent. Returns the codes and the items the last attempt carried.
   */
  async #sendCommit (items: CommitItem[], identity: MemberIdentity, signal: AbortSignal): Promise<{ codes: Map<string, number>, sent: CommitItem[] }> {
    let sent: CommitItem[] = []
    let response
    try {
      response = await this.#host.coordinator.send(OffsetCommit, version => {
        sent = items.filter(item => this.#whyNotCommittable(item.cursor, identity) === undefined)
        if (sent.length === 0) throw new NothingLeftToCommit()
        const byTopic = new Map<string, Array<{ partitionIndex: number, committedOffset: bigint, committedLeaderEpoch: number, committedMetadata: string | null }>>()
        for (const item of sent) {
          const { cursor, offset } = item
          let list = byTopic.get(cursor.topic)
          if (list === undefined) byTopic.set(cursor.topic, list = [])
          // A concurrent run's offset map (records finished above the offset), built with this attempt.
          const metadata = cursor.progress?.metadataFor(offset) ?? null
          item.withMetadata = cursor.progress !== undefined
          list.push({ partitionIndex: cursor.partition, committedOffset: offset, committedLeaderEpoch: cursor.lastFetchedEpoch, committedMetadata: metadata })
        }
        const body: OffsetCommitRequest = {
          groupId: this.#host.groupId,
          generationIdOrMemberEpoch: identity.generation,
          memberId: identity.memberId,
          groupInstanceId: this.#host.instanceId,
          topics: [...byTopic].map(([topic, partitions]) => version >= 10
            ? { topicId: this.#host.client.metadata.topic(topic)?.topicId, partitions }
            : { name: topic, partitions })
        }
        return body
      }, r => r.topics[0]?.partitions[0]?.errorCode ?? 0, { signal })
    } catch (error) {
      if (error instanceof NothingLeftToCommit) return { codes: new Map(), sent: [] }
      throw error
    }
    const codes = new Map<string, number>()
    for (const t of response.topics) {
      const name = t.name !== '' ? t.name : this.#host.client.metadata.topicById(t.topicId)?.name ?? ''
      for (const p of t.partitions) codes.set(`${name}-${p.partitionIndex}`, p.errorCode)
    }
    return { codes, sent }
  }

  /** At-most-once: the batch's end is committed, and accepted, before the batch is handed over. */
  async commitBeforeHandOut (cursor: Cursor, batch: ConsumerBatch): Promise<boolean> {
    const membership = this.#host.membership()
    if (membership === undefined) return false
    const signal = clockTimeout(this.#host.client.clock, this.#host.rebalanceTimeoutMs)
    await membership.whenStable(signal)
    const identity = membership.identity()
    if (identity === undefined) return false
    const refused = await this.commitCursors([cursor], identity, () => batch.nextOffset, signal)
    if (refused.length > 0) {
      const dropped: BatchDroppedEvent = { topic: batch.topic, partition: batch.partition, firstOffset: batch.records[0]?.offset, nextOffset: batch.nextOffset, reason: refused[0].reason }
      // At-most-once: a batch whose commit was refused is not processed. Say so even with no listener.
      if (this.#host.events.listenerCount('batchDropped') > 0) this.#host.events.emit('batchDropped', dropped)
      else this.#host.client[internal].instrumentation.log.warn(`at-most-once: records ${String(dropped.firstOffset)}..${String(dropped.nextOffset - 1n)} of ${dropped.topic}-${dropped.partition} were not processed because their commit was refused (${dropped.reason})`, { code: 'KAFKATS_BATCH_DROPPED', group: this.#host.groupId, topic: dropped.topic, partition: dropped.partition })
      return false
    }
    cursor.processedOffset = batch.nextOffset
    return true
  }
}

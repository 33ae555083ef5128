/**
 * GroupConsumer: a Consumer whose partitions come from a consumer group, and the keeper
 * of invariants 2–4 (see group/DESIGN notes in INTERNALS.md):
 *
 * 2. A member commits only for partitions it holds, under the membership it holds them
 *    under. Every held partition carries an Ownership stamped with the member id and the
 *    generation (classic) or member epoch (KIP-848) it was assigned or last confirmed in.
 *    An OffsetCommit is built when it is sent — after any join, sync or reconciliation in
 *    progress — and an offset goes in only if its partition's stamp equals the identity
 *    the request carries. A fence releases every ownership: nothing held before it can be
 *    committed after it, whatever comes back.
 * 3. Nothing is committed for a partition after it is revoked or lost: release happens
 *    before anything else on a loss, and right after the revoke's own commit; a late mark
 *    sees `released` and is dropped.
 * 4. At-least-once commits what the application finished; at-most-once commits a batch's
 *    end, and waits for the coordinator to accept it, before handing the batch over — a
 *    refused commit means the batch is not processed.
 */
import type { Client } from '../client/client'
import { Consumer, type ConsumerBatch, type FetchOptions } from '../consumer/consumer'
import type { Cursor, Ownership, Processing } from '../consumer/cursor'
import { OffsetCommit, type OffsetCommitRequest } from '../protocol/apis/offset-commit'
import { OffsetFetch } from '../protocol/apis/offset-fetch'
import { ApiVersions } from '../protocol/apis/api-versions'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import { sleep } from '../client/backoff'
import { assignorByName, cooperativeStickyAssignor, type Assignor } from './assignors'
import { ClassicMembership } from './classic-membership'
import { ConsumerMembership } from './consumer-membership'
import { GroupCoordinator, isCoordinatorError } from './coordinator'
import {
  isFencingError, partitionKey, REBALANCE_IN_PROGRESS, STALE_MEMBER_EPOCH,
  type MemberIdentity, type Membership, type MembershipHost, type Reconciliation, type TopicPartition
} from './membership'

export type DeliveryMode = 'at-least-once' | 'at-most-once'

export interface GroupConsumerOptions extends FetchOptions {
  groupId: string
  /** Topic names, or a RegExp matched against the cluster's topics. */
  topics: string[] | RegExp
  /** Default 'at-least-once'. */
  delivery?: DeliveryMode
  /** 'consumer' (KIP-848, the default when the broker speaks it) or 'classic'. */
  groupProtocol?: 'consumer' | 'classic'
  /** Classic: 'cooperative-sticky' (default), 'range', 'roundrobin' or an Assignor. KIP-848: a server assignor name ('uniform', 'range'). */
  assignor?: string | Assignor
  /** Static membership (KIP-345 / KIP-848). */
  instanceId?: string
  sessionTimeoutMs?: number
  rebalanceTimeoutMs?: number
  heartbeatIntervalMs?: number
  autoCommitIntervalMs?: number
  /** Start from the earliest offset when the group has no committed offset (default: latest). */
  fromBeginning?: boolean
  onAssigned?: (partitions: TopicPartition[]) => void | Promise<void>
  onRevoked?: (partitions: TopicPartition[]) => void | Promise<void>
  onLost?: (partitions: TopicPartition[]) => void | Promise<void>
}

export interface RefusedCommit {
  topic: string
  partition: number
  offset: bigint
  reason: string
}

export class GroupConsumer extends Consumer {
  readonly groupId: string
  readonly delivery: DeliveryMode
  readonly #options: GroupConsumerOptions
  readonly #coordinator: GroupCoordinator
  #membership: Membership | undefined
  #commitTimer: NodeJS.Timeout | undefined
  #committing: Promise<void> | undefined
  #started: Promise<void>
  #topicsCache: { at: number, topics: string[] } | undefined

  constructor (client: Client, options: GroupConsumerOptions) {
    super(client, { ...options, offsetReset: options.offsetReset ?? (options.fromBeginning === true ? 'earliest' : 'latest') })
    this.groupId = options.groupId
    this.delivery = options.delivery ?? 'at-least-once'
    this.#options = options
    this.#coordinator = new GroupCoordinator(client, options.groupId)
    this.#host = this.#makeHost(options)
    if (this.delivery === 'at-most-once') this.hooks.beforeHandOut = async (cursor, batch) => await this.#commitBeforeHandOut(cursor, batch)
    this.hooks.onProcessingTimeout = (_cursor, processing) => this.#leaveForSlowHandler(processing)
    this.#started = this.#start().catch(error => this.fail(error as Error))
  }

  /** Which group protocol is in use (known once started). */
  get groupProtocol (): 'classic' | 'consumer' | undefined {
    return this.#membership?.protocol
  }

  async #start (): Promise<void> {
    let protocol = this.#options.groupProtocol
    if (protocol === undefined) {
      // KIP-848 when the broker speaks ConsumerGroupHeartbeat, classic otherwise.
      const versions = await this.client.request(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0' })
      protocol = versions.apiKeys.some(k => k.apiKey === 68) ? 'consumer' : 'classic'
    }
    if (this.closed) return
    this.#protocol = protocol
    this.#membership = this.#newMembership(protocol)
    this.#membership.start()
    if (this.delivery === 'at-least-once') {
      this.#commitTimer = setInterval(() => { void this.commit().catch(error => this.emit('warning', error)) }, this.#options.autoCommitIntervalMs ?? 5000)
      this.#commitTimer.unref()
    }
  }

  #protocol: 'classic' | 'consumer' = 'consumer'

  #newMembership (protocol: 'classic' | 'consumer'): Membership {
    if (protocol === 'classic') {
      const option = this.#options.assignor ?? 'cooperative-sticky'
      const assignor = typeof option === 'string' ? assignorByName(option) : option
      if (assignor === undefined) throw new KafkaTsError('INVALID_CONFIG', `Unknown assignor "${String(option)}": use 'cooperative-sticky', 'range', 'roundrobin' or an Assignor object`)
      return new ClassicMembership(this.client, this.#coordinator, this.#host, assignor ?? cooperativeStickyAssignor)
    }
    const option = this.#options.assignor
    if (option !== undefined && typeof option !== 'string') throw new KafkaTsError('INVALID_CONFIG', 'The KIP-848 protocol uses server-side assignors: give the assignor by name (e.g. \'uniform\' or \'range\'), or use groupProtocol: \'classic\' for client-side assignors')
    return new ConsumerMembership(this.client, this.#coordinator, this.#host, option ?? null)
  }

  // ---------------------------------------------------------------- slow handlers

  /** Set while this member is out of the group because a handler passed maxProcessingMs. */
  #outForSlowHandler: Promise<void> | undefined

  /**
   * A handler passed maxProcessingMs (the Java client's max.poll.interval.ms): commit what
   * was processed, release every partition and leave the group, so the coordinator gives
   * them to other members now rather than after the rebalance timeout; join again once the
   * slow handler returned (Java rejoins at the next poll). Its late result is dropped.
   */
  #leaveForSlowHandler (processing: Processing): void {
    if (this.#outForSlowHandler !== undefined || this.stopping) return
    const membership = this.#membership
    if (membership === undefined) return
    this.#outForSlowHandler = (async () => {
      const identity = membership.identity()
      await this.#revoke(this.#host.heldPartitions(), this.delivery === 'at-least-once' ? identity : undefined, 0)
      await membership.stop(true)
      // Every overdue handler, not only the first: a partition that came back while one still
      // ran would wait for it (one handler per partition) and be held for ever again.
      await processing.finished
      await this.overdueReturned()
      if (this.stopping) return
      this.#membership = this.#newMembership(this.#protocol)
      this.#membership.start()
    })().catch(error => this.fail(error as Error)).finally(() => { this.#outForSlowHandler = undefined })
  }

  /**
   * The membership this member commits under now (KIP-447), for a transactional producer's
   * sendOffsets: its TxnOffsetCommit is refused if the member was fenced since. Undefined
   * while not a member.
   */
  groupMetadata (): { groupId: string, memberId: string, generationId: number, groupInstanceId: string | null } | undefined {
    const identity = this.#membership?.identity()
    if (identity === undefined) return undefined
    return { groupId: this.groupId, memberId: identity.memberId, generationId: identity.generation, groupInstanceId: this.#options.instanceId ?? null }
  }

  // ---------------------------------------------------------------- commits

  /**
   * Commits what the application finished (at-least-once). Waits for any rebalance in
   * progress first; partitions not held under the identity the request carries are left
   * out. Resolves with the offsets left out and why.
   */
  async commit (): Promise<RefusedCommit[]> {
    await this.#started
    const membership = this.#membership
    // Out of the group (a slow handler): nothing is held, nothing to commit.
    if (membership === undefined || this.#outForSlowHandler !== undefined) return []
    // One commit at a time: a later call waits and then commits what is new.
    while (this.#committing !== undefined) await this.#committing.catch(() => {})
    let refused: RefusedCommit[] = []
    const run = (async () => {
      await membership.whenStable()
      const identity = membership.identity()
      if (identity === undefined) return
      refused = await this.#commitCursors(this.cursors.filter(c => c.processedOffset !== undefined && c.processedOffset !== c.committedOffset), identity, c => c.processedOffset!)
    })()
    this.#committing = run
    try {
      await run
    } finally {
      if (this.#committing === run) this.#committing = undefined
    }
    return refused
  }

  /**
   * The OffsetCommit itself, built now: each cursor goes in only if its ownership is not
   * released and carries exactly `identity`. Everything left out, or refused by the
   * coordinator, is returned (and emitted as 'commitRefused').
   */
  async #commitCursors (cursors: Cursor[], identity: MemberIdentity, offsetOf: (c: Cursor) => bigint): Promise<RefusedCommit[]> {
    const refused: RefusedCommit[] = []
    const included: Array<{ cursor: Cursor, offset: bigint }> = []
    for (const cursor of cursors) {
      const offset = offsetOf(cursor)
      const ownership = cursor.ownership
      if (ownership.released) {
        refused.push({ topic: cursor.topic, partition: cursor.partition, offset, reason: 'the partition was revoked or lost' })
      } else if (ownership.memberId !== identity.memberId || ownership.generation !== identity.generation) {
        refused.push({ topic: cursor.topic, partition: cursor.partition, offset, reason: `held under member ${ownership.memberId} generation/epoch ${ownership.generation}, not ${identity.memberId} ${identity.generation}` })
      } else {
        included.push({ cursor, offset })
      }
    }
    if (included.length > 0) {
      for (let attempt = 0; included.length > 0; attempt++) {
        const { codes } = await this.#sendCommit(included, identity)
        const retry: Array<{ cursor: Cursor, offset: bigint }> = []
        for (const item of included) {
          const code = codes.get(partitionKey(item.cursor)) ?? -1
          if (code === 0) {
            if (item.cursor.committedOffset === undefined || item.offset > item.cursor.committedOffset) item.cursor.committedOffset = item.offset
            continue
          }
          if (code === STALE_MEMBER_EPOCH && attempt === 0) {
            retry.push(item)
            continue
          }
          // Only a refusal of the identity we hold now says something about our membership:
          // a commit retried across a rebalance (coordinator errors) carries the old one.
          const current = this.#membership?.identity()
          const stillCurrent = current === undefined || (current.memberId === identity.memberId && current.generation === identity.generation)
          if (isFencingError(code) && stillCurrent) this.#membership?.onFencedResponse(code)
          if (code === REBALANCE_IN_PROGRESS && stillCurrent) this.#membership?.requestRejoin()
          refused.push({ topic: item.cursor.topic, partition: item.cursor.partition, offset: item.offset, reason: new BrokerError(code, 'OffsetCommit').message })
        }
        if (retry.length === 0) break
        // KIP-848: our epoch moved on; after the next heartbeat, commit again what is still held under the new epoch.
        await this.#membership?.nextHeartbeat()
        const now = this.#membership?.identity()
        included.length = 0
        for (const item of retry) {
          if (now !== undefined && !item.cursor.ownership.released && item.cursor.ownership.memberId === now.memberId && item.cursor.ownership.generation === now.generation) {
            included.push(item)
            identity = now
          } else {
            refused.push({ topic: item.cursor.topic, partition: item.cursor.partition, offset: item.offset, reason: 'STALE_MEMBER_EPOCH and the partition is no longer held under the current epoch' })
          }
        }
      }
    }
    if (refused.length > 0) this.emit('commitRefused', refused)
    return refused
  }

  async #sendCommit (items: Array<{ cursor: Cursor, offset: bigint }>, identity: MemberIdentity): Promise<{ codes: Map<string, number> }> {
    const response = await this.#coordinator.send(OffsetCommit, version => {
      const byTopic = new Map<string, Array<{ partitionIndex: number, committedOffset: bigint, committedLeaderEpoch: number, committedMetadata: string | null }>>()
      for (const { cursor, offset } of items) {
        let list = byTopic.get(cursor.topic)
        if (list === undefined) byTopic.set(cursor.topic, list = [])
        list.push({ partitionIndex: cursor.partition, committedOffset: offset, committedLeaderEpoch: cursor.lastFetchedEpoch, committedMetadata: null })
      }
      const body: OffsetCommitRequest = {
        groupId: this.groupId,
        generationIdOrMemberEpoch: identity.generation,
        memberId: identity.memberId,
        groupInstanceId: this.#options.instanceId ?? null,
        topics: [...byTopic].map(([topic, partitions]) => version >= 10
          ? { topicId: this.client.metadata.topic(topic)?.topicId, partitions }
          : { name: topic, partitions })
      }
      return body
    }, r => r.topics[0]?.partitions[0]?.errorCode ?? 0)
    const codes = new Map<string, number>()
    for (const t of response.topics) {
      const name = t.name !== '' ? t.name : this.client.metadata.topicById(t.topicId)?.name ?? ''
      for (const p of t.partitions) codes.set(`${name}-${p.partitionIndex}`, p.errorCode)
    }
    return { codes }
  }

  /** At-most-once: the batch's end is committed, and accepted, before the batch is handed over. */
  async #commitBeforeHandOut (cursor: Cursor, batch: ConsumerBatch): Promise<boolean> {
    const membership = this.#membership
    if (membership === undefined) return false
    await membership.whenStable()
    const identity = membership.identity()
    if (identity === undefined) return false
    const refused = await this.#commitCursors([cursor], identity, () => batch.nextOffset)
    if (refused.length > 0) {
      const dropped = { topic: batch.topic, partition: batch.partition, firstOffset: batch.records[0]?.offset, nextOffset: batch.nextOffset, reason: refused[0].reason }
      // At-most-once: a batch whose commit was refused is not processed. Say so even with no listener.
      if (this.listenerCount('batchDropped') > 0) this.emit('batchDropped', dropped)
      else process.emitWarning(`kafkats at-most-once: records ${String(dropped.firstOffset)}..${String(dropped.nextOffset - 1n)} of ${dropped.topic}-${dropped.partition} were not processed because their commit was refused (${dropped.reason})`, { code: 'KAFKATS_BATCH_DROPPED' })
      return false
    }
    cursor.processedOffset = batch.nextOffset
    return true
  }

  // ---------------------------------------------------------------- membership host

  readonly #host: MembershipHost

  #makeHost (options: GroupConsumerOptions): MembershipHost {
    const sessionTimeoutMs = options.sessionTimeoutMs ?? 45_000
    return {
      groupId: options.groupId,
      instanceId: options.instanceId ?? null,
      rack: options.rack ?? null,
      sessionTimeoutMs,
      rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 60_000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? Math.min(3000, Math.floor(sessionTimeoutMs / 3)),
      subscribedTopics: async signal => await this.#subscribedTopics(signal),
      heldPartitions: () => this.cursors.filter(c => !c.ownership.released).map(c => ({ topic: c.topic, partition: c.partition })),
      applyAssignment: async (target, identity, reconciliation) => await this.#applyAssignment(target, identity, reconciliation),
      revokeAll: async identity => { await this.#revoke(this.#host.heldPartitions(), identity) },
      loseAll: async reason => await this.#loseAll(reason),
      fatal: error => this.fail(error)
    }
  }

  async #subscribedTopics (signal?: AbortSignal): Promise<string[]> {
    const topics = this.#options.topics
    if (Array.isArray(topics)) return topics
    if (this.#topicsCache !== undefined && Date.now() - this.#topicsCache.at < 30_000) return this.#topicsCache.topics
    // Every topic of the cluster (group/ does not use admin/, which sits beside it).
    const all = await this.client.metadata.refreshAll(signal)
    const matched = all.filter(t => this.client.metadata.topic(t)?.isInternal !== true && topics.test(t)).sort()
    this.#topicsCache = { at: Date.now(), topics: matched }
    return matched
  }

  async #applyAssignment (target: TopicPartition[], identity: MemberIdentity, reconciliation?: Reconciliation): Promise<TopicPartition[]> {
    const targetKeys = new Set(target.map(partitionKey))
    const held = this.cursors.filter(c => !c.ownership.released)
    const revoked: TopicPartition[] = []
    for (const cursor of held) {
      if (cursor.ownership.memberId !== identity.memberId) {
        // Held under another member id: only a fence changes it, and a fence releases everything. Never re-stamp it.
        revoked.push({ topic: cursor.topic, partition: cursor.partition })
        continue
      }
      // Still held by this member (whether kept or about to be revoked): confirmed under the new identity.
      cursor.ownership.generation = identity.generation
      if (!targetKeys.has(cursor.key)) revoked.push({ topic: cursor.topic, partition: cursor.partition })
    }
    if (revoked.length > 0) await this.#revoke(revoked, identity)
    // Fenced, or a newer target came while we revoked or looked up offsets: add nothing from this one.
    const outdated = (): boolean => reconciliation !== undefined && (reconciliation.signal.aborted || reconciliation.superseded())
    const heldKeys = new Set(this.cursors.filter(c => !c.ownership.released).map(c => c.key))
    const added = target.filter(p => !heldKeys.has(partitionKey(p)))
    if (added.length > 0 && !outdated()) {
      // OffsetFetch/OffsetCommit v10 address topics by id: this member's client may not know them yet.
      const unknownTopics = [...new Set(added.map(p => p.topic))].filter(t => this.client.metadata.topic(t) === undefined)
      if (unknownTopics.length > 0) await Promise.all(unknownTopics.map(async t => await this.client.metadata.waitForTopic(t, this.client.requestTimeoutMs, reconciliation?.signal)))
      const committed = await this.#fetchCommitted(added, reconciliation?.current ?? (() => identity), reconciliation?.signal)
      if (outdated()) return revoked
      const reset = this.#options.fromBeginning === true ? 'earliest' as const : 'latest' as const
      this.addPartitions(added.map(p => {
        const { offset, leaderEpoch } = committed.get(partitionKey(p)) ?? {}
        const ownership: Ownership = { released: false, memberId: identity.memberId, generation: identity.generation }
        // The committed leader epoch lets the first fetch detect a truncation meanwhile (KIP-320).
        return offset !== undefined && offset >= 0n ? { ...p, offset, leaderEpoch, ownership } : { ...p, offset: reset, ownership }
      }))
      for (const p of added) {
        const cursor = this.cursor(p.topic, p.partition)
        const offset = committed.get(partitionKey(p))?.offset
        if (cursor !== undefined && offset !== undefined && offset >= 0n) cursor.committedOffset = offset
      }
      await this.#callback(this.#options.onAssigned, added)
    }
    this.emit('assigned', { added, revoked, identity })
    return revoked
  }

  /** Stops fetching, waits for processing (bounded by the rebalance timeout), commits what was processed, releases. */
  async #revoke (partitions: TopicPartition[], identity: MemberIdentity | undefined, waitMs = this.#revokeWaitMs()): Promise<void> {
    if (partitions.length === 0) return
    const cursors = await this.removePartitions(partitions, waitMs)
    try {
      if (identity !== undefined && this.delivery === 'at-least-once') {
        const pending = cursors.filter(c => c.processedOffset !== undefined && c.processedOffset !== c.committedOffset)
        if (pending.length > 0) await this.#commitCursors(pending, identity, c => c.processedOffset!).catch(error => this.emit('warning', error))
      }
    } finally {
      for (const cursor of cursors) cursor.ownership.released = true
    }
    await this.#callback(this.#options.onRevoked, partitions)
  }

  /**
   * How long a revoke waits for processing: the rebalance timeout is the coordinator's
   * deadline for the whole revoke (KIP-848: release the partition; classic: rejoin), so
   * stop waiting early enough to commit and answer before it, instead of being fenced.
   */
  #revokeWaitMs (): number {
    const timeout = this.#host.rebalanceTimeoutMs
    const margin = Math.min(timeout / 3, Math.max(2 * this.#host.heartbeatIntervalMs, 1000))
    return Math.max(0, timeout - margin)
  }

  async #loseAll (reason: string): Promise<void> {
    const lost = this.cursors.filter(c => !c.ownership.released)
    // Released first: from here on no commit, mark or in-flight batch of these partitions counts.
    for (const cursor of lost) cursor.ownership.released = true
    await this.removePartitions(lost, 0)
    const partitions = lost.map(c => ({ topic: c.topic, partition: c.partition }))
    if (partitions.length > 0) {
      this.emit('lost', { partitions, reason })
      await this.#callback(this.#options.onLost, partitions)
    }
  }

  /**
   * The group's committed offsets of `partitions`. KIP-848 OffsetFetch carries the member's
   * current epoch; STALE_MEMBER_EPOCH (the epoch moved on while we asked) is asked again
   * after the next heartbeat, fencing errors are thrown (the membership rejoins).
   */
  async #fetchCommitted (partitions: TopicPartition[], currentIdentity: () => MemberIdentity, signal?: AbortSignal): Promise<Map<string, { offset: bigint, leaderEpoch: number | undefined }>> {
    const byTopic = new Map<string, number[]>()
    for (const p of partitions) {
      const list = byTopic.get(p.topic)
      if (list === undefined) byTopic.set(p.topic, [p.partition])
      else list.push(p.partition)
    }
    const kip848 = this.#membership?.protocol === 'consumer'
    for (let attempt = 0; ; attempt++) {
      const identity = currentIdentity()
      const response = await this.#coordinator.send(OffsetFetch, version => version >= 8
        ? {
            groups: [{
              groupId: this.groupId,
              memberId: kip848 ? identity.memberId : null,
              memberEpoch: kip848 ? identity.generation : -1,
              topics: [...byTopic].map(([topic, partitionIndexes]) => version >= 10 ? { topicId: this.client.metadata.topic(topic)?.topicId, partitionIndexes } : { name: topic, partitionIndexes })
            }],
            requireStable: true
          }
        : { groupId: this.groupId, topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })), requireStable: true },
      r => r.groups.length > 0 ? r.groups[0].errorCode : r.errorCode, { signal })
      const offsets = new Map<string, { offset: bigint, leaderEpoch: number | undefined }>()
      let code = response.groups.length > 0 ? response.groups[0].errorCode : response.errorCode
      const topics = response.groups.length > 0 ? response.groups[0].topics : response.topics
      for (const t of topics) {
        const name = t.name !== '' ? t.name : this.client.metadata.topicById((t as { topicId?: string }).topicId ?? '')?.name ?? ''
        for (const p of t.partitions) {
          if (p.errorCode !== 0) code = p.errorCode
          else offsets.set(`${name}-${p.partitionIndex}`, { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch >= 0 ? p.committedLeaderEpoch : undefined })
        }
      }
      // UNSTABLE_OFFSET_COMMIT (88): a transactional commit is pending; ask again shortly.
      // A partition-level coordinator error: the answer is incomplete, ask again.
      if ((code === 88 && attempt < 50) || isCoordinatorError(code)) {
        await sleep(100, signal)
        continue
      }
      if (code === STALE_MEMBER_EPOCH && kip848) {
        await this.#membership?.nextHeartbeat(signal)
        continue
      }
      if (code !== 0) throw new BrokerError(code, `Fetching committed offsets of group "${this.groupId}" (member epoch ${identity.generation})`)
      return offsets
    }
  }

  async #callback (callback: ((partitions: TopicPartition[]) => void | Promise<void>) | undefined, partitions: TopicPartition[]): Promise<void> {
    if (callback === undefined) return
    try {
      await callback(partitions)
    } catch (error) {
      this.emit('warning', error)
    }
  }

  /** Commits what was processed (at-least-once), leaves the group and stops. */
  override async close (): Promise<void> {
    // One close at a time: run() closes after a failing handler while the failure itself closes.
    this.#closing ??= this.#close()
    await this.#closing
  }

  #closing: Promise<void> | undefined

  async #close (): Promise<void> {
    if (this.closed) return
    // First: nothing more is handed out. Handlers still running are not waited for (one may be
    // the caller: close() from inside a handler); what they finish later is not committed.
    this.stopHandingOut()
    clearInterval(this.#commitTimer)
    await this.#started
    const membership = this.#membership
    if (membership !== undefined) {
      // Bounded: a group stuck in a rebalance must not keep close() from finishing.
      if (this.delivery === 'at-least-once') {
        let timer: NodeJS.Timeout | undefined
        await Promise.race([
          this.commit().catch(error => { this.emit('warning', error) }),
          new Promise<void>(resolve => { timer = setTimeout(resolve, this.#host.rebalanceTimeoutMs) })
        ])
        clearTimeout(timer)
      }
      // Revoke (commit what was processed, release) before leaving, so the next owner starts after what we did.
      const identity = membership.identity()
      await this.#revoke(this.#host.heldPartitions(), this.delivery === 'at-least-once' ? identity : undefined, 0).catch(() => {})
      await membership.stop(true)
    }
    this.#coordinator.closeConnections()
    await super.close()
  }
}

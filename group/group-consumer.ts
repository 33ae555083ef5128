/**
 * GroupConsumer: a Consumer whose partitions come from a consumer group, and the keeper
 * of invariants 2–4 (INTERNALS.md, "Groups" and "Invariants"):
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
 *
 * This file keeps the public class and the wiring: starting, leaving for a slow handler,
 * close(). The parts, each reached through its host interface: committer.ts (building and
 * sending commits, the guard above, the auto-commit timer), assignment.ts (applying an
 * assignment, revoking, losing), protocol-selection.ts (classic or KIP-848, the membership),
 * group-options.ts and group-events.ts (the public option and event types).
 */
import { checkCloseOptions, type Client, type CloseOptions } from '../client/client'
import { clockTimeout } from '../client/clock'
import { calledFromHandler, Consumer, consumerInternals, type ConsumerInternals } from '../consumer/consumer'
import { linkOffsetsOwner, type ConsumerGroupMetadata } from '../producer/transaction'
import type { Cursor, Processing } from '../consumer/cursor'
import { KafkaTsError, type BrokerError } from '../protocol/errors'
import { GroupProtocolUnsupportedError } from './errors'
import { GroupCoordinator } from './coordinator'
import type { MemberIdentity, Membership, MembershipHost, TopicPartition } from './membership'
import { checkCallOptions, checkGroupOptions, type DeliveryMode, type GroupConsumerOptions } from './group-options'
import type { GroupConsumerEvents, RefusedCommit } from './group-events'
import { Committer } from './committer'
import { Assignment } from './assignment'
import { chooseProtocol, ignoredClassicOptions, membershipSettings, newMembership, SubscribedTopics, type GroupProtocol } from './protocol-selection'

export type { DeliveryMode, GroupConsumerOptions } from './group-options'
export type { AssignedEvent, BatchDroppedEvent, GroupConsumerEvents, LostEvent, RebalancingEvent, RefusedCommit, TransactionAbortedEvent } from './group-events'

/** What the exactly-once loop (transactional.ts) uses of a group consumer, besides a consumer's internals: `consumer[internal]` (see consumerInternals). */
export interface GroupConsumerInternals extends ConsumerInternals {
  /**
   * The membership the offsets of `cursor`'s partition go into a transaction under
   * (invariant 2), or why the partition was released.
   */
  transactionMetadataOf: (cursor: Cursor) => ConsumerGroupMetadata | string
  /** Invariant 8: the offsets of `partitions` (all when left out) are committed only inside transactions from now on. */
  commitInTransactions: (partitions?: TopicPartition[]) => Promise<void>
  /** Resolves once this member is in the group with a settled identity, or close() began, or `signal` aborted. */
  untilMember: (signal?: AbortSignal) => Promise<void>
}

/** A group consumer's `consumer[internal]`, typed (see consumerInternals). */
export function groupConsumerInternals (consumer: object): GroupConsumerInternals {
  return consumerInternals(consumer) as GroupConsumerInternals
}

export class GroupConsumer<K = Buffer, V = Buffer> extends Consumer<K, V, GroupConsumerEvents> {
  /** The consumer group this member belongs to. */
  readonly groupId: string
  /** What it commits, and when (option `delivery`, default 'at-least-once'). */
  readonly delivery: DeliveryMode
  readonly #options: GroupConsumerOptions<K, V>
  readonly #coordinator: GroupCoordinator
  #membership: Membership | undefined
  readonly #committer: Committer
  readonly #assignment: Assignment
  readonly #topics: SubscribedTopics
  /** Aborted when close() begins: waits of the exactly-once loop end with it. */
  readonly #closeRequested = new AbortController()
  #started: Promise<void>
  readonly #client: Client
  /** What this class reaches of the Consumer it extends (its handles for group/). */
  readonly #consumer: GroupConsumerInternals

  /** A member of the group `options.groupId` on `client`; applications make one with `client.consumer({ groupId, topics })`. Throws a TypeError or RangeError for a wrong option. */
  constructor (client: Client, options: GroupConsumerOptions<K, V>) {
    checkGroupOptions(options)
    const offsetReset = options.offsetReset ?? (options.fromBeginning === true ? 'earliest' : 'latest')
    super(client, { ...options, offsetReset })
    this.#client = client
    this.#consumer = groupConsumerInternals(this)
    // Every warning this member logs says which group and member it is about.
    this.#consumer.warnFields = () => ({ group: this.groupId, memberId: this.#membership?.identity()?.memberId })
    this.groupId = options.groupId
    this.delivery = options.delivery ?? 'at-least-once'
    this.#options = { ...options, topics: typeof options.topics === 'string' ? [options.topics] : options.topics }
    this.#topics = new SubscribedTopics(client, this.#options)
    this.#coordinator = new GroupCoordinator(client, options.groupId)
    this.#host = this.#makeHost(options)
    this.#committer = new Committer({
      client,
      groupId: this.groupId,
      instanceId: this.#host.instanceId,
      delivery: this.delivery,
      coordinator: this.#coordinator,
      rebalanceTimeoutMs: this.#host.rebalanceTimeoutMs,
      events: this,
      membership: () => this.#membership,
      cursors: () => this.#consumer.cursors,
      cursor: (topic, partition) => this.#consumer.cursor(topic, partition)
    }, options.autoCommit ?? true)
    this.#assignment = new Assignment({
      client,
      groupId: this.groupId,
      delivery: this.delivery,
      offsetReset,
      coordinator: this.#coordinator,
      rebalanceTimeoutMs: this.#host.rebalanceTimeoutMs,
      heartbeatIntervalMs: this.#host.heartbeatIntervalMs,
      callbacks: this.#options,
      events: this,
      protocol: () => this.#protocol,
      membership: () => this.#membership,
      cursors: () => this.#consumer.cursors,
      cursor: (topic, partition) => this.#consumer.cursor(topic, partition),
      connectFor: partitions => { this.#consumer.connectFor(partitions) },
      addPartitions: partitions => { this.#consumer.addPartitions(partitions) },
      removePartitions: async (partitions, waitMs) => await this.#consumer.removePartitions(partitions, waitMs),
      warn: (error, fields) => { this.#consumer.warn(error, fields) }
    }, this.#committer)
    Object.assign(this.#consumer, {
      transactionMetadataOf: cursor => this.#transactionMetadataOf(cursor),
      commitInTransactions: async partitions => await this.#commitInTransactions(partitions),
      untilMember: async signal => await this.#untilMember(signal)
    } satisfies Omit<GroupConsumerInternals, keyof ConsumerInternals>)
    if (this.delivery === 'at-most-once') this.#consumer.hooks.beforeHandOut = async (cursor, batch) => await this.#committer.commitBeforeHandOut(cursor, batch)
    this.#consumer.hooks.onProcessingTimeout = (_cursor, processing) => this.#leaveForSlowHandler(processing)
    this.#started = this.#start().catch(error => this.#consumer.fail(error as Error))
  }

  /** Which group protocol is in use (known once started). */
  get groupProtocol (): 'classic' | 'consumer' | undefined {
    return this.#membership?.protocol
  }

  async #start (): Promise<void> {
    const protocol = await chooseProtocol(this.#client, this.#options)
    // close() may have begun during the await: it cleared no timer yet and stops no
    // membership made after it, so start nothing (what follows is synchronous).
    if (this.#closing !== undefined) return
    this.#protocol = protocol
    const ignored = protocol === 'consumer' ? ignoredClassicOptions(this.#options) : undefined
    // Later than construction, so a listener attached right after it hears it.
    if (ignored !== undefined) setImmediate(() => this.#consumer.warn(ignored))
    this.#membership = this.#newMembership(protocol)
    this.#membership.start()
    this.#committer.startAutoCommit(this.#options.autoCommitIntervalMs ?? 5000, async () => await this.commit(), error => this.#consumer.warn(error))
  }

  #protocol: GroupProtocol = 'consumer'

  #newMembership (protocol: GroupProtocol): Membership {
    return newMembership(protocol, this.#client, this.#coordinator, this.#host, this.#options)
  }

  /** The broker lists KIP-848 but has not enabled it: classic when the protocol was left to us, else an error. */
  #onProtocolUnsupported (error: BrokerError): void {
    // Closing: close() leaves with the membership it found; a new one would run for ever.
    if (this.#closing !== undefined) return
    if (this.#options.groupProtocol === 'consumer') {
      this.#consumer.fail(new GroupProtocolUnsupportedError(error.code, this.groupId))
      return
    }
    this.#consumer.warn(new KafkaTsError('GROUP_PROTOCOL_FALLBACK', `Group "${this.groupId}": the broker lists the KIP-848 consumer group protocol but has not enabled it (first heartbeat: ${error.type}); using the classic protocol. Set groupProtocol: 'classic' to skip the attempt, or enable KIP-848 on the broker`))
    this.#protocol = 'classic'
    this.#membership = this.#newMembership('classic')
    this.#membership.start()
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
    if (this.#outForSlowHandler !== undefined || this.#consumer.stopping) return
    const membership = this.#membership
    if (membership === undefined) return
    this.#outForSlowHandler = (async () => {
      const identity = membership.identity()
      await this.#assignment.revoke(this.#host.heldPartitions(), this.delivery === 'at-least-once' ? identity : undefined, { waitMs: 0, why: 'revoked: the member left the group because a handler ran past maxProcessingMs' })
      await membership.stop(true)
      // Every overdue handler, not only the first: a partition that came back while one still
      // ran would wait for it (one handler per partition) and be held for ever again.
      await processing.finished
      await this.#consumer.overdueReturned()
      if (this.#consumer.stopping) return
      this.#membership = this.#newMembership(this.#protocol)
      this.#membership.start()
    })().catch(error => this.#consumer.fail(error as Error)).finally(() => { this.#outForSlowHandler = undefined })
  }

  /**
   * The membership this member commits under now (KIP-447), for a transactional producer's
   * sendOffsets: its TxnOffsetCommit is refused if the member was fenced since. Undefined
   * while not a member.
   */
  groupMetadata (): ConsumerGroupMetadata | undefined {
    const identity = this.#membership?.identity()
    if (identity === undefined) return undefined
    return this.#linkedMetadata(identity)
  }

  /**
   * The membership the offsets of `cursor`'s partition go into a transaction
   * under (invariant 2): the member id and generation/epoch its ownership was assigned or
   * last confirmed under — a KIP-848 epoch bump on a partition the member keeps confirms it
   * anew, so it stays committable through a reconciliation. A string when there is none:
   * why the partition was released (revoked or lost).
   */
  #transactionMetadataOf (cursor: Cursor): ConsumerGroupMetadata | string {
    const ownership = cursor.ownership
    if (ownership.released) return `the partition was ${ownership.releasedBecause ?? 'revoked or lost'}`
    return this.#linkedMetadata({ memberId: ownership.memberId, generation: ownership.generation })
  }

  #linkedMetadata (identity: MemberIdentity): ConsumerGroupMetadata {
    const metadata: ConsumerGroupMetadata = { groupId: this.groupId, memberId: identity.memberId, generationId: identity.generation, groupInstanceId: this.#options.instanceId ?? null }
    // A transactional producer's sendOffsets with it tells this consumer to leave those partitions to transactions.
    linkOffsetsOwner(metadata, async partitions => await this.#commitInTransactions(partitions))
    return metadata
  }

  /**
   * Invariant 8: from now on the offsets of `partitions` (every partition, when
   * left out: runTransactional drives this consumer) are committed only inside transactions
   * (TxnOffsetCommit). This consumer builds no ordinary OffsetCommit of them: no timer,
   * revoke or close commit, and commit()/commitOffsets() leave them out; an ordinary commit
   * between a TxnOffsetCommit and its COMMIT marker would make the coordinator keep the
   * older offset. Resolves once no ordinary commit of them is still in flight.
   */
  async #commitInTransactions (partitions?: TopicPartition[]): Promise<void> {
    await this.#committer.commitInTransactions(partitions)
  }

  /**
   * Resolves once this member is in the group with a settled identity (no join,
   * sync or reconciliation in progress), or close() began, or `signal` aborted: the
   * exactly-once loop waits here through a rebalance instead of handing batches out again.
   */
  async #untilMember (signal?: AbortSignal): Promise<void> {
    await this.#started
    const stop = signal === undefined ? this.#closeRequested.signal : AbortSignal.any([signal, this.#closeRequested.signal])
    // A stopped membership (closing, out for a slow handler) ends the wait too: what is held then is released.
    await this.#membership?.whenStable(stop).catch(() => {})
  }

  // ---------------------------------------------------------------- commits

  /**
   * Commits what the application finished (at-least-once). Waits for any rebalance in
   * progress first; partitions not held under the identity the request carries are left
   * out. Bounded by `signal`, by default the rebalance timeout. Resolves with the offsets
   * left out and why.
   */
  async commit (options: { signal?: AbortSignal } = {}): Promise<RefusedCommit[]> {
    checkCallOptions('commit()', options)
    await this.#started
    const membership = this.#membership
    // Out of the group (a slow handler): nothing is held, nothing to commit.
    if (membership === undefined || this.#outForSlowHandler !== undefined) return []
    return await this.#committer.commit(membership, options.signal ?? clockTimeout(this.#client.clock, this.#host.rebalanceTimeoutMs))
  }

  /**
   * Commits the given offsets (the offset of the next record to read, per partition) instead
   * of what was processed — e.g. to commit less, or part of a batch. The same guard applies:
   * only partitions held under the identity the request carries are committed; the others
   * come back as refused. A committed offset also counts as processed, so the automatic
   * commit does not move it back.
   */
  async commitOffsets (offsets: Array<{ topic: string, partition: number, offset: bigint }>, options: { signal?: AbortSignal } = {}): Promise<RefusedCommit[]> {
    checkCallOptions('commitOffsets()', options)
    await this.#started
    const membership = this.#membership
    if (membership === undefined) return offsets.map(o => ({ ...o, reason: 'the consumer has not joined its group' }))
    return await this.#committer.commitOffsets(membership, offsets, options.signal ?? clockTimeout(this.#client.clock, this.#host.rebalanceTimeoutMs))
  }

  // ---------------------------------------------------------------- membership host

  readonly #host: MembershipHost

  #makeHost (options: GroupConsumerOptions<unknown, unknown>): MembershipHost {
    return {
      ...membershipSettings(options, this.#topics.pattern),
      subscribedTopics: async signal => await this.#topics.now(signal),
      heldPartitions: () => this.#assignment.heldPartitions(),
      applyAssignment: async (target, identity, reconciliation) => await this.#assignment.applyAssignment(target, identity, reconciliation),
      rebalancing: (identity, reason) => { this.emit('rebalancing', { identity, reason }) },
      revokeAll: async identity => { await this.#assignment.revoke(this.#host.heldPartitions(), identity, { why: 'revoked: the member left the group' }) },
      loseAll: async reason => await this.#assignment.loseAll(reason),
      fatal: error => this.#consumer.fail(error),
      warning: error => { this.#consumer.warn(error) },
      protocolUnsupported: error => { this.#onProtocolUnsupported(error) }
    }
  }

  /**
   * Commits what was processed (at-least-once), leaves the group and stops, within the
   * rebalance timeout even when the coordinator refuses or does not answer. What it could
   * not commit is emitted as 'commitRefused' (as every refusal is) and summed up in a
   * 'warning'. With `force`, run() handlers still out are not waited for (as when close()
   * is called from one of them): what was processed by then is committed, the rest is not.
   */
  override async close (options: CloseOptions = {}): Promise<void> {
    checkCloseOptions('consumer.close()', options)
    // Synchronously, while the caller's frames are on the stack: a handler's close() must not wait for itself.
    const skipHandlers = options.force === true || calledFromHandler()
    // One close for every caller (the application, a failure, the iterator's end).
    this.#closing ??= this.#close(skipHandlers)
    await this.#closing
  }

  #closing: Promise<void> | undefined

  /** Whether close() was called (it may still be leaving the group), or the consumer ended by itself. */
  override get closed (): boolean {
    return this.#closing !== undefined || super.closed
  }

  async #close (skipHandlers: boolean): Promise<void> {
    if (super.closed) return
    // First: nothing more is handed out. Handlers still out are waited for (bounded, as a
    // revoke), unless close() is called from one of them (it would wait for itself) or with force.
    this.#consumer.stopHandingOut()
    this.#closeRequested.abort()
    this.#committer.stopAutoCommit()
    await this.#started
    const membership = this.#membership
    try {
      if (membership !== undefined) await this.#leave(membership, skipHandlers)
    } finally {
      // Whatever happened while leaving, the fetching stops.
      this.#coordinator.closeConnections()
      await super.close()
    }
  }

  /** close()'s part: revoke (what was processed committed) and leave, within one rebalance timeout. */
  async #leave (membership: Membership, skipHandlers: boolean): Promise<void> {
    const clock = this.#client.clock
    const deadlineAt = clock.now() + this.#host.rebalanceTimeoutMs
    // A rebalance in progress ends first (within the deadline), so what we hold has a current identity to be committed under.
    const unstable = await membership.whenStable(clockTimeout(clock, this.#host.rebalanceTimeoutMs - this.#assignment.revokeWaitMs())).then(() => undefined, (error: Error) => error)
    // Revoke (commit what was processed, release) before leaving, so the next owner starts
    // after what we did. run() handlers still out are waited for, unless close() came from one or with force (see #close).
    const identity = membership.identity()
    const held = this.#consumer.cursors.filter(c => !c.ownership.released)
    /** What was processed of `held` and is not committed, with why (for a commit that was never sent). */
    const uncommitted = (reason: string): RefusedCommit[] => this.delivery === 'at-most-once'
      ? []
      : held.filter(c => c.processedOffset !== undefined && c.processedOffset !== c.committedOffset).map(c => ({ topic: c.topic, partition: c.partition, offset: c.processedOffset!, reason }))
    let refused = await this.#assignment.revoke(this.#host.heldPartitions(), this.delivery === 'at-least-once' ? identity : undefined, { waitMs: skipHandlers ? 0 : this.#assignment.revokeWaitMs(), deadlineAt, why: 'revoked: the consumer is closing' })
      .catch((error: Error) => uncommitted(`revoking the partitions failed: ${error.message}`))
    if (identity === undefined) {
      // No membership to commit under: nothing was sent, so #revoke reported nothing.
      refused = uncommitted(unstable?.name === 'TimeoutError' ? 'a rebalance was still in progress when the consumer closed' : `the member was not in the group (${unstable?.message ?? 'not joined'})`)
      if (refused.length > 0) this.emit('commitRefused', refused)
    }
    if (refused.length > 0) {
      this.#consumer.warn(new KafkaTsError('UNCOMMITTED_ON_CLOSE', `Closing the consumer of group "${this.groupId}" left ${refused.length} partition(s) uncommitted: ${refused.map(r => `${r.topic}-${r.partition}@${r.offset} (${r.reason})`).join('; ')}`))
    }
    await membership.stop(true)
  }
}

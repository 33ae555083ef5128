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
 */
import { performance } from 'node:perf_hooks'
import { checkCloseOptions, type Client, type CloseOptions } from '../client/client'
import { calledFromHandler, checkFetchOptions, Consumer, CONSUMER_OPTION_HINTS, CONSUMER_OPTION_KEYS, type ConsumerBatch, consumerInternals, type ConsumerEvents, type ConsumerInternals, type DeserializerOptions, type FetchOptions } from '../consumer/consumer'
import type { LogFields } from '../client/logger'
import { channels, subscribed, type RebalanceTrace } from '../client/instrumentation'
import type { TransactionAbortedEvent } from './transactional'
import { linkOffsetsOwner, type ConsumerGroupMetadata } from '../producer/transaction'
import type { Cursor, Ownership, Processing } from '../consumer/cursor'
import { OffsetCommit, type OffsetCommitRequest } from '../protocol/apis/offset-commit'
import { OffsetFetch } from '../protocol/apis/offset-fetch'
import { ApiVersions } from '../protocol/apis/api-versions'
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import { sleep } from '../client/backoff'
import { checkBoolean, checkDuration, checkFunction, checkKnownKeys, checkObject, checkOneOf, checkSignal, checkString, describeValue, optionKeys } from '../client/validate'
import { GroupProtocolUnsupportedError } from './errors'
import { assignorByName, type Assignor } from './assignors'
import { ClassicMembership } from './classic-membership'
import { ConsumerMembership } from './consumer-membership'
import { GroupCoordinator, isCoordinatorError } from './coordinator'
import {
  isFencingError, partitionKey,
  type MemberIdentity, type Membership, type MembershipHost, type Reconciliation, type TopicPartition
} from './membership'
import { internal } from '../client/internal'

export type DeliveryMode = 'at-least-once' | 'at-most-once'

export interface GroupConsumerOptions<K = Buffer, V = Buffer> extends FetchOptions, DeserializerOptions<K, V> {
  groupId: string
  /**
   * Topic names (a single string is one topic), or a RegExp that must match a whole topic
   * name (as Kafka matches subscription patterns). KIP-848 on Kafka 4.x matches it on the
   * broker (RE2/J syntax); the classic protocol matches it here every `topicsRefreshMs`.
   */
  topics: string[] | string | RegExp
  /** Default 'at-least-once'. */
  delivery?: DeliveryMode
  /**
   * 'consumer' (KIP-848) or 'classic'. Left out: KIP-848 when the broker runs it, else
   * classic (a 'warning' says so when the broker lists but has not enabled KIP-848), and
   * classic when a classic-only option (sessionTimeoutMs, heartbeatIntervalMs, an
   * Assignor object) is given.
   */
  groupProtocol?: 'consumer' | 'classic'
  /** Classic: 'cooperative-sticky' (default), 'range', 'roundrobin' or an Assignor. KIP-848: a server assignor name ('uniform', 'range'). */
  assignor?: string | Assignor
  /** Static membership (KIP-345 / KIP-848). */
  instanceId?: string
  /** Classic only (KIP-848: the broker's group.consumer.session.timeout.ms). */
  sessionTimeoutMs?: number
  rebalanceTimeoutMs?: number
  /** Classic only (KIP-848: the broker's group.consumer.heartbeat.interval.ms). */
  heartbeatIntervalMs?: number
  /**
   * Whether the consumer commits on its own (default true), as Java's enable.auto.commit:
   * what the application finished, every `autoCommitIntervalMs` (default 5 s), when a
   * partition is revoked and at close(). `false`: nothing is committed but by `commit()` /
   * `commitOffsets()` (nor at a revoke or close); at-least-once only.
   */
  autoCommit?: boolean
  /** How often autoCommit commits (default 5000 ms). */
  autoCommitIntervalMs?: number
  /** Classic with a RegExp `topics`: how often the cluster's topics are matched again (default 30 s). */
  topicsRefreshMs?: number
  /**
   * Where a partition without a committed offset (and an out-of-range one) starts:
   * 'latest' (default), 'earliest', or 'none' (the consumer fails), as Java's auto.offset.reset.
   */
  offsetReset?: 'earliest' | 'latest' | 'none'
  /** Shorthand for offsetReset: 'earliest'. */
  fromBeginning?: boolean
  onAssigned?: (partitions: TopicPartition[]) => void | Promise<void>
  onRevoked?: (partitions: TopicPartition[]) => void | Promise<void>
  onLost?: (partitions: TopicPartition[]) => void | Promise<void>
}

const WHERE = 'group consumer option'

/** Every option a group consumer takes; `autoCommit` turns the automatic commit off (false). */
const GROUP_OPTION_KEYS = optionKeys<GroupConsumerOptions>()([
  ...CONSUMER_OPTION_KEYS, 'groupId', 'topics', 'delivery', 'groupProtocol', 'assignor', 'instanceId', 'sessionTimeoutMs',
  'rebalanceTimeoutMs', 'heartbeatIntervalMs', 'autoCommit', 'autoCommitIntervalMs', 'topicsRefreshMs', 'fromBeginning',
  'onAssigned', 'onRevoked', 'onLost'
])

/** The names other clients (kafkajs, Java) give group options; closestName finds the plain typos. */
const GROUP_OPTION_HINTS: Record<string, string> = {
  ...CONSUMER_OPTION_HINTS,
  groupInstanceId: 'instanceId',
  partitionAssigners: 'assignor',
  partitionAssignmentStrategy: 'assignor',
  protocol: 'groupProtocol',
  enableAutoCommit: 'autoCommit',
  subscription: 'topics',
  pattern: 'topics'
}

/** Fails fast on group options a user got wrong (TypeError / RangeError naming the option). */
function checkGroupOptions (options: GroupConsumerOptions<unknown, unknown>): void {
  checkObject('group consumer', 'options', options)
  checkKnownKeys(WHERE, options, GROUP_OPTION_KEYS, GROUP_OPTION_HINTS)
  if (options.groupId === undefined) throw new TypeError(`${WHERE} groupId: a group consumer needs a groupId (or pass \`assign\` for a consumer without a group)`)
  checkString(WHERE, 'groupId', options.groupId)
  const topics = options.topics
  if (topics === undefined) throw new TypeError(`${WHERE} topics: a group consumer needs topics: names, one name, or a RegExp`)
  if (Array.isArray(topics)) {
    if (topics.length === 0) throw new RangeError(`${WHERE} topics: expected at least one topic name, got an empty array`)
    topics.forEach((t, i) => { checkString(WHERE, `topics[${i}]`, t) })
  } else if (!(topics instanceof RegExp)) {
    checkString(WHERE, 'topics', topics)
  }
  checkOneOf(WHERE, 'delivery', options.delivery, ['at-least-once', 'at-most-once'])
  checkOneOf(WHERE, 'groupProtocol', options.groupProtocol, ['consumer', 'classic'])
  if (options.assignor !== undefined && typeof options.assignor !== 'string' && typeof (options.assignor as Partial<Assignor>)?.assign !== 'function') {
    throw new TypeError(`${WHERE} assignor: expected an assignor name or an Assignor (with assign()), got ${describeValue(options.assignor)}`)
  }
  checkString(WHERE, 'instanceId', options.instanceId)
  checkDuration(WHERE, 'sessionTimeoutMs', options.sessionTimeoutMs, 1)
  checkDuration(WHERE, 'rebalanceTimeoutMs', options.rebalanceTimeoutMs, 1)
  checkDuration(WHERE, 'heartbeatIntervalMs', options.heartbeatIntervalMs, 1)
  checkBoolean(WHERE, 'autoCommit', options.autoCommit)
  checkDuration(WHERE, 'autoCommitIntervalMs', options.autoCommitIntervalMs, 1)
  if (options.autoCommit === false && options.autoCommitIntervalMs !== undefined) {
    throw new RangeError(`${WHERE} autoCommitIntervalMs: ${options.autoCommitIntervalMs} with autoCommit: false, which commits nothing on a timer; give one of them`)
  }
  if (options.autoCommit === false && options.delivery === 'at-most-once') {
    throw new RangeError(`${WHERE} autoCommit: false with delivery: 'at-most-once', which commits each batch before handing it out; use at-least-once with your own commit() calls, or leave autoCommit out`)
  }
  checkDuration(WHERE, 'topicsRefreshMs', options.topicsRefreshMs, 1)
  checkOneOf(WHERE, 'offsetReset', options.offsetReset, ['earliest', 'latest', 'none'])
  checkBoolean(WHERE, 'fromBeginning', options.fromBeginning)
  if (options.fromBeginning === true && options.offsetReset !== undefined && options.offsetReset !== 'earliest') {
    throw new RangeError(`${WHERE} fromBeginning: true is offsetReset: 'earliest', which contradicts offsetReset: '${options.offsetReset}'; give one of them`)
  }
  for (const name of ['onAssigned', 'onRevoked', 'onLost'] as const) checkFunction(WHERE, name, options[name])
  checkFetchOptions(WHERE, options)
  if (options.groupProtocol === 'consumer' && options.assignor !== undefined && typeof options.assignor !== 'string') {
    throw new RangeError(`${WHERE} assignor (an Assignor object): classic-protocol only; with groupProtocol: 'consumer' (KIP-848) the broker assigns (give a server assignor by name, e.g. 'uniform' or 'range'), or use groupProtocol: 'classic'`)
  }
}

/** The options of a call that takes only a signal (commit(), commitOffsets()). */
function checkCallOptions (call: string, options: { signal?: AbortSignal }): void {
  checkObject(call, 'options', options)
  checkKnownKeys(`${call} option`, options, ['signal'], { timeoutMs: 'signal (AbortSignal.timeout(ms))' })
  checkSignal(`${call} option`, 'signal', options.signal)
}

/** Said once the consumer runs KIP-848 with classic-only timing options, which the broker overrides. */
function ignoredClassicOptions (options: GroupConsumerOptions<unknown, unknown>): KafkaTsError | undefined {
  const given = classicOnlyOptions(options).filter(o => !o.startsWith('assignor'))
  if (given.length === 0) return undefined
  return new KafkaTsError('CLASSIC_ONLY_OPTION', `${WHERE} ${given.join(', ')}: classic-protocol only and ignored with KIP-848, where the broker sets session timeout and heartbeat interval (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms); leave ${given.length > 1 ? 'them' : 'it'} out, or use groupProtocol: 'classic'`)
}

/** The classic-only options given (the Java client refuses them with group.protocol=consumer). */
function classicOnlyOptions (options: GroupConsumerOptions<unknown, unknown>): string[] {
  const given: string[] = []
  if (options.sessionTimeoutMs !== undefined) given.push('sessionTimeoutMs')
  if (options.heartbeatIntervalMs !== undefined) given.push('heartbeatIntervalMs')
  if (options.assignor !== undefined && typeof options.assignor !== 'string') given.push('assignor (an Assignor object)')
  return given
}

/** A JS RegExp as a pattern Kafka matches against whole topic names (RE2/J on the broker). */
function wholeNamePattern (regex: RegExp): { broker: string, local: RegExp } {
  const unsupported = [...regex.flags].filter(f => !'imsguyd'.includes(f))
  if (unsupported.length > 0) throw new RangeError(`${WHERE} topics: the RegExp flag(s) ${unsupported.join('')} cannot be matched by Kafka; use i, m or s`)
  const inline = [...regex.flags].filter(f => 'ims'.includes(f)).join('')
  return {
    broker: `${inline !== '' ? `(?${inline})` : ''}${regex.source}`,
    local: new RegExp(`^(?:${regex.source})$`, regex.flags.replace(/[gy]/g, ''))
  }
}

export interface RefusedCommit {
  topic: string
  partition: number
  offset: bigint
  /** What happened, for people. Decide on `code`, not on this text. */
  reason: string
  /** Kafka's error code when the coordinator refused the offset (e.g. 25 UNKNOWN_MEMBER_ID, 113 STALE_MEMBER_EPOCH). */
  code?: number
  /** Kafka's name for `code`, e.g. UNKNOWN_TOPIC_OR_PARTITION. */
  type?: string
}

/** At-most-once: a batch whose commit was refused, and so was not handed out ('batchDropped'). */
export interface BatchDroppedEvent {
  topic: string
  partition: number
  firstOffset: bigint | undefined
  nextOffset: bigint
  reason: string
}

/** A rebalance was applied ('assigned'): partitions added and revoked, under the member's identity. */
export interface AssignedEvent {
  added: TopicPartition[]
  revoked: TopicPartition[]
  identity: MemberIdentity
}

/** A rebalance began ('rebalancing'): the member held an assignment under `identity`; 'assigned' follows with the new one. */
export interface RebalancingEvent {
  identity: MemberIdentity
  reason: string
}

/** Partitions lost without a revoke (a fence, an expired session): nothing of them was committed. */
export interface LostEvent {
  partitions: TopicPartition[]
  reason: string
}

/** The events of a GroupConsumer: a Consumer's and the group's own. */
export interface GroupConsumerEvents extends ConsumerEvents {
  rebalancing: [event: RebalancingEvent]
  assigned: [event: AssignedEvent]
  lost: [event: LostEvent]
  /** Offsets that could not be committed (the partition left the member, the deadline passed…). */
  commitRefused: [refused: RefusedCommit[]]
  /** Without a listener: a warning through the client's logger (KAFKATS_BATCH_DROPPED). */
  batchDropped: [event: BatchDroppedEvent]
  /** runTransactional aborted a batch's transaction; the batch is read again. */
  transactionAborted: [event: TransactionAbortedEvent]
}

/** Thrown inside an OffsetCommit's body builder: every partition of the commit left it while it was retried. */
class NothingLeftToCommit extends Error {}

/** Releases the partition's ownership (revoked or lost), saying why; a first release's reason stays. */
function release (cursor: Cursor, why: string): void {
  if (cursor.ownership.released) return
  cursor.ownership.released = true
  cursor.ownership.releasedBecause = why
}

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
  readonly groupId: string
  readonly delivery: DeliveryMode
  readonly #options: GroupConsumerOptions<K, V>
  readonly #coordinator: GroupCoordinator
  #membership: Membership | undefined
  #commitTimer: NodeJS.Timeout | undefined
  /** The autoCommit option: the timer's, a revoke's and close()'s commits of what was processed. */
  readonly #autoCommit: boolean
  /**
   * Invariant 8: the partitions whose offsets go into transactions ('all': runTransactional
   * drives this consumer). No ordinary OffsetCommit of them is built, by anyone, for good.
   */
  #inTransactions: Set<string> | 'all' = new Set()
  /** Aborted when close() begins: waits of the exactly-once loop end with it. */
  readonly #closeRequested = new AbortController()
  #committing: Promise<void> | undefined
  #started: Promise<void>
  #topicsCache: { at: number, topics: string[] } | undefined
  readonly #offsetReset: 'earliest' | 'latest' | 'none'
  /** A RegExp subscription: its broker-side (KIP-848) and local (classic) forms. */
  readonly #pattern: { broker: string, local: RegExp } | undefined

  constructor (client: Client, options: GroupConsumerOptions<K, V>) {
    checkGroupOptions(options)
    const offsetReset = options.offsetReset ?? (options.fromBeginning === true ? 'earliest' : 'latest')
    super(client, { ...options, offsetReset })
    this.groupId = options.groupId
    this.delivery = options.delivery ?? 'at-least-once'
    this.#autoCommit = options.autoCommit ?? true
    this.#offsetReset = offsetReset
    this.#pattern = options.topics instanceof RegExp ? wholeNamePattern(options.topics) : undefined
    this.#options = { ...options, topics: typeof options.topics === 'string' ? [options.topics] : options.topics }
    this.#coordinator = new GroupCoordinator(client, options.groupId)
    Object.assign(groupConsumerInternals(this), {
      transactionMetadataOf: cursor => this.#transactionMetadataOf(cursor),
      commitInTransactions: async partitions => await this.#commitInTransactions(partitions),
      untilMember: async signal => await this.#untilMember(signal)
    } satisfies Omit<GroupConsumerInternals, keyof ConsumerInternals>)
    this.#host = this.#makeHost(options)
    if (this.delivery === 'at-most-once') groupConsumerInternals(this).hooks.beforeHandOut = async (cursor, batch) => await this.#commitBeforeHandOut(cursor, batch)
    groupConsumerInternals(this).hooks.onProcessingTimeout = (_cursor, processing) => this.#leaveForSlowHandler(processing)
    this.#started = this.#start().catch(error => this.fail(error as Error))
  }

  protected override warn (error: unknown, fields?: LogFields): void {
    super.warn(error, { group: this.groupId, memberId: this.#membership?.identity()?.memberId, ...fields })
  }

  /** Which group protocol is in use (known once started). */
  get groupProtocol (): 'classic' | 'consumer' | undefined {
    return this.#membership?.protocol
  }

  async #start (): Promise<void> {
    let protocol = this.#options.groupProtocol
    if (protocol === undefined) {
      // Classic-only options mean classic. Else KIP-848 when the broker lists
      // ConsumerGroupHeartbeat (the first heartbeat still may say it is not enabled).
      const versions = classicOnlyOptions(this.#options).length > 0 ? undefined : await this.client.request(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0' })
      protocol = versions?.apiKeys.some(k => k.apiKey === 68) === true ? 'consumer' : 'classic'
    }
    // close() may have begun during the await: it cleared no timer yet and stops no
    // membership made after it, so start nothing (what follows is synchronous).
    if (this.#closing !== undefined) return
    this.#protocol = protocol
    const ignored = protocol === 'consumer' ? ignoredClassicOptions(this.#options) : undefined
    // Later than construction, so a listener attached right after it hears it.
    if (ignored !== undefined) setImmediate(() => this.warn(ignored))
    this.#membership = this.#newMembership(protocol)
    this.#membership.start()
    if (this.delivery === 'at-least-once' && this.#autoCommit && this.#inTransactions !== 'all') {
      this.#commitTimer = setInterval(() => { void this.commit().catch(error => this.warn(error)) }, this.#options.autoCommitIntervalMs ?? 5000)
      this.#commitTimer.unref()
    }
  }

  #protocol: 'classic' | 'consumer' = 'consumer'

  #newMembership (protocol: 'classic' | 'consumer'): Membership {
    if (protocol === 'classic') {
      const option = this.#options.assignor ?? 'cooperative-sticky'
      const assignor = typeof option === 'string' ? assignorByName(option) : option
      if (assignor === undefined) throw new RangeError(`${WHERE} assignor: unknown assignor ${JSON.stringify(option)}; use 'cooperative-sticky', 'range', 'roundrobin' or an Assignor object`)
      return new ClassicMembership(this.client, this.#coordinator, this.#host, assignor)
    }
    const option = this.#options.assignor
    if (option !== undefined && typeof option !== 'string') throw new RangeError(`${WHERE} assignor: the KIP-848 protocol uses server-side assignors: give the assignor by name (e.g. 'uniform' or 'range'), or use groupProtocol: 'classic' for client-side assignors`)
    return new ConsumerMembership(this.client, this.#coordinator, this.#host, option ?? null)
  }

  /** The broker lists KIP-848 but has not enabled it: classic when the protocol was left to us, else an error. */
  #onProtocolUnsupported (error: BrokerError): void {
    // Closing: close() leaves with the membership it found; a new one would run for ever.
    if (this.#closing !== undefined) return
    if (this.#options.groupProtocol === 'consumer') {
      this.fail(new GroupProtocolUnsupportedError(error.code, this.groupId))
      return
    }
    this.warn(new KafkaTsError('GROUP_PROTOCOL_FALLBACK', `Group "${this.groupId}": the broker lists the KIP-848 consumer group protocol but has not enabled it (first heartbeat: ${error.type}); using the classic protocol. Set groupProtocol: 'classic' to skip the attempt, or enable KIP-848 on the broker`))
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
    if (this.#outForSlowHandler !== undefined || this.stopping) return
    const membership = this.#membership
    if (membership === undefined) return
    this.#outForSlowHandler = (async () => {
      const identity = membership.identity()
      await this.#revoke(this.#host.heldPartitions(), this.delivery === 'at-least-once' ? identity : undefined, { waitMs: 0, why: 'revoked: the member left the group because a handler ran past maxProcessingMs' })
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
    if (this.delivery === 'at-most-once') {
      throw new TypeError(`The consumer of group "${this.groupId}" delivers at-most-once: it commits each batch before handing it out, and that ordinary commit would supersede a transaction's offsets. Exactly-once needs delivery: 'at-least-once'`)
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

  /** Whether the partition's offsets go into transactions only (invariant 8). */
  #committedInTransactions (cursor: Cursor): boolean {
    return this.#inTransactions === 'all' || this.#inTransactions.has(cursor.key)
  }

  /** Processed past what this member committed, and committed by ordinary commits (not by transactions). */
  #ordinaryCommitDue (cursor: Cursor): boolean {
    return cursor.processedOffset !== undefined && cursor.processedOffset !== cursor.committedOffset && !this.#committedInTransactions(cursor)
  }

  /** Why an ordinary OffsetCommit under `identity` may not carry `cursor`, or undefined when it may. */
  #whyNotCommittable (cursor: Cursor, identity: MemberIdentity): string | undefined {
    if (this.#committedInTransactions(cursor)) return 'its offsets are committed inside transactions (runTransactional / sendOffsets): an ordinary commit would supersede them'
    return notHeldUnder(cursor, identity)
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
    const signal = options.signal ?? AbortSignal.timeout(this.#host.rebalanceTimeoutMs)
    let refused: RefusedCommit[] = []
    await this.#oneCommitAtATime(membership, signal, async identity => {
      if (identity === undefined) return
      refused = await this.#commitCursors(groupConsumerInternals(this).cursors.filter(c => this.#ordinaryCommitDue(c)), identity, c => c.processedOffset!, signal)
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
  async commitOffsets (offsets: Array<{ topic: string, partition: number, offset: bigint }>, options: { signal?: AbortSignal } = {}): Promise<RefusedCommit[]> {
    checkCallOptions('commitOffsets()', options)
    await this.#started
    const membership = this.#membership
    if (membership === undefined) return offsets.map(o => ({ ...o, reason: 'the consumer has not joined its group' }))
    const signal = options.signal ?? AbortSignal.timeout(this.#host.rebalanceTimeoutMs)
    let refused: RefusedCommit[] = []
    await this.#oneCommitAtATime(membership, signal, async identity => {
      const wanted = new Map(offsets.map(o => [`${o.topic}-${o.partition}`, o]))
      const cursors: Cursor[] = []
      for (const o of wanted.values()) {
        const cursor = groupConsumerInternals(this).cursor(o.topic, o.partition)
        if (cursor === undefined || identity === undefined) refused.push({ ...o, reason: 'the partition is not assigned to this member' })
        else cursors.push(cursor)
      }
      if (identity === undefined || cursors.length === 0) return
      for (const cursor of cursors) if (!cursor.ownership.released) cursor.processedOffset = wanted.get(cursor.key)!.offset
      refused = refused.concat(await this.#commitCursors(cursors, identity, c => wanted.get(c.key)!.offset, signal))
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
  async #commitCursors (cursors: Cursor[], identity: MemberIdentity, offsetOf: (c: Cursor) => bigint, signal: AbortSignal): Promise<RefusedCommit[]> {
    const stats = this.client[internal].instrumentation.metrics.group(this.groupId)
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
      this.emit('commitRefused', refused)
      return refused
    }
    for (const cursor of cursors) this.#commitsInFlight.set(cursor.key, mine)
    try {
      let included: Array<{ cursor: Cursor, offset: bigint }> = []
      for (const cursor of cursors) {
        const offset = offsetOf(cursor)
        const reason = this.#whyNotCommittable(cursor, identity)
        if (reason !== undefined) refuse(cursor, offset, reason)
        else included.push({ cursor, offset })
      }
      for (let attempt = 0; included.length > 0; attempt++) {
        let outcome: { codes: Map<string, number>, sent: Array<{ cursor: Cursor, offset: bigint }> }
        try {
          outcome = await this.#sendCommit(included, identity, signal)
        } catch (error) {
          if (!signal.aborted) throw error
          for (const item of included) refuse(item.cursor, item.offset, `not committed in time (${describeAbort(signal)}): ${(error as Error).message}`, error instanceof BrokerError ? error.code : undefined)
          break
        }
        const sent = new Set(outcome.sent)
        for (const item of included) if (!sent.has(item)) refuse(item.cursor, item.offset, this.#whyNotCommittable(item.cursor, identity) ?? 'left the commit while it was retried')
        const retry: Array<{ cursor: Cursor, offset: bigint }> = []
        for (const item of outcome.sent) {
          const code = outcome.codes.get(partitionKey(item.cursor)) ?? -1
          if (code === 0) {
            if (item.cursor.committedOffset === undefined || item.offset > item.cursor.committedOffset) item.cursor.committedOffset = item.offset
            continue
          }
          if (code === ErrorCode.STALE_MEMBER_EPOCH && attempt === 0) {
            retry.push(item)
            continue
          }
          // Only a refusal of the identity we hold now says something about our membership:
          // a commit retried across a rebalance (coordinator errors) carries the old one.
          const current = this.#membership?.identity()
          const stillCurrent = current === undefined || (current.memberId === identity.memberId && current.generation === identity.generation)
          if (isFencingError(code) && stillCurrent) this.#membership?.onFencedResponse(code)
          if (code === ErrorCode.REBALANCE_IN_PROGRESS && stillCurrent) this.#membership?.requestRejoin()
          refuse(item.cursor, item.offset, new BrokerError(code, 'OffsetCommit').message, code)
        }
        if (retry.length === 0) break
        // KIP-848: our epoch moved on; after the next heartbeat, commit again what is still held under the new epoch.
        try {
          await this.#membership?.nextHeartbeat(signal)
        } catch {
          for (const item of retry) refuse(item.cursor, item.offset, `STALE_MEMBER_EPOCH, and no heartbeat in time (${describeAbort(signal)})`, ErrorCode.STALE_MEMBER_EPOCH)
          break
        }
        identity = this.#membership?.identity() ?? identity
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
    if (refused.length > 0) this.emit('commitRefused', refused)
    return refused
  }

  /**
   * Sends one OffsetCommit (retried by the coordinator on coordinator and connection
   * errors). Every attempt is rebuilt from the items still held under `identity`; when
   * none is left, nothing is sent. Returns the codes and the items the last attempt carried.
   */
  async #sendCommit (items: Array<{ cursor: Cursor, offset: bigint }>, identity: MemberIdentity, signal: AbortSignal): Promise<{ codes: Map<string, number>, sent: Array<{ cursor: Cursor, offset: bigint }> }> {
    let sent: Array<{ cursor: Cursor, offset: bigint }> = []
    let response
    try {
      response = await this.#coordinator.send(OffsetCommit, version => {
        sent = items.filter(item => this.#whyNotCommittable(item.cursor, identity) === undefined)
        if (sent.length === 0) throw new NothingLeftToCommit()
        const byTopic = new Map<string, Array<{ partitionIndex: number, committedOffset: bigint, committedLeaderEpoch: number, committedMetadata: string | null }>>()
        for (const { cursor, offset } of sent) {
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
      }, r => r.topics[0]?.partitions[0]?.errorCode ?? 0, { signal })
    } catch (error) {
      if (error instanceof NothingLeftToCommit) return { codes: new Map(), sent: [] }
      throw error
    }
    const codes = new Map<string, number>()
    for (const t of response.topics) {
      const name = t.name !== '' ? t.name : this.client.metadata.topicById(t.topicId)?.name ?? ''
      for (const p of t.partitions) codes.set(`${name}-${p.partitionIndex}`, p.errorCode)
    }
    return { codes, sent }
  }

  /** At-most-once: the batch's end is committed, and accepted, before the batch is handed over. */
  async #commitBeforeHandOut (cursor: Cursor, batch: ConsumerBatch): Promise<boolean> {
    const membership = this.#membership
    if (membership === undefined) return false
    const signal = AbortSignal.timeout(this.#host.rebalanceTimeoutMs)
    await membership.whenStable(signal)
    const identity = membership.identity()
    if (identity === undefined) return false
    const refused = await this.#commitCursors([cursor], identity, () => batch.nextOffset, signal)
    if (refused.length > 0) {
      const dropped: BatchDroppedEvent = { topic: batch.topic, partition: batch.partition, firstOffset: batch.records[0]?.offset, nextOffset: batch.nextOffset, reason: refused[0].reason }
      // At-most-once: a batch whose commit was refused is not processed. Say so even with no listener.
      if (this.listenerCount('batchDropped') > 0) this.emit('batchDropped', dropped)
      else this.client[internal].instrumentation.log.warn(`at-most-once: records ${String(dropped.firstOffset)}..${String(dropped.nextOffset - 1n)} of ${dropped.topic}-${dropped.partition} were not processed because their commit was refused (${dropped.reason})`, { code: 'KAFKATS_BATCH_DROPPED', group: this.groupId, topic: dropped.topic, partition: dropped.partition })
      return false
    }
    cursor.processedOffset = batch.nextOffset
    return true
  }

  // ---------------------------------------------------------------- membership host

  readonly #host: MembershipHost

  #makeHost (options: GroupConsumerOptions<unknown, unknown>): MembershipHost {
    const sessionTimeoutMs = options.sessionTimeoutMs ?? 45_000
    return {
      groupId: options.groupId,
      instanceId: options.instanceId ?? null,
      rack: options.rack ?? null,
      sessionTimeoutMs,
      rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 60_000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? Math.min(3000, Math.floor(sessionTimeoutMs / 3)),
      subscribedTopics: async signal => await this.#subscribedTopics(signal),
      heldPartitions: () => groupConsumerInternals(this).cursors.filter(c => !c.ownership.released).map(c => ({ topic: c.topic, partition: c.partition })),
      applyAssignment: async (target, identity, reconciliation) => await this.#applyAssignment(target, identity, reconciliation),
      rebalancing: (identity, reason) => { this.emit('rebalancing', { identity, reason }) },
      revokeAll: async identity => { await this.#revoke(this.#host.heldPartitions(), identity, { why: 'revoked: the member left the group' }) },
      loseAll: async reason => await this.#loseAll(reason),
      fatal: error => this.fail(error),
      warning: error => { this.warn(error) },
      protocolUnsupported: error => { this.#onProtocolUnsupported(error) },
      subscriptionPattern: this.#pattern?.broker ?? null
    }
  }

  async #subscribedTopics (signal?: AbortSignal): Promise<string[]> {
    const topics = this.#options.topics
    if (Array.isArray(topics)) return topics
    if (typeof topics === 'string') return [topics]
    if (this.#topicsCache !== undefined && Date.now() - this.#topicsCache.at < (this.#options.topicsRefreshMs ?? 30_000)) return this.#topicsCache.topics
    const pattern = this.#pattern!.local
    // Every topic of the cluster (group/ does not use admin/, which sits beside it).
    const all = await this.client.metadata.refreshAll(signal)
    const matched = all.filter(t => this.client.metadata.topic(t)?.isInternal !== true && pattern.test(t)).sort()
    this.#topicsCache = { at: Date.now(), topics: matched }
    return matched
  }

  /** The generation (epoch) of the last assignment applied: a new one counts as a rebalance. */
  #appliedGeneration: number | undefined

  /** `#applyAssignmentNow`, counted and traced ('kafkats:group:rebalance'). */
  async #applyAssignment (target: TopicPartition[], identity: MemberIdentity, reconciliation?: Reconciliation): Promise<TopicPartition[]> {
    if (identity.generation !== this.#appliedGeneration) {
      this.#appliedGeneration = identity.generation
      this.client[internal].instrumentation.metrics.group(this.groupId).rebalances++
    }
    if (!subscribed(channels.rebalance)) return await this.#applyAssignmentNow(target, identity, reconciliation)
    const trace: RebalanceTrace = { clientId: this.client.clientId, group: this.groupId, memberId: identity.memberId, generation: identity.generation, protocol: this.#protocol, assignment: target.map(p => ({ topic: p.topic, partition: p.partition })) }
    return await channels.rebalance.tracePromise(async () => await this.#applyAssignmentNow(target, identity, reconciliation, trace), trace)
  }

  async #applyAssignmentNow (target: TopicPartition[], identity: MemberIdentity, reconciliation?: Reconciliation, trace?: RebalanceTrace): Promise<TopicPartition[]> {
    const targetKeys = new Set(target.map(partitionKey))
    const held = groupConsumerInternals(this).cursors.filter(c => !c.ownership.released)
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
    if (revoked.length > 0) await this.#revoke(revoked, identity, { why: `revoked by a rebalance (member epoch/generation ${identity.generation}): the group assigned it to another member` })
    if (trace !== undefined) trace.revoked = revoked
    // Fenced, or a newer target came while we revoked or looked up offsets: add nothing from this one.
    const outdated = (): boolean => reconciliation !== undefined && (reconciliation.signal.aborted || reconciliation.superseded())
    const heldKeys = new Set(groupConsumerInternals(this).cursors.filter(c => !c.ownership.released).map(c => c.key))
    const added = target.filter(p => !heldKeys.has(partitionKey(p)))
    if (added.length > 0 && !outdated()) {
      // OffsetFetch/OffsetCommit v10 address topics by id: this member's client may not know them yet.
      const unknownTopics = [...new Set(added.map(p => p.topic))].filter(t => this.client.metadata.topic(t) === undefined)
      if (unknownTopics.length > 0) await Promise.all(unknownTopics.map(async t => await this.client.metadata.waitForTopic(t, this.client.requestTimeoutMs, reconciliation?.signal)))
      const committed = await this.#fetchCommitted(added, reconciliation?.current ?? (() => identity), reconciliation?.signal)
      if (outdated()) return revoked
      const reset = this.#offsetReset
      const uncommitted = added.filter(p => (committed.get(partitionKey(p))?.offset ?? -1n) < 0n)
      if (reset === 'none' && uncommitted.length > 0) {
        throw new KafkaTsError('NO_COMMITTED_OFFSET', `Group "${this.groupId}" has no committed offset for ${uncommitted.map(partitionKey).join(', ')}, and offsetReset is 'none': commit a start offset for the group (or use offsetReset 'earliest' / 'latest')`)
      }
      groupConsumerInternals(this).addPartitions(added.map(p => {
        const { offset, leaderEpoch } = committed.get(partitionKey(p)) ?? {}
        const ownership: Ownership = { released: false, memberId: identity.memberId, generation: identity.generation }
        // The committed leader epoch lets the first fetch detect a truncation meanwhile (KIP-320).
        return offset !== undefined && offset >= 0n ? { ...p, offset, leaderEpoch, ownership } : { ...p, offset: reset as 'earliest' | 'latest', ownership }
      }))
      for (const p of added) {
        const cursor = groupConsumerInternals(this).cursor(p.topic, p.partition)
        const offset = committed.get(partitionKey(p))?.offset
        if (cursor !== undefined && offset !== undefined && offset >= 0n) cursor.committedOffset = offset
      }
      await this.#callback(this.#options.onAssigned, added)
    }
    this.client[internal].instrumentation.log.info(`assignment: ${added.length} added, ${revoked.length} revoked`, { group: this.groupId, memberId: identity.memberId, generation: identity.generation, added: added.map(partitionKey), revoked: revoked.map(partitionKey) })
    if (trace !== undefined) trace.added = added.map(p => ({ topic: p.topic, partition: p.partition }))
    this.emit('assigned', { added, revoked, identity })
    return revoked
  }

  /**
   * Stops fetching, waits for processing (`waitMs`, by default what the deadline leaves
   * before the commit's margin), commits what was processed, releases; all within the
   * rebalance timeout (or `deadlineAt`). Returns what it could not commit.
   */
  async #revoke (partitions: TopicPartition[], identity: MemberIdentity | undefined, { waitMs, deadlineAt = Date.now() + this.#host.rebalanceTimeoutMs, why }: { waitMs?: number, deadlineAt?: number, why: string }): Promise<RefusedCommit[]> {
    if (partitions.length === 0) return []
    // The processing wait leaves the commit the same margin before the deadline as in a rebalance.
    const commitMargin = this.#host.rebalanceTimeoutMs - this.#revokeWaitMs()
    // The commit gives up half that margin before the deadline, so the release is still answered
    // in time: a commit held up behind another one (say, retried on COORDINATOR_LOAD_IN_PROGRESS)
    // would otherwise run into the coordinator's fence at the same moment.
    const deadline = AbortSignal.timeout(Math.max(0, Math.ceil(deadlineAt - Date.now() - commitMargin / 2)))
    const cursors = await groupConsumerInternals(this).removePartitions(partitions, waitMs ?? Math.max(0, deadlineAt - Date.now() - commitMargin))
    let refused: RefusedCommit[] = []
    try {
      // autoCommit: false commits nothing on its own, here neither (as Java's enable.auto.commit=false).
      if (identity !== undefined && this.delivery === 'at-least-once' && this.#autoCommit) {
        const pending = cursors.filter(c => this.#ordinaryCommitDue(c))
        if (pending.length > 0) refused = await this.#commitCursors(pending, identity, c => c.processedOffset!, deadline).catch(error => { this.warn(error); return [] })
      }
    } finally {
      for (const cursor of cursors) release(cursor, why)
    }
    await this.#callback(this.#options.onRevoked, partitions)
    return refused
  }

  /**
   * How long a revoke waits for processing: the rebalance timeout is the coordinator's
   * deadline for the whole revoke (KIP-848: release the partition; classic: rejoin), so
   * stop waiting early enough to commit and answer before it, instead of being fenced.
   */
  #revokeWaitMs (): number {
    const timeout = this.#host.rebalanceTimeoutMs
    const margin = Math.min(timeout / 3, Math.max(2 * this.#host.heartbeatIntervalMs, 1000))
    return Math.max(0, Math.floor(timeout - margin))
  }

  async #loseAll (reason: string): Promise<void> {
    const lost = groupConsumerInternals(this).cursors.filter(c => !c.ownership.released)
    // Released first: from here on no commit, mark or in-flight batch of these partitions counts.
    for (const cursor of lost) release(cursor, `lost: the member was fenced (${reason})`)
    await groupConsumerInternals(this).removePartitions(lost, 0)
    const partitions = lost.map(c => ({ topic: c.topic, partition: c.partition }))
    if (partitions.length > 0) {
      this.client[internal].instrumentation.log.info(`${partitions.length} partition(s) lost: ${reason}`, { group: this.groupId, lost: partitions.map(partitionKey) })
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
      // UNSTABLE_OFFSET_COMMIT: a transactional commit is pending; ask again shortly.
      // A partition-level coordinator error: the answer is incomplete, ask again.
      if ((code === ErrorCode.UNSTABLE_OFFSET_COMMIT && attempt < 50) || isCoordinatorError(code)) {
        await sleep(100, signal, new BrokerError(code, `Fetching committed offsets of group "${this.groupId}"`))
        continue
      }
      if (code === ErrorCode.STALE_MEMBER_EPOCH && kip848) {
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
      this.warn(error)
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
    this.stopHandingOut()
    this.#closeRequested.abort()
    clearInterval(this.#commitTimer)
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
    const deadlineAt = Date.now() + this.#host.rebalanceTimeoutMs
    // A rebalance in progress ends first (within the deadline), so what we hold has a current identity to be committed under.
    const unstable = await membership.whenStable(AbortSignal.timeout(this.#host.rebalanceTimeoutMs - this.#revokeWaitMs())).then(() => undefined, (error: Error) => error)
    // Revoke (commit what was processed, release) before leaving, so the next owner starts
    // after what we did. run() handlers still out are waited for, unless close() came from one or with force (see #close).
    const identity = membership.identity()
    const held = groupConsumerInternals(this).cursors.filter(c => !c.ownership.released)
    /** What was processed of `held` and is not committed, with why (for a commit that was never sent). */
    const uncommitted = (reason: string): RefusedCommit[] => this.delivery === 'at-most-once'
      ? []
      : held.filter(c => c.processedOffset !== undefined && c.processedOffset !== c.committedOffset).map(c => ({ topic: c.topic, partition: c.partition, offset: c.processedOffset!, reason }))
    let refused = await this.#revoke(this.#host.heldPartitions(), this.delivery === 'at-least-once' ? identity : undefined, { waitMs: skipHandlers ? 0 : this.#revokeWaitMs(), deadlineAt, why: 'revoked: the consumer is closing' })
      .catch((error: Error) => uncommitted(`revoking the partitions failed: ${error.message}`))
    if (identity === undefined) {
      // No membership to commit under: nothing was sent, so #revoke reported nothing.
      refused = uncommitted(unstable?.name === 'TimeoutError' ? 'a rebalance was still in progress when the consumer closed' : `the member was not in the group (${unstable?.message ?? 'not joined'})`)
      if (refused.length > 0) this.emit('commitRefused', refused)
    }
    if (refused.length > 0) {
      this.warn(new KafkaTsError('UNCOMMITTED_ON_CLOSE', `Closing the consumer of group "${this.groupId}" left ${refused.length} partition(s) uncommitted: ${refused.map(r => `${r.topic}-${r.partition}@${r.offset} (${r.reason})`).join('; ')}`))
    }
    await membership.stop(true)
  }
}

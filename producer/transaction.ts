/**
 * TransactionManager: the transactional side of a Producer (`transactionalId` set). It
 * owns the transaction's state machine and every request to the transaction coordinator
 * (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn) and the TxnOffsetCommit to
 * the group coordinator; the producer keeps sending batches and calls the hooks below.
 *
 *   uninitialized → ready ⇄ inTransaction → committing → ready
 *                               ↓   ↑          ↓ (a send failed)
 *                        abortableError → aborting → ready
 *   any state → fatalError (fenced, authorization, EndTxn outcome unknown): the producer is unusable
 *
 * Rules (all on the event loop):
 * - Transaction version 2 (KIP-890) when the coordinator's ApiVersions finalizes
 *   `transaction.version` ≥ 2 and it speaks EndTxn v5: Produce v12+ adds partitions and
 *   TxnOffsetCommit v5+ adds the group implicitly, and every EndTxn returns a new epoch.
 *   On version 1, a partition is added (AddPartitionsToTxn) before its first batch of the
 *   transaction is sent, the group (AddOffsetsToTxn) before TxnOffsetCommit, and Produce
 *   stays at v11 or below.
 * - Commit first flushes: every record of the transaction is answered before EndTxn is
 *   sent. Any record that failed makes commit refuse (TransactionAbortableError with the
 *   first failure as cause); the application must abort.
 * - EndTxn is retried until it has a definite answer. A request written without an answer
 *   is ambiguous: the coordinator may have applied it. Its retry is answered definitely
 *   (a retry of an applied EndTxn succeeds, KIP-890 included), except for a fence, which
 *   then says nothing about whether the first one committed: TransactionOutcomeUnknownError.
 *   An abort signal never turns an ambiguous EndTxn into "committed" or "aborted".
 */
import type { Client } from '../client/client'
import { AbortedError, ConnectionError } from '../client/errors'
import { backoffDelay, describeError, sleep } from '../client/backoff'
import { checkInteger, checkObject, checkSignal, checkString } from '../client/validate'
import type { Api } from '../protocol/api'
import { AddOffsetsToTxn } from '../protocol/apis/add-offsets-to-txn'
import { AddPartitionsToTxn } from '../protocol/apis/add-partitions-to-txn'
import { ApiVersions } from '../protocol/apis/api-versions'
import { EndTxn } from '../protocol/apis/end-txn'
import { InitProducerId } from '../protocol/apis/init-producer-id'
import { TxnOffsetCommit, type TxnOffsetCommitRequestPartition } from '../protocol/apis/txn-offset-commit'
import { ErrorCode, errorCodeInfo } from '../protocol/error-codes'
import { BrokerError, KafkaTsError, sentence } from '../protocol/errors'
import type { InitProducerIdRequest, InitProducerIdResponse } from '../protocol/apis/init-producer-id'
import type { Identity } from './identity'
import type { RecordOutcome } from './errors'
import { internal } from '../client/internal'

/** Where a transactional producer is: no producer id yet, ready for a transaction, in one, ending one, or in an abortable or fatal error. */
export type TransactionState = 'uninitialized' | 'ready' | 'inTransaction' | 'committing' | 'aborting' | 'abortableError' | 'fatalError'

/** The consumer group a transaction commits offsets for (KIP-447), as GroupConsumer.groupMetadata() returns it. */
export interface ConsumerGroupMetadata {
  /** The consumer group's id. */
  groupId: string
  /** '' to skip the member check. */
  memberId: string
  /** Classic generation or KIP-848 member epoch; -1 to skip the check. */
  generationId: number
  /** The member's static instance id (KIP-345); null for a dynamic member. */
  groupInstanceId: string | null
}

/**
 * The group consumer a ConsumerGroupMetadata came from (its groupMetadata() links it): told
 * which of its partitions' offsets go into a transaction before the TxnOffsetCommit is sent,
 * so it sends no ordinary OffsetCommit of them that could supersede it (invariant 8).
 */
type OffsetsOwner = (partitions: Array<{ topic: string, partition: number }>) => Promise<void>
const offsetsOwners = new WeakMap<ConsumerGroupMetadata, OffsetsOwner>()

/** A group consumer links the metadata it hands out to itself (see OffsetsOwner). */
export function linkOffsetsOwner (metadata: ConsumerGroupMetadata, owner: OffsetsOwner): void {
  offsetsOwners.set(metadata, owner)
}

/** One offset `sendOffsets` commits inside the transaction. */
export interface TransactionOffset {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The next offset to consume (the last processed record's offset + 1). */
  offset: bigint
  /** The leader epoch of the last processed record; default -1 (none). */
  leaderEpoch?: number
  /** A string committed with the offset; default none. */
  metadata?: string | null
}

/** Options of `producer.sendOffsets()` (and a transaction scope's): the group, given by its consumer or its metadata, and the offsets. */
export interface SendOffsetsOptions {
  /** A group consumer whose current membership the offsets are committed under. */
  consumer?: {
    /** The group metadata of the consumer's current membership; undefined while it has none. */
    groupMetadata: () => ConsumerGroupMetadata | undefined
  }
  /** Or the group metadata itself. */
  groupMetadata?: ConsumerGroupMetadata
  /** The offsets to commit: the next offset to consume of each partition. */
  offsets: TransactionOffset[]
  /** Aborts the call: it rejects with an AbortedError. */
  signal?: AbortSignal
}

/** Options of the transaction calls (begin, commit, abort, transaction()). */
export interface TransactionCallOptions {
  /** Aborts the call; an EndTxn already written then ends in a TransactionOutcomeUnknownError. */
  signal?: AbortSignal
}

// ---------------------------------------------------------------- errors

/**
 * The transaction cannot commit (a send or offset commit in it failed, or the coordinator
 * said TRANSACTION_ABORTABLE). Abort it (`abortTransaction()`) and go on: the producer is
 * still usable. `cause` is the first failure.
 */
export class TransactionAbortableError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.TransactionAbortableError')
  /** Kafka's error code when a broker answered it, else -1. */
  readonly code: number
  /** Kafka's name for `code`, or 'TRANSACTION_ABORTABLE' when no broker answered one. */
  readonly type: string
  /** The error with the first failure as `cause` and Kafka's `code` when a broker answered one (default -1). */
  constructor (message: string, options: { code?: number, cause?: unknown } = {}) {
    super('TRANSACTION_ABORTABLE', message, { retriable: false, cause: options.cause })
    this.name = 'TransactionAbortableError'
    this.code = options.code ?? -1
    this.type = this.code >= 0 ? errorCodeInfo(this.code).name : 'TRANSACTION_ABORTABLE'
  }
}

/**
 * The producer can no longer be used for transactions: close it and create a new one
 * (with the same transactionalId, which fences this one for good).
 */
export class TransactionFatalError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.TransactionFatalError')
  /** Kafka's error code when a broker answered it, else -1. */
  readonly code: number
  /** Kafka's name for `code`, or 'TRANSACTION_FATAL' when no broker answered one. */
  readonly type: string
  /**
   * When this error ended a send() of several records (runTransactional rejects with it
   * then, not with the SendError): that send's outcome of each record, by its index in the
   * call. Undefined otherwise.
   */
  outcomes: RecordOutcome[] | undefined
  /** The error with Kafka's `code` when a broker answered one (default -1). */
  constructor (message: string, options: { code?: number, cause?: unknown } = {}) {
    super('TRANSACTION_FATAL', message, { retriable: false, cause: options.cause })
    this.name = 'TransactionFatalError'
    this.code = options.code ?? -1
    this.type = this.code >= 0 ? errorCodeInfo(this.code).name : 'TRANSACTION_FATAL'
  }
}

/**
 * Another producer with the same transactionalId started (or the coordinator timed this
 * one's transaction out and bumped its epoch): this one is a zombie. Nothing of its open
 * transaction becomes visible. Close it.
 */
export class ProducerFencedError extends TransactionFatalError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ProducerFencedError')
  /** A fenced producer; `code` is the broker's PRODUCER_FENCED or INVALID_PRODUCER_EPOCH. */
  constructor (message: string, options: { code?: number, cause?: unknown } = {}) {
    super(message, options)
    this.name = 'ProducerFencedError'
  }
}

/**
 * An EndTxn was written and no definite answer came back: the transaction may have
 * committed or aborted. Read the output with read_committed to find out. The producer is
 * unusable (nothing can be built on an unknown outcome).
 */
export class TransactionOutcomeUnknownError extends TransactionFatalError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.TransactionOutcomeUnknownError')
  /** An EndTxn with no definite answer; `cause` is the failure behind it, when there is one. */
  constructor (message: string, options: { code?: number, cause?: unknown } = {}) {
    super(message, options)
    this.name = 'TransactionOutcomeUnknownError'
  }
}

/** A record that was still buffered when its transaction aborted: it was never written. */
export class TransactionAbortedError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.TransactionAbortedError')
  /** Always -1: no broker error code. */
  readonly code = -1
  /** Always 'TRANSACTION_ABORTED'. */
  readonly type = 'TRANSACTION_ABORTED'
  /** The error of a record whose transaction aborted. */
  constructor (message: string, options: { cause?: unknown } = {}) {
    super('TRANSACTION_ABORTED', message, { retriable: false, cause: options.cause })
    this.name = 'TransactionAbortedError'
  }
}

/** A transactional call made in the wrong state (send outside a transaction, commit without begin...). */
export class TransactionStateError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.TransactionStateError')
  /** Always -1: no broker error code. */
  readonly code = -1
  /** Always 'INVALID_TXN_STATE'. */
  readonly type = 'INVALID_TXN_STATE'
  /** A call made in the wrong transaction state; never retriable. */
  constructor (message: string) {
    super('TRANSACTION_STATE', message, { retriable: false })
    this.name = 'TransactionStateError'
  }
}

// ---------------------------------------------------------------- error classes (as Java's TransactionManager)


/** Answers retried inside the call: the coordinator moved, is loading, or is finishing the previous transaction. */
function isRetriableTxnCode (code: number): boolean {
  return code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS || code === ErrorCode.COORDINATOR_NOT_AVAILABLE || code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.CONCURRENT_TRANSACTIONS
}

/**
 * Answers that mean the coordinator may have aborted the transaction for its timeout and
 * bumped the epoch (KIP-588): abortable. The abort then asks for a new epoch with the
 * current id and epoch, which is refused (PRODUCER_FENCED) only if a newer producer took over.
 */
function isTimedOutTxnCode (code: number): boolean {
  // A timed-out transaction's late request is answered PRODUCER_FENCED by the coordinator, as a takeover is: only the re-init tells them apart.
  return code === ErrorCode.INVALID_PRODUCER_EPOCH || code === ErrorCode.PRODUCER_FENCED
}

/** Answers after which the producer is unusable. */
function isFatalTxnCode (code: number): boolean {
  return code === ErrorCode.PRODUCER_FENCED || code === ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED ||
    code === ErrorCode.INVALID_TXN_STATE || code === ErrorCode.INVALID_PRODUCER_ID_MAPPING || code === ErrorCode.UNSUPPORTED_VERSION ||
    code === ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT || code === ErrorCode.INVALID_TRANSACTION_TIMEOUT
}

function fatalFor (code: number, context: string, cause = new BrokerError(code, context)): TransactionFatalError {
  if (code === ErrorCode.PRODUCER_FENCED || code === ErrorCode.INVALID_PRODUCER_EPOCH) {
    return new ProducerFencedError(`${context}: ${cause.type} — a newer producer with the same transactionalId took over (or the coordinator timed this transaction out). This producer is fenced: close it.`, { code, cause })
  }
  return new TransactionFatalError(`${context}: ${cause.type}: ${errorCodeInfo(code).meaning} The producer cannot be used for transactions any more: close it.`, { code, cause })
}

// ---------------------------------------------------------------- the manager

/** What the transaction manager needs of its producer (producer.ts implements it). */
export interface TransactionHost {
  readonly client: Client
  /** Resolves when every record buffered now is answered. */
  flush: () => Promise<void>
  /**
   * Fails every record not in flight and not ambiguous with `error`; batches in flight keep
   * their outcome. True when one of them had been sent (its sequence leaves a gap).
   */
  failUnsent: (error: Error) => boolean
  /** InitProducerId through `sendInitProducerId` (identity.ts); `replacing`: a new epoch for the current id (KIP-360). */
  acquireIdentity: (replacing: boolean) => Promise<Identity>
  /** Partitions move to this identity (EndTxn v5's), their sequences restarting at 0. */
  adoptIdentity: (identity: Identity) => void
  identity: () => Identity
  /** Fails every buffered record with `error` (the manager refuses new ones from now on). */
  fail: (error: Error) => void
  /** Produce may be sent again (a partition was added). */
  wake: () => void
  /** Caps the Produce version (transaction version 1 stays at v11). */
  capProduceVersion: (max: number) => void
  /** Aborts when the producer closes: every retry loop here ends then, whatever it waits for. */
  readonly closing: AbortSignal
}

export interface TransactionOptions {
  transactionalId: string
  /** How long the coordinator lets a transaction stay open before aborting it (default 60 s). */
  transactionTimeoutMs?: number
}

export function checkTransactionOptions (options: { transactionalId?: unknown, transactionTimeoutMs?: unknown }): void {
  checkString('producer option', 'transactionalId', options.transactionalId)
  if (options.transactionTimeoutMs !== undefined) checkInteger('producer option', 'transactionTimeoutMs', options.transactionTimeoutMs, { min: 1, max: 2_147_483_647 })
}

export class TransactionManager {
  readonly transactionalId: string
  readonly transactionTimeoutMs: number
  readonly #host: TransactionHost
  readonly #client: Client

  // State, changed only by the public calls below and the send hooks, on the event loop.
  #state: TransactionState = 'uninitialized'
  #initializing: Promise<void> | undefined
  /** Why the producer is unusable (state 'fatalError'). */
  #fatal: TransactionFatalError | undefined
  /** The first failure inside the open transaction (state 'abortableError'). */
  #firstError: Error | undefined
  /** The broker's transaction.version: 2 (KIP-890 part 2) or 1. */
  #version: 1 | 2 = 1
  /** Something was sent (records or offsets) in the open transaction: EndTxn is needed. */
  #touched = false
  /** Transaction version 1: partitions added to the open transaction, and the AddPartitionsToTxn under way. */
  readonly #added = new Set<string>()
  readonly #toAdd = new Map<string, { topic: string, partition: number }>()
  #adding: Promise<void> | undefined
  /** Version 1: the open transaction's sequences went wrong; the abort moves to a new epoch. */
  #bumpAfterAbort = false
  /** The coordinator may have aborted the open transaction for its timeout (KIP-588): the abort sends no EndTxn and moves to a new epoch. */
  #timedOut = false
  #addPartitionsVersion = 3
  /** Transaction version 1: the highest EndTxn and TxnOffsetCommit versions (below the ones that mean version 2). */
  #endTxnVersion: number | undefined
  #txnOffsetCommitVersion: number | undefined

  constructor (host: TransactionHost, options: TransactionOptions) {
    checkTransactionOptions(options)
    this.#host = host
    this.#client = host.client
    this.transactionalId = options.transactionalId
    this.transactionTimeoutMs = options.transactionTimeoutMs ?? 60_000
  }

  get state (): TransactionState {
    return this.#state
  }

  /** Waits out retry `attempt`'s backoff on the client's clock; rejects with AbortedError (naming `retrying`, the failure being retried) when `signal` aborts. */
  async #backOff (attempt: number, signal: AbortSignal | undefined, retrying?: unknown): Promise<void> {
    await sleep(backoffDelay(attempt, this.#client.backoff), signal, retrying, this.#client.clock)
  }

  /** A call's signal joined with the producer's closing one: close() ends the call's retries and their sleeps. */
  #untilClosed (signal: AbortSignal | undefined): AbortSignal {
    const closing = this.#host.closing
    return signal === undefined ? closing : AbortSignal.any([signal, closing])
  }

  /** The transaction version in use (known after the first beginTransaction). */
  get transactionVersion (): 1 | 2 {
    return this.#version
  }

  // ---------------------------------------------------------------- hooks of the producer

  /** Throws unless records may be sent now (inside an open, healthy transaction). */
  checkSend (): void {
    if (this.#state === 'inTransaction') return
    if (this.#state === 'fatalError') throw this.#fatal!
    if (this.#state === 'abortableError') throw new TransactionAbortableError(`The transaction of "${this.transactionalId}" failed and must be aborted before anything else is sent: call abortTransaction()`, { cause: this.#firstError })
    throw new TransactionStateError(`A transactional producer ("${this.transactionalId}") sends only inside a transaction: call beginTransaction() first (state: ${this.#state})`)
  }

  /** Records were buffered: the transaction needs an EndTxn. */
  onAppend (): void {
    this.#touched = true
  }

  /**
   * Whether a batch of this partition may be sent now. On transaction version 1 a
   * partition is added to the transaction first: the first ask starts AddPartitionsToTxn
   * (for every partition waiting), and the producer is woken when it is done.
   */
  isPartitionReady (topic: string, partition: number): boolean {
    if (this.#version === 2 || this.#state === 'fatalError') return true
    const key = `${topic}-${partition}`
    if (this.#added.has(key)) return true
    this.#toAdd.set(key, { topic, partition })
    if (this.#adding === undefined) this.#adding = this.#addPartitions().finally(() => { this.#adding = undefined; this.#host.wake() })
    return false
  }

  /** A record of the transaction failed: the transaction can only abort now (or the producer is done, if fenced). */
  onRecordFailed (error: Error): void {
    if (this.#state === 'fatalError' || this.#state === 'aborting') return
    if (error instanceof TransactionAbortedError) return
    const code = error instanceof BrokerError ? error.code : -1
    if (isTimedOutTxnCode(code)) this.#timedOut = true
    else if (isFatalTxnCode(code)) {
      this.#goFatal(fatalFor(code, `A record of transaction "${this.transactionalId}" was refused`))
      return
    }
    this.#abortable(error)
  }

  /**
   * A batch was refused as fenced (PRODUCER_FENCED), or with an old epoch
   * (INVALID_PRODUCER_EPOCH: the coordinator may have aborted the transaction for its
   * timeout, KIP-588, and the abort finds out): the error its records get.
   */
  fencedBy (error: BrokerError): Error {
    if (isTimedOutTxnCode(error.code)) return this.#timedOutError(error.code, `Produce of transaction "${this.transactionalId}"`)
    return this.#goFatal(fatalFor(error.code, `Produce of transaction "${this.transactionalId}"`))
  }

  /** The producer would have moved to a new epoch (a sequence went wrong): in a transaction, that waits for the abort. */
  onEpochBumpNeeded (reason: string): void {
    this.#bumpAfterAbort = true
    this.#abortable(new TransactionAbortableError(`The producer's sequence numbers went wrong (${reason}): the transaction must be aborted`))
  }

  // ---------------------------------------------------------------- the public calls (through Producer)

  /** InitProducerId for the transactional id: fences older producers with the same id and aborts their open transaction. */
  async initialize (signal?: AbortSignal): Promise<void> {
    if (this.#state === 'fatalError') throw this.#fatal!
    if (this.#state !== 'uninitialized') return
    this.#initializing ??= (async () => {
      await this.#detectVersion(signal)
      this.#initSignal = signal
      try {
        await this.#host.acquireIdentity(false)
      } finally {
        this.#initSignal = undefined
      }
      this.#state = 'ready'
    })().finally(() => { this.#initializing = undefined })
    await this.#initializing
  }

  async beginTransaction (options: TransactionCallOptions = {}): Promise<void> {
    checkCallOptions('beginTransaction', options)
    await this.initialize(options.signal)
    if (this.#state === 'fatalError') throw this.#fatal!
    if (this.#state !== 'ready') throw new TransactionStateError(`beginTransaction() on "${this.transactionalId}" while a transaction is ${this.#state === 'inTransaction' ? 'open' : this.#state}: commit or abort it first`)
    this.#state = 'inTransaction'
    this.#touched = false
    this.#firstError = undefined
    this.#added.clear()
    this.#toAdd.clear()
  }

  async sendOffsets (options: SendOffsetsOptions): Promise<void> {
    checkObject('sendOffsets', 'options', options)
    if (options.signal !== undefined) checkSignal('sendOffsets option', 'signal', options.signal)
    const group = options.groupMetadata ?? options.consumer?.groupMetadata()
    if (group === undefined) throw new TransactionStateError('sendOffsets() needs { consumer } (a group consumer that is a member now) or { groupMetadata }')
    checkString('sendOffsets groupMetadata', 'groupId', group.groupId)
    if (!Array.isArray(options.offsets)) throw new TypeError('sendOffsets option offsets: expected an array of { topic, partition, offset }')
    for (const [i, o] of options.offsets.entries()) {
      checkString(`sendOffsets offsets[${i}]`, 'topic', o.topic)
      checkInteger(`sendOffsets offsets[${i}]`, 'partition', o.partition, { min: 0 })
      if (typeof o.offset !== 'bigint' || o.offset < 0n) throw new TypeError(`sendOffsets offsets[${i}] offset: expected a bigint ≥ 0n (the next offset to consume), got ${String(o.offset)}`)
    }
    this.checkSend()
    if (options.offsets.length === 0) return
    // Before the TxnOffsetCommit: the consumer stops committing these partitions itself, and its commits in flight end.
    await offsetsOwners.get(group)?.(options.offsets)
    this.#touched = true
    const signal = options.signal
    try {
      if (this.#version === 1) {
        const { producerId, producerEpoch } = this.#host.identity()
        const response = await this.#toCoordinator(AddOffsetsToTxn, { transactionalId: this.transactionalId, producerId, producerEpoch, groupId: group.groupId }, r => r.errorCode, signal)
        this.#throwForCode(response.errorCode, `AddOffsetsToTxn for group "${group.groupId}"`)
      }
      await this.#txnOffsetCommit(group, options.offsets, signal)
    } catch (error) {
      if (!(error instanceof TransactionFatalError) && !isAbort(error, signal)) this.#abortable(error as Error)
      throw error
    }
  }

  async commitTransaction (options: TransactionCallOptions = {}): Promise<void> {
    checkCallOptions('commitTransaction', options)
    if (this.#state === 'abortableError') throw new TransactionAbortableError(`The transaction of "${this.transactionalId}" cannot commit: a send or offset commit in it failed (see cause). Call abortTransaction().`, { cause: this.#firstError })
    if (this.#state !== 'inTransaction') this.checkSend()
    this.#state = 'committing'
    await this.#host.flush()
    // A record that failed while flushing made the transaction abortable (or the producer fenced).
    if (this.#firstError !== undefined || this.#fatal !== undefined) {
      if (this.#fatal !== undefined) throw this.#fatal
      this.#state = 'abortableError'
      throw new TransactionAbortableError(`The transaction of "${this.transactionalId}" cannot commit: a record in it failed (see cause). Call abortTransaction().`, { cause: this.#firstError })
    }
    if (this.#touched) await this.#endTxn(true, options.signal)
    this.#state = 'ready'
  }

  async abortTransaction (options: TransactionCallOptions = {}): Promise<void> {
    checkCallOptions('abortTransaction', options)
    if (this.#state === 'fatalError') throw this.#fatal!
    if (this.#state !== 'inTransaction' && this.#state !== 'abortableError') {
      throw new TransactionStateError(`abortTransaction() on "${this.transactionalId}" with no transaction open (state: ${this.#state})`)
    }
    this.#state = 'aborting'
    if (this.#host.failUnsent(new TransactionAbortedError(`The transaction of "${this.transactionalId}" was aborted before this record was sent`, { cause: this.#firstError }))) this.#bumpAfterAbort = true
    await this.#host.flush()
    const before = this.#host.identity()
    // Timed out (KIP-588): the coordinator aborted it already and moved the epoch on, so an
    // EndTxn with ours would be refused as fenced; InitProducerId with the current id and
    // epoch brings the next one, and is refused only if a newer producer took over.
    if (this.#timedOut) this.#bumpAfterAbort = true
    else if (this.#touched) await this.#endTxn(false, options.signal)
    const after = this.#host.identity()
    if (this.#bumpAfterAbort && before.producerId === after.producerId && before.producerEpoch === after.producerEpoch) {
      // Sequences of the aborted transaction went wrong and EndTxn gave no new epoch
      // (version 1, or nothing reached the coordinator): one starts them over (KIP-360).
      this.#initSignal = options.signal
      try {
        await this.#host.acquireIdentity(true)
      } finally {
        this.#initSignal = undefined
      }
    }
    this.#bumpAfterAbort = false
    this.#timedOut = false
    this.#firstError = undefined
    this.#state = 'ready'
  }

  // ---------------------------------------------------------------- state changes

  #abortable (error: Error): void {
    if (this.#state === 'fatalError' || this.#state === 'aborting') return
    this.#firstError ??= error
    if (this.#state === 'inTransaction') this.#state = 'abortableError'
    // Records still buffered cannot commit anyway: fail them now (Java's abortUndrainedBatches).
    if (this.#host.failUnsent(new TransactionAbortedError(`The transaction of "${this.transactionalId}" failed before this record was sent: ${this.#firstError.message}`, { cause: this.#firstError }))) this.#bumpAfterAbort = true
  }

  /**
   * An old-epoch answer (or a commit refused as INVALID_TXN_STATE): the coordinator
   * probably aborted the transaction for its timeout and bumped the epoch. Abortable: the
   * abort re-initializes with the current id and epoch (KIP-588), which says whether a
   * newer producer took over (then the producer is fenced, fatal) or not (it goes on).
   */
  #timedOutError (code: number, context: string): TransactionAbortableError {
    this.#timedOut = true
    const cause = new BrokerError(code, context)
    const error = new TransactionAbortableError(`${context}: ${cause.type}: the coordinator had aborted the transaction (open longer than transactionTimeoutMs, ${this.transactionTimeoutMs} ms, or another producer took over). Nothing of it is visible. Abort it: the abort gets a new epoch unless another producer with this transactionalId took over, which makes the producer fenced.`, { code, cause })
    this.#abortable(error)
    return error
  }

  /** The producer is unusable from now on; returns the error that says why (the first one). */
  #goFatal (error: TransactionFatalError): TransactionFatalError {
    if (this.#fatal === undefined) {
      this.#fatal = error
      this.#state = 'fatalError'
      this.#host.fail(error)
    }
    return this.#fatal
  }

  #throwForCode (code: number, context: string): void {
    if (code === 0) return
    if (isTimedOutTxnCode(code)) throw this.#timedOutError(code, context)
    if (isFatalTxnCode(code)) throw this.#goFatal(fatalFor(code, context))
    throw new TransactionAbortableError(`${context} failed: ${sentence(new BrokerError(code, context).message)} Abort the transaction.`, { code, cause: new BrokerError(code, context) })
  }

  // ---------------------------------------------------------------- requests

  /** transaction.version from the coordinator's ApiVersions finalized features (KIP-890). */
  async #detectVersion (signal?: AbortSignal): Promise<void> {
    // Through #toCoordinator: a coordinator that just died is found again, as for every
    // coordinator request (a ConnectionError here failed beginTransaction during a broker kill).
    const response = await this.#toCoordinator(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0' }, r => r.errorCode, signal)
    const level = response.finalizedFeatures.find(f => f.name === 'transaction.version')?.maxVersionLevel ?? 0
    const endTxn = response.apiKeys.find(k => k.apiKey === EndTxn.key)
    const addPartitions = response.apiKeys.find(k => k.apiKey === AddPartitionsToTxn.key)
    // v4+ is the brokers' batched form (KIP-890); a client speaks v3 at most.
    this.#addPartitionsVersion = Math.min(3, addPartitions?.maxVersion ?? 3)
    this.#version = level >= 2 && endTxn !== undefined && endTxn.maxVersion >= 5 ? 2 : 1
    if (this.#version === 1) {
      // The version of these requests is what tells the broker a client speaks transaction
      // version 2 (EndTxn v5 bumps the epoch, TxnOffsetCommit v5 and Produce v12 add implicitly).
      this.#host.capProduceVersion(11)
      const txnOffsetCommit = response.apiKeys.find(k => k.apiKey === TxnOffsetCommit.key)
      this.#endTxnVersion = Math.min(4, endTxn?.maxVersion ?? 4)
      this.#txnOffsetCommitVersion = Math.min(4, txnOffsetCommit?.maxVersion ?? 4)
    }
  }

  /** The signal of the call that is getting an identity now (begin, or a version 1 abort). */
  #initSignal: AbortSignal | undefined

  /**
   * ProducerIdentity's InitProducerId (identity.ts), sent to the transaction coordinator and
   * retried there; a fence or authorization failure makes the producer unusable (it must
   * never start over with a new id, which would fence its successor).
   */
  async sendInitProducerId (request: InitProducerIdRequest): Promise<InitProducerIdResponse> {
    const response = await this.#toCoordinator(InitProducerId, version => ({
      ...request,
      transactionalId: this.transactionalId,
      producerId: version >= 3 ? request.producerId : -1n,
      producerEpoch: version >= 3 ? request.producerEpoch : -1
    }), r => r.errorCode, this.#initSignal)
    if (isFatalTxnCode(response.errorCode) || isTimedOutTxnCode(response.errorCode) || response.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED) throw this.#goFatal(fatalFor(response.errorCode, `InitProducerId for "${this.transactionalId}"`))
    return response
  }

  /** Version 1: adds every partition waiting to the open transaction, retrying until each is in or the transaction fails. */
  async #addPartitions (): Promise<void> {
    for (let attempt = 0; this.#toAdd.size > 0; attempt++) {
      if (this.#state !== 'inTransaction' && this.#state !== 'committing') return
      const batch = [...this.#toAdd.values()]
      const byTopic = new Map<string, number[]>()
      for (const p of batch) {
        const list = byTopic.get(p.topic)
        if (list === undefined) byTopic.set(p.topic, [p.partition])
        else list.push(p.partition)
      }
      const { producerId, producerEpoch } = this.#host.identity()
      let response
      try {
        response = await this.#toCoordinator(AddPartitionsToTxn, {
          v3AndBelowTransactionalId: this.transactionalId,
          v3AndBelowProducerId: producerId,
          v3AndBelowProducerEpoch: producerEpoch,
          v3AndBelowTopics: [...byTopic].map(([name, partitions]) => ({ name, partitions }))
        }, { version: this.#addPartitionsVersion }, r => r.resultsByTopicV3AndBelow.flatMap(t => t.resultsByPartition).find(p => isRetriableTxnCode(p.partitionErrorCode))?.partitionErrorCode ?? 0)
      } catch (error) {
        if (error instanceof TransactionFatalError) return
        this.#abortable(error as Error)
        return
      }
      let retry = false
      for (const topic of response.resultsByTopicV3AndBelow) {
        for (const p of topic.resultsByPartition) {
          const key = `${topic.name}-${p.partitionIndex}`
          const code = p.partitionErrorCode
          if (code === 0) {
            this.#added.add(key)
            this.#toAdd.delete(key)
          } else if (code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || isRetriableTxnCode(code)) {
            retry = true
          } else if (code === ErrorCode.OPERATION_NOT_ATTEMPTED /* another partition failed, which is reported on its own */) {
            continue
          } else if (isTimedOutTxnCode(code)) {
            this.#timedOutError(code, `AddPartitionsToTxn for ${key}`)
            return
          } else if (isFatalTxnCode(code)) {
            this.#goFatal(fatalFor(code, `AddPartitionsToTxn for ${key}`))
            return
          } else {
            this.#abortable(new BrokerError(code, `AddPartitionsToTxn for ${key}`))
            return
          }
        }
      }
      if (batch.every(p => this.#toAdd.has(`${p.topic}-${p.partition}`)) && !retry) {
        this.#abortable(new TransactionAbortableError(`AddPartitionsToTxn for "${this.transactionalId}" was answered without the partitions asked for`))
        return
      }
      if (retry) {
        try {
          await this.#backOff(attempt, this.#host.closing)
        } catch {
          return
        }
      }
    }
  }

  async #txnOffsetCommit (group: ConsumerGroupMetadata, offsets: TransactionOffset[], callerSignal?: AbortSignal): Promise<void> {
    const signal = this.#untilClosed(callerSignal)
    // v6 names topics by id, and a producer may never have sent to the topics whose offsets it
    // commits (a consume-transform-produce's input): their metadata is loaded first.
    for (const topic of new Set(offsets.map(o => o.topic))) {
      if (this.#client.metadata.topic(topic) === undefined) await this.#client.metadata.waitForTopic(topic, this.#client.requestTimeoutMs, signal)
    }
    let pending = offsets
    for (let attempt = 0; pending.length > 0; attempt++) {
      const nodeId = await this.#coordinator('group', group.groupId, signal)
      const { producerId, producerEpoch } = this.#host.identity()
      let response
      try {
        response = await this.#client.request(TxnOffsetCommit, version => {
          const byTopic = new Map<string, TxnOffsetCommitRequestPartition[]>()
          for (const o of pending) {
            let list = byTopic.get(o.topic)
            if (list === undefined) byTopic.set(o.topic, list = [])
            list.push({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch ?? -1, committedMetadata: o.metadata ?? null })
          }
          return {
            transactionalId: this.transactionalId,
            groupId: group.groupId,
            producerId,
            producerEpoch,
            generationIdOrMemberEpoch: group.generationId,
            memberId: group.memberId,
            groupInstanceId: group.groupInstanceId,
            topics: [...byTopic].map(([topic, partitions]) => version >= 6 ? { topicId: this.#client.metadata.topic(topic)?.topicId, partitions } : { name: topic, partitions })
          }
        }, { nodeId, signal, version: this.#txnOffsetCommitVersion })
      } catch (error) {
        if (isAbort(error, signal) || !isRetriableFailure(error)) throw error
        this.#client[internal].coordinators.invalidate('group', group.groupId, nodeId)
        await this.#backOff(attempt, signal, error)
        continue
      }
      const retry: TransactionOffset[] = []
      let retrying: BrokerError | undefined
      const unanswered = new Set(pending)
      for (const t of response.topics) {
        const topic = t.name !== '' ? t.name : this.#client.metadata.topicById(t.topicId)?.name ?? ''
        for (const p of t.partitions) {
          const offset = pending.find(o => o.topic === topic && o.partition === p.partitionIndex)
          if (offset !== undefined) unanswered.delete(offset)
          if (offset === undefined || p.errorCode === 0) continue
          const code = p.errorCode
          if (code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE) this.#client[internal].coordinators.invalidate('group', group.groupId, nodeId)
          if (isRetriableTxnCode(code) || code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || code === ErrorCode.REQUEST_TIMED_OUT) {
            retry.push(offset)
            retrying = new BrokerError(code, `TxnOffsetCommit of ${topic}-${p.partitionIndex} for group "${group.groupId}"`)
            continue
          }
          // A fenced member (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, STALE_MEMBER_EPOCH...) is abortable (KIP-447).
          this.#throwForCode(code, `TxnOffsetCommit of ${topic}-${p.partitionIndex} for group "${group.groupId}"`)
        }
      }
      if (unanswered.size > 0) {
        // Not knowing whether an offset is in the transaction, committing it could lose it.
        const missing = [...unanswered].map(o => `${o.topic}-${o.partition}`).join(', ')
        throw new TransactionAbortableError(`TxnOffsetCommit for group "${group.groupId}" did not answer for ${missing}; abort the transaction and retry it`)
      }
      pending = retry
      if (pending.length > 0) await this.#backOff(attempt, signal, retrying)
    }
  }

  /**
   * Commits or aborts. Retried until the coordinator answers definitely; see the header for
   * what an ambiguous (written, unanswered) EndTxn means.
   */
  async #endTxn (commit: boolean, callerSignal?: AbortSignal): Promise<void> {
    // Its sleeps end when the producer closes; the written EndTxn itself is not bound (its answer is what we wait for).
    const signal = this.#untilClosed(callerSignal)
    const what = commit ? 'commit' : 'abort'
    const { producerId, producerEpoch } = this.#host.identity()
    let ambiguous: Error | undefined
    /** What the last attempt failed with: named when an abort ends the retries. */
    let lastFailure: unknown
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted === true) {
        if (ambiguous !== undefined) throw this.#goFatal(new TransactionOutcomeUnknownError(`Aborted while the ${what} of "${this.transactionalId}" was unanswered: the transaction may or may not have ${commit ? 'committed' : 'aborted'}. Read the output with read_committed to find out.`, { cause: ambiguous }))
        const last = lastFailure === undefined ? '' : `; the last attempt had failed with ${describeError(lastFailure)}`
        throw new TransactionAbortableError(`Aborted before the ${what} of "${this.transactionalId}" completed${last}`, { cause: signal.reason })
      }
      let response
      let nodeId: number | undefined
      try {
        nodeId = await this.#coordinator('transaction', this.transactionalId, signal)
        // Not bound by the signal once written: its answer is what we wait for.
        response = await this.#client.request(EndTxn, { transactionalId: this.transactionalId, producerId, producerEpoch, committed: commit }, { nodeId, version: this.#endTxnVersion })
      } catch (error) {
        if ((error as { written?: boolean }).written === true) ambiguous = error as Error
        if (!isRetriableFailure(error) && !isAbort(error, signal)) {
          if (ambiguous !== undefined) throw this.#goFatal(new TransactionOutcomeUnknownError(`The ${what} of "${this.transactionalId}" was sent and then failed (${(error as Error).message}): the outcome is unknown`, { cause: error }))
          throw error
        }
        if (nodeId !== undefined) this.#client[internal].coordinators.invalidate('transaction', this.transactionalId, nodeId)
        lastFailure = error
        await this.#backOff(attempt, signal).catch(() => {})
        continue
      }
      const code = response.errorCode
      if (code === 0) {
        if (this.#version === 2 && response.producerEpoch >= 0) this.#host.adoptIdentity({ producerId: response.producerId, producerEpoch: response.producerEpoch })
        return
      }
      if (isRetriableTxnCode(code)) {
        if (code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE) this.#client[internal].coordinators.invalidate('transaction', this.transactionalId, nodeId)
        lastFailure = new BrokerError(code, `EndTxn (${what}) of "${this.transactionalId}"`)
        await this.#backOff(attempt, signal).catch(() => {})
        continue
      }
      if (ambiguous !== undefined && (code === ErrorCode.PRODUCER_FENCED || code === ErrorCode.INVALID_PRODUCER_EPOCH)) {
        throw this.#goFatal(new TransactionOutcomeUnknownError(`The ${what} of "${this.transactionalId}" got no answer, and its retry was fenced (${errorCodeInfo(code).name}): the first request may have ${commit ? 'committed' : 'aborted'} the transaction before another producer took over. Read the output with read_committed to find out.`, { code, cause: ambiguous }))
      }
      if (code === ErrorCode.TRANSACTION_ABORTABLE && commit) {
        this.#state = 'abortableError'
        this.#firstError ??= new BrokerError(code, 'EndTxn')
        throw new TransactionAbortableError(`The coordinator refused to commit "${this.transactionalId}" (TRANSACTION_ABORTABLE): abort it`, { code, cause: this.#firstError })
      }
      if ((code === ErrorCode.INVALID_TXN_STATE || isTimedOutTxnCode(code)) && commit) {
        // The coordinator aborted it for its timeout (KIP-588): abort here, and the abort moves to a new epoch.
        this.#state = 'abortableError'
        throw this.#timedOutError(code, `EndTxn (commit) of "${this.transactionalId}"`)
      }
      throw this.#goFatal(fatalFor(code, `EndTxn (${what}) of "${this.transactionalId}"`))
    }
  }

  /** A request to the transaction coordinator, retried while it moves, loads or finishes the previous transaction. */
  async #toCoordinator<Request, Response> (api: Api<Request, Response>, body: Request | ((version: number) => Request), ...rest: [{ version?: number }, (response: Response) => number, AbortSignal?] | [(response: Response) => number, AbortSignal?]): Promise<Response> {
    const [options, codeOf, callerSignal] = typeof rest[0] === 'function' ? [{}, rest[0], rest[1] as AbortSignal | undefined] : rest as [{ version?: number }, (response: Response) => number, AbortSignal?]
    const signal = this.#untilClosed(callerSignal)
    for (let attempt = 0; ; attempt++) {
      const nodeId = await this.#coordinator('transaction', this.transactionalId, signal)
      let response: Response
      try {
        response = await this.#client.request(api, body, { nodeId, signal, version: options.version })
      } catch (error) {
        if (isAbort(error, signal) || !isRetriableFailure(error)) throw error
        this.#client[internal].coordinators.invalidate('transaction', this.transactionalId, nodeId)
        await this.#backOff(attempt, signal, error)
        continue
      }
      const code = codeOf(response)
      if (!isRetriableTxnCode(code)) return response
      if (code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE) this.#client[internal].coordinators.invalidate('transaction', this.transactionalId, nodeId)
      await this.#backOff(attempt, signal, new BrokerError(code, `${api.name} for "${this.transactionalId}"`))
    }
  }

  /**
   * The coordinator of this transactional id or of a group whose offsets it commits (the
   * client's cache, retried while not available); a refused transactional id makes the
   * producer unusable.
   */
  async #coordinator (kind: 'transaction' | 'group', key: string, callerSignal?: AbortSignal): Promise<number> {
    try {
      return await this.#client[internal].coordinators.lookup(kind, key, { signal: this.#untilClosed(callerSignal) })
    } catch (error) {
      if (error instanceof BrokerError && error.code === ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) throw this.#goFatal(fatalFor(error.code, `FindCoordinator for "${key}"`, error))
      throw error
    }
  }
}

function isAbort (error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || error instanceof AbortedError
}

/** A connection that failed or timed out: worth a new coordinator lookup and a retry. */
function isRetriableFailure (error: unknown): boolean {
  return error instanceof ConnectionError || (error instanceof KafkaTsError && error.retriable)
}

function checkCallOptions (call: string, options: TransactionCallOptions): void {
  checkObject(call, 'options', options)
  if (options.signal !== undefined) checkSignal(`${call} option`, 'signal', options.signal)
}


/**
 * The fake's transaction coordinator, after Kafka's TransactionCoordinator and
 * TransactionMetadata: one entry per transactional id with its producer id, epoch, state,
 * partitions, groups and pending offsets, and what happened to every transactional batch.
 *
 * States: Empty → Ongoing → (EndTxn) CompleteCommit / CompleteAbort → Ongoing → …
 * (Prepare* are instantaneous here: markers are "written" at once).
 *
 * - InitProducerId with a transactional id: a new producer id at epoch 0 the first time;
 *   later, epoch + 1 (fencing every older instance), aborting an ongoing transaction. With
 *   the current id and epoch (KIP-360) the same; another epoch → PRODUCER_FENCED.
 * - transaction.version (cluster option `transactionVersion`, default 2, advertised in
 *   ApiVersions' finalizedFeatures): on 1, a transactional batch is refused
 *   (INVALID_TXN_STATE) unless AddPartitionsToTxn added its partition, and TxnOffsetCommit
 *   unless AddOffsetsToTxn added its group. On 2, Produce v12+ and TxnOffsetCommit v5+ add
 *   them implicitly. EndTxn v5 bumps the epoch (the response carries the new one) whatever
 *   the cluster's version, as Kafka's does: a client sends v5 only on version 2.
 * - EndTxn: commit makes the transaction's batches visible (`committedLog`) and its
 *   offsets the group's committed offsets; abort drops both. A retry of the EndTxn that
 *   completed the transaction (same decision; on version 2 with the previous epoch) is
 *   answered NONE again, as Kafka does; the other decision gets INVALID_TXN_STATE.
 * - Epochs: a request with an older epoch than the entry's → PRODUCER_FENCED
 *   (INVALID_PRODUCER_EPOCH on Produce and below InitProducerId v4).
 * - Timeout: an Ongoing transaction older than its transactionTimeoutMs is aborted by the
 *   coordinator (checked on every request about that id and by `expireTransactions()`),
 *   with an epoch bump, so the late producer is fenced.
 *
 * Not modelled: control batches in the partition logs (read_committed is answered by
 * `committedLog`, not by Fetch), the last stable offset, and coordinator movement other
 * than by `setTransactionCoordinator`.
 */
import { ErrorCode } from './error-codes'
import type { GroupCoordinator } from './groups'
import type { ClusterState } from './state'

/** A transactional id's state at the fake coordinator: no transaction yet, one open, or the last one committed or aborted. */
export type TransactionStateName = 'Empty' | 'Ongoing' | 'CompleteCommit' | 'CompleteAbort'

/** The fake coordinator's entry of a transactional id (`cluster.transaction()`): its producer, state and open transaction. */
export interface TransactionEntry {
  /** The transactional id. */
  transactionalId: string
  /** The producer id it holds. */
  producerId: bigint
  /** The producer epoch. */
  epoch: number
  /** The transaction's state. */
  state: TransactionStateName
  /** The transaction timeout the producer set, in ms. */
  timeoutMs: number
  /** Date.now() when the open transaction began (0 before the first). */
  startedAt: number
  /** The partitions in the open transaction, as 'topic-partition'. */
  partitions: Set<string>
  /** The groups whose offsets are in the open transaction. */
  groups: Set<string>
  /** groupId → partition key → offset, stored on commit. */
  pendingOffsets: Map<string, Map<string, {
    /** The partition's topic. */
    topic: string
    /** The partition. */
    partition: number
    /** The offset to commit. */
    offset: bigint
    /** The leader epoch sent with it (-1 when none was). */
    leaderEpoch: number
    /** The metadata sent with it. */
    metadata: string
  }>>
  /** The epoch that completed the last transaction (for retries of its EndTxn). */
  lastEndEpoch: number
  /** The epoch a timeout abort moved on from (KIP-588: InitProducerId with it gets the next one). */
  timedOutEpoch?: number
}

/** One thing the fake transaction coordinator did (`cluster.transactionEvents()`), for debugging a test. */
export interface TransactionEvent {
  /** Date.now() when it happened. */
  at: number
  /** The transactional id it concerns. */
  transactionalId: string
  /** What happened, for people. */
  line: string
}

/** A transactional batch in a partition log: its offsets and what became of it. */
interface TransactionalRange {
  producerId: bigint
  firstOffset: bigint
  lastOffset: bigint
  status: 'ongoing' | 'committed' | 'aborted'
}

const ERROR = {
  INVALID_TXN_STATE: 48,
  CONCURRENT_TRANSACTIONS: 51,
  PRODUCER_FENCED: ErrorCode.PRODUCER_FENCED,
  INVALID_PRODUCER_EPOCH: ErrorCode.INVALID_PRODUCER_EPOCH,
  INVALID_PRODUCER_ID_MAPPING: 49,
  NOT_COORDINATOR: 16
} as const

export class TransactionCoordinator {
  readonly #state: ClusterState
  readonly #groups: GroupCoordinator
  readonly #entries = new Map<string, TransactionEntry>()
  readonly #byProducerId = new Map<bigint, TransactionEntry>()
  /** topic-partition → transactional batches, in offset order. */
  readonly #ranges = new Map<string, TransactionalRange[]>()
  readonly #coordinators = new Map<string, number>()
  transactionVersion: 1 | 2
  readonly events: TransactionEvent[] = []

  constructor (state: ClusterState, groups: GroupCoordinator, transactionVersion: 1 | 2) {
    this.#state = state
    this.#groups = groups
    this.transactionVersion = transactionVersion
  }

  // ---------------------------------------------------------------- coordinators

  coordinatorFor (transactionalId: string): number {
    return this.#coordinators.get(transactionalId) ?? this.#groups.coordinatorFor(transactionalId)
  }

  setCoordinator (transactionalId: string, nodeId: number): void {
    if (this.#state.broker(nodeId) === undefined) throw new Error(`setTransactionCoordinator: no broker ${nodeId}`)
    this.#coordinators.set(transactionalId, nodeId)
  }

  entry (transactionalId: string): TransactionEntry | undefined {
    return this.#entries.get(transactionalId)
  }

  #event (transactionalId: string, line: string): void {
    this.events.push({ at: Date.now(), transactionalId, line })
  }

  /** Aborts every Ongoing transaction past its timeout, bumping its epoch (as Kafka's abort of expired transactions). */
  expireTransactions (now = Date.now()): void {
    for (const entry of this.#entries.values()) {
      if (entry.state === 'Ongoing' && now - entry.startedAt > entry.timeoutMs) {
        this.#complete(entry, false)
        // KIP-588: the producer may come back with the epoch it had (InitProducerId) and get the next one.
        entry.timedOutEpoch = entry.epoch
        entry.epoch++
        entry.lastEndEpoch = -1
        this.#event(entry.transactionalId, `timed out after ${entry.timeoutMs} ms: aborted, epoch bumped to ${entry.epoch}`)
      }
    }
  }

  // ---------------------------------------------------------------- requests

  initProducerId (brokerId: number, version: number, request: { transactionalId: string, transactionTimeoutMs: number, producerId: bigint, producerEpoch: number }): { errorCode: number, producerId: bigint, producerEpoch: number } {
    if (this.coordinatorFor(request.transactionalId) !== brokerId) return { errorCode: ERROR.NOT_COORDINATOR, producerId: -1n, producerEpoch: -1 }
    this.expireTransactions()
    let entry = this.#entries.get(request.transactionalId)
    if (entry === undefined) {
      const fresh = this.#state.newProducerId(0)
      entry = {
        transactionalId: request.transactionalId,
        producerId: fresh.producerId,
        epoch: 0,
        state: 'Empty',
        timeoutMs: request.transactionTimeoutMs,
        startedAt: 0,
        partitions: new Set(),
        groups: new Set(),
        pendingOffsets: new Map(),
        lastEndEpoch: -1
      }
      this.#entries.set(entry.transactionalId, entry)
      this.#byProducerId.set(entry.producerId, entry)
      this.#event(entry.transactionalId, `InitProducerId: new producer id ${entry.producerId} epoch 0`)
      return { errorCode: ErrorCode.NONE, producerId: entry.producerId, producerEpoch: 0 }
    }
    const recovering = request.producerId === entry.producerId && request.producerEpoch === entry.timedOutEpoch
    if (request.producerId >= 0n && !recovering && (request.producerId !== entry.producerId || request.producerEpoch !== entry.epoch)) {
      return { errorCode: version >= 4 ? ERROR.PRODUCER_FENCED : ERROR.INVALID_PRODUCER_EPOCH, producerId: -1n, producerEpoch: -1 }
    }
    if (entry.state === 'Ongoing') {
      this.#complete(entry, false)
      this.#event(entry.transactionalId, 'InitProducerId: the ongoing transaction of the previous instance is aborted')
    }
    entry.epoch++
    entry.lastEndEpoch = -1
    entry.timedOutEpoch = undefined
    entry.timeoutMs = request.transactionTimeoutMs
    entry.state = 'Empty'
    this.#event(entry.transactionalId, `InitProducerId: producer id ${entry.producerId} epoch ${entry.epoch} (older instances fenced)`)
    return { errorCode: ErrorCode.NONE, producerId: entry.producerId, producerEpoch: entry.epoch }
  }

  /** The common checks of AddPartitionsToTxn/AddOffsetsToTxn/EndTxn: coordinator, id mapping, epoch. */
  #check (brokerId: number, transactionalId: string, producerId: bigint, producerEpoch: number): { errorCode: number, entry?: TransactionEntry } {
    if (this.coordinatorFor(transactionalId) !== brokerId) return { errorCode: ERROR.NOT_COORDINATOR }
    this.expireTransactions()
    const entry = this.#entries.get(transactionalId)
    if (entry === undefined || entry.producerId !== producerId) return { errorCode: ERROR.INVALID_PRODUCER_ID_MAPPING }
    if (producerEpoch < entry.epoch) return { errorCode: ERROR.PRODUCER_FENCED, entry }
    if (producerEpoch > entry.epoch) return { errorCode: ERROR.INVALID_PRODUCER_EPOCH, entry }
    return { errorCode: ErrorCode.NONE, entry }
  }

  #begin (entry: TransactionEntry): void {
    if (entry.state === 'Ongoing') return
    entry.state = 'Ongoing'
    entry.startedAt = Date.now()
    entry.partitions.clear()
    entry.groups.clear()
    entry.pendingOffsets.clear()
  }

  addPartitions (brokerId: number, transactionalId: string, producerId: bigint, producerEpoch: number, partitions: Array<{ topic: string, partition: number }>): Map<string, number> {
    const { errorCode, entry } = this.#check(brokerId, transactionalId, producerId, producerEpoch)
    const codes = new Map<string, number>()
    for (const p of partitions) {
      const key = `${p.topic}-${p.partition}`
      if (errorCode !== ErrorCode.NONE) codes.set(key, errorCode)
      else if (this.#state.partition(p.topic, p.partition) === undefined) codes.set(key, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
      else codes.set(key, ErrorCode.NONE)
    }
    if (errorCode === ErrorCode.NONE && [...codes.values()].every(c => c === ErrorCode.NONE)) {
      this.#begin(entry!)
      for (const key of codes.keys()) entry!.partitions.add(key)
      this.#event(transactionalId, `AddPartitionsToTxn ${[...codes.keys()].join(', ')}`)
    } else if (errorCode === ErrorCode.NONE) {
      // Kafka adds none when one fails: the others get OPERATION_NOT_ATTEMPTED.
      for (const [key, code] of codes) if (code === ErrorCode.NONE) codes.set(key, ErrorCode.OPERATION_NOT_ATTEMPTED)
    }
    return codes
  }

  addOffsets (brokerId: number, transactionalId: string, producerId: bigint, producerEpoch: number, groupId: string): number {
    const { errorCode, entry } = this.#check(brokerId, transactionalId, producerId, producerEpoch)
    if (errorCode !== ErrorCode.NONE) return errorCode
    this.#begin(entry!)
    entry!.groups.add(groupId)
    this.#event(transactionalId, `AddOffsetsToTxn ${groupId}`)
    return ErrorCode.NONE
  }

  /**
   * TxnOffsetCommit at the group coordinator: the member check (KIP-447) and the group's
   * place in the transaction; the offsets are kept until the transaction ends.
   */
  txnOffsetCommit (brokerId: number, version: number, request: {
    transactionalId: string
    groupId: string
    producerId: bigint
    producerEpoch: number
    generationIdOrMemberEpoch: number
    memberId: string
    groupInstanceId: string | null
    offsets: Array<{ topic: string, partition: number, offset: bigint, leaderEpoch: number, metadata: string | null }>
  }): number {
    if (this.#groups.coordinatorFor(request.groupId) !== brokerId) return ERROR.NOT_COORDINATOR
    this.expireTransactions()
    const entry = this.#byProducerId.get(request.producerId)
    if (entry === undefined || entry.transactionalId !== request.transactionalId) return ERROR.INVALID_PRODUCER_ID_MAPPING
    if (request.producerEpoch < entry.epoch) return ERROR.PRODUCER_FENCED
    if (request.producerEpoch > entry.epoch) return ERROR.INVALID_PRODUCER_EPOCH
    const implicit = this.transactionVersion === 2 && version >= 5
    if (!implicit && (entry.state !== 'Ongoing' || !entry.groups.has(request.groupId))) return ERROR.INVALID_TXN_STATE
    if (version >= 3 && (request.memberId !== '' || request.generationIdOrMemberEpoch >= 0)) {
      const invalid = this.#groups.validateMembership(brokerId, request.groupId, request.memberId, request.generationIdOrMemberEpoch, request.groupInstanceId)
      if (invalid !== ErrorCode.NONE) return invalid
    }
    this.#begin(entry)
    entry.groups.add(request.groupId)
    let pending = entry.pendingOffsets.get(request.groupId)
    if (pending === undefined) entry.pendingOffsets.set(request.groupId, pending = new Map())
    for (const o of request.offsets) pending.set(`${o.topic}-${o.partition}`, { ...o, metadata: o.metadata ?? '' })
    this.#event(entry.transactionalId, `TxnOffsetCommit ${request.groupId}: ${request.offsets.map(o => `${o.topic}-${o.partition}@${o.offset}`).join(', ')}`)
    return ErrorCode.NONE
  }

  endTxn (brokerId: number, version: number, request: { transactionalId: string, producerId: bigint, producerEpoch: number, committed: boolean }): { errorCode: number, producerId: bigint, producerEpoch: number } {
    const none = { producerId: -1n, producerEpoch: -1 }
    if (this.coordinatorFor(request.transactionalId) !== brokerId) return { errorCode: ERROR.NOT_COORDINATOR, ...none }
    this.expireTransactions()
    const entry = this.#entries.get(request.transactionalId)
    if (entry === undefined || entry.producerId !== request.producerId) return { errorCode: ERROR.INVALID_PRODUCER_ID_MAPPING, ...none }
    // As Kafka: the request's version says the client speaks transaction version 2 (it sends v5 only when it is finalized).
    const v2 = version >= 5
    const completed = request.committed ? 'CompleteCommit' : 'CompleteAbort'
    // A retry of the EndTxn that completed the transaction: the same answer again.
    if (entry.state === completed && request.producerEpoch === entry.lastEndEpoch) {
      this.#event(entry.transactionalId, `EndTxn retry (${request.committed ? 'commit' : 'abort'}) answered again`)
      return { errorCode: ErrorCode.NONE, producerId: v2 ? entry.producerId : -1n, producerEpoch: v2 ? entry.epoch : -1 }
    }
    if (request.producerEpoch < entry.epoch) return { errorCode: ERROR.PRODUCER_FENCED, ...none }
    if (request.producerEpoch > entry.epoch) return { errorCode: ERROR.INVALID_PRODUCER_EPOCH, ...none }
    if (entry.state !== 'Ongoing') {
      // Nothing was added: Kafka accepts an abort of an empty transaction, not a commit after an abort.
      if (!request.committed && entry.state !== 'CompleteCommit') {
        entry.lastEndEpoch = entry.epoch
        if (v2) entry.epoch++
        entry.state = 'CompleteAbort'
        this.#event(entry.transactionalId, `EndTxn abort of an empty transaction${v2 ? `, epoch bumped to ${entry.epoch}` : ''}`)
        return { errorCode: ErrorCode.NONE, producerId: v2 ? entry.producerId : -1n, producerEpoch: v2 ? entry.epoch : -1 }
      }
      return { errorCode: ERROR.INVALID_TXN_STATE, ...none }
    }
    this.#complete(entry, request.committed)
    entry.lastEndEpoch = entry.epoch
    if (v2) entry.epoch++
    this.#event(entry.transactionalId, `EndTxn ${request.committed ? 'commit' : 'abort'}${v2 ? `, epoch bumped to ${entry.epoch}` : ''}`)
    return { errorCode: ErrorCode.NONE, producerId: v2 ? entry.producerId : -1n, producerEpoch: v2 ? entry.epoch : -1 }
  }

  /**
   * Produce of a transactional batch, before the append: the producer's epoch, and the
   * partition's place in the transaction (added implicitly on version 2 with Produce v12+).
   */
  checkTransactionalProduce (topic: string, partition: number, producerId: bigint, producerEpoch: number, produceVersion: number): number {
    this.expireTransactions()
    const entry = this.#byProducerId.get(producerId)
    if (entry === undefined) return ERROR.INVALID_PRODUCER_ID_MAPPING
    if (producerEpoch < entry.epoch) return ERROR.INVALID_PRODUCER_EPOCH
    if (producerEpoch > entry.epoch) return ERROR.INVALID_PRODUCER_EPOCH
    const key = `${topic}-${partition}`
    if (this.transactionVersion === 2 && produceVersion >= 12) {
      this.#begin(entry)
      entry.partitions.add(key)
      return ErrorCode.NONE
    }
    if (entry.state !== 'Ongoing' || !entry.partitions.has(key)) return ERROR.INVALID_TXN_STATE
    return ErrorCode.NONE
  }

  /** Produce appended a transactional batch. */
  onTransactionalAppend (topic: string, partition: number, producerId: bigint, firstOffset: bigint, lastOffset: bigint): void {
    const key = `${topic}-${partition}`
    let list = this.#ranges.get(key)
    if (list === undefined) this.#ranges.set(key, list = [])
    list.push({ producerId, firstOffset, lastOffset, status: 'ongoing' })
  }

  #complete (entry: TransactionEntry, commit: boolean): void {
    for (const key of entry.partitions) {
      for (const range of this.#ranges.get(key) ?? []) {
        if (range.producerId === entry.producerId && range.status === 'ongoing') range.status = commit ? 'committed' : 'aborted'
      }
    }
    if (commit) {
      for (const [groupId, offsets] of entry.pendingOffsets) {
        for (const o of offsets.values()) this.#groups.offsets.put(groupId, o.topic, o.partition, { offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, committedAt: Date.now() })
      }
    }
    entry.pendingOffsets.clear()
    entry.state = commit ? 'CompleteCommit' : 'CompleteAbort'
  }

  /** What read_committed shows of an offset: visible (non-transactional or committed), pending, or aborted. */
  statusOf (topic: string, partition: number, offset: bigint): 'visible' | 'ongoing' | 'aborted' {
    for (const range of this.#ranges.get(`${topic}-${partition}`) ?? []) {
      if (offset >= range.firstOffset && offset <= range.lastOffset) return range.status === 'committed' ? 'visible' : range.status
    }
    return 'visible'
  }
}

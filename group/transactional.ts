/**
 * The consume-transform-produce loop, exactly once (KIP-447, franz-go's GroupTransactSession):
 *
 *   batch of an owned partition → beginTransaction → eachBatch(batch, tx) sends the output
 *   → sendOffsets(batch end, the member's group metadata) → commitTransaction → finish
 *
 * Rules:
 * - One transaction per batch; the batch counts as processed (finish) only after its
 *   transaction committed, so the group consumer's own commits never go past what a
 *   transaction committed.
 * - A batch out with the application is "processing": a revoke waits for it (bounded by
 *   the rebalance timeout), so the partition is not handed to another member meanwhile.
 *   If the ownership was released anyway (the revoke gave up waiting, or the member was
 *   fenced and lost everything), the transaction is aborted, not committed, and the reason
 *   says which: nothing of it becomes visible, and the next owner starts from the offsets
 *   committed before it (it waits for them: OffsetFetch requireStable). The offsets go
 *   under the membership the partition is stamped with when they are sent (invariant 2):
 *   an epoch bump on a partition the member keeps re-stamps it and aborts nothing.
 * - A TxnOffsetCommit refused because the member was fenced (ILLEGAL_GENERATION,
 *   UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, a stale epoch) is abortable: abort, rewind, go on.
 * - After any abort, and when no transaction could begin, the partition is rewound to the
 *   batch's first offset, so the batch is read again (by this member if it still owns it).
 *   A batch is never finished as processed without the transaction that carried it.
 * - A fatal producer error (fenced by another instance of the transactional id, an EndTxn
 *   whose outcome is unknown) ends the loop with that error itself, a TransactionFatalError
 *   (a fence reaching eachBatch as a SendError is unwrapped, the send's per-record
 *   `outcomes` attached); a throwing eachBatch ends it too, after its transaction was aborted.
 * - The input offsets are committed only inside the transactions (invariant 8): the loop
 *   first turns the consumer's own committing off for good (no timer, revoke or close
 *   commit), since an ordinary OffsetCommit landing between a TxnOffsetCommit and its COMMIT
 *   marker makes the coordinator keep the older offset, and a crash then duplicates output.
 * - A batch handed out while the membership is changing (a rebalance in progress) goes back
 *   before any transaction begins, and the loop waits for the rebalance to end: handing it
 *   out again at once would spin (and a revoke would wait for it).
 * - `signal` stops taking batches; the batch in hand finishes its transaction, unless
 *   `stop: 'abort-batch'` asked for its transaction to be aborted at once.
 */
import type { ConsumerBatch } from '../consumer/consumer'
import type { Producer, ProducerBytes, TransactionScope } from '../producer/producer'
import { TransactionFatalError } from '../producer/transaction'
import { SendError } from '../producer/errors'
import { checkFunction, checkKnownKeys, checkObject, checkOneOf, checkSignal, describeValue, optionKeys } from '../client/validate'
import { AbortedError } from '../client/errors'
import { groupConsumerInternals, type GroupConsumer, type GroupConsumerInternals } from './group-consumer'
import type { TransactionAbortedEvent } from './group-events'

/** Options of `runTransactional(consumer, producer, options)`: the handler each batch's transaction runs, the signal that stops the loop, and what stopping does to the batch in hand. */
export interface TransactionalRunOptions<K = Buffer, V = Buffer, PK = ProducerBytes, PV = ProducerBytes> {
  /** Transforms one batch: send its output with `tx.send` / `tx.produce`. Throwing aborts the batch's transaction and ends the loop. */
  eachBatch: (batch: ConsumerBatch<K, V>, tx: TransactionScope<PK, PV>) => Promise<void> | void
  /**
   * Stops the loop: no batch is taken after it aborts, and the loop resolves once the batch
   * in hand is done. By default that batch finishes: its transaction commits (see `stop`).
   */
  signal?: AbortSignal
  /**
   * What `signal` does to the batch in hand: 'finish-batch' (default) lets its transaction
   * run to its commit (the calls in it are not cut short), 'abort-batch' cuts them short and
   * aborts the transaction (the batch is read again by whoever owns the partition next).
   */
  stop?: 'finish-batch' | 'abort-batch'
}

const TRANSACTIONAL_RUN_OPTION_KEYS = optionKeys<TransactionalRunOptions>()(['eachBatch', 'signal', 'stop'])

/** What `runTransactional` did, once it resolved: transactions committed and aborted. */
export interface TransactionalStats {
  /** Transactions committed: batches whose output and offsets became visible together. */
  committed: number
  /** Transactions aborted: their batches were read again. */
  aborted: number
}

const WHERE = 'runTransactional option'

/**
 * Runs the exactly-once loop until the consumer closes or `signal` aborts. The producer
 * must be transactional (`transactionalId`), the consumer a group member reading with
 * `isolation: 'read_committed'` (what it reads is then only committed output of upstream
 * transactions) and delivering at-least-once. From the first call on, the consumer commits
 * its offsets only inside the loop's transactions (nothing on a timer, at a revoke or at
 * close). Resolves with how many transactions committed and aborted.
 */
export async function runTransactional<K = Buffer, V = Buffer, PK = ProducerBytes, PV = ProducerBytes> (consumer: GroupConsumer<K, V>, producer: Producer<PK, PV>, options: TransactionalRunOptions<K, V, PK, PV>): Promise<TransactionalStats> {
  checkObject('runTransactional', 'options', options)
  checkKnownKeys(WHERE, options, TRANSACTIONAL_RUN_OPTION_KEYS, { eachMessage: 'eachBatch', eachRecord: 'eachBatch' })
  checkFunction(WHERE, 'eachBatch', options.eachBatch)
  if (options.signal !== undefined) checkSignal(WHERE, 'signal', options.signal)
  checkOneOf(WHERE, 'stop', options.stop, ['finish-batch', 'abort-batch'])
  const given = typeof consumer === 'object' && consumer !== null ? groupConsumerInternals(consumer) as Partial<GroupConsumerInternals> | undefined : undefined
  if (typeof given?.commitInTransactions !== 'function') throw new TypeError(`runTransactional needs a group consumer (client.consumer({ groupId, topics })), got ${describeValue(consumer)}`)
  if (producer.transactionState === undefined) throw new TypeError('runTransactional needs a transactional producer: client.producer({ transactionalId })')
  const stats: TransactionalStats = { committed: 0, aborted: 0 }
  const signal = options.signal
  const stopped = (): boolean => signal?.aborted === true
  // What cuts the calls of a transaction short: only an 'abort-batch' stop.
  const cut = options.stop === 'abort-batch' ? signal : undefined
  // Invariant 8, before the first batch: from here on the consumer commits nothing itself (refuses at-most-once).
  await groupConsumerInternals(consumer).commitInTransactions()
  for (;;) {
    // A stop takes no batch, even one already fetched.
    if (stopped()) return stats
    let handed
    try {
      handed = await groupConsumerInternals(consumer).nextBatch(signal)
    } catch (error) {
      if (error instanceof AbortedError && stopped()) return stats
      throw error
    }
    if (handed === undefined) return stats
    const { cursor } = handed
    const batch = handed.batch as ConsumerBatch<K, V>
    const ownership = cursor.ownership
    const first = batch.records[0]?.offset
    if (first === undefined) {
      // Nothing but control records or aborted data: there is nothing to transform.
      handed.finish()
      continue
    }
    /** Hands the batch back unprocessed: read again if the partition is still ours; a released one is the next owner's. */
    const giveBack = (): void => {
      if (!ownership.released && groupConsumerInternals(consumer).cursor(batch.topic, batch.partition) === cursor) consumer.seek({ topic: batch.topic, partition: batch.partition, offset: first })
      handed.finish(null)
    }
    const rewind = (reason: string): void => {
      stats.aborted++
      consumer.emit('transactionAborted', { topic: batch.topic, partition: batch.partition, firstOffset: first, nextOffset: batch.nextOffset, reason } satisfies TransactionAbortedEvent)
      giveBack()
    }
    const group = consumer.groupMetadata()
    if (group === undefined || ownership.released || group.memberId !== ownership.memberId || group.generationId !== ownership.generation) {
      // A rebalance is in progress (or the partition left us): no transaction began, nothing
      // is aborted. The batch goes back, and the loop waits for the membership to settle
      // rather than take it again at once, which would spin for as long as the rebalance lasts.
      giveBack()
      await groupConsumerInternals(consumer).untilMember(signal)
      continue
    }
    try {
      await producer.beginTransaction({ signal })
    } catch (error) {
      // Not processed: finishing it as done moved the partition past records no transaction carried.
      giveBack()
      if (stopped()) return stats
      throw error
    }
    let failure: unknown
    let reason: string | undefined
    try {
      await options.eachBatch(batch, scopeOf(producer))
      // The offsets go under the membership the partition is held under now (its epoch
      // confirmed anew by a KIP-848 bump it was kept through), not the one the batch began
      // under: only a real revoke or loss (a fence) aborts.
      const under = groupConsumerInternals(consumer).transactionMetadataOf(cursor)
      if (typeof under === 'string') reason = `${under} during the transaction`
      else {
        await producer.sendOffsets({ groupMetadata: under, offsets: [{ topic: batch.topic, partition: batch.partition, offset: batch.nextOffset, leaderEpoch: cursor.lastFetchedEpoch }], signal: cut })
        // The franz-go rule: a partition lost while the transaction ran must not see it commit.
        const after = groupConsumerInternals(consumer).transactionMetadataOf(cursor)
        if (typeof after === 'string') reason = `${after} while its offsets were sent`
      }
      if (reason === undefined) {
        await producer.commitTransaction({ signal: cut })
        stats.committed++
        handed.finish()
        continue
      }
    } catch (error) {
      failure = error
      // The caller's own stop is named as such, not as what the call it cut short was waiting for.
      reason = stopped() && causedByAbort(error, signal!) ? 'stopped by the caller: runTransactional\'s signal aborted while the transaction ran' : (error as Error).message
    }
    let abortFailure: unknown
    if (producer.transactionState === 'inTransaction' || producer.transactionState === 'abortableError') {
      try {
        await producer.abortTransaction()
      } catch (abortError) {
        abortFailure = abortError
        failure ??= abortError
      }
    }
    rewind(reason ?? 'aborted')
    if (failure === undefined) continue
    // Abortable failures of the transaction itself (a fenced member's offsets, a failed send) are retried with the next read.
    if (stopped()) return stats
    // A fence reaches eachBatch as a SendError of its records: the loop ends with the fence itself, catchable by type.
    // Or the abort found it: a timed-out transaction's re-init answered that another producer took over (KIP-588).
    const fatal = fatalErrorOf(failure) ?? fatalErrorOf(abortFailure)
    if (fatal !== undefined) {
      if (failure instanceof SendError) fatal.outcomes = failure.outcomes
      throw fatal
    }
    const fromApplication = !(failure instanceof Error && 'kind' in failure)
    if (producer.transactionState === 'fatalError' || fromApplication) throw failure
  }
}

/**
 * The TransactionFatalError behind `failure`: itself, or the one a SendError's records
 * failed with, or one in its causes.
 */
function fatalErrorOf (failure: unknown): TransactionFatalError | undefined {
  if (failure instanceof SendError) {
    const fatal = failure.errors.map(({ error }) => error).find(error => error instanceof TransactionFatalError) as TransactionFatalError | undefined
    if (fatal !== undefined) return fatal
  }
  for (let e = failure, depth = 0; e !== undefined && e !== null && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TransactionFatalError) return e
  }
  return undefined
}

/** Whether `error` (or an error it was caused by) is the abort of `signal`. */
function causedByAbort (error: unknown, signal: AbortSignal): boolean {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e === signal.reason || e instanceof AbortedError) return true
  }
  return false
}

function scopeOf<K, V> (producer: Producer<K, V>): TransactionScope<K, V> {
  return {
    send: producer.send.bind(producer) as Producer<K, V>['send'],
    produce: producer.produce.bind(producer),
    sendOffsets: async offsets => await producer.sendOffsets(offsets)
  }
}

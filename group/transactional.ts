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
 *   fenced and lost everything), or the member's identity moved on, the transaction is
 *   aborted, not committed: nothing of it becomes visible, and the next owner starts from
 *   the offsets committed before it (it waits for them: OffsetFetch requireStable).
 * - A TxnOffsetCommit refused because the member was fenced (ILLEGAL_GENERATION,
 *   UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, a stale epoch) is abortable: abort, rewind, go on.
 * - After any abort, and when no transaction could begin, the partition is rewound to the
 *   batch's first offset, so the batch is read again (by this member if it still owns it).
 *   A batch is never finished as processed without the transaction that carried it.
 * - A fatal producer error (fenced by another instance of the transactional id, an EndTxn
 *   whose outcome is unknown) ends the loop with that error; so does a throwing eachBatch,
 *   after its transaction was aborted.
 */
import type { ConsumerBatch } from '../consumer/consumer'
import type { Producer, TransactionScope } from '../producer/producer'
import { TransactionFatalError } from '../producer/transaction'
import { checkFunction, checkKnownKeys, checkObject, checkSignal, optionKeys } from '../client/validate'
import { AbortedError } from '../client/errors'
import type { GroupConsumer } from './group-consumer'

export interface TransactionalRunOptions {
  /** Transforms one batch: send its output with `tx.send` / `tx.produce`. Throwing aborts the batch's transaction and ends the loop. */
  eachBatch: (batch: ConsumerBatch, tx: TransactionScope) => Promise<void> | void
  /** Stops the loop (the open transaction, if any, is aborted). */
  signal?: AbortSignal
}

const TRANSACTIONAL_RUN_OPTION_KEYS = optionKeys<TransactionalRunOptions>()(['eachBatch', 'signal'])

export interface TransactionalStats {
  committed: number
  aborted: number
}

/** Why a batch's transaction was aborted (the 'transactionAborted' event of the consumer). */
export interface TransactionAbortedEvent {
  topic: string
  partition: number
  firstOffset: bigint
  nextOffset: bigint
  reason: string
}

/**
 * Runs the exactly-once loop until the consumer closes or `signal` aborts. The producer
 * must be transactional (`transactionalId`), the consumer a group member reading with
 * `isolation: 'read_committed'` (what it reads is then only committed output of upstream
 * transactions). Resolves with how many transactions committed and aborted.
 */
export async function runTransactional (consumer: GroupConsumer, producer: Producer, options: TransactionalRunOptions): Promise<TransactionalStats> {
  checkObject('runTransactional', 'options', options)
  checkKnownKeys('runTransactional option', options, TRANSACTIONAL_RUN_OPTION_KEYS, { eachMessage: 'eachBatch', eachRecord: 'eachBatch' })
  checkFunction('runTransactional option', 'eachBatch', options.eachBatch)
  if (options.signal !== undefined) checkSignal('runTransactional option', 'signal', options.signal)
  if (producer.transactionState === undefined) throw new TypeError('runTransactional needs a transactional producer: client.producer({ transactionalId })')
  const stats: TransactionalStats = { committed: 0, aborted: 0 }
  const signal = options.signal
  for (;;) {
    let handed
    try {
      handed = await consumer.nextBatch(signal)
    } catch (error) {
      if (error instanceof AbortedError && signal?.aborted === true) return stats
      throw error
    }
    if (handed === undefined) return stats
    const { batch, cursor } = handed
    const ownership = cursor.ownership
    const first = batch.records[0]?.offset
    if (first === undefined) {
      // Nothing but control records or aborted data: there is nothing to transform.
      handed.finish()
      continue
    }
    /** Hands the batch back unprocessed: read again if the partition is still ours; a released one is the next owner's. */
    const giveBack = (): void => {
      if (!ownership.released && consumer.cursor(batch.topic, batch.partition) === cursor) consumer.seek({ topic: batch.topic, partition: batch.partition, offset: first })
      handed.finish(null)
    }
    const rewind = (reason: string): void => {
      stats.aborted++
      consumer.emit('transactionAborted', { topic: batch.topic, partition: batch.partition, firstOffset: first, nextOffset: batch.nextOffset, reason } satisfies TransactionAbortedEvent)
      giveBack()
    }
    const group = consumer.groupMetadata()
    if (group === undefined || ownership.released || group.memberId !== ownership.memberId || group.generationId !== ownership.generation) {
      rewind('the partition is not held under the current membership')
      continue
    }
    try {
      await producer.beginTransaction({ signal })
    } catch (error) {
      // Not processed: finishing it as done moved the partition past records no transaction carried.
      giveBack()
      if (signal?.aborted === true) return stats
      throw error
    }
    let failure: unknown
    let reason: string | undefined
    try {
      await options.eachBatch(batch, scopeOf(producer))
      if (ownership.released) reason = 'the partition was revoked or lost during the transaction'
      else {
        await producer.sendOffsets({ groupMetadata: group, offsets: [{ topic: batch.topic, partition: batch.partition, offset: batch.nextOffset, leaderEpoch: cursor.lastFetchedEpoch }], signal })
        // The franz-go rule: a partition lost while the transaction ran must not see it commit.
        if (ownership.released) reason = 'the partition was revoked or lost during the transaction'
        else if (consumer.groupMetadata()?.memberId !== group.memberId) reason = 'the member was fenced and rejoined during the transaction'
      }
      if (reason === undefined) {
        await producer.commitTransaction({ signal })
        stats.committed++
        handed.finish()
        continue
      }
    } catch (error) {
      failure = error
      reason = (error as Error).message
    }
    if (producer.transactionState === 'inTransaction' || producer.transactionState === 'abortableError') {
      try {
        await producer.abortTransaction()
      } catch (abortError) {
        failure ??= abortError
      }
    }
    rewind(reason ?? 'aborted')
    if (failure === undefined) continue
    // Abortable failures of the transaction itself (a fenced member's offsets, a failed send) are retried with the next read.
    const fatal = failure instanceof TransactionFatalError || producer.transactionState === 'fatalError'
    const fromApplication = !(failure instanceof Error && 'kind' in failure)
    if (signal?.aborted === true) return stats
    if (fatal || fromApplication) throw failure
  }
}

function scopeOf (producer: Producer): TransactionScope {
  return {
    send: producer.send.bind(producer) as Producer['send'],
    produce: producer.produce.bind(producer),
    sendOffsets: async offsets => await producer.sendOffsets(offsets)
  }
}

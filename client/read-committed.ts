/**
 * read_committed filtering: drops batches of aborted transactions and all control
 * batches, using the aborted-transaction list the Fetch response carries (KIP-98).
 *
 * The list names, per producer, the first offset of each aborted transaction in the
 * fetched range. Walking batches in offset order, a producer becomes "aborting" once we
 * reach its transaction's first offset, and stops being so at its ABORT marker; its
 * transactional batches in between are dropped.
 */
import type { RecordBatch } from '../protocol/record-batch'

export interface AbortedTransaction {
  producerId: bigint
  firstOffset: bigint
}

export function dropAbortedAndControl (batches: RecordBatch[], aborted: AbortedTransaction[] | null): RecordBatch[] {
  const pending = aborted === null ? [] : [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0))
  let next = 0
  const aborting = new Set<bigint>()
  const kept: RecordBatch[] = []
  for (const batch of batches) {
    while (next < pending.length && pending[next].firstOffset <= batch.baseOffset + BigInt(batch.lastOffsetDelta)) {
      aborting.add(pending[next].producerId)
      next++
    }
    if (batch.isControl) {
      if (batch.controlRecord?.type === 'abort') aborting.delete(batch.producerId)
      continue
    }
    if (batch.isTransactional && aborting.has(batch.producerId)) continue
    kept.push(batch)
  }
  return kept
}

/** Drops control batches only (read_uncommitted still hides transaction markers from the application). */
export function dropControl (batches: RecordBatch[]): RecordBatch[] {
  return batches.some(b => b.isControl) ? batches.filter(b => !b.isControl) : batches
}

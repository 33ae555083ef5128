/**
 * read_committed filtering: drops batches of aborted transactions and all control
 * batches, using the aborted-transaction list the Fetch response carries (KIP-98).
 *
 * The list names, per producer, the first offset of each aborted transaction in the
 * fetched range. Walking batches in offset order, a producer becomes "aborting" once we
 * reach its transaction's first offset, and stops being so at its ABORT marker; its
 * transactional batches in between are dropped.
 */
import type { RecordBatch, ScannedBatch } from '../protocol/record-batch'

export interface AbortedTransaction {
  producerId: bigint
  firstOffset: bigint
}

/** Decoded batches, or scanned ones (their headers are all the filters read). */
type Batches = RecordBatch[] | ScannedBatch[]

const headerOf = (b: RecordBatch | ScannedBatch): RecordBatch => 'data' in b ? b.batch : b

export function dropAbortedAndControl<T extends Batches> (batches: T, aborted: AbortedTransaction[] | null): T {
  const pending = aborted === null ? [] : [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0))
  let next = 0
  const aborting = new Set<bigint>()
  const kept: Array<RecordBatch | ScannedBatch> = []
  for (const item of batches) {
    const batch = headerOf(item)
    while (next < pending.length && pending[next].firstOffset <= batch.baseOffset + BigInt(batch.lastOffsetDelta)) {
      aborting.add(pending[next].producerId)
      next++
    }
    if (batch.isControl) {
      if (batch.controlRecord?.type === 'abort') aborting.delete(batch.producerId)
      continue
    }
    if (batch.isTransactional && aborting.has(batch.producerId)) continue
    kept.push(item)
  }
  return (kept.length === batches.length ? batches : kept) as T
}

/** Drops control batches only (read_uncommitted still hides transaction markers from the application). */
export function dropControl<T extends Batches> (batches: T): T {
  const list: Array<RecordBatch | ScannedBatch> = batches
  return (list.some(b => headerOf(b).isControl) ? list.filter(b => !headerOf(b).isControl) : batches) as T
}

/**
 * Deleting records: DeleteRecords moves each partition's log start offset forward, sent
 * to each partition's leader. A target may be a timestamp, resolved through ListOffsets.
 */
import { DeleteRecords } from '../protocol/apis/delete-records'
import type { BrokerError } from '../protocol/errors'
import { byTopic, checkPartitions, partitionCodes } from './common'
import { listOffsets } from './offsets'
import { itemError, tpKey, type AdminCallOptions, type Router, type TopicPartitionKey } from './route'

/** One partition of `admin.deleteRecords()`: what to delete, from the start of the log. */
export interface RecordsToDelete extends TopicPartitionKey {
  /** Delete everything before this offset ('latest': everything), or before the first record at or after `timestamp`. */
  before: bigint | 'latest' | {
    /** A time in ms since the epoch (or a Date). */
    timestamp: bigint | number | Date
  }
}

/** One partition's answer to `admin.deleteRecords()`: its new log start offset, or its error. */
export interface DeletedRecords extends TopicPartitionKey {
  /** The partition's log start offset after the deletion. */
  lowWatermark: bigint
  /** The error when this partition's records could not be deleted; absent when they were. */
  error?: BrokerError
}

export async function deleteRecords (router: Router, partitions: RecordsToDelete[], options: AdminCallOptions = {}): Promise<DeletedRecords[]> {
  const deadline = router.deadline('deleteRecords', options)
  checkPartitions('deleteRecords', partitions)
  const call = { signal: options.signal, timeoutMs: router.timeLeft(deadline) }
  const byTime = partitions.filter(p => typeof p.before === 'object')
  const resolved = new Map<string, bigint>()
  const failed = new Map<string, BrokerError>()
  if (byTime.length > 0) {
    const found = await listOffsets(router, byTime.map(p => ({ topic: p.topic, partition: p.partition, spec: p.before as { timestamp: bigint } })), call)
    const ends = await listOffsets(router, byTime.map(p => ({ topic: p.topic, partition: p.partition, spec: 'latest' as const })), call)
    found.forEach((o, i) => {
      const key = tpKey(o.topic, o.partition)
      if (o.error !== undefined) failed.set(key, o.error)
      // No record at or after the time: everything is older, delete it all.
      else resolved.set(key, o.offset >= 0n ? o.offset : ends[i].offset)
    })
  }
  const items = partitions.filter(p => !failed.has(tpKey(p.topic, p.partition))).map(p => ({
    topic: p.topic,
    partition: p.partition,
    // -1 asks the leader for its high watermark.
    offset: p.before === 'latest' ? -1n : typeof p.before === 'bigint' ? p.before : resolved.get(tpKey(p.topic, p.partition))!
  }))
  for (const item of items) {
    if (typeof item.offset !== 'bigint') throw new TypeError(`deleteRecords: before of ${item.topic}-${item.partition} must be a bigint offset, 'latest' or { timestamp }`)
  }
  const lowWatermarks = new Map<string, bigint>()
  const codes = await router.leaders(items, deadline, options.signal, async (leader, group) => {
    const response = await router.client.request(DeleteRecords, {
      topics: [...byTopic(group)].map(([name, ps]) => ({ name, partitions: ps.map(p => ({ partitionIndex: p.partition, offset: p.offset })) })),
      timeoutMs: router.timeLeft(deadline)
    }, { nodeId: leader, signal: options.signal, timeoutMs: router.timeLeft(deadline) })
    return partitionCodes(response.topics, (key, _topic, p) => { lowWatermarks.set(key, p.lowWatermark) })
  })
  return partitions.map(p => {
    const key = tpKey(p.topic, p.partition)
    const error = failed.get(key) ?? itemError(codes.get(key) ?? -1, `Deleting records of ${p.topic}-${p.partition}`)
    return { topic: p.topic, partition: p.partition, lowWatermark: lowWatermarks.get(key) ?? -1n, error }
  })
}

/**
 * The one shape of the admin calls' answers (kadm's): a call that acts on many items (topics,
 * partitions, groups, resources, ACLs…) answers each item, with `error` (a BrokerError: Kafka's
 * code and name) when that item failed, and throws only for what fails as a whole (no broker
 * reached, its timeout, a request-level refusal). `throwFirstError` turns such an answer into
 * all-or-nothing for callers that want it.
 */
import type { BrokerError } from '../protocol/errors'

/** What every item of a per-item answer has: `error` when that item failed (the others succeeded). */
export interface ItemResult {
  /** The error when this item failed (Kafka's `code` and `type`); absent when it succeeded. */
  error?: BrokerError
}

/** The first item's error of a per-item answer, or undefined when every item succeeded. */
export function firstError (results: Iterable<ItemResult>): BrokerError | undefined {
  for (const result of results) if (result.error !== undefined) return result.error
  return undefined
}

/**
 * Throws the first item's error of a per-item answer (a BrokerError with its `code` and
 * `type`); returns the answer when every item succeeded, so a call reads
 * `throwFirstError(await admin.createTopics(topics))`.
 */
export function throwFirstError<T extends ItemResult> (results: T[]): T[] {
  const error = firstError(results)
  if (error !== undefined) throw error
  return results
}

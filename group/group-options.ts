/**
 * The options of a GroupConsumer, and the fail-fast checks of them and of its commit calls
 * (TypeError / RangeError naming the option).
 */
import { checkFetchOptions, CONSUMER_OPTION_HINTS, CONSUMER_OPTION_KEYS, type DeserializerOptions, type FetchOptions } from '../consumer/consumer'
import { checkBoolean, checkDuration, checkFunction, checkKnownKeys, checkObject, checkOneOf, checkSignal, checkString, describeValue, optionKeys } from '../client/validate'
import type { Assignor } from './assignors'
import type { TopicPartition } from './membership'

/** What a group consumer commits, and when: `'at-least-once'` (the default: what was processed, so a crash may hand a batch out again) or `'at-most-once'` (a batch's end before it is handed out, so a crash may skip it). */
export type DeliveryMode = 'at-least-once' | 'at-most-once'

export interface GroupConsumerOptions<K = Buffer, V = Buffer> extends FetchOptions, DeserializerOptions<K, V> {
  /** The consumer group to join. */
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
  /** How long a rebalance may take this member, in ms (default 60 s): a revoke waits for processing and commits within it. */
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
  /** Called, and awaited, with the partitions a rebalance added, once their start offsets are known; a throw becomes a 'warning'. */
  onAssigned?: (partitions: TopicPartition[]) => void | Promise<void>
  /** Called, and awaited, with the partitions a rebalance took away, once released (after their commit, with autoCommit); a throw becomes a 'warning'. */
  onRevoked?: (partitions: TopicPartition[]) => void | Promise<void>
  /** Called, and awaited, with the partitions lost without a revoke (a fence, an expired session), nothing of them committed; a throw becomes a 'warning'. */
  onLost?: (partitions: TopicPartition[]) => void | Promise<void>
}

export const WHERE = 'group consumer option'

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
export function checkGroupOptions (options: GroupConsumerOptions<unknown, unknown>): void {
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
export function checkCallOptions (call: string, options: { signal?: AbortSignal }): void {
  checkObject(call, 'options', options)
  checkKnownKeys(`${call} option`, options, ['signal'], { timeoutMs: 'signal (AbortSignal.timeout(ms))' })
  checkSignal(`${call} option`, 'signal', options.signal)
}


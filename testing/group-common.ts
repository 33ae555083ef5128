/**
 * What the classic and the consumer (KIP-848) groups share: the error codes the group
 * coordinator answers with, its configuration, and the environment a group runs in
 * (timers, the cluster's topics, the log).
 */
import type { ClusterState } from './state'
import type { GroupTimers } from './group-timers'

/** Kafka's error codes of the group APIs, by name (values are Kafka's). */
export const GroupError = {
  NONE: 0,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  OFFSET_METADATA_TOO_LARGE: 12,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  UNSUPPORTED_VERSION: 35,
  INVALID_REQUEST: 42,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  MEMBER_ID_REQUIRED: 79,
  FENCED_INSTANCE_ID: 82,
  UNKNOWN_TOPIC_ID: 100,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  UNSUPPORTED_ASSIGNOR: 112,
  STALE_MEMBER_EPOCH: 113,
  INVALID_REGULAR_EXPRESSION: 128
} as const

/** The fake group coordinator's settings (`FakeCluster.start({ groups })`, `cluster.configureGroups()`), as the broker configs they stand for. */
export interface GroupConfig {
  /** group.initial.rebalance.delay.ms (Kafka: 3000). Default 0: a new classic group's first join completes at once. */
  initialRebalanceDelayMs: number
  /** group.min.session.timeout.ms (Kafka: 6000). Default 1, so tests may use short sessions. */
  minSessionTimeoutMs: number
  /** group.max.session.timeout.ms (Kafka: 1800000). */
  maxSessionTimeoutMs: number
  /** How long a new classic member may wait in a join before its session can expire (Kafka: 300000). */
  newMemberJoinTimeoutMs: number
  /** group.consumer.heartbeat.interval.ms (Kafka: 5000), told to KIP-848 members. */
  consumerHeartbeatIntervalMs: number
  /** group.consumer.session.timeout.ms (Kafka: 45000): a KIP-848 member silent this long is fenced. */
  consumerSessionTimeoutMs: number
  /** offset.metadata.max.bytes (Kafka: 4096). */
  offsetMetadataMaxBytes: number
}

export const DEFAULT_GROUP_CONFIG: GroupConfig = {
  initialRebalanceDelayMs: 0,
  minSessionTimeoutMs: 1,
  maxSessionTimeoutMs: 1_800_000,
  newMemberJoinTimeoutMs: 300_000,
  consumerHeartbeatIntervalMs: 5000,
  consumerSessionTimeoutMs: 45_000,
  offsetMetadataMaxBytes: 4096
}

export interface GroupEnv {
  state: ClusterState
  timers: GroupTimers
  config: GroupConfig
  /** A line about what the coordinator did (kept in `cluster.groupEvents`). */
  event: (groupId: string, line: string) => void
}

/** A topic-partition as tests see it. */
export interface TopicPartition {
  /** The topic's name. */
  topic: string
  /** The partition's number. */
  partition: number
}

/** Sorts topic-partitions by topic name, then partition. */
export function sortPartitions<T extends TopicPartition> (list: T[]): T[] {
  return list.sort((a, b) => a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition)
}

/** The name with the most votes (a tie goes to the one voted for first), or `none` without votes: a group's protocol or server assignor. */
export function mostVoted<T> (names: Iterable<string>, none: T): string | T {
  const votes = new Map<string, number>()
  for (const name of names) votes.set(name, (votes.get(name) ?? 0) + 1)
  let best: string | T = none
  let bestVotes = 0
  for (const [name, count] of votes) {
    if (count > bestVotes) {
      best = name
      bestVotes = count
    }
  }
  return best
}

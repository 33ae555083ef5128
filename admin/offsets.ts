/**
 * Offsets: the log's (ListOffsets for many partitions at once, one request per leader)
 * and groups' committed ones (OffsetFetch v8+ for several groups per coordinator,
 * OffsetCommit as an admin, OffsetDelete), with kafka-consumer-groups.sh's resets and the
 * lag of a group.
 */
import { ListOffsets } from '../protocol/apis/list-offsets'
import { OffsetCommit } from '../protocol/apis/offset-commit'
import { OffsetDelete } from '../protocol/apis/offset-delete'
import { AlterShareGroupOffsets } from '../protocol/apis/alter-share-group-offsets'
import { DeleteShareGroupOffsets } from '../protocol/apis/delete-share-group-offsets'
import { DescribeShareGroupOffsets } from '../protocol/apis/describe-share-group-offsets'
import { OffsetFetch, type OffsetFetchResponsePartition } from '../protocol/apis/offset-fetch'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import type { Isolation } from '../client/client'
import { checkOneOf, checkString } from '../client/validate'
import { byTopic, checkPartitions, partitionCodes } from './common'
import { describeGroups } from './groups'
import { isCoordinatorMoved, itemError, Misrouted, throwIf, tpKey, type AdminCallOptions, type Router, type TopicPartitionKey } from './route'

const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

/** 'earliest' (log start), 'latest' (log end), 'max-timestamp' (the record with the largest timestamp, KIP-734), or the first offset at or after a time. */
export type LogOffsetSpec = 'earliest' | 'latest' | 'max-timestamp' | {
  /** The time, in ms since the epoch (or a Date): the first offset whose record's timestamp is at or after it. */
  timestamp: bigint | number | Date
}

/** One partition's answer to `admin.listOffsets()`: the offset (and its record's timestamp and leader epoch) the spec asked for. */
export interface ListedOffset extends TopicPartitionKey {
  /** -1 when no record matches (a timestamp after the last record). */
  offset: bigint
  /** The timestamp of the record at `offset` in ms since the epoch; -1 for 'earliest' and 'latest', or when no record matches. */
  timestamp: bigint
  /** The leader epoch of the record at `offset`; -1 when unknown. */
  leaderEpoch: number
  /** The error when this partition failed; absent when it succeeded. */
  error?: BrokerError
}

function specTimestamp (spec: LogOffsetSpec): bigint {
  if (spec === 'earliest') return -2n
  if (spec === 'latest') return -1n
  if (spec === 'max-timestamp') return -3n
  if (typeof spec !== 'object' || spec === null || !('timestamp' in spec)) {
    throw new TypeError(`listOffsets: spec must be 'earliest', 'latest', 'max-timestamp' or { timestamp }, got ${String(spec)}`)
  }
  return BigInt(spec.timestamp instanceof Date ? spec.timestamp.getTime() : spec.timestamp)
}

/** Offsets of many partitions at once: one ListOffsets per leader, leader moves retried. */
export async function listOffsets (router: Router, partitions: Array<TopicPartitionKey & { spec: LogOffsetSpec }>, options: AdminCallOptions & { isolation?: Isolation } = {}): Promise<ListedOffset[]> {
  const deadline = router.deadline('listOffsets', options, ['isolation'])
  checkPartitions('listOffsets', partitions)
  if (options.isolation !== undefined) checkOneOf('listOffsets', 'isolation', options.isolation, ['read_uncommitted', 'read_committed'])
  const timestamps = partitions.map(p => specTimestamp(p.spec))
  const results = new Map<string, ListedOffset>()
  const items = partitions.map((p, i) => ({ topic: p.topic, partition: p.partition, timestamp: timestamps[i] }))
  const codes = await router.leaders(items, deadline, options.signal, async (leader, group) => {
    const metadata = router.client.metadata
    const response = await router.client.request(ListOffsets, {
      replicaId: -1,
      isolationLevel: options.isolation === 'read_committed' ? 1 : 0,
      topics: [...byTopic(group)].map(([name, ps]) => ({ name, partitions: ps.map(p => ({ partitionIndex: p.partition, currentLeaderEpoch: metadata.partition(name, p.partition)?.leaderEpoch ?? -1, timestamp: p.timestamp })) })),
      timeoutMs: router.timeLeft(deadline)
    }, { nodeId: leader, signal: options.signal, timeoutMs: router.timeLeft(deadline) })
    return partitionCodes(response.topics, (key, topic, p) => {
      results.set(key, { topic, partition: p.partitionIndex, offset: p.offset, timestamp: p.timestamp, leaderEpoch: p.leaderEpoch })
    })
  })
  return partitions.map(p => {
    const key = tpKey(p.topic, p.partition)
    const code = codes.get(key) ?? -1
    const found = results.get(key) ?? { topic: p.topic, partition: p.partition, offset: -1n, timestamp: -1n, leaderEpoch: -1 }
    return { ...found, error: itemError(code, `Listing offsets of ${p.topic}-${p.partition}`) }
  })
}

/** One committed offset of a group, as `admin.fetchOffsets()` answers it. */
export interface CommittedOffset extends TopicPartitionKey {
  /** -1 when nothing is committed. */
  offset: bigint
  /** The leader epoch committed with the offset; -1 when none was. */
  leaderEpoch: number
  /** The metadata string committed with the offset; null or '' when none was. */
  metadata: string | null
  /** The error when this partition's offset could not be read; absent when it was. */
  error?: BrokerError
}

/** One group's committed offsets, as `admin.fetchOffsets()` answers them. */
export interface GroupOffsets {
  /** The group's id. */
  groupId: string
  /** Its committed offsets: of the partitions asked for, or of every partition it has offsets for. */
  offsets: CommittedOffset[]
  /** The error when the group's offsets could not be read; absent when they were. */
  error?: BrokerError
}

/** A group whose committed offsets `admin.fetchOffsets()` reads: its id (every partition), or its id and the partitions to read. */
export type GroupOffsetsQuery = string | {
  /** The group's id. */
  groupId: string
  /** The partitions to read; all the group has offsets for when left out. */
  partitions?: TopicPartitionKey[]
}

/**
 * Committed offsets of groups (all the partitions each has offsets for, or those given),
 * asking each coordinator once for all its groups (OffsetFetch v8+).
 */
export async function fetchOffsets (router: Router, groups: GroupOffsetsQuery[], options: AdminCallOptions & { requireStable?: boolean } = {}): Promise<GroupOffsets[]> {
  const deadline = router.deadline('fetchOffsets', options, ['requireStable'])
  const queries = groups.map(g => typeof g === 'string' ? { groupId: g, partitions: undefined } : g)
  for (const q of queries) {
    checkString('fetchOffsets', 'groupId', q.groupId)
    if (q.partitions !== undefined) checkPartitions('fetchOffsets', q.partitions)
  }
  const metadata = router.client.metadata
  const topicsWanted = [...new Set(queries.flatMap(q => q.partitions?.map(p => p.topic) ?? []))]
  if (topicsWanted.length > 0) await metadata.refresh(topicsWanted, options.signal, deadline).catch(() => {})
  const answers = new Map<string, GroupOffsets>()
  let pending = queries
  await router.retry(deadline, options.signal, async () => {
    const coordinators = await router.coordinators('group', pending.map(q => q.groupId), deadline, options.signal)
    const byCoordinator = new Map<number, typeof queries>()
    for (const q of pending) {
      const node = coordinators.get(q.groupId)!
      byCoordinator.set(node, [...(byCoordinator.get(node) ?? []), q])
    }
    const moved: typeof queries = []
    let movedError: BrokerError | undefined
    await Promise.all([...byCoordinator].map(async ([nodeId, qs]) => {
      const response = await router.client.request(OffsetFetch, version => {
        if (version < 8) {
          const q = qs[0]
          return { groupId: q.groupId, topics: q.partitions === undefined ? null : [...byTopic(q.partitions)].map(([name, ps]) => ({ name, partitionIndexes: ps.map(p => p.partition) })), requireStable: options.requireStable ?? false }
        }
        return {
          groups: qs.map(q => ({
            groupId: q.groupId,
            topics: q.partitions === undefined ? null : [...byTopic(q.partitions)].map(([name, ps]) => ({ name, topicId: metadata.topic(name)?.topicId ?? ZERO_UUID, partitionIndexes: ps.map(p => p.partition) }))
          })),
          requireStable: options.requireStable ?? false
        }
      }, { nodeId, signal: options.signal, timeoutMs: router.timeLeft(deadline) })
      const groupsAnswered = response.groups.length > 0
        ? response.groups
        : [{ groupId: qs[0].groupId, errorCode: response.errorCode, topics: response.topics.map(t => ({ name: t.name, topicId: ZERO_UUID, partitions: t.partitions })) }]
      for (const g of groupsAnswered) {
        if (isCoordinatorMoved(g.errorCode)) {
          router.forgetCoordinator('group', g.groupId)
          moved.push(qs.find(q => q.groupId === g.groupId)!)
          movedError = new BrokerError(g.errorCode, `Fetching offsets of group "${g.groupId}" from broker ${nodeId}`)
          continue
        }
        const offsets: CommittedOffset[] = []
        for (const t of g.topics) {
          const name = t.name !== '' ? t.name : await topicName(router, t.topicId, options.signal)
          for (const p of t.partitions) offsets.push(committed(name, p))
        }
        answers.set(g.groupId, { groupId: g.groupId, offsets, error: itemError(g.errorCode, `Fetching offsets of group "${g.groupId}"`) })
      }
    }))
    // Below v8 a request asks about one group: the rest go in the next round.
    pending = [...moved, ...pending.filter(q => !answers.has(q.groupId) && !moved.includes(q))]
    if (pending.length > 0) throw new Misrouted(movedError ?? new BrokerError(ErrorCode.NOT_COORDINATOR, 'Fetching offsets'))
  })
  return queries.map(q => answers.get(q.groupId)!)
}

function committed (topic: string, p: OffsetFetchResponsePartition): CommittedOffset {
  return { topic, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.metadata, error: itemError(p.errorCode, `Committed offset of ${topic}-${p.partitionIndex}`) }
}

/** A topic's name from its id (OffsetFetch/OffsetCommit v10 answer with ids only). */
async function topicName (router: Router, topicId: string, signal?: AbortSignal): Promise<string> {
  const metadata = router.client.metadata
  if (metadata.topicById(topicId) === undefined) await metadata.refreshAll(signal)
  return metadata.topicById(topicId)?.name ?? topicId
}

/** An offset to commit for a group (`admin.alterGroupOffsets`): the next record to read, with its leader epoch and metadata. */
export interface OffsetToCommit extends TopicPartitionKey {
  /** The offset of the next record the group is to read. */
  offset: bigint
  /** The leader epoch of the record before `offset`; default -1 (none). */
  leaderEpoch?: number
  /** A string committed with the offset; default none. */
  metadata?: string | null
}

/**
 * Commits offsets for a group as an admin (no member id, generation -1). Kafka accepts
 * this only while the group has no active members (it answers UNKNOWN_MEMBER_ID for every
 * partition otherwise): an active group is refused first, with NON_EMPTY_GROUP naming its
 * state, as kafka-consumer-groups.sh refuses it.
 */
export async function alterGroupOffsets (router: Router, groupId: string, offsets: OffsetToCommit[], options: AdminCallOptions = {}): Promise<Array<TopicPartitionKey & { error?: BrokerError }>> {
  const deadline = router.deadline('alterGroupOffsets', options)
  checkString('alterGroupOffsets', 'groupId', groupId)
  checkPartitions('alterGroupOffsets', offsets)
  for (const o of offsets) {
    if (typeof o.offset !== 'bigint' || o.offset < 0n) throw new TypeError(`alterGroupOffsets: offset of ${o.topic}-${o.partition} must be a bigint >= 0n, got ${String(o.offset)}`)
  }
  await checkInactive(router, groupId, 'Setting the offsets', deadline, options.signal)
  return await commitAsAdmin(router, groupId, offsets, deadline, options.signal)
}

/** Group states in which an admin may set offsets (kafka-consumer-groups.sh: Empty or Dead). */
const INACTIVE_STATES = new Set(['empty', 'dead'])

/** Refuses (NON_EMPTY_GROUP) a group with active members: its offsets can only be set while it is inactive. */
async function checkInactive (router: Router, groupId: string, what: string, deadline: number, signal: AbortSignal | undefined): Promise<void> {
  const [group] = await describeGroups(router, [groupId], { signal, timeoutMs: router.timeLeft(deadline) }, 'consumer groups')
  // A group no coordinator knows has no members: its offsets can be set (that creates it).
  if (group.error !== undefined || INACTIVE_STATES.has(group.state.toLowerCase())) return
  throw new BrokerError(ErrorCode.NON_EMPTY_GROUP, `${what} of group "${groupId}": the group is ${group.state} with ${group.members.length} member(s), and offsets can only be reset if the group is inactive; stop its consumers and try again`)
}

async function commitAsAdmin (router: Router, groupId: string, offsets: OffsetToCommit[], deadline: number, signal: AbortSignal | undefined): Promise<Array<TopicPartitionKey & { error?: BrokerError }>> {
  const options = { signal }
  const metadata = router.client.metadata
  await metadata.refresh([...new Set(offsets.map(o => o.topic))], options.signal, deadline).catch(() => {})
  const response = await router.coordinator('group', groupId, OffsetCommit, {
    groupId,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [...byTopic(offsets)].map(([name, ps]) => ({
      name,
      topicId: metadata.topic(name)?.topicId ?? ZERO_UUID,
      partitions: ps.map(p => ({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: p.leaderEpoch ?? -1, committedMetadata: p.metadata ?? null }))
    }))
  }, deadline, options.signal, r => r.topics.flatMap(t => t.partitions.map(p => p.errorCode)))
  const results: Array<TopicPartitionKey & { error?: BrokerError }> = []
  for (const t of response.topics) {
    const name = t.name !== '' ? t.name : await topicName(router, t.topicId, options.signal)
    for (const p of t.partitions) results.push({ topic: name, partition: p.partitionIndex, error: itemError(p.errorCode, `Committing the offset of group "${groupId}" for ${name}-${p.partitionIndex}`) })
  }
  return results
}

/** Where resetGroupOffsets moves each partition, as kafka-consumer-groups.sh's --to-… / --shift-by. */
export type ResetSpec =
  | 'earliest' | 'latest'
  | {
    /** To the first offset whose record's timestamp is at or after this time, in ms since the epoch (or a Date). */
    timestamp: bigint | number | Date
  }
  | {
    /** To this offset (clamped to the log's range). */
    offset: bigint
  }
  | {
    /** By this many records from the committed offset, negative to go back (clamped to the log's range). */
    shiftBy: bigint | number
  }

/** One partition of `admin.resetGroupOffsets()`: where its committed offset moves (or moved). */
export interface PlannedOffset extends TopicPartitionKey {
  /** The committed offset before the reset (-1 if none). */
  previous: bigint
  /** The offset it moves to. */
  offset: bigint
  /** The error when this partition could not be planned or committed; absent when it was. */
  error?: BrokerError
}

/**
 * Moves a group's committed offsets: of `partitions`, or of every partition of `topics`,
 * or (neither given) of every partition the group has offsets for. Targets are clamped to
 * the log's range, as kafka-consumer-groups.sh does. With `dryRun` nothing is committed.
 * The group must have no active members: an active one is refused at once with
 * NON_EMPTY_GROUP naming its state (a dry run only plans, and is allowed).
 */
export async function resetGroupOffsets (router: Router, groupId: string, to: ResetSpec, options: AdminCallOptions & { topics?: string[], partitions?: TopicPartitionKey[], dryRun?: boolean } = {}): Promise<PlannedOffset[]> {
  const deadline = router.deadline('resetGroupOffsets', options, ['topics', 'partitions', 'dryRun'])
  checkString('resetGroupOffsets', 'groupId', groupId)
  if (options.dryRun !== true) await checkInactive(router, groupId, 'Resetting the offsets', deadline, options.signal)
  const call = { signal: options.signal, timeoutMs: router.timeLeft(deadline) }
  let partitions: TopicPartitionKey[]
  if (options.partitions !== undefined) {
    checkPartitions('resetGroupOffsets', options.partitions)
    partitions = options.partitions
  } else if (options.topics !== undefined) {
    await router.client.metadata.refresh(options.topics, options.signal, deadline)
    partitions = options.topics.flatMap(topic => {
      const meta = router.client.metadata.topic(topic)
      if (meta === undefined) throw new BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Resetting offsets of group "${groupId}" on topic "${topic}"`)
      return meta.partitions.map(p => ({ topic, partition: p.partition }))
    })
  } else {
    const [current] = await fetchOffsets(router, [groupId], call)
    if (current.error !== undefined) throw current.error
    partitions = current.offsets.map(o => ({ topic: o.topic, partition: o.partition }))
  }
  const [committed] = await fetchOffsets(router, [{ groupId, partitions }], call)
  if (committed.error !== undefined) throw committed.error
  const previous = new Map(committed.offsets.map(o => [tpKey(o.topic, o.partition), o.offset]))
  const bound = async (spec: LogOffsetSpec): Promise<Map<string, ListedOffset>> =>
    new Map((await listOffsets(router, partitions.map(p => ({ ...p, spec })), call)).map(o => [tpKey(o.topic, o.partition), o]))
  const [earliest, latest] = await Promise.all([bound('earliest'), bound('latest')])
  const byTime = typeof to === 'object' && 'timestamp' in to ? await bound({ timestamp: to.timestamp }) : undefined
  const plan: PlannedOffset[] = partitions.map(p => {
    const key = tpKey(p.topic, p.partition)
    const low = earliest.get(key)!
    const high = latest.get(key)!
    const before = previous.get(key) ?? -1n
    const error = low.error ?? high.error
    if (error !== undefined) return { ...p, previous: before, offset: -1n, error }
    let target: bigint
    if (to === 'earliest') target = low.offset
    else if (to === 'latest') target = high.offset
    else if ('timestamp' in to) {
      const found = byTime!.get(key)!
      if (found.error !== undefined) return { ...p, previous: before, offset: -1n, error: found.error }
      // No record at or after the time: the end of the log, as the Java tool does.
      target = found.offset < 0n ? high.offset : found.offset
    } else if ('offset' in to) target = BigInt(to.offset)
    else if ('shiftBy' in to) target = (before < 0n ? low.offset : before) + BigInt(to.shiftBy)
    else throw new TypeError(`resetGroupOffsets: to must be 'earliest', 'latest', { timestamp }, { offset } or { shiftBy }, got ${JSON.stringify(to)}`)
    if (target < low.offset) target = low.offset
    if (target > high.offset) target = high.offset
    return { ...p, previous: before, offset: target }
  })
  if (options.dryRun === true) return plan
  const toCommit = plan.filter(p => p.error === undefined)
  if (toCommit.length === 0) return plan
  const results = await commitAsAdmin(router, groupId, toCommit.map(p => ({ topic: p.topic, partition: p.partition, offset: p.offset })), deadline, options.signal)
  const errors = new Map(results.map(r => [tpKey(r.topic, r.partition), r.error]))
  return plan.map(p => p.error !== undefined ? p : { ...p, error: errors.get(tpKey(p.topic, p.partition)) })
}

/** Deletes a group's committed offsets of partitions (of topics the group does not subscribe to). */
export async function deleteGroupOffsets (router: Router, groupId: string, partitions: TopicPartitionKey[], options: AdminCallOptions = {}): Promise<Array<TopicPartitionKey & { error?: BrokerError }>> {
  const deadline = router.deadline('deleteGroupOffsets', options)
  checkString('deleteGroupOffsets', 'groupId', groupId)
  checkPartitions('deleteGroupOffsets', partitions)
  const response = await router.coordinator('group', groupId, OffsetDelete, {
    groupId,
    topics: [...byTopic(partitions)].map(([name, ps]) => ({ name, partitions: ps.map(p => ({ partitionIndex: p.partition })) }))
  }, deadline, options.signal, r => [r.errorCode])
  throwIf(response.errorCode, `Deleting offsets of group "${groupId}"`)
  return response.topics.flatMap(t => t.partitions.map(p => ({ topic: t.name, partition: p.partitionIndex, error: itemError(p.errorCode, `Deleting the offset of group "${groupId}" for ${t.name}-${p.partitionIndex}`) })))
}

export interface PartitionLag extends TopicPartitionKey {
  /**
   * The group's committed offset; undefined when the group has none for this partition (a
   * member holds it or the group subscribes to its topic, but nothing was committed yet).
   */
  committed: bigint | undefined
  /** The log start offset. */
  start: bigint
  /** The log end offset (the last stable offset with `isolation: 'read_committed'`). */
  end: bigint
  /**
   * end − committed (0 when the commit is at or past the end). Without a commit, end − start:
   * what the group reads from its reset position if that is 'earliest' (the members' reset
   * policy is not known to an admin; under 'latest' they would start at the end). -1 with `error`.
   */
  lag: bigint
  /** The error when this partition's lag could not be known; absent when it was. */
  error?: BrokerError
}

/**
 * The lag of every partition of the group's topics: those its members are assigned or
 * subscribe to, and those it has committed offsets for; partitions without a commit
 * included (committed undefined, lag counted from the log start), as
 * kafka-consumer-groups.sh --describe lists them. Sorted by topic and partition.
 */
export async function lag (router: Router, groupId: string, options: AdminCallOptions & { isolation?: Isolation } = {}): Promise<PartitionLag[]> {
  const deadline = router.deadline('lag', options, ['isolation'])
  checkString('lag', 'groupId', groupId)
  const call = { signal: options.signal, timeoutMs: router.timeLeft(deadline) }
  const [[group], [description]] = await Promise.all([fetchOffsets(router, [groupId], call), describeGroups(router, [groupId], call, 'consumer groups')])
  if (group.error !== undefined) throw group.error
  const committed = new Map(group.offsets.filter(o => o.offset >= 0n || o.error !== undefined).map(o => [tpKey(o.topic, o.partition), o]))
  const partitions = new Map<string, TopicPartitionKey>([...committed].map(([key, o]) => [key, { topic: o.topic, partition: o.partition }]))
  const members = description.error === undefined ? description.members : []
  for (const p of members.flatMap(m => [...m.assignment, ...(m.targetAssignment ?? [])])) partitions.set(tpKey(p.topic, p.partition), { topic: p.topic, partition: p.partition })
  // Every partition of those topics and of the subscribed ones: a partition nobody committed for lags too.
  const topics = [...new Set([...[...partitions.values()].map(p => p.topic), ...members.flatMap(m => m.subscribedTopics ?? [])])]
  const metadata = router.client.metadata
  if (topics.length > 0) await metadata.refresh(topics, options.signal, deadline).catch(() => {})
  for (const topic of topics) {
    for (const p of metadata.topic(topic)?.partitions ?? []) partitions.set(tpKey(topic, p.partition), { topic, partition: p.partition })
  }
  const all = [...partitions.values()].sort((a, b) => a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition)
  const listed = async (spec: 'earliest' | 'latest'): Promise<ListedOffset[]> => await listOffsets(router, all.map(p => ({ ...p, spec })), { ...call, timeoutMs: router.timeLeft(deadline), isolation: options.isolation })
  const [starts, ends] = await Promise.all([listed('earliest'), listed('latest')])
  return all.map((p, i) => {
    const commit = committed.get(tpKey(p.topic, p.partition))
    const start = starts[i]
    const end = ends[i]
    const error = commit?.error ?? end.error ?? start.error
    const offset = commit !== undefined && commit.offset >= 0n ? commit.offset : undefined
    const behind = end.offset - (offset ?? start.offset)
    return { topic: p.topic, partition: p.partition, committed: offset, start: start.offset, end: end.offset, lag: error !== undefined ? -1n : behind > 0n ? behind : 0n, error }
  })
}

/** One partition of `admin.describeShareGroupOffsets()`: the share group's start offset there, and its lag. */
export interface ShareGroupOffset extends TopicPartitionKey {
  /** The share-partition start offset: everything before it is acknowledged; -1 when the group has no state for the partition. */
  startOffset: bigint
  /** Records from the start offset on not yet acknowledged; -1 when unknown. */
  lag: bigint
  /** The error when this partition could not be described; absent when it was. */
  error?: BrokerError
}

/** A share group's start offset (and lag) per partition, for the given topics or every topic it has state for. */
export async function describeShareGroupOffsets (router: Router, groupId: string, options: AdminCallOptions & { topics?: string[], partitions?: TopicPartitionKey[] } = {}): Promise<ShareGroupOffset[]> {
  const deadline = router.deadline('describeShareGroupOffsets', options, ['topics', 'partitions'])
  checkString('describeShareGroupOffsets', 'groupId', groupId)
  let topics: Array<{ topicName: string, partitions: number[] }> | null = null
  if (options.partitions !== undefined) {
    checkPartitions('describeShareGroupOffsets', options.partitions)
    topics = [...byTopic(options.partitions)].map(([topicName, ps]) => ({ topicName, partitions: ps.map(p => p.partition) }))
  } else if (options.topics !== undefined) {
    options.topics.forEach(t => checkString('describeShareGroupOffsets', 'topics[]', t))
    await router.client.metadata.refresh(options.topics, options.signal, deadline)
    topics = options.topics.map(topicName => ({ topicName, partitions: (router.client.metadata.topic(topicName)?.partitions ?? []).map(p => p.partition) }))
  }
  const response = await router.coordinator('group', groupId, DescribeShareGroupOffsets, { groups: [{ groupId, topics }] }, deadline, options.signal, r => r.groups.map(g => g.errorCode))
  const group = response.groups[0]
  throwIf(group?.errorCode ?? 0, `Describing the offsets of share group "${groupId}"`)
  return (group?.topics ?? []).flatMap(t => t.partitions.map(p => ({
    topic: t.topicName,
    partition: p.partitionIndex,
    startOffset: p.startOffset,
    lag: p.lag,
    error: itemError(p.errorCode, `Describing the offset of share group "${groupId}" for ${t.topicName}-${p.partitionIndex}`, p.errorMessage)
  })))
}

/** Sets an empty share group's start offsets (where it delivers from next). */
export async function alterShareGroupOffsets (router: Router, groupId: string, offsets: Array<TopicPartitionKey & { offset: bigint }>, options: AdminCallOptions = {}): Promise<Array<TopicPartitionKey & { error?: BrokerError }>> {
  const deadline = router.deadline('alterShareGroupOffsets', options)
  checkString('alterShareGroupOffsets', 'groupId', groupId)
  checkPartitions('alterShareGroupOffsets', offsets)
  for (const o of offsets) if (typeof o.offset !== 'bigint') throw new TypeError(`alterShareGroupOffsets: offset of ${o.topic}-${o.partition} must be a bigint, got ${typeof o.offset}`)
  const response = await router.coordinator('group', groupId, AlterShareGroupOffsets, {
    groupId,
    topics: [...byTopic(offsets)].map(([topicName, ps]) => ({ topicName, partitions: ps.map(p => ({ partitionIndex: p.partition, startOffset: p.offset })) }))
  }, deadline, options.signal, r => [r.errorCode])
  throwIf(response.errorCode, `Altering the offsets of share group "${groupId}"`, response.errorMessage)
  return response.responses.flatMap(t => t.partitions.map(p => ({ topic: t.topicName, partition: p.partitionIndex, error: itemError(p.errorCode, `Altering the offset of share group "${groupId}" for ${t.topicName}-${p.partitionIndex}`, p.errorMessage) })))
}

/** Drops an empty share group's state for whole topics (it starts again from share.auto.offset.reset). */
export async function deleteShareGroupOffsets (router: Router, groupId: string, topics: string[], options: AdminCallOptions = {}): Promise<Array<{ topic: string, error?: BrokerError }>> {
  const deadline = router.deadline('deleteShareGroupOffsets', options)
  checkString('deleteShareGroupOffsets', 'groupId', groupId)
  topics.forEach(t => checkString('deleteShareGroupOffsets', 'topics[]', t))
  const response = await router.coordinator('group', groupId, DeleteShareGroupOffsets, { groupId, topics: topics.map(topicName => ({ topicName })) }, deadline, options.signal, r => [r.errorCode])
  throwIf(response.errorCode, `Deleting the offsets of share group "${groupId}"`, response.errorMessage)
  return response.responses.map(t => ({ topic: t.topicName, error: itemError(t.errorCode, `Deleting the offsets of share group "${groupId}" for ${t.topicName}`, t.errorMessage) }))
}

/**
 * Topics and partitions: create, delete, grow, list, describe (Metadata, and
 * DescribeTopicPartitions with the KIP-966 eligible leader replicas), leader elections and
 * reassignments. Calls that create things wait until the metadata shows them, so a
 * produce right after `createTopics` finds its leader.
 */
import { AlterPartitionReassignments } from '../protocol/apis/alter-partition-reassignments'
import { CreatePartitions } from '../protocol/apis/create-partitions'
import { CreateTopics, type CreateTopicsResponse } from '../protocol/apis/create-topics'
import { DescribeConfigs } from '../protocol/apis/describe-configs'
import { DeleteTopics } from '../protocol/apis/delete-topics'
import { DescribeTopicPartitions, type DescribeTopicPartitionsCursor, type DescribeTopicPartitionsResponse } from '../protocol/apis/describe-topic-partitions'
import { ElectLeaders } from '../protocol/apis/elect-leaders'
import { ListPartitionReassignments } from '../protocol/apis/list-partition-reassignments'
import { firstReleaseWith } from '../protocol/api-releases'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import type { TopicMetadata } from '../client/metadata'
import { UnsupportedVersionError } from '../client/errors'
import { configResourceTypes } from './configs'
import { checkInteger, checkOneOf, checkString } from '../client/validate'
import { itemError, throwIf, type AdminCallOptions, type Router, type TopicPartitionKey } from './route'
import { byTopic, checkPartitions } from './common'
import type { ItemResult } from './results'
import { internal } from '../client/internal'

/** DescribeTopicPartitions and Metadata answer this when authorized operations were not asked for. */
const OPERATIONS_NOT_ASKED = -2147483648

/** A topic to create (`admin.createTopics`); what is left out takes the broker's defaults. */
export interface NewTopic {
  /** The topic's name. */
  topic: string
  /** Default: the broker's num.partitions (read from the controller before Kafka 2.4, which cannot default it). */
  numPartitions?: number
  /** Default: the broker's default.replication.factor (read from the controller before Kafka 2.4, which cannot default it). */
  replicationFactor?: number
  /** Topic configs, e.g. { 'min.insync.replicas': '2' }. */
  configs?: Record<string, string>
  /** Explicit placement: partition → broker ids (instead of numPartitions/replicationFactor). */
  assignments?: Record<number, number[]>
}

/** One topic's answer of createTopics, deleteTopics and createPartitions. */
export interface TopicResult extends ItemResult {
  /** The topic's name. */
  topic: string
}

/** createTopics' answer for one topic: `existed` when it was there already and `ignoreExisting` made that no error. */
export interface CreatedTopic extends TopicResult {
  /** Whether the topic was there already (only with `ignoreExisting`; otherwise that is an `error`). */
  existed: boolean
}

/**
 * Creates topics and waits until each one created (or, with `ignoreExisting`, already there)
 * has leaders; answers per topic, a refusal as that topic's `error`.
 */
export async function createTopics (router: Router, topics: NewTopic[], options: AdminCallOptions & { validateOnly?: boolean, ignoreExisting?: boolean } = {}): Promise<CreatedTopic[]> {
  const deadline = router.deadline('createTopics', options, ['validateOnly', 'ignoreExisting'])
  const timeoutMs = router.timeLeft(deadline)
  // Read only when the controller turns out to speak CreateTopics below v4 and a topic leaves a count to the broker.
  let defaults: BrokerTopicDefaults | undefined
  const refused = new Map<string, BrokerError>()
  let response: CreateTopicsResponse | undefined
  while (response === undefined) {
    try {
      response = await router.controller(CreateTopics, version => {
        const explicit = version < BROKER_DEFAULTS_VERSION
        if (explicit && defaults === undefined && topics.some(leavesCountToBroker)) throw new BrokerDefaultsNeeded(version)
        return {
          topics: topics.filter(t => !refused.has(t.topic)).map(t => ({
            name: t.topic,
            numPartitions: t.assignments !== undefined ? -1 : t.numPartitions ?? (explicit ? defaults?.numPartitions : undefined) ?? -1,
            replicationFactor: t.assignments !== undefined ? -1 : t.replicationFactor ?? (explicit ? defaults?.replicationFactor : undefined) ?? -1,
            assignments: Object.entries(t.assignments ?? {}).map(([partition, brokerIds]) => ({ partitionIndex: Number(partition), brokerIds })),
            configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value }))
          })),
          timeoutMs,
          validateOnly: options.validateOnly ?? false
        }
      }, deadline, options.signal, r => r.topics.map(t => t.errorCode))
    } catch (error) {
      if (!(error instanceof BrokerDefaultsNeeded) || defaults !== undefined) throw error
      defaults = await brokerTopicDefaults(router, deadline, options.signal)
      if (defaults.unreadable !== undefined) {
        for (const t of topics.filter(leavesCountToBroker)) {
          refused.set(t.topic, new BrokerError(t.replicationFactor === undefined ? ErrorCode.INVALID_REPLICATION_FACTOR : ErrorCode.INVALID_PARTITIONS,
            `Creating topic "${t.topic}" (the controller speaks CreateTopics up to v${error.version}, before Kafka ${firstReleaseWith(CreateTopics.key, BROKER_DEFAULTS_VERSION) ?? '2.4'}, which cannot leave numPartitions or replicationFactor to the broker, and reading its num.partitions and default.replication.factor failed: ${defaults.unreadable}; this broker needs both given explicitly)`))
        }
        if (refused.size === topics.length) return topics.map(({ topic }) => ({ topic, existed: false, error: refused.get(topic) }))
      }
    }
  }
  const answers = new Map(response.topics.map(r => [r.name, r]))
  const results = topics.map(({ topic }): CreatedTopic => {
    const refusal = refused.get(topic)
    if (refusal !== undefined) return { topic, existed: false, error: refusal }
    const answer = answers.get(topic)
    if (answer === undefined) return { topic, existed: false, error: new BrokerError(-1, `Creating topic "${topic}": the broker's answer has no entry for it`) }
    if (answer.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS && options.ignoreExisting === true) return { topic, existed: true }
    return { topic, existed: false, error: itemError(answer.errorCode, `Creating topic "${topic}"`, answer.errorMessage) }
  })
  if (options.validateOnly !== true) {
    await Promise.all(results.filter(r => r.error === undefined).map(async r => await router.client.metadata.waitForTopic(r.topic, Math.max(0, deadline - router.client.clock.now()), options.signal, { allLeaders: true })))
  }
  return results
}

/** The first CreateTopics version whose numPartitions and replicationFactor may be -1, the broker's defaults (KIP-464, Kafka 2.4). */
const BROKER_DEFAULTS_VERSION = 4

const leavesCountToBroker = (t: NewTopic): boolean => t.assignments === undefined && (t.numPartitions === undefined || t.replicationFactor === undefined)

/** Thrown by the request builder: this controller needs the counts spelled out, read them first. */
class BrokerDefaultsNeeded extends Error {
  constructor (readonly version: number) {
    super(`CreateTopics v${version} needs numPartitions and replicationFactor spelled out`)
  }
}

interface BrokerTopicDefaults {
  numPartitions?: number
  replicationFactor?: number
  /** Why they could not be read. */
  unreadable?: string
}

/** The controller's num.partitions and default.replication.factor, what a newer broker would use for -1. */
async function brokerTopicDefaults (router: Router, deadline: number, signal: AbortSignal | undefined): Promise<BrokerTopicDefaults> {
  const controller = router.client.metadata.controllerId
  try {
    const response = await router.any(DescribeConfigs, {
      resources: [{ resourceType: configResourceTypes.code('broker'), resourceName: String(controller), configurationKeys: ['num.partitions', 'default.replication.factor'] }]
    }, deadline, signal, controller >= 0 ? controller : undefined)
    const result = response.results[0]
    if (result === undefined) return { unreadable: 'the broker\'s answer has no entry for it' }
    if (result.errorCode !== ErrorCode.NONE) return { unreadable: new BrokerError(result.errorCode, `Describing the configs of broker ${controller}`, result.errorMessage).message }
    const value = (name: string): number | undefined => {
      const text = result.configs.find(c => c.name === name)?.value
      return text === null || text === undefined || !/^\d+$/.test(text) ? undefined : Number(text)
    }
    const defaults = { numPartitions: value('num.partitions'), replicationFactor: value('default.replication.factor') }
    if (defaults.numPartitions === undefined || defaults.replicationFactor === undefined) return { unreadable: `broker ${controller} did not show both` }
    return defaults
  } catch (error) {
    if (error instanceof BrokerError || error instanceof UnsupportedVersionError) return { unreadable: error.message }
    throw error
  }
}

/** Deletes topics by name; answers per topic (an unknown one is an error unless `ignoreMissing`). */
export async function deleteTopics (router: Router, names: string[], options: AdminCallOptions & { ignoreMissing?: boolean } = {}): Promise<TopicResult[]> {
  const deadline = router.deadline('deleteTopics', options, ['ignoreMissing'])
  const timeoutMs = router.timeLeft(deadline)
  const response = await router.controller(DeleteTopics, version => version >= 6
    ? { topics: names.map(name => ({ name, topicId: '00000000-0000-0000-0000-000000000000' })), timeoutMs }
    : { topicNames: names, timeoutMs }, deadline, options.signal, r => r.responses.map(t => t.errorCode))
  const answers = new Map(response.responses.map(r => [r.name, r]))
  const results = names.map((topic): TopicResult => {
    const answer = answers.get(topic)
    if (answer === undefined) return { topic, error: new BrokerError(-1, `Deleting topic "${topic}": the broker's answer has no entry for it`) }
    if (answer.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && options.ignoreMissing === true) return { topic }
    return { topic, error: itemError(answer.errorCode, `Deleting topic "${topic}"`, answer.errorMessage) }
  })
  router.client[internal].metadata.untrack(results.filter(r => r.error === undefined).map(r => r.topic))
  return results
}

/** A topic's new total partition count; `assignments`: the broker ids of each new partition's replicas (else the broker places them). */
export interface PartitionCount {
  /** The topic's name. */
  topic: string
  /** The new total number of partitions (more than the topic has). */
  count: number
  /** For each new partition, the broker ids of its replicas, first the preferred leader; the broker places them when left out. */
  assignments?: number[][]
}

/** Raises partition counts; answers per topic, and waits until the metadata shows the new partitions of those that grew. */
export async function createPartitions (router: Router, topics: PartitionCount[], options: AdminCallOptions & { validateOnly?: boolean } = {}): Promise<TopicResult[]> {
  const deadline = router.deadline('createPartitions', options, ['validateOnly'])
  for (const t of topics) {
    if (t.assignments === undefined) continue
    if (!Array.isArray(t.assignments) || t.assignments.some(replicas => !Array.isArray(replicas))) {
      throw new TypeError(`createPartitions: assignments of topic "${t.topic}": expected an array of broker id arrays (one per new partition), got ${JSON.stringify(t.assignments)}`)
    }
    for (const replicas of t.assignments) for (const id of replicas) checkInteger('createPartitions', `assignments of topic "${t.topic}"`, id, { min: 0 })
  }
  const response = await router.controller(CreatePartitions, {
    topics: topics.map(t => ({ name: t.topic, count: t.count, assignments: t.assignments?.map(brokerIds => ({ brokerIds })) ?? null })),
    timeoutMs: router.timeLeft(deadline),
    validateOnly: options.validateOnly ?? false
  }, deadline, options.signal, r => r.results.map(t => t.errorCode))
  const answers = new Map(response.results.map(r => [r.name, r]))
  const results = topics.map(({ topic }): TopicResult => {
    const answer = answers.get(topic)
    return { topic, error: answer === undefined ? new BrokerError(-1, `Adding partitions to topic "${topic}": the broker's answer has no entry for it`) : itemError(answer.errorCode, `Adding partitions to topic "${topic}"`, answer.errorMessage) }
  })
  if (options.validateOnly === true) return results
  const metadata = router.client.metadata
  for (const [i, t] of topics.entries()) {
    if (results[i].error !== undefined) continue
    for (;;) {
      const meta = await metadata.waitForTopic(t.topic, Math.max(0, deadline - router.client.clock.now()), options.signal, { allLeaders: true })
      if (meta.partitions.length >= t.count || router.client.clock.now() >= deadline) break
      await metadata.refresh([t.topic], options.signal, deadline)
    }
  }
  return results
}

export async function listTopics (router: Router, options: AdminCallOptions & { includeInternal?: boolean } = {}): Promise<string[]> {
  const deadline = router.deadline('listTopics', options, ['includeInternal'])
  const metadata = router.client.metadata
  const names = await metadata.refreshAll(options.signal, deadline)
  return names.filter(name => options.includeInternal === true || metadata.topic(name)?.isInternal !== true).sort()
}

/** A topic's metadata as describeTopics answers it: no partitions, and `error`, when it could not be described. */
export type DescribedTopic = TopicMetadata & ItemResult

export async function describeTopics (router: Router, names: string[], options: AdminCallOptions = {}): Promise<DescribedTopic[]> {
  const deadline = router.deadline('describeTopics', options)
  await router.client.metadata.refresh(names, options.signal, deadline)
  return names.map(name => {
    const topic = router.client.metadata.topic(name)
    if (topic !== undefined) return topic
    // The broker's own answer for the topic (TOPIC_AUTHORIZATION_FAILED without DESCRIBE), else it does not exist.
    const error = router.client.metadata.topicError(name) ?? new BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Describing topic "${name}"`)
    return { name, topicId: '', isInternal: false, partitions: [], error }
  })
}

/** One topic of `admin.describeTopicPartitions()`: its id and its partitions with their eligible leader replicas (KIP-966). */
export interface TopicPartitionsDescription {
  /** The topic's name. */
  topic: string
  /** The topic's id (a UUID). */
  topicId: string
  /** Whether it is an internal topic (e.g. __consumer_offsets). */
  isInternal: boolean
  /** Its partitions, by number. */
  partitions: PartitionDescription[]
  /** Operations the caller may perform on the topic (when asked with includeAuthorizedOperations). */
  authorizedOperations?: number
  /** The error when the topic could not be described (e.g. UNKNOWN_TOPIC_OR_PARTITION); absent when it was. */
  error?: BrokerError
}

/** One partition of a described topic: leader, replicas, in-sync replicas and eligible leaders. */
export interface PartitionDescription {
  /** The partition's number. */
  partition: number
  /** The node id of its leader; -1 when it has none. */
  leaderId: number
  /** Its leader epoch. */
  leaderEpoch: number
  /** The node ids of its replicas, first the preferred leader. */
  replicas: number[]
  /** The node ids of its in-sync replicas. */
  isr: number[]
  /** KIP-966: replicas that may become leader though not in the ISR (null when ELR is off). */
  eligibleLeaderReplicas: number[] | null
  /** KIP-966: replicas that were last known to be eligible leaders (null when ELR is off). */
  lastKnownElr: number[] | null
  /** The node ids of its replicas that are offline. */
  offlineReplicas: number[]
  /** The error when the partition could not be described; absent when it was. */
  error?: BrokerError
}

/**
 * Partitions of topics with their KIP-966 fields, through DescribeTopicPartitions. The
 * broker answers at most `pageSize` partitions per request (default 2000) and a cursor;
 * this follows the cursor to the end.
 */
export async function describeTopicPartitions (router: Router, topics: string[], options: AdminCallOptions & { pageSize?: number } = {}): Promise<TopicPartitionsDescription[]> {
  const deadline = router.deadline('describeTopicPartitions', options, ['pageSize'])
  if (options.pageSize !== undefined) checkInteger('describeTopicPartitions', 'pageSize', options.pageSize, { min: 1 })
  for (const t of topics) checkString('describeTopicPartitions', 'topics[]', t)
  const result = new Map<string, TopicPartitionsDescription>()
  let cursor: DescribeTopicPartitionsCursor | null = null
  do {
    const response: DescribeTopicPartitionsResponse = await router.any(DescribeTopicPartitions, {
      topics: topics.map(name => ({ name })),
      responsePartitionLimit: options.pageSize ?? 2000,
      cursor
    }, deadline, options.signal)
    for (const t of response.topics) {
      const name = t.name ?? ''
      let entry = result.get(name)
      if (entry === undefined) {
        entry = { topic: name, topicId: t.topicId, isInternal: t.isInternal, partitions: [], error: itemError(t.errorCode, `Describing topic "${name}"`) }
        if (t.topicAuthorizedOperations !== OPERATIONS_NOT_ASKED) entry.authorizedOperations = t.topicAuthorizedOperations
        result.set(name, entry)
      }
      for (const p of t.partitions) {
        entry.partitions.push({
          partition: p.partitionIndex,
          leaderId: p.leaderId,
          leaderEpoch: p.leaderEpoch,
          replicas: p.replicaNodes,
          isr: p.isrNodes,
          eligibleLeaderReplicas: p.eligibleLeaderReplicas,
          lastKnownElr: p.lastKnownElr,
          offlineReplicas: p.offlineReplicas,
          error: itemError(p.errorCode, `Describing ${name}-${p.partitionIndex}`)
        })
      }
    }
    cursor = response.nextCursor
  } while (cursor !== null)
  return topics.map(name => result.get(name) ?? { topic: name, topicId: '', isInternal: false, partitions: [], error: new BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Describing topic "${name}"`) })
}

/** A leader election's kind: the preferred replica, or any live replica even out of sync ('unclean', which may lose records). */
export type ElectionType = 'preferred' | 'unclean'

/** One partition's answer to `admin.electLeaders()`. */
export interface ElectionResult extends TopicPartitionKey {
  /** Undefined when the election happened, or was not needed (`notNeeded`). */
  error?: BrokerError
  /** The partition's preferred replica already leads it (ELECTION_NOT_NEEDED). */
  notNeeded: boolean
}

/**
 * Elects leaders: the preferred replica (the first in the replica list), or with
 * 'unclean' any live replica, for the partitions given (default: every partition).
 */
export async function electLeaders (router: Router, options: AdminCallOptions & { type?: ElectionType, partitions?: TopicPartitionKey[] } = {}): Promise<ElectionResult[]> {
  const deadline = router.deadline('electLeaders', options, ['type', 'partitions'])
  if (options.type !== undefined) checkOneOf('electLeaders', 'type', options.type, ['preferred', 'unclean'])
  if (options.partitions !== undefined) checkPartitions('electLeaders', options.partitions)
  const response = await router.controller(ElectLeaders, {
    electionType: options.type === 'unclean' ? 1 : 0,
    topicPartitions: options.partitions === undefined ? null : [...byTopic(options.partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map(p => p.partition) })),
    timeoutMs: router.timeLeft(deadline)
  }, deadline, options.signal, r => [r.errorCode])
  throwIf(response.errorCode, 'Electing leaders')
  const results: ElectionResult[] = []
  for (const t of response.replicaElectionResults) {
    for (const p of t.partitionResult) {
      const notNeeded = p.errorCode === ErrorCode.ELECTION_NOT_NEEDED
      results.push({ topic: t.topic, partition: p.partitionId, notNeeded, error: notNeeded ? undefined : itemError(p.errorCode, `Electing a leader of ${t.topic}-${p.partitionId}`, p.errorMessage) })
    }
  }
  return results
}

/** A partition's new replica set, for `admin.alterPartitionReassignments()`. */
export interface Reassignment extends TopicPartitionKey {
  /** The new replica set, first the preferred leader; null cancels a reassignment in progress. */
  replicas: number[] | null
}

/** Starts (or with `replicas: null` cancels) partition reassignments; one result per partition. */
export async function alterPartitionReassignments (router: Router, reassignments: Reassignment[], options: AdminCallOptions & { allowReplicationFactorChange?: boolean } = {}): Promise<Array<TopicPartitionKey & { error?: BrokerError }>> {
  const deadline = router.deadline('alterPartitionReassignments', options, ['allowReplicationFactorChange'])
  checkPartitions('alterPartitionReassignments', reassignments)
  const response = await router.controller(AlterPartitionReassignments, {
    timeoutMs: router.timeLeft(deadline),
    allowReplicationFactorChange: options.allowReplicationFactorChange ?? true,
    topics: [...byTopic(reassignments)].map(([name, ps]) => ({ name, partitions: ps.map(p => ({ partitionIndex: p.partition, replicas: p.replicas })) }))
  }, deadline, options.signal, r => [r.errorCode])
  throwIf(response.errorCode, 'Reassigning partitions', response.errorMessage)
  return response.responses.flatMap(t => t.partitions.map(p => ({ topic: t.name, partition: p.partitionIndex, error: itemError(p.errorCode, `Reassigning ${t.name}-${p.partitionIndex}`, p.errorMessage) })))
}

/** A reassignment in progress, as `admin.listPartitionReassignments()` answers it. */
export interface OngoingReassignment extends TopicPartitionKey {
  /** The partition's current replica set (old and new replicas during the move). */
  replicas: number[]
  /** The replicas being added. */
  addingReplicas: number[]
  /** The replicas being removed. */
  removingReplicas: number[]
}

/** Reassignments in progress (of the given partitions, or all). */
export async function listPartitionReassignments (router: Router, options: AdminCallOptions & { partitions?: TopicPartitionKey[] } = {}): Promise<OngoingReassignment[]> {
  const deadline = router.deadline('listPartitionReassignments', options, ['partitions'])
  if (options.partitions !== undefined) checkPartitions('listPartitionReassignments', options.partitions)
  const response = await router.controller(ListPartitionReassignments, {
    timeoutMs: router.timeLeft(deadline),
    topics: options.partitions === undefined ? null : [...byTopic(options.partitions)].map(([name, ps]) => ({ name, partitionIndexes: ps.map(p => p.partition) }))
  }, deadline, options.signal, r => [r.errorCode])
  throwIf(response.errorCode, 'Listing partition reassignments', response.errorMessage)
  return response.topics.flatMap(t => t.partitions.map(p => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas, addingReplicas: p.addingReplicas, removingReplicas: p.removingReplicas })))
}

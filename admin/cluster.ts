/**
 * The cluster: brokers and controller (DescribeCluster, or Metadata on brokers before
 * Kafka 2.8), feature levels (ApiVersions and
 * UpdateFeatures), the KRaft quorum (DescribeQuorum), and log directories per broker
 * (DescribeLogDirs, AlterReplicaLogDirs); KRaft membership: unregistering brokers and
 * controllers, adding and removing quorum voters (KIP-853).
 */
import { AddRaftVoter } from '../protocol/apis/add-raft-voter'
import { AlterReplicaLogDirs } from '../protocol/apis/alter-replica-log-dirs'
import { ApiVersions } from '../protocol/apis/api-versions'
import { DescribeCluster, type DescribeClusterResponse } from '../protocol/apis/describe-cluster'
import { DescribeLogDirs } from '../protocol/apis/describe-log-dirs'
import { DescribeQuorum } from '../protocol/apis/describe-quorum'
import { Metadata } from '../protocol/apis/metadata'
import { RemoveRaftVoter } from '../protocol/apis/remove-raft-voter'
import { UnregisterBroker } from '../protocol/apis/unregister-broker'
import { UnregisterController } from '../protocol/apis/unregister-controller'
import { UpdateFeatures } from '../protocol/apis/update-features'
import { brokersWith } from '../protocol/api-releases'
import { BrokerError } from '../protocol/errors'
import { UnsupportedVersionError } from '../client/errors'
import { checkInteger, checkObject, checkOneOf, checkString, describeValue } from '../client/validate'
import { byTopic, checkPartitions } from './common'
import { itemError, throwIf, type AdminCallOptions, type Router, type TopicPartitionKey } from './route'
import type { ItemResult } from './results'

const OPERATIONS_NOT_ASKED = -2147483648

/** ACL operations by bit (the bit field authorized operations come in). */
const OPERATION_BITS: Array<[number, string]> = [
  [3, 'read'], [4, 'write'], [5, 'create'], [6, 'delete'], [7, 'alter'], [8, 'describe'], [9, 'cluster-action'],
  [10, 'describe-configs'], [11, 'alter-configs'], [12, 'idempotent-write'], [13, 'create-tokens'], [14, 'describe-tokens'], [15, 'two-phase-commit']
]

/** The operation names of an authorized-operations bit field. */
export function authorizedOperationNames (bits: number): string[] {
  return OPERATION_BITS.filter(([bit]) => (bits & (1 << bit)) !== 0).map(([, name]) => name)
}

/** What `admin.describeCluster()` answers: the cluster id, the controller and the brokers. */
export interface ClusterDescription {
  /** The cluster's id. */
  clusterId: string
  /** The node id of the controller the answering broker names; -1 when it knows none. */
  controllerId: number
  /** The brokers, by node id. */
  brokers: Array<{
    /** The broker's node id. */
    nodeId: number
    /** The host the broker advertises. */
    host: string
    /** The port the broker advertises. */
    port: number
    /** The broker's rack; null when it has none. */
    rack: string | null
    /** Whether the controller has fenced the broker (listed only with `includeFencedBrokers`; always false before Kafka 2.8). */
    isFenced: boolean
  }>
  /** With includeAuthorizedOperations: what the caller may do on the cluster resource. */
  authorizedOperations?: string[]
}

/**
 * The brokers, the controller and the cluster id (DescribeCluster). A broker without
 * DescribeCluster (before Kafka 2.8) is asked with Metadata, as kafkajs does: the same
 * brokers (a Metadata answer lists only live, unfenced ones), and the cluster's authorized
 * operations from Metadata v8–v10 (Kafka 2.3–2.7).
 */
export async function describeCluster (router: Router, options: AdminCallOptions & { includeAuthorizedOperations?: boolean, includeFencedBrokers?: boolean } = {}): Promise<ClusterDescription> {
  const deadline = router.deadline('describeCluster', options, ['includeAuthorizedOperations', 'includeFencedBrokers'])
  let response: Omit<DescribeClusterResponse, 'endpointType'>
  try {
    response = await router.any(DescribeCluster, {
      includeClusterAuthorizedOperations: options.includeAuthorizedOperations ?? false,
      endpointType: 1,
      includeFencedBrokers: options.includeFencedBrokers ?? false
    }, deadline, options.signal)
  } catch (error) {
    if (!(error instanceof UnsupportedVersionError)) throw error
    response = await describeClusterByMetadata(router, options.includeAuthorizedOperations ?? false, deadline, options.signal)
  }
  throwIf(response.errorCode, 'Describing the cluster', response.errorMessage)
  const result: ClusterDescription = {
    clusterId: response.clusterId,
    controllerId: response.controllerId,
    brokers: response.brokers.map(b => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack, isFenced: b.isFenced })).sort((a, b) => a.nodeId - b.nodeId)
  }
  if (response.clusterAuthorizedOperations !== OPERATIONS_NOT_ASKED) result.authorizedOperations = authorizedOperationNames(response.clusterAuthorizedOperations)
  return result
}

/** Metadata versions with the cluster's authorized operations (later ones left them to DescribeCluster, KIP-700). */
const METADATA_CLUSTER_OPERATIONS = { from: 8, to: 10 }

/** DescribeCluster's answer made from a Metadata answer that asks for no topic. */
async function describeClusterByMetadata (router: Router, includeAuthorizedOperations: boolean, deadline: number, signal: AbortSignal | undefined): Promise<Omit<DescribeClusterResponse, 'endpointType'>> {
  const metadata = await router.any(Metadata, version => {
    if (includeAuthorizedOperations && (version < METADATA_CLUSTER_OPERATIONS.from || version > METADATA_CLUSTER_OPERATIONS.to)) {
      throw new UnsupportedVersionError(`describeCluster: this broker speaks neither DescribeCluster nor Metadata v${METADATA_CLUSTER_OPERATIONS.from}–v${METADATA_CLUSTER_OPERATIONS.to} (it speaks Metadata v${version}), so it cannot tell the cluster's authorized operations; brokers of ${brokersWith(Metadata.key, METADATA_CLUSTER_OPERATIONS.from) ?? 'newer releases'} can. Call it without includeAuthorizedOperations.`)
    }
    // v0 reads an empty list as every topic: an old broker then lists them all, which is harmless here.
    return { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: includeAuthorizedOperations, includeTopicAuthorizedOperations: false }
  }, deadline, signal)
  return {
    throttleTimeMs: metadata.throttleTimeMs,
    errorCode: metadata.errorCode,
    errorMessage: null,
    // Null only below Metadata v2 (Kafka 0.10.1), which no broker kafkats speaks to has.
    clusterId: metadata.clusterId ?? '',
    controllerId: metadata.controllerId,
    brokers: metadata.brokers.map(b => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: b.rack, isFenced: false })),
    clusterAuthorizedOperations: includeAuthorizedOperations ? metadata.clusterAuthorizedOperations : OPERATIONS_NOT_ASKED
  }
}

/** What `admin.describeFeatures()` answers: the cluster's finalized feature levels and those the answering broker supports. */
export interface FeatureDescription {
  /** Feature → finalized [min, max] level (what the cluster runs at). */
  finalized: Record<string, {
    /** The lowest finalized level. */
    minVersionLevel: number
    /** The finalized level the cluster runs at. */
    maxVersionLevel: number
  }>
  /** The epoch of the finalized features; -1 when the broker has none. */
  finalizedEpoch: bigint
  /** Feature → [min, max] levels the answering broker supports. */
  supported: Record<string, {
    /** The lowest level the broker supports. */
    minVersion: number
    /** The highest level the broker supports. */
    maxVersion: number
  }>
}

/** Finalized and supported feature levels (from ApiVersions, as the Java admin does). */
export async function describeFeatures (router: Router, options: AdminCallOptions = {}): Promise<FeatureDescription> {
  const deadline = router.deadline('describeFeatures', options)
  const response = await router.any(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0.1.0' }, deadline, options.signal)
  throwIf(response.errorCode, 'Describing features')
  return {
    finalized: Object.fromEntries(response.finalizedFeatures.map(f => [f.name, { minVersionLevel: f.minVersionLevel, maxVersionLevel: f.maxVersionLevel }])),
    finalizedEpoch: response.finalizedFeaturesEpoch,
    supported: Object.fromEntries(response.supportedFeatures.map(f => [f.name, { minVersion: f.minVersion, maxVersion: f.maxVersion }]))
  }
}

/** One feature's new level, for `admin.updateFeatures()`. */
export interface FeatureUpdate {
  /** The feature's name, e.g. 'metadata.version' or 'group.version'. */
  feature: string
  /** The new maximum level; 0 disables the feature. */
  maxVersionLevel: number
  /** Default 'upgrade'; lowering a level needs 'safe-downgrade' or 'unsafe-downgrade'. */
  upgradeType?: 'upgrade' | 'safe-downgrade' | 'unsafe-downgrade'
}

const UPGRADE_TYPES = { upgrade: 1, 'safe-downgrade': 2, 'unsafe-downgrade': 3 }

/**
 * Changes finalized feature levels; the whole update succeeds or fails together (v2+).
 * The controller has committed the change when this resolves; each broker applies it from the
 * metadata log shortly after, so describeFeatures() (answered by a broker) may briefly show the old level.
 */
/** updateFeatures' answer for one feature. */
export interface UpdatedFeature extends ItemResult {
  /** The feature's name. */
  feature: string
}

/** Finalizes feature levels; answers per feature (a request-level refusal throws, and is the only one a v2+ broker gives). */
export async function updateFeatures (router: Router, updates: FeatureUpdate[], options: AdminCallOptions & { validateOnly?: boolean } = {}): Promise<UpdatedFeature[]> {
  const deadline = router.deadline('updateFeatures', options, ['validateOnly'])
  for (const u of updates) {
    checkString('updateFeatures', 'feature', u.feature)
    checkInteger('updateFeatures', 'maxVersionLevel', u.maxVersionLevel, { min: 0, max: 32767 })
    if (u.upgradeType !== undefined) checkOneOf('updateFeatures', 'upgradeType', u.upgradeType, Object.keys(UPGRADE_TYPES))
  }
  const response = await router.any(UpdateFeatures, {
    timeoutMs: router.timeLeft(deadline),
    featureUpdates: updates.map(u => ({ feature: u.feature, maxVersionLevel: u.maxVersionLevel, upgradeType: UPGRADE_TYPES[u.upgradeType ?? 'upgrade'], allowDowngrade: u.upgradeType !== undefined && u.upgradeType !== 'upgrade' })),
    validateOnly: options.validateOnly ?? false
  }, deadline, options.signal)
  throwIf(response.errorCode, `Updating features ${updates.map(u => `${u.feature}=${u.maxVersionLevel}`).join(', ')}`, response.errorMessage)
  // From v2 the broker answers the update as a whole: no per-feature results, and its
  // top-level error (thrown above) is the only refusal, so each feature then succeeded.
  const answers = new Map(response.results.map(r => [r.feature, r]))
  return updates.map(({ feature }) => {
    const answer = answers.get(feature)
    return { feature, error: answer === undefined ? undefined : itemError(answer.errorCode, `Updating feature ${feature}`, answer.errorMessage) }
  })
}

/** A voter or observer of the KRaft metadata quorum, as `admin.describeQuorum()` reports it. */
export interface QuorumReplica {
  /** The replica's node id. */
  replicaId: number
  /** The id of the replica's metadata log directory (v2+; the zero UUID before). */
  replicaDirectoryId: string
  /** The end offset of its copy of the metadata log, as the leader knows it; -1 when unknown. */
  logEndOffset: bigint
  /** When it last fetched from the leader, in ms since the epoch; -1 when unknown. */
  lastFetchTimestamp: bigint
  /** When it last caught up with the leader, in ms since the epoch; -1 when unknown. */
  lastCaughtUpTimestamp: bigint
}

/** What `admin.describeQuorum()` answers: the KRaft metadata quorum's leader, voters and observers. */
export interface QuorumDescription {
  /** The node id of the quorum's leader (the active controller); -1 when there is none. */
  leaderId: number
  /** The leader's epoch. */
  leaderEpoch: number
  /** The metadata log's high watermark. */
  highWatermark: bigint
  /** The voters: the controllers that elect the leader. */
  voters: QuorumReplica[]
  /** The observers: brokers (and controllers not voting) that replicate the metadata log. */
  observers: QuorumReplica[]
  /** v2+: the voters' controller listeners. */
  nodes: Array<{
    /** The voter's node id. */
    nodeId: number
    /** Its controller listeners. */
    listeners: Array<{
      /** The listener's name. */
      name: string
      /** The listener's host. */
      host: string
      /** The listener's port. */
      port: number
    }>
  }>
}

/** The KRaft metadata quorum (the __cluster_metadata partition): leader, voters, observers. */
export async function describeQuorum (router: Router, options: AdminCallOptions = {}): Promise<QuorumDescription> {
  const deadline = router.deadline('describeQuorum', options)
  const response = await router.any(DescribeQuorum, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] }, deadline, options.signal)
  throwIf(response.errorCode, 'Describing the quorum', response.errorMessage)
  const p = response.topics[0]?.partitions[0]
  if (p === undefined) throw new BrokerError(-1, 'Describing the quorum: the answer has no __cluster_metadata partition')
  throwIf(p.errorCode, 'Describing the quorum', p.errorMessage)
  return { leaderId: p.leaderId, leaderEpoch: p.leaderEpoch, highWatermark: p.highWatermark, voters: p.currentVoters, observers: p.observers, nodes: response.nodes }
}

/** One log directory of one broker, as `admin.describeLogDirs()` reports it. */
export interface LogDirDescription {
  /** The broker's node id. */
  broker: number
  /** The directory's path on the broker. */
  path: string
  /** v4+: -1 when unknown. */
  totalBytes: bigint
  /** The free space in the directory in bytes (v4+: -1 when unknown). */
  usableBytes: bigint
  /** The replicas in the directory. */
  replicas: Array<TopicPartitionKey & {
    /** The replica's size in bytes. */
    size: bigint
    /** How far the replica's log end offset is behind the partition's high watermark (a future replica's: behind the current replica's log end). */
    offsetLag: bigint
    /** Whether it is a future replica: a copy being moved into this directory. */
    isFuture: boolean
  }>
  /** The error when the directory could not be described (e.g. KAFKA_STORAGE_ERROR); absent when it was. */
  error?: BrokerError
}

/** Each broker's log directories with the size of every replica (of `topics`, or all). */
export async function describeLogDirs (router: Router, options: AdminCallOptions & { brokers?: number[], partitions?: TopicPartitionKey[] } = {}): Promise<LogDirDescription[]> {
  const deadline = router.deadline('describeLogDirs', options, ['brokers', 'partitions'])
  if (options.partitions !== undefined) checkPartitions('describeLogDirs', options.partitions)
  if (options.brokers === undefined) await router.client.metadata.refresh([], options.signal, deadline)
  const brokers = options.brokers ?? router.client.metadata.brokers.filter(b => b.nodeId >= 0).map(b => b.nodeId)
  const perBroker = await Promise.all(brokers.map(async broker => {
    const response = await router.any(DescribeLogDirs, {
      topics: options.partitions === undefined ? null : [...byTopic(options.partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map(p => p.partition) }))
    }, deadline, options.signal, broker)
    throwIf(response.errorCode, `Describing the log dirs of broker ${broker}`)
    return response.results.map(dir => ({
      broker,
      path: dir.logDir,
      totalBytes: dir.totalBytes,
      usableBytes: dir.usableBytes,
      replicas: dir.topics.flatMap(t => t.partitions.map(p => ({ topic: t.name, partition: p.partitionIndex, size: p.partitionSize, offsetLag: p.offsetLag, isFuture: p.isFutureKey }))),
      error: itemError(dir.errorCode, `Log dir ${dir.logDir} of broker ${broker}`)
    }))
  }))
  return perBroker.flat()
}

/** Moves replicas to another log directory of the broker that holds them; one result per replica. */
export async function alterReplicaLogDirs (router: Router, moves: Array<TopicPartitionKey & { broker: number, path: string }>, options: AdminCallOptions = {}): Promise<Array<TopicPartitionKey & { broker: number, error?: BrokerError }>> {
  const deadline = router.deadline('alterReplicaLogDirs', options)
  checkPartitions('alterReplicaLogDirs', moves)
  const byBroker = new Map<number, typeof moves>()
  for (const m of moves) byBroker.set(m.broker, [...(byBroker.get(m.broker) ?? []), m])
  const results = await Promise.all([...byBroker].map(async ([broker, ms]) => {
    const byPath = new Map<string, typeof moves>()
    for (const m of ms) byPath.set(m.path, [...(byPath.get(m.path) ?? []), m])
    const response = await router.any(AlterReplicaLogDirs, {
      dirs: [...byPath].map(([path, items]) => ({ path, topics: [...byTopic(items)].map(([name, ps]) => ({ name, partitions: ps.map(p => p.partition) })) }))
    }, deadline, options.signal, broker)
    return response.results.flatMap(t => t.partitions.map(p => ({ topic: t.topicName, partition: p.partitionIndex, broker, error: itemError(p.errorCode, `Moving ${t.topicName}-${p.partitionIndex} on broker ${broker}`) })))
  }))
  return results.flat()
}

/** A controller listener of a voter: AddRaftVoter tells the quorum where to reach the new voter. */
export interface RaftVoterEndpoint {
  /** The listener's name, e.g. 'CONTROLLER'. */
  name: string
  /** The listener's host. */
  host: string
  /** The listener's port. */
  port: number
}

/** A 128-bit id as kafkats writes them (describeQuorum's replicaDirectoryId): 32 hex digits, dashes allowed. */
const UUID_TEXT = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i

function checkDirectoryId (where: string, value: unknown): void {
  if (typeof value !== 'string' || !UUID_TEXT.test(value)) {
    throw new TypeError(`${where}: voterDirectoryId must be the voter's directory id as describeQuorum() shows it (a UUID, 32 hex digits with or without dashes), got ${describeValue(value)}`)
  }
}

/**
 * Removes a broker's registration from a KRaft cluster (a broker shut down for good), as
 * kafka-cluster.sh unregister does. An unknown or still registered and live broker is a
 * BrokerError (BROKER_ID_NOT_REGISTERED, or the controller's refusal).
 */
export async function unregisterBroker (router: Router, brokerId: number, options: AdminCallOptions = {}): Promise<void> {
  const deadline = router.deadline('unregisterBroker', options)
  checkInteger('unregisterBroker', 'brokerId', brokerId, { min: 0 })
  const response = await router.any(UnregisterBroker, { brokerId }, deadline, options.signal)
  throwIf(response.errorCode, `Unregistering broker ${brokerId}`, response.errorMessage)
}

/** Removes a controller's registration from a KRaft cluster (a controller shut down for good that is no voter). */
export async function unregisterController (router: Router, controllerId: number, options: AdminCallOptions = {}): Promise<void> {
  const deadline = router.deadline('unregisterController', options)
  checkInteger('unregisterController', 'controllerId', controllerId, { min: 0 })
  const response = await router.any(UnregisterController, { controllerId }, deadline, options.signal)
  throwIf(response.errorCode, `Unregistering controller ${controllerId}`, response.errorMessage)
}

/**
 * Makes a controller (by id and directory id, an observer of the metadata quorum) a voter
 * (KIP-853, a quorum formatted with dynamic voters); resolves once the new voter set is
 * committed. `clusterId`, when given, must be the cluster's.
 */
export async function addRaftVoter (router: Router, voterId: number, voterDirectoryId: string, endpoints: RaftVoterEndpoint[], options: AdminCallOptions & { clusterId?: string } = {}): Promise<void> {
  const deadline = router.deadline('addRaftVoter', options, ['clusterId'])
  checkInteger('addRaftVoter', 'voterId', voterId, { min: 0 })
  checkDirectoryId('addRaftVoter', voterDirectoryId)
  if (!Array.isArray(endpoints) || endpoints.length === 0) throw new TypeError(`addRaftVoter: endpoints must be a non-empty array of { name, host, port } (the new voter's controller listeners), got ${describeValue(endpoints)}`)
  for (const [i, e] of endpoints.entries()) {
    checkObject('addRaftVoter', `endpoints[${i}]`, e)
    checkString('addRaftVoter', `endpoints[${i}].name`, e.name)
    checkString('addRaftVoter', `endpoints[${i}].host`, e.host)
    checkInteger('addRaftVoter', `endpoints[${i}].port`, e.port, { min: 0, max: 65535 })
  }
  if (options.clusterId !== undefined) checkString('addRaftVoter', 'clusterId', options.clusterId)
  const response = await router.any(AddRaftVoter, {
    clusterId: options.clusterId ?? null,
    timeoutMs: router.timeLeft(deadline),
    voterId,
    voterDirectoryId,
    listeners: endpoints.map(e => ({ name: e.name, host: e.host, port: e.port })),
    ackWhenCommitted: true
  }, deadline, options.signal)
  throwIf(response.errorCode, `Adding voter ${voterId} to the KRaft quorum`, response.errorMessage)
}

/** Removes a voter (by id and directory id) from the KRaft quorum (KIP-853). `clusterId`, when given, must be the cluster's. */
export async function removeRaftVoter (router: Router, voterId: number, voterDirectoryId: string, options: AdminCallOptions & { clusterId?: string } = {}): Promise<void> {
  const deadline = router.deadline('removeRaftVoter', options, ['clusterId'])
  checkInteger('removeRaftVoter', 'voterId', voterId, { min: 0 })
  checkDirectoryId('removeRaftVoter', voterDirectoryId)
  if (options.clusterId !== undefined) checkString('removeRaftVoter', 'clusterId', options.clusterId)
  const response = await router.any(RemoveRaftVoter, { clusterId: options.clusterId ?? null, voterId, voterDirectoryId }, deadline, options.signal)
  throwIf(response.errorCode, `Removing voter ${voterId} from the KRaft quorum`, response.errorMessage)
}

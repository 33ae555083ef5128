/**
 * Admin: the cluster's management calls, `client.admin`. Each area has its file (topics,
 * records, offsets, groups, configs, acls, quotas, scram, tokens, cluster, transactions);
 * this class composes them over one Router (route.ts), which sends each request to the
 * right broker and retries what provably did nothing.
 *
 * Conventions: every call takes `{ timeoutMs, signal }` (timeoutMs bounds the whole call,
 * retries included). A call on many items (topics, partitions, groups, resources, ACLs,
 * users, features…) answers each item, with `error` (a BrokerError) when that item failed
 * (results.ts); the call itself throws only for what fails as a whole (no connection, its
 * timeout, a request-level error). `throwFirstError(results)` makes an answer all-or-nothing.
 */
import type { Client } from '../client/client'
import type { Isolation } from '../client/client'
import { restateUnreachable } from '../client/brokers'
import type { BrokerError } from '../protocol/errors'
import * as acls from './acls'
import * as cluster from './cluster'
import * as configs from './configs'
import * as groups from './groups'
import * as offsets from './offsets'
import * as quotas from './quotas'
import * as records from './records'
import { Router, type AdminCallOptions, type TopicPartitionKey } from './route'
import type { ItemResult } from './results'
import * as scram from './scram'
import * as tokens from './tokens'
import * as topics from './topics'
import * as transactions from './transactions'
import type { CreatedTopic, DescribedTopic, ElectionResult, ElectionType, NewTopic, OngoingReassignment, PartitionCount, Reassignment, TopicPartitionsDescription, TopicResult } from './topics'
import type { DeletedRecords, RecordsToDelete } from './records'
import type { GroupOffsets, GroupOffsetsQuery, ListedOffset, LogOffsetSpec, OffsetToCommit, PartitionLag, PlannedOffset, ResetSpec, ShareGroupOffset } from './offsets'
import type { GroupDescription, GroupType, ListedGroup } from './groups'
import type { AlterConfigsResource, AlteredConfigs, ConfigEntry, ConfigResource, ConfigResourceType, DescribedConfigs } from './configs'
import type { AclBinding, AclFilter } from './acls'
import type { QuotaAlteration, QuotaEntity, QuotaEntry, QuotaFilterComponent } from './quotas'
import type { ScramAlteration, ScramUserDescription } from './scram'
import type { DelegationToken } from './tokens'
import type { ClusterDescription, FeatureDescription, FeatureUpdate, LogDirDescription, QuorumDescription, RaftVoterEndpoint, UpdatedFeature } from './cluster'
import type { AbortTransactionSpec, ListedTransaction, PartitionProducers, TransactionDescription } from './transactions'

export type { AdminCallOptions, TopicPartitionKey } from './route'
export type { ItemResult } from './results'
export { firstError, throwFirstError } from './results'
export type { NewTopic, PartitionCount, TopicResult, CreatedTopic, DescribedTopic, TopicPartitionsDescription, PartitionDescription, ElectionType, ElectionResult, Reassignment, OngoingReassignment } from './topics'
export type { RecordsToDelete, DeletedRecords } from './records'
export type { LogOffsetSpec, ListedOffset, CommittedOffset, GroupOffsets, GroupOffsetsQuery, OffsetToCommit, ResetSpec, PlannedOffset, PartitionLag, ShareGroupOffset } from './offsets'
export type { GroupType, ListedGroup, GroupDescription, GroupMemberDescription, StreamsTasks } from './groups'
export type { ConfigEntry, ConfigResourceType, ConfigSource, ConfigType, AlterConfigsResource, ConfigResource, DescribedConfigs, AlteredConfigs } from './configs'
export type { AclBinding, AclFilter, AclResourceType, AclPatternType, AclOperation, AclPermission } from './acls'
export type { QuotaEntity, QuotaEntityType, QuotaFilterComponent, QuotaEntry, QuotaAlteration } from './quotas'
export type { ScramMechanism, ScramUserDescription, ScramAlteration } from './scram'
export type { DelegationToken } from './tokens'
export type { ClusterDescription, FeatureDescription, FeatureUpdate, UpdatedFeature, QuorumDescription, QuorumReplica, LogDirDescription, RaftVoterEndpoint } from './cluster'
export type { ListedTransaction, TransactionDescription, PartitionProducers, AbortTransactionSpec } from './transactions'
export { authorizedOperationNames } from './cluster'

/** A call's answer per partition: each with its `error` when that partition failed. */
export type PartitionResults<T = TopicPartitionKey> = Array<T & ItemResult>

/** Cluster administration (`client.admin`): topics, records, groups and offsets, configs, ACLs, quotas, SCRAM users, delegation tokens, the cluster and transactions. Each request goes to the broker that must answer it; calls on many items answer each item (see `throwFirstError`). Every call takes `{ timeoutMs, signal }`. */
export class Admin {
  readonly #router: Router

  /** Made by `client.admin` (one per client); a new one works the same. */
  constructor (client: Client) {
    this.#router = new Router(client)
  }

  /**
   * Runs one call. When it reached no broker, its error (a ConnectionError naming the
   * brokers tried, the last failure as `cause`) states the call's own bound, timeoutMs.
   */
  async #call<T> (name: string, options: AdminCallOptions | undefined, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      const timeoutMs = options?.timeoutMs
      throw restateUnreachable(error, name, timeoutMs === undefined ? { ms: this.#router.client.requestTimeoutMs, option: 'timeoutMs, by default the client\'s requestTimeoutMs' } : { ms: timeoutMs, option: 'timeoutMs' })
    }
  }

  // Topics and partitions (topics.ts)
  /** Creates topics and waits until each created one has leaders; answers per topic (`ignoreExisting`: one already there is no error). */
  async createTopics (newTopics: NewTopic[], options?: AdminCallOptions & { validateOnly?: boolean, ignoreExisting?: boolean }): Promise<CreatedTopic[]> { return await this.#call('createTopics', options, async () => await topics.createTopics(this.#router, newTopics, options)) }
  /** Deletes topics by name; answers per topic (an unknown one is an error unless `ignoreMissing`). */
  async deleteTopics (names: string[], options?: AdminCallOptions & { ignoreMissing?: boolean }): Promise<TopicResult[]> { return await this.#call('deleteTopics', options, async () => await topics.deleteTopics(this.#router, names, options)) }
  /** Raises topics' partition counts to `count` (the new total); answers per topic. */
  async createPartitions (counts: PartitionCount[], options?: AdminCallOptions & { validateOnly?: boolean }): Promise<TopicResult[]> { return await this.#call('createPartitions', options, async () => await topics.createPartitions(this.#router, counts, options)) }
  /** Names of all topics (internal ones only if asked). */
  async listTopics (options?: AdminCallOptions & { includeInternal?: boolean }): Promise<string[]> { return await this.#call('listTopics', options, async () => await topics.listTopics(this.#router, options)) }
  /** Partitions, leaders, replicas and ISR of topics (Metadata); a topic that could not be described has `error` and no partitions. */
  async describeTopics (names: string[], options?: AdminCallOptions): Promise<DescribedTopic[]> { return await this.#call('describeTopics', options, async () => await topics.describeTopics(this.#router, names, options)) }
  /** Partitions with their eligible leader replicas (KIP-966), following the broker's pages to the end. */
  async describeTopicPartitions (names: string[], options?: AdminCallOptions & { pageSize?: number }): Promise<TopicPartitionsDescription[]> { return await this.#call('describeTopicPartitions', options, async () => await topics.describeTopicPartitions(this.#router, names, options)) }
  /** Preferred (default) or unclean leader elections, of `partitions` or every partition. */
  async electLeaders (options?: AdminCallOptions & { type?: ElectionType, partitions?: TopicPartitionKey[] }): Promise<ElectionResult[]> { return await this.#call('electLeaders', options, async () => await topics.electLeaders(this.#router, options)) }
  /** Moves partitions to new replica sets (`replicas: null` cancels a move). */
  async alterPartitionReassignments (reassignments: Reassignment[], options?: AdminCallOptions & { allowReplicationFactorChange?: boolean }): Promise<PartitionResults> { return await this.#call('alterPartitionReassignments', options, async () => await topics.alterPartitionReassignments(this.#router, reassignments, options)) }
  /** Reassignments in progress. */
  async listPartitionReassignments (options?: AdminCallOptions & { partitions?: TopicPartitionKey[] }): Promise<OngoingReassignment[]> { return await this.#call('listPartitionReassignments', options, async () => await topics.listPartitionReassignments(this.#router, options)) }

  // Records and log offsets (records.ts, offsets.ts)
  /** Deletes records before an offset or a time, per partition; returns the new log start offsets. */
  async deleteRecords (partitions: RecordsToDelete[], options?: AdminCallOptions): Promise<DeletedRecords[]> { return await this.#call('deleteRecords', options, async () => await records.deleteRecords(this.#router, partitions, options)) }
  /** Offsets of many partitions at once (earliest, latest, max-timestamp, or by time). */
  async listOffsets (partitions: Array<TopicPartitionKey & { spec: LogOffsetSpec }>, options?: AdminCallOptions & { isolation?: Isolation }): Promise<ListedOffset[]> { return await this.#call('listOffsets', options, async () => await offsets.listOffsets(this.#router, partitions, options)) }

  // Groups and their offsets (groups.ts, offsets.ts)
  /** Every group in the cluster, optionally of some types and states. */
  async listGroups (options?: AdminCallOptions & { types?: GroupType[], states?: string[] }): Promise<ListedGroup[]> { return await this.#call('listGroups', options, async () => await groups.listGroups(this.#router, options)) }
  /** Groups described by their coordinators (KIP-848 and classic). */
  async describeGroups (groupIds: string[], options?: AdminCallOptions & { includeAuthorizedOperations?: boolean }): Promise<GroupDescription[]> { return await this.#call('describeGroups', options, async () => await groups.describeGroups(this.#router, groupIds, options)) }
  /** Deletes empty groups with their offsets. */
  async deleteGroups (groupIds: string[], options?: AdminCallOptions): Promise<Array<{
    /** The group asked for. */
    groupId: string
    /** The error when deleting this group failed; absent when it succeeded. */
    error?: BrokerError
  }>> { return await this.#call('deleteGroups', options, async () => await groups.deleteGroups(this.#router, groupIds, options)) }
  /** Removes members (static ones by instance id) from a classic group; all of them without `members`. */
  async removeMembers (groupId: string, options?: AdminCallOptions & { members?: Array<{ instanceId: string } | { memberId: string }>, reason?: string }): Promise<Array<{
    /** The removed member's id ('' for a static member removed by instance id). */
    memberId: string
    /** The static member's instance id; null for a dynamic member. */
    instanceId: string | null
    /** The error when removing this member failed; absent when it succeeded. */
    error?: BrokerError
  }>> { return await this.#call('removeMembers', options, async () => await groups.removeMembers(this.#router, groupId, options)) }
  /** Committed offsets of groups, one OffsetFetch per coordinator. */
  async fetchOffsets (groupIds: GroupOffsetsQuery[], options?: AdminCallOptions & { requireStable?: boolean }): Promise<GroupOffsets[]> { return await this.#call('fetchOffsets', options, async () => await offsets.fetchOffsets(this.#router, groupIds, options)) }
  /** Commits offsets for an empty group. */
  async alterGroupOffsets (groupId: string, toCommit: OffsetToCommit[], options?: AdminCallOptions): Promise<PartitionResults> { return await this.#call('alterGroupOffsets', options, async () => await offsets.alterGroupOffsets(this.#router, groupId, toCommit, options)) }
  /** Moves an empty group's offsets to earliest, latest, a time, an offset, or by a shift; `dryRun` only plans. */
  async resetGroupOffsets (groupId: string, to: ResetSpec, options?: AdminCallOptions & { topics?: string[], partitions?: TopicPartitionKey[], dryRun?: boolean }): Promise<PlannedOffset[]> { return await this.#call('resetGroupOffsets', options, async () => await offsets.resetGroupOffsets(this.#router, groupId, to, options)) }
  /** Deletes a group's offsets of partitions it does not subscribe to. */
  async deleteGroupOffsets (groupId: string, partitions: TopicPartitionKey[], options?: AdminCallOptions): Promise<PartitionResults> { return await this.#call('deleteGroupOffsets', options, async () => await offsets.deleteGroupOffsets(this.#router, groupId, partitions, options)) }
  /** A share group's start offset and lag per partition (KIP-932). */
  async describeShareGroupOffsets (groupId: string, options?: AdminCallOptions & { topics?: string[], partitions?: TopicPartitionKey[] }): Promise<ShareGroupOffset[]> { return await this.#call('describeShareGroupOffsets', options, async () => await offsets.describeShareGroupOffsets(this.#router, groupId, options)) }
  /** Sets an empty share group's start offsets. */
  async alterShareGroupOffsets (groupId: string, toSet: Array<TopicPartitionKey & { offset: bigint }>, options?: AdminCallOptions): Promise<PartitionResults> { return await this.#call('alterShareGroupOffsets', options, async () => await offsets.alterShareGroupOffsets(this.#router, groupId, toSet, options)) }
  /** Drops an empty share group's state of whole topics. */
  async deleteShareGroupOffsets (groupId: string, topics: string[], options?: AdminCallOptions): Promise<Array<{
    /** The topic asked for. */
    topic: string
    /** The error when dropping this topic's state failed; absent when it succeeded. */
    error?: BrokerError
  }>> { return await this.#call('deleteShareGroupOffsets', options, async () => await offsets.deleteShareGroupOffsets(this.#router, groupId, topics, options)) }
  /** Per partition the group committed: committed, end, lag. */
  async lag (groupId: string, options?: AdminCallOptions & { isolation?: Isolation }): Promise<PartitionLag[]> { return await this.#call('lag', options, async () => await offsets.lag(this.#router, groupId, options)) }

  // Configs (configs.ts)
  /** Current configs of resources, answered per resource, with synonyms and documentation when asked. */
  async describeConfigs (resources: ConfigResource[], options?: AdminCallOptions & { includeSynonyms?: boolean, includeDocumentation?: boolean }): Promise<DescribedConfigs[]>
  /**
   * @deprecated Pass an array of resources: the answer is then per resource, with `error`
   * instead of a throw. This form answers one resource's configs and throws its error.
   */
  async describeConfigs (resource: ConfigResource, options?: AdminCallOptions & { includeSynonyms?: boolean, includeDocumentation?: boolean }): Promise<Map<string, ConfigEntry>>
  async describeConfigs (resources: ConfigResource[] | ConfigResource, options?: AdminCallOptions & { includeSynonyms?: boolean, includeDocumentation?: boolean }): Promise<DescribedConfigs[] | Map<string, ConfigEntry>> {
    if (Array.isArray(resources)) return await this.#call('describeConfigs', options, async () => await configs.describeConfigs(this.#router, resources, options))
    const [described] = await this.#call('describeConfigs', options, async () => await configs.describeConfigs(this.#router, [resources], options))
    if (described.error !== undefined) throw described.error
    return described.configs
  }
  /** Incremental config changes (set, delete, append, subtract); answers per resource. Before Kafka 2.3 a read-modify-write (docs/admin.md). */
  async alterConfigs (resources: AlterConfigsResource[], options?: AdminCallOptions & { validateOnly?: boolean }): Promise<AlteredConfigs[]> { return await this.#call('alterConfigs', options, async () => await configs.alterConfigs(this.#router, resources, options)) }
  /** Resources that have configs (KIP-1142). */
  async listConfigResources (options?: AdminCallOptions & { types?: ConfigResourceType[] }): Promise<Array<{
    /** The resource's type; 'unknown' for a type code kafkats does not know. */
    type: ConfigResourceType | 'unknown'
    /** The resource's name (a topic, a broker id, a client metrics or group name). */
    name: string
  }>> { return await this.#call('listConfigResources', options, async () => await configs.listConfigResources(this.#router, options)) }

  // ACLs, quotas, SCRAM users, delegation tokens (acls.ts, quotas.ts, scram.ts, tokens.ts)
  /** The ACL bindings matching `filter` (all of them without one) (DescribeAcls). */
  async describeAcls (filter?: AclFilter, options?: AdminCallOptions): Promise<AclBinding[]> { return await this.#call('describeAcls', options, async () => await acls.describeAcls(this.#router, filter, options)) }
  /** Creates ACL bindings; answers per binding (CreateAcls). */
  async createAcls (bindings: AclBinding[], options?: AdminCallOptions): Promise<Array<{
    /** The binding asked for. */
    binding: AclBinding
    /** The error when creating this binding failed; absent when it succeeded. */
    error?: BrokerError
  }>> { return await this.#call('createAcls', options, async () => await acls.createAcls(this.#router, bindings, options)) }
  /** Deletes the bindings each filter matches; answers per filter with what it deleted (DeleteAcls). */
  async deleteAcls (filters: AclFilter[], options?: AdminCallOptions): Promise<Array<{
    /** The filter asked for. */
    filter: AclFilter
    /** The bindings it matched and deleted. */
    deleted: AclBinding[]
    /** The error when this filter failed; absent when it succeeded. */
    error?: BrokerError
  }>> { return await this.#call('deleteAcls', options, async () => await acls.deleteAcls(this.#router, filters, options)) }
  /** The client quotas of the entities the components match (user, client-id, ip; KIP-546) (DescribeClientQuotas). */
  async describeClientQuotas (components?: QuotaFilterComponent[], options?: AdminCallOptions & { strict?: boolean }): Promise<QuotaEntry[]> { return await this.#call('describeClientQuotas', options, async () => await quotas.describeClientQuotas(this.#router, components, options)) }
  /** Sets or removes quotas per entity; answers per entity (AlterClientQuotas). */
  async alterClientQuotas (alterations: QuotaAlteration[], options?: AdminCallOptions & { validateOnly?: boolean }): Promise<Array<{
    /** The entity asked for. */
    entity: QuotaEntity
    /** The error when altering this entity's quotas failed; absent when it succeeded. */
    error?: BrokerError
  }>> { return await this.#call('alterClientQuotas', options, async () => await quotas.alterClientQuotas(this.#router, alterations, options)) }
  /** The SCRAM mechanisms and iterations of each user (all users without a list); never the passwords (DescribeUserScramCredentials). */
  async describeUserScramCredentials (users?: string[], options?: AdminCallOptions): Promise<ScramUserDescription[]> { return await this.#call('describeUserScramCredentials', options, async () => await scram.describeUserScramCredentials(this.#router, users, options)) }
  /** Sets (the client salts and hashes the password) or deletes SCRAM credentials. */
  async alterUserScramCredentials (alterations: ScramAlteration[], options?: AdminCallOptions): Promise<Array<{
    /** The user asked for. */
    user: string
    /** The error when altering this user's credential failed; absent when it succeeded. */
    error?: BrokerError
  }>> { return await this.#call('alterUserScramCredentials', options, async () => await scram.alterUserScramCredentials(this.#router, alterations, options)) }
  /** A delegation token for the connection's principal (or `owner`); needs a SASL connection (CreateDelegationToken). */
  async createDelegationToken (options?: AdminCallOptions & { renewers?: string[], maxLifetimeMs?: number, owner?: string }): Promise<DelegationToken> { return await this.#call('createDelegationToken', options, async () => await tokens.createDelegationToken(this.#router, options)) }
  /** Extends a token's expiry by `renewPeriodMs` (the broker's default without it); resolves with the new expiry timestamp in ms (RenewDelegationToken). */
  async renewDelegationToken (hmac: Buffer, options?: AdminCallOptions & { renewPeriodMs?: number }): Promise<bigint> { return await this.#call('renewDelegationToken', options, async () => await tokens.renewDelegationToken(this.#router, hmac, options)) }
  /** Sets a token's expiry (at once by default); resolves with the new expiry timestamp in ms (ExpireDelegationToken). */
  async expireDelegationToken (hmac: Buffer, options?: AdminCallOptions & { expiryPeriodMs?: number }): Promise<bigint> { return await this.#call('expireDelegationToken', options, async () => await tokens.expireDelegationToken(this.#router, hmac, options)) }
  /** The delegation tokens the principal may see, of `owners` when given (DescribeDelegationToken). */
  async describeDelegationTokens (options?: AdminCallOptions & { owners?: string[] }): Promise<DelegationToken[]> { return await this.#call('describeDelegationTokens', options, async () => await tokens.describeDelegationTokens(this.#router, options)) }

  // The cluster (cluster.ts)
  /** The brokers, the controller and the cluster id (DescribeCluster). */
  async describeCluster (options?: AdminCallOptions & { includeAuthorizedOperations?: boolean, includeFencedBrokers?: boolean }): Promise<ClusterDescription> { return await this.#call('describeCluster', options, async () => await cluster.describeCluster(this.#router, options)) }
  /** The cluster's finalized and supported feature levels (`metadata.version`, `transaction.version`, `group.version`, `share.version`…) (ApiVersions). */
  async describeFeatures (options?: AdminCallOptions): Promise<FeatureDescription> { return await this.#call('describeFeatures', options, async () => await cluster.describeFeatures(this.#router, options)) }
  /** Answers per feature. */
  async updateFeatures (updates: FeatureUpdate[], options?: AdminCallOptions & { validateOnly?: boolean }): Promise<UpdatedFeature[]> { return await this.#call('updateFeatures', options, async () => await cluster.updateFeatures(this.#router, updates, options)) }
  /** The KRaft metadata quorum: its leader, voters and observers (DescribeQuorum). */
  async describeQuorum (options?: AdminCallOptions): Promise<QuorumDescription> { return await this.#call('describeQuorum', options, async () => await cluster.describeQuorum(this.#router, options)) }
  /** Removes a KRaft broker's registration (a broker shut down for good). */
  async unregisterBroker (brokerId: number, options?: AdminCallOptions): Promise<void> { await this.#call('unregisterBroker', options, async () => await cluster.unregisterBroker(this.#router, brokerId, options)) }
  /** Removes a KRaft controller's registration (a controller shut down for good that is no voter; Kafka 4.4+). */
  async unregisterController (controllerId: number, options?: AdminCallOptions): Promise<void> { await this.#call('unregisterController', options, async () => await cluster.unregisterController(this.#router, controllerId, options)) }
  /** Makes a controller (an observer) a voter of the KRaft quorum (KIP-853, dynamic quorums). */
  async addRaftVoter (voterId: number, voterDirectoryId: string, endpoints: RaftVoterEndpoint[], options?: AdminCallOptions & { clusterId?: string }): Promise<void> { await this.#call('addRaftVoter', options, async () => await cluster.addRaftVoter(this.#router, voterId, voterDirectoryId, endpoints, options)) }
  /** Removes a voter from the KRaft quorum (KIP-853, dynamic quorums). */
  async removeRaftVoter (voterId: number, voterDirectoryId: string, options?: AdminCallOptions & { clusterId?: string }): Promise<void> { await this.#call('removeRaftVoter', options, async () => await cluster.removeRaftVoter(this.#router, voterId, voterDirectoryId, options)) }
  /** Each broker's log directories and the size of each replica in them (DescribeLogDirs). */
  async describeLogDirs (options?: AdminCallOptions & { brokers?: number[], partitions?: TopicPartitionKey[] }): Promise<LogDirDescription[]> { return await this.#call('describeLogDirs', options, async () => await cluster.describeLogDirs(this.#router, options)) }
  /** Moves replicas between log directories of their broker; answers per partition (AlterReplicaLogDirs). */
  async alterReplicaLogDirs (moves: Array<TopicPartitionKey & { broker: number, path: string }>, options?: AdminCallOptions): Promise<PartitionResults<TopicPartitionKey & {
    /** The broker whose replica was to move. */
    broker: number
  }>> { return await this.#call('alterReplicaLogDirs', options, async () => await cluster.alterReplicaLogDirs(this.#router, moves, options)) }

  // Transactions (transactions.ts)
  /** The transactions every broker coordinates, filtered by state, producer id or duration (ListTransactions). */
  async listTransactions (options?: AdminCallOptions & { states?: string[], producerIds?: bigint[], durationMs?: number, transactionalIdPattern?: string }): Promise<ListedTransaction[]> { return await this.#call('listTransactions', options, async () => await transactions.listTransactions(this.#router, options)) }
  /** The state, partitions and timeout of each transactional id, from its coordinator (DescribeTransactions). */
  async describeTransactions (transactionalIds: string[], options?: AdminCallOptions): Promise<TransactionDescription[]> { return await this.#call('describeTransactions', options, async () => await transactions.describeTransactions(this.#router, transactionalIds, options)) }
  /** The active producers of each partition, from its leader: what `abortTransaction` needs (DescribeProducers). */
  async describeProducers (partitions: TopicPartitionKey[], options?: AdminCallOptions): Promise<PartitionProducers[]> { return await this.#call('describeProducers', options, async () => await transactions.describeProducers(this.#router, partitions, options)) }
  /** Writes an ABORT marker for a hanging transaction its coordinator lost, at the partition's leader (WriteTxnMarkers; needs CLUSTER_ACTION); take the values from `describeProducers`. */
  async abortTransaction (spec: AbortTransactionSpec, options?: AdminCallOptions): Promise<void> { await this.#call('abortTransaction', options, async () => await transactions.abortTransaction(this.#router, spec, options)) }
}

/**
 * FakeCluster: an in-process Kafka cluster on loopback for deterministic tests, built on
 * kafkats's own protocol layer. Its main feature is request interception (after franz-go
 * kfake's ControlKey): a test decides, request by request, whether a broker answers
 * normally, late, with an error (before or after writing), not at all, or with a body of
 * the test's choosing. See README.md for the API in short.
 *
 *   const cluster = await FakeCluster.start({ brokers: 3, topics: [{ name: 't', partitions: 2 }] })
 *   const client = new Client({ bootstrap: cluster.bootstrap })
 *   cluster.intercept(Produce, () => ({ error: errorCode('REQUEST_TIMED_OUT'), apply: true }), { times: 1 })
 *   …
 *   assert.equal(cluster.log('t', 0).length, 1)
 *   await cluster.close()
 *
 * Files: state.ts (topics, partitions, producer ids), partition-log.ts (a partition's
 * batches), producer-state.ts (idempotent dedup), broker-server.ts (sockets, framing,
 * ordering), intercept.ts (interception), groups.ts (the group coordinator, with
 * groups-classic.ts, groups-consumer.ts and offsets.ts), handlers/ (one file per API).
 */
import { openFetchSessions } from './handlers/fetch'
import { allApis } from '../protocol/apis/index'
import { BrokerServer, type RequestLogEntry } from './broker-server'
import type { GroupConfig } from './group-common'
import { GroupCoordinator, type GroupEvent, type GroupInfo, type GroupMemberInfo } from './groups'
import { buildHandlers } from './handlers/index'
import { ShareGroups, type ShareRecordState } from './share-groups'
import { TransactionCoordinator, type TransactionEntry, type TransactionEvent } from './transactions'
import type { ProduceBatchSummary } from './handlers/produce'
import { InterceptorRegistry, type ApiSelector, type InterceptOptions, type Interceptor } from './intercept'
import type { CommitLogEntry, CommittedOffset } from './offsets'
import type { LogRecord } from './partition-log'
import { ClusterState, type NewTopicSpec } from './state'

export type { RequestLogEntry, RequestOutcome } from './broker-server'
export type { InterceptAction, InterceptedRequest, Interceptor, InterceptOptions } from './intercept'
export type { LogRecord } from './partition-log'
export type { ProduceBatchSummary } from './handlers/produce'
export type { GroupConfig } from './group-common'
export type { GroupEvent, GroupInfo, GroupMemberInfo } from './groups'
export type { CommitLogEntry, CommitLogPartition, CommittedOffset } from './offsets'

/** Options of `FakeCluster.start(options)`: brokers, topics made before they listen, auto-creation and where refusals are logged. */
export interface FakeClusterOptions {
  /** Number of brokers, node ids 1..n (default 1). */
  brokers?: number
  /** Topics to create before the brokers listen. */
  topics?: Array<{
    /** The topic's name. */
    name: string
    /** Its number of partitions. */
    partitions: number
    /** Its replication factor (default 1; at most the number of brokers). */
    replicationFactor?: number
  }>
  /** Metadata creates unknown topics asked for by name (default false). */
  autoCreateTopics?: boolean
  /** Partitions of auto-created topics and of CreateTopics with numPartitions -1 (default 1). */
  defaultPartitions?: number
  /**
   * Where refusals go (a malformed request, an API without a handler, a throwing
   * interceptor): a function, or false for silence. Default: console.error. Every line
   * is also kept in `cluster.problems`.
   */
  log?: false | ((line: string) => void)
  /**
   * Group coordinator settings (group-common.ts): initialRebalanceDelayMs (default 0),
   * minSessionTimeoutMs (1), maxSessionTimeoutMs, newMemberJoinTimeoutMs,
   * consumerHeartbeatIntervalMs (5000), consumerSessionTimeoutMs (45000),
   * offsetMetadataMaxBytes (4096).
   */
  groups?: Partial<GroupConfig>
  /** The cluster's finalized transaction.version: 2 (default, KIP-890) or 1 (transactions.ts). */
  transactionVersion?: 1 | 2
}

/** A Produce attempt as the broker saw it: one partition's batch of one request. */
export interface ProduceAttempt extends ProduceBatchSummary {
  /** The broker that received the request. */
  brokerId: number
  /** The connection it came on (an id unique in the process). */
  connectionId: number
  /** The request's correlation id. */
  correlationId: number
  /** When the broker received it, in ms since the epoch. */
  receivedAt: number
  /** The request's entry in the request log. */
  entry: RequestLogEntry
}

/** A partition of the fake cluster: its leader and epoch, replicas, and log bounds (`cluster.partitionInfo()`). */
export interface PartitionInfo {
  /** The leader's node id. */
  leader: number
  /** The leader epoch, bumped by each `moveLeader`. */
  leaderEpoch: number
  /** The node ids of its replicas. */
  replicas: number[]
  /** The first offset of its log. */
  logStartOffset: bigint
  /** The offset after its last record. */
  highWatermark: bigint
}

/** An in-process fake Kafka cluster on loopback ports (`await FakeCluster.start(options)`), for tests: any Kafka client can use it, and `intercept()` injects errors, delays, held requests and dropped connections per API. */
export class FakeCluster {
  readonly #state: ClusterState
  readonly #groups: GroupCoordinator
  readonly #txns: TransactionCoordinator
  readonly #shares: ShareGroups
  readonly #servers: BrokerServer[] = []
  readonly #interceptors = new InterceptorRegistry()
  readonly #requests: RequestLogEntry[] = []
  readonly #requestWaiters = new Set<(entry: RequestLogEntry) => void>()
  /** Every line the fake logged: refusals and its own failures. Tests can assert it stays empty. */
  readonly problems: string[] = []
  #closing: Promise<void> | undefined

  private constructor (options: FakeClusterOptions) {
    const brokers = options.brokers ?? 1
    if (!Number.isInteger(brokers) || brokers < 1) throw new RangeError(`FakeCluster needs at least 1 broker, not ${brokers}`)
    const sink = options.log === false ? undefined : options.log ?? ((line: string) => console.error(line))
    this.#state = new ClusterState(brokers, line => {
      const stamped = `[fake-broker] ${line}`
      this.problems.push(stamped)
      sink?.(stamped)
    })
    for (const topic of options.topics ?? []) this.createTopic(topic)
    const defaultPartitions = options.defaultPartitions ?? 1
    this.#groups = new GroupCoordinator(this.#state, options.groups)
    this.#txns = new TransactionCoordinator(this.#state, this.#groups, options.transactionVersion ?? 2)
    this.#shares = new ShareGroups(this.#state)
    const handlers = buildHandlers({ autoCreateTopics: options.autoCreateTopics ?? false, defaultPartitions, groups: this.#groups, txns: this.#txns, shares: this.#shares })
    const apis = new Map(allApis.map(api => [api.key, api]))
    for (const broker of this.#state.brokers) {
      this.#servers.push(new BrokerServer(broker.nodeId, {
        state: this.#state,
        apis,
        handlers,
        interceptors: this.#interceptors,
        record: entry => this.#record(entry)
      }))
    }
  }

  /** Starts the brokers, each on an ephemeral port of 127.0.0.1. */
  static async start (options: FakeClusterOptions = {}): Promise<FakeCluster> {
    const cluster = new FakeCluster(options)
    try {
      const ports = await Promise.all(cluster.#servers.map(async server => await server.listen()))
      cluster.#state.brokers.forEach((broker, i) => { broker.port = ports[i] })
    } catch (error) {
      await cluster.close()
      throw error
    }
    return cluster
  }

  /** 'host:port' of every broker, for a Client's `bootstrap`. */
  get bootstrap (): string[] {
    return this.#state.brokers.map(b => `${b.host}:${b.port}`)
  }

  /** The brokers' node ids, 1..n. */
  get brokerIds (): number[] {
    return this.#state.brokers.map(b => b.nodeId)
  }

  /** The port a broker listens on. */
  port (nodeId: number): number {
    const broker = this.#state.broker(nodeId)
    if (broker === undefined) throw new Error(`No broker ${nodeId}`)
    return broker.port
  }

  // ---------------------------------------------------------------------------------
  // Topics and partitions

  /** Creates a topic directly (no request). Leaders go round-robin; replication factor 1 by default. */
  createTopic (spec: { name: string, partitions: number, replicationFactor?: number, assignments?: number[][], configs?: Record<string, string> }): string {
    const topic = this.#state.createTopic(spec as NewTopicSpec)
    return topic.topicId
  }

  /** A topic's id (a UUID); throws when there is no such topic. */
  topicId (topic: string): string {
    return this.#partitionsOf(topic).topicId
  }

  /** The node id of a partition's leader; throws when there is no such partition. */
  leaderOf (topic: string, partition: number): number {
    return this.#partition(topic, partition).leader
  }

  /** A partition's leader, epoch, replicas and log bounds; throws when there is no such partition. */
  partitionInfo (topic: string, partition: number): PartitionInfo {
    const p = this.#partition(topic, partition)
    return { leader: p.leader, leaderEpoch: p.leaderEpoch, replicas: [...p.replicas], logStartOffset: p.log.logStartOffset, highWatermark: p.log.highWatermark }
  }

  /**
   * Moves a partition's leadership to `nodeId` and bumps its leader epoch. The old leader
   * then answers NOT_LEADER_OR_FOLLOWER for it (FENCED_LEADER_EPOCH to a Fetch or
   * ListOffsets that sends the old epoch, as Kafka checks the epoch first).
   */
  moveLeader (topic: string, partition: number, nodeId: number): void {
    this.#state.moveLeader(topic, partition, nodeId)
  }

  /** The records of a partition's log, in offset order, with their batch's producer id, epoch and sequence. */
  log (topic: string, partition: number): LogRecord[] {
    return this.#partition(topic, partition).log.records()
  }

  /** The offset after a partition's last record; throws when there is no such partition. */
  highWatermark (topic: string, partition: number): bigint {
    return this.#partition(topic, partition).log.highWatermark
  }

  /** Moves the log start offset forward, as DeleteRecords would (fetches below it get OFFSET_OUT_OF_RANGE). */
  setLogStartOffset (topic: string, partition: number, offset: bigint): void {
    this.#partition(topic, partition).log.setLogStartOffset(offset)
  }

  /** Hands out a producer id at `epoch`, as InitProducerId would (e.g. near 32767 to test epoch exhaustion). */
  newProducerId (epoch = 0): {
    /** The new producer id. */
    producerId: bigint
    /** Its epoch: `epoch`. */
    producerEpoch: number
  } {
    const { producerId, producerEpoch } = this.#state.newProducerId(epoch)
    return { producerId, producerEpoch }
  }

  // ---------------------------------------------------------------------------------
  // Interception and the request log

  /**
   * Shows every request of `api` (an Api object or an API key) to `interceptor` before
   * the broker handles it; what it returns decides what the broker does (intercept.ts).
   * Returns a function that removes the interceptor.
   */
  intercept<Request = unknown, Response = unknown> (api: ApiSelector<Request, Response>, interceptor: Interceptor<Request, Response>, options: InterceptOptions = {}): () => void {
    return this.#interceptors.add(typeof api === 'number' ? api : api.key, interceptor as Interceptor, options)
  }

  /** Removes every interceptor. */
  clearInterceptors (): void {
    this.#interceptors.clear()
  }

  /** Every request received (of `api` only, if given), oldest first; entries update as requests are handled. */
  requests<Request = unknown, Response = unknown> (api?: ApiSelector<Request, Response>): Array<RequestLogEntry<Request>> {
    if (api === undefined) return [...this.#requests] as Array<RequestLogEntry<Request>>
    const key = typeof api === 'number' ? api : api.key
    return this.#requests.filter(r => r.apiKey === key) as Array<RequestLogEntry<Request>>
  }

  /** Every partition batch of every Produce request received (optionally of one topic/partition), oldest first. */
  produceAttempts (topic?: string, partition?: number): ProduceAttempt[] {
    const attempts: ProduceAttempt[] = []
    for (const entry of this.#requests) {
      if (entry.apiKey !== 0 || entry.batches === undefined) continue
      for (const batch of entry.batches) {
        if (topic !== undefined && batch.topic !== topic) continue
        if (partition !== undefined && batch.partition !== partition) continue
        attempts.push({ ...batch, brokerId: entry.brokerId, connectionId: entry.connectionId, correlationId: entry.correlationId, receivedAt: entry.receivedAt, entry })
      }
    }
    return attempts
  }

  /** The fetch sessions the brokers hold (KIP-227): broker, session id, partitions in it. */
  fetchSessions (): Array<{
    /** The broker holding the session. */
    brokerId: number
    /** The session's id. */
    id: number
    /** How many partitions are in it. */
    partitions: number
  }> {
    return openFetchSessions(this.#state)
  }

  /** Empties the request log (`requests()`, `produceAttempts()`). */
  clearRequests (): void {
    this.#requests.length = 0
  }

  /**
   * Resolves with the first request of `api` matching `predicate` — one already received
   * or the next to come — or rejects after `timeoutMs` (default 5 s).
   */
  async waitForRequest<Request = unknown, Response = unknown> (api: ApiSelector<Request, Response>, predicate: (entry: RequestLogEntry<Request>) => boolean = () => true, timeoutMs = 5000): Promise<RequestLogEntry<Request>> {
    const key = typeof api === 'number' ? api : api.key
    const matches = (entry: RequestLogEntry): entry is RequestLogEntry<Request> => entry.apiKey === key && predicate(entry as RequestLogEntry<Request>)
    const seen = this.#requests.find(matches)
    if (seen !== undefined) return seen
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#requestWaiters.delete(waiter)
        reject(new Error(`waitForRequest: no matching request of API key ${key} within ${timeoutMs} ms`))
      }, timeoutMs)
      const waiter = (entry: RequestLogEntry): void => {
        if (!matches(entry)) return
        clearTimeout(timer)
        this.#requestWaiters.delete(waiter)
        resolve(entry)
      }
      this.#requestWaiters.add(waiter)
    })
  }

  // ---------------------------------------------------------------------------------
  // Groups and offsets

  // ---------------------------------------------------------------- transactions (transactions.ts)

  /** What a read_committed consumer sees of the partition: records not in a transaction, and those of committed ones. */
  committedLog (topic: string, partition: number): LogRecord[] {
    return this.log(topic, partition).filter(r => this.#txns.statusOf(topic, partition, r.offset) === 'visible')
  }

  /** read_committed's view of one offset. */
  transactionalStatus (topic: string, partition: number, offset: bigint): 'visible' | 'ongoing' | 'aborted' {
    return this.#txns.statusOf(topic, partition, offset)
  }

  /** Share groups made from now on lock acquired records this long (default 30 s). */
  setShareLockMs (ms: number): void {
    this.#shares.lockMs = ms
  }

  /** A share group's record states of one partition, from its start offset on (share-groups.ts). */
  shareRecordStates (groupId: string, topic: string, partition: number): Array<{
    /** The record's offset. */
    offset: bigint
    /** Its state in the share group. */
    state: ShareRecordState
    /** How many times it was delivered. */
    deliveryCount: number
    /** The member holding its lock while acquired; null otherwise. */
    member: string | null
  }> {
    const p = this.#state.partition(topic, partition)
    if (p === undefined) throw new Error(`No partition ${topic}-${partition}`)
    return this.#shares.recordStates(groupId, p)
  }

  /** The coordinator's entry of a transactional id: producer id, epoch, state, partitions, groups. */
  transaction (transactionalId: string): Readonly<TransactionEntry> | undefined {
    return this.#txns.entry(transactionalId)
  }

  /** What the transaction coordinator did (of one transactional id, if given), oldest first, for debugging a test. */
  transactionEvents (transactionalId?: string): TransactionEvent[] {
    return this.#txns.events.filter(e => transactionalId === undefined || e.transactionalId === transactionalId)
  }

  /** The broker that coordinates a transactional id (by hash of the id unless set). */
  transactionCoordinatorOf (transactionalId: string): number {
    return this.#txns.coordinatorFor(transactionalId)
  }

  /** Moves a transactional id's coordinator; requests about it at other brokers get NOT_COORDINATOR. */
  setTransactionCoordinator (transactionalId: string, nodeId: number): void {
    this.#txns.setCoordinator(transactionalId, nodeId)
  }

  /**
   * Aborts every transaction open longer than its timeout at `now` (ms since the epoch; default
   * the wall clock's now, which the coordinator also checks on each request). A test passes a
   * later time to expire a transaction without waiting for its timeout.
   */
  expireTransactions (now?: number): void {
    this.#txns.expireTransactions(now)
  }

  /** The broker that coordinates a group (by hash of the group id unless set). */
  coordinatorOf (groupId: string): number {
    return this.#groups.coordinatorFor(groupId)
  }

  /**
   * Makes `nodeId` the group's coordinator: FindCoordinator names it and the other
   * brokers answer NOT_COORDINATOR. The group's state moves with it; joins and syncs
   * waiting at the old coordinator are answered NOT_COORDINATOR.
   */
  setCoordinator (groupId: string, nodeId: number): void {
    this.#groups.setCoordinator(groupId, nodeId)
  }

  /** Changes group coordinator settings from now on (e.g. a shorter consumerSessionTimeoutMs). */
  configureGroups (config: Partial<GroupConfig>): void {
    Object.assign(this.#groups.config, config)
  }

  /** The committed offset of a group's partition: `{ offset, leaderEpoch, metadata, committedAt }`, or undefined. */
  committedOffset (groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    const committed = this.#groups.offsets.get(groupId, topic, partition)
    return committed === undefined ? undefined : { ...committed }
  }

  /** A group's protocol, state, generation or epochs, and members; undefined when there is no such group. */
  group (groupId: string): GroupInfo | undefined {
    return this.#groups.info(groupId)
  }

  /** The ids of the groups the coordinator knows (including simple groups made by a commit). */
  get groupIds (): string[] {
    return this.#groups.groupIds
  }

  /**
   * A group's members in join order: member id, instance id, generation (classic) or
   * member epoch (consumer), state, and the partitions held (classic: decoded from the
   * leader's assignment bytes; consumer: assigned, pending revocation and target).
   * Empty when there is no such group.
   */
  groupMembers (groupId: string): GroupMemberInfo[] {
    return this.#groups.info(groupId)?.members ?? []
  }

  /**
   * Removes a member as if its session expired: a classic group rebalances (the member's
   * later requests get UNKNOWN_MEMBER_ID), a consumer group frees its partitions and bumps
   * its epoch. Throws when there is no such member.
   */
  fenceMember (groupId: string, memberId: string): void {
    if (!this.#groups.fenceMember(groupId, memberId)) throw new Error(`fenceMember: group "${groupId}" has no member "${memberId}"`)
  }

  /**
   * Every OffsetCommit the coordinator handled (of one group, if given), oldest first:
   * the membership fields sent, what the coordinator knew (group generation or member
   * epoch), the request-level refusal, and per partition what was stored or refused.
   * Requests answered by an interceptor without `apply` are not here (see `requests()`).
   */
  commitLog (groupId?: string): CommitLogEntry[] {
    return this.#groups.commitLog.filter(e => groupId === undefined || e.groupId === groupId)
  }

  /** What the coordinator did (joins, rebalances, generations, epochs, fences, commits), for debugging a test. */
  groupEvents (groupId?: string): GroupEvent[] {
    return this.#groups.events.filter(e => groupId === undefined || e.groupId === groupId)
  }

  // ---------------------------------------------------------------------------------
  // Connections and shutdown

  /** Closes the open connections of one broker, or of all; returns how many. Servers keep listening. */
  closeConnections (nodeId?: number): number {
    let count = 0
    for (const server of this.#servers) {
      if (nodeId === undefined || server.nodeId === nodeId) count += server.closeConnections('closed by the test')
    }
    return count
  }

  /** Open connections to one broker, or to all. */
  connectionCount (nodeId?: number): number {
    return this.#servers.filter(s => nodeId === undefined || s.nodeId === nodeId).reduce((n, s) => n + s.connectionCount, 0)
  }

  /** Closes every connection and server; held and delayed requests are abandoned. */
  async close (): Promise<void> {
    this.#closing ??= (async () => {
      this.#state.markClosed()
      this.#groups.close()
      this.#interceptors.clear()
      await Promise.all(this.#servers.map(async server => await server.close()))
    })()
    await this.#closing
  }

  #record (entry: RequestLogEntry): void {
    this.#requests.push(entry)
    for (const waiter of [...this.#requestWaiters]) waiter(entry)
  }

  #partitionsOf (topic: string): { topicId: string } {
    const t = this.#state.topic(topic)
    if (t === undefined) throw new Error(`No topic "${topic}" (topics: ${this.#state.topics.map(x => x.name).join(', ') || 'none'})`)
    return t
  }

  #partition (topic: string, partition: number): NonNullable<ReturnType<ClusterState['partition']>> {
    this.#partitionsOf(topic)
    const p = this.#state.partition(topic, partition)
    if (p === undefined) throw new Error(`Topic "${topic}" has no partition ${partition}`)
    return p
  }
}

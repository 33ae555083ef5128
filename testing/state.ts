/**
 * The fake cluster's state, shared by every broker and handler: the brokers, the topics
 * and their partitions (leader, leader epoch, replicas, log, producer state), and the
 * producer ids handed out by InitProducerId.
 *
 * Everything here is synchronous and lives on the one Node event loop, so a handler that
 * checks and then changes state without an `await` in between is atomic, as one
 * partition's append is under Kafka's log lock.
 */
import { randomUUID } from 'node:crypto'
import { ErrorCode } from './error-codes'
import { PartitionLog } from './partition-log'
import { ProducerStateTable } from './producer-state'

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

export interface BrokerInfo {
  nodeId: number
  host: string
  /** 0 until the broker's server listens. */
  port: number
  rack: string | null
}

export interface PartitionState {
  topic: TopicState
  index: number
  leader: number
  leaderEpoch: number
  /** The leader first. All replicas are always in sync. */
  replicas: number[]
  log: PartitionLog
  producers: ProducerStateTable
}

export interface TopicState {
  name: string
  topicId: string
  replicationFactor: number
  partitions: PartitionState[]
  configs: Map<string, string | null>
}

export interface NewTopicSpec {
  name: string
  partitions: number
  /** Default 1; at most the number of brokers. */
  replicationFactor?: number
  /** partition → broker ids, the leader first (instead of the round-robin placement). */
  assignments?: number[][]
  configs?: Record<string, string | null>
}

/** Kafka's rule for topic names: 1–249 characters of [a-zA-Z0-9._-], not "." or "..". */
const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/

/** Kafka hands out a new producer id once an epoch reaches Short.MAX_VALUE - 1. */
export const MAX_PRODUCER_EPOCH = 32766

interface ProducerIdState {
  epoch: number
}

export class ClusterState {
  readonly clusterId = 'fake-cluster'
  readonly brokers: BrokerInfo[]
  readonly controllerId: number
  readonly #topics = new Map<string, TopicState>()
  readonly #topicsById = new Map<string, TopicState>()
  readonly #producerIds = new Map<bigint, ProducerIdState>()
  #nextProducerId = 1000n
  /** Where the fake reports what it refused or could not do. */
  readonly log: (line: string) => void
  /** Settles when the cluster closes: long polls, delays and holds stop waiting. */
  readonly closed: Promise<void>
  #markClosed!: () => void
  #isClosed = false

  constructor (brokerCount: number, log: (line: string) => void) {
    this.brokers = Array.from({ length: brokerCount }, (_, i) => ({ nodeId: i + 1, host: '127.0.0.1', port: 0, rack: null }))
    this.controllerId = this.brokers[0].nodeId
    this.log = log
    this.closed = new Promise(resolve => { this.#markClosed = resolve })
  }

  get isClosed (): boolean {
    return this.#isClosed
  }

  markClosed (): void {
    this.#isClosed = true
    this.#markClosed()
  }

  broker (nodeId: number): BrokerInfo | undefined {
    return this.brokers.find(b => b.nodeId === nodeId)
  }

  get topics (): TopicState[] {
    return [...this.#topics.values()]
  }

  topic (name: string): TopicState | undefined {
    return this.#topics.get(name)
  }

  topicById (topicId: string): TopicState | undefined {
    return this.#topicsById.get(topicId)
  }

  partition (topic: string, partition: number): PartitionState | undefined {
    return this.#topics.get(topic)?.partitions[partition]
  }

  /** Checks a new topic; returns an error code and message, or undefined when it can be created. */
  validateTopic (spec: NewTopicSpec): { errorCode: number, message: string } | undefined {
    if (!LEGAL_TOPIC_NAME.test(spec.name) || spec.name === '.' || spec.name === '..') {
      return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, message: `"${spec.name}" is not a legal topic name: use 1–249 of [a-zA-Z0-9._-]` }
    }
    if (this.#topics.has(spec.name)) return { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, message: `Topic '${spec.name}' already exists.` }
    if (spec.assignments !== undefined) {
      if (spec.assignments.length === 0) return { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, message: 'the replica assignment is empty' }
      for (const replicas of spec.assignments) {
        if (replicas === undefined || replicas.length === 0 || replicas.some(id => this.broker(id) === undefined) || new Set(replicas).size !== replicas.length) {
          return { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, message: `replica assignment ${JSON.stringify(spec.assignments)} names no, unknown or repeated brokers` }
        }
      }
      return undefined
    }
    if (!Number.isInteger(spec.partitions) || spec.partitions < 1) return { errorCode: ErrorCode.INVALID_PARTITIONS, message: `Number of partitions must be larger than 0, not ${spec.partitions}.` }
    const rf = spec.replicationFactor ?? 1
    if (!Number.isInteger(rf) || rf < 1 || rf > this.brokers.length) {
      return { errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, message: `Replication factor ${rf} must be between 1 and the ${this.brokers.length} available brokers.` }
    }
    return undefined
  }

  /** Creates a topic (throws when `validateTopic` refuses it). Leaders go round-robin over the brokers. */
  createTopic (spec: NewTopicSpec): TopicState {
    const problem = this.validateTopic(spec)
    if (problem !== undefined) throw new Error(`Cannot create topic "${spec.name}": ${problem.message}`)
    const count = spec.assignments?.length ?? spec.partitions
    const rf = spec.assignments?.[0].length ?? spec.replicationFactor ?? 1
    const topic: TopicState = {
      name: spec.name,
      topicId: randomUUID(),
      replicationFactor: rf,
      partitions: [],
      configs: new Map(Object.entries(spec.configs ?? {}))
    }
    const n = this.brokers.length
    const offset = this.#topics.size // spreads the first leaders of different topics
    for (let p = 0; p < count; p++) {
      const replicas = spec.assignments?.[p] ?? Array.from({ length: rf }, (_, r) => this.brokers[(p + offset + r) % n].nodeId)
      topic.partitions.push({ topic, index: p, leader: replicas[0], leaderEpoch: 0, replicas: [...replicas], log: new PartitionLog(), producers: new ProducerStateTable() })
    }
    this.#topics.set(topic.name, topic)
    this.#topicsById.set(topic.topicId, topic)
    return topic
  }

  /** Makes `nodeId` the partition's leader and bumps the leader epoch (also when the leader stays). */
  moveLeader (topic: string, partition: number, nodeId: number): PartitionState {
    const p = this.partition(topic, partition)
    if (p === undefined) throw new Error(`moveLeader: no partition ${topic}-${partition}`)
    if (this.broker(nodeId) === undefined) throw new Error(`moveLeader: no broker ${nodeId} (brokers: ${this.brokers.map(b => b.nodeId).join(', ')})`)
    const others = p.replicas.filter(id => id !== nodeId)
    // A leader from outside the replica set takes the place of the last replica.
    p.replicas = [nodeId, ...others].slice(0, Math.max(p.replicas.length, 1))
    p.leader = nodeId
    p.leaderEpoch++
    return p
  }

  /**
   * InitProducerId for an idempotent producer. Without a current id: a new id at epoch 0.
   * With one (KIP-360): its epoch + 1, or a new id once the epoch is exhausted; a retry
   * that repeats the previous epoch gets the current one again; any other epoch is fenced.
   */
  initProducerId (current: { producerId: bigint, producerEpoch: number } | undefined): { errorCode: number, producerId: bigint, producerEpoch: number } {
    if (current === undefined || current.producerId < 0n) return this.newProducerId(0)
    const known = this.#producerIds.get(current.producerId)
    if (known === undefined) return this.newProducerId(0)
    if (current.producerEpoch === known.epoch) {
      if (known.epoch >= MAX_PRODUCER_EPOCH) return this.newProducerId(0)
      known.epoch++
      return { errorCode: ErrorCode.NONE, producerId: current.producerId, producerEpoch: known.epoch }
    }
    if (current.producerEpoch === known.epoch - 1) return { errorCode: ErrorCode.NONE, producerId: current.producerId, producerEpoch: known.epoch }
    return { errorCode: ErrorCode.PRODUCER_FENCED, producerId: -1n, producerEpoch: -1 }
  }

  /** Hands out a new producer id at `epoch` (tests use a high epoch to reach the overflow). */
  newProducerId (epoch = 0): { errorCode: number, producerId: bigint, producerEpoch: number } {
    const producerId = this.#nextProducerId++
    this.#producerIds.set(producerId, { epoch })
    return { errorCode: ErrorCode.NONE, producerId, producerEpoch: epoch }
  }
}

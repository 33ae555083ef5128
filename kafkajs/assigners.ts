/**
 * kafkajs's group assignment API: `AssignerProtocol` (the member metadata and assignment
 * bytes, identical to kafkajs's), `PartitionAssigners.roundRobin` (kafkajs's order: members
 * by id, partitions topic by topic in metadata order), and the adapter that runs a kafkajs
 * assigner as a kafkats classic-protocol Assignor.
 */
import type { Assignor, MemberSubscription, TopicPartition } from '../group/assignors'
import { Reader } from '../protocol/reader'
import { Writer } from '../protocol/writer'
import { KafkaJSNotImplemented } from './errors'
import type { Assigner, Cluster, MemberAssignment, MemberMetadata, PartitionAssigner, PartitionMetadata } from './types'

export type { Assigner, GroupMember, GroupMemberAssignment, GroupState, PartitionAssigner, PartitionMetadata } from './types'


/** The consumer protocol's byte formats, as kafkajs's assigners read and write them (the same bytes as kafkajs's). */
export const AssignerProtocol = {
  /** A member's subscription: version, topics, user data. */
  MemberMetadata: {
    /** The subscription as bytes (`userData` default: empty). */
    encode ({ version, topics, userData = Buffer.alloc(0) }: { version: number, topics: string[], userData?: Buffer }): Buffer {
      const w = new Writer(64)
      w.int16(version)
      w.int32(topics.length)
      for (const topic of topics) w.string(topic)
      w.bytes(userData)
      return w.finish()
    },
    /** The subscription from bytes. */
    decode (buffer: Buffer): MemberMetadata {
      const r = new Reader(buffer)
      const version = r.int16()
      const topics: string[] = []
      for (let n = r.int32(); n > 0; n--) topics.push(r.string() ?? '')
      return { version, topics, userData: r.bytes() ?? Buffer.alloc(0) }
    }
  },
  /** A member's assignment: version, partitions by topic, user data. */
  MemberAssignment: {
    /** The assignment as bytes (`userData` default: empty). */
    encode ({ version, assignment, userData = Buffer.alloc(0) }: { version: number, assignment: Record<string, number[]>, userData?: Buffer }): Buffer {
      const w = new Writer(64)
      w.int16(version)
      const topics = Object.keys(assignment)
      w.int32(topics.length)
      for (const topic of topics) {
        w.string(topic)
        w.int32(assignment[topic].length)
        for (const partition of assignment[topic]) w.int32(partition)
      }
      w.bytes(userData)
      return w.finish()
    },
    /** The assignment from bytes; null when there are fewer than 2 (an empty assignment). */
    decode (buffer: Buffer): MemberAssignment | null {
      if (buffer.length < 2) return null
      const r = new Reader(buffer)
      const version = r.int16()
      const assignment: Record<string, number[]> = {}
      for (let n = r.int32(); n > 0; n--) {
        const topic = r.string() ?? ''
        const partitions: number[] = []
        for (let m = r.int32(); m > 0; m--) partitions.push(r.int32())
        assignment[topic] = partitions
      }
      return { version, assignment, userData: r.bytes() ?? Buffer.alloc(0) }
    }
  }
}

/**
 * The `cluster` a kafkajs assigner gets: kafkats/kafkajs has no kafkajs Cluster, so it answers
 * `findTopicPartitionMetadata` (all kafkajs's own round robin uses) and refuses the rest by name.
 */
export function assignerCluster (findTopicPartitionMetadata: (topic: string) => PartitionMetadata[]): Cluster {
  const cluster: Partial<Cluster> = { findTopicPartitionMetadata }
  return new Proxy(cluster, {
    get (target, name) {
      const value = target[name as keyof Cluster]
      if (value !== undefined || typeof name !== 'string') return value
      return () => { throw new KafkaJSNotImplemented(`cluster.${name}() is not available to a partition assigner in kafkats/kafkajs (findTopicPartitionMetadata is)`) }
    }
  }) as Cluster
}

const roundRobin: PartitionAssigner = ({ cluster }) => ({
  name: 'RoundRobinAssigner',
  version: 0,
  async assign ({ members, topics }) {
    const memberIds = members.map(m => m.memberId).sort()
    const plan = new Map<string, Record<string, number[]>>()
    let i = 0
    for (const topic of topics) {
      for (const { partitionId } of cluster.findTopicPartitionMetadata(topic)) {
        const memberId = memberIds[i++ % memberIds.length]
        let assignment = plan.get(memberId)
        if (assignment === undefined) plan.set(memberId, assignment = Object.create(null) as Record<string, number[]>)
        ;(assignment[topic] ??= []).push(partitionId)
      }
    }
    return [...plan].map(([memberId, assignment]) => ({ memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment }) }))
  },
  protocol ({ topics }) {
    return { name: 'RoundRobinAssigner', metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics }) }
  }
})

/** kafkajs's assignment strategies, for the `partitionAssigners` option. */
export const PartitionAssigners = {
  /** `RoundRobinAssigner` (the default): members sorted by id take the partitions in turn, topic by topic. */
  roundRobin
}

/** A kafkajs assigner as a kafkats Assignor (eager, as every kafkajs assigner is). */
export function toAssignor (assigner: Assigner, subscribedTopics: () => string[], onAssign: () => void = () => {}): Assignor {
  return {
    name: assigner.name,
    protocol: 'eager',
    subscriptionUserData () {
      const state = assigner.protocol({ topics: subscribedTopics() })
      return AssignerProtocol.MemberMetadata.decode(state.metadata).userData
    },
    async assign (members: MemberSubscription[], partitionCounts: ReadonlyMap<string, number>) {
      onAssign()
      // kafkajs's leader assigns the topics it subscribes to, not the union of the members' subscriptions.
      const topics = subscribedTopics().filter(t => partitionCounts.has(t))
      const result = await assigner.assign({
        members: members.map(m => ({ memberId: m.memberId, memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: assigner.version, topics: m.topics, userData: m.userData ?? Buffer.alloc(0) }) })),
        topics
      })
      const plan = new Map<string, TopicPartition[]>(members.map(m => [m.memberId, []]))
      for (const { memberId, memberAssignment } of result) {
        const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment)
        const partitions: TopicPartition[] = []
        for (const [topic, list] of Object.entries(decoded?.assignment ?? {})) for (const partition of list) partitions.push({ topic, partition })
        plan.set(memberId, partitions)
      }
      return plan
    }
  }
}

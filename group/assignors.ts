/**
 * Client-side partition assignors of the classic consumer group protocol.
 *
 * In the classic protocol the group leader (one of the members) computes the assignment: it gets
 * every member's subscription from JoinGroup, runs the assignor all members agreed on and sends
 * the result in SyncGroup. So a kafkats leader must assign exactly like a Java leader would, or a
 * mixed group would see partitions move back and forth. These are written from the rules of the
 * Java client's RangeAssignor, RoundRobinAssignor and CooperativeStickyAssignor:
 *
 * - range: per topic, contiguous ranges over the members subscribed to it.
 * - roundrobin: every partition, sorted by topic and partition, dealt over the members in turn.
 * - cooperative-sticky: balanced, keeps what members own, and never hands a partition straight
 *   from one member to another in the same rebalance (KIP-429): the owner revokes it first and the
 *   follow-up rebalance gives it away.
 *
 * Rack-aware assignment (KIP-881) needs the racks of each partition's replicas, which the caller
 * does not pass here; like the Java assignors without replica racks, these ignore `rack`.
 */

import type { TopicPartition } from './membership'
export type { TopicPartition }

/** What a classic group's leader knows of each member when it assigns: its subscription, what it owns, its rack and user data. */
export interface MemberSubscription {
  /** The member's id. */
  memberId: string
  /** group.instance.id (static membership, KIP-345), or null. */
  instanceId: string | null
  /** The topics the member subscribes to. */
  topics: string[]
  /** Partitions the member owns now (cooperative protocol; empty for eager members). */
  ownedPartitions: TopicPartition[]
  /** The generation ownedPartitions were owned in (-1 unknown). */
  generation: number
  /** The member's rack (KIP-881); null when it has none. */
  rack: string | null
  /** The assignor's own bytes the member sent with its subscription; null for none. */
  userData: Buffer | null
}

/** A classic group's partition assignor, run by the member the coordinator chose as leader (the `assignor` option; `'cooperative-sticky'` by default). */
export interface Assignor {
  /** The protocol name in JoinGroup ('range', 'roundrobin', 'cooperative-sticky', as the Java client names them). */
  readonly name: string
  /** 'eager' (revoke everything before rejoining) or 'cooperative' (KIP-429: revoke only what moves). */
  readonly protocol: 'eager' | 'cooperative'
  /** Per member id, its partitions (or a promise of them). `partitionCounts` has every subscribed topic that exists. */
  assign (members: MemberSubscription[], partitionCounts: ReadonlyMap<string, number>): Map<string, TopicPartition[]> | Promise<Map<string, TopicPartition[]>>
  /** Optional userData to put in this member's subscription. */
  subscriptionUserData? (): Buffer | null
}

/** The built-in assignors answer at once. */
export interface SyncAssignor extends Assignor {
  assign (members: MemberSubscription[], partitionCounts: ReadonlyMap<string, number>): Map<string, TopicPartition[]>
}

/** Java's String.compareTo: UTF-16 code unit order, which is also what `<` compares in JS. */
function compareStrings (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Java's member order (AbstractPartitionAssignor.MemberInfo): members with a group.instance.id
 * first, by instance id, then the others by member id. Instance ids survive restarts while member
 * ids do not, so static members keep their place and their partitions across a rolling bounce.
 */
function compareMembers (a: MemberSubscription, b: MemberSubscription): number {
  if (a.instanceId !== null && b.instanceId !== null) return compareStrings(a.instanceId, b.instanceId)
  if (a.instanceId !== null) return -1
  if (b.instanceId !== null) return 1
  return compareStrings(a.memberId, b.memberId)
}

function comparePartitions (a: TopicPartition, b: TopicPartition): number {
  return compareStrings(a.topic, b.topic) || a.partition - b.partition
}

/** An empty list for every member: Java answers every member, even those that get nothing. */
function emptyAssignment (members: readonly MemberSubscription[]): Map<string, TopicPartition[]> {
  const assignment = new Map<string, TopicPartition[]>()
  for (const member of members) assignment.set(member.memberId, [])
  return assignment
}

/**
 * The topics someone subscribes to that exist with at least one partition, sorted by name, with
 * their partition counts. Topics missing from metadata are skipped, as Java does.
 */
function assignableTopics (members: readonly MemberSubscription[], partitionCounts: ReadonlyMap<string, number>): Map<string, number> {
  const names = new Set<string>()
  for (const member of members) for (const topic of member.topics) names.add(topic)
  const topics = new Map<string, number>()
  for (const topic of [...names].sort(compareStrings)) {
    const count = partitionCounts.get(topic)
    if (count !== undefined && Number.isInteger(count) && count > 0) topics.set(topic, count)
  }
  return topics
}

/** Classic groups' `'range'` assignor (Java's RangeAssignor): each topic's partitions in consecutive ranges, one range per member. */
export const rangeAssignor: SyncAssignor = {
  name: 'range',
  protocol: 'eager',
  assign (members, partitionCounts) {
    const assignment = emptyAssignment(members)
    const sortedMembers = [...members].sort(compareMembers)
    const subscribed = sortedMembers.map(member => new Set(member.topics))
    for (const [topic, count] of assignableTopics(members, partitionCounts)) {
      const consumers = sortedMembers.filter((_, i) => subscribed[i].has(topic))
      const perMember = Math.floor(count / consumers.length)
      const membersWithExtra = count % consumers.length
      let next = 0
      for (let i = 0; i < consumers.length; i++) {
        const end = next + perMember + (i < membersWithExtra ? 1 : 0)
        const partitions = assignment.get(consumers[i].memberId)!
        for (; next < end; next++) partitions.push({ topic, partition: next })
      }
    }
    return assignment
  }
}

/** Classic groups' `'roundrobin'` assignor (Java's RoundRobinAssignor): all partitions dealt to the members in turn. */
export const roundRobinAssignor: SyncAssignor = {
  name: 'roundrobin',
  protocol: 'eager',
  assign (members, partitionCounts) {
    const assignment = emptyAssignment(members)
    const sortedMembers = [...members].sort(compareMembers)
    const subscribed = sortedMembers.map(member => new Set(member.topics))
    // One cursor over the members for all topics, skipping those not subscribed to the topic at hand.
    // It always finds someone: a topic is only here because some member subscribes to it.
    let cursor = 0
    for (const [topic, count] of assignableTopics(members, partitionCounts)) {
      for (let partition = 0; partition < count; partition++) {
        while (!subscribed[cursor].has(topic)) cursor = (cursor + 1) % sortedMembers.length
        assignment.get(sortedMembers[cursor].memberId)!.push({ topic, partition })
        cursor = (cursor + 1) % sortedMembers.length
      }
    }
    return assignment
  }
}

/**
 * The generation a member's ownedPartitions are from. Subscriptions v2+ carry it (KIP-792); older
 * ones (and Java clients before 3.x) put it as one int32 in the cooperative-sticky userData.
 */
function ownedGeneration (member: MemberSubscription): number {
  if (member.generation >= 0) return member.generation
  if (member.userData !== null && member.userData.length >= 4) return member.userData.readInt32BE(0)
  return -1
}

/** The userData the Java CooperativeStickyAssignor sends: the generation its partitions are from. */
export function cooperativeStickyUserData (generation: number): Buffer {
  const userData = Buffer.alloc(4)
  userData.writeInt32BE(generation)
  return userData
}

/** A claim on a partition: the newest generation claiming it, and who; null owner when two members claim it in that generation. */
interface Claim { generation: number, owner: string | null }

/**
 * Who owned each partition before this rebalance, from the members' ownedPartitions. As in Java's
 * AbstractStickyAssignor: the claim from the highest generation wins and older claims are ignored
 * (a member that missed a rebalance still reports what it owned then); two members claiming a
 * partition in the same generation is invalid input, so neither is treated as its owner.
 * Per topic, indexed by partition number.
 */
function resolveClaims (members: readonly MemberSubscription[], topics: ReadonlyMap<string, number>): Map<string, Array<Claim | undefined>> {
  const claims = new Map<string, Array<Claim | undefined>>()
  for (const [topic, count] of topics) claims.set(topic, new Array<Claim | undefined>(count))
  for (const member of members) {
    const generation = ownedGeneration(member)
    for (const { topic, partition } of member.ownedPartitions) {
      const topicClaims = claims.get(topic)
      // Partitions of topics nobody subscribes to any more, or that do not exist, are owned by nobody.
      if (topicClaims === undefined || !Number.isInteger(partition) || partition < 0 || partition >= topicClaims.length) continue
      const claim = topicClaims[partition]
      if (claim === undefined || generation > claim.generation) {
        topicClaims[partition] = { generation, owner: member.memberId }
      } else if (generation === claim.generation && claim.owner !== member.memberId) {
        claim.owner = null
      }
    }
  }
  return claims
}

/**
 * The sticky assignment, before the cooperative rule is applied. It reaches the same kind of
 * result as Java's AbstractStickyAssignor (its "constrained" and "general" builders), by other
 * means that do not need its HashMap iteration order:
 *
 * 1. Every member keeps the partitions it validly owns and is still subscribed to.
 * 2. Each remaining partition, topics with the fewest subscribers first, goes to the subscribed
 *    member holding the fewest partitions (ties: lowest member id). From scratch with equal
 *    subscriptions this deals the partitions round robin over the members, as Java does.
 * 3. While some chain of hand-overs can move load from a member to one holding at least two
 *    fewer, the cheapest such chain is applied (see cheapestImprovingChain), giving away
 *    partitions members got in step 2 before partitions they owned. This ends with the least sum
 *    of squared counts, which passes Java's isBalanced() and, with equal subscriptions, means every
 *    member's count is within one of every other's.
 */
function stickyAssignment (members: readonly MemberSubscription[], topics: ReadonlyMap<string, number>,
  claims: ReadonlyMap<string, Array<Claim | undefined>>): Map<string, Map<string, number[]>> {
  const byId = [...members].sort((a, b) => compareStrings(a.memberId, b.memberId))
  const counts = new Map<string, number>()
  /** Per member, per topic, the partitions it holds. */
  const held = new Map<string, Map<string, number[]>>()
  /** Per topic, the members subscribed to it, by member id. */
  const subscribers = new Map<string, string[]>()
  for (const topic of topics.keys()) subscribers.set(topic, [])
  for (const member of byId) {
    counts.set(member.memberId, 0)
    held.set(member.memberId, new Map())
    for (const topic of new Set(member.topics)) subscribers.get(topic)?.push(member.memberId)
  }
  const hold = (memberId: string, topic: string, partition: number): void => {
    const memberTopics = held.get(memberId)!
    let partitions = memberTopics.get(topic)
    if (partitions === undefined) memberTopics.set(topic, partitions = [])
    partitions.push(partition)
    counts.set(memberId, counts.get(memberId)! + 1)
  }
  const leastLoaded = (candidates: readonly string[]): string => {
    let best = candidates[0]
    for (const candidate of candidates) if (counts.get(candidate)! < counts.get(best)!) best = candidate
    return best
  }

  // 1. Keep what is validly owned and still subscribed to.
  const placed = new Map<string, boolean[]>()
  for (const [topic, count] of topics) {
    const topicPlaced = new Array<boolean>(count).fill(false)
    placed.set(topic, topicPlaced)
    const topicClaims = claims.get(topic)!
    const topicSubscribers = new Set(subscribers.get(topic))
    for (let partition = 0; partition < count; partition++) {
      const owner = topicClaims[partition]?.owner
      if (owner != null && topicSubscribers.has(owner)) {
        hold(owner, topic, partition)
        topicPlaced[partition] = true
      }
    }
  }

  // 2. Place the rest on the least loaded subscribers, the most constrained topics first.
  const fillOrder = [...topics.keys()].sort((a, b) => subscribers.get(a)!.length - subscribers.get(b)!.length || compareStrings(a, b))
  for (const topic of fillOrder) {
    const topicPlaced = placed.get(topic)!
    const topicSubscribers = subscribers.get(topic)!
    for (let partition = 0; partition < topicPlaced.length; partition++) {
      if (topicPlaced[partition]) continue
      hold(leastLoaded(topicSubscribers), topic, partition)
    }
  }

  // 3. Balance along chains of moves, cheapest first.
  const ownedBy = (memberId: string, topic: string, partition: number): boolean => claims.get(topic)![partition]?.owner === memberId
  const memberIds = byId.map(member => member.memberId)
  const subscribedTopics = new Map(memberIds.map(id => [id, [] as string[]]))
  for (const [topic, ids] of subscribers) for (const id of ids) subscribedTopics.get(id)!.push(topic)
  for (;;) {
    const chain = cheapestImprovingChain(memberIds, counts, held, subscribedTopics, ownedBy)
    if (chain === undefined) return held
    // Hand over from the receiving end first, so each giver gives from what it held when the chain was priced.
    for (let i = chain.length - 1; i >= 0; i--) {
      const { from, to, topic } = chain[i]
      const memberTopics = held.get(from)!
      const partitions = memberTopics.get(topic)!
      const unowned = partitions.findIndex(partition => !ownedBy(from, topic, partition))
      const [partition] = partitions.splice(unowned >= 0 ? unowned : partitions.length - 1, 1)
      if (partitions.length === 0) memberTopics.delete(topic)
      counts.set(from, counts.get(from)! - 1)
      hold(to, topic, partition)
    }
  }
}

interface Hop { from: string, to: string, topic: string }

/**
 * A chain of hand-overs X → … → Y, each giving the next member one partition of a topic it is
 * subscribed to, with X holding at least two more partitions than Y: applying it moves one
 * partition's worth of load from X to Y and lowers the sum of squared counts. Of all such chains,
 * one that moves the fewest partitions their holder owned before this rebalance (0-1 BFS, cost 1
 * per hop that must give an owned partition), or undefined when there is none.
 *
 * Why chains and not single moves: the counts members can reach form an M-convex set, so an
 * assignment with no improving chain has the least sum of squares of all (and so passes Java's
 * isBalanced()), and if an assignment of that least sum keeps every owned partition, a chain of
 * cost 0 exists whenever one is still needed. The cooperative follow-up rebalance is such a case:
 * its owned partitions are the previous result minus what was withheld, so it completes the
 * assignment without taking anything from anyone, and two rounds always settle.
 */
function cheapestImprovingChain (memberIds: readonly string[], counts: ReadonlyMap<string, number>,
  held: ReadonlyMap<string, ReadonlyMap<string, number[]>>, subscribedTopics: ReadonlyMap<string, readonly string[]>,
  ownedBy: (memberId: string, topic: string, partition: number) => boolean): Hop[] | undefined {
  let most = 0
  for (const id of memberIds) most = Math.max(most, counts.get(id)!)
  // Per topic, who holds any of its partitions, and whether one it could give away unowned.
  const holders = new Map<string, Array<{ id: string, cost: number }>>()
  for (const id of memberIds) {
    for (const [topic, partitions] of held.get(id)!) {
      let list = holders.get(topic)
      if (list === undefined) holders.set(topic, list = [])
      list.push({ id, cost: partitions.some(partition => !ownedBy(id, topic, partition)) ? 0 : 1 })
    }
  }
  let best: { cost: number, chain: Hop[] } | undefined
  const levels = [...new Set(memberIds.map(id => counts.get(id)!))].filter(level => level + 2 <= most).sort((a, b) => a - b)
  for (const level of levels) {
    // Search backwards from every member at this level, towards members that could give to them,
    // through topic nodes (receiver → topic it subscribes to → a holder of that topic) so each
    // topic is expanded once. Costs are 0 or 1: one bucket of members per cost.
    const cost = new Map<string, number>()
    const next = new Map<string, Hop>()
    const expandedTopics = new Set<string>()
    const settled = new Set<string>()
    const buckets: string[][] = [memberIds.filter(id => counts.get(id) === level)]
    for (const id of buckets[0]) cost.set(id, 0)
    for (let bucketCost = 0; bucketCost < buckets.length; bucketCost++) {
      const bucket = buckets[bucketCost]
      // The bucket grows while it is read: cost-0 hops add to it.
      for (let i = 0; i < bucket.length; i++) {
        const receiver = bucket[i]
        if (settled.has(receiver) || cost.get(receiver) !== bucketCost) continue
        settled.add(receiver)
        for (const topic of subscribedTopics.get(receiver)!) {
          if (expandedTopics.has(topic)) continue
          expandedTopics.add(topic)
          for (const { id: giver, cost: hopCost } of holders.get(topic) ?? []) {
            const giverCost = bucketCost + hopCost
            if (giver === receiver || giverCost >= (cost.get(giver) ?? Infinity)) continue
            cost.set(giver, giverCost)
            next.set(giver, { from: giver, to: receiver, topic })
            ;(buckets[giverCost] ??= []).push(giver)
          }
        }
      }
    }
    for (const id of memberIds) {
      const giverCost = cost.get(id)
      if (giverCost === undefined || counts.get(id)! < level + 2 || (best !== undefined && giverCost >= best.cost)) continue
      const chain: Hop[] = []
      for (let hop = next.get(id); hop !== undefined; hop = next.get(hop.to)) chain.push(hop)
      best = { cost: giverCost, chain }
    }
    if (best?.cost === 0) break
  }
  return best?.chain
}

/** Classic groups' `'cooperative-sticky'` assignor, the default (Java's CooperativeStickyAssignor): balanced, keeps members' partitions where it can, and moves a partition only after its owner gave it up (incremental rebalances). */
export const cooperativeStickyAssignor: SyncAssignor = {
  name: 'cooperative-sticky',
  protocol: 'cooperative',
  assign (members, partitionCounts) {
    const topics = assignableTopics(members, partitionCounts)
    const claims = resolveClaims(members, topics)
    const held = stickyAssignment(members, topics, claims)
    const assignment = emptyAssignment(members)
    for (const [memberId, memberTopics] of held) {
      const partitions = assignment.get(memberId)!
      for (const [topic, numbers] of memberTopics) {
        const topicClaims = claims.get(topic)!
        for (const partition of numbers) {
          // KIP-429: a partition moving away from its owner is left out of this round. The owner sees
          // it missing from its assignment, revokes it and rejoins; the follow-up rebalance hands it
          // over, so no two members ever hold it at once. A partition two members claimed in the same
          // generation is left out too, so both let go of it first (Java does the same).
          const claim = topicClaims[partition]
          if (claim !== undefined && claim.owner !== memberId) continue
          partitions.push({ topic, partition })
        }
      }
      partitions.sort(comparePartitions)
    }
    return assignment
  }
}

const assignorsByName = new Map<string, Assignor>([rangeAssignor, roundRobinAssignor, cooperativeStickyAssignor].map(assignor => [assignor.name, assignor]))

export function assignorByName (name: string): Assignor | undefined {
  return assignorsByName.get(name)
}

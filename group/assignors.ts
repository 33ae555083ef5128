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

export interface TopicPartition { topic: string, partition: number }

export interface MemberSubscription {
  memberId: string
  /** group.instance.id (static membership, KIP-345), or null. */
  instanceId: string | null
  topics: string[]
  /** Partitions the member owns now (cooperative protocol; empty for eager members). */
  ownedPartitions: TopicPartition[]
  /** The generation ownedPartitions were owned in (-1 unknown). */
  generation: number
  rack: string | null
  userData: Buffer | null
}

export interface Assignor {
  /** The protocol name in JoinGroup ('range', 'roundrobin', 'cooperative-sticky', as the Java client names them). */
  readonly name: string
  /** 'eager' (revoke everything before rejoining) or 'cooperative' (KIP-429: revoke only what moves). */
  readonly protocol: 'eager' | 'cooperative'
  /** Per member id, its partitions. `partitionCounts` has every subscribed topic that exists. */
  assign (members: MemberSubscription[], partitionCounts: ReadonlyMap<string, number>): Map<string, TopicPartition[]>
  /** Optional userData to put in this member's subscription. */
  subscriptionUserData? (): Buffer | null
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

export const rangeAssignor: Assignor = {
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

export const roundRobinAssignor: Assignor = {
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
 * result as Java's AbstractStickyAssignor (its "constrained" and "general" builders), by simpler
 * means that do not need its HashMap iteration order:
 *
 * 1. Every member keeps the partitions it validly owns and is still subscribed to.
 * 2. Each remaining partition, topics with the fewest subscribers first, goes to the subscribed
 *    member holding the fewest partitions (ties: lowest member id). From scratch with equal
 *    subscriptions this deals the partitions round robin over the members, as Java does.
 * 3. While some member X holds a partition of a topic that a member Y is subscribed to and Y holds
 *    at least two fewer partitions than X, one such partition moves from X to Y (one X got in step
 *    2 if there is one, so owned partitions move only when they must). Each move strictly lowers
 *    the sum of squared counts, so this ends; it ends exactly when Java's isBalanced() holds, which
 *    with equal subscriptions means every member's count is within one of every other's.
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
  const leastLoaded = (candidates: readonly string[], except?: string): string | undefined => {
    let best: string | undefined
    for (const candidate of candidates) {
      if (candidate !== except && (best === undefined || counts.get(candidate)! < counts.get(best)!)) best = candidate
    }
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
      hold(leastLoaded(topicSubscribers)!, topic, partition)
    }
  }

  // 3. Move partitions from the most loaded members while that improves balance.
  const ownedBy = (memberId: string, topic: string, partition: number): boolean => claims.get(topic)![partition]?.owner === memberId
  for (;;) {
    let moved = false
    const mostLoadedFirst = byId.map(member => member.memberId).sort((a, b) => counts.get(b)! - counts.get(a)!)
    for (const from of mostLoadedFirst) {
      const fromCount = counts.get(from)!
      const memberTopics = held.get(from)!
      const topicNames = [...memberTopics.keys()].sort(compareStrings)
      // First a partition `from` did not own before this rebalance (moving it costs no revocation), then any.
      for (const preferUnowned of [true, false]) {
        for (const topic of topicNames) {
          const partitions = memberTopics.get(topic)!
          const index = preferUnowned ? partitions.findIndex(partition => !ownedBy(from, topic, partition)) : partitions.length - 1
          if (index < 0) continue
          const to = leastLoaded(subscribers.get(topic)!, from)
          if (to === undefined || counts.get(to)! + 1 >= fromCount) continue
          const [partition] = partitions.splice(index, 1)
          if (partitions.length === 0) memberTopics.delete(topic)
          counts.set(from, fromCount - 1)
          hold(to, topic, partition)
          moved = true
          break
        }
        if (moved) break
      }
      if (moved) break
    }
    if (!moved) return held
  }
}

export const cooperativeStickyAssignor: Assignor = {
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

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  rangeAssignor, roundRobinAssignor, cooperativeStickyAssignor, assignorByName, cooperativeStickyUserData,
  type SyncAssignor, type MemberSubscription, type TopicPartition
} from '../../group/assignors'

/** 't0p1 t1p0' → [{ topic: 't0', partition: 1 }, { topic: 't1', partition: 0 }] */
function parts (text: string): TopicPartition[] {
  if (text.trim() === '') return []
  return text.trim().split(/\s+/).map(name => {
    const match = /^(.+)p(\d+)$/.exec(name)
    if (match === null) throw new Error(`bad partition name ${name}`)
    return { topic: match[1], partition: Number(match[2]) }
  })
}

function member (memberId: string, topics: string[], options: Partial<MemberSubscription> = {}): MemberSubscription {
  return { memberId, instanceId: null, topics, ownedPartitions: [], generation: -1, rack: null, userData: null, ...options }
}

/** The assignment as { member: 't0p0 t0p1' }, each member's partitions sorted, to compare with expectations. */
function render (assignment: Map<string, TopicPartition[]>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [memberId, partitions] of [...assignment].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    out[memberId] = [...partitions]
      .sort((a, b) => a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition)
      .map(p => `${p.topic}p${p.partition}`).join(' ')
  }
  return out
}

function counts (entries: Record<string, number>): Map<string, number> {
  return new Map(Object.entries(entries))
}

/** Each member reports what it was assigned as owned, in `generation`. */
function rejoin (members: MemberSubscription[], assignment: Map<string, TopicPartition[]>, generation: number): MemberSubscription[] {
  return members.map(m => ({ ...m, ownedPartitions: assignment.get(m.memberId) ?? [], generation }))
}

const key = (p: TopicPartition): string => `${p.topic}p${p.partition}`

/** Checks no partition is given to two members or to one not subscribed to its topic; returns partition → member. */
function checkValid (members: MemberSubscription[], assignment: Map<string, TopicPartition[]>, partitionCounts: ReadonlyMap<string, number>): Map<string, string> {
  assert.deepEqual(new Set(assignment.keys()), new Set(members.map(m => m.memberId)), 'one entry per member')
  const holder = new Map<string, string>()
  for (const m of members) {
    for (const p of assignment.get(m.memberId)!) {
      assert.ok(m.topics.includes(p.topic), `${key(p)} given to ${m.memberId}, not subscribed to ${p.topic}`)
      assert.ok(p.partition >= 0 && p.partition < (partitionCounts.get(p.topic) ?? 0), `${key(p)} does not exist`)
      assert.equal(holder.get(key(p)), undefined, `${key(p)} given to ${holder.get(key(p))} and ${m.memberId}`)
      holder.set(key(p), m.memberId)
    }
  }
  return holder
}

/** Every partition of every subscribed topic that exists is assigned. */
function checkComplete (members: MemberSubscription[], holder: Map<string, string>, partitionCounts: ReadonlyMap<string, number>): void {
  const subscribed = new Set(members.flatMap(m => m.topics))
  let expected = 0
  for (const [topic, count] of partitionCounts) if (subscribed.has(topic)) expected += count
  assert.equal(holder.size, expected, 'every partition of a subscribed topic is assigned')
}

/**
 * Java's AbstractStickyAssignor isBalanced(): no partition could move from its holder to another
 * member subscribed to its topic that holds at least two fewer. With equal subscriptions: counts
 * differ by at most one.
 */
function checkBalanced (members: MemberSubscription[], assignment: Map<string, TopicPartition[]>, partitionCounts: ReadonlyMap<string, number>): void {
  const holder = new Map<string, string>()
  for (const [memberId, partitions] of assignment) for (const p of partitions) holder.set(key(p), memberId)
  const size = (memberId: string): number => assignment.get(memberId)!.length
  for (const m of members) {
    for (const topic of new Set(m.topics)) {
      for (let partition = 0; partition < (partitionCounts.get(topic) ?? 0); partition++) {
        const other = holder.get(key({ topic, partition }))
        if (other === undefined || other === m.memberId) continue
        assert.ok(size(m.memberId) + 1 >= size(other), `${topic}p${partition} could move from ${other} (${size(other)}) to ${m.memberId} (${size(m.memberId)})`)
      }
    }
  }
  const sameTopics = members.every(m => [...new Set(m.topics)].sort().join() === [...new Set(members[0].topics)].sort().join())
  if (sameTopics && members.length > 0) {
    const sizes = members.map(m => size(m.memberId))
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `counts ${sizes.join(',')} differ by more than one`)
  }
}

/** No member is given a partition that another member reported owning (valid claims: the newest generation). */
function checkCooperative (members: MemberSubscription[], assignment: Map<string, TopicPartition[]>): void {
  const owner = new Map<string, string>()
  for (const m of members) for (const p of m.ownedPartitions) owner.set(key(p), m.memberId)
  for (const [memberId, partitions] of assignment) {
    for (const p of partitions) {
      const previous = owner.get(key(p))
      assert.ok(previous === undefined || previous === memberId, `${key(p)} moved straight from ${previous} to ${memberId}`)
    }
  }
}

describe('range', () => {
  test('the javadoc example: 2 members, 2 topics of 3 partitions', () => {
    const members = [member('C1', ['t0', 't1']), member('C0', ['t0', 't1'])]
    assert.deepEqual(render(rangeAssignor.assign(members, counts({ t0: 3, t1: 3 }))), {
      C0: 't0p0 t0p1 t1p0 t1p1',
      C1: 't0p2 t1p2'
    })
  })

  test('static members are ordered by group.instance.id, so new member ids do not reshuffle', () => {
    // The javadoc's rolling bounce: C0 came back as C3 and C1 as C2; their instance ids keep the order.
    const members = [member('C3', ['t0', 't1'], { instanceId: 'I0' }), member('C2', ['t0', 't1'], { instanceId: 'I1' })]
    assert.deepEqual(render(rangeAssignor.assign(members, counts({ t0: 3, t1: 3 }))), {
      C2: 't0p2 t1p2',
      C3: 't0p0 t0p1 t1p0 t1p1'
    })
    // Members with an instance id come before those without (Java's MemberInfo order).
    const mixed = [member('A', ['t0']), member('Z', ['t0'], { instanceId: 'I9' })]
    assert.deepEqual(render(rangeAssignor.assign(mixed, counts({ t0: 3 }))), { A: 't0p2', Z: 't0p0 t0p1' })
  })

  test('different subscriptions: each topic is split among its own subscribers', () => {
    const members = [member('C0', ['t0']), member('C1', ['t0', 't1']), member('C2', ['t1'])]
    assert.deepEqual(render(rangeAssignor.assign(members, counts({ t0: 3, t1: 5 }))), {
      C0: 't0p0 t0p1',
      C1: 't0p2 t1p0 t1p1 t1p2',
      C2: 't1p3 t1p4'
    })
  })

  test('more members than partitions: the last members get nothing', () => {
    const members = [member('C0', ['t0']), member('C1', ['t0']), member('C2', ['t0'])]
    assert.deepEqual(render(rangeAssignor.assign(members, counts({ t0: 2 }))), { C0: 't0p0', C1: 't0p1', C2: '' })
  })

  test('a topic missing from partitionCounts is skipped', () => {
    const members = [member('C0', ['t0', 'gone']), member('C1', ['gone'])]
    assert.deepEqual(render(rangeAssignor.assign(members, counts({ t0: 2 }))), { C0: 't0p0 t0p1', C1: '' })
  })
})

describe('roundrobin', () => {
  test('the javadoc example: 2 members, 2 topics of 3 partitions', () => {
    const members = [member('C1', ['t0', 't1']), member('C0', ['t0', 't1'])]
    assert.deepEqual(render(roundRobinAssignor.assign(members, counts({ t0: 3, t1: 3 }))), {
      C0: 't0p0 t0p2 t1p1',
      C1: 't0p1 t1p0 t1p2'
    })
  })

  test('the javadoc example with different subscriptions: members not subscribed are skipped', () => {
    const members = [member('C0', ['t0']), member('C1', ['t0', 't1']), member('C2', ['t0', 't1', 't2'])]
    assert.deepEqual(render(roundRobinAssignor.assign(members, counts({ t0: 1, t1: 2, t2: 3 }))), {
      C0: 't0p0',
      C1: 't1p0',
      C2: 't1p1 t2p0 t2p1 t2p2'
    })
  })

  test('the javadoc static membership example: the order follows instance ids', () => {
    const topics = ['t0', 't1']
    assert.deepEqual(render(roundRobinAssignor.assign([member('C0', topics), member('C1', topics), member('C2', topics)], counts({ t0: 3, t1: 3 }))), {
      C0: 't0p0 t1p0', C1: 't0p1 t1p1', C2: 't0p2 t1p2'
    })
    const bounced = [member('C5', topics, { instanceId: 'I0' }), member('C3', topics, { instanceId: 'I1' }), member('C4', topics, { instanceId: 'I2' })]
    assert.deepEqual(render(roundRobinAssignor.assign(bounced, counts({ t0: 3, t1: 3 }))), {
      C3: 't0p1 t1p1', C4: 't0p2 t1p2', C5: 't0p0 t1p0'
    })
  })

  test('more members than partitions, and a topic missing from partitionCounts', () => {
    const members = [member('C0', ['t0', 'gone']), member('C1', ['t0']), member('C2', ['t0'])]
    assert.deepEqual(render(roundRobinAssignor.assign(members, counts({ t0: 2 }))), { C0: 't0p0', C1: 't0p1', C2: '' })
  })
})

describe('assignorByName', () => {
  test('finds the three by their Java protocol names', () => {
    assert.equal(assignorByName('range'), rangeAssignor)
    assert.equal(assignorByName('roundrobin'), roundRobinAssignor)
    assert.equal(assignorByName('cooperative-sticky'), cooperativeStickyAssignor)
    assert.equal(assignorByName('sticky'), undefined)
    assert.equal(rangeAssignor.protocol, 'eager')
    assert.equal(roundRobinAssignor.protocol, 'eager')
    assert.equal(cooperativeStickyAssignor.protocol, 'cooperative')
  })
})

describe('cooperative-sticky', () => {
  const topics = ['t0', 't1']
  const partitionCounts = counts({ t0: 3, t1: 3 })

  test('the first assignment is balanced and deals partitions round robin over the members, like Java', () => {
    const members = [member('C1', topics), member('C0', topics)]
    assert.deepEqual(render(cooperativeStickyAssignor.assign(members, partitionCounts)), {
      C0: 't0p0 t0p2 t1p1',
      C1: 't0p1 t1p0 t1p2'
    })
  })

  test('a stable group keeps its assignment, whatever it is', () => {
    const members = [
      member('C0', topics, { ownedPartitions: parts('t0p0 t0p1 t0p2'), generation: 4 }),
      member('C1', topics, { ownedPartitions: parts('t1p0 t1p1 t1p2'), generation: 4 })
    ]
    assert.deepEqual(render(cooperativeStickyAssignor.assign(members, partitionCounts)), { C0: 't0p0 t0p1 t0p2', C1: 't1p0 t1p1 t1p2' })
  })

  test('a member joins: the others keep what they can, what must move is revoked first and handed over in the next round', () => {
    const first = [member('C0', topics), member('C1', topics)]
    const round0 = cooperativeStickyAssignor.assign(first, partitionCounts)
    assert.deepEqual(render(round0), { C0: 't0p0 t0p2 t1p1', C1: 't0p1 t1p0 t1p2' })

    const joined = [...rejoin(first, round0, 1), member('C2', topics)]
    const round1 = cooperativeStickyAssignor.assign(joined, partitionCounts)
    checkValid(joined, round1, partitionCounts)
    checkCooperative(joined, round1)
    // C0 and C1 each keep two of their three; the newcomer gets nothing yet: both partitions it
    // should get are still owned by their old members, who must revoke them first.
    assert.equal(round1.get('C0')!.length, 2)
    assert.equal(round1.get('C1')!.length, 2)
    assert.deepEqual(round1.get('C2'), [])
    for (const id of ['C0', 'C1']) {
      for (const p of round1.get(id)!) assert.ok(round0.get(id)!.some(q => key(q) === key(p)), `${id} kept ${key(p)}`)
    }
    const revoked = [...round0.get('C0')!, ...round0.get('C1')!].filter(p => ![...round1.get('C0')!, ...round1.get('C1')!].some(q => key(q) === key(p)))
    assert.equal(revoked.length, 2)

    // The follow-up rebalance: C0 and C1 report only what they kept; C2 gets the revoked two.
    const round2 = cooperativeStickyAssignor.assign(rejoin(joined, round1, 2), partitionCounts)
    const holder = checkValid(joined, round2, partitionCounts)
    checkComplete(joined, holder, partitionCounts)
    checkBalanced(joined, round2, partitionCounts)
    assert.deepEqual(render(round2).C0, render(round1).C0)
    assert.deepEqual(render(round2).C1, render(round1).C1)
    assert.deepEqual(render(new Map([['C2', round2.get('C2')!]])).C2, render(new Map([['C2', revoked]])).C2)
  })

  test('a member leaves: its partitions are spread over the others and nothing else moves', () => {
    const members = [
      member('C0', topics, { ownedPartitions: parts('t0p0 t1p1'), generation: 7 }),
      member('C1', topics, { ownedPartitions: parts('t0p1 t1p2'), generation: 7 })
      // C2 owned t0p2 t1p0 and left.
    ]
    const assignment = cooperativeStickyAssignor.assign(members, partitionCounts)
    const holder = checkValid(members, assignment, partitionCounts)
    checkComplete(members, holder, partitionCounts)
    checkBalanced(members, assignment, partitionCounts)
    assert.equal(holder.get('t0p0'), 'C0')
    assert.equal(holder.get('t1p1'), 'C0')
    assert.equal(holder.get('t0p1'), 'C1')
    assert.equal(holder.get('t1p2'), 'C1')
  })

  test('claims from an older generation are ignored: the newest generation owns the partition', () => {
    const members = [
      // C1 missed a rebalance and still reports what it owned in generation 3.
      member('C1', topics, { ownedPartitions: parts('t0p0 t0p1 t0p2'), generation: 3 }),
      member('C0', topics, { ownedPartitions: parts('t0p0 t0p1 t0p2'), generation: 5 })
    ]
    const assignment = cooperativeStickyAssignor.assign(members, partitionCounts)
    checkValid(members, assignment, partitionCounts)
    // C0 keeps its three; the stale claim does not stop C1 from getting the free t1 partitions.
    assert.deepEqual(render(assignment), { C0: 't0p0 t0p1 t0p2', C1: 't1p0 t1p1 t1p2' })
  })

  test('a stale claim does not make a partition owned: with the real owner gone it is handed out at once', () => {
    const members = [
      member('C0', topics, { ownedPartitions: parts('t0p0 t0p1 t0p2 t1p0 t1p1 t1p2'), generation: 5 }),
      member('C1', topics, { ownedPartitions: parts('t0p0'), generation: 2 })
    ]
    const assignment = cooperativeStickyAssignor.assign(members, partitionCounts)
    checkValid(members, assignment, partitionCounts)
    // Three of C0's partitions move to C1: none may be given to C1 in this round, t0p0 included.
    assert.equal(assignment.get('C0')!.length, 3)
    assert.deepEqual(assignment.get('C1'), [])
  })

  test('a partition two members claim in the same generation is given to nobody until both let go', () => {
    const members = [
      member('C0', topics, { ownedPartitions: parts('t0p0 t0p1 t1p0'), generation: 5 }),
      member('C1', topics, { ownedPartitions: parts('t0p0 t0p2 t1p1'), generation: 5 })
    ]
    const round1 = cooperativeStickyAssignor.assign(members, partitionCounts)
    const holder = checkValid(members, round1, partitionCounts)
    assert.equal(holder.get('t0p0'), undefined)
    assert.equal(holder.get('t1p2') !== undefined, true)
    const round2 = cooperativeStickyAssignor.assign(rejoin(members, round1, 6), partitionCounts)
    const holder2 = checkValid(members, round2, partitionCounts)
    checkComplete(members, holder2, partitionCounts)
    checkBalanced(members, round2, partitionCounts)
  })

  test('without a generation in the subscription, the one in the userData counts (subscriptions before v2)', () => {
    const members = [
      member('C1', topics, { ownedPartitions: parts('t0p0 t0p1 t0p2'), userData: cooperativeStickyUserData(3) }),
      member('C0', topics, { ownedPartitions: parts('t0p0 t0p1 t0p2'), userData: cooperativeStickyUserData(5) })
    ]
    assert.deepEqual(render(cooperativeStickyAssignor.assign(members, partitionCounts)), { C0: 't0p0 t0p1 t0p2', C1: 't1p0 t1p1 t1p2' })
    assert.deepEqual(cooperativeStickyUserData(5), Buffer.from([0, 0, 0, 5]))
  })

  test('a member that drops a topic: its partitions go to the others only after it revoked them', () => {
    const members = [
      member('C0', ['t0'], { ownedPartitions: parts('t0p0 t1p0 t1p1'), generation: 2 }),
      member('C1', topics, { ownedPartitions: parts('t0p1 t0p2 t1p2'), generation: 2 })
    ]
    const round1 = cooperativeStickyAssignor.assign(members, partitionCounts)
    checkValid(members, round1, partitionCounts)
    checkCooperative(members, round1)
    assert.deepEqual(render(round1).C0.split(' ').filter(p => p.startsWith('t1')), [])
    const round2 = cooperativeStickyAssignor.assign(rejoin(members, round1, 3), partitionCounts)
    const holder = checkValid(members, round2, partitionCounts)
    checkCooperative(rejoin(members, round1, 3), round2)
    checkComplete(members, holder, partitionCounts)
    checkBalanced(members, round2, partitionCounts)
  })

  test('more members than partitions, a topic missing from partitionCounts', () => {
    const members = [member('C0', ['t0', 'gone']), member('C1', ['t0']), member('C2', ['t0'])]
    assert.deepEqual(render(cooperativeStickyAssignor.assign(members, counts({ t0: 2 }))), { C0: 't0p0', C1: 't0p1', C2: '' })
  })
})

describe('properties', () => {
  const TOPICS = ['t0', 't1', 't2', 't3', 'gone']
  // Some topics are missing from the metadata (absent, or present with no partitions).
  const countsArb = fc.tuple(fc.nat(8), fc.nat(8), fc.nat(8), fc.nat(20), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }))
    .map(([a, b, c, d, present]) => new Map([['t0', a], ['t1', b], ['t2', c], ['t3', d]].filter((_, i) => present[i]) as Array<[string, number]>))
  const membersArb = (ids: string[]): fc.Arbitrary<MemberSubscription[]> => fc.tuple(
    fc.boolean(),
    fc.subarray(TOPICS, { minLength: 1 }),
    ...ids.map(() => fc.record({ topics: fc.subarray(TOPICS, { minLength: 1 }), instanceId: fc.option(fc.constantFrom('I0', 'I1', 'I2', 'I3', 'I4', 'I5', 'I6', 'I7'), { nil: null }) }))
  ).map(([sameTopics, shared, ...specs]) => {
    const usedInstances = new Set<string>()
    return specs.map((spec, i) => {
      const instanceId = spec.instanceId !== null && !usedInstances.has(spec.instanceId) ? spec.instanceId : null
      if (instanceId !== null) usedInstances.add(instanceId)
      return member(ids[i], sameTopics ? shared : spec.topics, { instanceId })
    })
  })
  const groupArb = fc.integer({ min: 1, max: 7 }).chain(n => membersArb(Array.from({ length: n }, (_, i) => `M${i}`)))

  for (const assignor of [rangeAssignor, roundRobinAssignor] as SyncAssignor[]) {
    test(`${assignor.name}: every partition of a subscribed topic goes to exactly one member subscribed to it`, () => {
      fc.assert(fc.property(groupArb, countsArb, (members, partitionCounts) => {
        const assignment = assignor.assign(members, partitionCounts)
        const holder = checkValid(members, assignment, partitionCounts)
        checkComplete(members, holder, partitionCounts)
        if (assignor === rangeAssignor) {
          // Per topic, its subscribers' shares differ by at most one.
          for (const [topic] of partitionCounts) {
            const shares = members.filter(m => m.topics.includes(topic)).map(m => assignment.get(m.memberId)!.filter(p => p.topic === topic).length)
            if (shares.length > 0) assert.ok(Math.max(...shares) - Math.min(...shares) <= 1)
          }
        }
      }), { numRuns: 300 })
    })
  }

  test('cooperative-sticky: after any change two rounds give a complete balanced assignment, nothing ever held by two', () => {
    // A group, its first assignment from scratch; then some members leave, some join, some change
    // subscriptions, topics grow; then two rounds with everyone reporting what it holds.
    const scenarioArb = fc.tuple(groupArb, countsArb, countsArb, fc.integer({ min: 0, max: 4 }), fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), fc.boolean())
      .chain(([group, counts0, counts1, joiners, stays, resubscribe]) => fc.tuple(
        fc.constant(group), fc.constant(counts0), fc.constant(counts1), fc.constant(stays), fc.constant(resubscribe),
        membersArb(Array.from({ length: joiners }, (_, i) => `N${i}`)),
        membersArb(group.map(m => m.memberId))))
    fc.assert(fc.property(scenarioArb, ([group, counts0, counts1, stays, resubscribe, joinerGroup, resubscribed]) => {
      // Topics only grow.
      const grown = new Map(counts0)
      for (const [topic, n] of counts1) grown.set(topic, Math.max(n, counts0.get(topic) ?? 0))

      const round0 = cooperativeStickyAssignor.assign(group, counts0)
      const holder0 = checkValid(group, round0, counts0)
      checkComplete(group, holder0, counts0)
      checkBalanced(group, round0, counts0)

      let members = rejoin(group, round0, 1).filter((_, i) => stays[i])
      if (resubscribe) members = members.map(m => ({ ...m, topics: resubscribed.find(r => r.memberId === m.memberId)!.topics }))
      members.push(...joinerGroup)
      if (members.length === 0) return

      const round1 = cooperativeStickyAssignor.assign(members, grown)
      checkValid(members, round1, grown)
      checkCooperative(members, round1)

      const rejoined = rejoin(members, round1, 2)
      const round2 = cooperativeStickyAssignor.assign(rejoined, grown)
      const holder2 = checkValid(members, round2, grown)
      checkCooperative(rejoined, round2)
      checkComplete(members, holder2, grown)
      checkBalanced(members, round2, grown)

      // Settled: one more round changes nothing.
      assert.deepEqual(render(cooperativeStickyAssignor.assign(rejoin(members, round2, 3), grown)), render(round2))
    }), { numRuns: 1000 })
  })
})

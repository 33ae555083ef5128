// GroupConsumer against the fake cluster, for both group protocols: invariants 2–4 of
// INTERNALS.md (a member commits only what it holds, under the membership it holds it under;
// nothing after a revoke or a loss; delivery modes mean what they say) and recovery from
// coordinator errors. Each member has its own Client; batches are one record each
// (maxPartitionBytes 1), so "the batch in flight" is one offset the test holds with a gate.
//
// The failure stories behind these tests: a member fenced while it processed a record
// finished it later and committed its offset under its new membership, moving the new
// owner's committed offset back (humus queue/kafka; fixed in franz-go by checking the
// member id when the commit is built); a consumer that kept marking offsets of a
// partition after a cooperative revoke committed them behind the new owner's back
// (redpanda-data/connect #4010).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { ConsumerGroupHeartbeat } from '../../protocol/apis/consumer-group-heartbeat'
import { Heartbeat } from '../../protocol/apis/heartbeat'
import { JoinGroup } from '../../protocol/apis/join-group'
import type { KafkaTsError } from '../../protocol/errors'
import { LeaveGroup } from '../../protocol/apis/leave-group'
import { OffsetCommit } from '../../protocol/apis/offset-commit'
import { OffsetFetch } from '../../protocol/apis/offset-fetch'
import { SyncGroup } from '../../protocol/apis/sync-group'
import type { AnyApi } from '../../protocol/api'
import type { CommitLogEntry, GroupMemberInfo } from '../../testing/index'
import { Client } from '../../index'
import { gate, joinBareConsumerMember, protocols, withHarness, type Harness, type Member, type Protocol } from './support'
import { eventLoopTurns, waitFor, sleep } from '../support/wait'
import { groupConsumerInternals } from '../../group/group-consumer'
import { FakeClock } from '../../testing/index'

/** The rows of `partition` in these commit-log entries, each with its entry. */
function commitsOf (entries: CommitLogEntry[], partition: number): Array<{ entry: CommitLogEntry, offset: bigint, accepted: boolean }> {
  const out: Array<{ entry: CommitLogEntry, offset: bigint, accepted: boolean }> = []
  for (const entry of entries) {
    for (const p of entry.partitions) if (p.partition === partition) out.push({ entry, offset: p.offset, accepted: p.accepted })
  }
  return out
}

/** Holds the member's next rejoin at the coordinator (classic JoinGroup, KIP-848 epoch-0 heartbeat) until the gate opens. */
function holdRejoin (h: Harness, member: Member, protocol: Protocol, until: Promise<void>): () => void {
  if (protocol === 'classic') {
    return h.cluster.intercept(JoinGroup, r => r.clientId === member.name ? { hold: until } : undefined)
  }
  return h.cluster.intercept(ConsumerGroupHeartbeat, r => r.clientId === member.name && r.request.memberEpoch === 0 ? { hold: until } : undefined)
}

/**
 * A member on a FakeClock whose close() is timed on its client's clock: `closeOn` starts
 * close() and moves the clock on in steps (letting the fake cluster answer between them)
 * until close() settled or `giveUpMs` of the client's time passed; it resolves with how much
 * of the client's time close() took, or undefined if it had not settled by then (it is then
 * moved on until close() settled, so the member is closed either way). The member's
 * sessions are long, so the wall time the test takes never expires them.
 */
async function memberOnClock (h: Harness, protocol: Protocol): Promise<{ member: Member, clock: FakeClock, until: (what: string, done: () => boolean) => Promise<void>, closeOn: (giveUpMs: number) => Promise<number | undefined> }> {
  const clock = new FakeClock()
  const member = await h.member('a', protocol, { sessionTimeoutMs: 60_000 }, { clock })
  const stepMs = 50
  const until = async (what: string, done: () => boolean): Promise<void> => {
    await waitFor(what, async () => {
      if (!done()) await clock.advance(stepMs)
      return done()
    })
  }
  const closeOn = async (giveUpMs: number): Promise<number | undefined> => {
    const startedAt = clock.now()
    let tookMs: number | undefined
    void member.consumer.close().then(() => { tookMs = clock.now() - startedAt })
    await until('close() to settle, or the client\'s time to pass the bound', () => tookMs !== undefined || clock.now() - startedAt > giveUpMs)
    const withinBound = tookMs
    // Not settled by then: the test fails on what it returns; the clock moves on so the member still closes (the harness waits for it).
    await until('close() to settle at all', () => tookMs !== undefined)
    return withinBound
  }
  return { member, clock, until, closeOn }
}

/** Whether a promise has settled (checked after the microtasks queued so far ran). */
async function isSettled (promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  promise.then(() => { settled = true }, () => { settled = true })
  await sleep(0)
  return settled
}

/** The generation (classic) or member epoch (KIP-848) the coordinator holds the member at. */
function currentGeneration (h: Harness, member: Member): number | undefined {
  const group = h.cluster.group(h.groupId)
  if (group === undefined || group.state !== 'Stable') return undefined
  const info = group.members.find(m => m.memberId === member.identity?.memberId)
  return group.protocol === 'classic' ? info?.generationId : info?.memberEpoch
}

const sameIdentity = (a: { memberId: string, generation: number } | undefined, b: { memberId: string, generation: number } | undefined): boolean =>
  a !== undefined && b !== undefined && a.memberId === b.memberId && a.generation === b.generation

for (const protocol of protocols) {
  describe(`GroupConsumer (${protocol} protocol)`, { timeout: 60_000 }, () => {
    test('a member whose Client has not loaded the topic\'s metadata yet gets its partitions', async () => {
      await withHarness({ partitions: 2, records: 5 }, async h => {
        const a = await h.member('a', protocol)
        a.run(h)
        await waitFor('A holding both partitions', () => a.held().length === 2)
        const b = await h.member('b', protocol, {}, { coldMetadata: true })
        b.run(h)
        await waitFor('A and B holding one partition each', () => a.held().length === 1 && b.held().length === 1, { timeoutMs: 3000 })
        await h.produce(5, [0, 1])
        await waitFor('B processing its partition', () => b.processedUpTo(b.held()[0]) === 10n)
      })
    })

    test('a member joining: the member already in the group says \'rebalancing\' under its old identity before its next \'assigned\'', async () => {
      await withHarness({ partitions: 2, records: 0 }, async h => {
        const a = await h.member('a', protocol)
        const rebalancing: Array<{ identity: { memberId: string, generation: number }, reason: string, assignedBefore: number }> = []
        a.consumer.on('rebalancing', event => { rebalancing.push({ ...event, assignedBefore: a.assignedEvents.length }) })
        a.run(h)
        await waitFor('A holding both partitions', () => a.held().length === 2)
        assert.equal(rebalancing.length, 0, 'no rebalance before B joins')
        const first = a.identity!
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('A and B holding one partition each', () => a.held().length === 1 && b.held().length === 1)
        assert.ok(rebalancing.length >= 1, 'A said rebalancing')
        assert.ok(sameIdentity(rebalancing[0].identity, first), `under its first identity, not ${JSON.stringify(rebalancing[0].identity)}`)
        assert.equal(rebalancing[0].assignedBefore, 1, 'before the assignment of the rebalance')
        assert.match(rebalancing[0].reason, protocol === 'classic' ? /began a rebalance/ : /new target/)
        if (protocol === 'classic') assert.ok(b.assignedEvents[0].at >= a.assignedEvents[0].at)
      })
    })

    // ------------------------------------------------------------------ invariant 2: fences

    test('fenced, and the same partition comes back after the rejoin: the batch in flight across the fence commits nothing', async () => {
      await withHarness({ partitions: 1, records: 20 }, async h => {
        const a = await h.member('a', protocol)
        const oldBatch = h.gate()
        const newBatch = h.gate()
        // Offset 5 is held the first time (the old membership) and the second time (the new one).
        a.handler = async (_batch, d) => {
          if (d.offset === 5n) await (a.offsets(0).filter(o => o === 5n).length === 1 ? oldBatch.promise : newBatch.promise)
        }
        a.run(h)
        await waitFor('A processing offset 5', () => a.offsets(0).includes(5n))
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(h.committed(0), 5n)
        const old = a.identity!
        const fencedAt = h.commits().length

        h.cluster.fenceMember(h.groupId, old.memberId)
        await waitFor('A rejoining under a new identity', () => a.identities.length >= 2 && !sameIdentity(a.identity, old))
        const rejoined = a.identity!
        assert.ok(a.lostEvents.length >= 1, 'the fence was reported as a loss')

        // The batch of the old membership finishes now; the new membership has processed nothing yet.
        oldBatch.release()
        await waitFor('the old batch finishing', () => a.deliveries[a.offsets(0).indexOf(5n)].finished)
        // Whatever the commit carries is in the commit log once it resolved.
        await a.consumer.commit()
        const late = commitsOf(h.commits().slice(fencedAt), 0)
        assert.deepEqual(late.filter(c => c.offset === 6n), [], 'the old membership\'s batch was committed after the fence')
        assert.equal(h.committed(0), 5n, 'the committed offset moved although the new membership processed nothing')

        // The new membership processes from the committed offset and commits under its own identity.
        newBatch.release()
        await waitFor('A processing the partition under its new membership', () => a.processedUpTo(0, a.identity) === 20n)
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(h.committed(0), 20n)
        for (const c of commitsOf(h.commits().slice(fencedAt), 0).filter(c => c.accepted)) {
          assert.notDeepEqual({ memberId: c.entry.memberId, generation: c.entry.generationIdOrMemberEpoch }, old, 'an accepted commit under the fenced membership')
          assert.ok(c.entry.generationIdOrMemberEpoch >= rejoined.generation || c.entry.memberId !== old.memberId)
        }
        assert.deepEqual(a.offsets(0).filter(o => o === 5n).length, 2, 'offset 5 handed out once per membership')
      })
    })

    test('fenced, and the partition goes to another member: the batch in flight across the fence commits nothing', async () => {
      await withHarness({ partitions: 2, records: 0 }, async h => {
        const a = await h.member('a', protocol)
        const aBatch = h.gate()
        a.handler = async (_batch, d) => { if (d.offset === 5n) await aBatch.promise }
        a.run(h)
        await waitFor('A holding both partitions', () => a.held().length === 2)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('A and B holding one partition each', () => a.held().length === 1 && b.held().length === 1 && h.cluster.group(h.groupId)?.state === 'Stable')
        const moved = a.held()[0]
        await h.produce(20, [0, 1])
        await waitFor('A processing offset 5', () => a.offsets(moved).includes(5n))
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(h.committed(moved), 5n)
        const old = a.identity!
        const fencedAt = h.commits().length

        // A is fenced; its rejoin waits at the coordinator until B has taken the partition and processed all of it.
        const rejoin = h.gate()
        holdRejoin(h, a, protocol, rejoin.promise)
        h.cluster.fenceMember(h.groupId, old.memberId)
        await waitFor('B processing the partition A lost', () => b.processedUpTo(moved) === 20n, { timeoutMs: 10_000 })
        assert.equal(b.offsets(moved)[0], 5n, 'B started where A\'s commit left off')
        assert.deepEqual(await b.consumer.commit(), [])
        assert.equal(h.committed(moved), 20n)

        rejoin.release()
        await waitFor('A rejoining under a new identity', () => a.identities.length >= 2 && !sameIdentity(a.identity, old) && h.cluster.group(h.groupId)?.state === 'Stable')
        // A's batch of the old membership finishes late.
        aBatch.release()
        await waitFor('the old batch finishing', () => a.deliveries.find(d => d.partition === moved && d.offset === 5n)?.finished === true)
        await a.consumer.commit()
        const fromA = commitsOf(a.commitsBy(h).filter(e => h.commits().indexOf(e) >= fencedAt), moved)
        assert.deepEqual(fromA.filter(c => c.offset <= 6n), [], 'A committed its old batch of the partition after the fence')
        assert.equal(h.committed(moved), 20n, 'the committed offset moved back from what the new owner processed')
      })
    })

    // ------------------------------------------------------------------ invariant 2: commits wait for rebalances

    test(protocol === 'classic'
      ? 'a commit called during a join/sync waits for it and carries the new generation and only the partitions held under it'
      : 'a commit called during a reconciliation waits for it and carries the new member epoch and only the partitions held under it', async () => {
      await withHarness({ partitions: 2, records: 0 }, async h => {
        const a = await h.member('a', protocol)
        a.run(h)
        await waitFor('A holding both partitions', () => a.held().length === 2)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('A and B holding one partition each', () => a.held().length === 1 && b.held().length === 1 && h.cluster.group(h.groupId)?.state === 'Stable')
        const [mine] = a.held()
        const [theirs] = b.held()
        await h.produce(10, [0, 1])
        await waitFor('both processing their partition', () => a.processedUpTo(mine) === 10n && b.processedUpTo(theirs) === 10n)
        assert.deepEqual(await b.consumer.commit(), [])
        const before = a.identity!

        // B leaves; A's part of the rebalance that follows is slowed down: classic, its SyncGroup;
        // KIP-848, the OffsetFetch of the reconciliation that adds B's partition.
        const slow = h.gate()
        const reached = h.gate()
        if (protocol === 'classic') {
          h.cluster.intercept(SyncGroup, r => { if (r.clientId !== 'a') return undefined; reached.release(); return { hold: slow.promise } }, { times: 1 })
        } else {
          h.cluster.intercept(OffsetFetch, r => { if (r.clientId !== 'a') return undefined; reached.release(); return { hold: slow.promise } }, { times: 1 })
        }
        const commitsBefore = h.commits().length
        const offsetCommitsBefore = h.cluster.requests(OffsetCommit).length
        await b.consumer.close()
        await reached.promise

        const commit = a.consumer.commit()
        // A commit that did not wait would reach the coordinator within a few turns (no timer on its way).
        await eventLoopTurns(20)
        assert.equal(await isSettled(commit), false, 'the commit did not wait for the rebalance in progress')
        assert.deepEqual(h.cluster.requests(OffsetCommit).slice(offsetCommitsBefore).filter(r => r.clientId === 'a'), [], 'A sent an OffsetCommit during the rebalance')

        slow.release()
        assert.deepEqual(await commit, [])
        const after = a.identity!
        assert.ok(after.generation > before.generation, `A's identity did not move on (${before.generation} → ${after.generation})`)
        assert.deepEqual(a.held(), [0, 1])
        const sent = h.commits().slice(commitsBefore).filter(e => e.memberId === after.memberId)
        assert.equal(sent.length, 1, `A's commits: ${JSON.stringify(sent.map(e => e.generationIdOrMemberEpoch))}`)
        const [entry] = sent
        assert.equal(entry.generationIdOrMemberEpoch, after.generation)
        assert.equal(entry.errorCode, 0)
        // What the coordinator held A at when the commit arrived: the new generation / epoch, not the one before the rebalance.
        assert.equal(protocol === 'classic' ? entry.groupGeneration : entry.memberEpoch, after.generation)
        assert.deepEqual(entry.partitions.map(p => [p.partition, p.offset, p.accepted]), [[mine, 10n, true]], 'only the partition A processed under its new identity')
        assert.equal(h.committed(mine), 10n)
        assert.equal(h.committed(theirs), 10n)
      })
    })

    // ------------------------------------------------------------------ invariant 3: revokes

    test('a partition revoked while its batch is in flight beyond the rebalance timeout: the late batch is never committed by this member', async () => {
      await withHarness({ partitions: 2, records: 10 }, async h => {
        const a = await h.member('a', protocol, { rebalanceTimeoutMs: 300, autoCommitIntervalMs: 50 })
        const held = [h.gate(), h.gate()]
        a.handler = async (_batch, d) => { if (d.offset === 3n && a.offsets(d.partition).filter(o => o === 3n).length === 1) await held[d.partition].promise }
        a.run(h)
        await waitFor('A processing offset 3 of both partitions', () => a.offsets(0).includes(3n) && a.offsets(1).includes(3n))
        const startedAt = Date.now()
        const b = await h.member('b', protocol)
        b.run(h)
        // Whichever partition moves to B, A still processes its offset 3 when the revoke gives up
        // waiting, a margin before the rebalance timeout (300 ms here, so 200 ms); the late batch
        // must not count, whether the partition ends up revoked or lost.
        await waitFor('B processing the partition it took', () => b.held().length === 1 && b.processedUpTo(b.held()[0]) === 10n, { timeoutMs: 10_000 })
        const [moved] = b.held()
        assert.equal(b.offsets(moved)[0], 3n, 'B started after what A processed before its revoke')
        assert.ok(!held[moved].released && a.deliveries.find(d => d.partition === moved && d.offset === 3n)?.finished === false, 'A\'s batch still in flight')
        assert.ok(Date.now() - startedAt >= 200, 'the revoke did not wait for the batch in flight')
        const revokedAt = Math.min(...[
          ...a.assignedEvents.filter(e => e.revoked.some(p => p.partition === moved)).map(e => e.commitLogLength),
          ...a.lostEvents.filter(e => e.partitions.some(p => p.partition === moved)).map(e => e.commitLogLength)
        ])
        assert.ok(Number.isFinite(revokedAt), 'A reported the partition revoked or lost')
        assert.deepEqual(await b.consumer.commit(), [])

        // A's batch finishes after the revoke; auto-commits and an explicit commit follow.
        held[moved].release()
        await waitFor('the late batch finishing', () => a.deliveries.find(d => d.partition === moved && d.offset === 3n)?.finished === true)
        // Two auto-commits (every 50 ms) after the late batch finished had their chance to commit it.
        await a.commitsSettled(2)
        await a.consumer.commit()
        const afterRevoke = commitsOf(a.commitsBy(h).filter(e => h.commits().indexOf(e) >= revokedAt), moved)
        assert.deepEqual(afterRevoke.map(c => [c.entry.generationIdOrMemberEpoch, c.offset, c.accepted]), [], 'A committed the revoked partition after the revoke')
        assert.equal(h.committed(moved), 10n)
      })
    })

    test('a revoke that gives up waiting for a slow batch commits what was processed, and the member keeps its other partitions', async () => {
      await withHarness({ partitions: 2, records: 10 }, async h => {
        const a = await h.member('a', protocol, { rebalanceTimeoutMs: 300 })
        const held = [h.gate(), h.gate()]
        a.handler = async (_batch, d) => { if (d.offset === 3n && a.offsets(d.partition).filter(o => o === 3n).length === 1) await held[d.partition].promise }
        a.run(h)
        await waitFor('A processing offset 3 of both partitions', () => a.offsets(0).includes(3n) && a.offsets(1).includes(3n))
        // Nothing committed yet: offsets 0–2 of both partitions are processed and only the revoke commits them.
        assert.equal(h.committed(0), undefined)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B processing the partition it took', () => b.held().length === 1 && b.processedUpTo(b.held()[0]) === 10n, { timeoutMs: 10_000 })
        const [moved] = b.held()
        const kept = 1 - moved
        assert.equal(b.offsets(moved)[0], 3n, 'B did not start after what A processed: the revoke\'s commit was lost')
        assert.deepEqual(a.lostEvents.map(e => e.reason), [], 'A lost its partitions')
        assert.deepEqual(a.held(), [kept])
        held[kept].release()
        await waitFor('A going on with the partition it kept', () => a.processedUpTo(kept) === 10n)
      })
    })

    // ------------------------------------------------------------------ invariant 4: at-most-once

    for (const code of protocol === 'classic' ? [22, 25] : [25, 113]) {
      const name = { 22: 'ILLEGAL_GENERATION', 25: 'UNKNOWN_MEMBER_ID', 113: 'STALE_MEMBER_EPOCH' }[code]
      test(`at-most-once: a batch whose commit is refused with ${name} is never handed over before an accepted commit, and 'batchDropped' reports it`, async () => {
        await withHarness({ partitions: 1, records: 10 }, async h => {
          const a = await h.member('a', protocol, { delivery: 'at-most-once' })
          // The commit made before handing over offset 5 (it commits 6) is refused; a KIP-848
          // STALE_MEMBER_EPOCH is retried once after a heartbeat, so it is refused twice.
          const refusedAt: number[] = []
          h.cluster.intercept(OffsetCommit, r => {
            if (r.request.topics[0]?.partitions[0]?.committedOffset !== 6n) return undefined
            refusedAt.push(Date.now())
            return { error: code }
          }, { times: code === 113 ? 2 : 1 })
          a.run(h)
          await waitFor('\'batchDropped\'', () => a.dropped.length >= 1)
          assert.deepEqual(a.dropped.map(d => [d.partition, d.firstOffset, d.nextOffset]), [[0, 5n, 6n]])
          assert.equal(refusedAt.length, code === 113 ? 2 : 1)
          const droppedAt = Date.now()
          await waitFor('A going on after the dropped batch', () => a.offsets(0).includes(9n))
          // Every batch was handed over after the commit of its end was accepted, and only once.
          for (const d of a.deliveries) assert.ok(d.committedAtHandOut !== undefined && d.committedAtHandOut >= d.nextOffset, `offset ${d.offset} handed over with the committed offset at ${String(d.committedAtHandOut)}`)
          const offsets = a.offsets(0)
          assert.deepEqual(offsets, [...new Set(offsets)].sort((x, y) => Number(x - y)), `offsets handed over: ${offsets.join(' ')}`)
          const five = a.deliveries.filter(d => d.offset === 5n)
          assert.ok(five.length <= 1)
          if (five.length === 1) assert.ok(five[0].at >= refusedAt[refusedAt.length - 1] && five[0].at <= droppedAt + 5000)
          assert.equal(h.committed(0), 10n)
        })
      })
    }

    test('a refused commit carries Kafka\'s code and name, so a caller decides on the code (not the reason text)', async () => {
      await withHarness({ partitions: 1, records: 5 }, async h => {
        const a = await h.member('a', protocol)
        a.run(h)
        await waitFor('A processing the partition', () => a.processedUpTo(0) === 5n)
        h.cluster.intercept(OffsetCommit, () => ({ error: 25 }), { times: 1 }) // UNKNOWN_MEMBER_ID
        const refused = await a.consumer.commitOffsets([{ topic: h.topic, partition: 0, offset: 3n }])
        assert.equal(refused.length, 1, `refused: ${JSON.stringify(refused, (_k, v) => typeof v === 'bigint' ? String(v) : v)}`)
        assert.equal(refused[0].code, 25)
        assert.equal(refused[0].type, 'UNKNOWN_MEMBER_ID')
      })
    })

    // ------------------------------------------------------------------ close

    test('close() ends within the rebalance timeout while the coordinator refuses every commit, and reports what it did not commit', async () => {
      await withHarness({ partitions: 2, records: 5, groups: { consumerSessionTimeoutMs: 60_000 } }, async h => {
        // On the client's clock: the rebalance timeout (1500 ms) is the client's time, moved by the test.
        const { member: a, until, closeOn } = await memberOnClock(h, protocol)
        a.run(h)
        await until('A processing both partitions', () => a.processedUpTo(0) === 5n && a.processedUpTo(1) === 5n)
        const refused: Array<{ partition: number, offset: bigint }> = []
        a.consumer.on('commitRefused', (list: Array<{ partition: number, offset: bigint }>) => { refused.push(...list) })
        h.cluster.intercept(OffsetCommit, () => ({ error: 16 })) // NOT_COORDINATOR, for ever: retried until the deadline
        const tookMs = await closeOn(3 * 1500)
        assert.ok(tookMs !== undefined && tookMs <= 1500, `close() took ${tookMs ?? 'more than 4500'} ms of the client's time with rebalanceTimeoutMs 1500`)
        assert.deepEqual([...new Set(refused.map(r => `p${r.partition}@${r.offset}`))].sort(), ['p0@5', 'p1@5'])
        const summary = a.warnings.find(w => (w as { kind?: string }).kind === 'UNCOMMITTED_ON_CLOSE') as Error | undefined
        assert.match(summary?.message ?? 'no UNCOMMITTED_ON_CLOSE warning', /t-0@5.*t-1@5|t-1@5.*t-0@5/)
        assert.ok(h.cluster.requests(OffsetCommit).length >= 2, 'the commit was tried (and retried)')
      })
    })

    // ------------------------------------------------------------------ coordinator errors

    test('coordinator errors on heartbeats and commits are retried or lead to a rejoin, and consumption goes on', async () => {
      await withHarness({ partitions: 2, records: 10, brokers: 3 }, async h => {
        const a = await h.member('a', protocol, { autoCommitIntervalMs: 50 })
        a.run(h)
        const caughtUp = async (end: bigint, what: string): Promise<void> => {
          await waitFor(what, () => a.processedUpTo(0) === end && a.processedUpTo(1) === end && h.committed(0) === end && h.committed(1) === end, { timeoutMs: 10_000 })
        }
        await caughtUp(10n, 'A processing and committing the first records')

        // Each code twice, in turn, on the heartbeats. REBALANCE_IN_PROGRESS is a classic
        // Heartbeat answer only: ConsumerGroupHeartbeat never returns it (the Java client, too,
        // treats it there as fatal).
        const codes = [16, 16, 14, 14, 15, 15, 27, 27]
        const heartbeatErrors = protocol === 'classic' ? [...codes] : codes.filter(c => c !== 27)
        const heartbeat: AnyApi = protocol === 'classic' ? Heartbeat : ConsumerGroupHeartbeat
        h.cluster.intercept(heartbeat, r => r.clientId === 'a' && heartbeatErrors.length > 0 ? { error: heartbeatErrors.shift()! } : undefined)
        await waitFor('the heartbeat errors being used', () => heartbeatErrors.length === 0)
        await h.produce(10, [0, 1])
        await caughtUp(20n, 'A going on after heartbeat errors')

        // The same on the commits.
        const commitErrors = [...codes]
        h.cluster.intercept(OffsetCommit, r => r.clientId === 'a' && commitErrors.length > 0 ? { error: commitErrors.shift()! } : undefined)
        await h.produce(10, [0, 1])
        await waitFor('the commit errors being used', () => commitErrors.length === 0)
        await caughtUp(30n, 'A going on after commit errors')
        // Let the rejoin the REBALANCE_IN_PROGRESS commits asked for finish before the
        // coordinator moves (a commit retried across a rejoin is the next test's subject).
        await waitFor('A stable in the current generation', () => a.identity?.generation === currentGeneration(h, a))
        // And an auto-commit in that generation has ended: no commit of before is still being retried.
        await a.commitsSettled(1)

        // The coordinator moves to another broker: the old one answers NOT_COORDINATOR.
        const from = h.cluster.coordinatorOf(h.groupId)
        h.cluster.setCoordinator(h.groupId, h.cluster.brokerIds.find(id => id !== from)!)
        await h.produce(10, [0, 1])
        await caughtUp(40n, 'A going on after the coordinator moved')

        assert.equal(a.error, undefined)
        assert.deepEqual(a.held(), [0, 1])
        // No record was handed out twice: the errors never made A lose what it had processed.
        for (const p of [0, 1]) assert.deepEqual(a.offsets(p), Array.from({ length: 40 }, (_, i) => BigInt(i)))
      })
    })

    test('a commit retried (COORDINATOR_LOAD_IN_PROGRESS) until after a rebalance is refused without costing the member its partitions', async () => {
      // Sessions long enough that a loaded machine's stalls do not expire one: the test is about the commit, not liveness.
      await withHarness({ partitions: 2, records: 10, groups: { consumerSessionTimeoutMs: 10_000 } }, async h => {
        const a = await h.member('a', protocol, { sessionTimeoutMs: 10_000 })
        a.run(h)
        await waitFor('A processing both partitions', () => a.held().length === 2 && a.processedUpTo(0) === 10n && a.processedUpTo(1) === 10n)
        const before = a.identity!
        // A's commit of both partitions is answered COORDINATOR_LOAD_IN_PROGRESS (retried by
        // the client with the same body) until A has moved to a new generation / epoch; the
        // revoke's own commit of the partition that moves goes through.
        let loading = true
        h.cluster.intercept(OffsetCommit, r => r.clientId === 'a' && loading && r.request.generationIdOrMemberEpoch === before.generation && r.request.topics.flatMap(t => t.partitions).length === 2 ? { error: 14 } : undefined)
        const commit = a.consumer.commit()
        await waitFor('the commit being retried', () => h.cluster.requests(OffsetCommit).filter(r => r.clientId === 'a').length >= 2)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('A and B holding one partition each', () => a.identity!.generation !== before.generation && a.held().length === 1 && b.held().length === 1 && currentGeneration(h, a) === a.identity!.generation)
        loading = false
        // Refused by the member itself: by the time the coordinator would take it, neither
        // partition is held under the identity the commit was made for (one moved to B, the
        // other was confirmed under the new generation / epoch).
        const refused = await commit
        const said = `refused: ${JSON.stringify(refused, (_, v: unknown) => typeof v === 'bigint' ? String(v) : v)}`
        const moved = [0, 1].find(p => !a.held().includes(p))
        assert.ok(refused.some(r => r.partition === moved), said)
        // The partition kept: refused too (classic), or committed under the new epoch (KIP-848 retries STALE_MEMBER_EPOCH under it).
        for (const r of refused) assert.match(r.reason, /was revoked|was lost|held under member .* generation\/epoch|no longer held under the current epoch/, said)
        // A fence, which would lose the partitions, comes in a heartbeat's answer: two more answered ones show none came.
        const heartbeatApi: AnyApi = protocol === 'classic' ? Heartbeat : ConsumerGroupHeartbeat
        const beats = (): number => h.cluster.requests(heartbeatApi).filter(r => r.clientId === 'a').length
        const beatsBefore = beats()
        await waitFor('two more heartbeats of A', () => beats() >= beatsBefore + 2)
        assert.deepEqual(a.lostEvents.map(e => e.reason), [], 'A lost its partitions')
        for (const p of [0, 1]) {
          const offsets = a.offsets(p)
          assert.deepEqual(offsets, [...new Set(offsets)], `partition ${p} handed out again: ${offsets.join(' ')}`)
        }
      })
    })

    test('close() during a rebalance that does not end in time: what was processed and not committed is reported, not dropped', async () => {
      if (protocol !== 'classic') return // a KIP-848 member keeps its identity while another joins
      await withHarness({ partitions: 2, records: 3 }, async h => {
        const a = await h.member('a', protocol)
        const refusals: Array<{ partition: number, reason: string }> = []
        a.consumer.on('commitRefused', refused => { refusals.push(...refused.map(r => ({ partition: r.partition, reason: r.reason }))) })
        a.run(h)
        await waitFor('A processing both partitions', () => a.processedUpTo(0) === 3n && a.processedUpTo(1) === 3n)
        const rejoin = h.gate()
        let rejoining = false
        h.cluster.intercept(JoinGroup, r => {
          if (r.clientId !== 'a') return undefined
          rejoining = true
          return { hold: rejoin.promise }
        })
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('A rejoining (held)', () => rejoining)
        await a.consumer.close()
        assert.deepEqual(refusals.map(r => r.partition).sort(), [0, 1])
        for (const r of refusals) assert.match(r.reason, /a rebalance was still in progress when the consumer closed/)
        const warned = a.warnings.find(w => (w as KafkaTsError).kind === 'UNCOMMITTED_ON_CLOSE') as Error | undefined
        assert.match(warned?.message ?? 'no UNCOMMITTED_ON_CLOSE warning', /left 2 partition\(s\) uncommitted: t-0@3 .*t-1@3/)
      })
    })

    test('close() ends in bounded time while the assignment waits for committed offsets the coordinator keeps refusing (NOT_COORDINATOR for ever)', async () => {
      await withHarness({ partitions: 2, records: 2, groups: { consumerSessionTimeoutMs: 60_000 } }, async h => {
        h.cluster.intercept(OffsetFetch, () => ({ error: 16 }))
        const { member: a, until, closeOn } = await memberOnClock(h, protocol)
        a.run(h)
        await until('A asking for its committed offsets', () => h.cluster.requests(OffsetFetch).length >= 3)
        const tookMs = await closeOn(3 * 1500)
        assert.ok(tookMs !== undefined && tookMs <= 1500, `close() took ${tookMs ?? 'more than 4500'} ms of the client's time with rebalanceTimeoutMs 1500`)
      })
    })

    test('close() ends in bounded time when the coordinator keeps refusing the leave (NOT_COORDINATOR for ever)', async () => {
      await withHarness({ partitions: 2, records: 2, groups: { consumerSessionTimeoutMs: 60_000 } }, async h => {
        const { member: a, until, closeOn } = await memberOnClock(h, protocol)
        a.run(h)
        await until('A processing both partitions', () => a.held().length === 2 && a.processedUpTo(0) === 2n && a.processedUpTo(1) === 2n)
        // The leave itself: classic LeaveGroup, KIP-848 a heartbeat with epoch -1.
        if (protocol === 'classic') h.cluster.intercept(LeaveGroup, () => ({ error: 16 }))
        else h.cluster.intercept(ConsumerGroupHeartbeat, r => (r.request.memberEpoch ?? 0) < 0 ? { error: 16 } : undefined)
        // Before: the leave was retried for ever (a request timeout, but no deadline for its retries), so close() never
        // returned. Now the leave gives up after its bound (5 s of the client's time), after the revoke.
        const tookMs = await closeOn(3 * (1500 + 5000))
        assert.ok(tookMs !== undefined && tookMs <= 1500 + 5000, `close() took ${tookMs ?? 'more than 19500'} ms of the client's time (rebalanceTimeoutMs 1500, leave bound 5000)`)
        assert.equal(h.committed(0), 2n, 'the revoke before the leave committed what was processed')
      })
    })
  })
}

// A KIP-848 reconciliation (revoke, OffsetFetch, add, onAssigned) awaits the application
// and the coordinator, and the coordinator goes on meanwhile: a real 4.4 broker bumps every
// member's epoch about a second after anyone joins, usually while the joiner's partners
// still reconcile. Whatever arrives during a reconciliation must be in what it ends with.
describe('GroupConsumer (consumer protocol): reconciliation while the coordinator moves on', { timeout: 60_000 }, () => {
  for (const delivery of ['at-least-once', 'at-most-once'] as const) {
    test(`${delivery}: an epoch bump with the same assignment during a slow onAssigned is stamped on the kept partitions, so their commits are accepted`, async () => {
      await withHarness({ partitions: 2, records: 5, groups: { consumerSessionTimeoutMs: 30_000 } }, async h => {
        h.cluster.createTopic({ name: 'other', partitions: 1 })
        const onAssignedEntered = gate()
        const slowOnAssigned = h.gate()
        const a = await h.member('a', 'consumer', {
          delivery,
          onAssigned: async () => {
            if (onAssignedEntered.released) return
            onAssignedEntered.release()
            await slowOnAssigned.promise
          }
        })
        a.run(h)
        await onAssignedEntered.promise
        const epochBefore = h.cluster.groupMembers(h.groupId)[0].memberEpoch!
        // Someone joins for another topic: A's epoch moves on, its partitions stay.
        const stopBare = await joinBareConsumerMember(h, 'bare', ['other'])
        try {
          await waitFor('A at a new epoch at the coordinator', () => (h.cluster.groupMembers(h.groupId).find(m => m.memberId !== 'bare')?.memberEpoch ?? 0) > epochBefore)
          slowOnAssigned.release()
          await waitFor('A processing both partitions', () => a.processedUpTo(0) === 5n && a.processedUpTo(1) === 5n)
          const epochNow = h.cluster.groupMembers(h.groupId).find(m => m.memberId !== 'bare')!.memberEpoch
          await waitFor(`both partitions stamped with epoch ${String(epochNow)}`, () => groupConsumerInternals(a.consumer).cursors.every(c => c.ownership.generation === epochNow))
          if (delivery === 'at-least-once') {
            const refused = await a.consumer.commit()
            assert.deepEqual(refused.map(r => `p${r.partition}: ${r.reason}`), [])
          }
          assert.deepEqual(a.dropped, [], 'batches dropped (their at-most-once commits refused)')
          assert.equal(h.committed(0), 5n)
          assert.equal(h.committed(1), 5n)
        } finally {
          await stopBare()
        }
      })
    })
  }

  test('OffsetFetch answered STALE_MEMBER_EPOCH (the epoch moved on while it was asked) is asked again with the current epoch', async () => {
    await withHarness({ partitions: 2, records: 3, groups: { consumerSessionTimeoutMs: 30_000 } }, async h => {
      h.cluster.intercept(OffsetFetch, r => r.clientId === 'a' ? { error: 113 } : undefined, { times: 2 })
      const a = await h.member('a', 'consumer')
      a.run(h)
      await waitFor('A processing both partitions', () => a.processedUpTo(0) === 3n && a.processedUpTo(1) === 3n)
      assert.equal(a.error, undefined)
      assert.ok(h.cluster.requests(OffsetFetch).filter(r => r.clientId === 'a').length >= 3)
    })
  })

  for (const [code, name] of [[25, 'UNKNOWN_MEMBER_ID'], [110, 'FENCED_MEMBER_EPOCH']] as const) {
    test(`OffsetFetch answered ${name}: the member loses what it held, rejoins at epoch 0 and consumes`, async () => {
      await withHarness({ partitions: 1, records: 3 }, async h => {
        h.cluster.intercept(OffsetFetch, r => r.clientId === 'a' ? { error: code } : undefined, { times: 1 })
        const a = await h.member('a', 'consumer')
        a.run(h)
        await waitFor('A processing after the rejoin', () => a.processedUpTo(0) === 3n)
        assert.equal(a.error, undefined)
        const joins = h.cluster.requests(ConsumerGroupHeartbeat).filter(r => r.clientId === 'a' && r.request.memberEpoch === 0)
        assert.equal(joins.length, 2, 'A joined again at epoch 0')
      })
    })
  }

  test('the answer that gives a waiting member its freed partition is lost: the next heartbeat is a full one, and the member gets the partition', async () => {
    await withHarness({ partitions: 2, records: 3, groups: { consumerSessionTimeoutMs: 30_000 } }, async h => {
      // 'old', a hand-driven member, joins first and owns both partitions.
      const old = new Client({ bootstrap: h.cluster.bootstrap, clientId: 'old', requestTimeoutMs: 5000 })
      await old.metadata.refresh([h.topic])
      const topicId = h.cluster.topicId(h.topic)
      let oldEpoch = 0
      const oldBeat = async (owned: number[] | null): Promise<void> => {
        const answer = await old.request(ConsumerGroupHeartbeat, {
          groupId: h.groupId,
          memberId: 'old',
          memberEpoch: oldEpoch,
          rebalanceTimeoutMs: oldEpoch === 0 ? 30_000 : -1,
          subscribedTopicNames: oldEpoch === 0 ? [h.topic] : null,
          topicPartitions: owned === null ? null : owned.length === 0 ? [] : [{ topicId, partitions: owned }]
        }, { nodeId: h.cluster.coordinatorOf(h.groupId) })
        assert.equal(answer.errorCode, 0, `old's heartbeat: ${String(answer.errorMessage)}`)
        oldEpoch = answer.memberEpoch
      }
      const oldMember = (): GroupMemberInfo | undefined => h.cluster.groupMembers(h.groupId).find(m => m.memberId === 'old')
      try {
        await oldBeat([])
        await oldBeat([0, 1])
        assert.deepEqual(oldMember()?.assigned.map(p => p.partition), [0, 1])
        // The heartbeat of A that the coordinator answers with the partition 'old' freed: applied, and its answer lost (the connection closes).
        let lost = false
        h.cluster.intercept(ConsumerGroupHeartbeat, r => {
          const released = oldMember()?.assigned.length === 1 && oldMember()?.pendingRevocation.length === 0
          if (r.clientId !== 'a' || lost || !released) return undefined
          lost = true
          return { drop: 'after-apply' }
        })
        // A joins: its target is one partition, which 'old' still owns (A waits for it, unreleased).
        const a = await h.member('a', 'consumer')
        a.run(h)
        await waitFor("A's target", () => h.cluster.groupMembers(h.groupId).find(m => m.memberId !== 'old')?.target.length === 1)
        const freed = h.cluster.groupMembers(h.groupId).find(m => m.memberId !== 'old')!.target[0].partition
        // 'old' releases it (its heartbeat no longer lists it).
        await oldBeat([1 - freed])
        assert.deepEqual(oldMember()?.assigned.map(p => p.partition), [1 - freed])
        await waitFor('the answer that gives A the freed partition, lost', () => lost)
        // Kafka sends the assignment again only in the answer to a full request (or when it changes): A must send one.
        await waitFor(`A processing partition ${freed}`, () => a.processedUpTo(freed) === 3n, { timeoutMs: 10_000 })
        assert.equal(a.error, undefined)
      } finally {
        await old.close()
      }
    })
  })

  test('a newer target that arrives during the OffsetFetch of an older one: the older one\'s partitions are never added', async () => {
    await withHarness({ partitions: 2, records: 3, groups: { consumerSessionTimeoutMs: 30_000, consumerHeartbeatIntervalMs: 1000 } }, async h => {
      const offsetFetchHeld = h.gate()
      let held = false
      // Every OffsetFetch of A is held until the release, not only the first: on a loaded machine the
      // test's waits can outlast A's 5 s request timeout, and the retry of a timed-out fetch, if let
      // through, rightly completes the older target before the newer one is known.
      h.cluster.intercept(OffsetFetch, r => r.clientId === 'a' && !offsetFetchHeld.released ? (held = true, { hold: offsetFetchHeld.promise }) : undefined)
      const a = await h.member('a', 'consumer')
      a.run(h)
      // A's first target is both partitions; its OffsetFetch for them hangs.
      await waitFor("A's OffsetFetch", () => held)
      const stopBare = await joinBareConsumerMember(h, 'bare', [h.topic])
      try {
        // The bare member takes one partition: A's target shrinks to the other one.
        await waitFor("A's new target", () => h.cluster.groupMembers(h.groupId).find(m => m.memberId !== 'bare')?.target.length === 1)
        const kept = h.cluster.groupMembers(h.groupId).find(m => m.memberId !== 'bare')!.target[0].partition
        // The heartbeat that brings it: one sent after the target changed, and answered (the next one follows its answer).
        const beats = (): number => h.cluster.requests(ConsumerGroupHeartbeat).filter(r => r.clientId === 'a').length
        const beatsBefore = beats()
        await waitFor("A's heartbeat bringing the new target, answered", () => beats() >= beatsBefore + 2)
        offsetFetchHeld.release()
        await waitFor('A processing the partition it kept', () => a.processedUpTo(kept) === 3n)
        const added = a.assignedEvents.flatMap(e => e.added.map(p => p.partition))
        assert.deepEqual(added, [kept], `A added ${added.join(', ')}`)
        assert.deepEqual(a.offsets(1 - kept), [], 'A handed out records of the partition its newer target does not have')
      } finally {
        await stopBare()
      }
    })
  })
})

describe('GroupConsumer (classic protocol): heartbeats', { timeout: 60_000 }, () => {
  test('the first Heartbeat comes one heartbeatIntervalMs after the SyncGroup, and each next one an interval after the last answer (as the Java client and kafkajs)', async () => {
    await withHarness({ partitions: 1, records: 0 }, async h => {
      const intervalMs = 300
      const a = await h.member('a', 'classic', { heartbeatIntervalMs: intervalMs, sessionTimeoutMs: 6000 })
      a.run(h)
      await waitFor('three heartbeats of A', () => h.cluster.requests(Heartbeat).filter(r => r.clientId === 'a').length >= 3, { timeoutMs: 5000 })
      const synced = h.cluster.requests(SyncGroup).filter(r => r.clientId === 'a')
      const beats = h.cluster.requests(Heartbeat).filter(r => r.clientId === 'a')
      // Timers may fire a millisecond early against Date.now()'s rounding.
      const afterSync = beats[0].receivedAt - synced[synced.length - 1].receivedAt
      assert.ok(afterSync >= intervalMs - 5, `the first Heartbeat came ${afterSync} ms after the SyncGroup, before the ${intervalMs} ms interval`)
      for (let i = 1; i < beats.length; i++) {
        const gap = beats[i].receivedAt - beats[i - 1].receivedAt
        assert.ok(gap >= intervalMs - 5, `Heartbeat ${i + 1} came ${gap} ms after the one before`)
      }
    })
  })
})

describe('GroupConsumer (classic protocol): static membership', { timeout: 60_000 }, () => {
  test('a static leader\'s close() sends no LeaveGroup, and its restart within the session timeout gets the partitions back without a rebalance', async () => {
    await withHarness({ partitions: 2, records: 3 }, async h => {
      const options = { instanceId: 'instance-a', sessionTimeoutMs: 10_000 }
      const a = await h.member('a', 'classic', options)
      a.run(h)
      await waitFor('A processing both partitions', () => a.processedUpTo(0) === 3n && a.processedUpTo(1) === 3n)
      const generation = h.cluster.group(h.groupId)!.generationId
      await a.consumer.close()
      assert.deepEqual(h.cluster.requests(LeaveGroup).map(r => r.clientId), [], 'LeaveGroup sent by a static member')
      // The restart: same instance id, new member id. The coordinator answers its JoinGroup with
      // skipAssignment (it leads, and the group keeps its assignment).
      const restarted = await h.member('a-restarted', 'classic', options)
      restarted.run(h)
      await waitFor('the restarted member holding both partitions', () => restarted.held().length === 2)
      await h.produce(2, [0, 1])
      await waitFor('the restarted member going on from the committed offsets', () => restarted.processedUpTo(0) === 5n && restarted.processedUpTo(1) === 5n)
      // A rebalance the restarted leader forced would show in the answers to its heartbeats (REBALANCE_IN_PROGRESS, then a JoinGroup).
      const beats = (): number => h.cluster.requests(Heartbeat).filter(r => r.clientId === 'a-restarted').length
      const beatsBefore = beats()
      await waitFor('three more heartbeats of the restarted member', () => beats() >= beatsBefore + 3)
      assert.equal(h.cluster.group(h.groupId)!.generationId, generation, 'the group rebalanced')
      assert.equal(h.cluster.requests(JoinGroup).filter(r => r.clientId === 'a-restarted').length, 1, 'the restarted leader joined more than once')
      assert.deepEqual(restarted.offsets(0), [3n, 4n])
    })
  })
})

describe('GroupConsumer (consumer protocol): commits in order', { timeout: 60_000 }, () => {
  test('a commit resent after its connection died is rebuilt from what is held then: it never lands after the revoke\'s commit and moves the offset back', async () => {
    await withHarness({ partitions: 2, records: 5, groups: { consumerSessionTimeoutMs: 30_000 } }, async h => {
      // A slow onRevoked keeps the revoked partition A's at the coordinator (not acknowledged),
      // so an old commit of it would still be accepted there.
      const onRevokedHeld = h.gate()
      const a = await h.member('a', 'consumer', { rebalanceTimeoutMs: 5000, onRevoked: async () => { await onRevokedHeld.promise } }, { retryBackoffMs: 800 })
      a.run(h)
      await waitFor('A processing both partitions', () => a.processedUpTo(0) === 5n && a.processedUpTo(1) === 5n)
      // A commits both @5; the request dies with its connection before the broker applies it,
      // and the Client resends it 800 ms later.
      h.cluster.intercept(OffsetCommit, r => r.clientId === 'a' ? { drop: 'before-apply' } : undefined, { times: 1 })
      const first = a.consumer.commit()
      await waitFor("A's first commit", () => h.cluster.requests(OffsetCommit).some(r => r.clientId === 'a'))
      await h.produce(5, [0, 1])
      await waitFor('A processing both partitions up to 10', () => a.processedUpTo(0) === 10n && a.processedUpTo(1) === 10n)
      // A second member takes one partition: A's revoke commits it @10 and releases it.
      const stopBare = await joinBareConsumerMember(h, 'bare', [h.topic])
      try {
        await waitFor('A revoking one partition', () => a.held().length === 1)
        const revoked = 1 - a.held()[0]
        await first
        onRevokedHeld.release()
        // The revoke ended (its commit, then onRevoked): every commit of the story is in the log.
        await waitFor('A\'s revoke ending', () => a.assignedEvents.some(e => e.revoked.some(p => p.partition === revoked)))
        const story = h.commits().flatMap(e => e.partitions.map(p => `epoch ${e.generationIdOrMemberEpoch} p${p.partition}@${p.offset} ${p.accepted ? 'accepted' : 'refused'}`)).join(' | ')
        assert.equal(h.committed(revoked), 10n, `the revoked partition's committed offset: ${story}`)
        for (const p of [0, 1]) {
          const accepted = h.commits().flatMap(e => e.partitions.filter(x => x.partition === p && x.accepted).map(x => x.offset))
          assert.deepEqual(accepted, [...accepted].sort((x, y) => Number(x - y)), `p${p}'s accepted commits went back: ${story}`)
        }
      } finally {
        await stopBare()
      }
    })
  })
})

// autoCommit: false (as Java's enable.auto.commit=false): no commit on a timer, when a
// partition is revoked or at close(); commit() still commits what the application finished.
for (const protocol of protocols) {
  describe(`autoCommit: false (${protocol} protocol)`, () => {
    test('nothing is committed on a timer, at a revoke or at close; commit() commits what was processed', async () => {
      await withHarness({ partitions: 2, records: 10 }, async h => {
        const a = await h.member('a', protocol, { autoCommit: false, autoCommitIntervalMs: undefined })
        a.run(h)
        const processedUpTo = (offset: bigint): boolean => [0, 1].every(p => a.processedUpTo(p) === offset)
        await waitFor('every record processed', () => processedUpTo(10n))
        const commits = (): number => h.cluster.requests(OffsetCommit).filter(r => r.clientId === 'a').length
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(commits(), 1, 'commit() sent one OffsetCommit')
        assert.deepEqual([h.committed(0), h.committed(1)], [10n, 10n])
        // More processed, then a revoke (a second member joins) and a close: none of them commits.
        await h.produce(5, [0, 1])
        await waitFor('the new records processed', () => processedUpTo(15n))
        const b = await h.member('b', protocol, { autoCommit: false, autoCommitIntervalMs: undefined })
        await waitFor('member a to revoke a partition to member b', () => a.assignedEvents.some(e => e.revoked.length > 0) && b.held().length > 0, { timeoutMs: 10_000 })
        await a.consumer.close()
        assert.equal(commits(), 1, 'no OffsetCommit after the explicit one')
        assert.deepEqual([h.committed(0), h.committed(1)], [10n, 10n], 'the offsets of the explicit commit')
      })
    })
  })
}

// Heartbeat timing on a FakeClock: the shared HeartbeatLoop (group/heartbeat-loop.ts) on its
// own, then the heartbeats of each group protocol (classic, KIP-848, KIP-932 share) against the
// fake cluster with the member's Client on a FakeClock. Time moves only when the test moves
// it, so "no heartbeat before the interval" is shown by the one timer the loop waits on and by
// moving the clock to just before it, not by sleeping. The fake cluster's own timers (session
// expiry) run on the wall clock: the sessions here are long enough not to matter.
//
// The failure stories: classic ran two loops of its own that polled every 100 ms and
// disagreed with each other (a stable member retried any thrown error silently and rejoined
// on a retriable error code; a revoking one warned and ended), and a KIP-848 member fenced
// by FENCED_INSTANCE_ID still sent a leave heartbeat on close.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { HeartbeatLoop, type BeatOutcome } from '../../group/heartbeat-loop'
import { StaticMembershipError } from '../../group/errors'
import { ShareConsumer } from '../../group/share-consumer'
import { Client } from '../../index'
import type { AnyApi } from '../../protocol/api'
import { ConsumerGroupHeartbeat } from '../../protocol/apis/consumer-group-heartbeat'
import { Heartbeat } from '../../protocol/apis/heartbeat'
import { JoinGroup } from '../../protocol/apis/join-group'
import { LeaveGroup } from '../../protocol/apis/leave-group'
import { OffsetCommit } from '../../protocol/apis/offset-commit'
import { ShareFetch } from '../../protocol/apis/share-fetch'
import { ShareGroupHeartbeat } from '../../protocol/apis/share-group-heartbeat'
import { FakeClock, FakeCluster, withClock } from '../../testing/index'
import { waitFor } from '../support/wait'
import { withHarness, type Harness, type Member } from './support'

/** A loop on `clock` whose beats answer from `answers` (then 'sent'), logging the clock's time of each. */
function loopOn (clock: FakeClock, answers: BeatOutcome[] = []): { loop: HeartbeatLoop, beats: number[], hold: (until: Promise<void>) => void } {
  const beats: number[] = []
  let held: Promise<void> | undefined
  const loop = new HeartbeatLoop({
    clock,
    intervalMs: 1000,
    firstAfterMs: 1000,
    beat: async () => {
      beats.push(clock.now())
      if (held !== undefined) await held
      return answers.shift() ?? 'sent'
    }
  })
  return { loop, beats, hold: until => { held = until } }
}

describe('HeartbeatLoop on a FakeClock', () => {
  test('no heartbeat before the due time, one at it, each next one an interval after the answer; one timer, no polling', async () => {
    const clock = new FakeClock(0)
    const { loop, beats } = loopOn(clock)
    loop.start()
    await clock.settle()
    assert.deepEqual([clock.pendingTimers, clock.nextDueAt], [1, 1000], 'the loop waits on one timer, due at the interval')
    await clock.advance(999)
    assert.deepEqual(beats, [])
    await clock.advance(1)
    assert.deepEqual(beats, [1000])
    await clock.advance(2000)
    assert.deepEqual(beats, [1000, 2000, 3000])
    await loop.stop()
    assert.equal(clock.pendingTimers, 0, 'stop() left a timer behind')
  })

  test('backoff doubles after failures in a row (200, 400, 800 ms), stops at the interval, and an answer resets it', async () => {
    const clock = new FakeClock(0)
    const { loop, beats } = loopOn(clock, ['failed', 'failed', 'failed', 'failed', 'sent', 'failed'])
    loop.start()
    await clock.advance(1000 + 200 + 400 + 800 + 1000 + 1000 + 200)
    assert.deepEqual(beats.map((at, i) => i === 0 ? at : at - beats[i - 1]), [1000, 200, 400, 800, 1000, 1000, 200])
    await loop.stop()
  })

  test('wake() heartbeats at once, and a wake during a heartbeat makes the next one go at once', async () => {
    const clock = new FakeClock(0)
    const { loop, beats, hold } = loopOn(clock)
    loop.start()
    await clock.advance(1000)
    await clock.advance(300)
    loop.wake()
    await clock.settle()
    assert.deepEqual(beats, [1000, 1300], 'wake() did not heartbeat at once')
    // A wake while a heartbeat is in flight is not lost.
    let release!: () => void
    hold(new Promise<void>(resolve => { release = resolve }))
    loop.wake()
    await clock.settle()
    assert.deepEqual(beats, [1000, 1300, 1300])
    loop.wake()
    release()
    await clock.settle()
    assert.deepEqual(beats, [1000, 1300, 1300, 1300], 'the wake that came during a heartbeat was lost')
    await loop.stop()
  })

  test('stop() ends the loop: the heartbeat in flight is awaited and none follows', async () => {
    const clock = new FakeClock(0)
    const { loop, beats } = loopOn(clock, ['done'])
    loop.start()
    await clock.advance(5000)
    assert.deepEqual(beats, [1000], "a beat that answered 'done' was followed by another")
    const other = loopOn(clock)
    other.loop.start()
    await other.loop.stop()
    await clock.advance(5000)
    assert.deepEqual(other.beats, [])
    assert.equal(clock.pendingTimers, 0)
  })
})

function heartbeatApi (protocol: 'classic' | 'consumer'): AnyApi {
  return protocol === 'classic' ? Heartbeat : ConsumerGroupHeartbeat
}

/** The member's heartbeat requests the fake cluster has received. */
function heartbeatsOf (h: Harness, member: Member, protocol: 'classic' | 'consumer'): number {
  return protocol === 'classic'
    ? h.cluster.requests(Heartbeat).filter(r => r.clientId === member.name).length
    : h.cluster.requests(ConsumerGroupHeartbeat).filter(r => r.clientId === member.name).length
}

/** Resolves when the member's heartbeat loop waits on its timer, due `inMs` from the clock's now. */
async function untilDueIn (clock: FakeClock, inMs: number, what: string): Promise<void> {
  await waitFor(`the next heartbeat due in ${inMs} ms (${what})`, () => clock.nextDueAt === clock.now() + inMs, { timeoutMs: 10_000 })
}

for (const protocol of ['classic', 'consumer'] as const) {
  describe(`${protocol} protocol heartbeats on a FakeClock`, { timeout: 60_000 }, () => {
    // KIP-848: the coordinator sets the interval (1000 ms here); classic: the member's option.
    const groups = { consumerHeartbeatIntervalMs: 1000, consumerSessionTimeoutMs: 60_000 }
    const memberOptions = protocol === 'classic' ? { heartbeatIntervalMs: 1000, sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 10_000 } : { sessionTimeoutMs: undefined, heartbeatIntervalMs: undefined }

    /** A member on a FakeClock holding both partitions, its heartbeats settled on the interval. */
    async function steadyMember (h: Harness, clock: FakeClock): Promise<Member> {
      const a = await h.member('a', protocol, memberOptions, { clock })
      a.run(h)
      await waitFor('A holding both partitions', () => a.held().length === 2)
      // KIP-848: the heartbeat that reports both partitions owned (it acknowledges the assignment) comes at once.
      if (protocol === 'consumer') await waitFor('the heartbeat that acknowledges the assignment', () => h.cluster.requests(ConsumerGroupHeartbeat).some(r => r.clientId === 'a' && r.request.topicPartitions?.flatMap((t: { partitions: number[] }) => t.partitions).length === 2))
      await untilDueIn(clock, 1000, 'after joining')
      return a
    }

    test('no heartbeat before the interval, one at it, then one an interval after each answer', async () => {
      await withHarness({ partitions: 2, records: 0, groups }, async h => {
        const clock = new FakeClock()
        const a = await steadyMember(h, clock)
        const before = heartbeatsOf(h, a, protocol)
        await clock.advance(999)
        assert.equal(clock.nextDueAt, clock.now() + 1, 'the heartbeat timer moved')
        assert.equal(heartbeatsOf(h, a, protocol), before, 'a heartbeat before the interval')
        await clock.advance(1)
        await waitFor('the heartbeat at the interval', () => heartbeatsOf(h, a, protocol) === before + 1)
        await untilDueIn(clock, 1000, 'after its answer')
        assert.equal(heartbeatsOf(h, a, protocol), before + 1)
        assert.equal(a.error, undefined)
      })
    })

    test('backoff doubles after failed heartbeats (200, 400, 800 ms), up to the interval, and an answer brings the interval back', async () => {
      await withHarness({ partitions: 2, records: 0, groups }, async h => {
        const clock = new FakeClock()
        const a = await steadyMember(h, clock)
        // NOT_ENOUGH_REPLICAS (19): retriable, and not one the coordinator lookup retries itself.
        let failing = true
        h.cluster.intercept(heartbeatApi(protocol), r => r.clientId === 'a' && failing ? { error: 19 } : undefined)
        for (const backoff of [200, 400, 800, 1000]) {
          await clock.advance(clock.nextDueAt! - clock.now())
          await untilDueIn(clock, backoff, 'after a failed heartbeat')
        }
        failing = false
        await clock.advance(1000)
        await untilDueIn(clock, 1000, 'after an answer')
        assert.equal(a.error, undefined)
        assert.deepEqual(a.held(), [0, 1], 'failed heartbeats cost the member its partitions')
        if (protocol === 'classic') assert.ok(a.warnings.some(w => (w as { kind?: string }).kind === 'HEARTBEAT_FAILED'), 'no warning for the failed heartbeats')
      })
    })

    if (protocol === 'consumer') {
      test('wake() heartbeats at once: a commit answered STALE_MEMBER_EPOCH gets its heartbeat without the clock moving', async () => {
        await withHarness({ partitions: 2, records: 2, groups }, async h => {
          const clock = new FakeClock()
          const a = await steadyMember(h, clock)
          await waitFor('A processing both partitions', () => a.processedUpTo(0) === 2n && a.processedUpTo(1) === 2n)
          await untilDueIn(clock, 1000, 'after processing')
          const before = heartbeatsOf(h, a, protocol)
          h.cluster.intercept(OffsetCommit, r => r.clientId === 'a' ? { error: 113 } : undefined, { times: 1 })
          const commit = a.consumer.commit()
          await waitFor('a heartbeat woken by the refused commit, the clock unmoved', () => heartbeatsOf(h, a, protocol) > before)
          assert.deepEqual(await commit, [])
        })
      })
    }

    test('FENCED_INSTANCE_ID on a heartbeat ends a static member with StaticMembershipError: it sends nothing more, no rejoin and no leave on close', async () => {
      await withHarness({ partitions: 2, records: 0, groups }, async h => {
        const clock = new FakeClock()
        const a = await h.member('a', protocol, { ...memberOptions, instanceId: 'i-1' }, { clock })
        a.run(h)
        await waitFor('A holding both partitions', () => a.held().length === 2)
        await untilDueIn(clock, 1000, 'after joining')
        const requestsOfA = (): string[] => h.cluster.requests().filter(r => r.clientId === 'a' && ['Heartbeat', 'ConsumerGroupHeartbeat', 'JoinGroup', 'SyncGroup', 'LeaveGroup'].includes(r.apiName)).map(r => r.apiName)
        h.cluster.intercept(heartbeatApi(protocol), r => r.clientId === 'a' ? { error: 82 } : undefined)
        const before = requestsOfA().length
        await clock.advance(1000)
        await waitFor('A failing', () => a.error !== undefined)
        assert.ok(a.error instanceof StaticMembershipError, String(a.error))
        assert.equal(a.error.code, 82)
        assert.match(a.error.message, /instanceId "i-1"/)
        assert.match(a.error.message, /Heartbeat in group "g"/, 'the error does not say where the fence was learnt')
        // Time goes on: nothing is due, nothing is sent (a rejoin would be a JoinGroup, or a heartbeat at epoch 0).
        await clock.advance(10_000)
        await a.consumer.close()
        const after = requestsOfA().slice(before)
        assert.deepEqual(after, [protocol === 'classic' ? 'Heartbeat' : 'ConsumerGroupHeartbeat'], `A sent after the fenced heartbeat: ${after.join(', ')}`)
        assert.deepEqual(h.cluster.requests(LeaveGroup).filter(r => r.clientId === 'a'), [])
        assert.equal(h.cluster.requests(JoinGroup).filter(r => r.clientId === 'a').length, protocol === 'classic' ? 1 : 0)
        assert.deepEqual(a.warnings.filter(w => (w as { kind?: string }).kind === 'LEAVE_FAILED'), [], 'a leave was tried after the fence')
      })
    })
  })
}

describe('share group (KIP-932) heartbeats on a FakeClock', { timeout: 60_000 }, () => {
  async function shareMember (clock: FakeClock): Promise<{ cluster: FakeCluster, consumer: ShareConsumer, beats: () => number, close: () => Promise<void> }> {
    const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 1 }] })
    const client = new Client(withClock({ bootstrap: cluster.bootstrap, clientId: 's', retryBackoff: { initialMs: 20, maxMs: 200 } }, clock))
    const consumer = new ShareConsumer(client, { groupId: 'g', topics: ['t'], maxWaitMs: 50 })
    await consumer.ready()
    await waitFor('the share member assigned the partition', () => consumer.assignment.length > 0)
    // The fake cluster asks for a heartbeat every 200 ms.
    await untilDueIn(clock, 200, 'after joining')
    return {
      cluster,
      consumer,
      beats: () => cluster.requests(ShareGroupHeartbeat).filter(r => r.clientId === 's').length,
      close: async () => {
        await consumer.close().catch(() => {})
        await client.close()
        await cluster.close()
      }
    }
  }

  test('no heartbeat before the interval, one at it; backoff doubles after failures; a fetch that finds the member unknown wakes a heartbeat at once', async () => {
    const clock = new FakeClock()
    const m = await shareMember(clock)
    try {
      const before = m.beats()
      await clock.advance(199)
      assert.equal(m.beats(), before, 'a heartbeat before the interval')
      await clock.advance(1)
      await waitFor('the heartbeat at the interval', () => m.beats() === before + 1)
      await untilDueIn(clock, 200, 'after its answer')

      // Failures: 200 ms is both the first backoff and the interval, so the cap shows at once.
      let failing = true
      m.cluster.intercept(ShareGroupHeartbeat, r => r.clientId === 's' && failing ? { error: 19 } : undefined)
      await clock.advance(200)
      await waitFor('a failed heartbeat', () => m.beats() === before + 2)
      await untilDueIn(clock, 200, 'after a failed heartbeat (200 ms, at most the interval)')
      failing = false

      // A ShareFetch answered UNKNOWN_MEMBER_ID: the member heartbeats now, not at the due time.
      const beatsBefore = m.beats()
      m.cluster.intercept(ShareFetch, r => r.clientId === 's' ? { error: 25 } : undefined, { times: 1 })
      // The member fetches only when the application asks.
      const reading = m.consumer.nextBatch(AbortSignal.timeout(10_000)).catch(() => undefined)
      await waitFor('a heartbeat woken by the fetch, the clock unmoved', () => m.beats() > beatsBefore)
      await m.consumer.close()
      await reading
    } finally {
      await m.close()
    }
  })
})

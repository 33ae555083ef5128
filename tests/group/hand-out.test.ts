// How a group member hands batches to the application, against the fake cluster, for both
// group protocols: what counts as processed after a seek and per record, one handler per
// partition across ownerships, a stuck handler (maxProcessingMs), and a throwing one.
//
// The failure stories: a batch that seeked back was still marked processed to its end and
// committed while the re-read ran (a crash then skipped records); a partition that came
// back to the member got a second handler while the first still ran (100..149 processed
// before 61..99); a stuck handler held its partitions for ever; a throwing handler, or
// close() called from inside one, kept the member in the group for ~55 s.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { KafkaRecord } from '../../protocol/record-batch'
import type { ConsumerBatch } from '../../consumer/cursor'
import type { HandlerErrorEvent, ProcessingTimeoutEvent } from '../../consumer/consumer'
import { protocols, withHarness, type Member } from './support'
import { eventLoopTurns, outcomeWithin, waitFor } from '../support/wait'
import { FakeClock } from '../../testing/index'

/** Runs `member` with eachRecord (the harness's Member.run uses eachBatch), logging every record handed out. */
function runEachRecord (member: Member, onRecord: (record: KafkaRecord, batch: ConsumerBatch) => Promise<void> | void): Array<{ partition: number, offset: bigint, identity: string }> {
  const seen: Array<{ partition: number, offset: bigint, identity: string }> = []
  member.running = member.consumer.run({
    partitionsConcurrently: 4,
    eachRecord: async (record, batch) => {
      seen.push({ partition: batch.partition, offset: record.offset, identity: `${member.identity?.memberId ?? ''}/${member.identity?.generation ?? ''}` })
      await onRecord(record, batch)
    }
  }).catch(error => { member.error = error })
  return seen
}

/**
 * Resolves once `member`'s current ownership of `partition` has fetched records past its
 * committed offset and buffered them. Buffering wakes the waiting readers, and the way from
 * there to the handler has no I/O: after a few turns of the event loop, a batch that may be
 * handed out has been (without the one-handler-per-partition rule these tests fail here).
 */
async function untilBuffered (member: Member, partition: number): Promise<void> {
  await waitFor(`partition ${partition} fetched and buffered under the new ownership`, () => member.consumer.lag().some(l =>
    l.partition === partition && l.highWatermark !== undefined && l.fetchOffset !== undefined && l.fetchOffset > (l.committedOffset ?? 0n)))
  await eventLoopTurns(10)
}

for (const protocol of protocols) {
  describe(`hand-out to the application (${protocol} protocol)`, { timeout: 60_000 }, () => {
    test('a seek inside the handler moves what is committed to the seek target until the re-read progresses', async () => {
      await withHarness({ partitions: 1, records: 20 }, async h => {
        const a = await h.member('a', protocol)
        const reread = h.gate()
        a.handler = async (_batch, d, m) => {
          const times = m.offsets(0).filter(o => o === d.offset).length
          if (d.offset === 19n && times === 1) m.consumer.seek({ topic: h.topic, partition: 0, offset: 0n })
          if (d.offset === 0n && times === 2) await reread.promise
        }
        a.run(h)
        await waitFor('A re-reading offset 0 after its seek', () => a.offsets(0).filter(o => o === 0n).length === 2)
        // The batch that seeked (19) returned, the re-read has processed nothing yet: a crash now must resume at 0.
        assert.deepEqual(await a.consumer.commit(), [])
        assert.equal(h.committed(0), 0n, 'the seeking batch was committed as processed although the re-read from 0 had not run')
        reread.release()
        await waitFor('the re-read reaching the end', () => a.processedUpTo(0) === 20n && a.offsets(0).length === 40)
        await a.consumer.commit()
        assert.equal(h.committed(0), 20n)
      })
    })

    test('a seek back after everything was committed: the re-read is committed again up to the end', async () => {
      await withHarness({ partitions: 1, records: 10 }, async h => {
        const a = await h.member('a', protocol)
        a.run(h)
        await waitFor('A reading the partition', () => a.processedUpTo(0) === 10n)
        await a.consumer.commit()
        assert.equal(h.committed(0), 10n)
        a.consumer.seek({ topic: h.topic, partition: 0, offset: 0n })
        await a.consumer.commit()
        assert.equal(h.committed(0), 0n, 'the seek target was not committed')
        await waitFor('the re-read reaching the end', () => a.offsets(0).length === 20 && a.processedUpTo(0) === 10n && a.deliveries.every(d => d.finished))
        await a.consumer.commit()
        assert.equal(h.committed(0), 10n, 'the end of the re-read was not committed (the member thought it had committed it already)')
      })
    })

    test('a partition lost while its handler runs and assigned again hands out nothing until that handler returned', async () => {
      await withHarness({ partitions: 1, records: 10 }, async h => {
        const a = await h.member('a', protocol)
        const stuck = h.gate()
        let oldReturnedAt = Infinity
        a.handler = async (_batch, d, m) => {
          if (d.offset === 5n && m.offsets(0).filter(o => o === 5n).length === 1) {
            await stuck.promise
            oldReturnedAt = Date.now()
          }
        }
        a.run(h)
        await waitFor('A processing offset 5', () => a.offsets(0).includes(5n))
        const old = a.identity!
        h.cluster.fenceMember(h.groupId, old.memberId)
        await waitFor('A holding the partition again under a new membership', () => a.identities.length >= 2 && a.held().includes(0) && a.identity !== old)
        const handedBefore = a.deliveries.length
        // The new ownership fetched records and buffered them, which wakes the readers: a hand-out would have followed.
        await untilBuffered(a, 0)
        assert.equal(a.deliveries.length, handedBefore, `a second handler of partition 0 started while the first still ran: ${a.offsets(0).join(',')}`)
        stuck.release()
        await waitFor('A processing the partition under its new membership', () => a.deliveries.slice(handedBefore).some(d => d.finished && d.nextOffset === 10n))
        const second = a.deliveries.slice(handedBefore)
        assert.ok(second.length > 0 && second.every(d => d.at >= oldReturnedAt), 'a batch of the new ownership was handed out before the old handler returned')
      })
    })

    test('a partition revoked past its stuck handler and coming back to the same member waits for that handler; offsets stay in order', async () => {
      await withHarness({ partitions: 2, records: 10 }, async h => {
        const a = await h.member('a', protocol, { rebalanceTimeoutMs: 600 })
        const held = [h.gate(), h.gate()]
        const returnedAt = [Infinity, Infinity]
        a.handler = async (_batch, d, m) => {
          if (d.offset === 3n && m.offsets(d.partition).filter(o => o === 3n).length === 1) {
            await held[d.partition].promise
            returnedAt[d.partition] = Date.now()
          }
        }
        a.run(h)
        await waitFor('A processing offset 3 of both partitions', () => a.offsets(0).includes(3n) && a.offsets(1).includes(3n))
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B taking a partition (A\'s revoke gave up waiting)', () => b.held().length === 1, { timeoutMs: 10_000 })
        const [moved] = b.held()
        await b.consumer.close()
        await waitFor('the partition coming back to A', () => a.held().length === 2, { timeoutMs: 10_000 })
        // B may have read the partition to its end: new records give A's new ownership something to hand out.
        await h.produce(2, [moved])
        const handedBefore = a.deliveries.filter(d => d.partition === moved).length
        await untilBuffered(a, moved)
        assert.equal(a.deliveries.filter(d => d.partition === moved).length, handedBefore, `partition ${moved} got a second handler on A while the first still ran`)
        held[0].release()
        held[1].release()
        const again = (): typeof a.deliveries => a.deliveries.filter(d => d.partition === moved).slice(handedBefore)
        await waitFor('A processing the partition that came back', () => again().some(d => d.finished && d.nextOffset === 12n))
        assert.ok(again().every(d => d.at >= returnedAt[moved]), 'the new ownership handed out before the old handler returned')
      })
    })

    test('a handler stuck past maxProcessingMs: the member leaves, its partitions go to the other member, and it rejoins once the handler returned', async () => {
      await withHarness({ partitions: 2, records: 10 }, async h => {
        const a = await h.member('a', protocol, { maxProcessingMs: 300 })
        const timeouts: ProcessingTimeoutEvent[] = []
        a.consumer.on('processingTimeout', (event: ProcessingTimeoutEvent) => timeouts.push(event))
        const held = [h.gate(), h.gate()]
        a.handler = async (_batch, d, m) => { if (d.offset === 3n && m.offsets(d.partition).filter(o => o === 3n).length === 1) await held[d.partition].promise }
        a.run(h)
        await waitFor('a processingTimeout event per stuck partition', () => timeouts.length === 2)
        assert.deepEqual(timeouts.map(t => [t.partition, t.firstOffset]).sort(), [[0, 3n], [1, 3n]])
        assert.ok(timeouts.every(t => t.elapsedMs >= 300))
        await waitFor('A giving its partitions up', () => a.held().length === 0)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B processing both partitions', () => b.processedUpTo(0) === 10n && b.processedUpTo(1) === 10n, { timeoutMs: 10_000 })
        assert.deepEqual([b.offsets(0)[0], b.offsets(1)[0]], [3n, 3n], 'B did not start after what A processed before leaving')
        // One of the two slow handlers returns: A stays out while the other still runs. A rejoin
        // starts with a group request (FindCoordinator, JoinGroup, a heartbeat) within a few
        // turns of that return, and A has no other reason to send one while out.
        const groupRequestsOfA = (): number => h.cluster.requests().filter(r => r.clientId === 'a' && ['FindCoordinator', 'JoinGroup', 'ConsumerGroupHeartbeat'].includes(r.apiName)).length
        const before = groupRequestsOfA()
        held[0].release()
        await waitFor('the first overdue handler returning', () => a.deliveries.find(d => d.partition === 0 && d.offset === 3n)?.finished === true)
        await eventLoopTurns(20)
        assert.equal(groupRequestsOfA(), before, 'A began to rejoin while one of its overdue handlers still ran')
        assert.deepEqual(a.held(), [], 'A rejoined while one of its overdue handlers still ran')
        held[1].release()
        await waitFor('A back in the group with one partition', () => a.held().length === 1 && b.held().length === 1, { timeoutMs: 10_000 })
        const moved = a.held()[0]
        await h.produce(2, [moved])
        await waitFor('A processing under its new membership', () => a.processedUpTo(moved) === 12n)
      })
    })

    test('eachRecord: a revoke in the middle of a batch commits up to the last record finished, and the revoked batch stops at the next record', async () => {
      // Default maxPartitionBytes: one batch holds the partition's 20 records.
      await withHarness({ partitions: 2, records: 20 }, async h => {
        const a = await h.member('a', protocol, { maxPartitionBytes: 1024 * 1024 })
        const held = [h.gate(), h.gate()]
        const seen = runEachRecord(a, async record => {
          if (record.offset === 7n) await held[Number(record.value!.toString().split(':')[0])].promise
        })
        await waitFor('A at record 7 of both partitions', () => seen.filter(s => s.offset === 7n).length === 2)
        const b = await h.member('b', protocol)
        b.run(h)
        // The revoke removes the partition from A's assignment first, then waits for its batch.
        await waitFor('A revoking one partition', () => a.held().length === 1)
        const moved = 1 - a.held()[0]
        held[moved].release()
        await waitFor('B processing the partition it took', () => b.processedUpTo(moved) === 20n, { timeoutMs: 10_000 })
        assert.equal(b.offsets(moved)[0], 8n, 'B did not start after the last record A finished')
        assert.deepEqual(seen.filter(s => s.partition === moved).map(s => s.offset), [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n], 'A went on with the revoked batch')
        held[1 - moved].release()
      })
    })

    test('eachRecord: a revoke that gives up waiting for a stuck record commits the records before it', async () => {
      await withHarness({ partitions: 2, records: 20 }, async h => {
        const a = await h.member('a', protocol, { maxPartitionBytes: 1024 * 1024, rebalanceTimeoutMs: 600 })
        const held = h.gate()
        const seen = runEachRecord(a, async record => { if (record.offset === 7n) await held.promise })
        await waitFor('A at record 7 of both partitions', () => seen.filter(s => s.offset === 7n).length === 2)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B processing the partition it took', () => b.held().length === 1 && b.processedUpTo(b.held()[0]) === 20n, { timeoutMs: 10_000 })
        assert.equal(b.offsets(b.held()[0])[0], 7n, 'B did not start at the record A was stuck on')
      })
    })

    test('a throwing handler rejects run(), and the member leaves the group at once (not after its session timeout)', async () => {
      await withHarness({ partitions: 2, records: 10 }, async h => {
        // Long timeouts: without leaving, B would get nothing for 20 s.
        const a = await h.member('a', protocol, { sessionTimeoutMs: 20_000, rebalanceTimeoutMs: 20_000 })
        const failure = new Error('handler failed')
        a.handler = (_batch, d) => { if (d.partition === 0 && d.offset === 3n) throw failure }
        a.run(h)
        await waitFor('run() rejecting', () => a.error !== undefined)
        assert.equal(a.error, failure)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B processing both partitions', () => b.held().length === 2 && b.processedUpTo(0) === 10n, { timeoutMs: 5000 })
        assert.equal(b.offsets(0)[0], 3n, 'the records before the failing one were not committed, or the failing one was')
      })
    })

    test('run({ retry }): a throwing handler gets the same records again after a backoff, and consumption goes on in order', async () => {
      await withHarness({ partitions: 1, records: 10 }, async h => {
        const a = await h.member('a', protocol, { maxPartitionBytes: 1024 * 1024 })
        const errors: HandlerErrorEvent[] = []
        a.consumer.on('handlerError', (event: HandlerErrorEvent) => errors.push(event))
        const seen: bigint[] = []
        let failures = 0
        a.running = a.consumer.run({
          retry: { initialMs: 10 },
          eachRecord: record => {
            seen.push(record.offset)
            if (record.offset === 4n && failures < 2) {
              failures++
              throw new Error('not yet')
            }
          }
        }).catch(error => { a.error = error })
        await waitFor('A reaching the end', () => seen.includes(9n))
        assert.equal(a.error, undefined)
        assert.deepEqual(seen, [0n, 1n, 2n, 3n, 4n, 4n, 4n, 5n, 6n, 7n, 8n, 9n])
        assert.deepEqual(errors.map(e => [e.offset, e.attempt]), [[4n, 1], [4n, 2]])
        await a.consumer.commit()
        assert.equal(h.committed(0), 10n)
      })
    })

    test('close() called from inside a for await loop body returns promptly, commits what was processed and leaves', async () => {
      await withHarness({ partitions: 1, records: 10 }, async h => {
        const a = await h.member('a', protocol, { sessionTimeoutMs: 20_000, rebalanceTimeoutMs: 20_000 })
        let closed = false
        const loop = (async () => {
          for await (const batch of a.consumer) {
            if (batch.records[0].offset === 3n) {
              await a.consumer.close()
              closed = true
            }
          }
        })()
        await waitFor('close() inside the loop body returning', () => closed, { timeoutMs: 5000 })
        await loop
        assert.equal(h.committed(0), 3n)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B taking over at once', () => b.processedUpTo(0) === 10n, { timeoutMs: 5000 })
        assert.equal(b.offsets(0)[0], 3n)
      })
    })

    test('close() during run()\'s retry backoff settles at once, not after the 30 s backoff (nor after waiting the rebalance timeout for the handler)', async () => {
      await withHarness({ partitions: 1, records: 3 }, async h => {
        // The member's clock moves only while it joins: the 30 s backoff, on it, cannot run out.
        const clock = new FakeClock()
        const a = await h.member('a', protocol, { rebalanceTimeoutMs: 60_000 }, { clock })
        let retries = 0
        a.consumer.on('handlerError', () => { retries++ })
        a.running = a.consumer.run({ retry: { initialMs: 30_000, maxMs: 30_000 }, eachBatch: () => { throw new Error('not yet') } }).catch(error => { a.error = error })
        await waitFor('the first retry backoff', async () => {
          if (retries === 0) await clock.advance(10)
          return retries === 1
        })
        // Settling at all proves close() ended the backoff; the bound (well under the rebalance timeout) only keeps a hang from hanging the suite.
        assert.equal(await outcomeWithin(Promise.all([a.consumer.close(), a.running]), 20_000), 'resolved')
        assert.equal(a.error, undefined)
        assert.equal(h.committed(0), undefined, 'the batch that failed was committed')
      })
    })

    for (const exit of ['throw', 'break', 'return'] as const) {
      test(`at-least-once: leaving a for await loop early (${exit}) in the middle of a batch commits what was processed before that batch, not the batch`, async () => {
        await withHarness({ partitions: 1, records: 10 }, async h => {
          // Whole fetch answers: the first batch is 0..9, the second 10..19 (one record batch).
          const a = await h.member('a', protocol, { maxPartitionBytes: 1024 * 1024 })
          const batches: Array<[bigint, bigint]> = []
          const failure = new Error('the loop body failed at record 15')
          const loop = async (): Promise<string> => {
            for await (const batch of a.consumer) {
              batches.push([batch.records[0].offset, batch.nextOffset])
              if (batches.length === 1) {
                await h.admin.produceRaw({ topic: h.topic, partition: 0, records: Array.from({ length: 10 }, (_, i) => ({ value: Buffer.from(`0:${10 + i}`) })) })
                continue
              }
              for (const record of batch.records) {
                if (record.offset < 15n) continue
                if (exit === 'throw') throw failure
                if (exit === 'break') break
                return 'returned'
              }
              if (exit === 'break') break
            }
            return 'ended'
          }
          const outcome = await loop().catch((error: unknown) => error)
          assert.equal(outcome, exit === 'throw' ? failure : exit === 'break' ? 'ended' : 'returned')
          assert.deepEqual(batches, [[0n, 10n], [10n, 20n]])
          // The loop's end closed the member: it committed the first batch (the loop asked for the next one), not the second.
          assert.equal(a.consumer.closed, true)
          assert.equal(h.committed(0), 10n)
        })
      })
    }

    test('close() called from inside a handler returns promptly, commits what was processed and leaves', async () => {
      await withHarness({ partitions: 1, records: 10 }, async h => {
        const a = await h.member('a', protocol, { sessionTimeoutMs: 20_000, rebalanceTimeoutMs: 20_000 })
        let closed = false
        a.handler = async (_batch, d, m) => {
          if (d.offset === 3n) {
            await m.consumer.close()
            closed = true
          }
        }
        a.run(h)
        await waitFor('close() inside the handler returning', () => closed, { timeoutMs: 5000 })
        await a.running
        assert.equal(a.error, undefined)
        assert.equal(h.committed(0), 3n)
        const b = await h.member('b', protocol)
        b.run(h)
        await waitFor('B taking over at once', () => b.processedUpTo(0) === 10n, { timeoutMs: 5000 })
        assert.equal(b.offsets(0)[0], 3n)
      })
    })
  })
}

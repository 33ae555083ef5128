// The share-group path (KIP-932) against the fake cluster: acknowledgement batching,
// share-session epochs and their errors, implicit/explicit modes, close() releasing what is
// held, and the error when the cluster runs no share groups. The real-broker tests are in
// tests/integration/share-groups.test.ts.
import { afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { ShareConsumer } from '../../group/share-consumer'
import { ShareGroupsDisabledError } from '../../group/errors'
import { toAcknowledgementBatches, type ShareRecord } from '../../consumer/share-source'
import { ShareAcknowledge, type ShareAcknowledgeRequest } from '../../protocol/apis/share-acknowledge'
import { ShareFetch, type ShareFetchRequest } from '../../protocol/apis/share-fetch'
import { ShareGroupHeartbeat } from '../../protocol/apis/share-group-heartbeat'
import { ApiVersions, type ApiVersionsResponse } from '../../protocol/apis/api-versions'
import { UnsupportedVersionError } from '../../client/errors'
import { FakeCluster } from '../../testing/index'
import { channels, type RequestTrace } from '../../client/instrumentation'
import type { Api } from '../../protocol/api'
import { eventLoopTurns, outcomeWithin, waitFor, sleep } from '../support/wait'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
})


async function setup (records: number): Promise<{ cluster: FakeCluster, client: Client }> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 1 }] })
  cleanups.push(async () => await cluster.close())
  const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 20, maxMs: 200 } })
  cleanups.push(async () => await client.close())
  if (records > 0) await client.produceRaw({ topic: 't', partition: 0, records: Array.from({ length: records }, (_, i) => ({ value: Buffer.from(String(i)) })) })
  return { cluster, client }
}

function consumer (client: Client, options: Partial<ConstructorParameters<typeof ShareConsumer>[1]> = {}): ShareConsumer {
  const c = new ShareConsumer(client, { groupId: 'g', topics: ['t'], maxWaitMs: 50, ...options })
  cleanups.push(async () => await c.close())
  return c
}

/** Renews `record` every 50 ms (a 300 ms lock) until the returned function is called; that resolves with the renewals' errors. */
function keepRenewing (c: ShareConsumer, record: ShareRecord): () => Promise<Array<string | null>> {
  let working = true
  const errors: Array<string | null> = []
  const loop = (async () => {
    while (working) {
      record.renew()
      for (const r of await c.commit()) errors.push(r.error?.type ?? null)
      await sleep(50)
    }
  })()
  return async () => {
    working = false
    await loop
    return errors
  }
}

/** The answers of `api` this process receives from now on (the 'kafkats:request' channel), until the test ends. */
function answersOf<Req, Res> (api: Api<Req, Res>): Res[] {
  const answers: Res[] = []
  const onAnswer = (message: unknown): void => {
    const trace = message as RequestTrace
    if (trace.apiKey === api.key && trace.result !== undefined) answers.push(trace.result as Res)
  }
  channels.request.asyncEnd.subscribe(onAnswer)
  cleanups.push(async () => { channels.request.asyncEnd.unsubscribe(onAnswer) })
  return answers
}

const states = (cluster: FakeCluster): string[] => cluster.shareRecordStates('g', 't', 0).map(s => `${s.offset}:${s.state}:${s.deliveryCount}`)
const ackBodies = (cluster: FakeCluster): Array<{ api: string, epoch: number, batches: unknown[] }> => cluster.requests().flatMap(entry => {
  if (entry.apiKey !== ShareFetch.key && entry.apiKey !== ShareAcknowledge.key) return []
  const request = entry.request as ShareFetchRequest | ShareAcknowledgeRequest
  const batches = request.topics.flatMap(t => t.partitions.flatMap(p => p.acknowledgementBatches.map(b => [Number(b.firstOffset), Number(b.lastOffset), ...b.acknowledgeTypes])))
  return [{ api: entry.apiName, epoch: request.shareSessionEpoch, batches }]
})

describe('toAcknowledgementBatches', () => {
  test('consecutive offsets of one type make one range; types change or gaps start a new one; the last acknowledgement of an offset wins', () => {
    const offsets = [5n, 0n, 1n, 2n, 3n, 7n, 8n, 2n]
    const types = [1, 1, 1, 1, 2, 3, 3, 3]
    assert.deepEqual(toAcknowledgementBatches(offsets, types).map(b => [Number(b.firstOffset), Number(b.lastOffset), ...b.acknowledgeTypes]), [
      [0, 1, 1], [2, 2, 3], [3, 3, 2], [5, 5, 1], [7, 8, 3]
    ])
    assert.deepEqual(toAcknowledgementBatches([], []), [])
  })
})

describe('share consumer against the fake cluster', () => {
  test('explicit acknowledgements go out as ranges per type, and commit() returns the broker\'s answer per partition', async () => {
    const { cluster, client } = await setup(10)
    const c = consumer(client, { acknowledgement: 'explicit' })
    const batch = await c.nextBatch()
    assert.ok(batch !== undefined)
    assert.deepEqual(batch.records.map(r => [Number(r.offset), r.deliveryCount]), Array.from({ length: 10 }, (_, i) => [i, 1]))
    const [r0, r1, r2, r3, r4, r5, ...rest] = batch.records
    for (const r of [r0, r1, r2, r3]) r.accept()
    r4.release()
    r5.reject()
    for (const r of rest) r.accept()
    const results = await c.commit()
    assert.deepEqual(results.map(r => ({ partition: r.partition, offsets: r.offsets.map(Number), error: r.error })), [{ partition: 0, offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], error: null }])
    const carried = ackBodies(cluster).filter(b => b.batches.length > 0)
    assert.deepEqual(carried.map(b => b.batches), [[[0, 3, 1], [4, 4, 2], [5, 5, 3], [6, 9, 1]]])
    // The released record comes back at once, its delivery count raised.
    const again = await c.nextBatch()
    assert.deepEqual(again?.records.map(r => [Number(r.offset), r.deliveryCount]), [[4, 2]])
    assert.throws(() => r0.release(), /already acknowledged \(accept\)/)
  })

  test('share-session epochs: 0 opens, each request takes the next one; a session error starts over at 0 and the acknowledgements it refused go again in the new session (the member keeps its records)', async () => {
    const { cluster, client } = await setup(3)
    const c = consumer(client, { acknowledgement: 'explicit' })
    const batch = await c.nextBatch()
    assert.ok(batch !== undefined)
    await waitFor('a few polls', () => ackBodies(cluster).length >= 3)
    // The next request that carries acknowledgements finds the session gone.
    cluster.intercept(ShareAcknowledge, () => ({ error: 123 }), { times: 1 })
    for (const r of batch.records) r.accept()
    const results = await c.commit()
    // Kafka 4.4 applied nothing of the refused request and kept the records the member's across epoch 0.
    assert.deepEqual(results.map(r => [r.offsets.map(Number), r.error]), [[[0, 1, 2], null]])
    assert.deepEqual(states(cluster), [])
    const bodies = ackBodies(cluster)
    const epochs = bodies.map(b => b.epoch)
    const reopened = epochs.lastIndexOf(0)
    assert.ok(reopened > 0, `epochs ${epochs.join(',')}`)
    assert.deepEqual(epochs.slice(0, 3), [0, 1, 2])
    for (let i = 1; i < reopened; i++) assert.equal(epochs[i], epochs[i - 1] + 1, `epochs ${epochs.join(',')}`)
    // Refused at the old session's epoch, opened without them, sent with the new session's first epoch.
    assert.deepEqual(bodies[reopened - 1].batches, [[0, 2, 1]])
    assert.deepEqual(bodies[reopened].batches, [])
    assert.deepEqual(bodies.slice(reopened + 1).find(b => b.batches.length > 0), { api: 'ShareAcknowledge', epoch: 1, batches: [[0, 2, 1]] })
  })

  test('a lost ShareFetch (connection closed): the broker released the records, so accepting or renewing the ones in hand is a SHARE_SESSION_NOT_FOUND result, never a silent success, and the new deliveries are handed out', async () => {
    const { cluster, client } = await setup(3)
    const a = consumer(client, { acknowledgement: 'explicit' })
    const batch = await a.nextBatch()
    assert.deepEqual(batch?.records.map(r => [Number(r.offset), r.deliveryCount]), [[0, 1], [1, 1], [2, 1]])
    // The next long poll is lost with its connection; Kafka releases the member's records with it.
    cluster.intercept(ShareFetch, () => ({ drop: 'before-apply' }), { times: 1 })
    // A's new session acquires them again (it has room): new deliveries, not the ones in hand.
    await waitFor('A holding the records again', () => states(cluster).join() === '0:acquired:2,1:acquired:2,2:acquired:2')
    const [kept, done] = batch!.records
    kept.renew()
    done.accept()
    const results = await a.commit()
    assert.deepEqual(results.map(r => [r.offsets.map(Number), r.error?.type]), [[[0, 1], 'SHARE_SESSION_NOT_FOUND']])
    assert.match(results[0].error!.message, /connection was lost/)
    // Nothing of them was sent: the new deliveries are still acquired, as they were.
    assert.deepEqual(states(cluster), ['0:acquired:2', '1:acquired:2', '2:acquired:2'])
    const again = await a.nextBatch(AbortSignal.timeout(2000))
    assert.deepEqual(again?.records.map(r => [Number(r.offset), r.deliveryCount]), [[0, 2], [1, 2], [2, 2]])
    for (const r of again!.records) r.accept()
    assert.deepEqual((await a.commit()).map(r => r.error), [null])
    assert.deepEqual(states(cluster), [])
  })

  test('SHARE_SESSION_NOT_FOUND (a 4.4 broker drops a session only with its connection, or when it restarts): the acknowledgements it refused and later ones of records in hand fail with it, never sent again', async () => {
    const { cluster, client } = await setup(2)
    const c = consumer(client, { acknowledgement: 'explicit' })
    const batch = await c.nextBatch()
    assert.equal(batch?.records.length, 2)
    cluster.intercept(ShareAcknowledge, () => ({ error: 122 }), { times: 1 })
    batch!.records[0].accept()
    const refused = await c.commit()
    assert.deepEqual(refused.map(r => [r.offsets.map(Number), r.error?.type]), [[[0], 'SHARE_SESSION_NOT_FOUND']])
    const sent = ackBodies(cluster).filter(b => b.batches.length > 0).length
    batch!.records[1].renew()
    const renewed = await c.commit()
    assert.deepEqual(renewed.map(r => [r.offsets.map(Number), r.error?.type]), [[[1], 'SHARE_SESSION_NOT_FOUND']])
    assert.match(renewed[0].error!.message, /connection was lost/)
    assert.equal(ackBodies(cluster).filter(b => b.batches.length > 0).length, sent)
  })

  test('implicit mode: a handler that returns accepts its record, one that throws releases it (redelivered with deliveryCount 2)', async () => {
    const { cluster, client } = await setup(5)
    const c = consumer(client)
    const seen: string[] = []
    const running = c.run({
      eachRecord: record => {
        seen.push(`${record.offset}/${record.deliveryCount}`)
        if (record.offset === 2n && record.deliveryCount === 1) throw new Error('not now')
      }
    })
    await waitFor('offset 2 redelivered', () => seen.includes('2/2'))
    await c.commit()
    await waitFor('everything acknowledged', () => cluster.shareRecordStates('g', 't', 0).length === 0)
    await c.close()
    await running
    assert.deepEqual(seen.slice(0, 3), ['0/1', '1/1', '2/1'])
    assert.ok(!seen.includes('3/1') || seen.indexOf('3/1') > seen.indexOf('2/1'))
  })

  test('run({ signal }): the batch in hand when it aborts is finished and accepted, and a batch already fetched is not handed out; close() releases it', async () => {
    const { cluster, client } = await setup(3)
    const c = consumer(client)
    const stop = new AbortController()
    const handed: bigint[][] = []
    const shareFetchAnswers = answersOf(ShareFetch)
    await c.run({
      signal: stop.signal,
      eachBatch: async batch => {
        handed.push(batch.records.map(r => r.offset))
        if (handed.length > 1) return
        await client.produceRaw({ topic: 't', partition: 0, records: Array.from({ length: 3 }, (_, i) => ({ value: Buffer.from(String(3 + i)) })) })
        await waitFor('the next records acquired', () => states(cluster).filter(s => s.endsWith(':acquired:1')).length === 6)
        // The answer that carries them has reached the consumer (and its buffer, a few turns later).
        await waitFor('the ShareFetch answer with offset 3', () => shareFetchAnswers.some(answer => answer.responses.some(t => t.partitions.some(p => p.acquiredRecords.some(r => r.firstOffset <= 3n && 3n <= r.lastOffset)))))
        await eventLoopTurns(5)
        stop.abort()
      }
    })
    assert.deepEqual(handed, [[0n, 1n, 2n]])
    await c.close()
    // 0..2 accepted (no state kept), 3..5 released by close().
    assert.deepEqual(states(cluster), ['3:available:1', '4:available:1', '5:available:1'])
  })

  test('eachRecord: a throw releases that record alone; the rest of its batch is handled and accepted, never redelivered', async () => {
    const { cluster, client } = await setup(5)
    const c = consumer(client)
    const seen: string[] = []
    const errors: string[] = []
    // The same payload as a Consumer's (HandlerErrorEvent): the record, what became of it, its delivery count.
    c.on('handlerError', ({ topic, partition, offset, outcome, attempt, retryInMs }) => errors.push(`${topic}-${partition}@${offset} ${outcome} ${attempt} ${retryInMs}`))
    const running = c.run({
      eachRecord: record => {
        seen.push(`${record.offset}/${record.deliveryCount}`)
        if (record.offset === 1n && record.deliveryCount < 3) throw new Error('not now')
      }
    })
    await waitFor('offset 1 on its third delivery', () => seen.includes('1/3'))
    await c.commit()
    await waitFor('everything acknowledged', () => states(cluster).length === 0)
    await c.close()
    await running
    assert.deepEqual(seen, ['0/1', '1/1', '2/1', '3/1', '4/1', '1/2', '1/3'])
    assert.deepEqual(errors, ['t-0@1 release 1 0', 't-0@1 release 2 0'])
  })

  test('onHandlerError: \'reject\' archives what a throwing handler had', async () => {
    const { cluster, client } = await setup(2)
    const c = consumer(client, { onHandlerError: 'reject' })
    const handed: string[] = []
    const running = c.run({
      eachBatch: batch => {
        handed.push(...batch.records.map(r => `${r.offset}/${r.deliveryCount}`))
        throw new Error('poison')
      }
    })
    await waitFor('both records handed out', () => handed.length === 2)
    await c.commit()
    await c.close()
    await running
    // Every acknowledgement the broker got for each offset (ACCEPT 1, RELEASE 2, REJECT 3), from ShareFetch and ShareAcknowledge.
    const typesOf = (offset: number): number[] => ackBodies(cluster).flatMap(body => body.batches as number[][])
      .filter(([first, last]) => first <= offset && offset <= last)
      .map(([first, , ...types]) => types.length === 1 ? types[0] : types[offset - first])
    assert.deepEqual([typesOf(0), typesOf(1)], [[3], [3]], 'each record rejected once, never accepted or released')
    // Rejected: never delivered again (a released record would come back with deliveryCount 2).
    assert.deepEqual(handed, ['0/1', '1/1'])
    // Archived records below the start offset are forgotten: nothing is left in play.
    assert.deepEqual(states(cluster), [])
  })

  test('close: failed last acknowledgements and a failed leave are logged as warnings, not dropped', async () => {
    const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 't', partitions: 1 }] })
    cleanups.push(async () => await cluster.close())
    const warnings: string[] = []
    const said = (message: string, fields?: { error?: Error }): void => { warnings.push(`${message}: ${fields?.error?.message ?? ''}`) }
    const logger = { debug: () => {}, info: () => {}, warn: said, error: said }
    const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 20, maxMs: 200 }, logger })
    cleanups.push(async () => await client.close())
    await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('0') }, { value: Buffer.from('1') }] })
    const c = consumer(client)
    const batch = await c.nextBatch()
    assert.equal(batch?.records.length, 2)
    // GROUP_AUTHORIZATION_FAILED (30) for the release close() sends and for the leave heartbeat.
    cluster.intercept(ShareAcknowledge, () => ({ error: 30 }))
    cluster.intercept(ShareFetch, () => ({ error: 30 }))
    cluster.intercept(ShareGroupHeartbeat, r => r.request.memberEpoch === -1 ? { error: 30 } : undefined)
    await c.close()
    assert.ok(warnings.some(w => /acknowledging 2 record\(s\) of t\[0\] failed.*GROUP_AUTHORIZATION_FAILED/.test(w)), warnings.join('\n'))
    assert.ok(warnings.some(w => /leaving share group "g" failed.*GROUP_AUTHORIZATION_FAILED/.test(w)), warnings.join('\n'))
  })

  test('records past deadLetter.afterDeliveries go to the handler and are rejected, not handed out', async () => {
    const { cluster, client } = await setup(1)
    const dead: string[] = []
    const c = consumer(client, { deadLetter: { afterDeliveries: 2, handler: record => { dead.push(`${record.offset}/${record.deliveryCount}`) } } })
    let handled = 0
    const running = c.run({ eachRecord: () => { handled++; throw new Error('fails every time') } })
    await waitFor('the dead-letter handler', () => dead.length === 1)
    await c.commit()
    await c.close()
    await running
    assert.equal(handled, 2)
    assert.deepEqual(dead, ['0/3'])
    assert.deepEqual(states(cluster), [])
  })

  test('renew() keeps a record acquired past its lock (ShareAcknowledge with isRenewAck)', async () => {
    const { cluster, client } = await setup(2)
    cluster.setShareLockMs(1000)
    const c = consumer(client, { acknowledgement: 'explicit', maxRecords: 2 })
    const batch = await c.nextBatch()
    assert.deepEqual(batch?.records.map(r => Number(r.offset)), [0, 1])
    // Offset 0 is renewed every 50 ms; offset 1, acquired with it, is not: once the broker's
    // lock of offset 1 ran out, so did offset 0's first one (no fixed sleep says when).
    const [kept] = batch!.records
    const stopRenewing = keepRenewing(c, kept)
    await waitFor('the lock of the record not renewed running out', () => !states(cluster).includes('1:acquired:1'), { timeoutMs: 10_000 })
    const renewed = await stopRenewing()
    // Past its first lock, the renewed record is still ours, delivered once.
    assert.deepEqual(cluster.shareRecordStates('g', 't', 0).filter(r => r.offset === 0n).map(r => [r.state, r.deliveryCount]), [['acquired', 1]])
    assert.ok(renewed.length > 0 && renewed.every(error => error === null), `the renewals: ${renewed.join(', ')}`)
    kept.accept()
    const results = await c.commit()
    assert.deepEqual(results.map(r => [r.offsets.map(Number), r.error]), [[[0], null]])
    const renewals = cluster.requests(ShareAcknowledge).filter(e => (e.request as ShareAcknowledgeRequest).isRenewAck === true)
    assert.equal(renewals.length, renewed.length)
  })

  test('a share consumer acquires nothing before the application asks: another member gets the records at once, with deliveryCount 1', async () => {
    const { cluster, client } = await setup(3)
    cluster.setShareLockMs(400)
    const idle = consumer(client)
    await idle.ready()
    await waitFor('the idle member assigned the partition', () => idle.assignment().length > 0)
    // A member that prefetched would send its ShareFetch within a few turns of the assignment (no
    // timer on the way); the fake cluster logs a request when it arrives.
    await eventLoopTurns(20)
    assert.deepEqual(cluster.requests(ShareFetch).flatMap(r => (r.request as ShareFetchRequest).topics.flatMap(t => t.partitions.map(p => p.partitionIndex))), [], 'a ShareFetch for the partition before the application asked')
    // Acquired before anyone asked, the records would sit locked in idle's buffer until the lock ran out.
    assert.deepEqual(states(cluster), [])
    const worker = consumer(client, { acknowledgement: 'explicit' })
    const batch = await worker.nextBatch(AbortSignal.timeout(300))
    assert.deepEqual(batch?.records.map(r => [Number(r.offset), r.deliveryCount]), [[0, 1], [1, 1], [2, 1]])
  })

  test('records whose lock ran out in the prefetch buffer are not handed out: the member that got them next keeps them (renewed), nobody processes them twice', async () => {
    // The sequence of the real-broker renew() test's failure: member B acquired records, held
    // them unprocessed in its buffer past the lock, A got them next (deliveryCount 2) and
    // renewed them, and B then handed its stale copies (deliveryCount 1) to its handler.
    const { cluster, client } = await setup(0)
    for (let i = 0; i < 2; i++) await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from(String(i)) }] })
    cluster.setShareLockMs(300)
    const b = consumer(client, { acknowledgement: 'explicit', maxRecords: 1 })
    const first = await b.nextBatch()
    assert.deepEqual(first?.records.map(r => Number(r.offset)), [0])
    // B prefetches offset 1 (room: 2 × maxRecords) while its application works on offset 0, renewing it.
    await waitFor('B holding offset 1 in its buffer', () => states(cluster).includes('1:acquired:1'))
    const stopB = keepRenewing(b, first!.records[0])
    const a = consumer(client, { acknowledgement: 'explicit' })
    const taken = await a.nextBatch(AbortSignal.timeout(5000))
    // B's lock on offset 1 ran out in its buffer; A has it now.
    assert.deepEqual(taken?.records.map(r => [Number(r.offset), r.deliveryCount]), [[1, 2]])
    const stopA = keepRenewing(a, taken!.records[0])
    await stopB()
    first!.records[0].accept()
    const next = await b.nextBatch(AbortSignal.timeout(400))
    assert.deepEqual(next?.records.map(r => [Number(r.offset), r.deliveryCount]), undefined)
    const renewed = await stopA()
    assert.ok(renewed.length > 0 && renewed.every(error => error === null), `A's renewals: ${renewed.join(', ')}`)
    assert.deepEqual(states(cluster), ['1:acquired:2'])
    taken!.records[0].accept()
    assert.deepEqual((await a.commit()).map(r => r.error), [null])
  })

  test('renew() against a broker without ShareFetch/ShareAcknowledge v2 throws UnsupportedVersionError at once and sends nothing', async () => {
    const { cluster, client } = await setup(2)
    // A 4.0/4.1 broker: the share APIs end at v1, before KIP-1222.
    cluster.intercept(ApiVersions, () => ({ modify: (response: ApiVersionsResponse) => ({ ...response, apiKeys: response.apiKeys.map(k => k.apiKey === ShareFetch.key || k.apiKey === ShareAcknowledge.key ? { ...k, maxVersion: 1 } : k) }) }))
    const c = consumer(client, { acknowledgement: 'explicit' })
    const batch = await c.nextBatch()
    assert.ok(batch !== undefined)
    assert.throws(() => batch.records[0].renew(), (error: Error) => {
      assert.ok(error instanceof UnsupportedVersionError)
      assert.equal(error.name, 'UnsupportedVersionError')
      assert.match(error.message, /KIP-1222/)
      return true
    })
    // The record is still open: accepting it works.
    batch.records[0].accept()
    batch.records[1].accept()
    assert.deepEqual((await c.commit()).map(r => [r.offsets.map(Number), r.error]), [[[0, 1], null]])
    assert.deepEqual(cluster.requests(ShareAcknowledge).filter(e => (e.request as ShareAcknowledgeRequest).isRenewAck === true), [])
  })

  test('for await: one answer larger than the prefetch bound (Kafka acquires whole batches) is accepted when the loop asks for more, and fetching goes on', async () => {
    // 10 records in one batch, maxRecords 2: the whole batch is acquired, 10 ≥ 2 × maxRecords.
    const { cluster, client } = await setup(10)
    const c = consumer(client, { maxRecords: 2 })
    const seen: number[] = []
    let produced = false
    for await (const batch of c) {
      seen.push(...batch.records.map(r => Number(r.offset)))
      if (!produced) {
        produced = true
        await client.produceRaw({ topic: 't', partition: 0, records: Array.from({ length: 3 }, (_, i) => ({ value: Buffer.from(String(10 + i)) })) })
      }
      if (seen.length >= 13) break
    }
    assert.deepEqual(seen, Array.from({ length: 13 }, (_, i) => i))
    // The first batch was accepted (acknowledged offsets below the start offset are forgotten).
    assert.ok(!states(cluster).some(s => Number(s.split(':')[0]) < 10), states(cluster).join(' '))
  })

  test('nextBatch() in implicit mode accepts the batch it handed out before, at the call', async () => {
    const { cluster, client } = await setup(3)
    const c = consumer(client, { maxRecords: 3 })
    const first = await c.nextBatch()
    assert.deepEqual(first?.records.map(r => Number(r.offset)), [0, 1, 2])
    const none = await c.nextBatch(AbortSignal.timeout(300))
    assert.equal(none, undefined)
    await c.commit()
    // Accepted: below the group's start offset now, so the fake forgets them (else ['0:acquired:1', …]).
    assert.deepEqual(states(cluster), [])
  })

  test('close() releases what is acquired and not acknowledged, with the session-closing epoch -1', async () => {
    const { cluster, client } = await setup(4)
    const c = consumer(client, { acknowledgement: 'explicit' })
    const batch = await c.nextBatch()
    assert.equal(batch?.records.length, 4)
    batch!.records[0].accept()
    await c.close()
    assert.deepEqual(states(cluster), ['1:available:1', '2:available:1', '3:available:1'])
    const last = ackBodies(cluster).at(-1)!
    assert.equal(last.api, 'ShareAcknowledge')
    assert.equal(last.epoch, -1)
    assert.deepEqual(last.batches, [[0, 0, 1], [1, 3, 2]])
  })

  test('close() ends in bounded time when the coordinator keeps refusing the leave heartbeat (NOT_COORDINATOR for ever)', async () => {
    const { cluster, client } = await setup(2)
    const c = consumer(client)
    assert.equal((await c.nextBatch())?.records.length, 2)
    cluster.intercept(ShareGroupHeartbeat, r => (r.request.memberEpoch ?? 0) < 0 ? { error: 16 } : undefined)
    // Before: the leave was retried for ever, so close() never returned. The bound only stops that hang.
    assert.equal(await outcomeWithin(c.close(), 30_000), 'resolved')
  })

  test('a cluster without share groups: the consumer fails with ShareGroupsDisabledError naming the broker setting', async () => {
    const { cluster, client } = await setup(0)
    cluster.intercept(ShareGroupHeartbeat, () => ({ error: 35 }))
    const c = consumer(client)
    const errors: Error[] = []
    c.on('error', error => { errors.push(error) })
    await assert.rejects(c.nextBatch(), (error: Error) => {
      assert.ok(error instanceof ShareGroupsDisabledError)
      assert.equal(error.name, 'ShareGroupsDisabledError')
      assert.equal((error as ShareGroupsDisabledError).code, 35)
      assert.match(error.message, /share\.version/)
      return true
    })
    assert.equal(errors.length, 1)
  })

  test('options are checked where they are given', () => {
    const client = new Client({ bootstrap: ['127.0.0.1:1'] })
    cleanups.push(async () => await client.close())
    assert.throws(() => new ShareConsumer(client, { groupId: 'g', topics: [] }), /topics/)
    assert.throws(() => new ShareConsumer(client, { groupId: 'g', topics: 't', acknowledgement: 'auto' as 'implicit' }), /acknowledgement/)
    assert.throws(() => new ShareConsumer(client, { groupId: 'g', topics: 't', maxRecords: 0 }), /maxRecords/)
    assert.throws(() => new ShareConsumer(client, { groupId: 'g', topics: 't', deadLetter: { afterDeliveries: 2 } as never }), /deadLetter.handler/)
    assert.throws(() => new ShareConsumer(client, { groupId: 'g', topics: 't', maxRecord: 5 } as never), /maxRecord/)
  })
})

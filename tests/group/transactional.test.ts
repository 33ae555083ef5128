// The exactly-once loop (group/transactional.ts) against the fake cluster: each batch's
// output and its offsets commit in one transaction; an abort (a fenced member's offsets, a
// partition lost while the transaction ran, a failing transform) leaves nothing visible and
// the batch is read again, so every input record is in the committed output exactly once.
import { afterEach, beforeEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { GroupConsumer, type GroupConsumerOptions } from '../../group/group-consumer'
import { runTransactional } from '../../group/transactional'
import type { TransactionAbortedEvent } from '../../group/group-events'
import type { TopicPartition } from '../../group/membership'
import { Client, deserializers, serializers } from '../../index'
import { InitProducerId } from '../../protocol/apis/init-producer-id'
import { EndTxn } from '../../protocol/apis/end-txn'
import { JoinGroup } from '../../protocol/apis/join-group'
import { OffsetCommit } from '../../protocol/apis/offset-commit'
import { OffsetFetch } from '../../protocol/apis/offset-fetch'
import { TxnOffsetCommit } from '../../protocol/apis/txn-offset-commit'
import { Producer } from '../../producer/producer'
import { ProducerFencedError, TransactionFatalError } from '../../producer/transaction'
import { SendError } from '../../producer/errors'
import { Produce } from '../../protocol/apis/produce'
import { FakeCluster } from '../../testing/index'
import { gate, protocols } from './support'
import { waitFor, sleep } from '../support/wait'
import { groupConsumerInternals } from '../../group/group-consumer'

const IN = 'in'
const OUT = 'out'
const PARTITIONS = 3
const PER_PARTITION = 20

let cluster: FakeCluster
const clients: Client[] = []
const closers: Array<() => Promise<void>> = []

beforeEach(async () => {
  cluster = await FakeCluster.start({ brokers: 2, topics: [{ name: IN, partitions: PARTITIONS }, { name: OUT, partitions: PARTITIONS }], log: false, groups: { consumerHeartbeatIntervalMs: 50 } })
  const seeder = newClient('seeder')
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < PER_PARTITION; i++) await seeder.produceRaw({ topic: IN, partition: p, records: [{ key: Buffer.from(`k${p}`), value: Buffer.from(`${p}:${i}`) }] })
  }
})

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {})
  for (const c of clients.splice(0)) await c.close()
  await cluster.close()
})

function newClient (name: string): Client {
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: name, retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  clients.push(client)
  return client
}

async function pipeline (name: string, protocol: 'classic' | 'consumer', options: Partial<GroupConsumerOptions> = {}): Promise<{ consumer: GroupConsumer, producer: Producer, client: Client }> {
  const client = newClient(name)
  await client.metadata.refresh([IN, OUT])
  const consumer = new GroupConsumer(client, {
    groupId: 'eos', topics: [IN], groupProtocol: protocol, fromBeginning: true, isolation: 'read_committed',
    maxPartitionBytes: 200, maxWaitMs: 50, sessionTimeoutMs: 1500, rebalanceTimeoutMs: 1500, heartbeatIntervalMs: 50, autoCommitIntervalMs: 60_000, ...options
  })
  const producer = new Producer(client, { transactionalId: `eos-${name}`, lingerMs: 0 })
  closers.push(async () => { await consumer.close(); await producer.close({ force: true }) })
  return { consumer, producer, client }
}

const transform = async (batch: { topic: string, partition: number, records: Array<{ key: Buffer | null, value: Buffer | null }> }, tx: { send: Producer['send'] }): Promise<void> => {
  await tx.send(batch.records.map(r => ({ topic: OUT, partition: batch.partition, key: r.key, value: `out-${r.value?.toString() ?? ''}` })))
}

function committedOutput (): string[] {
  return Array.from({ length: PARTITIONS }, (_, p) => cluster.committedLog(OUT, p).map(r => r.value?.toString() ?? '')).flat()
}

function assertExactlyOnce (): void {
  const output = committedOutput()
  const expected = Array.from({ length: PARTITIONS }, (_, p) => Array.from({ length: PER_PARTITION }, (_, i) => `out-${p}:${i}`)).flat()
  assert.deepEqual([...output].sort(), [...expected].sort(), 'every input record once in the committed output')
  for (let p = 0; p < PARTITIONS; p++) {
    const values = cluster.committedLog(OUT, p).map(r => Number(r.value!.toString().split(':')[1]))
    assert.deepEqual(values, [...values].sort((a, b) => a - b), `partition ${p} in input order`)
  }
}

/** Ordinary (non-transactional) OffsetCommit requests the named clients sent. */
/** Holds member a's next request of `api` at the broker until `release`; the function returned tells whether it came. */
function holdNextOfA (apiKey: number, release: Promise<void>): () => boolean {
  let seen = false
  cluster.intercept(apiKey, ({ clientId }) => {
    if (clientId !== 'a') return undefined
    seen = true
    return { hold: release }
  }, { times: 1 })
  return () => seen
}

const ordinaryCommitsOf = (...clientIds: string[]): unknown[] => cluster.requests(OffsetCommit).filter(r => clientIds.includes(r.clientId ?? '')).map(r => r.request)

const offsetsAtEnd = (): boolean => Array.from({ length: PARTITIONS }, (_, p) => cluster.committedOffset('eos', IN, p)?.offset === BigInt(PER_PARTITION)).every(Boolean)
const done = (): boolean => committedOutput().length >= PARTITIONS * PER_PARTITION && offsetsAtEnd()

for (const protocol of protocols) {
  describe(`runTransactional (${protocol} protocol)`, () => {
    test('each batch\'s output and offsets commit together: the committed output has every input once, the group\'s offsets the input\'s end', async () => {
      const { consumer, producer } = await pipeline('a', protocol)
      const stop = new AbortController()
      const running = runTransactional(consumer, producer, { eachBatch: transform, signal: stop.signal })
      await waitFor('all input transformed and committed', done, { timeoutMs: 15_000 })
      stop.abort()
      const stats = await running
      assert.ok(stats.committed >= PARTITIONS, `${stats.committed} transactions committed`)
      assert.equal(stats.aborted, 0)
      assertExactlyOnce()
      // The offsets came with the transactions (TxnOffsetCommit), under the member's identity (KIP-447).
      const offsetCommits = cluster.requests(TxnOffsetCommit)
      assert.ok(offsetCommits.length >= PARTITIONS)
      assert.ok(offsetCommits.every(r => r.request.memberId !== '' && (r.request.generationIdOrMemberEpoch ?? -1) >= 0))
    })

    test('a fenced member\'s offsets (ILLEGAL_GENERATION / FENCED_MEMBER_EPOCH) abort the transaction; the batch is read again, nothing twice', async () => {
      const { consumer, producer } = await pipeline('a', protocol)
      cluster.intercept(TxnOffsetCommit, () => ({ error: protocol === 'classic' ? 22 : 110 }), { times: 2 })
      const aborted: TransactionAbortedEvent[] = []
      consumer.on('transactionAborted', (event: TransactionAbortedEvent) => aborted.push(event))
      const stop = new AbortController()
      const running = runTransactional(consumer, producer, { eachBatch: transform, signal: stop.signal })
      await waitFor('all input transformed and committed', done, { timeoutMs: 15_000 })
      stop.abort()
      const stats = await running
      assert.equal(stats.aborted, 2)
      assert.equal(aborted.length, 2)
      assertExactlyOnce()
      assert.ok(Array.from({ length: PARTITIONS }, (_, p) => cluster.log(OUT, p).length).reduce((a, b) => a + b) > PARTITIONS * PER_PARTITION, 'the aborted output is in the log, not in the committed view')
    })

    test('a partition lost while its transaction runs (member fenced): the transaction aborts, nothing of it is visible', async () => {
      const { consumer, producer } = await pipeline('a', protocol)
      const held = gate()
      let heldOnce = false
      let heldOwnership: { released: boolean } | undefined
      const stop = new AbortController()
      const running = runTransactional(consumer, producer, {
        signal: stop.signal,
        eachBatch: async (batch, tx) => {
          await transform(batch, tx)
          if (!heldOnce) {
            heldOnce = true
            heldOwnership = groupConsumerInternals(consumer).cursor(batch.topic, batch.partition)!.ownership
            await held.promise
          }
        }
      })
      await waitFor('a batch in its transaction', () => heldOnce)
      const member = cluster.groupMembers('eos')[0]
      cluster.fenceMember('eos', member.memberId)
      await waitFor('the member to lose the held partition', () => heldOwnership?.released === true, { timeoutMs: 10_000 })
      const aborted: TransactionAbortedEvent[] = []
      consumer.on('transactionAborted', (event: TransactionAbortedEvent) => aborted.push(event))
      held.release()
      await waitFor('the held transaction to abort', () => aborted.length > 0)
      assert.match(aborted[0].reason, /revoked or lost|fenced|ILLEGAL_GENERATION|UNKNOWN_MEMBER_ID|FENCED/)
      await waitFor('all input transformed and committed after the rejoin', done, { timeoutMs: 15_000 })
      stop.abort()
      await running
      assertExactlyOnce()
    })

    test('a partition lost while its offsets are sent aborts the transaction even if the offsets were accepted', async () => {
      const { consumer, producer } = await pipeline('a', protocol)
      let lostOwnership: { released: boolean } | undefined
      // The first TxnOffsetCommit: the member is fenced (it loses its partitions) meanwhile,
      // and the answer says the offsets were taken — only the client's own check stops the commit.
      cluster.intercept(TxnOffsetCommit, async ({ request }) => {
        const t = request.topics[0]
        lostOwnership = groupConsumerInternals(consumer).cursor(IN, t.partitions[0].partitionIndex)?.ownership
        cluster.fenceMember('eos', request.memberId ?? '')
        await waitFor('the member to lose the partition', () => lostOwnership?.released === true, { timeoutMs: 10_000 })
        return { respond: { throttleTimeMs: 0, topics: request.topics.map(x => ({ name: x.name ?? '', topicId: x.topicId ?? '00000000-0000-0000-0000-000000000000', partitions: x.partitions.map(p => ({ partitionIndex: p.partitionIndex, errorCode: 0 })) })) } }
      }, { times: 1 })
      const aborted: TransactionAbortedEvent[] = []
      consumer.on('transactionAborted', (event: TransactionAbortedEvent) => aborted.push(event))
      const stop = new AbortController()
      const running = runTransactional(consumer, producer, { eachBatch: transform, signal: stop.signal })
      await waitFor('all input transformed and committed after the rejoin', done, { timeoutMs: 20_000 })
      stop.abort()
      await running
      assert.ok(aborted.some(e => /lost: the member was fenced/.test(e.reason)), `aborts: ${aborted.map(e => e.reason).join('; ')}`)
      assertExactlyOnce()
    })

    test('a producer that cannot begin its transaction gives the batch back: the next producer reads it again, nothing is lost', async () => {
      const { consumer, producer, client } = await pipeline('a', protocol)
      // The first InitProducerId is refused for good: beginTransaction fails with a batch already out.
      cluster.intercept(InitProducerId, () => ({ error: 53 /* TRANSACTIONAL_ID_AUTHORIZATION_FAILED */ }), { times: 1 })
      await assert.rejects(runTransactional(consumer, producer, { eachBatch: transform }), TransactionFatalError)
      // As an application does after a fatal producer error: a new producer, the same consumer.
      const next = new Producer(client, { transactionalId: 'eos-a', lingerMs: 0 })
      closers.push(async () => { await next.close({ force: true }) })
      const stop = new AbortController()
      const running = runTransactional(consumer, next, { eachBatch: transform, signal: stop.signal })
      // The group's offsets reach the input's end either way; the output must hold every record.
      await waitFor('all input committed by the second producer', offsetsAtEnd, { timeoutMs: 15_000 })
      stop.abort()
      await running
      assertExactlyOnce()
    })

    test('a throwing transform aborts its transaction and ends the loop with the error; nothing of that batch is visible', async () => {
      const { consumer, producer } = await pipeline('a', protocol)
      const failure = new Error('transform failed')
      let calls = 0
      await assert.rejects(runTransactional(consumer, producer, {
        eachBatch: async (batch, tx) => {
          await transform(batch, tx)
          if (++calls === 2) throw failure
        }
      }), error => error === failure)
      // The loop's abort of that batch's transaction ends with the producer ready again.
      await waitFor('the producer ready after the abort', () => producer.transactionState === 'ready', { timeoutMs: 10_000 })
      // Only the first batch committed.
      const committedValues = committedOutput()
      assert.ok(committedValues.length > 0)
      assert.equal(cluster.requests(TxnOffsetCommit).length, 1)
    })

    test('a runTransactional member sends no ordinary OffsetCommit: not on its timer, not at a revoke, not at close (invariant 8)', async () => {
      // A 10 ms auto-commit timer: any ordinary commit it would make comes many times over.
      const a = await pipeline('a', protocol, { autoCommitIntervalMs: 10 })
      const stopA = new AbortController()
      const runningA = runTransactional(a.consumer, a.producer, { eachBatch: transform, signal: stopA.signal })
      await waitFor('all input transformed and committed', done, { timeoutMs: 15_000 })
      // A second member takes partitions from the first: a revoke of partitions with committed transactions behind them.
      const revoked: TopicPartition[] = []
      a.consumer.on('assigned', event => revoked.push(...event.revoked))
      const b = await pipeline('b', protocol, { autoCommitIntervalMs: 10 })
      const stopB = new AbortController()
      const runningB = runTransactional(b.consumer, b.producer, { eachBatch: transform, signal: stopB.signal })
      await waitFor('member a to revoke partitions to member b', () => revoked.length > 0 && b.consumer.assignment().length > 0, { timeoutMs: 15_000 })
      stopA.abort()
      await runningA
      await a.consumer.close()
      stopB.abort()
      await runningB
      await b.consumer.close()
      assert.deepEqual(ordinaryCommitsOf('a', 'b'), [], 'no ordinary OffsetCommit from a transactional member')
      // The group's offsets are the transactions' alone.
      assert.ok(offsetsAtEnd(), 'the group\'s committed offsets are at the input\'s end')
      assertExactlyOnce()
    })

    test('sendOffsets with a consumer on auto-commit: its partitions get no ordinary OffsetCommit from then on', async () => {
      const { consumer, producer } = await pipeline('a', protocol, { autoCommitIntervalMs: 10 })
      const stop = new AbortController()
      const loop = (async () => {
        for (;;) {
          const handed = await consumer.nextBatch(stop.signal)
          if (handed === undefined) return
          const { batch } = handed
          await producer.transaction(async tx => {
            await transform(batch, tx)
            await tx.sendOffsets({ consumer, offsets: [{ topic: batch.topic, partition: batch.partition, offset: batch.nextOffset }] })
          })
          handed.finish()
        }
      })().catch(error => { if (!stop.signal.aborted) throw error })
      await waitFor('all input transformed and committed', done, { timeoutMs: 15_000 })
      stop.abort()
      await loop
      await consumer.close()
      assert.deepEqual(ordinaryCommitsOf('a'), [], 'no ordinary OffsetCommit of partitions whose offsets went into transactions')
      assert.ok(offsetsAtEnd())
      assertExactlyOnce()
    })

    test('stopping by the signal finishes the batch in hand: its transaction commits, no batch is taken after it', async () => {
      const { consumer, producer } = await pipeline('a', protocol)
      const held = gate()
      const stop = new AbortController()
      const batches: Array<{ partition: number, nextOffset: bigint, count: number }> = []
      const aborted: TransactionAbortedEvent[] = []
      consumer.on('transactionAborted', event => aborted.push(event))
      const running = runTransactional(consumer, producer, {
        signal: stop.signal,
        eachBatch: async (batch, tx) => {
          batches.push({ partition: batch.partition, nextOffset: batch.nextOffset, count: batch.records.length })
          await transform(batch, tx)
          await held.promise
        }
      })
      await waitFor('a batch in its transaction', () => batches.length > 0)
      stop.abort()
      held.release()
      const stats = await running
      assert.deepEqual(stats, { committed: 1, aborted: 0 }, `aborts: ${aborted.map(e => e.reason).join('; ')}`)
      assert.equal(batches.length, 1, 'no batch taken after the stop')
      const [only] = batches
      assert.equal(cluster.committedLog(OUT, only.partition).length, only.count, 'the batch\'s output is committed')
      assert.equal(cluster.committedOffset('eos', IN, only.partition)?.offset, only.nextOffset, 'and its offsets with it')
    })

    test('stop: \'abort-batch\' aborts the transaction in flight, and its reason says the caller stopped it', async () => {
      const { consumer, producer } = await pipeline('a', protocol)
      const held = gate()
      let offsetsArrived = false
      cluster.intercept(TxnOffsetCommit, () => {
        offsetsArrived = true
        return { hold: held.promise }
      }, { times: 1 })
      const aborted: TransactionAbortedEvent[] = []
      consumer.on('transactionAborted', event => aborted.push(event))
      const stop = new AbortController()
      const running = runTransactional(consumer, producer, { eachBatch: transform, signal: stop.signal, stop: 'abort-batch' })
      await waitFor('the first TxnOffsetCommit at the broker', () => offsetsArrived)
      stop.abort()
      // The cut request's answer no longer matters; later requests on the connection (the abort's EndTxn) go on.
      held.release()
      await waitFor('the transaction to abort', () => aborted.length > 0)
      const stats = await running
      assert.equal(stats.committed, 0)
      assert.equal(aborted.length, 1)
      assert.match(aborted[0].reason, /stopped by the caller/)
      assert.doesNotMatch(aborted[0].reason, /connection|broker|waiting/i)
      assert.deepEqual(committedOutput(), [], 'nothing of the aborted batch is visible')
    })
  })
}

test('runTransactional waits for a classic rebalance held open: no batch handed out again and again, no transactionAborted storm', async () => {
  const { consumer, producer } = await pipeline('a', 'classic')
  const stop = new AbortController()
  let holding = false
  let handedDuringHold = 0
  const aborted: TransactionAbortedEvent[] = []
  consumer.on('transactionAborted', event => { if (holding) aborted.push(event) })
  // Counts what the loop is handed while the rebalance is held open.
  const nextBatch = groupConsumerInternals(consumer).nextBatch
  groupConsumerInternals(consumer).nextBatch = async signal => {
    const handed = await nextBatch(signal)
    if (handed !== undefined && holding) handedDuringHold++
    return handed
  }
  const running = runTransactional(consumer, producer, { eachBatch: transform, signal: stop.signal })
  await waitFor('all input transformed and committed', done, { timeoutMs: 15_000 })
  // The next rebalance (a second member joins): member a's JoinGroup is held at the broker.
  const held = gate()
  const rejoinHeld = holdNextOfA(JoinGroup.key, held.promise)
  const other = new GroupConsumer(newClient('b'), { groupId: 'eos', topics: [IN], groupProtocol: 'classic', fromBeginning: true, isolation: 'read_committed', sessionTimeoutMs: 1500, rebalanceTimeoutMs: 1500, heartbeatIntervalMs: 50, autoCommit: false })
  closers.push(async () => { await other.close() })
  await waitFor('member a to rejoin (held)', rejoinHeld, { timeoutMs: 10_000 })
  holding = true
  // New input for partitions member a still holds while the rebalance is open.
  const seeder = newClient('seeder2')
  for (let p = 0; p < PARTITIONS; p++) await seeder.produceRaw({ topic: IN, partition: p, records: [{ key: Buffer.from(`k${p}`), value: Buffer.from(`${p}:${PER_PARTITION}`) }] })
  await waitFor('member a to be handed the new input during the rebalance', () => handedDuringHold > 0, { timeoutMs: 5000 })
  // Long enough for a spinning loop to hand the batch out hundreds of times. A window for a
  // rate, not a wait for an event: the fix cannot fail for it on a slow machine (fewer turns
  // in it only make a spin harder to see), and the spin has no event of its own to wait for.
  await sleep(500)
  const handed = handedDuringHold
  const abortEvents = aborted.length
  holding = false
  held.release()
  stop.abort()
  await running
  assert.ok(handed <= 1 && abortEvents <= 1, `${handed} batches handed out and ${abortEvents} transactionAborted events during the held rebalance`)
})

describe('runTransactional through KIP-848 epoch bumps', () => {
  /** A plain member of the group (no loop, no commits): it only takes partitions while it is in. */
  const bystander = (): GroupConsumer => {
    const other = new GroupConsumer(newClient('b'), { groupId: 'eos', topics: [IN], groupProtocol: 'consumer', fromBeginning: true, isolation: 'read_committed', autoCommit: false })
    closers.push(async () => { await other.close() })
    return other
  }

  test('an epoch bump on a partition the member keeps, while its batch runs, aborts nothing: the offsets go under the new epoch', async () => {
    const { consumer, producer } = await pipeline('a', 'consumer')
    const aborted: TransactionAbortedEvent[] = []
    consumer.on('transactionAborted', event => aborted.push(event))
    const held = gate()
    let holding = false
    let heldBatch: { partition: number, nextOffset: bigint } | undefined
    const stop = new AbortController()
    const running = runTransactional(consumer, producer, {
      signal: stop.signal,
      eachBatch: async (batch, tx) => {
        await transform(batch, tx)
        if (holding && heldBatch === undefined && batch.partition === 0) {
          heldBatch = { partition: batch.partition, nextOffset: batch.nextOffset }
          await held.promise
        }
      }
    })
    await waitFor('all input transformed and committed', done, { timeoutMs: 15_000 })
    // A second member takes partition 1 (the fake's uniform assignor: a keeps 0 and 2).
    const other = bystander()
    await waitFor('member b to take one partition', () => other.assignment().length === 1 && consumer.assignment().length === 2, { timeoutMs: 10_000 })
    holding = true
    await newClient('seeder2').produceRaw({ topic: IN, partition: 0, records: [{ key: Buffer.from('k0'), value: Buffer.from(`0:${PER_PARTITION}`) }] })
    await waitFor('a batch of partition 0 in its transaction', () => heldBatch !== undefined, { timeoutMs: 10_000 })
    const epochBefore = consumer.groupMetadata()?.generationId
    // Member b leaves: member a gets partition 1 back under a new epoch and keeps 0. The
    // reconciliation that adds 1 is held at its OffsetFetch, so it is still running when the
    // held batch's transaction sends its offsets and commits.
    const reconciling = gate()
    const fetchHeld = holdNextOfA(OffsetFetch.key, reconciling.promise)
    await other.close()
    await waitFor('member a to reconcile the new assignment (held)', fetchHeld, { timeoutMs: 10_000 })
    const epochNow = cluster.groupMembers('eos')[0].memberEpoch
    assert.ok(epochNow !== undefined && epochNow > (epochBefore ?? Infinity), `the member epoch moved on (${String(epochBefore)} → ${String(epochNow)})`)
    held.release()
    await waitFor('the held batch\'s transaction to end', () => aborted.length > 0 || cluster.committedOffset('eos', IN, 0)?.offset === heldBatch!.nextOffset, { timeoutMs: 10_000 })
    reconciling.release()
    assert.deepEqual(aborted.map(e => e.reason), [], 'no transaction aborted')
    const last = cluster.requests(TxnOffsetCommit).at(-1)!.request
    assert.equal(last.generationIdOrMemberEpoch, epochNow, 'the offsets went under the member\'s current epoch')
    stop.abort()
    await running
    assert.equal(cluster.committedLog(OUT, 0).length, PER_PARTITION + 1, 'the held batch\'s output committed once')
  })

  test('a partition really revoked while its batch runs aborts the transaction, and the reason names the revoke', async () => {
    const { consumer, producer } = await pipeline('a', 'consumer')
    const aborted: TransactionAbortedEvent[] = []
    consumer.on('transactionAborted', event => aborted.push(event))
    const held = gate()
    let heldOwnership: { released: boolean } | undefined
    const stop = new AbortController()
    const running = runTransactional(consumer, producer, {
      signal: stop.signal,
      eachBatch: async (batch, tx) => {
        await transform(batch, tx)
        // Partition 1 is the one a second member takes (the fake's uniform assignor).
        if (heldOwnership === undefined && batch.partition === 1) {
          heldOwnership = groupConsumerInternals(consumer).cursor(batch.topic, batch.partition)!.ownership
          await held.promise
        }
      }
    })
    await waitFor('a batch of partition 1 in its transaction', () => heldOwnership !== undefined, { timeoutMs: 10_000 })
    bystander()
    // The revoke waits for the batch (bounded by the rebalance timeout), then lets go of it.
    await waitFor('partition 1 to be revoked', () => heldOwnership?.released === true, { timeoutMs: 10_000 })
    held.release()
    await waitFor('the held transaction to abort', () => aborted.length > 0, { timeoutMs: 10_000 })
    stop.abort()
    await running
    assert.equal(aborted[0].partition, 1)
    assert.match(aborted[0].reason, /revoked by a rebalance/)
    assert.doesNotMatch(aborted[0].reason, /fenced/)
  })
})

test('a producer fenced mid-batch ends the loop with the ProducerFencedError itself (catchable by type), each record\'s outcome attached', async () => {
  const { consumer, producer } = await pipeline('a', 'classic')
  const OUTPUT_RECORDS = 10
  // The batch's 10 output records are refused: another producer with the same transactionalId took over.
  const successor = new Producer(newClient('successor'), { transactionalId: 'eos-a' })
  closers.push(async () => { await successor.close({ force: true }) })
  let tookOver = false
  cluster.intercept(Produce, async ({ clientId }) => {
    if (clientId !== 'a' || tookOver) return undefined
    tookOver = true
    await successor.beginTransaction()
    return undefined
  })
  let failure: unknown
  await runTransactional(consumer, producer, {
    eachBatch: async (batch, tx) => {
      await tx.send(Array.from({ length: OUTPUT_RECORDS }, (_, i) => ({ topic: OUT, partition: batch.partition, value: `out-${i}` })))
    }
  }).catch(error => { failure = error })
  assert.ok(failure instanceof TransactionFatalError, `rejected with ${String(failure)}`)
  assert.ok(failure instanceof ProducerFencedError)
  assert.equal(failure.type, 'PRODUCER_FENCED')
  assert.equal(failure.outcomes?.length, OUTPUT_RECORDS, 'every output record\'s outcome is attached')
  assert.ok(failure.outcomes.every(o => !o.ok), 'none of them was acknowledged')
  assert.deepEqual(committedOutput(), [])
})

for (const code of [48 /* INVALID_TXN_STATE */, 47 /* INVALID_PRODUCER_EPOCH */]) {
  test(`a commit refused because the coordinator timed the transaction out (${code}) is recovered (KIP-588): the batch is aborted, read again and committed, no fatal error`, async () => {
    const { consumer, producer } = await pipeline('a', 'classic')
    cluster.intercept(EndTxn, ({ request }) => request.committed ? { error: code } : undefined, { times: 1 })
    const aborted: TransactionAbortedEvent[] = []
    consumer.on('transactionAborted', event => aborted.push(event))
    const stop = new AbortController()
    let failure: unknown
    const running = runTransactional(consumer, producer, { eachBatch: transform, signal: stop.signal }).catch(error => { failure = error })
    await waitFor('all input transformed and committed', () => done() || failure !== undefined, { timeoutMs: 15_000 })
    stop.abort()
    await running
    assert.equal(failure, undefined, `the loop ended with ${String(failure)}`)
    assert.equal(aborted.length, 1)
    assert.match(aborted[0].reason, /transactionTimeoutMs/)
    assert.equal(producer.transactionState, 'ready')
    // The re-init asked for the next epoch of the same producer id (KIP-588), not a new id.
    const inits = cluster.requests(InitProducerId).map(r => r.request)
    assert.equal(inits.length, 2)
    assert.ok((inits[1].producerId ?? -1n) >= 0n, 'the second InitProducerId carries the current producer id and epoch')
    assertExactlyOnce()
  })
}

test('after a timeout, a producer whose re-init finds a newer producer in its place is fenced (fatal)', async () => {
  const { consumer, producer } = await pipeline('a', 'classic')
  let took = false
  cluster.intercept(EndTxn, async ({ request }) => {
    if (!request.committed || took) return undefined
    took = true
    // Another instance with the same transactionalId starts (fences this one), then the commit is refused.
    const other = new Producer(newClient('other'), { transactionalId: 'eos-a' })
    closers.push(async () => { await other.close({ force: true }) })
    await other.beginTransaction()
    return { error: 47 }
  })
  await assert.rejects(runTransactional(consumer, producer, { eachBatch: transform }), ProducerFencedError)
})

test('a SendError whose every record failed does not claim acknowledgements', () => {
  const refused = new Error('refused')
  const none = new SendError([undefined, undefined], [refused, refused])
  assert.match(none.message, /^All 2 records of the send failed .*none was acknowledged/)
  assert.doesNotMatch(none.message, /others were acknowledged/)
  const some = new SendError([{ topic: 't', partition: 0, offset: 0n, timestamp: 0n } as never, undefined, undefined], [undefined, refused, refused])
  assert.match(some.message, /^2 of 3 records of the send failed .*the other 1 was acknowledged/)
})

// Types only (never called): runTransactional takes typed consumers and producers.
export function typeChecks (client: Client): void {
  interface Order { id: number, item: string }
  const consumer = client.consumer({ groupId: 'g', topics: ['in'], deserializers: { key: deserializers.string(), value: deserializers.json<Order>() } })
  const producer = client.producer({ transactionalId: 't', serializers: { key: serializers.string(), value: serializers.json<Order>() } })
  void runTransactional(consumer, producer, {
    eachBatch: async (batch, tx) => {
      const order: Order | null = batch.records[0].value
      const key: string | null = batch.records[0].key
      await tx.send({ topic: 'out', key: key ?? 'none', value: order })
      tx.produce({ topic: 'out', key: 'k', value: { id: 1, item: 'x' } }, () => {})
      // @ts-expect-error tx.send takes Orders
      await tx.send({ topic: 'out', value: 'not an order' })
      // @ts-expect-error the batch's values are Orders, not Buffers
      batch.records[0].value?.subarray(0)
    }
  })
  // @ts-expect-error an eachBatch typed for bytes does not fit a consumer of Orders
  void runTransactional(consumer, producer, { eachBatch: async (batch: { records: Array<{ value: Buffer | null }> }) => { void batch } })
}

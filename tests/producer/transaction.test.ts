// The transactional producer against the fake cluster's transaction coordinator
// (testing/transactions.ts): the state machine, the three error classes Java
// defines (abortable, fatal/fenced, retried inside the call), both transaction versions,
// and the ambiguous EndTxn — the transactional twin of the poisoned batch: a commit whose
// answer was lost must be retried until the coordinator says what happened, and never be
// reported as committed or aborted without knowing.
import { afterEach, beforeEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import type { ClientOptions } from '../../client/client'
import { AbortedError } from '../../client/errors'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { AddOffsetsToTxn } from '../../protocol/apis/add-offsets-to-txn'
import { AddPartitionsToTxn } from '../../protocol/apis/add-partitions-to-txn'
import { EndTxn } from '../../protocol/apis/end-txn'
import { FindCoordinator } from '../../protocol/apis/find-coordinator'
import { InitProducerId } from '../../protocol/apis/init-producer-id'
import { Produce } from '../../protocol/apis/produce'
import { TxnOffsetCommit } from '../../protocol/apis/txn-offset-commit'
import { errorCode } from '../../protocol/error-codes'
import { BrokerError } from '../../protocol/errors'
import { Producer, type ProducerOptions } from '../../producer/producer'
import {
  ProducerFencedError, TransactionAbortableError, TransactionAbortedError, TransactionOutcomeUnknownError, TransactionStateError
} from '../../producer/transaction'
import { FakeCluster, withClock } from '../../testing/index'
import { WatchedClock } from '../support/clock'
import { waitFor, outcomeWithin } from '../support/wait'

const TOPIC = 't'
const GROUP = { groupId: 'g', memberId: '', generationId: -1, groupInstanceId: null }

let cluster: FakeCluster
let clients: Client[] = []
let producers: Producer[] = []

async function start (transactionVersion: 1 | 2 = 2): Promise<void> {
  cluster = await FakeCluster.start({ brokers: 3, topics: [{ name: TOPIC, partitions: 3, replicationFactor: 1 }], log: false, transactionVersion })
}

beforeEach(async () => { await start() })

afterEach(async () => {
  for (const p of producers) await p.close({ force: true })
  for (const c of clients) await c.close()
  producers = []
  clients = []
  await cluster.close()
})

function producer (options: ProducerOptions = {}, clientOptions: Partial<ClientOptions> = {}): Producer {
  // A client per producer: two instances of one transactional id must not share connections.
  const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 5, maxMs: 20 }, requestTimeoutMs: 2000, ...clientOptions })
  clients.push(client)
  const p = new Producer(client, { lingerMs: 0, transactionalId: 'tx', ...options })
  producers.push(p)
  return p
}

function visible (partition: number): string[] {
  return cluster.committedLog(TOPIC, partition).map(r => r.value?.toString() ?? '')
}

function allLogged (): string[] {
  return [0, 1, 2].flatMap(p => cluster.log(TOPIC, p).map(r => r.value?.toString() ?? ''))
}

describe('transaction version 2 (KIP-890)', () => {
  test('commit makes the records and the offsets visible; the epoch moves at every EndTxn and sequences restart', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send([{ topic: TOPIC, partition: 0, value: 'a' }, { topic: TOPIC, partition: 1, value: 'b' }])
    await p.sendOffsets({ groupMetadata: GROUP, offsets: [{ topic: TOPIC, partition: 2, offset: 7n }] })
    assert.deepEqual(visible(0), [], 'nothing is visible before the commit')
    assert.equal(cluster.committedOffset('g', TOPIC, 2), undefined, 'offsets wait for the commit')
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a'])
    assert.deepEqual(visible(1), ['b'])
    assert.equal(cluster.committedOffset('g', TOPIC, 2)?.offset, 7n)
    assert.equal(p.transactionState, 'ready')
    // Implicit: no AddPartitionsToTxn / AddOffsetsToTxn on version 2.
    assert.equal(cluster.requests(AddPartitionsToTxn).length, 0)
    assert.equal(cluster.requests(AddOffsetsToTxn).length, 0)
    assert.ok(cluster.requests(Produce).every(r => r.version >= 12))
    assert.ok(cluster.requests(TxnOffsetCommit).every(r => r.version >= 5))

    const firstEpoch = cluster.produceAttempts(TOPIC, 0)[0].producerEpoch
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'c' })
    await p.commitTransaction()
    const second = cluster.produceAttempts(TOPIC, 0)[1]
    assert.equal(second.producerEpoch, firstEpoch + 1, 'EndTxn v5 bumped the epoch')
    assert.equal(second.baseSequence, 0, 'a new epoch starts its sequences at 0')
    assert.equal(second.transactional, true)
    assert.deepEqual(visible(0), ['a', 'c'])
  })

  test('abort: nothing of the transaction becomes visible, its offsets are not committed, and the producer goes on', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'aborted' })
    await p.sendOffsets({ groupMetadata: GROUP, offsets: [{ topic: TOPIC, partition: 0, offset: 3n }] })
    await p.abortTransaction()
    assert.deepEqual(visible(0), [])
    assert.deepEqual(allLogged(), ['aborted'], 'the record is in the log, marked aborted')
    assert.equal(cluster.committedOffset('g', TOPIC, 0), undefined)
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'kept' })
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['kept'])
  })

  test('transaction(work) commits when work resolves and aborts when it throws', async () => {
    const p = producer()
    const result = await p.transaction(async tx => {
      await tx.send({ topic: TOPIC, partition: 0, value: 'in' })
      return 42
    })
    assert.equal(result, 42)
    const failure = new Error('application failure')
    await assert.rejects(p.transaction(async tx => {
      await tx.send({ topic: TOPIC, partition: 1, value: 'out' })
      throw failure
    }), error => error === failure)
    assert.deepEqual(visible(0), ['in'])
    assert.deepEqual(visible(1), [])
    assert.equal(p.transactionState, 'ready')
  })

  test('sends outside a transaction and calls in the wrong state are refused with TransactionStateError', async () => {
    const p = producer()
    await assert.rejects(p.send({ topic: TOPIC, value: 'x' }), TransactionStateError)
    const refused: Error[] = []
    p.produce({ topic: TOPIC, value: 'x' }, error => { if (error !== null) refused.push(error) })
    assert.ok(refused[0] instanceof TransactionStateError)
    await assert.rejects(p.commitTransaction(), TransactionStateError)
    await assert.rejects(p.abortTransaction(), TransactionStateError)
    await p.beginTransaction()
    await assert.rejects(p.beginTransaction(), TransactionStateError)
    await p.abortTransaction()
    assert.deepEqual(allLogged(), [])
    const plain = new Producer(clients[0], {})
    await assert.rejects(plain.beginTransaction(), /transactionalId/)
    await plain.close()
  })

  test('a send that failed makes commit refuse with the first error as cause; abort clears it', async () => {
    const p = producer()
    await p.beginTransaction()
    cluster.intercept(Produce, () => ({ error: 87 }), { times: 1 }) // INVALID_RECORD: definite, not retriable
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'bad' }), BrokerError)
    // Later sends fail fast: the transaction can only abort now.
    await assert.rejects(p.send({ topic: TOPIC, partition: 1, value: 'late' }), TransactionAbortableError)
    const refusal = await p.commitTransaction().then(() => undefined, (error: unknown) => error)
    assert.ok(refusal instanceof TransactionAbortableError, `commit refused with ${String(refusal)}`)
    assert.ok((refusal as Error).cause instanceof BrokerError)
    assert.equal(((refusal as Error).cause as BrokerError).code, 87)
    assert.equal(cluster.requests(EndTxn).length, 0, 'no commit was asked for')
    await p.abortTransaction()
    await p.transaction(async tx => { await tx.send({ topic: TOPIC, partition: 0, value: 'good' }) })
    assert.deepEqual(visible(0), ['good'])
  })

  test('records still buffered when the transaction aborts fail with TransactionAbortedError and are never written', async () => {
    const p = producer({ lingerMs: 60_000 })
    await p.beginTransaction()
    const pending = p.send({ topic: TOPIC, partition: 0, value: 'buffered' }).then(() => undefined, (error: unknown) => error)
    await p.abortTransaction()
    assert.ok(await pending instanceof TransactionAbortedError)
    assert.deepEqual(allLogged(), [])
  })

  test('retriable answers are retried inside the call: CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR', async () => {
    const p = producer()
    cluster.intercept(InitProducerId, () => ({ error: 14 }), { times: 2 })
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    cluster.intercept(EndTxn, () => ({ error: 51 }), { times: 2 })
    cluster.intercept(EndTxn, () => ({ error: 16 }), { times: 1 })
    const lookups = cluster.requests(FindCoordinator).length
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a'])
    assert.equal(cluster.requests(EndTxn).length, 4)
    assert.ok(cluster.requests(FindCoordinator).length > lookups, 'NOT_COORDINATOR made it look the coordinator up again')
  })

  test('a Produce answered CONCURRENT_TRANSACTIONS (the previous transaction still completing) is retried', async () => {
    const p = producer()
    await p.transaction(async tx => { await tx.send({ topic: TOPIC, partition: 0, value: 'a' }) })
    await p.beginTransaction()
    cluster.intercept(Produce, () => ({ error: 51 }), { times: 2 })
    await p.send({ topic: TOPIC, partition: 0, value: 'b' })
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a', 'b'])
  })

  test('the coordinator moved: NOT_COORDINATOR at the old broker, found again', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    const old = cluster.transactionCoordinatorOf('tx')
    cluster.setTransactionCoordinator('tx', cluster.brokerIds.find(id => id !== old)!)
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a'])
    const endTxns = cluster.requests(EndTxn)
    assert.equal(endTxns[0].brokerId, old)
    assert.equal(endTxns.at(-1)!.brokerId, cluster.transactionCoordinatorOf('tx'))
  })

  test('the coordinator\'s connection dies while a new producer asks its transaction version: beginTransaction finds it again', async () => {
    const p = producer()
    // kafkats's own ApiVersions to the coordinator (the connection's handshake says version 0.1.0).
    cluster.intercept(ApiVersions, ({ request }) => request.clientSoftwareVersion === '0' ? { drop: 'before-apply' } : undefined, { times: 1 })
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a'])
    assert.equal(cluster.requests(ApiVersions).filter(r => r.request.clientSoftwareVersion === '0').length, 2, 'asked again after the dropped connection')
  })

  test('an EndTxn whose connection dies after the write is retried until answered: the commit is reported once it is known', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    cluster.intercept(EndTxn, () => ({ drop: 'after-apply' }), { times: 1 })
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a'])
    assert.equal(cluster.requests(EndTxn).length, 2, 'the EndTxn was retried')
    assert.ok(cluster.transactionEvents('tx').some(e => e.line.includes('retry')), 'the retry found the transaction already committed')
    // The producer moved to the epoch the retry returned and goes on.
    await p.transaction(async tx => { await tx.send({ topic: TOPIC, partition: 0, value: 'b' }) })
    assert.deepEqual(visible(0), ['a', 'b'])
  })

  test('an unanswered EndTxn whose retry is fenced is TransactionOutcomeUnknownError, never "aborted"', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    const successor = producer()
    cluster.intercept(EndTxn, () => ({ drop: 'after-apply' }), { times: 1 })
    // Before the retry is handled, another instance starts with the same transactional id.
    cluster.intercept(EndTxn, () => ({ hold: successor.beginTransaction() }), { times: 1 })
    const outcome = await p.commitTransaction().then(() => undefined, (error: unknown) => error)
    assert.ok(outcome instanceof TransactionOutcomeUnknownError, `got ${String(outcome)}`)
    assert.equal(p.transactionState, 'fatalError')
    // Here the first EndTxn had committed: the error did not claim otherwise.
    assert.deepEqual(visible(0), ['a'])
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'x' }), TransactionOutcomeUnknownError)
  })

  test('zombie fencing: a second instance fences the first, whose open transaction never becomes visible', async () => {
    const zombie = producer()
    await zombie.beginTransaction()
    await zombie.send({ topic: TOPIC, partition: 0, value: 'zombie' })
    const successor = producer()
    await successor.beginTransaction()
    // The commit's PRODUCER_FENCED could be a timeout abort (KIP-588): abortable; the abort's re-init finds the successor.
    await assert.rejects(zombie.commitTransaction(), TransactionAbortableError)
    const refusal = await zombie.abortTransaction().then(() => undefined, (error: unknown) => error)
    assert.ok(refusal instanceof ProducerFencedError, `got ${String(refusal)}`)
    assert.equal((refusal as ProducerFencedError).code, 90)
    assert.equal((refusal as ProducerFencedError).type, 'PRODUCER_FENCED')
    assert.equal(zombie.transactionState, 'fatalError')
    await assert.rejects(zombie.send({ topic: TOPIC, partition: 0, value: 'more' }), ProducerFencedError)
    await assert.rejects(zombie.beginTransaction(), ProducerFencedError)
    await successor.send({ topic: TOPIC, partition: 1, value: 'successor' })
    await successor.commitTransaction()
    assert.deepEqual(visible(0), [])
    assert.deepEqual(visible(1), ['successor'])
  })

  test('a zombie\'s produce is refused with the old epoch (INVALID_PRODUCER_EPOCH): its abort\'s re-init (KIP-588) finds the successor, fenced', async () => {
    const zombie = producer()
    await zombie.beginTransaction()
    await zombie.send({ topic: TOPIC, partition: 0, value: 'first' })
    const successor = producer()
    await successor.beginTransaction()
    await assert.rejects(zombie.send({ topic: TOPIC, partition: 0, value: 'late' }))
    await assert.rejects(zombie.abortTransaction(), ProducerFencedError)
    assert.equal(zombie.transactionState, 'fatalError')
    await successor.abortTransaction()
    assert.deepEqual(visible(0), [])
  })

  test('a transaction open past transactionTimeoutMs is aborted by the coordinator; the late commit is abortable, and the abort moves to the next epoch (KIP-588)', async () => {
    const p = producer({ transactionTimeoutMs: 100 })
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'stalled' })
    // The coordinator's clock, moved past the timeout the producer asked for (the transaction
    // began before now): it aborts the transaction, as a coordinator does once the time passed.
    cluster.expireTransactions(Date.now() + 101)
    await assert.rejects(p.commitTransaction(), TransactionAbortableError)
    await p.abortTransaction()
    assert.equal(p.transactionState, 'ready')
    const inits = cluster.requests(InitProducerId).map(r => r.request)
    assert.ok((inits.at(-1)!.producerId ?? -1n) >= 0n, 'the re-init carried the current producer id and epoch')
    // The producer goes on: the next transaction commits.
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'again' })
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['again'])
  })

  test('sendOffsets of a topic the producer never sent to (TxnOffsetCommit v6 names it by id) commits with the transaction', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.sendOffsets({ groupMetadata: GROUP, offsets: [{ topic: TOPIC, partition: 1, offset: 9n }] })
    await p.commitTransaction()
    assert.ok(cluster.requests(TxnOffsetCommit).some(r => r.version >= 6))
    assert.equal(cluster.committedOffset('g', TOPIC, 1)?.offset, 9n)
  })

  test('a TxnOffsetCommit answer that leaves out an offset makes sendOffsets abortable, never silently done', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    cluster.intercept(TxnOffsetCommit, () => ({ respond: { throttleTimeMs: 0, topics: [] } }), { times: 1 })
    await assert.rejects(p.sendOffsets({ groupMetadata: GROUP, offsets: [{ topic: TOPIC, partition: 0, offset: 1n }] }), TransactionAbortableError)
    assert.equal(p.transactionState, 'abortableError')
    await p.abortTransaction()
  })

  test('a fenced group member makes sendOffsets abortable (KIP-447); abort and go on', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    cluster.intercept(TxnOffsetCommit, () => ({ error: 22 }), { times: 1 }) // ILLEGAL_GENERATION
    await assert.rejects(p.sendOffsets({ groupMetadata: { groupId: 'g', memberId: 'm', generationId: 3, groupInstanceId: null }, offsets: [{ topic: TOPIC, partition: 0, offset: 1n }] }), TransactionAbortableError)
    assert.equal(p.transactionState, 'abortableError')
    await assert.rejects(p.commitTransaction(), TransactionAbortableError)
    await p.abortTransaction()
    assert.deepEqual(visible(0), [])
    assert.equal(cluster.committedOffset('g', TOPIC, 0), undefined)
  })

  test('an AbortSignal ends a wait for a coordinator that is not available', async () => {
    const p = producer()
    cluster.intercept(FindCoordinator, () => ({ error: 15 }))
    await assert.rejects(p.beginTransaction({ signal: AbortSignal.timeout(200) }), (error: Error) => error.name === 'AbortedError')
  })

  // Each retry loop of a transaction call names the refusal it was retrying when an abort ends it.
  const inTransaction = async (p: Producer): Promise<void> => {
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
  }
  // The backoff (2–4 s, longer than the 1.5 s request timeout) is on the client's clock, which
  // the test does not move: the abort comes once the call waits to retry, and ends the wait.
  const refusalsRetried: Array<{ loop: string, refuse: (abort: () => void) => void, call: (p: Producer, signal: AbortSignal) => Promise<void>, code: number, type: string }> = [
    {
      loop: 'the coordinator lookup',
      refuse: abort => { cluster.intercept(FindCoordinator, () => { abort(); return { error: 15 } }) },
      call: async (p, signal) => { await p.beginTransaction({ signal }) },
      code: 15,
      type: 'COORDINATOR_NOT_AVAILABLE'
    },
    {
      loop: 'a coordinator request (InitProducerId)',
      refuse: abort => { cluster.intercept(InitProducerId, () => { abort(); return { error: 51 } }) },
      call: async (p, signal) => { await p.beginTransaction({ signal }) },
      code: 51,
      type: 'CONCURRENT_TRANSACTIONS'
    },
    {
      loop: 'TxnOffsetCommit',
      refuse: abort => { cluster.intercept(TxnOffsetCommit, () => { abort(); return { error: 14 } }) },
      call: async (p, signal) => {
        await inTransaction(p)
        await p.sendOffsets({ groupMetadata: GROUP, offsets: [{ topic: TOPIC, partition: 0, offset: 1n }], signal })
      },
      code: 14,
      type: 'COORDINATOR_LOAD_IN_PROGRESS'
    },
    {
      loop: 'EndTxn',
      refuse: abort => { cluster.intercept(EndTxn, () => { abort(); return { error: 51 } }) },
      call: async (p, signal) => {
        await inTransaction(p)
        await p.commitTransaction({ signal })
      },
      code: 51,
      type: 'CONCURRENT_TRANSACTIONS'
    }
  ]
  for (const { loop, refuse, call, code, type } of refusalsRetried) {
    test(`an abort while ${loop} waits to retry a refusal names the refusal's Kafka code and type`, async () => {
      const clock = new WatchedClock()
      const p = producer({}, withClock({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 4000, maxMs: 4000 }, requestTimeoutMs: 1500 }, clock))
      const controller = new AbortController()
      let refusedAfter: number | undefined
      refuse(() => { refusedAfter ??= clock.started.length })
      const calling = call(p, controller.signal)
      calling.catch(() => {})
      // Timers due now (a linger of 0) run; the backoff, 2 s or more ahead, never does.
      await waitFor(`${loop} waiting to retry the refusal`, async () => {
        await clock.advance(0)
        return refusedAfter !== undefined && clock.timerStarted(2000, refusedAfter)
      })
      controller.abort(new Error('the caller gave up'))
      const named = new RegExp(`the last attempt had failed with BrokerError: .*${type} \\(${code}\\)`)
      await assert.rejects(calling, (error: Error) => {
        assert.match(error.message, named)
        if (error instanceof AbortedError) assert.ok(error.lastError instanceof BrokerError && error.lastError.code === code, String(error.lastError))
        else assert.ok(error instanceof TransactionAbortableError, String(error))
        return true
      })
    })
  }

  for (const [api, name] of [[InitProducerId, 'InitProducerId'], [FindCoordinator, 'FindCoordinator']] as const) {
    test(`close() ends a transaction call that retries ${name} (COORDINATOR_LOAD_IN_PROGRESS for ever): it settles at once, nothing is asked after it`, async () => {
      const p = producer()
      let asked = 0
      cluster.intercept(api.key, () => { asked++; return { error: 14 } })
      const begin = p.beginTransaction()
      begin.catch(() => {})
      await waitFor(`${name} retried`, () => asked >= 2)
      await p.close({ force: true })
      const after = asked
      const outcome = await outcomeWithin(begin, 10_000)
      assert.match(outcome, /^rejected (ProducerClosedError|AbortedError): .*closed/)
      assert.ok(asked <= after + 1, `${asked - after} ${name} requests after close()`)
    })
  }

  test('bad options fail fast', () => {
    assert.throws(() => producer({ transactionalId: '' }), /transactionalId/)
    assert.throws(() => producer({ transactionTimeoutMs: 0 }), /transactionTimeoutMs/)
    assert.throws(() => producer({ idempotent: false, acks: 1 }), /idempotent/)
  })
})

describe('transaction version 1', () => {
  beforeEach(async () => {
    await cluster.close()
    await start(1)
  })

  test('partitions are added before their first batch, the group before its offsets, and Produce stays at v11', async () => {
    const p = producer()
    await p.beginTransaction()
    cluster.intercept(AddPartitionsToTxn, () => ({ error: 51 }), { times: 2 }) // CONCURRENT_TRANSACTIONS: retried
    await p.send([{ topic: TOPIC, partition: 0, value: 'a' }, { topic: TOPIC, partition: 2, value: 'b' }])
    await p.sendOffsets({ groupMetadata: GROUP, offsets: [{ topic: TOPIC, partition: 1, offset: 5n }] })
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a'])
    assert.deepEqual(visible(2), ['b'])
    assert.equal(cluster.committedOffset('g', TOPIC, 1)?.offset, 5n)
    assert.ok(cluster.requests(Produce).every(r => r.version <= 11), `Produce versions: ${cluster.requests(Produce).map(r => r.version).join(',')}`)
    // EndTxn v5 and TxnOffsetCommit v5 mean transaction version 2 to a broker.
    assert.ok(cluster.requests(EndTxn).every(r => r.version <= 4))
    assert.ok(cluster.requests(TxnOffsetCommit).every(r => r.version <= 4))
    const added = cluster.requests(AddPartitionsToTxn)
    assert.ok(added.length >= 3, 'retried after CONCURRENT_TRANSACTIONS')
    const firstProduce = cluster.requests(Produce)[0]
    assert.ok(added.at(-1)!.receivedAt <= firstProduce.receivedAt, 'AddPartitionsToTxn came before the first Produce')
    const addOffsets = cluster.requests(AddOffsetsToTxn)
    assert.equal(addOffsets.length, 1)
    assert.ok(addOffsets[0].receivedAt <= cluster.requests(TxnOffsetCommit)[0].receivedAt)
    // The epoch stays on version 1.
    await p.transaction(async tx => { await tx.send({ topic: TOPIC, partition: 0, value: 'c' }) })
    const attempts = cluster.produceAttempts(TOPIC, 0)
    assert.equal(attempts[1].producerEpoch, attempts[0].producerEpoch)
    assert.equal(attempts[1].baseSequence, 1)
  })

  test('AddPartitionsToTxn with one partition to retry and the others OPERATION_NOT_ATTEMPTED (55) is retried, not abortable', async () => {
    // Kafka adds none of the partitions when one fails and answers the rest with
    // OPERATION_NOT_ATTEMPTED. The client took 67 (INVALID_PRINCIPAL_TYPE) for it, so a real
    // broker's 55 made the transaction abortable although the failing partition was retriable.
    const p = producer()
    await p.beginTransaction()
    cluster.intercept(AddPartitionsToTxn, () => ({
      respond: {
        throttleTimeMs: 0,
        errorCode: 0,
        resultsByTransaction: [],
        resultsByTopicV3AndBelow: [{
          name: TOPIC,
          resultsByPartition: [
            { partitionIndex: 0, partitionErrorCode: errorCode('UNKNOWN_TOPIC_OR_PARTITION') },
            { partitionIndex: 2, partitionErrorCode: errorCode('OPERATION_NOT_ATTEMPTED') }
          ]
        }]
      }
    }), { times: 1 })
    await p.send([{ topic: TOPIC, partition: 0, value: 'a' }, { topic: TOPIC, partition: 2, value: 'b' }])
    await p.commitTransaction()
    assert.deepEqual(visible(0), ['a'])
    assert.deepEqual(visible(2), ['b'])
    assert.ok(cluster.requests(AddPartitionsToTxn).length >= 2, 'asked again after the refusal')
  })

  test('abort after a failed send moves to a new epoch (InitProducerId with the current one) and sequences restart', async () => {
    const p = producer()
    await p.beginTransaction()
    await p.send({ topic: TOPIC, partition: 0, value: 'a' })
    cluster.intercept(Produce, () => ({ error: 87 }), { times: 1 })
    await assert.rejects(p.send({ topic: TOPIC, partition: 0, value: 'bad' }), BrokerError)
    await p.abortTransaction()
    await p.transaction(async tx => { await tx.send({ topic: TOPIC, partition: 0, value: 'b' }) })
    const attempts = cluster.produceAttempts(TOPIC, 0)
    const last = attempts.at(-1)!
    assert.equal(last.producerEpoch, attempts[0].producerEpoch + 1)
    assert.equal(last.baseSequence, 0)
    assert.deepEqual(visible(0), ['b'])
  })
})

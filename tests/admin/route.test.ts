// Where admin requests go and what is retried, against the fake broker (deterministic
// NOT_CONTROLLER, NOT_COORDINATOR and leader moves): each refusal is retried at the
// right broker within the call's timeout, and what keeps being refused fails with
// Kafka's error once the timeout is spent.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../index'
import { CreateTopics } from '../../protocol/apis/create-topics'
import { DescribeConfigs } from '../../protocol/apis/describe-configs'
import { FindCoordinator } from '../../protocol/apis/find-coordinator'
import { ListOffsets } from '../../protocol/apis/list-offsets'
import { OffsetCommit } from '../../protocol/apis/offset-commit'
import { OffsetFetch } from '../../protocol/apis/offset-fetch'
import { AbortedError, ConnectionError } from '../../client/errors'
import { BrokerError } from '../../protocol/errors'
import { FakeClock, FakeCluster, withClock } from '../../testing/index'
import { WatchedClock } from '../support/clock'
import { waitFor } from '../support/wait'
import { closedPort } from '../support/ports'
import { MIN_ATTEMPT_MS, Misrouted, Router } from '../../admin/route'

/** How far `clockTimeWhenSettled` moves the clock at a time. */
const CLOCK_STEP_MS = 10

/**
 * Moves `clock` in steps of CLOCK_STEP_MS until `call` settles (it must reject as `expected`
 * says), and returns the clock's time when it did: how long the call took on the clock its
 * deadline and backoffs are timed on, whatever the machine's load.
 */
async function clockTimeWhenSettled (clock: FakeClock, call: Promise<unknown>, expected: (error: unknown) => boolean): Promise<number> {
  let settledAt: number | undefined
  const outcome = call.finally(() => { settledAt = clock.now() })
  outcome.catch(() => {})
  for (let moved = 0; settledAt === undefined && moved < 60_000; moved += CLOCK_STEP_MS) await clock.advance(CLOCK_STEP_MS)
  await assert.rejects(outcome, expected)
  return settledAt!
}

async function withCluster (body: (cluster: FakeCluster, client: Client) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 3, log: false })
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'admin-route-test', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  try {
    await body(cluster, client)
  } finally {
    await client.close()
    await cluster.close()
  }
}

describe('admin routing and retries', () => {
  test('a request for a named broker as a client\'s first call finds that broker in the metadata first', async () => {
    await withCluster(async (cluster, client) => {
      // A broker's own configs are asked of that broker; a fresh client knows only its bootstrap addresses.
      const [described] = await client.admin.describeConfigs([{ type: 'broker', name: '2' }], { timeoutMs: 3000 })
      assert.equal(described.error, undefined)
      assert.equal(described.configs.get('num.partitions')?.value, '1')
      assert.deepEqual(cluster.requests(DescribeConfigs).map(r => r.brokerId), [2])
    })
  })

  test('NOT_CONTROLLER: createTopics refreshes the metadata and asks again', async () => {
    await withCluster(async (cluster, client) => {
      cluster.intercept(CreateTopics, () => ({ error: 41 }), { times: 1 })
      assert.deepEqual((await client.admin.createTopics([{ topic: 'routed', numPartitions: 2 }])).map(r => [r.topic, r.error]), [['routed', undefined]])
      assert.equal(cluster.requests(CreateTopics).length, 2)
      assert.equal(cluster.partitionInfo('routed', 1).leader >= 1, true)
    })
  })

  test('NOT_COORDINATOR: fetchOffsets and alterGroupOffsets find the coordinator again and go to it', async () => {
    await withCluster(async (cluster, client) => {
      cluster.createTopic({ name: 't', partitions: 2 })
      cluster.setCoordinator('g', 2)
      const refused: number[] = []
      cluster.intercept(OffsetCommit, request => { refused.push(request.brokerId); return { error: 16 } }, { times: 1 })
      const committed = await client.admin.alterGroupOffsets('g', [{ topic: 't', partition: 0, offset: 5n }, { topic: 't', partition: 1, offset: 7n }])
      assert.deepEqual(committed.map(c => c.error), [undefined, undefined])
      assert.equal(cluster.committedOffset('g', 't', 0)?.offset, 5n)
      // Every OffsetCommit went to broker 2, the second after a new FindCoordinator.
      assert.deepEqual(cluster.requests(OffsetCommit).map(r => r.brokerId), [2, 2])
      assert.equal(cluster.requests(FindCoordinator).length, 2)

      cluster.setCoordinator('g', 3)
      cluster.intercept(OffsetFetch, request => request.brokerId === 2 ? { error: 16 } : undefined)
      const [fetched] = await client.admin.fetchOffsets(['g'])
      assert.equal(fetched.error, undefined)
      assert.deepEqual(fetched.offsets.map(o => [o.partition, o.offset]).sort(), [[0, 5n], [1, 7n]])
      assert.equal(cluster.requests(OffsetFetch).at(-1)!.brokerId, 3)
    })
  })

  test('a coordinator that keeps refusing: the call fails with NOT_COORDINATOR once its timeout is spent, not before', async () => {
    await withCluster(async (cluster) => {
      cluster.intercept(OffsetFetch, () => ({ error: 16 }))
      // The client's clock moves only as the test steps it: the call's deadline and backoffs are on it.
      const clock = new FakeClock()
      const timed = new Client(withClock({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 }, clock))
      try {
        const started = clock.now()
        const settledAt = await clockTimeWhenSettled(clock, timed.admin.fetchOffsets(['g'], { timeoutMs: 600 }), (error: unknown) => error instanceof BrokerError && error.type === 'NOT_COORDINATOR')
        // Retried with backoff (5 ms doubling to 50 ms) until no attempt fits before the deadline.
        assert.ok(settledAt - started >= 450 && settledAt - started <= 600, `gave up ${settledAt - started} ms into its 600 ms`)
        assert.ok(cluster.requests(OffsetFetch).length >= 2)
      } finally {
        await timed.close()
      }
    })
  })

  test('a backoff that ends late (a busy event loop) starts no attempt that could only time out: the refusal is the answer', async () => {
    await withCluster(async (_cluster, client) => {
      const router = new Router(client)
      const deadline = Date.now() + 500
      const timeLeft: number[] = []
      const refusal = new BrokerError(16, 'OffsetFetch to broker 1')
      const outcome = router.retry(deadline, undefined, async () => {
        timeLeft.push(deadline - Date.now())
        // The event loop is busy until 1 ms before the deadline, so the backoff timer set after this refusal fires late.
        setImmediate(() => { while (Date.now() < deadline - 1); })
        throw new Misrouted(refusal)
      })
      await assert.rejects(outcome, (error: unknown) => error === refusal)
      // Before: a second attempt started with 1 ms left (its FindCoordinator timed out with RequestTimeoutError under load).
      assert.ok(timeLeft.every(ms => ms >= MIN_ATTEMPT_MS), `attempts started with ${timeLeft.join(', ')} ms left`)
    })
  })

  test('listTopics and describeTopics against brokers that cannot be reached end at their timeoutMs, naming the connection error', { timeout: 10_000 }, async () => {
    const port = await closedPort()
    const clock = new FakeClock()
    const client = new Client(withClock({ bootstrap: [`127.0.0.1:${port}`], retryBackoff: { initialMs: 10, maxMs: 50 } }, clock))
    try {
      for (const call of [async () => await client.admin.listTopics({ timeoutMs: 300 }), async () => await client.admin.describeTopics(['t'], { timeoutMs: 300 })]) {
        const started = clock.now()
        const settledAt = await clockTimeWhenSettled(clock, call(), (error: unknown) => {
          // Not "Aborted while waiting to retry: ... timeout" (nothing was aborted): what kept failing, as a ConnectionError.
          assert.ok(error instanceof ConnectionError, String(error))
          assert.match(error.message, new RegExp(`reached no broker within 300 ms \\(timeoutMs\\).*ECONNREFUSED 127\\.0\\.0\\.1:${port}`))
          assert.ok(error.cause instanceof ConnectionError)
          return true
        })
        // Ended at its timeoutMs on the client's clock (the step after it, at the latest).
        assert.ok(settledAt - started <= 300 + CLOCK_STEP_MS, `ended ${settledAt - started} ms into its 300 ms`)
      }
    } finally {
      await client.close()
    }
  })

  test('listOffsets with no broker reachable fails with the connection error, not an UNKNOWN_TOPIC_OR_PARTITION result', { timeout: 10_000 }, async () => {
    const port = await closedPort()
    const client = new Client({ bootstrap: [`127.0.0.1:${port}`], retryBackoff: { initialMs: 10, maxMs: 50 }, requestTimeoutMs: 300 })
    try {
      await assert.rejects(client.admin.listOffsets([{ topic: 't', partition: 0, spec: 'latest' }], { timeoutMs: 1000 }), (error: unknown) => {
        assert.ok(error instanceof ConnectionError, String(error))
        assert.match(error.message, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`))
        return true
      })
    } finally {
      await client.close()
    }
  })

  test('an abort while waiting to retry a refusal names the refusal\'s Kafka code and type', async () => {
    await withCluster(async (cluster) => {
      // The client's clock stands still: the 2–4 s backoff after the first refusal never runs out.
      const clock = new WatchedClock()
      const backoffClient = new Client(withClock({ bootstrap: cluster.bootstrap, retryBackoff: { initialMs: 4000, maxMs: 4000 }, requestTimeoutMs: 10_000 }, clock))
      const controller = new AbortController()
      try {
        let refusedAfter: number | undefined
        cluster.intercept(FindCoordinator, () => {
          refusedAfter ??= clock.started.length
          return { error: 15 }
        })
        const calling = backoffClient.admin.fetchOffsets(['g'], { signal: controller.signal })
        calling.catch(() => {})
        // The abort comes once the call waits out its backoff (a timer of 2–4 s; its deadline's is 10 s).
        await waitFor('the call waiting to retry the refusal', async () => {
          await clock.advance(0)
          return refusedAfter !== undefined && clock.timerStarted(2000, refusedAfter, { maxMs: 4000 })
        })
        controller.abort(new Error('the caller gave up'))
        await assert.rejects(calling, (error: unknown) => {
          assert.ok(error instanceof AbortedError, String(error))
          assert.match(error.message, /^Aborted while waiting to retry: the caller gave up; the last attempt had failed with BrokerError: .*COORDINATOR_NOT_AVAILABLE \(15\)/)
          assert.ok(error.lastError instanceof BrokerError && error.lastError.code === 15 && error.lastError.type === 'COORDINATOR_NOT_AVAILABLE')
          return true
        })
      } finally {
        await backoffClient.close()
      }
    })
  })

  test('a leader move: listOffsets refreshes the metadata and sends the refused partitions again, the rest once', async () => {
    await withCluster(async (cluster, client) => {
      cluster.createTopic({ name: 'moving', partitions: 3, assignments: [[1, 2], [2, 3], [3, 1]] })
      await client.metadata.refresh(['moving'])
      // The client's cached view says broker 1 leads partition 0; it moved to 2.
      cluster.moveLeader('moving', 0, 2)
      const offsets = await client.admin.listOffsets([0, 1, 2].map(partition => ({ topic: 'moving', partition, spec: 'latest' as const })))
      assert.deepEqual(offsets.map(o => [o.partition, o.offset, o.error]), [[0, 0n, undefined], [1, 0n, undefined], [2, 0n, undefined]])
      const asked = cluster.requests(ListOffsets).map(r => ({ broker: r.brokerId, partitions: (r.request as { topics: Array<{ partitions: Array<{ partitionIndex: number }> }> }).topics.flatMap(t => t.partitions.map(p => p.partitionIndex)) }))
      assert.deepEqual(asked.filter(a => a.partitions.includes(0)).map(a => a.broker), [1, 2], 'partition 0: the old leader refused, the new one answered')
      assert.equal(asked.filter(a => a.partitions.includes(1)).length, 1)
      assert.equal(asked.filter(a => a.partitions.includes(2)).length, 1)
    })
  })
})

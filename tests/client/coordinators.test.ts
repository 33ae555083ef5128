// The client's coordinator cache (client/coordinators.ts) against the fake cluster: one
// FindCoordinator for concurrent lookups of a key, the cached answer reused until
// invalidated, several keys in one request from v4 and one per key below it, retriable
// answers retried, other answers thrown with their code, and a lookup that a signal or a
// deadline ends naming the last failure.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { ApiVersions, type ApiVersionsResponse } from '../../protocol/apis/api-versions'
import { FindCoordinator } from '../../protocol/apis/find-coordinator'
import { AbortedError } from '../../client/errors'
import { BrokerError } from '../../protocol/errors'
import { ErrorCode } from '../../protocol/error-codes'
import { FakeClock, withClock, type FakeCluster } from '../../testing/index'
import { waitFor } from '../support/wait'
import { moveThroughBackoffs } from '../support/clock'
import { fast, fixtures } from './fake-support'
import { internal } from '../../client/internal'

const { cluster: startCluster, client } = fixtures()

/** A cluster of three brokers whose FindCoordinator requests are counted (and their keys kept). */
async function counted (): Promise<{ cluster: FakeCluster, asked: string[][] }> {
  const cluster = await startCluster({ brokers: 3 })
  const asked: string[][] = []
  cluster.intercept(FindCoordinator, r => {
    asked.push(r.version >= 4 ? r.request.coordinatorKeys ?? [] : [r.request.key ?? ''])
    return undefined
  })
  return { cluster, asked }
}

/** Holds the next FindCoordinator at the broker until the returned function is called. */
function holdNextLookup (cluster: FakeCluster): () => void {
  let release!: () => void
  const held = new Promise<void>(resolve => { release = resolve })
  cluster.intercept(FindCoordinator, () => ({ hold: held }), { times: 1 })
  return release
}

describe('client.coordinators', () => {
  test('concurrent lookups of one key send one FindCoordinator and all get its answer', async () => {
    const { cluster, asked } = await counted()
    cluster.setCoordinator('g', 2)
    const k = client({ bootstrap: cluster.bootstrap, ...fast })
    // The first request is held until every lookup has started, so they overlap for certain.
    const release = holdNextLookup(cluster)
    const lookups = Array.from({ length: 5 }, async () => await k[internal].coordinators.lookup('group', 'g'))
    await waitFor('the first FindCoordinator to reach the broker', () => asked.length >= 1)
    release()
    assert.deepEqual(await Promise.all(lookups), [2, 2, 2, 2, 2])
    assert.deepEqual(asked, [['g']])
  })

  test('a cached coordinator is reused; invalidate makes the next lookup ask again, unless it names another node', async () => {
    const { cluster, asked } = await counted()
    cluster.setCoordinator('g', 2)
    const k = client({ bootstrap: cluster.bootstrap, ...fast })
    assert.equal(await k[internal].coordinators.lookup('group', 'g'), 2)
    assert.equal(await k[internal].coordinators.lookup('group', 'g'), 2)
    assert.equal(asked.length, 1, 'the second lookup used the cache')
    // A group and a transactional id of the same name are different keys.
    cluster.setTransactionCoordinator('g', 3)
    assert.equal(await k[internal].coordinators.lookup('transaction', 'g'), 3)
    assert.equal(asked.length, 2)

    // A caller that used node 1 (not the cached 2) forgets nothing: someone already found the new one.
    k[internal].coordinators.invalidate('group', 'g', 1)
    assert.equal(await k[internal].coordinators.lookup('group', 'g'), 2)
    assert.equal(asked.length, 2)

    cluster.setCoordinator('g', 3)
    k[internal].coordinators.invalidate('group', 'g', 2)
    assert.equal(await k[internal].coordinators.lookup('group', 'g'), 3)
    assert.equal(asked.length, 3)
    assert.equal(await k[internal].coordinators.lookup('transaction', 'g'), 3, 'the transaction key stayed cached')
    assert.equal(asked.length, 3)
  })

  test('several keys: one request from v4 (only the unknown ones), one request per key below v4', async () => {
    const { cluster, asked } = await counted()
    cluster.setCoordinator('a', 1)
    cluster.setCoordinator('b', 2)
    cluster.setCoordinator('c', 3)
    const k = client({ bootstrap: cluster.bootstrap, ...fast })
    assert.equal(await k[internal].coordinators.lookup('group', 'a'), 1)
    const found = await k[internal].coordinators.lookupMany('group', ['a', 'b', 'c'])
    assert.deepEqual([...found].sort(), [['a', 1], ['b', 2], ['c', 3]])
    assert.deepEqual(asked, [['a'], ['b', 'c']])

    // A broker that speaks FindCoordinator v3 at most (before KIP-699): one key per request.
    const old = await counted()
    old.cluster.intercept(ApiVersions, () => ({
      modify: (response: ApiVersionsResponse) => ({ ...response, apiKeys: response.apiKeys.map(key => key.apiKey === FindCoordinator.key ? { ...key, maxVersion: 3 } : key) })
    }))
    old.cluster.setCoordinator('a', 1)
    old.cluster.setCoordinator('b', 2)
    old.cluster.setCoordinator('c', 3)
    const k3 = client({ bootstrap: old.cluster.bootstrap, ...fast })
    const found3 = await k3[internal].coordinators.lookupMany('group', ['a', 'b', 'c'])
    assert.deepEqual([...found3].sort(), [['a', 1], ['b', 2], ['c', 3]])
    assert.deepEqual(old.asked.map(keys => keys.join()).sort(), ['a', 'b', 'c'])
  })

  test('retriable answers (COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR) are retried until the coordinator is found', async () => {
    const { cluster, asked } = await counted()
    cluster.setCoordinator('g', 3)
    const refusals = [ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR]
    cluster.intercept(FindCoordinator, () => ({ error: refusals.shift()! }), { times: 3 })
    const k = client({ bootstrap: cluster.bootstrap, ...fast })
    assert.equal(await k[internal].coordinators.lookup('group', 'g', { signal: AbortSignal.timeout(30_000) }), 3)
    assert.equal(asked.length, 4)
  })

  test('a refusal that no retry changes is thrown at once as a BrokerError with its code and name', async () => {
    const { cluster, asked } = await counted()
    cluster.intercept(FindCoordinator, () => ({ error: ErrorCode.GROUP_AUTHORIZATION_FAILED }), { times: 1 })
    const k = client({ bootstrap: cluster.bootstrap, ...fast })
    await assert.rejects(k[internal].coordinators.lookup('group', 'secret', { signal: AbortSignal.timeout(30_000) }), (error: unknown) => {
      assert.ok(error instanceof BrokerError, String(error))
      assert.deepEqual([error.code, error.type], [ErrorCode.GROUP_AUTHORIZATION_FAILED, 'GROUP_AUTHORIZATION_FAILED'])
      assert.match(error.message, /^Finding the group coordinator of "secret": GROUP_AUTHORIZATION_FAILED \(30\)/)
      return true
    })
    assert.equal(asked.length, 1)
    // Nothing was cached: the next lookup asks (and succeeds).
    assert.equal(await k[internal].coordinators.lookup('group', 'secret'), cluster.coordinatorOf('secret'))
    assert.equal(asked.length, 2)
  })

  test('a lookup ends at its signal or its deadline with the last failure, never retrying for ever', async () => {
    const { cluster, asked } = await counted()
    cluster.intercept(FindCoordinator, () => ({ error: ErrorCode.COORDINATOR_NOT_AVAILABLE }))
    const clock = new FakeClock()
    const k = client(withClock({ bootstrap: cluster.bootstrap, ...fast }, clock))
    // The signal aborts once two refusals were answered (a failure exists to name), not at a
    // time that could fall in the first request. The backoffs wait on the client's clock.
    const controller = new AbortController()
    const bySignal = k[internal].coordinators.lookup('transaction', 'tx', { signal: controller.signal })
    await moveThroughBackoffs(clock, bySignal, () => asked.length >= 2)
    controller.abort(new Error('the caller gave up'))
    await assert.rejects(bySignal, (error: unknown) => {
      assert.ok(error instanceof AbortedError, String(error))
      assert.match(error.message, /the last attempt had failed with BrokerError: .*COORDINATOR_NOT_AVAILABLE \(15\)/)
      assert.ok(error.lastError instanceof BrokerError && error.lastError.code === ErrorCode.COORDINATOR_NOT_AVAILABLE)
      return true
    })
    assert.ok(asked.length >= 2, `asked ${asked.length} times`)
    // A deadline: the refusal itself is the answer, at the deadline on the client's clock, after retries.
    const before = asked.length
    const started = clock.now()
    const byDeadline = k[internal].coordinators.lookup('transaction', 'tx', { deadline: started + 400 })
    await moveThroughBackoffs(clock, byDeadline, () => false)
    await assert.rejects(byDeadline, (error: unknown) => error instanceof BrokerError && error.type === 'COORDINATOR_NOT_AVAILABLE')
    assert.ok(asked.length - before >= 2, `asked ${asked.length - before} times before the deadline`)
    assert.ok(clock.now() - started <= 400, `ended at ${clock.now() - started} ms on the client's clock, after its deadline`)
  })

  test('one cache per client: admin calls use the coordinator another caller found, and the one they find after a move', async () => {
    const { cluster, asked } = await counted()
    cluster.setCoordinator('g', 2)
    const k = client({ bootstrap: cluster.bootstrap, ...fast })
    assert.equal(await k[internal].coordinators.lookup('group', 'g'), 2)
    assert.equal((await k.admin.fetchOffsets(['g']))[0].error, undefined)
    assert.equal(asked.length, 1, 'the admin call asked no FindCoordinator of its own')
    // The coordinator moves: broker 2 answers NOT_COORDINATOR, the admin call finds broker 3, and so does everyone after it.
    cluster.setCoordinator('g', 3)
    assert.equal((await k.admin.fetchOffsets(['g']))[0].error, undefined)
    assert.equal(asked.length, 2)
    assert.equal(await k[internal].coordinators.lookup('group', 'g'), 3)
    assert.equal(asked.length, 2)
  })

  test('a caller that gives up does not fail the others waiting for the same request', async () => {
    const { cluster, asked } = await counted()
    cluster.setCoordinator('g', 2)
    const k = client({ bootstrap: cluster.bootstrap, ...fast })
    const release = holdNextLookup(cluster)
    const controller = new AbortController()
    const first = k[internal].coordinators.lookup('group', 'g', { signal: controller.signal })
    const second = k[internal].coordinators.lookup('group', 'g')
    await waitFor('the FindCoordinator to reach the broker', () => asked.length >= 1)
    controller.abort(new Error('the first caller gave up'))
    await assert.rejects(first, (error: unknown) => error instanceof AbortedError && /the first caller gave up/.test(error.message))
    release()
    assert.equal(await second, 2)
    assert.equal(asked.length, 1)
  })
})

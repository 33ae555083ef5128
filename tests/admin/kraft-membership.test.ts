// unregisterBroker, unregisterController, addRaftVoter and removeRaftVoter against the fake
// cluster: the request each sends, Kafka's refusals as typed BrokerErrors, and bad input
// refused before anything is sent. (tests/integration/admin-kraft.test.ts: the same against
// a real 4.4 broker.)
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { BrokerError, Client } from '../../index'
import { FakeCluster } from '../../testing/index'
import { AddRaftVoter } from '../../protocol/apis/add-raft-voter'
import { RemoveRaftVoter } from '../../protocol/apis/remove-raft-voter'
import { UnregisterBroker } from '../../protocol/apis/unregister-broker'
import { ErrorCode } from '../../protocol/error-codes'

async function withCluster (body: (cluster: FakeCluster, client: Client) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 2, log: false })
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'kraft-membership-test', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  try {
    await body(cluster, client)
  } finally {
    await client.close()
    await cluster.close()
  }
}

const DIRECTORY = '0123456789abcdef0123456789abcdef'
const isBrokerError = (code: number, text: RegExp) => (error: unknown): boolean => error instanceof BrokerError && error.code === code && text.test(error.message)

describe('KRaft membership calls', () => {
  test('unregisterBroker: a registered broker goes; an unknown id is BROKER_ID_NOT_REGISTERED', async () => {
    await withCluster(async (cluster, client) => {
      await client.admin.unregisterBroker(2)
      assert.deepEqual(cluster.requests(UnregisterBroker).map(r => r.request.brokerId), [2])
      await assert.rejects(client.admin.unregisterBroker(999), isBrokerError(ErrorCode.BROKER_ID_NOT_REGISTERED, /Unregistering broker 999: BROKER_ID_NOT_REGISTERED/))
      await assert.rejects(client.admin.unregisterController(7), isBrokerError(ErrorCode.CONTROLLER_ID_NOT_REGISTERED, /Unregistering controller 7/))
    })
  })

  test('addRaftVoter and removeRaftVoter send the voter, its directory and listeners; the quorum\'s refusal is the error', async () => {
    await withCluster(async (cluster, client) => {
      await assert.rejects(client.admin.addRaftVoter(3, DIRECTORY, [{ name: 'CONTROLLER', host: 'c3.example', port: 9093 }], { timeoutMs: 4000 }),
        isBrokerError(ErrorCode.UNSUPPORTED_VERSION, /Adding voter 3 to the KRaft quorum: .*kraft\.version feature is 0/))
      const [added] = cluster.requests(AddRaftVoter)
      assert.equal(added.version, 1)
      assert.deepEqual({ ...added.request, timeoutMs: added.request.timeoutMs > 0 && added.request.timeoutMs <= 4000 }, {
        clusterId: null, timeoutMs: true, voterId: 3, voterDirectoryId: '01234567-89ab-cdef-0123-456789abcdef', listeners: [{ name: 'CONTROLLER', host: 'c3.example', port: 9093 }], ackWhenCommitted: true
      })
      await assert.rejects(client.admin.removeRaftVoter(1, DIRECTORY, { clusterId: 'not-this-one' }), isBrokerError(ErrorCode.INCONSISTENT_CLUSTER_ID, /Removing voter 1/))
      assert.deepEqual(cluster.requests(RemoveRaftVoter).map(r => r.request), [{ clusterId: 'not-this-one', voterId: 1, voterDirectoryId: '01234567-89ab-cdef-0123-456789abcdef' }])
      // A static voter's directory id is all zeros, which Kafka does not take as a voter.
      await assert.rejects(client.admin.removeRaftVoter(1, '00000000-0000-0000-0000-000000000000'), isBrokerError(ErrorCode.INVALID_REQUEST, /didn't include a valid voter/))
    })
  })

  test('bad input is a TypeError or RangeError naming the field, and nothing is sent', async () => {
    await withCluster(async (cluster, client) => {
      await assert.rejects(client.admin.unregisterBroker(-1), (error: unknown) => error instanceof RangeError && /brokerId/.test(error.message))
      await assert.rejects(client.admin.addRaftVoter(1, 'not-a-uuid', [{ name: 'C', host: 'h', port: 1 }]), (error: unknown) => error instanceof TypeError && /voterDirectoryId/.test(error.message) && /not-a-uuid/.test(error.message))
      await assert.rejects(client.admin.addRaftVoter(1, DIRECTORY, []), (error: unknown) => error instanceof TypeError && /endpoints must be a non-empty array/.test(error.message))
      await assert.rejects(client.admin.addRaftVoter(1, DIRECTORY, [{ name: 'C', host: 'h', port: 70000 }]), (error: unknown) => error instanceof RangeError && /endpoints\[0\]\.port/.test(error.message))
      await assert.rejects(client.admin.removeRaftVoter(1, DIRECTORY, { clusterid: 'x' } as never), (error: unknown) => error instanceof TypeError && /clusterid/.test(error.message))
      assert.equal(cluster.requests(AddRaftVoter).length + cluster.requests(RemoveRaftVoter).length + cluster.requests(UnregisterBroker).length, 0)
    })
  })
})

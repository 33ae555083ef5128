// Admin calls on many items answer per item (kadm's shape): a call where some items fail and
// others succeed resolves with every item, the failed ones carrying a BrokerError with
// Kafka's code and name, and the others done; throwFirstError makes such an answer
// all-or-nothing. Against the fake broker's refusals (TOPIC_ALREADY_EXISTS, an unknown topic);
// deleteTopics, createPartitions and alterConfigs (APIs the fake does not implement) are
// covered against a real broker in tests/integration/admin.test.ts.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { BrokerError, Client, firstError, throwFirstError } from '../../index'
import { FakeCluster } from '../../testing/index'

async function withCluster (body: (cluster: FakeCluster, client: Client) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false, topics: [{ name: 'orders', partitions: 1 }] })
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'admin-per-item-test', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
  try {
    await body(cluster, client)
  } finally {
    await client.close()
    await cluster.close()
  }
}

const codes = (results: Array<{ error?: BrokerError }>): Array<number | undefined> => results.map(r => r.error?.code)

describe('admin calls answer per item', () => {
  test('createTopics: a topic that exists is that item\'s TOPIC_ALREADY_EXISTS, the other is created; throwFirstError throws it', async () => {
    await withCluster(async (cluster, client) => {
      const results = await client.admin.createTopics([{ topic: 'orders', numPartitions: 1 }, { topic: 'fresh', numPartitions: 2 }])
      assert.deepEqual(results.map(r => r.topic), ['orders', 'fresh'])
      assert.deepEqual(codes(results), [36, undefined])
      assert.ok(results[0].error instanceof BrokerError)
      assert.equal(results[0].error.type, 'TOPIC_ALREADY_EXISTS')
      // The one created was created, and waited for: its leaders are in the client's metadata.
      assert.equal(cluster.partitionInfo('fresh', 1).leader, 1)
      assert.equal(client.metadata.topic('fresh')?.partitions.length, 2)

      assert.equal(firstError(results), results[0].error)
      assert.throws(() => throwFirstError(results), (error: unknown) => error === results[0].error && error instanceof BrokerError && error.code === 36)

      // ignoreExisting: the topic that is there is no error, and says so.
      const again = await client.admin.createTopics([{ topic: 'orders' }, { topic: 'fresh' }], { ignoreExisting: true })
      assert.deepEqual(again.map(r => [r.topic, r.existed, r.error]), [['orders', true, undefined], ['fresh', true, undefined]])
      assert.equal(throwFirstError(again), again)
      assert.equal(firstError(again), undefined)
    })
  })

  test('describeTopics and describeConfigs: an unknown topic is that item\'s UNKNOWN_TOPIC_OR_PARTITION; the known one is described', async () => {
    await withCluster(async (_cluster, client) => {
      const topics = await client.admin.describeTopics(['orders', 'missing'], { timeoutMs: 2000 })
      assert.deepEqual(topics.map(t => [t.name, t.partitions.length, t.error?.code]), [['orders', 1, undefined], ['missing', 0, 3]])

      const configs = await client.admin.describeConfigs([{ type: 'topic', name: 'orders' }, { type: 'topic', name: 'missing' }])
      assert.deepEqual(configs.map(c => [c.type, c.name, c.error?.code]), [['topic', 'orders', undefined], ['topic', 'missing', 3]])
      assert.equal(configs[0].configs.get('max.message.bytes')?.value, '1048588')
      assert.equal(configs[1].configs.size, 0)

      // The one-resource form (deprecated) still answers a Map, and throws its item's error.
      assert.equal((await client.admin.describeConfigs({ type: 'topic', name: 'orders' })).get('max.message.bytes')?.value, '1048588')
      await assert.rejects(client.admin.describeConfigs({ type: 'topic', name: 'missing' }), (error: unknown) => error instanceof BrokerError && error.code === 3)
    })
  })
})

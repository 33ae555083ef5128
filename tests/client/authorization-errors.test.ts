// What an ACL refusal looks like to the user, on the fake cluster: the broker's own code
// (TOPIC_AUTHORIZATION_FAILED for a topic the principal may not describe, never
// UNKNOWN_TOPIC_OR_PARTITION), answered at once instead of retried until the deadline; the
// idempotent producer's missing ACL named with the broker's code; and broker text without
// Kafka's internal request dump or a doubled period.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BrokerError, Client, ProducerIdentityError } from '../../index'
import { InitProducerId } from '../../protocol/apis/init-producer-id'
import { Metadata, type MetadataResponse } from '../../protocol/apis/metadata'
import { FakeCluster } from '../../testing/index'

async function withCluster (body: (cluster: FakeCluster, client: Client) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ brokers: 1, log: false })
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'authz-test', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 30_000 })
  try {
    await body(cluster, client)
  } finally {
    await client.close()
    await cluster.close()
  }
}

test('a topic Metadata refuses with TOPIC_AUTHORIZATION_FAILED is that error at once in describeTopics and listOffsets, not UNKNOWN_TOPIC_OR_PARTITION after retrying', async () => {
  await withCluster(async (cluster, client) => {
    await client.admin.createTopics([{ topic: 'hidden', numPartitions: 1 }])
    // As a broker answers a principal without DESCRIBE on the topic.
    cluster.intercept(Metadata, () => ({ modify: (response: MetadataResponse) => ({ ...response, topics: response.topics.map(t => t.name === 'hidden' ? { ...t, errorCode: 29, partitions: [] } : t) }) }))
    const isDenied = (error: unknown): boolean => error instanceof BrokerError && error.code === 29 && error.type === 'TOPIC_AUTHORIZATION_FAILED'
    let started = Date.now()
    const [described] = await client.admin.describeTopics(['hidden'], { timeoutMs: 30_000 })
    assert.ok(isDenied(described.error), `describeTopics answered ${String(described.error)}`)
    assert.deepEqual(described.partitions, [])
    assert.ok(Date.now() - started < 5000, `describeTopics took ${Date.now() - started} ms`)
    started = Date.now()
    const [listed] = await client.admin.listOffsets([{ topic: 'hidden', partition: 0, spec: 'latest' }], { timeoutMs: 30_000 })
    assert.ok(isDenied(listed.error), `listOffsets answered ${String(listed.error)}`)
    assert.ok(Date.now() - started < 5000, `listOffsets took ${Date.now() - started} ms, as if it retried`)
  })
})

test('InitProducerId refused with CLUSTER_AUTHORIZATION_FAILED: the send fails with a ProducerIdentityError carrying code 31 and naming the ACL to grant', async () => {
  await withCluster(async (cluster, client) => {
    await client.admin.createTopics([{ topic: 't', numPartitions: 1 }])
    cluster.intercept(InitProducerId, () => ({ error: 31 }))
    const producer = client.producer({ deliveryTimeoutMs: 30_000 })
    await assert.rejects(producer.send({ topic: 't', value: 'x' }), (error: unknown) => {
      assert.ok(error instanceof ProducerIdentityError, String(error))
      assert.equal(error.kind, 'PRODUCER_IDENTITY')
      assert.equal(error.code, 31)
      assert.equal(error.type, 'CLUSTER_AUTHORIZATION_FAILED')
      assert.match(error.message, /WRITE on the topic .* or IDEMPOTENT_WRITE on the cluster/)
      assert.doesNotMatch(error.message, /later sends try again|\.\./)
      return true
    })
    await producer.close({ force: true })
  })
})

test('broker text keeps what helps: no dump of Kafka\'s request object, no doubled period', () => {
  const dump = 'Request Request(processor=0, connectionId=127.0.0.1:9092-127.0.0.1:50000-3, session=Session(User:grace,/127.0.0.1), listenerName=ListenerName(SASL_PLAINTEXT), securityProtocol=SASL_PLAINTEXT, buffer=null, envelope=None) is not authorized.'
  const error = new BrokerError(31, 'InitProducerId', dump)
  assert.equal(error.message, 'InitProducerId: CLUSTER_AUTHORIZATION_FAILED (31): Cluster authorization failed. Broker said: The request is not authorized.')
  const withSession = new BrokerError(31, 'Describing the cluster', 'Request(processor=1, session=org.apache.kafka.network.Session@1a2b3c) failed.')
  assert.doesNotMatch(withSession.message, /processor=|Session@|\.\./)
})

// Testing an application with kafkats/testing: an in-process fake Kafka cluster on loopback
// ports (no broker, no Java), with interception to inject the failures real clusters have.
// This one answers a Produce REQUEST_TIMED_OUT after writing it, and checks that the retry
// did not write the record twice. Runs under node:test:
//
//   node --test dist/examples/testing.mjs
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, apis, errorCode } from 'kafkats'
import { FakeCluster } from 'kafkats/testing'

test('a produce the broker wrote but answered with a timeout is not duplicated', async () => {
  const cluster = await FakeCluster.start({ brokers: 3, topics: [{ name: 'orders', partitions: 3 }] })
  const client = new Client({ bootstrap: cluster.bootstrap })
  try {
    // Written, then answered REQUEST_TIMED_OUT, once: the producer must retry without duplicating.
    cluster.intercept(apis.Produce, () => ({ error: errorCode('REQUEST_TIMED_OUT'), apply: true }), { times: 1 })
    const producer = client.producer()
    await producer.send({ topic: 'orders', partition: 0, value: 'a' })
    assert.deepEqual(cluster.log('orders', 0).map(record => record.value?.toString()), ['a'])
  } finally {
    await client.close()
    await cluster.close()
  }
})

// Typed keys and values: the producer's serializers and the consumer's deserializers against
// the fake cluster (what is in the log, what the application gets, order with asynchronous
// serializers, failures), and their types: the `@ts-expect-error` lines below fail the build
// when the types let a wrong value through.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, SerializationError, deserializers, serializers, type ConsumerBatch, type Deserializer, type Producer, type Serializer } from '../../index'
import { FakeCluster } from '../../testing/index'

interface Order { id: number, item: string }

const fast = { retryBackoff: { initialMs: 10, maxMs: 50 } }

async function withCluster (partitions: number, run: (cluster: FakeCluster, client: Client) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start({ topics: [{ name: 'orders', partitions }] })
  const client = new Client({ bootstrap: cluster.bootstrap, ...fast })
  try {
    await run(cluster, client)
    assert.deepEqual(cluster.problems, [])
  } finally {
    await client.close()
    await cluster.close()
  }
}

const logOf = (cluster: FakeCluster, partition = 0): Array<[string | undefined, string | undefined]> =>
  cluster.log('orders', partition).map(r => [r.key?.toString(), r.value?.toString()])

describe('serializers', { timeout: 30_000 }, () => {
  test('string keys and JSON values are written as bytes; null keys and tombstones are not serialized', async () => {
    await withCluster(1, async (cluster, client) => {
      const producer = client.producer({ serializers: { key: serializers.string(), value: serializers.json<Order>() } })
      await producer.send({ topic: 'orders', key: 'o-1', value: { id: 1, item: 'tea' } })
      await producer.send([{ topic: 'orders', value: { id: 2, item: 'cake' } }, { topic: 'orders', key: 'o-1', value: null }])
      await producer.close()
      assert.deepEqual(logOf(cluster), [['o-1', '{"id":1,"item":"tea"}'], [undefined, '{"id":2,"item":"cake"}'], ['o-1', undefined]])
    })
  })

  test('a synchronous serializer buffers the records before send() returns, as without one', async () => {
    await withCluster(1, async (_cluster, client) => {
      const producer = client.producer({ lingerMs: 1000, serializers: { value: serializers.json<Order>() } })
      const sent = producer.send({ topic: 'orders', partition: 0, value: { id: 1, item: 'tea' } })
      assert.equal(producer.buffered.records, 1)
      await producer.flush()
      await sent
      await producer.close()
    })
  })

  test('asynchronous serializers (a registry lookup) keep the order of the records of one send()', async () => {
    await withCluster(1, async (cluster, client) => {
      const calls: string[] = []
      // Later records answer first: the log must still follow the call's order.
      const registry: Serializer<Order> = {
        serialize: async (topic, order) => {
          calls.push(`${topic}:${order.id}`)
          await new Promise(resolve => setTimeout(resolve, 30 - order.id * 10))
          return Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from(JSON.stringify(order))])
        }
      }
      const producer = client.producer({ serializers: { value: registry } })
      const results = await producer.send([1, 2, 3].map(id => ({ topic: 'orders', partition: 0, value: { id, item: `i${id}` } })))
      await producer.close()
      assert.deepEqual(results.map(r => r.offset), [0n, 1n, 2n])
      assert.deepEqual(calls, ['orders:1', 'orders:2', 'orders:3'])
      assert.deepEqual(cluster.log('orders', 0).map(r => JSON.parse(r.value!.subarray(5).toString()).id), [1, 2, 3])
      assert.deepEqual([...cluster.log('orders', 0)[0].value!.subarray(0, 5)], [0, 0, 0, 0, 7])
    })
  })

  test('a failing serializer refuses the whole send() with SerializationError; nothing is written', async () => {
    await withCluster(1, async (cluster, client) => {
      const picky: Serializer<Order> = { serialize: (_topic, order) => { if (order.id === 2) throw new Error('no schema for id 2'); return JSON.stringify(order) } }
      const producer = client.producer({ serializers: { value: picky } })
      await assert.rejects(producer.send([{ topic: 'orders', value: { id: 1, item: 'a' } }, { topic: 'orders', value: { id: 2, item: 'b' } }]), (error: unknown) => {
        assert.ok(error instanceof SerializationError)
        assert.equal(error.name, 'SerializationError')
        assert.equal(error.topic, 'orders')
        assert.equal(error.part, 'value')
        assert.match(error.message, /value serializer failed .* topic orders: no schema for id 2/)
        return true
      })
      const rejecting: Serializer<string> = { serialize: async () => { throw new Error('registry down') } }
      const asyncProducer = client.producer({ serializers: { key: rejecting } })
      await assert.rejects(asyncProducer.send({ topic: 'orders', key: 'k', value: 'v' }), /key serializer failed .*registry down/)
      // produce() has no promise to wait on: asynchronous serializers are refused there.
      assert.throws(() => asyncProducer.produce({ topic: 'orders', key: 'k', value: 'v' }, () => {}), /produce\(\) takes synchronous serializers only/)
      await producer.close()
      await asyncProducer.close()
      assert.deepEqual(cluster.log('orders', 0), [])
    })
  })

  test('produce() uses synchronous serializers too', async () => {
    await withCluster(1, async (cluster, client) => {
      const producer = client.producer({ serializers: { value: serializers.json<Order>() } })
      const done = new Promise<bigint>((resolve, reject) => producer.produce({ topic: 'orders', value: { id: 9, item: 'x' } }, (error, result) => error !== null ? reject(error) : resolve(result!.offset)))
      assert.equal(await done, 0n)
      await producer.close()
      assert.deepEqual(logOf(cluster), [[undefined, '{"id":9,"item":"x"}']])
    })
  })

  test('options are checked where they are given', async () => {
    await withCluster(1, async (_cluster, client) => {
      assert.throws(() => client.producer({ serializers: { value: 'json' as never } }), /producer option serializers.value: expected an object with a serialize\(topic, data\) method/)
      assert.throws(() => client.producer({ serializers: { values: serializers.json() } as never }), /values/)
      assert.throws(() => client.consumer({ assign: [{ topic: 'orders', partition: 0, offset: 0n }], deserializers: { key: JSON.parse as never } }), /consumer option deserializers.key: expected an object with a deserialize/)
      assert.throws(() => client.consumer({ groupId: 'g', topics: ['orders'], deserializers: [] as never }), /deserializers/)
    })
  })
})

describe('deserializers', { timeout: 30_000 }, () => {
  test('a group member gets typed keys and values; null stays null', async () => {
    await withCluster(2, async (_cluster, client) => {
      const producer = client.producer({ serializers: { key: serializers.string(), value: serializers.json<Order>() } })
      await producer.send([{ topic: 'orders', key: 'a', value: { id: 1, item: 'tea' } }, { topic: 'orders', key: 'b', value: null }, { topic: 'orders', key: null, value: { id: 3, item: 'jam' } }])
      await producer.close()
      const consumer = client.consumer({ groupId: 'g', topics: ['orders'], fromBeginning: true, deserializers: { key: deserializers.string(), value: deserializers.json<Order>() } })
      const seen: Array<[string | null, Order | null]> = []
      await consumer.run({
        eachRecord: async record => {
          seen.push([record.key, record.value])
          if (seen.length === 3) void consumer.close()
        }
      })
      assert.deepEqual(seen.sort((x, y) => String(x[0]).localeCompare(String(y[0]))), [['a', { id: 1, item: 'tea' }], ['b', null], [null, { id: 3, item: 'jam' }]])
    })
  })

  test('asynchronous deserializers on a direct consumer; offsets, timestamps and headers are kept', async () => {
    await withCluster(1, async (_cluster, client) => {
      const producer = client.producer()
      await producer.send([1, 2, 3].map(id => ({ topic: 'orders', value: JSON.stringify({ id, item: 'x' }), headers: [{ key: 'h', value: `${id}` }], timestamp: 1000 + id })))
      await producer.close()
      const decoder: Deserializer<Order> = {
        deserialize: async (topic, data, headers) => {
          assert.equal(topic, 'orders')
          await new Promise(resolve => setTimeout(resolve, 5))
          return { ...JSON.parse(data.toString()), item: headers[0].value!.toString() }
        }
      }
      const consumer = client.consumer({ assign: [{ topic: 'orders', partition: 0, offset: 0n }], deserializers: { value: decoder } })
      const got: Array<[bigint, bigint, Order | null]> = []
      for await (const batch of consumer) {
        for (const record of batch.records) got.push([record.offset, record.timestamp, record.value])
        if (got.length === 3) break
      }
      assert.deepEqual(got, [[0n, 1001n, { id: 1, item: '1' }], [1n, 1002n, { id: 2, item: '2' }], [2n, 1003n, { id: 3, item: '3' }]])
    })
  })

  test('a failing deserializer ends the consumer with SerializationError naming the record; its batch is not committed', async () => {
    await withCluster(1, async (cluster, client) => {
      const producer = client.producer()
      await producer.send({ topic: 'orders', value: '{"id":1,"item":"ok"}' })
      await producer.flush()
      const consumer = client.consumer({ groupId: 'g-bad', topics: ['orders'], fromBeginning: true, deserializers: { value: deserializers.json<Order>() } })
      const ids: number[] = []
      const error = await (async () => {
        try {
          for await (const batch of consumer) {
            for (const record of batch.records) ids.push(record.value!.id)
            // After the first batch is processed, a record that is not JSON arrives.
            if (ids.length === 1) await producer.send({ topic: 'orders', value: 'not json' })
          }
        } catch (error) {
          return error
        }
      })()
      await producer.close()
      assert.deepEqual(ids, [1])
      assert.ok(error instanceof SerializationError, String(error))
      assert.equal(error.part, 'value')
      assert.equal(error.partition, 0)
      assert.equal(error.offset, 1n)
      assert.match(error.message, /value deserializer failed for orders partition 0 offset 1: .*seek past the record/)
      assert.ok(error.cause instanceof SyntaxError)
      await consumer.close()
      // Committed up to the good record, not past the bad one.
      assert.equal(cluster.committedOffset('g-bad', 'orders', 0)?.offset, 1n)
    })
  })
})

// Types only (never called): what the compiler must accept and refuse.
export function typeChecks (client: Client): void {
  const producer = client.producer({ serializers: { key: serializers.string(), value: serializers.json<Order>() } })
  const typed: Producer<string, Order> = producer
  void typed.send({ topic: 't', key: 'k', value: { id: 1, item: 'x' } })
  void typed.send({ topic: 't', value: null })
  // @ts-expect-error a value that is not an Order
  void typed.send({ topic: 't', value: { id: 'one', item: 'x' } })
  // @ts-expect-error bytes are not an Order once a value serializer is given
  void typed.send({ topic: 't', value: Buffer.from('x') })
  // @ts-expect-error the key serializer takes strings
  typed.produce({ topic: 't', key: 42, value: { id: 1, item: 'x' } }, () => {})
  void typed.transaction(async tx => {
    // @ts-expect-error the transaction scope's send is typed too
    await tx.send({ topic: 't', value: 'x' })
  })
  const explicit = client.producer<string, Order>({ serializers: { key: serializers.string(), value: serializers.json() } })
  void explicit.send({ topic: 't', key: 'k', value: { id: 1, item: 'x' } })
  // Without serializers: bytes and strings, as before.
  void client.producer().send({ topic: 't', key: Buffer.from('k'), value: 'v' })
  // @ts-expect-error an object needs a serializer
  void client.producer().send({ topic: 't', value: { id: 1 } })

  const consumer = client.consumer({ groupId: 'g', topics: ['t'], deserializers: { key: deserializers.string(), value: deserializers.json<Order>() } })
  void consumer.run({
    eachRecord: record => {
      const id: number | undefined = record.value?.id
      const key: string | null = record.key
      void id; void key
      // @ts-expect-error the value is an Order, not a Buffer
      void record.value?.subarray(0)
    }
  })
  void (async () => {
    for await (const batch of consumer) {
      const orders: Array<Order | null> = batch.records.map(r => r.value)
      void orders
    }
    const direct = client.consumer({ assign: [{ topic: 't', partition: 0, offset: 0n }], deserializers: { value: deserializers.string() } })
    const handed = await direct.nextBatch()
    const text: string | null | undefined = handed?.batch.records[0]?.value
    void text
    const raw: ConsumerBatch | undefined = (await client.consumer({ assign: [{ topic: 't', partition: 0, offset: 0n }] }).nextBatch())?.batch
    const bytes: Buffer | null | undefined = raw?.records[0]?.value
    void bytes
  })
}

// Tests of the fake broker itself, with kafkats's Client and Connection as the peer:
// topics, produce/fetch/list-offsets round trips, idempotent deduplication as Kafka does
// it, each interception action, leader moves, and robustness against bad bytes.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import * as net from 'node:net'
import { Client } from '../../index'
import { Connection } from '../../client/connection'
import { ConnectionError } from '../../client/errors'
import { ApiVersions } from '../../protocol/apis/api-versions'
import { CreateTopics } from '../../protocol/apis/create-topics'
import { Fetch } from '../../protocol/apis/fetch'
import { InitProducerId } from '../../protocol/apis/init-producer-id'
import { ListOffsets } from '../../protocol/apis/list-offsets'
import { Metadata } from '../../protocol/apis/metadata'
import { Produce, type ProduceRequest, type ProduceResponse } from '../../protocol/apis/produce'
import { allApis } from '../../protocol/apis/index'
import { BrokerError } from '../../protocol/errors'
import { encodeRequestFrame } from '../../protocol/header'
import type { AnyApi } from '../../protocol/api'
import type { Writer } from '../../protocol/writer'
import { Reader } from '../../protocol/reader'
import { encodeRecordBatch, type RecordInput } from '../../protocol/record-batch'
import { FakeCluster } from '../../testing/index'
import { addSequence } from '../../testing/partition-log'
import { ProducerStateTable } from '../../testing/producer-state'
import { outcomeWithin, waitFor } from '../support/wait'

const fastRetries = { initialMs: 5, maxMs: 50 }

async function withCluster (options: Parameters<typeof FakeCluster.start>[0], body: (cluster: FakeCluster, client: Client) => Promise<void>): Promise<void> {
  const cluster = await FakeCluster.start(options)
  const client = new Client({ bootstrap: cluster.bootstrap, clientId: 'fake-broker-test', retryBackoff: fastRetries, requestTimeoutMs: 5000 })
  try {
    await body(cluster, client)
  } finally {
    await client.close()
    await cluster.close()
  }
}

const value = (s: string): RecordInput => ({ value: Buffer.from(s) })

async function idempotentBatch (producerId: bigint, producerEpoch: number, baseSequence: number, values: string[]): Promise<Buffer> {
  return await encodeRecordBatch({ producerId, producerEpoch, baseSequence, records: values.map(value) })
}

async function initProducerId (client: Client, current?: { producerId: bigint, producerEpoch: number }): Promise<{ errorCode: number, producerId: bigint, producerEpoch: number }> {
  return await client.request(InitProducerId, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: current?.producerId ?? -1n, producerEpoch: current?.producerEpoch ?? -1 })
}

async function rejectsWithCode (promise: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof BrokerError, `expected a BrokerError, got ${String(error)}`)
    assert.equal(error.code, code)
    return true
  })
}

async function connect (cluster: FakeCluster, nodeId = 1): Promise<Connection> {
  return await Connection.connect({ host: '127.0.0.1', port: cluster.port(nodeId), clientId: 'raw' })
}

function produceBody (topic: string, partition: number, batch: Buffer, acks = -1): ProduceRequest {
  return { transactionalId: null, acks, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }] }
}

describe('topics, produce, fetch, list offsets', () => {
  test('a topic created through the admin API takes records that fetch returns', async () => {
    await withCluster({ brokers: 3 }, async (cluster, client) => {
      await client.admin.createTopics([{ topic: 'orders', numPartitions: 3, replicationFactor: 2 }])
      const meta = client.metadata.topic('orders')!
      assert.equal(meta.topicId, cluster.topicId('orders'))
      assert.deepEqual(meta.partitions.map(p => p.leaderId), [0, 1, 2].map(p => cluster.leaderOf('orders', p)))
      assert.equal(meta.partitions[0].replicas.length, 2)

      const first = await client.produceRaw({ topic: 'orders', partition: 1, records: [{ key: Buffer.from('k'), value: Buffer.from('a'), headers: [{ key: 'h', value: Buffer.from('v') }] }, value('b')] })
      const second = await client.produceRaw({ topic: 'orders', partition: 1, records: [value('c')], compression: 'gzip' })
      assert.equal(first.baseOffset, 0n)
      assert.equal(second.baseOffset, 2n)

      const fetched = await client.fetchRaw({ topic: 'orders', partition: 1, offset: 0n })
      assert.deepEqual(fetched.records.map(r => [r.offset, r.value?.toString()]), [[0n, 'a'], [1n, 'b'], [2n, 'c']])
      assert.equal(fetched.records[0].key?.toString(), 'k')
      assert.equal(fetched.records[0].headers[0].key, 'h')
      assert.equal(fetched.highWatermark, 3n)
      assert.equal(fetched.nextOffset, 3n)

      const log = cluster.log('orders', 1)
      assert.deepEqual(log.map(r => r.value?.toString()), ['a', 'b', 'c'])
      assert.equal(log[0].producerId, -1n)
      assert.deepEqual(cluster.log('orders', 0), [])

      // Batches were stored with the leader epoch stamped in.
      assert.equal(fetched.batches[0].partitionLeaderEpoch, cluster.partitionInfo('orders', 1).leaderEpoch)

      const [existing] = await client.admin.createTopics([{ topic: 'orders', numPartitions: 1 }])
      assert.equal(existing.error?.code, 36)
      assert.deepEqual(cluster.problems, [])
    })
  })

  test('negotiation picks kafkats\'s highest version of every API', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async cluster => {
      const connection = await connect(cluster)
      try {
        for (const api of allApis) assert.equal(connection.versionFor(api), api.maxVersion, api.name)
      } finally {
        connection.close()
      }
    })
  })

  test('every version of every handled API is answered', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async cluster => {
      const topicId = cluster.topicId('t')
      const connection = await connect(cluster)
      try {
        for (let v = Produce.minVersion; v <= Produce.maxVersion; v++) {
          const topicData = [{ name: v < 13 ? 't' : '', topicId: v < 13 ? undefined : topicId, partitionData: [{ index: 0, records: await encodeRecordBatch({ records: [value(`v${v}`)] }) }] }]
          const r = await connection.send(Produce, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData }, { version: v })
          assert.deepEqual([r.responses[0].partitionResponses[0].errorCode, r.responses[0].partitionResponses[0].baseOffset], [0, BigInt(v - Produce.minVersion)], `Produce v${v}`)
        }
        for (let v = Fetch.minVersion; v <= Fetch.maxVersion; v++) {
          const r = await connection.send(Fetch, { maxWaitMs: 0, minBytes: 1, topics: [{ topic: v < 13 ? 't' : undefined, topicId: v < 13 ? undefined : topicId, partitions: [{ partition: 0, fetchOffset: 2n, partitionMaxBytes: 1 << 20 }] }] }, { version: v })
          const p = r.responses[0].partitions[0]
          assert.deepEqual([p.errorCode, p.highWatermark, p.records !== null && p.records.length > 0], [0, 11n, true], `Fetch v${v}`)
        }
        for (let v = ListOffsets.minVersion; v <= ListOffsets.maxVersion; v++) {
          const r = await connection.send(ListOffsets, { isolationLevel: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }, { version: v })
          assert.equal(r.topics[0].partitions[0].offset, 11n, `ListOffsets v${v}`)
        }
        for (let v = Metadata.minVersion; v <= Metadata.maxVersion; v++) {
          const r = await connection.send(Metadata, { topics: [{ name: 't' }] }, { version: v })
          assert.deepEqual([r.topics[0].errorCode, r.topics[0].partitions[0].leaderId], [0, 1], `Metadata v${v}`)
        }
        for (let v = InitProducerId.minVersion; v <= InitProducerId.maxVersion; v++) {
          const r = await connection.send(InitProducerId, { transactionalId: null, transactionTimeoutMs: 1000 }, { version: v })
          assert.equal(r.errorCode, 0, `InitProducerId v${v}`)
        }
        for (let v = CreateTopics.minVersion; v <= CreateTopics.maxVersion; v++) {
          // Below v4 the replication factor must be given (Kafka before 2.4 has no broker default for it).
          const r = await connection.send(CreateTopics, { topics: [{ name: `created-v${v}`, numPartitions: 2, replicationFactor: v < 4 ? 1 : undefined }] }, { version: v })
          assert.equal(r.topics[0].errorCode, 0, `CreateTopics v${v}`)
        }
        for (let v = ApiVersions.minVersion; v <= ApiVersions.maxVersion; v++) {
          const r = await connection.send(ApiVersions, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, { version: v })
          assert.equal(r.apiKeys.length, allApis.length, `ApiVersions v${v}`)
        }
        assert.deepEqual(cluster.problems, [])
      } finally {
        connection.close()
      }
    })
  })

  test('fetch limits: a whole first batch past partitionMaxBytes, OFFSET_OUT_OF_RANGE, log start', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      for (let i = 0; i < 3; i++) await client.produceRaw({ topic: 't', partition: 0, records: [value('x'.repeat(100)), value('y'.repeat(100))] })
      const small = await client.fetchRaw({ topic: 't', partition: 0, offset: 1n, maxBytes: 10 })
      assert.deepEqual(small.records.map(r => r.offset), [1n]) // the batch holding offset 1, from offset 1 on
      assert.equal(small.nextOffset, 2n)
      await rejectsWithCode(client.fetchRaw({ topic: 't', partition: 0, offset: 7n }), 1)
      const atEnd = await client.fetchRaw({ topic: 't', partition: 0, offset: 6n, maxWaitMs: 0 })
      assert.equal(atEnd.records.length, 0)

      cluster.setLogStartOffset('t', 0, 3n)
      await rejectsWithCode(client.fetchRaw({ topic: 't', partition: 0, offset: 1n }), 1)
      assert.deepEqual(cluster.log('t', 0).map(r => r.offset), [3n, 4n, 5n])
      assert.equal((await client.listOffsets({ topic: 't', partition: 0, spec: 'earliest' })).offset, 3n)
    })
  })

  test('a fetch at the log end waits for an append (maxWaitMs)', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      // maxWaitMs is far beyond the wait below: an answer at all is an answer at the append.
      const fetching = client.fetchRaw({ topic: 't', partition: 0, offset: 0n, maxWaitMs: 300_000 })
      await cluster.waitForRequest(Fetch)
      await client.produceRaw({ topic: 't', partition: 0, records: [value('late')] })
      assert.equal(await outcomeWithin(fetching, 60_000), 'resolved', 'the fetch was answered at the append, not at maxWaitMs')
      const fetched = await fetching
      assert.equal(fetched.records[0]?.value?.toString(), 'late')
    })
  })

  test('list offsets: earliest, latest, by timestamp', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (_cluster, client) => {
      await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('a'), timestamp: 1000n }, { value: Buffer.from('b'), timestamp: 2000n }] })
      await client.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('c'), timestamp: 3000n }] })
      assert.equal((await client.listOffsets({ topic: 't', partition: 0, spec: 'earliest' })).offset, 0n)
      assert.equal((await client.listOffsets({ topic: 't', partition: 0, spec: 'latest' })).offset, 3n)
      const at = await client.listOffsets({ topic: 't', partition: 0, spec: { timestamp: 1500n } })
      assert.deepEqual([at.offset, at.timestamp], [1n, 2000n])
      assert.equal((await client.listOffsets({ topic: 't', partition: 0, spec: { timestamp: 9000n } })).offset, -1n)
    })
  })

  test('metadata: by topic id, unknown names and ids', async () => {
    await withCluster({ brokers: 2, topics: [{ name: 'known', partitions: 2 }] }, async (cluster, client) => {
      const topicId = cluster.topicId('known')
      const byId = await client.request(Metadata, { topics: [{ name: null, topicId }, { name: null, topicId: '11111111-2222-3333-4444-555555555555' }] })
      assert.equal(byId.topics[0].name, 'known')
      assert.equal(byId.topics[0].partitions.length, 2)
      assert.equal(byId.topics[1].errorCode, 100)
      const byName = await client.request(Metadata, { topics: [{ name: 'missing' }] })
      assert.equal(byName.topics[0].errorCode, 3)
      assert.deepEqual(byName.brokers.map(b => b.nodeId), [1, 2])
      const all = await client.request(Metadata, { topics: null })
      assert.deepEqual(all.topics.map(t => t.name), ['known'])
    })
  })

  test('acks=0 gets no response but is appended', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const result = await client.produceRaw({ topic: 't', partition: 0, records: [value('fire')], acks: 0 })
      assert.equal(result.baseOffset, -1n)
      const entry = await cluster.waitForRequest(Produce)
      await waitFor('the request\'s outcome', () => entry.outcome !== 'pending')
      assert.equal(entry.outcome, 'no-response')
      assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['fire'])
      // The connection still works: the next response is not mistaken for the missing one.
      assert.equal((await client.produceRaw({ topic: 't', partition: 0, records: [value('next')] })).baseOffset, 1n)
    })
  })
})

describe('idempotent deduplication', () => {
  test('a repeated batch gets its original offset and is stored once; gaps are refused', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const { producerId, producerEpoch, errorCode } = await initProducerId(client)
      assert.equal(errorCode, 0)
      await client.produceRaw({ topic: 't', partition: 0, records: [value('other')] }) // a non-idempotent record first
      const batch0 = await idempotentBatch(producerId, producerEpoch, 0, ['a', 'b'])
      const first = await client.produceRaw({ topic: 't', partition: 0, batch: batch0 })
      const again = await client.produceRaw({ topic: 't', partition: 0, batch: batch0 })
      assert.equal(first.baseOffset, 1n)
      assert.equal(again.baseOffset, 1n)
      assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['other', 'a', 'b'])
      assert.deepEqual(cluster.log('t', 0).slice(1).map(r => [r.producerId, r.producerEpoch, r.baseSequence, r.sequence]), [[producerId, producerEpoch, 0, 0], [producerId, producerEpoch, 0, 1]])

      // Sequence 5 after 0–1 leaves a gap.
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(producerId, producerEpoch, 5, ['gap']) }), 45)
      // A different batch that reuses sequences 0–1 is "deduplicated" against the first one:
      // the hazard of invariant 1.
      const impostor = await client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(producerId, producerEpoch, 0, ['x', 'y']) })
      assert.equal(impostor.baseOffset, 1n)
      const next = await client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(producerId, producerEpoch, 2, ['c']) })
      assert.equal(next.baseOffset, 3n)
      assert.equal(cluster.log('t', 0).length, 4)

      const attempts = cluster.produceAttempts('t', 0).filter(a => a.producerId === producerId)
      assert.deepEqual(attempts.map(a => [a.baseSequence, a.lastSequence, a.recordCount]), [[0, 1, 2], [0, 1, 2], [5, 5, 1], [0, 1, 2], [2, 2, 1]])
    })
  })

  test('only the last 5 batches are remembered', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (_cluster, client) => {
      const { producerId, producerEpoch } = await initProducerId(client)
      const batches: Buffer[] = []
      for (let seq = 0; seq < 6; seq++) {
        batches.push(await idempotentBatch(producerId, producerEpoch, seq, [`r${seq}`]))
        await client.produceRaw({ topic: 't', partition: 0, batch: batches[seq] })
      }
      assert.equal((await client.produceRaw({ topic: 't', partition: 0, batch: batches[1] })).baseOffset, 1n)
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, batch: batches[0] }), 45)
    })
  })

  test('epochs: a bump starts at sequence 0, an old epoch is refused, an unknown producer starts at 0', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const first = await initProducerId(client)
      await client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(first.producerId, first.producerEpoch, 0, ['a']) })

      const bumped = await initProducerId(client, first)
      assert.deepEqual([bumped.errorCode, bumped.producerId, bumped.producerEpoch], [0, first.producerId, first.producerEpoch + 1])
      // A retried InitProducerId with the old epoch gets the same answer; an older one is fenced.
      assert.equal((await initProducerId(client, first)).producerEpoch, bumped.producerEpoch)
      assert.equal((await initProducerId(client, { producerId: first.producerId, producerEpoch: 99 })).errorCode, 90)

      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(first.producerId, bumped.producerEpoch, 1, ['b']) }), 45)
      assert.equal((await client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(first.producerId, bumped.producerEpoch, 0, ['b']) })).baseOffset, 1n)
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(first.producerId, first.producerEpoch, 1, ['old']) }), 47)

      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, batch: await idempotentBatch(777n, 0, 3, ['stranger']) }), 45)
      assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['a', 'b'])
    })
  })

  test('an exhausted epoch gets a new producer id', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const old = cluster.newProducerId(32766)
      const fresh = await initProducerId(client, old)
      assert.equal(fresh.errorCode, 0)
      assert.notEqual(fresh.producerId, old.producerId)
      assert.equal(fresh.producerEpoch, 0)
    })
  })

  test('sequences wrap from 2^31-1 to 0', async () => {
    const top = 0x7fffffff
    const table = new ProducerStateTable()
    table.recordAppend(7n, 0, top - 2, top, 10n)
    assert.deepEqual(table.check(7n, 0, 0, 4), { kind: 'append' })
    assert.equal(table.check(7n, 0, 1, 4).kind, 'error')
    assert.deepEqual(table.check(7n, 0, top - 2, top), { kind: 'duplicate', baseOffset: 10n })
    assert.equal(addSequence(top - 1, 2), 0)
    // The request log computes the wrapped last sequence of a batch.
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const batch = await idempotentBatch(123n, 0, top - 1, ['x', 'y', 'z'])
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, batch }), 45) // unknown producers start at 0
      const attempt = cluster.produceAttempts('t', 0)[0]
      assert.deepEqual([attempt.producerId, attempt.baseSequence, attempt.lastSequence, attempt.recordCount], [123n, top - 1, 0, 3]) // top-1, top, 0
    })
  })

  test('a batch with a bad CRC is CORRUPT_MESSAGE and not stored', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const batch = Buffer.from(await encodeRecordBatch({ records: [value('intact')] }))
      batch[batch.length - 1] ^= 0xff
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, batch }), 2)
      assert.deepEqual(cluster.log('t', 0), [])
    })
  })
})

describe('interception', () => {
  test('error + apply: the batch is in the log, the answer is the error', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const seen: number[] = []
      cluster.intercept(Produce, ({ brokerId, version, request }) => {
        seen.push(brokerId, version, request.topicData.length)
        return { error: 7, apply: true }
      }, { times: 1 })
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, records: [value('ambiguous')] }), 7)
      assert.deepEqual(seen, [1, Produce.maxVersion, 1])
      assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['ambiguous'])
      const [entry] = cluster.requests(Produce)
      assert.deepEqual([entry.action, entry.applied, entry.outcome], ['error', true, 'answered'])

      // `times: 1` is used up: the next produce is handled normally.
      assert.equal((await client.produceRaw({ topic: 't', partition: 0, records: [value('next')] })).baseOffset, 1n)
    })
  })

  test('error without apply: nothing is written', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const remove = cluster.intercept(0, () => ({ error: 20 }))
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, records: [value('lost')] }), 20)
      remove()
      assert.deepEqual(cluster.log('t', 0), [])
      await client.produceRaw({ topic: 't', partition: 0, records: [value('kept')] })
      assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['kept'])
    })
  })

  test('error on other APIs: per partition or top level', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      await client.produceRaw({ topic: 't', partition: 0, records: [value('a')] })
      cluster.intercept(ListOffsets, () => ({ error: 42 }), { times: 1 })
      await rejectsWithCode(client.listOffsets({ topic: 't', partition: 0, spec: 'latest' }), 42)
      cluster.intercept(InitProducerId, () => ({ error: 15 }), { times: 1 })
      assert.equal((await initProducerId(client)).errorCode, 15)
    })
  })

  test('drop after apply: the connection dies, the batch is in the log', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      await client.produceRaw({ topic: 't', partition: 0, records: [value('warm-up')] })
      cluster.intercept(Produce, () => ({ drop: 'after-apply' }), { times: 1 })
      await assert.rejects(client.produceRaw({ topic: 't', partition: 0, records: [value('written')] }), (error: unknown) => {
        assert.ok(error instanceof ConnectionError)
        assert.equal(error.written, true)
        return true
      })
      assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['warm-up', 'written'])
      const entry = cluster.requests(Produce).at(-1)!
      assert.deepEqual([entry.action, entry.applied, entry.outcome], ['drop-after-apply', true, 'dropped'])
    })
  })

  test('drop before apply: the connection dies, nothing is written', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      cluster.intercept(Produce, () => ({ drop: 'before-apply' }), { times: 1 })
      await assert.rejects(client.produceRaw({ topic: 't', partition: 0, records: [value('never')] }), ConnectionError)
      assert.deepEqual(cluster.log('t', 0), [])
      assert.equal(cluster.requests(Produce)[0].applied, false)
      // The client reconnects for the next request.
      assert.equal((await client.produceRaw({ topic: 't', partition: 0, records: [value('after')] })).baseOffset, 0n)
    })
  })

  test('delay: responses on a connection keep request order', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async cluster => {
      cluster.intercept(Metadata, ({ request }) => request.topics?.[0]?.name === 'slow' ? { delayMs: 150 } : undefined)
      const connection = await connect(cluster)
      try {
        const order: string[] = []
        const slow = connection.send(Metadata, { topics: [{ name: 'slow' }] }).then(r => { order.push(r.topics[0].name ?? '') })
        const fast = connection.send(Metadata, { topics: [{ name: 't' }] }).then(r => { order.push(r.topics[0].name ?? '') })
        const started = Date.now()
        await Promise.all([slow, fast])
        assert.deepEqual(order, ['slow', 't'])
        assert.ok(Date.now() - started >= 140)
      } finally {
        connection.close()
      }
    })
  })

  test('hold: the request is applied when the promise resolves', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      let release!: () => void
      const gate = new Promise<void>(resolve => { release = resolve })
      cluster.intercept(Produce, () => ({ hold: gate }), { times: 1 })
      const producing = client.produceRaw({ topic: 't', partition: 0, records: [value('held')] })
      const entry = await cluster.waitForRequest(Produce)
      // A request that came after it, on another connection, is answered; the held one is still not applied.
      await client.request(Metadata, { topics: [{ name: 't' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })
      assert.deepEqual([cluster.log('t', 0).length, entry.applied, entry.action], [0, false, 'hold'])
      release()
      assert.equal((await producing).baseOffset, 0n)
      assert.equal(cluster.log('t', 0).length, 1)
    })
  })

  test('respond: the test\'s body goes back as is', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      cluster.intercept(ListOffsets, ({ request }) => ({
        respond: { throttleTimeMs: 0, topics: [{ name: request.topics[0].name, partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 42n, leaderEpoch: 0 }] }] }
      }), { times: 1 })
      assert.equal((await client.listOffsets({ topic: 't', partition: 0, spec: 'latest' })).offset, 42n)
      assert.equal((await client.listOffsets({ topic: 't', partition: 0, spec: 'latest' })).offset, 0n)
    })
  })

  test('modify: the real response, changed after the write', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      let offset = -2n
      cluster.intercept(Produce, () => ({
        modify: (response: ProduceResponse) => {
          const p = response.responses[0].partitionResponses[0]
          offset = p.baseOffset
          p.errorCode = 20
          return response
        }
      }), { times: 1 })
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, records: [value('a')] }), 20)
      assert.equal(offset, 0n)
      assert.equal(cluster.log('t', 0).length, 1)
    })
  })

  test('the first interceptor that acts decides; passing on leaves the request to the next', async () => {
    await withCluster({ topics: [{ name: 't', partitions: 1 }] }, async (cluster, client) => {
      const calls: string[] = []
      cluster.intercept(Produce, () => { calls.push('first'); return undefined })
      cluster.intercept(Produce, () => { calls.push('second'); return { error: 20 } }, { times: 1 })
      cluster.intercept(Produce, () => { calls.push('third'); return undefined })
      await rejectsWithCode(client.produceRaw({ topic: 't', partition: 0, records: [value('a')] }), 20)
      await client.produceRaw({ topic: 't', partition: 0, records: [value('b')] })
      assert.deepEqual(calls, ['first', 'second', 'first', 'third'])
    })
  })
})

describe('leadership', () => {
  test('after moveLeader the old leader answers NOT_LEADER_OR_FOLLOWER and the client follows the new one', async () => {
    await withCluster({ brokers: 3, topics: [{ name: 't', partitions: 1, replicationFactor: 2 }] }, async (cluster, client) => {
      assert.equal(cluster.leaderOf('t', 0), 1)
      await client.produceRaw({ topic: 't', partition: 0, records: [value('before')] })
      cluster.moveLeader('t', 0, 3)
      assert.deepEqual(cluster.partitionInfo('t', 0).leaderEpoch, 1)

      const result = await client.produceRaw({ topic: 't', partition: 0, records: [value('after')] })
      assert.equal(result.baseOffset, 1n)
      assert.deepEqual(cluster.produceAttempts('t', 0).map(a => a.brokerId), [1, 1, 3])
      assert.ok(cluster.requests(Metadata).length >= 2, 'the client refreshed metadata')
      assert.deepEqual(cluster.log('t', 0).map(r => r.value?.toString()), ['before', 'after'])
      assert.equal(cluster.log('t', 0)[1].offset, 1n)

      // The old leader's answer carries the new leader (Produce v10+).
      const connection = await connect(cluster, 1)
      try {
        const response: ProduceResponse = await connection.send(Produce, produceBody('t', 0, await encodeRecordBatch({ records: [value('x')] })), { version: 12 })
        const p = response.responses[0].partitionResponses[0]
        assert.equal(p.errorCode, 6)
        assert.deepEqual(p.currentLeader, { leaderId: 3, leaderEpoch: 1 })
        assert.deepEqual(response.nodeEndpoints.map(e => [e.nodeId, e.port]), [[3, cluster.port(3)]])
        // A fetch with the old epoch is fenced; with no epoch it is not the leader.
        const fetched = await connection.send(Fetch, {
          maxWaitMs: 0, minBytes: 1, topics: [{ topic: 't', partitions: [{ partition: 0, currentLeaderEpoch: 0, fetchOffset: 0n, partitionMaxBytes: 1000 }, { partition: 0, fetchOffset: 0n, partitionMaxBytes: 1000 }] }]
        }, { version: 12 })
        assert.deepEqual(fetched.responses[0].partitions.map(x => x.errorCode), [74, 6])
        assert.deepEqual(fetched.responses[0].partitions[1].currentLeader, { leaderId: 3, leaderEpoch: 1 })
      } finally {
        connection.close()
      }
    })
  })
})

describe('robustness', () => {
  async function rawExchange (port: number, bytes: Buffer, waitForClose = true): Promise<Buffer> {
    const socket = net.connect({ host: '127.0.0.1', port })
    const received: Buffer[] = []
    socket.on('data', chunk => received.push(chunk))
    await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
    socket.write(bytes)
    if (waitForClose) {
      await new Promise<void>(resolve => socket.once('close', () => resolve()))
    } else {
      await new Promise<void>(resolve => socket.once('data', () => resolve()))
      socket.destroy()
    }
    return Buffer.concat(received)
  }

  test('garbage, an unknown API key, a bad version and a truncated body each close only their connection', async () => {
    const lines: string[] = []
    await withCluster({ topics: [{ name: 't', partitions: 1 }], log: line => lines.push(line) }, async (cluster, client) => {
      const port = cluster.port(1)
      assert.equal((await rawExchange(port, Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]))).length, 0)

      const unknownKey = Buffer.alloc(4 + 10)
      unknownKey.writeInt32BE(10, 0)
      unknownKey.writeInt16BE(999, 4) // api key
      unknownKey.writeInt16BE(0, 6) // version
      unknownKey.writeInt32BE(7, 8) // correlation id
      unknownKey.writeInt16BE(-1, 12) // client id: null
      assert.equal((await rawExchange(port, unknownKey)).length, 0)

      const oldProduce = encodeRequestFrame({ ...Produce, encodeRequest: () => {} } as AnyApi, 2, 1, 'x', {})
      assert.equal((await rawExchange(port, oldProduce)).length, 0)

      const metadata = encodeRequestFrame(Metadata, 12, 1, 'x', { topics: [{ name: 't' }] })
      const truncated = Buffer.from(metadata.subarray(0, metadata.length - 3))
      truncated.writeInt32BE(truncated.length - 4, 0)
      assert.equal((await rawExchange(port, truncated)).length, 0)

      assert.equal(lines.length, 4)
      assert.match(lines[0], /request frame of -1 bytes/)
      assert.match(lines[1], /no handler for API key 999/)
      assert.match(lines[2], /Produce v2 is outside/)
      assert.match(lines[3], /malformed Metadata v12 request/)
      assert.deepEqual(cluster.problems, lines)

      // The broker still serves everyone else.
      assert.equal((await client.produceRaw({ topic: 't', partition: 0, records: [value('fine')] })).baseOffset, 0n)
    })
  })

  test('an ApiVersions request above our version gets a v0 UNSUPPORTED_VERSION answer (KIP-511)', async () => {
    await withCluster({}, async cluster => {
      const frame = encodeRequestFrame({ ...ApiVersions, encodeRequest: (w: Writer) => { w.uint8(0) } } as AnyApi, 9, 5, 'x', {})
      const answer = await rawExchange(cluster.port(1), frame, false)
      const r = new Reader(answer, 4)
      assert.equal(r.int32(), 5) // correlation id, response header v0
      const body = ApiVersions.decodeResponse(r, 0)
      assert.equal(body.errorCode, 35)
      assert.deepEqual(body.apiKeys, [{ apiKey: 18, minVersion: 0, maxVersion: ApiVersions.maxVersion }])
    })
  })

  test('a throwing interceptor closes the connection with a log line, not the server', async () => {
    const lines: string[] = []
    await withCluster({ topics: [{ name: 't', partitions: 1 }], log: line => lines.push(line) }, async (cluster, client) => {
      cluster.intercept(Produce, () => { throw new Error('boom') }, { times: 1 })
      await assert.rejects(client.produceRaw({ topic: 't', partition: 0, records: [value('a')] }), ConnectionError)
      assert.match(lines[0], /interceptor of Produce .* threw: boom/)
      assert.equal((await client.produceRaw({ topic: 't', partition: 0, records: [value('b')] })).baseOffset, 0n)
    })
  })

  test('close() ends held requests and frees the ports', async () => {
    const cluster = await FakeCluster.start({ topics: [{ name: 't', partitions: 1 }] })
    const client = new Client({ bootstrap: cluster.bootstrap, retryBackoff: fastRetries, requestTimeoutMs: 2000 })
    cluster.intercept(Produce, () => ({ hold: new Promise(() => {}) }))
    const producing = client.produceRaw({ topic: 't', partition: 0, records: [value('held')] }).catch(error => error)
    await cluster.waitForRequest(Produce)
    await cluster.close()
    assert.ok((await producing) instanceof ConnectionError)
    assert.deepEqual(cluster.log('t', 0), [])
    await client.close()
    await assert.rejects(new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port: cluster.port(1) })
      socket.once('connect', () => { socket.destroy(); resolve(undefined) })
      socket.once('error', reject)
    }))
  })
})

// client.metrics() against the fake cluster: counters per API and broker (errors
// included), producer and consumer counters, lag from the last fetch's high watermark, and
// a Prometheus exposition that a strict reader accepts (label values escaped); the
// tracing channels publish nothing while nobody subscribes.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { tracingChannel } from 'node:diagnostics_channel'
import '../../index'
import { channels, subscribed, type RequestTrace } from '../../client/instrumentation'
import { escapeLabelValue, Histogram } from '../../client/metrics'
import { Consumer } from '../../consumer/consumer'
import { Metadata } from '../../protocol/apis/metadata'
import { Produce } from '../../protocol/apis/produce'
import { fast, fixtures } from './fake-support'
import { parsePrometheus } from './prometheus-parser'
import { waitFor } from '../support/wait'

const { cluster, client, defer } = fixtures()

describe('client.metrics()', () => {
  test('requests, bytes and errors per API and broker; batches and records per topic', async () => {
    const c = await cluster({ brokers: 2, topics: [{ name: 't', partitions: 2 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    const producer = k.producer({ lingerMs: 0 })
    await producer.send([{ topic: 't', partition: 0, value: 'a' }, { topic: 't', partition: 0, value: 'b' }, { topic: 't', partition: 1, value: 'c' }])
    // One Produce answered NOT_LEADER_OR_FOLLOWER on the partition: not a request error (the answer came), retried.
    c.intercept(Produce, () => ({ error: 6 }), { times: 1 })
    await producer.send({ topic: 't', partition: 0, value: 'd' })
    const m = k.metrics()
    assert.equal(m.clientId, 'kafkats')
    const produces = m.requests.filter(r => r.api === 'Produce')
    assert.deepEqual(produces.map(r => r.nodeId).sort(), [1, 2], 'one row per broker')
    assert.equal(produces.reduce((n, r) => n + r.requests, 0), c.requests(Produce).length)
    assert.ok(produces.every(r => r.bytesSent > 0 && r.bytesReceived > 0 && r.latency.count === r.requests))
    assert.deepEqual(m.producer.topics, [{ topic: 't', batches: 3, records: 4, bytes: m.producer.topics[0].bytes }])
    assert.equal(m.producer.batchRecords.count, 3)
    assert.equal(m.producer.compressionRatio.count, 0, 'uncompressed batches have no ratio')
    assert.equal(m.producer.bufferedBytes, 0)
    // The NOT_LEADER answer set off a metadata refresh that may still be on its way to the
    // broker (counted when sent, seen by the fake when received): compare once it arrived.
    const metadataCount = (): number => k.metrics().requests.filter(r => r.api === 'Metadata').reduce((n, r) => n + r.requests, 0)
    await waitFor('the metrics to count every Metadata request the cluster saw', () => metadataCount() === c.requests(Metadata).length)
    await producer.close()
  })

  test('a request without an answer counts as an error of its API and broker', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    await k.metadata.refresh(['t'])
    c.intercept(Produce, () => ({ drop: 'before-apply' }), { times: 1 })
    await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from('x') }] }).catch(() => {})
    const produce = k.metrics().requests.find(r => r.api === 'Produce' && r.nodeId === 1)!
    assert.equal(produce.errors, 1)
    assert.equal(produce.requests, 1)
  })

  test('a direct consumer: records handed out per topic, and lag from the fetch\'s high watermark (no round trip)', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    for (let i = 0; i < 10; i++) await k.produceRaw({ topic: 't', partition: 0, records: [{ value: Buffer.from(`r${i}`) }] })
    const consumer = Consumer.assigned(k, { assign: [{ topic: 't', partition: 0, offset: 3n }], maxBatchRecords: 4 })
    defer(async () => await consumer.close())
    const first = (await consumer.nextBatch())!
    const fetchesBefore = c.requests().length
    const [lag] = consumer.lag()
    assert.equal(c.requests().length, fetchesBefore, 'lag() sends nothing')
    const out = first.batch.records.length
    assert.deepEqual({ ...lag, fetchOffset: undefined }, { group: undefined, topic: 't', partition: 0, processedOffset: undefined, committedOffset: undefined, fetchOffset: undefined, highWatermark: 10n, lag: 7n })
    first.finish()
    const after = consumer.lag()[0]
    assert.equal(after.processedOffset, 3n + BigInt(out))
    assert.equal(after.lag, 10n - 3n - BigInt(out))
    const m = k.metrics()
    assert.deepEqual(m.consumer.topics, [{ topic: 't', batches: 1, records: out }])
    assert.deepEqual(m.consumer.lag.map(l => l.lag), [after.lag])
    assert.ok(m.consumer.fetchLatency.count >= 1)
    const families = parsePrometheus(m.toPrometheus())
    assert.deepEqual(families.get('kafkats_consumer_lag')!.samples, [{ name: 'kafkats_consumer_lag', labels: { client: 'kafkats', group: '', topic: 't', partition: '0' }, value: Number(after.lag) }])
    await consumer.close()
    assert.deepEqual(k.metrics().consumer.lag, [], 'a closed consumer reports no lag')
  })

  test('the Prometheus text is valid, with label values escaped', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const weird = 'app "one"\\two\nthree'
    const k = client({ bootstrap: c.bootstrap, clientId: weird, ...fast })
    const producer = k.producer({ compression: 'gzip' })
    await producer.send({ topic: 't', value: 'x'.repeat(2000) })
    const text = k.metrics().toPrometheus()
    assert.ok(text.includes('client="app \\"one\\"\\\\two\\nthree"'), 'backslash, quote and line feed escaped')
    const families = parsePrometheus(text)
    assert.equal(families.get('kafkats_requests_total')!.type, 'counter')
    assert.equal(families.get('kafkats_producer_buffered_bytes')!.type, 'gauge')
    const ratio = families.get('kafkats_producer_compression_ratio')!
    assert.equal(ratio.type, 'histogram')
    assert.ok(ratio.samples.every(s => s.labels.client === weird), 'the reader gets the original value back')
    const count = ratio.samples.find(s => s.name === 'kafkats_producer_compression_ratio_count')!.value
    assert.equal(count, 1)
    assert.ok(ratio.samples.find(s => s.name === 'kafkats_producer_compression_ratio_sum')!.value > 10, '2000 equal bytes compress well')
    await producer.close()
  })

  test('histograms: cumulative buckets; escaping helper', () => {
    const h = new Histogram([1, 2, 4])
    for (const v of [0.5, 1, 1.5, 3, 100]) h.observe(v)
    assert.deepEqual(h.snapshot(), { buckets: [{ le: 1, count: 2 }, { le: 2, count: 3 }, { le: 4, count: 4 }], sum: 106, count: 5 })
    assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd')
  })
})

describe('tracing channels cost nothing unobserved', () => {
  test('no subscriber: nothing is published; a subscriber gets every request', async () => {
    const c = await cluster({ topics: [{ name: 't', partitions: 1 }] })
    const k = client({ bootstrap: c.bootstrap, ...fast })
    assert.equal(subscribed(channels.request), false)
    // Spy on the publish calls themselves: unobserved, they must not even be made.
    const published: string[] = []
    const original = channels.request.start.publish
    // (A channel changes its prototype when subscribed to: call whatever publish it has then.)
    channels.request.start.publish = function (this: object, context: unknown) { published.push('start'); return (Object.getPrototypeOf(this) as { publish: (m: unknown) => void }).publish.call(this, context) }
    try {
      await k.request(Metadata, { topics: null })
      assert.deepEqual(published, [])
      const seen: string[] = []
      const handlers = { start: (m: RequestTrace) => seen.push(`start ${m.api}`), end: () => {}, asyncStart: () => {}, asyncEnd: (m: RequestTrace) => seen.push(`asyncEnd ${m.api} ${typeof m.durationMs}`), error: () => {} }
      tracingChannel<unknown, RequestTrace>('kafkats:request').subscribe(handlers)
      try {
        await k.request(Metadata, { topics: null })
      } finally {
        tracingChannel<unknown, RequestTrace>('kafkats:request').unsubscribe(handlers)
      }
      assert.deepEqual(seen, ['start Metadata', 'asyncEnd Metadata number'])
      assert.deepEqual(published, ['start'])
    } finally {
      delete (channels.request.start as { publish?: unknown }).publish
      assert.equal(channels.request.start.publish, original)
    }
  })
})

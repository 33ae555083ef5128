// Observability against a real Kafka 4.4 broker: the kafkats:* tracing channels carry what
// a tracer needs (api, version, broker, bytes, duration, errors; sends, batch hand-outs,
// rebalances) and hand a run() handler the subscriber's async context; client.metrics()
// counts what was really sent, produced, fetched and committed, with lag per partition
// from the fetches' high watermarks, and renders it as valid Prometheus text.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { AsyncLocalStorage } from 'node:async_hooks'
import { tracingChannel } from 'node:diagnostics_channel'
import { Client, type GroupConsumer } from '../../index'
import type { ConsumerBatchTrace, ProducerSendTrace, RebalanceTrace, RequestTrace } from '../../client/instrumentation'
import type { PartitionLag } from '../../client/metrics'
import { AbortedError } from '../../client/errors'
import { sharedBootstrap } from '../broker/kafka'
import { uniqueName } from './support'
import { parsePrometheus } from '../client/prometheus-parser'

const bootstrap = sharedBootstrap()
const skip = bootstrap === undefined ? 'no broker: set KAFKA_BOOTSTRAP or run through `npm test`' : false
const PARTITIONS = 3
const RECORDS = 300

type Phase = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error'
const PHASES: Phase[] = ['start', 'end', 'asyncStart', 'asyncEnd', 'error']

/** Every message of a tracing channel, as [phase, context] in order. */
function listen<T extends object> (name: string): { seen: Array<[Phase, T]>, stop: () => void } {
  const channel = tracingChannel<unknown, T>(name)
  const seen: Array<[Phase, T]> = []
  const handlers = Object.fromEntries(PHASES.map(phase => [phase, (context: T) => { seen.push([phase, context]) }])) as Record<Phase, (context: T) => void>
  channel.subscribe(handlers)
  return { seen, stop: () => channel.unsubscribe(handlers) }
}

/** The contexts whose operation ended (asyncEnd), with the phases each went through. */
function finished<T extends object> (seen: Array<[Phase, T]>): Array<{ context: T, phases: Phase[] }> {
  const phases = new Map<T, Phase[]>()
  for (const [phase, context] of seen) phases.set(context, [...(phases.get(context) ?? []), phase])
  return [...phases].filter(([, p]) => p.includes('asyncEnd')).map(([context, p]) => ({ context, phases: p }))
}

describe('observability against a real broker', { skip, timeout: 180_000 }, () => {
  let client: Client
  const topic = uniqueName('obs')
  const group = uniqueName('obs-group')
  const requests = listen<RequestTrace>('kafkats:request')
  const sends = listen<ProducerSendTrace>('kafkats:producer:send')
  const batches = listen<ConsumerBatchTrace>('kafkats:consumer:batch')
  const rebalances = listen<RebalanceTrace>('kafkats:group:rebalance')
  /** What a run() handler saw as its lag, and the async context it ran in. */
  const handlerSaw: Array<{ lag: PartitionLag | undefined, firstOffset: bigint, nextOffset: bigint, store: unknown }> = []
  const store = new AsyncLocalStorage<ConsumerBatchTrace>()
  let metricsText = ''
  let endOffsets: bigint[] = []

  before(async () => {
    // The OpenTelemetry pattern: the batch's context becomes the handler's async context.
    tracingChannel<ConsumerBatchTrace, ConsumerBatchTrace>('kafkats:consumer:batch').start.bindStore(store, context => context)
    client = new Client({ bootstrap: bootstrap!, clientId: 'obs-test' })
    await client.admin.createTopics([{ topic, numPartitions: PARTITIONS }])
    const producer = client.producer({ compression: 'gzip', lingerMs: 20 })
    const values = Array.from({ length: RECORDS }, (_, i) => ({ topic, partition: i % PARTITIONS, value: `value ${i} `.repeat(20) }))
    await producer.send(values.slice(0, 100))
    await Promise.all(values.slice(100).map(async r => await producer.send(r)))
    await producer.close()
    endOffsets = await Promise.all(Array.from({ length: PARTITIONS }, async (_, p) => (await client.listOffsets({ topic, partition: p, spec: 'latest' })).offset))

    const consumer = client.consumer({ groupId: group, topics: [topic], fromBeginning: true }) as GroupConsumer
    let consumed = 0
    const done = new Promise<void>((resolve, reject) => {
      consumer.run({
        eachBatch: async batch => {
          handlerSaw.push({ lag: consumer.lag().find(l => l.topic === batch.topic && l.partition === batch.partition), firstOffset: batch.records[0].offset, nextOffset: batch.nextOffset, store: store.getStore() })
          consumed += batch.records.length
          if (consumed >= RECORDS) resolve()
        }
      }).catch(reject)
    })
    await done
    await consumer.commit()
    metricsText = client.metrics().toPrometheus()
    await consumer.close()
  })

  after(async () => {
    for (const l of [requests, sends, batches, rebalances]) l.stop()
    await client?.admin.deleteTopics([topic]).catch(() => {})
    await client?.close()
  })

  test('kafkats:request: every request, with api, version, broker, bytes and duration', () => {
    const done = finished(requests.seen).filter(r => r.context.clientId === 'obs-test')
    const apis = new Set(done.map(r => r.context.api))
    for (const api of ['ApiVersions', 'Metadata', 'CreateTopics', 'InitProducerId', 'Produce', 'Fetch', 'OffsetCommit', 'ListOffsets']) assert.ok(apis.has(api), `${api} traced (saw ${[...apis].join(', ')})`)
    const produce = done.find(r => r.context.api === 'Produce')!
    assert.deepEqual(produce.phases, ['start', 'end', 'asyncStart', 'asyncEnd'])
    const c = produce.context
    assert.equal(c.apiKey, 0)
    assert.ok(c.version >= 3, `Produce v${c.version}`)
    assert.ok(c.nodeId >= 0, `a broker's node id, not a bootstrap address (${c.nodeId})`)
    assert.match(c.broker, /^broker \d+ \(.+:\d+\) \(produce\)$/)
    assert.ok(c.requestBytes > 1000 && c.responseBytes! > 10, `${c.requestBytes} bytes out, ${c.responseBytes} in`)
    assert.ok(c.durationMs! >= 0 && c.durationMs! < 60_000)
    assert.equal(typeof c.correlationId, 'number')
    assert.ok((c.result as { responses: unknown[] }).responses.length === 1, 'the decoded response is the result')
  })

  test('kafkats:request: a request given up on ends with the error event', async () => {
    const before = requests.seen.length
    const waiting = client.fetchRaw({ topic, partition: 0, offset: endOffsets[0], maxWaitMs: 5000, signal: AbortSignal.timeout(300) })
    await assert.rejects(waiting, AbortedError)
    const fetch = finished(requests.seen.slice(before)).find(r => r.context.api === 'Fetch')
    assert.ok(fetch !== undefined, 'the Fetch was traced')
    assert.deepEqual(fetch.phases, ['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
    assert.ok(fetch.context.error instanceof AbortedError)
  })

  test('kafkats:producer:send: each send() with its records and their metadata', () => {
    const done = finished(sends.seen)
    assert.equal(done.length, 1 + (RECORDS - 100), 'one array send and one send per record')
    const batchSend = done.find(s => s.context.records === 100)!
    assert.deepEqual(batchSend.phases, ['start', 'end', 'asyncStart', 'asyncEnd'])
    assert.equal(batchSend.context.topic, topic)
    const result = batchSend.context.result as Array<{ offset: bigint, partition: number }>
    assert.equal(result.length, 100)
    assert.ok(result.every(r => typeof r.offset === 'bigint' && r.offset >= 0n))
  })

  test('kafkats:consumer:batch: every batch from hand-out to finish, in the handler\'s async context', () => {
    const done = finished(batches.seen).filter(b => b.context.group === group)
    assert.equal(done.reduce((n, b) => n + b.context.records, 0), RECORDS)
    for (const { context, phases } of done) {
      assert.deepEqual(phases, ['start', 'end', 'asyncStart', 'asyncEnd'])
      assert.equal(context.topic, topic)
      assert.equal(context.processedUpTo, context.nextOffset, 'a returned batch counts as processed to its end')
      assert.equal(context.highWatermark, endOffsets[context.partition])
    }
    assert.ok(handlerSaw.length > 0 && handlerSaw.every(h => (h.store as ConsumerBatchTrace | undefined)?.firstOffset === h.firstOffset), 'the handler ran in the batch\'s context (bindStore)')
  })

  test('kafkats:group:rebalance: the assignment applied, with the member and what was added', () => {
    const done = finished(rebalances.seen).filter(r => r.context.group === group)
    assert.ok(done.length >= 1)
    const first = done[0].context
    assert.ok(first.memberId.length > 0)
    assert.equal(first.protocol, 'consumer')
    assert.deepEqual(first.added!.map(p => p.partition).sort(), Array.from({ length: PARTITIONS }, (_, p) => p))
    assert.deepEqual(first.assignment.map(p => p.topic), Array(PARTITIONS).fill(topic))
  })

  test('consumer.lag(): from the last fetch\'s high watermark, without a round trip', () => {
    for (const seen of handlerSaw) {
      assert.ok(seen.lag !== undefined)
      const partition = seen.lag.partition
      assert.equal(seen.lag.group, group)
      assert.equal(seen.lag.highWatermark, endOffsets[partition], 'every record was produced before the consumer started')
      // The batch being handled is not processed yet: it and everything after it is lag.
      assert.equal(seen.lag.lag, endOffsets[partition] - seen.firstOffset, `partition ${partition} at ${seen.firstOffset}`)
    }
  })

  test('client.metrics(): requests, produced and consumed records, commits and lag, as valid Prometheus text', () => {
    const families = parsePrometheus(metricsText)
    const sample = (name: string, labels: Record<string, string> = {}): number => {
      const family = families.get(name) ?? families.get(name.replace(/_(count|sum)$/, ''))
      const found = family?.samples.filter(s => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? []
      return found.reduce((n, s) => n + s.value, 0)
    }
    assert.equal(sample('kafkats_producer_records_total', { topic }), RECORDS)
    assert.ok(sample('kafkats_producer_batches_total', { topic }) >= PARTITIONS)
    assert.equal(sample('kafkats_consumer_records_total', { topic }), RECORDS)
    assert.ok(sample('kafkats_requests_total', { api: 'Produce' }) >= sample('kafkats_producer_batches_total', { topic }) / 20)
    assert.equal(sample('kafkats_request_errors_total', { api: 'Produce' }), 0)
    assert.ok(sample('kafkats_request_sent_bytes_total', { api: 'Produce' }) > 61 * sample('kafkats_requests_total', { api: 'Produce' }), 'each Produce carries at least one 61-byte batch header')
    assert.ok(sample('kafkats_response_received_bytes_total', { api: 'Fetch' }) > 0)
    assert.ok(sample('kafkats_request_duration_seconds_count', { api: 'Produce' }) >= 1)
    assert.ok(sample('kafkats_consumer_fetch_duration_seconds_count') >= 1)
    assert.ok(sample('kafkats_producer_compression_ratio_count') >= PARTITIONS, 'gzip batches have a ratio')
    assert.ok(sample('kafkats_producer_compression_ratio_sum') / sample('kafkats_producer_compression_ratio_count') > 2, 'repetitive values compress well')
    assert.ok(sample('kafkats_group_rebalances_total', { group }) >= 1)
    assert.ok(sample('kafkats_group_commits_total', { group }) >= 1)
    assert.equal(sample('kafkats_producer_buffered_bytes'), 0, 'the producer was flushed')
    for (let p = 0; p < PARTITIONS; p++) assert.equal(sample('kafkats_consumer_lag', { group, topic, partition: String(p) }), 0, `partition ${p} fully consumed`)
    assert.equal(families.get('kafkats_request_duration_seconds')?.type, 'histogram')
  })
})

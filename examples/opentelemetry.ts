/**
 * Tracing kafkats with OpenTelemetry-style spans, built on its node:diagnostics_channel
 * tracing channels — no patching, no wrapper around the client, no dependency of kafkats.
 *
 *   npm run build && node dist/examples/opentelemetry.js            # starts a local broker
 *   KAFKA_BOOTSTRAP=host:9092 node dist/examples/opentelemetry.js
 *
 * `instrumentKafkats(tracer)` is what an OpenTelemetry instrumentation package would hold.
 * The tracer here is a tiny recorder with the shape of @opentelemetry/api's (startSpan,
 * setAttribute, recordException, setStatus, end; the active span in an AsyncLocalStorage
 * as its context manager does): swap in `trace.getTracer('kafkats')` and
 * `context.with(trace.setSpan(...))` for the real thing.
 *
 * The pattern, for each `kafkats:*` channel: open a span at `start` (bindStore makes it
 * the active span where kafkats runs your code inside the operation — a run() handler, a
 * send's continuation), add attributes from the context object, record `error`, end the
 * span at `asyncEnd`.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { tracingChannel } from 'node:diagnostics_channel'
import { Client, throwFirstError } from '../index'
import type { ConsumerBatchTrace, ProducerSendTrace, RebalanceTrace, RequestTrace } from '../client/instrumentation'
import { sharedBootstrap, startCluster, type KafkaCluster } from '../tests/broker/kafka'

// ---------------------------------------------------------------- a tiny span recorder (the @opentelemetry/api shape)

type Attributes = Record<string, string | number | boolean>

class RecordedSpan {
  readonly name: string
  readonly kind: 'client' | 'producer' | 'consumer' | 'internal'
  readonly parent: RecordedSpan | undefined
  readonly attributes: Attributes = {}
  readonly startedAt = performance.now()
  durationMs: number | undefined
  status: 'unset' | 'ok' | 'error' = 'unset'
  exception: string | undefined

  constructor (name: string, kind: RecordedSpan['kind'], parent: RecordedSpan | undefined) {
    this.name = name
    this.kind = kind
    this.parent = parent
  }

  setAttribute (key: string, value: string | number | boolean | undefined): this {
    if (value !== undefined) this.attributes[key] = value
    return this
  }

  recordException (error: unknown): void {
    this.exception = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  }

  setStatus (status: 'ok' | 'error'): void {
    this.status = status
  }

  end (): void {
    this.durationMs = performance.now() - this.startedAt
  }
}

class RecordingTracer {
  readonly spans: RecordedSpan[] = []
  /** The active span, as OpenTelemetry's AsyncLocalStorage context manager keeps it. */
  readonly active = new AsyncLocalStorage<RecordedSpan>()

  startSpan (name: string, kind: RecordedSpan['kind']): RecordedSpan {
    const span = new RecordedSpan(name, kind, this.active.getStore())
    this.spans.push(span)
    return span
  }
}

// ---------------------------------------------------------------- the instrumentation

/** Spans for kafkats's requests, sends, batch hand-outs and rebalances; returns the function that stops it. */
export function instrumentKafkats (tracer: RecordingTracer): () => void {
  const stops: Array<() => void> = []

  function trace<T extends object> (name: string, open: (context: T) => RecordedSpan, onEnd: (span: RecordedSpan, context: T) => void = () => {}): void {
    const channel = tracingChannel<RecordedSpan, T>(name)
    const spans = new WeakMap<T, RecordedSpan>()
    const spanOf = (context: T): RecordedSpan => {
      let span = spans.get(context)
      if (span === undefined) spans.set(context, span = open(context))
      return span
    }
    // Where kafkats runs code inside the operation (runStores), the span is the active one there.
    channel.start.bindStore(tracer.active, spanOf)
    const handlers = {
      start: (context: T) => { spanOf(context) },
      end: () => {},
      asyncStart: () => {},
      error: (context: T) => {
        const span = spanOf(context)
        span.recordException((context as { error?: unknown }).error)
        span.setStatus('error')
      },
      asyncEnd: (context: T) => {
        const span = spanOf(context)
        onEnd(span, context)
        if (span.status === 'unset') span.setStatus('ok')
        span.end()
      }
    }
    channel.subscribe(handlers)
    stops.push(() => {
      channel.unsubscribe(handlers)
      channel.start.unbindStore(tracer.active)
    })
  }

  trace<RequestTrace>('kafkats:request', c => tracer.startSpan(`kafka ${c.api}`, 'client')
    .setAttribute('messaging.system', 'kafka')
    .setAttribute('rpc.method', c.api)
    .setAttribute('kafka.api.version', c.version)
    .setAttribute('kafka.correlation_id', c.correlationId)
    .setAttribute('server.node_id', c.nodeId)
    .setAttribute('kafka.request.bytes', c.requestBytes), (span, c) => span.setAttribute('kafka.response.bytes', c.responseBytes))

  trace<ProducerSendTrace>('kafkats:producer:send', c => tracer.startSpan(`send ${c.topic}`, 'producer')
    .setAttribute('messaging.system', 'kafka')
    .setAttribute('messaging.destination.name', c.topic)
    .setAttribute('messaging.batch.message_count', c.records))

  trace<ConsumerBatchTrace>('kafkats:consumer:batch', c => tracer.startSpan(`process ${c.topic}`, 'consumer')
    .setAttribute('messaging.system', 'kafka')
    .setAttribute('messaging.destination.name', c.topic)
    .setAttribute('messaging.destination.partition.id', String(c.partition))
    .setAttribute('messaging.consumer.group.name', c.group)
    .setAttribute('messaging.batch.message_count', c.records)
    .setAttribute('messaging.kafka.offset', c.firstOffset === undefined ? undefined : Number(c.firstOffset)))

  trace<RebalanceTrace>('kafkats:group:rebalance', c => tracer.startSpan(`rebalance ${c.group}`, 'internal')
    .setAttribute('messaging.consumer.group.name', c.group)
    .setAttribute('kafka.member.id', c.memberId)
    .setAttribute('kafka.generation', c.generation), (span, c) => span
    .setAttribute('kafka.partitions.added', c.added?.length ?? 0)
    .setAttribute('kafka.partitions.revoked', c.revoked?.length ?? 0))

  return () => { for (const stop of stops) stop() }
}

// ---------------------------------------------------------------- a run: produce, consume, print the spans

async function main (): Promise<void> {
  const tracer = new RecordingTracer()
  const stop = instrumentKafkats(tracer)
  let cluster: KafkaCluster | undefined
  let bootstrap = sharedBootstrap()
  if (bootstrap === undefined) {
    console.log('No KAFKA_BOOTSTRAP set: starting a local Kafka 4.4 broker...')
    cluster = await startCluster({ nodes: 1, portBase: 'free' })
    bootstrap = cluster.bootstrap
  }
  const client = new Client({ bootstrap, clientId: 'otel-example' })
  const topic = `kafkats-otel-${Date.now().toString(36)}`
  try {
    throwFirstError(await client.admin.createTopics([{ topic, numPartitions: 2 }]))
    const producer = client.producer()
    await producer.send([{ topic, key: 'a', value: 'one' }, { topic, key: 'b', value: 'two' }, { topic, key: 'c', value: 'three' }])
    await producer.close()

    const consumer = client.consumer({ groupId: `${topic}-group`, topics: [topic], fromBeginning: true })
    let seen = 0
    await new Promise<void>((resolve, reject) => {
      consumer.run({
        eachBatch: async batch => {
          // Work done here is inside the batch's span: a span started now is its child.
          tracer.startSpan(`handle ${batch.records.length} record(s)`, 'internal').end()
          if ((seen += batch.records.length) >= 3) resolve()
        }
      }).catch(reject)
    })
    await consumer.close()
  } finally {
    await client.admin.deleteTopics([topic]).catch(() => {})
    await client.close()
    stop()
    await cluster?.stop()
  }

  // Print the spans as a tree, requests folded per API (there are many Fetch and Heartbeat).
  const children = new Map<RecordedSpan | undefined, RecordedSpan[]>()
  for (const span of tracer.spans) children.set(span.parent, [...(children.get(span.parent) ?? []), span])
  const print = (parent: RecordedSpan | undefined, depth: number): void => {
    const kids = children.get(parent) ?? []
    const requests = kids.filter(s => s.kind === 'client')
    for (const span of kids.filter(s => s.kind !== 'client')) {
      const attributes = Object.entries(span.attributes).map(([k, v]) => `${k}=${String(v)}`).join(' ')
      console.log(`${'  '.repeat(depth)}${span.name} [${span.kind}, ${span.status}, ${span.durationMs?.toFixed(1) ?? 'open'} ms] ${attributes}`)
      print(span, depth + 1)
    }
    const byApi = new Map<string, RecordedSpan[]>()
    for (const r of requests) byApi.set(r.name, [...(byApi.get(r.name) ?? []), r])
    for (const [name, spans] of byApi) {
      const failed = spans.filter(s => s.status === 'error').length
      console.log(`${'  '.repeat(depth)}${name} ×${spans.length} [client${failed > 0 ? `, ${failed} failed` : ''}]`)
    }
  }
  console.log(`\n${tracer.spans.length} spans:`)
  print(undefined, 0)
}

if (require.main === module) {
  main().catch(error => {
    console.error(error)
    process.exitCode = 1
  })
}

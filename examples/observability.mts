// Seeing what the client does: a logger, typed events, metrics in the Prometheus text format,
// and the node:diagnostics_channel tracing channels (what OpenTelemetry instrumentation uses).
//
//   node dist/examples/observability.mjs
import { tracingChannel } from 'node:diagnostics_channel'
import { Client } from 'kafkats'

// #region tracing
// Subscribed before anything runs; nothing is built or published while nobody subscribes.
// (The context types are not exported by kafkats yet: name the fields you read.)
interface RequestTrace { api: string, version: number, broker: string, durationMs?: number, error?: unknown }
const requests = tracingChannel<unknown, RequestTrace>('kafkats:request')
let traced = 0
requests.subscribe({
  start: () => {}, end: () => {}, asyncStart: () => {},
  asyncEnd: context => { if (traced++ < 3) console.log(`trace: ${context.api} v${context.version} to ${context.broker}: ${context.durationMs?.toFixed(1)} ms`) },
  error: context => console.error(`trace: ${context.api} failed: ${String(context.error)}`)
})
// #endregion tracing

// #region logger
// Any object with debug/info/warn/error: console, pino, winston. Default level 'warn'.
const client = new Client({
  bootstrap: process.env.KAFKA_BOOTSTRAP ?? 'localhost:9092',
  clientId: 'observed',
  logger: console,
  logLevel: 'warn'
})
// #endregion logger
const topic = process.env.TOPIC ?? 'observed'
await client.admin.createTopics([{ topic, numPartitions: 1 }], { ignoreExisting: true })

// #region events
// Typed events: a misspelt name or a wrong listener does not compile.
client.on('connect', ({ nodeId, broker, purpose }) => console.log(`event: connected to ${broker} (node ${nodeId}) for ${purpose}`))
const producer = client.producer()
producer.on('epochBump', ({ producerId, producerEpoch, reason }) => console.log(`event: producer ${producerId} epoch ${producerEpoch}: ${reason}`))
// #endregion events
await producer.send(Array.from({ length: 10 }, (_, i) => ({ topic, value: `m${i}` })))

// #region metrics
// A snapshot of the client and everything made from it; toPrometheus() for a /metrics endpoint.
const text = client.metrics().toPrometheus()
for (const line of text.split('\n')) if (line.startsWith('kafkats_producer_records_total')) console.log(`metric: ${line}`)
// #endregion metrics

await producer.close()
await client.close()

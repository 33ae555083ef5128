'use strict'
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS application, as the libraries it uses are */
// An application whose libraries require('kafkajs') themselves: a NestJS microservice on the
// Kafka transport (one request-reply, one event) traced by @opentelemetry/instrumentation-kafkajs.
// tests/integration/kafkajs-standin.test.ts installs it twice, on npm kafkajs and on kafkats
// through the stand-in, runs it on both against the same broker and compares what it writes:
//
//   BROKERS=host:port RUN=<unique name part> RESULT=<file> node app.js
//
// The result file gets which kafkajs each library loaded, the reply and the event received,
// the spans (name, kind, attributes, status, parent) and the messages metrics.
const fs = require('node:fs')
const path = require('node:path')

const brokers = process.env.BROKERS.split(',')
const run = process.env.RUN
const resultFile = process.env.RESULT

// OpenTelemetry before anything requires kafkajs: the instrumentation hooks that require.
const api = require('@opentelemetry/api')
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks')
const { W3CTraceContextPropagator } = require('@opentelemetry/core')
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base')
const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics')
const { registerInstrumentations } = require('@opentelemetry/instrumentation')
const { KafkaJsInstrumentation } = require('@opentelemetry/instrumentation-kafkajs')

const spans = new InMemorySpanExporter()
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
api.propagation.setGlobalPropagator(new W3CTraceContextPropagator())
api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }))
/** Collects when asked (no export interval). */
class OnDemandReader extends MetricReader {
  async onForceFlush () {}
  async onShutdown () {}
}
const metricReader = new OnDemandReader()
api.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [metricReader] }))
registerInstrumentations({ instrumentations: [new KafkaJsInstrumentation()] })

require('reflect-metadata')
const { Controller, Module } = require('@nestjs/common')
const { NestFactory } = require('@nestjs/core')
const { ClientKafka, EventPattern, MessagePattern, Transport } = require('@nestjs/microservices')
const { lastValueFrom, timeout } = require('rxjs')

const requestTopic = `standin-sum-${run}`
const eventTopic = `standin-created-${run}`

/** Which kafkajs a package loads when it requires 'kafkajs' from its own folder. */
function kafkajsOf (packageName) {
  const from = path.dirname(require.resolve(`${packageName}/package.json`))
  const file = require.resolve('kafkajs', { paths: [from] })
  const loaded = require(file)
  let layer = 'kafkajs'
  try {
    if (loaded.Kafka === require(require.resolve('kafkats/kafkajs', { paths: [from] })).Kafka) layer = 'kafkats'
  } catch {} // no kafkats installed: npm kafkajs
  return { layer, version: require(require.resolve('kafkajs/package.json', { paths: [from] })).version }
}

async function main () {
  const { Kafka } = require('kafkajs')
  const admin = new Kafka({ brokers, clientId: 'standin-setup', logLevel: 0 }).admin()
  await admin.connect()
  await admin.createTopics({ topics: [requestTopic, `${requestTopic}.reply`, eventTopic].map(topic => ({ topic, numPartitions: 1 })), waitForLeaders: true })
  const { clusterId } = await admin.describeCluster()
  await admin.disconnect()

  let eventReceived
  const eventArrived = new Promise(resolve => { eventReceived = resolve })
  class MathController {
    sum (numbers) { return numbers.reduce((a, b) => a + b, 0) }
    created (data) { eventReceived(data) }
  }
  MessagePattern(requestTopic)(MathController.prototype, 'sum', Object.getOwnPropertyDescriptor(MathController.prototype, 'sum'))
  EventPattern(eventTopic)(MathController.prototype, 'created', Object.getOwnPropertyDescriptor(MathController.prototype, 'created'))
  Controller()(MathController)
  class AppModule {}
  Module({ controllers: [MathController] })(AppModule)

  const kafka = { client: { clientId: `standin-${run}`, brokers, logLevel: 0 }, consumer: { groupId: `standin-${run}` }, subscribe: { fromBeginning: true } }
  const app = await NestFactory.createMicroservice(AppModule, { transport: Transport.KAFKA, options: kafka, logger: false })
  await app.listen()
  const client = new ClientKafka(kafka)
  client.subscribeToResponseOf(requestTopic)
  await client.connect()

  const reply = await lastValueFrom(client.send(requestTopic, [1, 2, 3]).pipe(timeout(60_000)))
  await lastValueFrom(client.emit(eventTopic, { id: 7 }))
  const event = await Promise.race([eventArrived, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('the event did not arrive within 60 s')), 60_000).unref())])

  await client.close()
  await app.close()

  const ended = spans.getFinishedSpans()
  const nameOf = new Map(ended.map(span => [span.spanContext().spanId, span.name]))
  const { resourceMetrics } = await metricReader.collect()
  const metrics = {}
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (!/messages$/.test(metric.descriptor.name)) continue
      metrics[metric.descriptor.name] = metric.dataPoints.map(point => ({ attributes: point.attributes, value: point.value }))
    }
  }
  const result = {
    loaded: Object.fromEntries(['@nestjs/microservices', '@opentelemetry/instrumentation-kafkajs', 'kafkajs-pinned-library'].map(name => [name, kafkajsOf(name)])),
    clusterId,
    reply,
    event,
    spans: ended.map(span => ({
      name: span.name,
      kind: span.kind,
      attributes: span.attributes,
      status: span.status.code,
      parent: span.parentSpanContext === undefined ? null : (nameOf.get(span.parentSpanContext.spanId) ?? 'unknown')
    })),
    metrics
  }
  fs.writeFileSync(resultFile, JSON.stringify(result, null, 2))
}

main().then(() => process.exit(0), error => {
  console.error(error)
  process.exit(1)
})

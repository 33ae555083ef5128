// kafkajs 2.2.4 runner of the groups benchmark (and, unchanged, kafkats/kafkajs's:
// config.kafkajsModule), classic protocol only: each member is a Kafka instance of its own
// with a consumer, subscribe({ fromBeginning: true }) and run({ autoCommit: false, eachBatch }).
// kafkajs's protocol is eager, so a member's assignment is empty from its REBALANCING event
// to its next GROUP_JOIN, which carries the new one; its REQUEST events give the request
// counts (see runner.ts for the timeline).
import { require, runMain, setup } from '../common/runner.mjs'

runMain(async () => {
  const { config, runGroups, reportResult, runtime } = setup()
  const shown = Object.entries(config.options).map(([key, value]) => `, ${key}: ${JSON.stringify(value)}`).join('')
  const settings = `a Kafka instance per member, consumer({ groupId${shown} }), subscribe({ fromBeginning: true }), run({ autoCommit: false, eachBatch }) (other settings: kafkajs's defaults: heartbeatInterval 3000, sessionTimeout 30000, roundrobin assigner)`
  if (config.protocol !== 'classic') {
    reportResult({ unavailable: 'kafkajs speaks the classic group protocol only (no KIP-848)', settings, runtime: runtime() })
    return
  }
  const { Kafka, logLevel } = require(config.kafkajsModule)

  await runGroups(config, settings, (index, watch, requests) => {
    const kafka = new Kafka({ clientId: `bench-groups-${index}`, brokers: config.bootstrap.split(','), logLevel: logLevel.NOTHING })
    const consumer = kafka.consumer({ groupId: config.groupId, allowAutoTopicCreation: false, ...config.options })
    const { REQUEST, GROUP_JOIN, REBALANCING, CRASH } = consumer.events
    consumer.on(REQUEST, ({ payload }) => { requests.count(payload.apiName) })
    consumer.on(REBALANCING, () => { watch.assignment(index, []) })
    consumer.on(GROUP_JOIN, ({ payload }) => { watch.assignment(index, payload.memberAssignment[config.topic] ?? []) })
    consumer.on(CRASH, ({ payload }) => { watch.problem(`member ${index} crashed: ${payload.error?.message ?? String(payload.error)}`) })
    return {
      start: async () => {
        await consumer.connect()
        await consumer.subscribe({ topics: [config.topic], fromBeginning: true })
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => { if (batch.messages.length > 0) watch.consumed(index, batch.partition) }
        })
      },
      close: async () => { await consumer.disconnect() }
    }
  })
})

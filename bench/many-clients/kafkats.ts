/**
 * kafkats runner of the many-clients benchmark: every producer and every consumer is a
 * Client of its own — `client.producer()` with its defaults and `send(records)`, and
 * `client.consumer({ groupId, topics, fromBeginning: true })` with `run({ eachBatch })`,
 * each consumer alone in its own group (see runner.ts for the timeline).
 */
import { Client } from '../../index'
import { readConfigArgument, runManyClients, runMain, type ManyClientsConfig } from './runner'

runMain(async () => {
  const config = readConfigArgument<ManyClientsConfig>()
  const options = { ...config.options }
  const shown = Object.entries(options).map(([key, value]) => `, ${key}: ${JSON.stringify(value)}`).join('')
  const settings = `a Client per producer and per consumer; client.producer() (its defaults: idempotent, acks=all), send(array); client.consumer({ groupId (one group per consumer), topics, fromBeginning: true${shown} }), run({ eachBatch }) (other settings: the defaults, so KIP-848 on a 4.x broker and autoCommit every 5 s)`
  const value = Buffer.alloc(config.valueSize, 'x')
  await runManyClients(config, settings, {
    producer: index => {
      const client = new Client({ bootstrap: config.bootstrap, clientId: `bench-many-producer-${index}` })
      const producer = client.producer()
      return {
        send: async count => { await producer.send(Array.from({ length: count }, () => ({ topic: config.topic, value }))) },
        close: async () => {
          await producer.close()
          await client.close()
        }
      }
    },
    consumer: (index, received) => {
      const client = new Client({ bootstrap: config.bootstrap, clientId: `bench-many-consumer-${index}` })
      const consumer = client.consumer({ groupId: `${config.groupId}-${index}`, topics: [config.topic], fromBeginning: true, ...options })
      let running: Promise<void> | undefined
      return {
        start: () => {
          running = consumer.run({ eachBatch: batch => { received(batch.records.length) } })
          running.catch(() => {})
        },
        close: async () => {
          await consumer.close()
          await client.close()
          await running?.catch(() => {})
        }
      }
    }
  })
})

/**
 * kafkats runner of the groups benchmark: each member is a Client of its own with
 * `client.consumer({ groupId, topics, groupProtocol, fromBeginning: true, autoCommit: false })`
 * and `run({ eachBatch })`; its 'assigned' and 'lost' events feed the GroupWatch, and its
 * Client's 'request' events the request counts (see runner.ts for the timeline).
 */
import { Client } from '../../index'
import { readGroupsConfig, runGroups, runMain, type BenchMember, type GroupWatch, type RequestCounter } from './runner'

runMain(async () => {
  const config = readGroupsConfig()
  const options = { ...config.options }
  const shown = Object.entries(options).map(([key, value]) => `, ${key}: ${JSON.stringify(value)}`).join('')
  const settings = `a Client per member, client.consumer({ groupId, topics, groupProtocol: '${config.protocol}', fromBeginning: true, autoCommit: false${shown} }), run({ eachBatch }) (other settings: the consumer's defaults)`

  const member = (index: number, watch: GroupWatch, requests: RequestCounter): BenchMember => {
    const client = new Client({ bootstrap: config.bootstrap, clientId: `bench-groups-${index}` })
    client.on('request', event => { requests.count(event.apiName) })
    const consumer = client.consumer({ groupId: config.groupId, topics: [config.topic], groupProtocol: config.protocol, fromBeginning: true, autoCommit: false, ...options })
    const ours = (partitions: Array<{ topic: string, partition: number }>): number[] => partitions.filter(p => p.topic === config.topic).map(p => p.partition)
    consumer.on('assigned', event => {
      watch.revoked(index, ours(event.revoked))
      watch.assigned(index, ours(event.added))
    })
    consumer.on('lost', event => { watch.revoked(index, ours(event.partitions)) })
    consumer.on('error', error => { watch.problem(`member ${index}: ${error.message}`) })
    let running: Promise<void> | undefined
    return {
      start: () => {
        running = consumer.run({ eachBatch: batch => { if (batch.records.length > 0) watch.consumed(index, batch.partition) } })
        running.catch(error => { watch.problem(`member ${index}: run() failed: ${String(error)}`) })
      },
      close: async () => {
        await consumer.close()
        await client.close()
        await running?.catch(() => {})
      }
    }
  }
  await runGroups(config, settings, member)
})

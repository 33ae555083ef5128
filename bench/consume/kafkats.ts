/**
 * kafkats Consumer runner: `client.consumer({ groupId, topics, fromBeginning: true,
 * delivery: 'at-least-once' })` and `for await (const batch of consumer)`, the way an
 * application reads a topic in a group; with `--options-kafkats '{"mode":"assign"}'` the
 * direct mode instead (every partition assigned from 'earliest', no group). The consumer
 * is looked up at run time, so this file compiles, and the orchestrator reports "kafkats
 * consumer not available yet", before consumer/ has one. Until the entry adds
 * `client.consumer()`, the direct mode falls back on consumer/consumer.ts's
 * `Consumer.assigned(client, options)`.
 */
import type { Client as ClientType } from '../../client/client'
import { cpuSecondsSince, finish, HeldRecords, readConfig, reportUnavailable, runMain, Tally, watchForStall } from './runner'

/** The part of the Consumer API this runner uses. */
interface BenchBatch {
  topic: string
  partition: number
  records: Array<{ offset: bigint, value: Buffer | null }>
}

interface BenchConsumer extends AsyncIterable<BenchBatch> {
  close: () => Promise<void>
}

interface ClientWithConsumer {
  consumer?: (options: Record<string, unknown>) => BenchConsumer
  close: () => Promise<void>
}

runMain(async () => {
  const config = readConfig()
  // The package entry adds client.consumer() to Client (as it does client.producer()).
  let Client: typeof ClientType
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a probe: the bench reports a build without it instead of failing to load
    Client = (require('../../index') as { Client: typeof ClientType }).Client
  } catch (error) {
    reportUnavailable(`kafkats consumer not available yet (the package entry does not load: ${(error as Error).message.split('\n')[0]})`)
    return
  }
  const { mode, retainRecords, ...consumerOptions } = { mode: 'group', ...config.options } as { mode: 'group' | 'assign', retainRecords?: number } & Record<string, unknown>
  const options: Record<string, unknown> = mode === 'assign'
    ? { assign: Array.from({ length: config.partitions }, (_, partition) => ({ topic: config.topic, partition, offset: 'earliest' })), ...consumerOptions }
    : { groupId: config.groupId, topics: [config.topic], fromBeginning: true, delivery: 'at-least-once', ...consumerOptions }
  const shown = Object.entries(options).filter(([key]) => key !== 'groupId' && key !== 'assign' && key !== 'topics')
    .map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
  let factory = 'client.consumer'
  const describe = (): string => mode === 'assign'
    ? `${factory}({ assign: every partition from 'earliest' }), no group${shown.length > 0 ? `, ${shown.join(', ')}` : ''}, for await over batches (other settings: the consumer's defaults)`
    : `client.consumer({ groupId, topics, ${shown.join(', ')} }), for await over batches (other settings: the consumer's defaults)`

  // retainRecords N: measure the memory the first N records take while held (before the clock starts).
  const held = retainRecords === undefined ? undefined : new HeldRecords(retainRecords)
  const cpuStart = process.cpuUsage()
  const tally = new Tally(config)
  const client = new Client({ bootstrap: config.bootstrap, clientId: 'bench-kafkats' }) as unknown as ClientWithConsumer
  let create = typeof client.consumer === 'function' ? client.consumer.bind(client) : undefined
  if (create === undefined && mode === 'assign') {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a probe, as above
      const { Consumer } = require('../../consumer/consumer') as { Consumer?: { assigned?: (client: unknown, options: Record<string, unknown>) => BenchConsumer } }
      const assigned = Consumer?.assigned
      if (typeof assigned === 'function') {
        create = (options) => assigned.call(Consumer, client, options)
        factory = 'Consumer.assigned(client, …)'
      }
    } catch {}
  }
  if (create === undefined) {
    await client.close()
    reportUnavailable('kafkats consumer not available yet')
    return
  }
  watchForStall(config, tally, cpuStart, describe)
  const consumer = create(options)
  for await (const batch of consumer) {
    const { partition, records } = batch
    for (let i = 0; i < records.length; i++) tally.add(partition, records[i].offset, records[i].value)
    if (held !== undefined) for (let i = 0; i < records.length; i++) held.hold(records[i])
    if (tally.received >= config.records) break
  }
  await consumer.close()
  await client.close()
  finish(config, tally, cpuSecondsSince(cpuStart), describe(), held?.result)
})

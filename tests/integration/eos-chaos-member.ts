// One member of the exactly-once chaos test (transactions-three-nodes.test.ts), in a process of its own so
// the test can SIGKILL and SIGSTOP it: a group consumer (read_committed) and a transactional
// producer in runTransactional, copying every input record to the output topic with its key.
// A fatal producer error (its transaction timed out while it was stopped, a fence) replaces
// the producer and goes on. Each stdout line is a JSON event (member-process.ts).
import { Client } from '../../client/client'
import { GroupConsumer } from '../../group/group-consumer'
import { runTransactional } from '../../group/transactional'
import { Producer } from '../../producer/producer'
import type { MemberConfig } from './group-chaos-support'
import { errorText, logEvent as log, readMemberConfig, reportCrashes } from './member-process'

const config = readMemberConfig<MemberConfig & { outputTopic: string, transactionTimeoutMs: number }>('tests/integration/transactions-three-nodes.test.ts')
reportCrashes()

const client = new Client({ bootstrap: config.bootstrap, clientId: `eos-${config.label}`, retryBackoff: { initialMs: 100, maxMs: 1000 } })
let committed = 0
let aborted = 0
let producers = 0

async function main (): Promise<void> {
  const consumer = new GroupConsumer(client, {
    groupId: config.groupId,
    topics: [config.topic],
    groupProtocol: config.groupProtocol,
    fromBeginning: true,
    isolation: 'read_committed',
    sessionTimeoutMs: config.sessionTimeoutMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    rebalanceTimeoutMs: config.rebalanceTimeoutMs,
    autoCommitIntervalMs: 600_000
  })
  consumer.on('transactionAborted', () => { aborted++ })
  consumer.on('lost', ({ reason }: { reason: string }) => log('lost', { reason }))
  setInterval(() => log('status', { committed, aborted, producers }), 2000).unref()
  process.once('SIGTERM', () => { void consumer.close().then(async () => { await client.close(); process.exit(0) }) })
  log('started', { pid: process.pid })
  for (;;) {
    producers++
    const producer = new Producer(client, { transactionalId: `eos-${config.groupId}-${config.label}`, transactionTimeoutMs: config.transactionTimeoutMs, lingerMs: 1 })
    try {
      const stats = await runTransactional(consumer, producer, {
        eachBatch: async (batch, tx) => {
          await tx.send(batch.records.map(r => ({ topic: config.outputTopic, key: r.key, value: r.value })))
        }
      })
      committed += stats.committed
      return
    } catch (error) {
      log('producerFailed', { message: errorText(error), state: producer.transactionState })
      await producer.close({ force: true })
    }
  }
}

main().catch(error => {
  log('error', { message: `failed: ${errorText(error)}` })
  process.exit(2)
})

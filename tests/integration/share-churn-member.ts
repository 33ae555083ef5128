// One member of the share-group churn test (share-churn.test.ts), run as its own process so
// the test can SIGKILL, SIGSTOP and SIGTERM it:
//
//   KAFKATS_GROUP_CHAOS_MEMBER='{"label":"A#1",…}' node dist/tests/integration/share-churn-member.js
//
// It appends two kinds of lines to its output file, each with a synchronous write, so they
// survive a SIGKILL:
// - "A <partition> <first> <last> <deliveryCount>": a range the broker acquired for this
//   member, written when the ShareFetch answer is decoded (from the kafkats:request tracing
//   channel), before any of its records is handed out;
// - "P <partition> <offset> <deliveryCount>": a record the handler processed, written
//   before the handler returns (implicit mode then accepts it).
// SIGTERM closes the consumer (releasing what is acquired and not processed) and exits 0.
// Each stdout line is a JSON event (member-process.ts; 'started' once SIGTERM is handled).
import * as fs from 'node:fs'
import { Client } from '../../index'
import { channels, type RequestTrace } from '../../client/instrumentation'
import { ShareConsumer } from '../../group/share-consumer'
import type { ShareFetchResponse } from '../../protocol/apis/share-fetch'
import { seededRandom } from './chaos-support'
import { errorText, logEvent as log, readMemberConfig, reportCrashes } from './member-process'
import type { ShareChurnMemberConfig } from './share-churn-support'
import { sleep } from '../support/wait'

const config = readMemberConfig<ShareChurnMemberConfig>('tests/integration/share-churn.test.ts')
reportCrashes()

const output = fs.openSync(config.output, 'a')
function writeAll (lines: string): void {
  const bytes = Buffer.from(lines, 'latin1')
  let written = 0
  while (written < bytes.length) written += fs.writeSync(output, bytes, written, bytes.length - written)
}

// Every acquisition the broker reports to this member, before its records are handed out.
channels.request.asyncStart.subscribe((message: unknown) => {
  const trace = message as RequestTrace
  if (trace.api !== 'ShareFetch' || trace.result === undefined) return
  let lines = ''
  for (const t of (trace.result as ShareFetchResponse).responses) {
    for (const p of t.partitions) {
      for (const range of p.acquiredRecords) lines += `A ${p.partitionIndex} ${range.firstOffset} ${range.lastOffset} ${range.deliveryCount}\n`
    }
  }
  if (lines !== '') writeAll(lines)
})

const random = seededRandom(config.seed)
const client = new Client({ bootstrap: config.bootstrap, clientId: `share-churn-${config.label}`, retryBackoff: { initialMs: 100, maxMs: 1000 } })
const consumer = new ShareConsumer(client, { groupId: config.groupId, topics: [config.topic], maxRecords: config.maxRecords, maxWaitMs: 200 })
let processed = 0
let refused = 0
consumer.on('acknowledged', result => { if (result.error !== null) refused += result.offsets.length })
consumer.on('error', error => log('error', { message: errorText(error) }))

let closing = false
process.once('SIGTERM', () => {
  closing = true
  log('closing', { processed })
  const timer = setTimeout(() => { log('closeTimeout', {}); process.exit(3) }, config.closeTimeoutMs)
  void (async () => {
    await consumer.close()
    await client.close()
    clearTimeout(timer)
    log('closed', { processed, refused })
    fs.closeSync(output)
    process.exit(0)
  })().catch(error => { log('error', { message: `closing: ${errorText(error)}` }); process.exit(5) })
})

log('started', { pid: process.pid })
setInterval(() => log('status', { processed, refused }), 2000).unref()
consumer.run({
  eachBatch: async batch => {
    if (config.maxProcessingDelayMs > 0 && random() < 0.3) await sleep(Math.floor(random() * config.maxProcessingDelayMs))
    let lines = ''
    for (const record of batch.records) lines += `P ${batch.partition} ${record.offset} ${record.deliveryCount}\n`
    writeAll(lines)
    processed += batch.records.length
  }
}).then(() => {
  if (!closing) { log('error', { message: 'run() ended without SIGTERM' }); process.exit(2) }
}, error => { log('error', { message: `run() failed: ${errorText(error)}` }); process.exit(2) })

// A share group member run as its own process, so share-groups.test.ts can SIGKILL it while
// it holds acquired records:
//
//   KAFKATS_SHARE_MEMBER='{"bootstrap":[…],"groupId":"…","topic":"…","maxRecords":50}' node dist/tests/integration/share-member.js
//
// It acknowledges nothing (explicit mode) and prints one JSON line per batch it acquired:
// {"acquired":[offsets…],"deliveryCounts":[…]}.
import { Client } from '../../index'
import { ShareConsumer } from '../../group/share-consumer'

const config = JSON.parse(process.env.KAFKATS_SHARE_MEMBER ?? 'null') as { bootstrap: string[], groupId: string, topic: string, maxRecords: number } | null
if (config === null) {
  console.error('KAFKATS_SHARE_MEMBER is not set: this program is started by tests/integration/share-groups.test.ts')
  process.exit(64)
}
const client = new Client({ bootstrap: config.bootstrap, clientId: 'kafkats-share-member' })
const consumer = new ShareConsumer(client, { groupId: config.groupId, topics: [config.topic], acknowledgement: 'explicit', maxRecords: config.maxRecords })
void (async () => {
  for await (const batch of consumer) {
    process.stdout.write(JSON.stringify({ acquired: batch.records.map(r => r.offset.toString()), deliveryCounts: batch.records.map(r => r.deliveryCount) }) + '\n')
  }
})().catch((error: Error) => {
  process.stdout.write(JSON.stringify({ error: error.message }) + '\n')
  process.exit(3)
})

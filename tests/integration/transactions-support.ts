// Shared by the transaction tests against real brokers (transactions*.test.ts).
import { Consumer, type Client, type KafkaRecord } from '../../index'
import { takeBatch } from './consumer-support'
import { waitFor } from '../support/wait'
import { consumerInternals } from '../../consumer/consumer'

/** Every value a kafkats read_committed consumer returns from offset 0 up to the partition's end now. */
export async function readCommitted (client: Client, topic: string, partition: number): Promise<string[]> {
  const end = (await client.listOffsets({ topic, partition, spec: 'latest' })).offset
  const consumer = Consumer.assigned(client, { assign: [{ topic, partition, offset: 0n }], isolation: 'read_committed', maxWaitMs: 100 })
  const records: KafkaRecord[] = []
  try {
    const cursor = consumerInternals(consumer).cursor(topic, partition)!
    await waitFor(`read_committed to reach offset ${end} of ${topic}-${partition}`, async () => {
      const handed = await takeBatch(consumer, 300)
      if (handed !== undefined) {
        records.push(...handed.batch.records)
        handed.finish()
      }
      return handed === undefined && cursor.fetchOffset !== undefined && cursor.fetchOffset >= end
    }, { timeoutMs: 60_000, intervalMs: 0 })
  } finally {
    await consumer.close()
  }
  return records.map(r => r.value?.toString() ?? '')
}

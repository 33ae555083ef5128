// Shared bits of the real-broker hand-out and fencing tests (group-handout,
// group-slow-handler, group-fencing): a topic with one record per batch, members with short
// timeouts, the committed offset as the broker holds it, and gates.
import { Client } from '../../index'
import { GroupConsumer, type GroupConsumerOptions } from '../../group/group-consumer'
import { OffsetFetch } from '../../protocol/apis/offset-fetch'
import { uniqueName } from './support'

export type Protocol = 'consumer' | 'classic'



export interface Gate {
  promise: Promise<void>
  release: () => void
}

export function gate (): Gate {
  let release!: () => void
  const promise = new Promise<void>(resolve => { release = resolve })
  return { promise, release }
}

export async function committedOffset (client: Client, groupId: string, topic: string, partition: number): Promise<bigint> {
  const topicId = client.metadata.topic(topic)?.topicId
  const response = await client.request(OffsetFetch, version => version >= 8
    ? { groups: [{ groupId, topics: [version >= 10 ? { topicId, partitionIndexes: [partition] } : { name: topic, partitionIndexes: [partition] }] }] }
    : { groupId, topics: [{ name: topic, partitionIndexes: [partition] }] })
  const topics = response.groups.length > 0 ? response.groups[0].topics : response.topics
  return topics[0]?.partitions[0]?.committedOffset ?? -1n
}

/** A topic whose records are one per batch. */
export async function oneRecordPerBatchTopic (client: Client, name: string, partitions: number, count: number): Promise<string> {
  const topic = uniqueName(name)
  await client.admin.createTopics([{ topic, numPartitions: partitions }])
  for (let p = 0; p < partitions; p++) {
    for (let i = 0; i < count; i++) await client.produceRaw({ topic, partition: p, records: [{ value: Buffer.from(`${p}:${i}`) }] })
  }
  return topic
}

export function member (client: Client, protocol: Protocol, groupId: string, topic: string, extra: Partial<GroupConsumerOptions> = {}): GroupConsumer {
  return new GroupConsumer(client, {
    groupId,
    topics: [topic],
    groupProtocol: protocol,
    fromBeginning: true,
    // One record batch per fetch, so the batch a test holds is one offset.
    maxPartitionBytes: 1,
    rebalanceTimeoutMs: 3000,
    // Classic only: a KIP-848 broker sets them (the harness's group.consumer.* settings).
    ...(protocol === 'classic' ? { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300 } : {}),
    autoCommitIntervalMs: 100,
    assignor: protocol === 'classic' ? 'cooperative-sticky' : undefined,
    ...extra
  })
}

/**
 * kafkajs's consumer configuration and payload types, their checks (kafkajs's errors), and
 * the mapping of a kafkajs consumer's config onto kafkats's GroupConsumerOptions.
 */
import type { Assignor } from '../group/assignors'
import type { GroupConsumerOptions } from '../group/group-consumer'
import { recordMakerOption, type WithRecordMaker } from '../consumer/consumer'
import { KafkaJSNonRetriableError } from './errors'
import { KafkaMessageMaker } from './messages'
import type { ConsumerConfig, ConsumerRunConfig } from './types'

export type { ConsumerConfig, ConsumerRunConfig, ConsumerSubscribeTopic, ConsumerSubscribeTopics, EachBatchPayload, EachMessagePayload, Offsets, PartitionOffset, TopicOffsets, TopicPartitionOffsetAndMetadata } from './types'

/** A subscription pattern no topic name matches: run() without subscribe(). */
const NO_TOPIC = /(?!)/

/** The constructor's checks of a consumer config. */
export function checkConsumerConfig (config: ConsumerConfig): void {
  if (config === undefined || typeof config.groupId !== 'string' || config.groupId === '') throw new KafkaJSNonRetriableError('Consumer groupId must be a non-empty string.')
  const sessionTimeout = config.sessionTimeout ?? 30_000
  const heartbeatInterval = config.heartbeatInterval ?? 3000
  if (heartbeatInterval >= sessionTimeout) {
    throw new KafkaJSNonRetriableError(`Consumer heartbeatInterval (${heartbeatInterval}) must be lower than sessionTimeout (${sessionTimeout}). It is recommended to set heartbeatInterval to approximately a third of the sessionTimeout.`)
  }
}

export function parseOffset (offset: unknown): bigint {
  try {
    if (typeof offset !== 'string' && typeof offset !== 'number' && typeof offset !== 'bigint') throw new Error('not a long')
    return BigInt(offset)
  } catch {
    throw new KafkaJSNonRetriableError(`Invalid offset, expected a long received ${String(offset)}`)
  }
}

export function checkTopicPartitions (topicPartitions: Array<{ topic: string, partitions?: number[] }>): void {
  for (const tp of topicPartitions) {
    if (tp === undefined || tp === null || typeof tp.topic !== 'string' || tp.topic === '') throw new KafkaJSNonRetriableError(`Invalid topic ${String(tp?.topic ?? tp)}`)
    if (tp.partitions !== undefined && (!Array.isArray(tp.partitions) || tp.partitions.some(p => isNaN(p)))) {
      throw new KafkaJSNonRetriableError(`Array of valid partitions required to pause specific partitions instead of ${String(tp.partitions)}`)
    }
  }
}

/** The GroupConsumer options of a kafkajs consumer's config and run() config. */
export function groupConsumerOptions (config: ConsumerConfig, runConfig: ConsumerRunConfig, topics: string[], fromBeginning: boolean, assignor: Assignor): WithRecordMaker<GroupConsumerOptions> {
  const options: WithRecordMaker<GroupConsumerOptions> = {
    groupId: config.groupId,
    topics: topics.length > 0 ? topics : NO_TOPIC,
    groupProtocol: 'classic',
    assignor,
    fromBeginning,
    sessionTimeoutMs: config.sessionTimeout ?? 30_000,
    rebalanceTimeoutMs: config.rebalanceTimeout ?? 60_000,
    // kafkajs takes 0 (a heartbeat at every chance, i.e. after each fetch); kafkats heartbeats on a timer, at most every 100 ms then.
    heartbeatIntervalMs: config.heartbeatInterval === 0 ? 100 : config.heartbeatInterval ?? 3000,
    maxPartitionBytes: config.maxBytesPerPartition ?? 1_048_576,
    minBytes: config.minBytes ?? 1,
    maxBytes: config.maxBytes ?? 10_485_760,
    maxWaitMs: config.maxWaitTimeInMs ?? 5000,
    isolation: config.readUncommitted === true ? 'read_uncommitted' : 'read_committed',
    // The commit schedule is kafkajs's, driven from here (see auto-commit.ts). With kafkajs's
    // autoCommit: false (as for its transactions' sendOffsets) the engine commits nothing
    // either, not at a revoke nor at stop: kafkajs commits only when asked then.
    ...(runConfig.autoCommit === false ? { autoCommit: false } : { autoCommitIntervalMs: 2_147_483_647 }),
    emptyBatches: true,
    // A kafkajs batch is a partition's fetch answer, of up to maxBytesPerPartition. A big answer
    // comes in parts of about 2 MiB of decoded messages instead: its messages are all alive
    // while the handler runs, and a 4 MiB answer of small messages (~33,000) outlives V8's
    // young generation (collection then cost 1.5x what decoding did). kafkajs promises no
    // batch size (the broker may answer with less); its commit after each fetched batch
    // comes after the answer's last part (HandedBatch.moreOfAnswer).
    maxBatchRecords: Number.MAX_SAFE_INTEGER,
    maxBatchBytes: 2 * 1024 * 1024,
    [recordMakerOption]: new KafkaMessageMaker()
  }
  if (config.rackId !== undefined && config.rackId !== '') options.rack = config.rackId
  return options
}

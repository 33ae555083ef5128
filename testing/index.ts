/**
 * kafkats/testing: an in-process fake Kafka cluster for applications' tests (and kafkats's
 * own). It speaks the wire protocol on loopback, so any client can use it: kafkats,
 * kafkajs, or anything else that speaks Kafka. See README.md in this folder.
 *
 * @module kafkats/testing
 */
export { FakeCluster } from './cluster'
export { FakeClock, withClock } from './fake-clock'
export type { Clock, ClockTimer } from '../client/clock'
export type { Api } from '../protocol/api'
export type { StructType, ArrayType, FieldSpec, FieldType, Primitive, VersionRange } from '../protocol/schema'
export type { Writer } from '../protocol/writer'
export type { Reader } from '../protocol/reader'
export type { RecordHeader } from '../protocol/record-batch'
export type { TopicPartition } from './group-common'
export type { ShareRecordState } from './share-groups'
export type {
  FakeClusterOptions, ProduceAttempt, PartitionInfo, RequestLogEntry, RequestOutcome, InterceptAction,
  InterceptedRequest, Interceptor, InterceptOptions, LogRecord, ProduceBatchSummary, GroupConfig, GroupEvent,
  GroupInfo, GroupMemberInfo, CommitLogEntry, CommitLogPartition, CommittedOffset
} from './cluster'
export type { ApiSelector, RequestAction } from './intercept'
export type { TransactionEntry, TransactionEvent, TransactionStateName } from './transactions'

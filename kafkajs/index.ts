/**
 * kafkats/kafkajs: kafkajs 2.2.4's API on kafkats's engine. Change the import, keep the code:
 *
 *   const { Kafka } = require('kafkats/kafkajs')   // was: require('kafkajs')
 *
 * A translation layer only (docs/migrating-from-kafkajs.md says what differs and why).
 *
 * @module kafkats/kafkajs
 */
import { provideMissingGlobals } from './environment'

provideMissingGlobals()

export { Kafka } from './kafka'
export type { KafkaConfig, RetryOptions, SASLOptions, SASLMechanism, BrokersFunction, ISocketFactory, ISocketFactoryArgs } from './kafka'
export { logLevel, CompressionTypes, ConfigResourceTypes, ConfigSource, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes, ResourceTypes } from './constants'
export { CompressionCodecs } from './producer'
export type { KafkaJSProducer as Producer, Transaction, ProducerConfig, Message, IHeaders, ProducerRecordKJS as ProducerRecord, ProducerBatch, TopicMessages, RecordMetadata } from './producer'
export type { KafkaJSConsumer as Consumer, ConsumerConfig, ConsumerRunConfig, ConsumerSubscribeTopic, ConsumerSubscribeTopics, EachMessagePayload, EachBatchPayload, Batch, KafkaMessage, Offsets, TopicOffsets, PartitionOffset, TopicPartitionOffsetAndMetadata } from './consumer'
export type { KafkaJSAdmin as Admin, AdminConfig, ITopicMetadata, ConfigEntries, ConfigSynonyms, DescribeConfigResponse, AlterConfigResponse, GroupDescription, GroupDescriptions, MemberDescription, DescribeAclResponse, DeleteAclResponse, AclResource, AclEntry, MatchingAcl } from './admin'
export { Partitioners } from './partitioners'
export type { ICustomPartitioner, PartitionerArgs, DefaultPartitioner, LegacyPartitioner, JavaCompatiblePartitioner } from './partitioners'
export { PartitionAssigners, AssignerProtocol } from './assigners'
export type { PartitionAssigner, AssignerCluster, Assigner, GroupMember, GroupMemberAssignment, GroupState, MemberMetadata, MemberAssignment, PartitionMetadata } from './assigners'
export type { LogEntry, LogCreator, Logger } from './logger'
export type { InstrumentationEvent, RemoveInstrumentationEventListener, AdminEventPayloads, ConsumerEventPayloads, ProducerEventPayloads, RequestEventPayload, RequestEventPayloadBase, RequestQueueSizeEventPayload, BatchProcessEventPayload, NetworkEventPayloads } from './instrumentation'
export {
  KafkaJSError, KafkaJSNonRetriableError, KafkaJSPartialMessageError, KafkaJSBrokerNotFound, KafkaJSProtocolError,
  KafkaJSConnectionError, KafkaJSConnectionClosedError, KafkaJSRequestTimeoutError, KafkaJSSASLAuthenticationError,
  KafkaJSNumberOfRetriesExceeded, KafkaJSOffsetOutOfRange, KafkaJSMemberIdRequired, KafkaJSGroupCoordinatorNotFound,
  KafkaJSNotImplemented, KafkaJSMetadataNotLoaded, KafkaJSTopicMetadataNotLoaded, KafkaJSStaleTopicMetadataAssignment,
  KafkaJSDeleteGroupsError, KafkaJSTimeout, KafkaJSLockTimeout, KafkaJSServerDoesNotSupportApiKey,
  KafkaJSUnsupportedMagicByteInMessageSet, KafkaJSDeleteTopicRecordsError, KafkaJSInvariantViolation,
  KafkaJSInvalidVarIntError, KafkaJSInvalidLongError, KafkaJSCreateTopicError, KafkaJSAggregateError,
  KafkaJSFetcherRebalanceError, KafkaJSNoBrokerAvailableError, KafkaJSAlterPartitionReassignmentsError
} from './errors'
export type { MessageOrError, ProtocolErrorInfo, ProtocolErrorSource, DeleteTopicRecordsPartitionError } from './errors'

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
export { logLevel, CompressionTypes, ConfigResourceTypes, ConfigSource, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } from './constants'
export { CompressionCodecs } from './producer'
export { Partitioners } from './partitioners'
export { PartitionAssigners, AssignerProtocol } from './assigners'
// kafkajs 2.2.4's types, every name its types/index.d.ts exports (types.ts).
export type {
  Without, XOR, ValueOf, BrokersFunction, SaslAuthenticationRequest, SaslAuthenticationResponse, Authenticator, SaslAuthenticateArgs,
  AuthenticationProviderArgs, Mechanism, OauthbearerProviderResponse, SASLMechanismOptionsMap, SASLMechanism, SASLMechanismOptions, SASLOptions,
  RetryOptions, ISocketFactoryArgs, ISocketFactory, KafkaConfig, LoggerEntryContent, LogEntry, logCreator, Logger,
  ProducerConfig, IHeaders, Message, PartitionerArgs, ICustomPartitioner, DefaultPartitioner, LegacyPartitioner, PartitionMetadata,
  ProducerRecord, RecordMetadata, TopicMessages, ProducerBatch, PartitionOffset, TopicOffsets, Offsets, Sender, ProducerEvents, Producer, Transaction,
  ConsumerConfig, MessageSetEntry, RecordBatchEntry, KafkaMessage, Batch, OffsetsByTopicPartition, EachMessagePayload, EachBatchPayload,
  ConsumerEachMessagePayload, ConsumerEachBatchPayload, EachBatchHandler, EachMessageHandler, ConsumerRunConfig, ConsumerSubscribeTopic,
  ConsumerSubscribeTopics, TopicPartitions, TopicPartition, TopicPartitionOffset, TopicPartitionOffsetAndMetadata, SeekEntry, ConsumerEvents,
  IMemberAssignment, IBatchProcessEvent, ConsumerHeartbeatEvent, ConsumerCommitOffsetsEvent, ConsumerGroupJoinEvent, ConsumerFetchStartEvent,
  ConsumerFetchEvent, ConsumerStartBatchProcessEvent, ConsumerEndBatchProcessEvent, ConsumerCrashEvent, ConsumerRebalancingEvent,
  ConsumerReceivedUnsubcribedTopicsEvent, Consumer, CoordinatorMetadata, BrokerMetadata, ApiVersions, Broker, Cluster, Assignment, GroupMember,
  GroupMemberAssignment, GroupState, Assigner, PartitionAssigner, ISerializer, MemberMetadata, MemberAssignment, ConsumerGroup, AdminConfig,
  ReplicaAssignment, IResourceConfigEntry, ITopicConfig, ITopicPartitionConfig, ITopicMetadata, PartitionReassignment, ResourceConfigQuery,
  ConfigSynonyms, ConfigEntries, DescribeConfigResponse, IResourceConfig, Acl, AclResource, AclEntry, DescribeAclResource, DescribeAclResponse,
  AclFilter, MatchingAcl, DeleteAclFilterResponses, DeleteAclResponse, OngoingPartitionReassignment, OngoingTopicReassignment,
  ListPartitionReassignmentsResponse, MemberDescription, ConsumerGroupState, GroupDescription, GroupDescriptions, GroupOverview, DeleteGroupsResult,
  FetchOffsetsPartition, AdminEvents, Admin, InstrumentationEvent, RemoveInstrumentationEventListener, ConnectEvent, DisconnectEvent, RequestEvent,
  RequestTimeoutEvent, RequestQueueSizeEvent, KafkaJSErrorMetadata, KafkaJSOffsetOutOfRangeMetadata, KafkaJSNumberOfRetriesExceededMetadata,
  KafkaJSConnectionErrorMetadata, KafkaJSRequestTimeoutErrorMetadata, KafkaJSTopicMetadataNotLoadedMetadata, KafkaJSStaleTopicMetadataAssignmentMetadata,
  KafkaJSServerDoesNotSupportApiKeyMetadata, KafkaJSDeleteGroupsErrorGroups, KafkaJSDeleteTopicRecordsErrorPartition, KafkaJSDeleteTopicRecordsErrorTopic
} from './types'
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

/**
 * kafkats: a Kafka client for Node.js.
 *
 *   import { Client } from 'kafkats'
 *   const client = new Client({ bootstrap: ['localhost:9092'] })
 *
 * @module kafkats
 */
import { Client as ClientCore } from './client/client'
import { Producer, type ProducerBytes, type ProducerOptions } from './producer/producer'
import { Consumer, type AssignOptions } from './consumer/consumer'
import { GroupConsumer, type GroupConsumerOptions } from './group/group-consumer'
import { Admin } from './admin/index'
import { ShareConsumer, type ShareConsumerOptions } from './group/share-consumer'
export type { Client as ClientCore, ClientOptions, RequestOptions, ProduceRawOptions, ProduceRawResult, FetchRawOptions, FetchRawResult, OffsetSpec, Isolation, Acks, ClientResource, ClientEvents, CloseOptions } from './client/client'
export type { ProtocolViolationEvent, ConnectionPurpose } from './client/brokers'
export type {
  TypedEvents, ConnectEvent, DisconnectEvent, ReconnectEvent, AuthenticateEvent, AuthenticationErrorEvent, ThrottleEvent, LeaderChangeEvent, PartitionCountChangeEvent, RequestRetryEvent, RequestEvent
} from './client/events'
export type { Logger, LogLevel, LogFields } from './client/logger'
export type { BackoffOptions } from './client/backoff'
export type { Clock, ClockTimer } from './client/clock'
export type { ClientMetrics, ClientMetricsData, HistogramSnapshot } from './client/metrics'
export type { TypedEmitter, TypedEmitterClass, EventArgs, EventName, EventListener } from './client/events'
export { Admin, authorizedOperationNames, firstError, throwFirstError } from './admin/index'
export type * from './admin/index'
export type { ClusterMetadata, TopicMetadata, PartitionMetadata } from './client/metadata'
export type { BrokerAddress } from './client/brokers'
export type { SaslOptions, OAuthBearerToken } from './client/sasl'
export type { SocketFactory, SocketFactoryArgs, TlsOptions } from './client/connection'
export { KafkaTsError, ProtocolError, BrokerError, ErrorKind } from './protocol/errors'
export type { RequestFailureDetails } from './client/errors'
export { ConnectionError, RequestTimeoutError, AbortedError, UnsupportedVersionError, ClientClosedError, AuthenticationError, TlsError, UnknownTopicError, MalformedResponseError, ProtocolViolationError } from './client/errors'
export { errorCodeInfo, errorCode, allErrorCodes } from './protocol/error-codes'
export type { ErrorCodeInfo } from './protocol/error-codes'
/** Every Kafka API kafkats speaks, one Api each (`apis.Produce`, `apis.Fetch`...), with its request and response types: for `client.request()`. */
export * as apis from './protocol/apis/index'
export type { Api, AnyApi } from './protocol/api'
export type { StructType, ArrayType, FieldSpec, FieldType, Primitive, VersionRange } from './protocol/schema'
export type { Writer } from './protocol/writer'
export type { Reader } from './protocol/reader'
export { encodeRecordBatch, decodeRecordBatches } from './protocol/record-batch'
export type { KafkaRecord, RecordBatch, RecordHeader, RecordInput, ControlRecord, DecodeContext, EncodeRecordBatchOptions, RecordMaker } from './protocol/record-batch'
export type { CompressionCodec, NativeCodec } from './protocol/compression'
export { CompressionCodecUnavailableError } from './protocol/compression'
export { CompressedBatchError } from './protocol/record-batch'
export { murmur2 } from './protocol/murmur2'
export { serializers, deserializers, SerializationError } from './client/serializers'
export type { Serializer, Deserializer, Serializers, Deserializers, SerializedBytes, ConsumerRecord } from './client/serializers'
export { Producer }
export type { ProducerOptions, ProducerRecord, ProducerBytes, ProducerHeaders, SendOptions, DataLossEvent, AmbiguousEvent, EpochBumpEvent, ProducerEvents, TransactionScope } from './producer/producer'
export type { RecordOutcome } from './producer/errors'
export {
  TransactionAbortableError, TransactionFatalError, ProducerFencedError, TransactionOutcomeUnknownError, TransactionAbortedError, TransactionStateError
} from './producer/transaction'
export type { TransactionState, ConsumerGroupMetadata, TransactionOffset, SendOffsetsOptions, TransactionCallOptions } from './producer/transaction'
export { runTransactional } from './group/transactional'
export type { TransactionalRunOptions, TransactionalStats } from './group/transactional'
export type { TransactionAbortedEvent } from './group/group-events'
export type { RecordMetadata, RecordCallback } from './producer/batch'
export { Consumer, GroupConsumer }
export type { DeserializerOptions } from './consumer/consumer-options'
export type { PartitionLag as ConsumerPartitionLag } from './client/metrics'
export type { AssignOptions, FetchOptions, FetchErrorEvent, FetchEvent, TruncationEvent, ConsumerBatch, HandedBatch, BatchesOptions, RunOptions, RunRetryOptions, ProcessingTimeoutEvent, HandlerErrorEvent, ConsumerEvents, OffsetSpec as ConsumerOffsetSpec } from './consumer/consumer'
export type { GroupConsumerOptions, DeliveryMode, RefusedCommit, GroupConsumerEvents, AssignedEvent, RebalancingEvent, LostEvent, BatchDroppedEvent } from './group/group-consumer'
export type { TopicPartition, MemberIdentity } from './group/membership'
export type { Assignor, SyncAssignor, MemberSubscription } from './group/assignors'
export { rangeAssignor, roundRobinAssignor, cooperativeStickyAssignor } from './group/assignors'
export { StaticMembershipError, GroupProtocolUnsupportedError, ShareGroupsDisabledError } from './group/errors'
export { ShareConsumer }
export type { ShareConsumerOptions, ShareRunOptions, ShareConsumerEvents, ShareAcknowledgementMode, ShareDeadLetterOptions } from './group/share-consumer'
export type { ShareRecord } from './consumer/share-source'
export type { ShareBatch, ShareAcknowledgementResult, AcknowledgementKind } from './consumer/share-source'
export { ProducerIdentityError } from './producer/identity'
export { OutcomeUnknownError, DeliveryTimeoutError, BufferFullError, ProducerClosedError, TopicDeletedError, SendError, RecordTooLargeError } from './producer/errors'
export type { PartitionerOption, Partitioner, PartitionerInput, PartitionerFunction } from './producer/partitioners'

/**
 * The client users make: the broker I/O core (client/client.ts) plus the factories of what runs
 * on it. The core cannot make producers or consumers itself (client/ imports only protocol/),
 * so the entry point, which sees every layer, adds them as a subclass: plain methods, nothing
 * patched onto the core's prototype, and so no import with side effects.
 */
export class Client extends ClientCore {
  #admin: Admin | undefined

  /** A new Producer on this client's connections and metadata. */
  producer<K = ProducerBytes, V = ProducerBytes> (options?: ProducerOptions<K, V>): Producer<K, V> {
    return new Producer(this, options)
  }

  /** A consumer of assigned partitions (`assign`), or a member of a consumer group (`groupId`). */
  consumer<K = Buffer, V = Buffer> (options: GroupConsumerOptions<K, V>): GroupConsumer<K, V>
  consumer<K = Buffer, V = Buffer> (options: AssignOptions<K, V>): Consumer<K, V>
  consumer (options: GroupConsumerOptions<unknown, unknown> | AssignOptions<unknown, unknown>): GroupConsumer<unknown, unknown> | Consumer<unknown, unknown> {
    if ('groupId' in options && options.groupId !== undefined) return new GroupConsumer(this, options)
    if ('assign' in options && options.assign !== undefined) return Consumer.assigned(this, options)
    throw new TypeError('client.consumer() needs either { groupId, topics } for a consumer group or { assign: [{ topic, partition, offset }] } for direct consumption')
  }

  /** A member of a share group (KIP-932): records acquired one by one, acknowledged one by one. */
  shareConsumer (options: ShareConsumerOptions): ShareConsumer {
    return new ShareConsumer(this, options)
  }

  /** The cluster's management calls (admin/), made on first use. */
  get admin (): Admin {
    return (this.#admin ??= new Admin(this))
  }
}

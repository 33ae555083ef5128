/**
 * kafkats: a Kafka client for Node.js.
 *
 *   import { Client } from 'kafkats'
 *   const client = new Client({ bootstrap: ['localhost:9092'] })
 */
import { Client } from './client/client'
import { Producer, type ProducerBytes, type ProducerOptions } from './producer/producer'
import { Consumer, type AssignOptions } from './consumer/consumer'
import { GroupConsumer, type GroupConsumerOptions } from './group/group-consumer'
import { Admin } from './admin/index'
import { ShareConsumer, type ShareConsumerOptions } from './group/share-consumer'
export { Client }
export type { ClientOptions, RequestOptions, ProduceRawOptions, ProduceRawResult, FetchRawOptions, FetchRawResult, OffsetSpec, Isolation, Acks, ClientResource, ClientEvents } from './client/client'
export type { ProtocolViolationEvent, ConnectionPurpose } from './client/brokers'
export type {
  TypedEvents, ConnectEvent, DisconnectEvent, ReconnectEvent, AuthenticateEvent, AuthenticationErrorEvent, ThrottleEvent, LeaderChangeEvent, PartitionCountChangeEvent, RequestRetryEvent, RequestEvent
} from './client/events'
export type { Logger, LogLevel, LogFields } from './client/logger'
export { Admin, authorizedOperationNames } from './admin/index'
export type * from './admin/index'
export type { TopicMetadata, PartitionMetadata } from './client/metadata'
export type { SaslOptions, OAuthBearerToken } from './client/sasl'
export type { SocketFactory, SocketFactoryArgs, TlsOptions } from './client/connection'
export { Connection } from './client/connection'
export { KafkaTsError, ProtocolError, BrokerError } from './protocol/errors'
export { ConnectionError, RequestTimeoutError, AbortedError, UnsupportedVersionError, ClientClosedError, AuthenticationError, TlsError, UnknownTopicError, MalformedResponseError, ProtocolViolationError } from './client/errors'
export { errorCodeInfo, errorCode, allErrorCodes } from './protocol/error-codes'
export type { ErrorCodeInfo } from './protocol/error-codes'
export * as apis from './protocol/apis/index'
export { encodeRecordBatch, decodeRecordBatches } from './protocol/record-batch'
export type { KafkaRecord, RecordBatch, RecordHeader, RecordInput } from './protocol/record-batch'
export type { CompressionCodec } from './protocol/compression'
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
export type { TransactionalRunOptions, TransactionalStats, TransactionAbortedEvent } from './group/transactional'
export type { RecordMetadata, RecordCallback } from './producer/batch'
export { Consumer, GroupConsumer }
export type { AssignOptions, FetchOptions, FetchErrorEvent, FetchEvent, TruncationEvent, ConsumerBatch, HandedBatch, BatchesOptions, RunOptions, RunRetryOptions, ProcessingTimeoutEvent, HandlerErrorEvent, ConsumerEvents, OffsetSpec as ConsumerOffsetSpec } from './consumer/consumer'
export type { GroupConsumerOptions, DeliveryMode, RefusedCommit, GroupConsumerEvents, AssignedEvent, RebalancingEvent, LostEvent, BatchDroppedEvent } from './group/group-consumer'
export type { TopicPartition } from './group/membership'
export type { Assignor, MemberSubscription } from './group/assignors'
export { rangeAssignor, roundRobinAssignor, cooperativeStickyAssignor } from './group/assignors'
export { StaticMembershipError, GroupProtocolUnsupportedError, ShareGroupsDisabledError } from './group/errors'
export { ShareConsumer }
export type { ShareConsumerOptions, ShareRunOptions, ShareConsumerEvents, ShareAcknowledgementMode, ShareDeadLetterOptions } from './group/share-consumer'
export { ShareRecord } from './consumer/share-source'
export type { ShareBatch, ShareAcknowledgementResult, AcknowledgementKind } from './consumer/share-source'
export { ProducerIdentityError } from './producer/identity'
export { OutcomeUnknownError, DeliveryTimeoutError, BufferFullError, ProducerClosedError, TopicDeletedError, SendError, RecordTooLargeError } from './producer/errors'
export type { PartitionerOption, Partitioner, PartitionerInput, PartitionerFunction } from './producer/partitioners'

// `client.producer(options)`: the client layer does not import producer/ (data flows one
// way), so the entry point adds the factory to Client.
declare module './client/client' {
  interface Client {
    /** A new Producer on this client's connections and metadata. */
    producer: <K = ProducerBytes, V = ProducerBytes>(options?: ProducerOptions<K, V>) => Producer<K, V>
    /** A consumer of assigned partitions (`assign`), or a member of a consumer group (`groupId`). */
    consumer: (<K = Buffer, V = Buffer>(options: GroupConsumerOptions<K, V>) => GroupConsumer<K, V>) & (<K = Buffer, V = Buffer>(options: AssignOptions<K, V>) => Consumer<K, V>)
    /** A member of a share group (KIP-932): records acquired one by one, acknowledged one by one. */
    shareConsumer: (options: ShareConsumerOptions) => ShareConsumer
    /** The cluster's management calls (admin/), made on first use. */
    readonly admin: Admin
  }
}
Client.prototype.producer = function (this: Client, options?: ProducerOptions<unknown, unknown>): Producer<unknown, unknown> {
  return new Producer(this, options)
} as Client['producer']
Client.prototype.consumer = function (this: Client, options: GroupConsumerOptions<unknown, unknown> | AssignOptions<unknown, unknown>): any {
  if ('groupId' in options && options.groupId !== undefined) return new GroupConsumer(this, options)
  if ('assign' in options && options.assign !== undefined) return Consumer.assigned(this, options)
  throw new TypeError('client.consumer() needs either { groupId, topics } for a consumer group or { assign: [{ topic, partition, offset }] } for direct consumption')
}
Client.prototype.shareConsumer = function (this: Client, options: ShareConsumerOptions): ShareConsumer {
  return new ShareConsumer(this, options)
}
const admins = new WeakMap<Client, Admin>()
Object.defineProperty(Client.prototype, 'admin', {
  configurable: true,
  get (this: Client): Admin {
    let admin = admins.get(this)
    if (admin === undefined) admins.set(this, admin = new Admin(this))
    return admin
  }
})

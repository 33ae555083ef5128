/**
 * Every API kafkats speaks, one module per API. Adding an API: write its file here,
 * export it below and add it to `allApis` (the conformance, round-trip and fuzz
 * tests iterate over this list).
 */
import type { AnyApi } from '../api'
import { ApiVersions } from './api-versions'
import { Produce } from './produce'
import { Fetch } from './fetch'
import { ListOffsets, OffsetSpec, CONSUMER_REPLICA_ID } from './list-offsets'
import { Metadata } from './metadata'
import { FindCoordinator, CoordinatorKeyType } from './find-coordinator'
import { CreateTopics } from './create-topics'
import { DeleteTopics } from './delete-topics'
import { CreatePartitions } from './create-partitions'
import { DescribeConfigs } from './describe-configs'
import { IncrementalAlterConfigs } from './incremental-alter-configs'
import { AlterConfigs } from './alter-configs'
import { InitProducerId } from './init-producer-id'
import { SaslHandshake } from './sasl-handshake'
import { SaslAuthenticate } from './sasl-authenticate'
import { JoinGroup } from './join-group'
import { SyncGroup } from './sync-group'
import { Heartbeat } from './heartbeat'
import { LeaveGroup } from './leave-group'
import { OffsetCommit } from './offset-commit'
import { OffsetFetch } from './offset-fetch'
import { ConsumerGroupHeartbeat, ConsumerGroupMemberEpoch } from './consumer-group-heartbeat'
import { ConsumerGroupDescribe, ConsumerGroupMemberType } from './consumer-group-describe'
import { DescribeGroups } from './describe-groups'
import { ListGroups } from './list-groups'
import { OffsetForLeaderEpoch } from './offset-for-leader-epoch'
import { DeleteGroups } from './delete-groups'
import { AddPartitionsToTxn } from './add-partitions-to-txn'
import { AddOffsetsToTxn } from './add-offsets-to-txn'
import { EndTxn } from './end-txn'
import { TxnOffsetCommit } from './txn-offset-commit'
import { DescribeProducers } from './describe-producers'
import { DescribeTransactions } from './describe-transactions'
import { ListTransactions } from './list-transactions'
import { DescribeCluster } from './describe-cluster'
import { DescribeAcls } from './describe-acls'
import { CreateAcls } from './create-acls'
import { DeleteAcls } from './delete-acls'
import { DescribeClientQuotas } from './describe-client-quotas'
import { AlterClientQuotas } from './alter-client-quotas'
import { DescribeUserScramCredentials } from './describe-user-scram-credentials'
import { AlterUserScramCredentials } from './alter-user-scram-credentials'
import { DeleteRecords } from './delete-records'
import { ElectLeaders } from './elect-leaders'
import { AlterPartitionReassignments } from './alter-partition-reassignments'
import { ListPartitionReassignments } from './list-partition-reassignments'
import { OffsetDelete } from './offset-delete'
import { DescribeLogDirs } from './describe-log-dirs'
import { AlterReplicaLogDirs } from './alter-replica-log-dirs'
import { DescribeQuorum } from './describe-quorum'
import { UpdateFeatures } from './update-features'
import { DescribeTopicPartitions } from './describe-topic-partitions'
import { CreateDelegationToken } from './create-delegation-token'
import { RenewDelegationToken } from './renew-delegation-token'
import { ExpireDelegationToken } from './expire-delegation-token'
import { DescribeDelegationToken } from './describe-delegation-token'
import { ListConfigResources } from './list-config-resources'
import { ShareGroupDescribe } from './share-group-describe'
import { ShareGroupHeartbeat, ShareGroupMemberEpoch } from './share-group-heartbeat'
import { ShareFetch, AcknowledgeType } from './share-fetch'
import { ShareAcknowledge } from './share-acknowledge'
import { DescribeShareGroupOffsets } from './describe-share-group-offsets'
import { AlterShareGroupOffsets } from './alter-share-group-offsets'
import { DeleteShareGroupOffsets } from './delete-share-group-offsets'
import { StreamsGroupDescribe } from './streams-group-describe'
import { StreamsGroupHeartbeat } from './streams-group-heartbeat'
import { WriteTxnMarkers } from './write-txn-markers'
import { UnregisterBroker } from './unregister-broker'
import { AddRaftVoter } from './add-raft-voter'
import { RemoveRaftVoter } from './remove-raft-voter'
import { StreamsGroupTopologyDescriptionUpdate } from './streams-group-topology-description-update'
import { UnregisterController } from './unregister-controller'

export { ApiVersions }
export type * from './api-versions'
export { Produce }
export type * from './produce'
export { Fetch }
export type * from './fetch'
export { ListOffsets, OffsetSpec, CONSUMER_REPLICA_ID }
export type * from './list-offsets'
export { Metadata }
export type * from './metadata'
export { FindCoordinator, CoordinatorKeyType }
export type * from './find-coordinator'
export { CreateTopics }
export type * from './create-topics'
export { DeleteTopics }
export type * from './delete-topics'
export { CreatePartitions }
export type * from './create-partitions'
export { DescribeConfigs }
export type * from './describe-configs'
export { IncrementalAlterConfigs }
export type * from './incremental-alter-configs'
export { AlterConfigs }
export type * from './alter-configs'
export { InitProducerId }
export type * from './init-producer-id'
export { SaslHandshake }
export type * from './sasl-handshake'
export { SaslAuthenticate }
export type * from './sasl-authenticate'
export { JoinGroup }
export type * from './join-group'
export { SyncGroup }
export type * from './sync-group'
export { Heartbeat }
export type * from './heartbeat'
export { LeaveGroup }
export type * from './leave-group'
export { OffsetCommit }
export type * from './offset-commit'
export { OffsetFetch }
export type * from './offset-fetch'
export { ConsumerGroupHeartbeat, ConsumerGroupMemberEpoch }
export type * from './consumer-group-heartbeat'
export { ConsumerGroupDescribe, ConsumerGroupMemberType }
export type * from './consumer-group-describe'
export { DescribeGroups }
export type * from './describe-groups'
export { ListGroups }
export type * from './list-groups'
export { OffsetForLeaderEpoch }
export type * from './offset-for-leader-epoch'
export { DeleteGroups }
export type * from './delete-groups'
export { AddPartitionsToTxn }
export type * from './add-partitions-to-txn'
export { AddOffsetsToTxn }
export type * from './add-offsets-to-txn'
export { EndTxn }
export type * from './end-txn'
export { TxnOffsetCommit }
export type * from './txn-offset-commit'
export { DescribeProducers }
export type * from './describe-producers'
export { DescribeTransactions }
export type * from './describe-transactions'
export { ListTransactions }
export type * from './list-transactions'
export { DescribeCluster }
export type * from './describe-cluster'
export { DescribeAcls }
export type * from './describe-acls'
export { CreateAcls }
export type * from './create-acls'
export { DeleteAcls }
export type * from './delete-acls'
export { DescribeClientQuotas }
export type * from './describe-client-quotas'
export { AlterClientQuotas }
export type * from './alter-client-quotas'
export { DescribeUserScramCredentials }
export type * from './describe-user-scram-credentials'
export { AlterUserScramCredentials }
export type * from './alter-user-scram-credentials'
export { DeleteRecords }
export type * from './delete-records'
export { ElectLeaders }
export type * from './elect-leaders'
export { AlterPartitionReassignments }
export type * from './alter-partition-reassignments'
export { ListPartitionReassignments }
export type * from './list-partition-reassignments'
export { OffsetDelete }
export type * from './offset-delete'
export { DescribeLogDirs }
export type * from './describe-log-dirs'
export { AlterReplicaLogDirs }
export type * from './alter-replica-log-dirs'
export { DescribeQuorum }
export type * from './describe-quorum'
export { UpdateFeatures }
export type * from './update-features'
export { DescribeTopicPartitions }
export type * from './describe-topic-partitions'
export { CreateDelegationToken }
export type * from './create-delegation-token'
export { RenewDelegationToken }
export type * from './renew-delegation-token'
export { ExpireDelegationToken }
export type * from './expire-delegation-token'
export { DescribeDelegationToken }
export type * from './describe-delegation-token'
export { ListConfigResources }
export type * from './list-config-resources'
export { ShareGroupDescribe }
export type * from './share-group-describe'
export { StreamsGroupDescribe }
export type * from './streams-group-describe'
export { StreamsGroupHeartbeat }
export type * from './streams-group-heartbeat'
export { WriteTxnMarkers }
export type * from './write-txn-markers'
export { ShareGroupHeartbeat, ShareGroupMemberEpoch }
export type * from './share-group-heartbeat'
export { ShareFetch, AcknowledgeType }
export type * from './share-fetch'
export { ShareAcknowledge }
export type * from './share-acknowledge'
export { DescribeShareGroupOffsets }
export type * from './describe-share-group-offsets'
export { AlterShareGroupOffsets }
export type * from './alter-share-group-offsets'
export { DeleteShareGroupOffsets }
export type * from './delete-share-group-offsets'
export { UnregisterBroker }
export type * from './unregister-broker'
export { AddRaftVoter }
export type * from './add-raft-voter'
export { RemoveRaftVoter }
export type * from './remove-raft-voter'
export { StreamsGroupTopologyDescriptionUpdate }
export type * from './streams-group-topology-description-update'
export { UnregisterController }
export type * from './unregister-controller'

/** Every API kafkats speaks, for code that iterates over all of them. */
export const allApis: ReadonlyArray<AnyApi> = [
  ApiVersions,
  Produce,
  Fetch,
  ListOffsets,
  Metadata,
  FindCoordinator,
  CreateTopics,
  DeleteTopics,
  CreatePartitions,
  DescribeConfigs,
  IncrementalAlterConfigs,
  AlterConfigs,
  InitProducerId,
  SaslHandshake,
  SaslAuthenticate,
  JoinGroup,
  SyncGroup,
  Heartbeat,
  LeaveGroup,
  OffsetCommit,
  OffsetFetch,
  ConsumerGroupHeartbeat,
  ConsumerGroupDescribe,
  DescribeGroups,
  ListGroups,
  OffsetForLeaderEpoch,
  DeleteGroups,
  AddPartitionsToTxn,
  AddOffsetsToTxn,
  EndTxn,
  TxnOffsetCommit,
  DescribeProducers,
  DescribeTransactions,
  ListTransactions,
  DescribeCluster,
  DescribeAcls,
  CreateAcls,
  DeleteAcls,
  DescribeClientQuotas,
  AlterClientQuotas,
  DescribeUserScramCredentials,
  AlterUserScramCredentials,
  DeleteRecords,
  ElectLeaders,
  AlterPartitionReassignments,
  ListPartitionReassignments,
  OffsetDelete,
  DescribeLogDirs,
  AlterReplicaLogDirs,
  DescribeQuorum,
  UpdateFeatures,
  DescribeTopicPartitions,
  CreateDelegationToken,
  RenewDelegationToken,
  ExpireDelegationToken,
  DescribeDelegationToken,
  ListConfigResources,
  ShareGroupDescribe,
  StreamsGroupDescribe,
  StreamsGroupHeartbeat,
  WriteTxnMarkers,
  ShareGroupHeartbeat,
  ShareFetch,
  ShareAcknowledge,
  DescribeShareGroupOffsets,
  AlterShareGroupOffsets,
  DeleteShareGroupOffsets,
  UnregisterBroker,
  AddRaftVoter,
  RemoveRaftVoter,
  StreamsGroupTopologyDescriptionUpdate,
  UnregisterController
]

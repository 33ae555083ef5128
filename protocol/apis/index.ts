/**
 * Every API kafkats speaks, one module per API. Adding an API: write its file here,
 * export it below and add it to `allApis` (the conformance, round-trip and fuzz
 * tests iterate over this list).
 */
import type { Api } from '../api'
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

export const allApis: ReadonlyArray<Api<any, any>> = [
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
  ListTransactions
]

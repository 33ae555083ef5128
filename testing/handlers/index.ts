/**
 * The dispatch table: API key → handler. A request whose key has no entry here closes
 * its connection with a log line naming the API (as Kafka closes a connection it cannot
 * parse a request from).
 *
 * Adding an API: write handlers/<api>.ts with `defineHandler` and a header of what it
 * supports, then add it to `buildHandlers` below. ApiVersions advertises whatever
 * `allApis` lists. The group APIs share the GroupCoordinator (groups.ts) passed in.
 */
import type { GroupCoordinator } from '../groups'
import type { TransactionCoordinator } from '../transactions'
import { addOffsetsToTxnHandler } from './add-offsets-to-txn'
import { addPartitionsToTxnHandler } from './add-partitions-to-txn'
import { endTxnHandler } from './end-txn'
import { txnOffsetCommitHandler } from './txn-offset-commit'
import { apiVersionsHandler } from './api-versions'
import { consumerGroupDescribeHandler } from './consumer-group-describe'
import { consumerGroupHeartbeatHandler } from './consumer-group-heartbeat'
import { createTopicsHandler } from './create-topics'
import { deleteGroupsHandler } from './delete-groups'
import { describeConfigsHandler } from './describe-configs'
import { describeGroupsHandler } from './describe-groups'
import { fetchHandler } from './fetch'
import { findCoordinatorHandler } from './find-coordinator'
import type { ApiHandler } from './handler'
import { heartbeatHandler } from './heartbeat'
import { initProducerIdHandler } from './init-producer-id'
import { joinGroupHandler } from './join-group'
import { leaveGroupHandler } from './leave-group'
import { listGroupsHandler } from './list-groups'
import { listOffsetsHandler } from './list-offsets'
import { metadataHandler } from './metadata'
import { offsetCommitHandler } from './offset-commit'
import { offsetFetchHandler } from './offset-fetch'
import { produceHandler } from './produce'
import { syncGroupHandler } from './sync-group'
import { shareGroupHeartbeatHandler } from './share-group-heartbeat'
import { shareFetchHandler } from './share-fetch'
import { shareAcknowledgeHandler } from './share-acknowledge'
import type { ShareGroups } from '../share-groups'

export interface HandlerOptions {
  autoCreateTopics: boolean
  defaultPartitions: number
  /** The group coordinator behind FindCoordinator and the group APIs (groups.ts). */
  groups: GroupCoordinator
  /** The transaction coordinator behind the transaction APIs (transactions.ts). */
  txns: TransactionCoordinator
  /** Share groups: membership, record states, share sessions (share-groups.ts). */
  shares: ShareGroups
}

export function buildHandlers (options: HandlerOptions): Map<number, ApiHandler> {
  const handlers: ApiHandler[] = [
    produceHandler(options.txns),
    fetchHandler,
    listOffsetsHandler,
    metadataHandler(options),
    apiVersionsHandler(options.txns),
    createTopicsHandler(options.defaultPartitions),
    initProducerIdHandler(options.txns),
    findCoordinatorHandler(options.groups, options.txns),
    addPartitionsToTxnHandler(options.txns),
    addOffsetsToTxnHandler(options.txns),
    endTxnHandler(options.txns),
    txnOffsetCommitHandler(options.txns),
    joinGroupHandler(options.groups),
    syncGroupHandler(options.groups),
    heartbeatHandler(options.groups),
    leaveGroupHandler(options.groups),
    offsetCommitHandler(options.groups),
    offsetFetchHandler(options.groups),
    consumerGroupHeartbeatHandler(options.groups),
    listGroupsHandler(options.groups),
    describeGroupsHandler(options.groups),
    consumerGroupDescribeHandler(options.groups),
    deleteGroupsHandler(options.groups),
    describeConfigsHandler,
    shareGroupHeartbeatHandler(options.shares),
    shareFetchHandler(options.shares),
    shareAcknowledgeHandler(options.shares)
  ]
  return new Map(handlers.map(h => [h.api.key, h]))
}

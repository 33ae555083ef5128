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
import { alterConfigsHandler } from './alter-configs'
import { addRaftVoterHandler, removeRaftVoterHandler } from './raft-voters'
import { unregisterBrokerHandler } from './unregister-broker'
import { unregisterControllerHandler } from './unregister-controller'
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
import { registered, type RegisteredHandler } from './handler'
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

export function buildHandlers (options: HandlerOptions): Map<number, RegisteredHandler> {
  const handlers: RegisteredHandler[] = [
    registered(produceHandler(options.txns)),
    registered(fetchHandler),
    registered(listOffsetsHandler),
    registered(metadataHandler(options)),
    registered(apiVersionsHandler(options.txns)),
    registered(createTopicsHandler(options.defaultPartitions)),
    registered(initProducerIdHandler(options.txns)),
    registered(findCoordinatorHandler(options.groups, options.txns)),
    registered(addPartitionsToTxnHandler(options.txns)),
    registered(addOffsetsToTxnHandler(options.txns)),
    registered(endTxnHandler(options.txns)),
    registered(txnOffsetCommitHandler(options.txns)),
    registered(joinGroupHandler(options.groups)),
    registered(syncGroupHandler(options.groups)),
    registered(heartbeatHandler(options.groups)),
    registered(leaveGroupHandler(options.groups)),
    registered(offsetCommitHandler(options.groups)),
    registered(offsetFetchHandler(options.groups)),
    registered(consumerGroupHeartbeatHandler(options.groups)),
    registered(listGroupsHandler(options.groups)),
    registered(describeGroupsHandler(options.groups)),
    registered(consumerGroupDescribeHandler(options.groups)),
    registered(deleteGroupsHandler(options.groups)),
    registered(describeConfigsHandler(options.defaultPartitions)),
    registered(alterConfigsHandler),
    registered(unregisterBrokerHandler),
    registered(unregisterControllerHandler),
    registered(addRaftVoterHandler),
    registered(removeRaftVoterHandler),
    registered(shareGroupHeartbeatHandler(options.shares)),
    registered(shareFetchHandler(options.shares)),
    registered(shareAcknowledgeHandler(options.shares))
  ]
  return new Map(handlers.map(h => [h.apiKey, h]))
}

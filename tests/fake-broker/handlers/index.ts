/**
 * The dispatch table: API key → handler. A request whose key has no entry here closes
 * its connection with a log line naming the API (as Kafka closes a connection it cannot
 * parse a request from).
 *
 * Adding an API (e.g. the group coordinator's FindCoordinator, JoinGroup, SyncGroup,
 * Heartbeat, OffsetCommit, OffsetFetch, ConsumerGroupHeartbeat): write
 * handlers/<api>.ts with `defineHandler` and a header of what it supports, then add it
 * to `buildHandlers` below. ApiVersions advertises whatever `allApis` lists.
 */
import { apiVersionsHandler } from './api-versions'
import { createTopicsHandler } from './create-topics'
import { fetchHandler } from './fetch'
import type { ApiHandler } from './handler'
import { initProducerIdHandler } from './init-producer-id'
import { listOffsetsHandler } from './list-offsets'
import { metadataHandler } from './metadata'
import { produceHandler } from './produce'

export interface HandlerOptions {
  autoCreateTopics: boolean
  defaultPartitions: number
}

export function buildHandlers (options: HandlerOptions): Map<number, ApiHandler> {
  const handlers: ApiHandler[] = [
    produceHandler,
    fetchHandler,
    listOffsetsHandler,
    metadataHandler(options),
    apiVersionsHandler,
    createTopicsHandler(options.defaultPartitions),
    initProducerIdHandler
  ]
  return new Map(handlers.map(h => [h.api.key, h]))
}

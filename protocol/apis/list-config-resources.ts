/**
 * ListConfigResources (key 74): the resources that have configs: v0 only client metrics
 * subscriptions, v1 every resource type asked for (KIP-1142). Resource types as in DescribeConfigs.
 *
 * Version notes (the Kafka 4.4 broker advertises v0–v1):
 * - v0: the lowest a 4.4 broker accepts; flexible
 * - v1: request adds resourceTypes; response adds configResources.resourceType
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** A ListConfigResources request (key 74). */
export interface ListConfigResourcesRequest {
  /** v1+. */
  resourceTypes?: number[]
}

/** An entry of ListConfigResourcesResponse.configResources: each config resource in the response. */
export interface ListConfigResourcesConfigResource {
  /** The resource name. */
  resourceName: string
  /** v1+. */
  resourceType: number
}

/** A ListConfigResources response (key 74). */
export interface ListConfigResourcesResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The error code, or 0 if there was no error. */
  errorCode: number
  /** Each config resource in the response. */
  configResources: ListConfigResourcesConfigResource[]
}

/** The ListConfigResources API (key 74): its versions and its request and response schemas. */
export const ListConfigResources = defineApi<ListConfigResourcesRequest, ListConfigResourcesResponse>({
  key: 74,
  name: 'ListConfigResources',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '0+',
  request: struct(
    field('resourceTypes', array('int8'), '1+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('errorCode', 'int16', '0+'),
    field('configResources', array(struct(
      field('resourceName', 'string', '0+'),
      field('resourceType', 'int8', '1+', { default: 16 })
    )), '0+')
  )
})

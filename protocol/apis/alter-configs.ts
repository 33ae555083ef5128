/**
 * AlterConfigs (key 33): replaces the whole set of dynamic configs of each resource with the
 * one given; a config left out goes back to its default. IncrementalAlterConfigs (key 44,
 * Kafka 2.3+) changes single configs instead; admin/configs.ts falls back to this one,
 * as a read-modify-write, on brokers without it.
 *
 * Resource types as in DescribeConfigs (2 topic, 4 broker).
 *
 * Version notes:
 * - v0: Kafka 0.11
 * - v1: on quota violation the broker answers before throttling
 * - v2: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'
import { IncrementalAlterConfigs, type IncrementalAlterConfigsResponse } from './incremental-alter-configs'

/** An entry of AlterConfigsRequest.resources: the updates for each resource. */
export interface AlterConfigsRequestResource {
  /** The resource type. */
  resourceType: number
  /** The resource name. */
  resourceName: string
  /** Every dynamic config the resource keeps; the others are removed. */
  configs: Array<{
    /** The configuration key name. */
    name: string
    /** The value to set for the configuration key. */
    value: string | null
  }>
}

/** An AlterConfigs request (key 33). */
export interface AlterConfigsRequest {
  /** The updates for each resource. */
  resources: AlterConfigsRequestResource[]
  /** True if we should validate the request, but not change the configurations. */
  validateOnly?: boolean
}

/** The same answer as IncrementalAlterConfigs': per resource, an error code and message. */
export type AlterConfigsResponse = IncrementalAlterConfigsResponse

/** The AlterConfigs API (key 33): its versions and its request and response schemas. */
export const AlterConfigs = defineApi<AlterConfigsRequest, AlterConfigsResponse>({
  key: 33,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersions: '2+',
  request: struct(
    field('resources', array(struct(
      field('resourceType', 'int8', '0+'),
      field('resourceName', 'string', '0+'),
      field('configs', array(struct(
        field('name', 'string', '0+'),
        field('value', 'string', '0+', { nullableVersions: '0+', default: null })
      )), '0+')
    )), '0+'),
    field('validateOnly', 'bool', '0+')
  ),
  response: IncrementalAlterConfigs.response
})

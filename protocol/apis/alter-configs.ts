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

export interface AlterConfigsRequestResource {
  resourceType: number
  resourceName: string
  /** Every dynamic config the resource keeps; the others are removed. */
  configs: Array<{ name: string, value: string | null }>
}

export interface AlterConfigsRequest {
  resources: AlterConfigsRequestResource[]
  validateOnly?: boolean
}

/** The same answer as IncrementalAlterConfigs': per resource, an error code and message. */
export type AlterConfigsResponse = IncrementalAlterConfigsResponse

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

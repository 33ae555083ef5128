/**
 * IncrementalAlterConfigs (key 44): sets, deletes, appends to or subtracts from single
 * configs of a resource, leaving the others alone (KIP-339).
 *
 * Resource types as in DescribeConfigs (2 topic, 4 broker, 8 broker logger,
 * 16 client metrics, 32 group). Operations: 0 set, 1 delete, 2 append, 3 subtract.
 *
 * Version notes:
 * - v0: every version a 4.x broker accepts
 * - v1: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

/** An entry of AlterConfigsResource.configs: the configurations. */
export interface AlterableConfig {
  /** The configuration key name. */
  name: string
  /** The type (Set, Delete, Append, Subtract) of operation. */
  configOperation: number
  /** Null for a delete. */
  value: string | null
}

/** An entry of IncrementalAlterConfigsRequest.resources: the incremental updates for each resource. */
export interface AlterConfigsResource {
  /** The resource type. */
  resourceType: number
  /** The resource name. */
  resourceName: string
  /** The configurations. */
  configs: AlterableConfig[]
}

/** An IncrementalAlterConfigs request (key 44). */
export interface IncrementalAlterConfigsRequest {
  /** The incremental updates for each resource. */
  resources: AlterConfigsResource[]
  /** True if we should validate the request, but not change the configurations. */
  validateOnly?: boolean
}

/** An entry of IncrementalAlterConfigsResponse.responses: the responses for each resource. */
export interface AlterConfigsResourceResponse {
  /** The resource error code. */
  errorCode: number
  /** The resource error message, or null if there was no error. */
  errorMessage: string | null
  /** The resource type. */
  resourceType: number
  /** The resource name. */
  resourceName: string
}

/** An IncrementalAlterConfigs response (key 44). */
export interface IncrementalAlterConfigsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The responses for each resource. */
  responses: AlterConfigsResourceResponse[]
}

/** The IncrementalAlterConfigs API (key 44): its versions and its request and response schemas. */
export const IncrementalAlterConfigs = defineApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  key: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersions: '1+',
  request: struct(
    field('resources', array(struct(
      field('resourceType', 'int8', '0+'),
      field('resourceName', 'string', '0+'),
      field('configs', array(struct(
        field('name', 'string', '0+'),
        field('configOperation', 'int8', '0+'),
        field('value', 'string', '0+', { nullableVersions: '0+', default: null })
      )), '0+')
    )), '0+'),
    field('validateOnly', 'bool', '0+')
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('responses', array(struct(
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
      field('resourceType', 'int8', '0+'),
      field('resourceName', 'string', '0+')
    )), '0+')
  )
})

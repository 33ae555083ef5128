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

export interface AlterableConfig {
  name: string
  configOperation: number
  /** Null for a delete. */
  value: string | null
}

export interface AlterConfigsResource {
  resourceType: number
  resourceName: string
  configs: AlterableConfig[]
}

export interface IncrementalAlterConfigsRequest {
  resources: AlterConfigsResource[]
  validateOnly?: boolean
}

export interface AlterConfigsResourceResponse {
  errorCode: number
  errorMessage: string | null
  resourceType: number
  resourceName: string
}

export interface IncrementalAlterConfigsResponse {
  throttleTimeMs: number
  responses: AlterConfigsResourceResponse[]
}

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

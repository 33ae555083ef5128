/**
 * DescribeConfigs (key 32): the configs of topics, brokers, broker loggers, client
 * metrics or groups, with their sources and (optionally) synonyms and documentation.
 *
 * Resource types: 2 topic, 4 broker, 8 broker logger, 16 client metrics, 32 group.
 * Config sources: 1 dynamic topic, 2 dynamic broker, 3 dynamic default broker,
 * 4 static broker, 5 default, 6 dynamic broker logger, 7 client metrics, 8 group.
 *
 * Version notes:
 * - v0: Kafka 0.11 and 1.0 speak only this one; isDefault instead of configSource, no
 *   synonyms. Kafka 4.0 removed it (KIP-896): a 4.x broker accepts v1+, and negotiation
 *   picks the highest both sides speak, so v0 goes only to a broker below 1.1
 * - v1: includeSynonyms; configSource and synonyms replace isDefault
 * - v2: on quota violation the broker answers before throttling
 * - v3: includeDocumentation; configType and documentation in the response (KIP-569)
 * - v4: flexible
 */
import { defineApi } from '../api'
import { array, field, struct } from '../schema'

export interface DescribeConfigsResource {
  resourceType: number
  resourceName: string
  /** Null (the default) lists every config. */
  configurationKeys?: string[] | null
}

export interface DescribeConfigsRequest {
  resources: DescribeConfigsResource[]
  includeSynonyms?: boolean
  /** v3+. */
  includeDocumentation?: boolean
}

export interface DescribeConfigsSynonym {
  name: string
  value: string | null
  source: number
}

export interface DescribeConfigsResourceResult {
  name: string
  value: string | null
  readOnly: boolean
  /** v0 only (configSource from v1): whether the value is the default. */
  isDefault: boolean
  /** v1+ (-1 in a v0 answer: see isDefault). */
  configSource: number
  isSensitive: boolean
  synonyms: DescribeConfigsSynonym[]
  /** v3+: 1 boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list, 8 class, 9 password; 0 unknown. */
  configType: number
  /** v3+. */
  documentation: string | null
}

export interface DescribeConfigsResult {
  errorCode: number
  errorMessage: string | null
  resourceType: number
  resourceName: string
  configs: DescribeConfigsResourceResult[]
}

export interface DescribeConfigsResponse {
  throttleTimeMs: number
  results: DescribeConfigsResult[]
}

export const DescribeConfigs = defineApi<DescribeConfigsRequest, DescribeConfigsResponse>({
  key: 32,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersions: '4+',
  request: struct(
    field('resources', array(struct(
      field('resourceType', 'int8', '0+'),
      field('resourceName', 'string', '0+'),
      field('configurationKeys', array('string'), '0+', { nullableVersions: '0+', default: null })
    )), '0+'),
    field('includeSynonyms', 'bool', '1+', { default: false }),
    field('includeDocumentation', 'bool', '3+', { default: false })
  ),
  response: struct(
    field('throttleTimeMs', 'int32', '0+'),
    field('results', array(struct(
      field('errorCode', 'int16', '0+'),
      field('errorMessage', 'string', '0+', { nullableVersions: '0+', default: null }),
      field('resourceType', 'int8', '0+'),
      field('resourceName', 'string', '0+'),
      field('configs', array(struct(
        field('name', 'string', '0+'),
        field('value', 'string', '0+', { nullableVersions: '0+', default: null }),
        field('readOnly', 'bool', '0+'),
        field('isDefault', 'bool', '0', { default: false }),
        field('configSource', 'int8', '1+', { default: -1 }),
        field('isSensitive', 'bool', '0+'),
        field('synonyms', array(struct(
          field('name', 'string', '1+'),
          field('value', 'string', '1+', { nullableVersions: '0+', default: null }),
          field('source', 'int8', '1+')
        )), '1+'),
        field('configType', 'int8', '3+', { default: 0 }),
        field('documentation', 'string', '3+', { nullableVersions: '0+', default: null })
      )), '0+')
    )), '0+')
  )
})

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

/** An entry of DescribeConfigsRequest.resources: the resources whose configurations we want to describe. */
export interface DescribeConfigsResource {
  /** The resource type. */
  resourceType: number
  /** The resource name. */
  resourceName: string
  /** Null (the default) lists every config. */
  configurationKeys?: string[] | null
}

/** A DescribeConfigs request (key 32). */
export interface DescribeConfigsRequest {
  /** The resources whose configurations we want to describe. */
  resources: DescribeConfigsResource[]
  /** True if we should include all synonyms. */
  includeSynonyms?: boolean
  /** v3+. */
  includeDocumentation?: boolean
}

/** An entry of DescribeConfigsResourceResult.synonyms: the synonyms for this configuration key. */
export interface DescribeConfigsSynonym {
  /** The synonym name. */
  name: string
  /** The synonym value. */
  value: string | null
  /** The synonym source. */
  source: number
}

/** An entry of DescribeConfigsResult.configs: each listed configuration. */
export interface DescribeConfigsResourceResult {
  /** The configuration name. */
  name: string
  /** The configuration value. */
  value: string | null
  /** True if the configuration is read-only. */
  readOnly: boolean
  /** v0 only (configSource from v1): whether the value is the default. */
  isDefault: boolean
  /** v1+ (-1 in a v0 answer: see isDefault). */
  configSource: number
  /** True if this configuration is sensitive. */
  isSensitive: boolean
  /** The synonyms for this configuration key. */
  synonyms: DescribeConfigsSynonym[]
  /** v3+: 1 boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list, 8 class, 9 password; 0 unknown. */
  configType: number
  /** v3+. */
  documentation: string | null
}

/** An entry of DescribeConfigsResponse.results: the results for each resource. */
export interface DescribeConfigsResult {
  /** The error code, or 0 if we were able to successfully describe the configurations. */
  errorCode: number
  /** The error message, or null if we were able to successfully describe the configurations. */
  errorMessage: string | null
  /** The resource type. */
  resourceType: number
  /** The resource name. */
  resourceName: string
  /** Each listed configuration. */
  configs: DescribeConfigsResourceResult[]
}

/** A DescribeConfigs response (key 32). */
export interface DescribeConfigsResponse {
  /** How long the broker throttled the request for a quota violation, in ms (0 if it did not). */
  throttleTimeMs: number
  /** The results for each resource. */
  results: DescribeConfigsResult[]
}

/** The DescribeConfigs API (key 32): its versions and its request and response schemas. */
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

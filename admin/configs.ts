/**
 * Configs of topics, brokers, broker loggers, groups and client-metrics subscriptions:
 * describe (with synonyms and documentation), incremental alter (a read-modify-write
 * with AlterConfigs on brokers before Kafka 2.3), and the list of resources that have
 * configs (KIP-1142).
 */
import { DescribeConfigs, type DescribeConfigsResourceResult } from '../protocol/apis/describe-configs'
import { AlterConfigs, type AlterConfigsRequestResource } from '../protocol/apis/alter-configs'
import { IncrementalAlterConfigs, type AlterConfigsResourceResponse } from '../protocol/apis/incremental-alter-configs'
import { ListConfigResources } from '../protocol/apis/list-config-resources'
import { brokersWith } from '../protocol/api-releases'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { UnsupportedVersionError } from '../client/errors'
import { checkObject, checkOneOf, describeValue } from '../client/validate'
import { codeMap } from './common'
import { itemError, throwIf, type AdminCallOptions, type Router } from './route'
import type { ItemResult } from './results'

/** The kinds of resources that have configs (`describeConfigs`, `alterConfigs`). */
export type ConfigResourceType = 'topic' | 'broker' | 'broker-logger' | 'client-metrics' | 'group'
export const configResourceTypes = codeMap<ConfigResourceType>({ topic: 2, broker: 4, 'broker-logger': 8, 'client-metrics': 16, group: 32 })

/** Where a value comes from (KIP-226), by DescribeConfigs' configSource. */
export type ConfigSource = 'unknown' | 'dynamic-topic' | 'dynamic-broker' | 'dynamic-default-broker' | 'static-broker' | 'default' | 'dynamic-broker-logger' | 'client-metrics' | 'group'
export const configSources = codeMap<ConfigSource>({
  unknown: 0, 'dynamic-topic': 1, 'dynamic-broker': 2, 'dynamic-default-broker': 3, 'static-broker': 4, default: 5,
  'dynamic-broker-logger': 6, 'client-metrics': 7, group: 8
})

/** A config's type, by DescribeConfigs' configType code (its index here). */
export type ConfigType = 'unknown' | 'boolean' | 'string' | 'int' | 'short' | 'long' | 'double' | 'list' | 'class' | 'password'
const CONFIG_TYPES: readonly ConfigType[] = ['unknown', 'boolean', 'string', 'int', 'short', 'long', 'double', 'list', 'class', 'password']

/** One config of a resource, as `describeConfigs` answers it: its value (null when sensitive), where the value comes from and whether it can be changed. */
export interface ConfigEntry {
  /** The config's name, e.g. 'retention.ms'. */
  name: string
  /** The value as a string; null when sensitive (or unset). */
  value: string | null
  /** Whether the value cannot be changed (alterConfigs refuses it). */
  readOnly: boolean
  /** Whether the value is the default (`source` 5). */
  isDefault: boolean
  /** Whether the value is sensitive (a password), and so not shown. */
  isSensitive: boolean
  /** DescribeConfigs' numeric configSource (5 = default); `sourceName` names it. */
  source: number
  /** Where the value comes from, e.g. 'dynamic-topic', 'static-broker' or 'default'. */
  sourceName: ConfigSource | 'unknown'
  /** With includeSynonyms: every value that applies, highest precedence first. */
  synonyms?: Array<{
    /** The synonym's config name (e.g. the broker's log.retention.ms for a topic's retention.ms). */
    name: string
    /** Its value; null when sensitive. */
    value: string | null
    /** Where this value comes from. */
    source: ConfigSource | 'unknown'
  }>
  /** With includeDocumentation. */
  documentation?: string | null
  /** With includeDocumentation: the config's type ('unknown' when the broker does not say). */
  type?: ConfigType
}

/** One resource of `admin.alterConfigs()`: configs to set, delete, append to or subtract from (IncrementalAlterConfigs). */
export interface AlterConfigsResource {
  /** The kind of resource. */
  type: ConfigResourceType
  /** The resource's name: a topic, a broker id ('' for the cluster-wide default), a group or client metrics name. */
  name: string
  /** Configs to set. */
  set?: Record<string, string>
  /** Configs to remove (back to their default). */
  delete?: string[]
  /** List configs: values to add to or remove from the list. */
  append?: Record<string, string>
  /** List configs: values to remove from the list. */
  subtract?: Record<string, string>
}

/** A resource whose configs describeConfigs reads: all of them, or only `keys`. */
export interface ConfigResource {
  /** The kind of resource. */
  type: ConfigResourceType
  /** The resource's name: a topic, a broker id, a group or client metrics name. */
  name: string
  /** The configs to read; all of them when left out. */
  keys?: string[]
}

/** describeConfigs' answer for one resource (its `configs` empty when it has `error`). */
export interface DescribedConfigs extends ItemResult {
  /** The resource's kind, as asked. */
  type: ConfigResourceType
  /** The resource's name, as asked. */
  name: string
  /** Its configs by name; empty when the resource has `error`. */
  configs: Map<string, ConfigEntry>
}

/** alterConfigs' answer for one resource. */
export interface AlteredConfigs extends ItemResult {
  /** The resource's kind, as asked. */
  type: ConfigResourceType
  /** The resource's name, as asked. */
  name: string
}

type DescribeConfigsOptions = AdminCallOptions & { includeSynonyms?: boolean, includeDocumentation?: boolean }

/**
 * Current configs of resources, answered per resource. A broker's and a broker logger's
 * configs are asked of that broker; the others of any broker, in one request.
 */
export async function describeConfigs (router: Router, resources: ConfigResource[], options: DescribeConfigsOptions = {}): Promise<DescribedConfigs[]> {
  const deadline = router.deadline('describeConfigs', options, ['includeSynonyms', 'includeDocumentation'])
  if (!Array.isArray(resources)) throw new TypeError(`describeConfigs: expected an array of { type, name, keys? }, got ${describeValue(resources)}`)
  for (const [i, r] of resources.entries()) {
    checkObject('describeConfigs', `resources[${i}]`, r)
    checkOneOf('describeConfigs', `resources[${i}].type`, r.type, configResourceTypes.names)
  }
  const answers = new Map<string, DescribedConfigs>()
  await Promise.all([...byBroker(resources)].map(async ([nodeId, group]) => {
    const response = await router.any(DescribeConfigs, {
      resources: group.map(r => ({ resourceType: configResourceTypes.code(r.type), resourceName: r.name, configurationKeys: r.keys ?? null })),
      includeSynonyms: options.includeSynonyms ?? false,
      includeDocumentation: options.includeDocumentation ?? false
    }, deadline, options.signal, nodeId)
    for (const result of response.results) {
      const type = configResourceTypes.name(result.resourceType)
      if (type === 'unknown') continue
      const error = itemError(result.errorCode, `Describing configs of ${type} "${result.resourceName}"`, result.errorMessage)
      answers.set(resourceKey(type, result.resourceName), { type, name: result.resourceName, configs: error === undefined ? configEntries(type, result.configs, options) : new Map(), error })
    }
  }))
  return resources.map(r => answers.get(resourceKey(r.type, r.name)) ?? { type: r.type, name: r.name, configs: new Map(), error: new BrokerError(-1, `Describing configs of ${r.type} "${r.name}": the broker's answer has no entry for it`) })
}

function configEntries (type: ConfigResourceType, configs: DescribeConfigsResourceResult[], options: DescribeConfigsOptions): Map<string, ConfigEntry> {
  const entries = new Map<string, ConfigEntry>()
  for (const c of configs) {
    const source = c.configSource === V0_NO_SOURCE ? v0Source(type, c.isDefault) : c.configSource
    const entry: ConfigEntry = {
      name: c.name,
      value: c.value,
      readOnly: c.readOnly,
      isDefault: source === configSources.code('default'),
      isSensitive: c.isSensitive,
      source,
      sourceName: configSources.name(source)
    }
    if (options.includeSynonyms === true) entry.synonyms = c.synonyms.map(s => ({ name: s.name, value: s.value, source: configSources.name(s.source) }))
    if (options.includeDocumentation === true) {
      entry.documentation = c.documentation
      entry.type = CONFIG_TYPES[c.configType] ?? 'unknown'
    }
    entries.set(c.name, entry)
  }
  return entries
}

/** configSource in a DescribeConfigs v0 answer, which has isDefault instead. */
const V0_NO_SOURCE = -1

/**
 * The source of a value in a v0 answer (Kafka 0.11, 1.0), as the Java client reads it: a
 * value that is not the default is the topic's own, or the broker's server.properties.
 */
function v0Source (type: ConfigResourceType, isDefault: boolean): number {
  if (isDefault) return configSources.code('default')
  if (type === 'topic') return configSources.code('dynamic-topic')
  if (type === 'broker') return configSources.code('static-broker')
  return configSources.code('unknown')
}

const resourceKey = (type: string, name: string): string => `${type}\u0000${name}`

/**
 * Resources by the broker that must answer for them: a broker's and a broker logger's
 * configs are that broker's own (its id is the resource name; '' means any broker's
 * defaults); the rest any broker answers (key undefined).
 */
function byBroker<R extends { type: ConfigResourceType, name: string }> (resources: R[]): Map<number | undefined, R[]> {
  const groups = new Map<number | undefined, R[]>()
  for (const r of resources) {
    const nodeId = (r.type === 'broker' || r.type === 'broker-logger') && r.name !== '' ? Number(r.name) : undefined
    const group = groups.get(nodeId)
    if (group === undefined) groups.set(nodeId, [r])
    else group.push(r)
  }
  return groups
}

/**
 * Sets, removes, appends to and subtracts from configs, leaving the others as they are
 * (IncrementalAlterConfigs); answers per resource. A broker without IncrementalAlterConfigs
 * (before Kafka 2.3) gets a read-modify-write instead (replaceConfigs).
 */
export async function alterConfigs (router: Router, resources: AlterConfigsResource[], options: AdminCallOptions & { validateOnly?: boolean } = {}): Promise<AlteredConfigs[]> {
  const deadline = router.deadline('alterConfigs', options, ['validateOnly'])
  for (const r of resources) checkOneOf('alterConfigs', 'type', r.type, configResourceTypes.names)
  const answers = new Map<string, AlteredConfigs>()
  const send = async (group: AlterConfigsResource[], nodeId?: number): Promise<void> => {
    let outcomes: AlterOutcome[]
    try {
      const response = await router.any(IncrementalAlterConfigs, {
        resources: group.map(r => ({
          resourceType: configResourceTypes.code(r.type),
          resourceName: r.name,
          configs: [
            ...Object.entries(r.set ?? {}).map(([name, value]) => ({ name, configOperation: 0, value })),
            ...(r.delete ?? []).map(name => ({ name, configOperation: 1, value: null })),
            ...Object.entries(r.append ?? {}).map(([name, value]) => ({ name, configOperation: 2, value })),
            ...Object.entries(r.subtract ?? {}).map(([name, value]) => ({ name, configOperation: 3, value }))
          ]
        })),
        validateOnly: options.validateOnly ?? false
      }, deadline, options.signal, nodeId)
      outcomes = response.responses.map(alterOutcome)
    } catch (error) {
      if (!(error instanceof UnsupportedVersionError)) throw error
      const byNode = [...byBroker(group)]
      outcomes = (await Promise.all(byNode.map(async ([node, resources]) => await replaceConfigs(router, resources, node, options.validateOnly ?? false, deadline, options.signal)))).flat()
    }
    for (const { type, name, error } of outcomes) if (type !== 'unknown') answers.set(resourceKey(type, name), { type, name, error })
  }
  // Broker logger configs are that broker's own; the rest any broker forwards to the controller.
  const loggers = resources.filter(r => r.type === 'broker-logger')
  const rest = resources.filter(r => r.type !== 'broker-logger')
  await Promise.all([
    ...(rest.length > 0 ? [send(rest)] : []),
    ...loggers.map(async r => await send([r], Number(r.name)))
  ])
  return resources.map(r => answers.get(resourceKey(r.type, r.name)) ?? { type: r.type, name: r.name, error: new BrokerError(-1, `Altering configs of ${r.type} "${r.name}": the broker's answer has no entry for it`) })
}

/**
 * The alterConfigs of a broker without IncrementalAlterConfigs (before Kafka 2.3): read each
 * resource's configs (DescribeConfigs), then write back, with AlterConfigs (which replaces
 * the whole set), every value the resource sets itself with the changes applied, so only
 * the given configs change. Sent to `nodeId` (a broker's own configs) or any broker.
 *
 * Not atomic: a change another client makes between the read and the write is undone. A
 * sensitive value (a password) is never read back, and writing the set without it would
 * remove it: such a resource is refused with UNSUPPORTED_VERSION unless this call sets or
 * deletes that config itself. append and subtract start from the value describeConfigs
 * shows (the default when the resource sets none).
 */
async function replaceConfigs (router: Router, resources: AlterConfigsResource[], nodeId: number | undefined, validateOnly: boolean, deadline: number, signal: AbortSignal | undefined): Promise<AlterOutcome[]> {
  const outcomes: AlterOutcome[] = []
  const incremental = `this broker does not speak IncrementalAlterConfigs, which brokers of ${brokersWith(IncrementalAlterConfigs.key, 0) ?? 'newer releases'} speak`
  const refuse = (r: AlterConfigsResource, why: string): void => {
    outcomes.push({ type: r.type, name: r.name, error: new BrokerError(ErrorCode.UNSUPPORTED_VERSION, `Altering configs of ${r.type} "${r.name}" (${incremental}; ${why})`) })
  }
  const writable = resources.filter(r => {
    if (r.type === 'topic' || r.type === 'broker') return true
    refuse(r, `AlterConfigs cannot change the configs of a ${r.type}`)
    return false
  })
  if (writable.length === 0) return outcomes
  const described = await router.any(DescribeConfigs, {
    resources: writable.map(r => ({ resourceType: configResourceTypes.code(r.type), resourceName: r.name, configurationKeys: null })),
    includeSynonyms: false
  }, deadline, signal, nodeId)
  const current = new Map(described.results.map(d => [resourceKey(configResourceTypes.name(d.resourceType), d.resourceName), d]))
  const replacements: AlterConfigsRequestResource[] = []
  for (const r of writable) {
    const read = current.get(resourceKey(r.type, r.name))
    const context = `Reading the configs of ${r.type} "${r.name}" to write them back with a change (${incremental})`
    if (read === undefined) outcomes.push({ type: r.type, name: r.name, error: new BrokerError(-1, `${context}: the broker's answer has no entry for it`) })
    else if (read.errorCode !== ErrorCode.NONE) outcomes.push({ type: r.type, name: r.name, error: new BrokerError(read.errorCode, context, read.errorMessage) })
    else {
      const replacement = replacedConfigs(r, configEntries(r.type, read.configs, {}))
      if (typeof replacement === 'string') refuse(r, `AlterConfigs replaces every config, and ${replacement}`)
      else replacements.push({ resourceType: configResourceTypes.code(r.type), resourceName: r.name, configs: [...replacement].map(([name, value]) => ({ name, value })) })
    }
  }
  if (replacements.length === 0) return outcomes
  const altered = await router.any(AlterConfigs, { resources: replacements, validateOnly }, deadline, signal, nodeId)
  return [...outcomes, ...altered.responses.map(alterOutcome)]
}

/** One resource's answer to alterConfigs, before it is matched to what was asked. */
interface AlterOutcome {
  type: ConfigResourceType | 'unknown'
  name: string
  error: BrokerError | undefined
}

function alterOutcome (answer: AlterConfigsResourceResponse): AlterOutcome {
  const type = configResourceTypes.name(answer.resourceType)
  return { type, name: answer.resourceName, error: itemError(answer.errorCode, `Altering configs of ${type} "${answer.resourceName}"`, answer.errorMessage) }
}

/** The source of the values a resource sets itself, which AlterConfigs writes as a whole. */
function ownSource (r: { type: ConfigResourceType, name: string }): ConfigSource {
  if (r.type === 'topic') return 'dynamic-topic'
  return r.name === '' ? 'dynamic-default-broker' : 'dynamic-broker'
}

/**
 * The resource's own values with the changes applied, or why they cannot be written back
 * (a sensitive value the broker does not show, which the change does not replace).
 */
function replacedConfigs (r: AlterConfigsResource, entries: Map<string, ConfigEntry>): Map<string, string | null> | string {
  const replaced = new Set([...Object.keys(r.set ?? {}), ...(r.delete ?? [])])
  const own = new Map<string, string | null>()
  for (const entry of entries.values()) {
    if (entry.sourceName !== ownSource(r)) continue
    if (entry.isSensitive && entry.value === null && !replaced.has(entry.name)) {
      return `the sensitive config ${entry.name} cannot be read back, so writing the others would remove it: set (or delete) ${entry.name} in the same call`
    }
    own.set(entry.name, entry.value)
  }
  for (const [name, value] of Object.entries(r.set ?? {})) own.set(name, value)
  for (const name of r.delete ?? []) own.delete(name)
  const listOf = (name: string): string[] => {
    const value = own.has(name) ? own.get(name) : entries.get(name)?.value
    return value === null || value === undefined || value === '' ? [] : value.split(',').map(item => item.trim())
  }
  for (const [name, value] of Object.entries(r.append ?? {})) {
    const items = listOf(name)
    own.set(name, [...items, ...value.split(',').map(item => item.trim()).filter(item => !items.includes(item))].join(','))
  }
  for (const [name, value] of Object.entries(r.subtract ?? {})) {
    const removed = new Set(value.split(',').map(item => item.trim()))
    own.set(name, listOf(name).filter(item => !removed.has(item)).join(','))
  }
  return own
}

/** Resources that have configs (KIP-1142), of the given types (default: every type the broker lists). */
export async function listConfigResources (router: Router, options: AdminCallOptions & { types?: ConfigResourceType[] } = {}): Promise<Array<{ type: ConfigResourceType | 'unknown', name: string }>> {
  const deadline = router.deadline('listConfigResources', options, ['types'])
  for (const t of options.types ?? []) checkOneOf('listConfigResources', 'types[]', t, configResourceTypes.names)
  const response = await router.any(ListConfigResources, { resourceTypes: (options.types ?? []).map(t => configResourceTypes.code(t)) }, deadline, options.signal)
  throwIf(response.errorCode, 'Listing config resources')
  return response.configResources.map(r => ({ type: configResourceTypes.name(r.resourceType), name: r.resourceName }))
}

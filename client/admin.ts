/**
 * Basic admin: topics, partitions and configs. Available as `client.admin`.
 *
 * Each call turns per-resource error codes into a BrokerError naming the resource, and
 * calls that create things wait until the metadata shows them (so a produce right after
 * `createTopics` finds its leader).
 */
import { CreatePartitions } from '../protocol/apis/create-partitions'
import { CreateTopics } from '../protocol/apis/create-topics'
import { DeleteTopics } from '../protocol/apis/delete-topics'
import { DescribeConfigs } from '../protocol/apis/describe-configs'
import { IncrementalAlterConfigs } from '../protocol/apis/incremental-alter-configs'
import { BrokerError } from '../protocol/errors'
import type { Client } from './client'
import type { TopicMetadata } from './metadata'

const TOPIC_ALREADY_EXISTS = 36
const UNKNOWN_TOPIC_OR_PARTITION = 3

export interface NewTopic {
  topic: string
  /** Default: the broker's num.partitions. */
  numPartitions?: number
  /** Default: the broker's default.replication.factor. */
  replicationFactor?: number
  /** Topic configs, e.g. { 'min.insync.replicas': '2' }. */
  configs?: Record<string, string>
  /** Explicit placement: partition → broker ids (instead of numPartitions/replicationFactor). */
  assignments?: Record<number, number[]>
}

export type ConfigResourceType = 'topic' | 'broker' | 'broker-logger'

const RESOURCE_TYPE: Record<ConfigResourceType, number> = { topic: 2, broker: 4, 'broker-logger': 8 }

export interface ConfigEntry {
  name: string
  value: string | null
  readOnly: boolean
  isDefault: boolean
  isSensitive: boolean
  source: number
}

export interface AlterConfigsResource {
  type: ConfigResourceType
  name: string
  /** Configs to set. */
  set?: Record<string, string>
  /** Configs to remove (back to their default). */
  delete?: string[]
}

export class Admin {
  readonly #client: Client

  constructor (client: Client) {
    this.#client = client
  }

  /**
   * Creates topics and waits until each has leaders. Returns the names created; a topic
   * that already exists is an error unless `ignoreExisting`.
   */
  async createTopics (topics: NewTopic[], options: { timeoutMs?: number, validateOnly?: boolean, ignoreExisting?: boolean, signal?: AbortSignal } = {}): Promise<string[]> {
    const timeoutMs = options.timeoutMs ?? this.#client.requestTimeoutMs
    const response = await this.#client.request(CreateTopics, {
      topics: topics.map(t => ({
        name: t.topic,
        numPartitions: t.assignments !== undefined ? -1 : t.numPartitions ?? -1,
        replicationFactor: t.assignments !== undefined ? -1 : t.replicationFactor ?? -1,
        assignments: Object.entries(t.assignments ?? {}).map(([partition, brokerIds]) => ({ partitionIndex: Number(partition), brokerIds })),
        configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value }))
      })),
      timeoutMs,
      validateOnly: options.validateOnly ?? false
    }, { signal: options.signal, timeoutMs: timeoutMs + this.#client.requestTimeoutMs })
    const created: string[] = []
    for (const result of response.topics) {
      if (result.errorCode === TOPIC_ALREADY_EXISTS && options.ignoreExisting === true) continue
      if (result.errorCode !== 0) throw new BrokerError(result.errorCode, `Creating topic "${result.name}"`, result.errorMessage)
      created.push(result.name)
    }
    if (options.validateOnly !== true) {
      await Promise.all(topics.map(async t => await this.#client.metadata.waitForTopic(t.topic, timeoutMs, options.signal)))
    }
    return created
  }

  /** Deletes topics by name; unknown topics are an error unless `ignoreMissing`. */
  async deleteTopics (names: string[], options: { timeoutMs?: number, ignoreMissing?: boolean, signal?: AbortSignal } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.#client.requestTimeoutMs
    const response = await this.#client.request(DeleteTopics, version => version >= 6
      ? { topics: names.map(name => ({ name, topicId: '00000000-0000-0000-0000-000000000000' })), timeoutMs }
      : { topicNames: names, timeoutMs }, { signal: options.signal, timeoutMs: timeoutMs + this.#client.requestTimeoutMs })
    for (const result of response.responses) {
      if (result.errorCode === UNKNOWN_TOPIC_OR_PARTITION && options.ignoreMissing === true) continue
      if (result.errorCode !== 0) throw new BrokerError(result.errorCode, `Deleting topic "${result.name ?? result.topicId}"`, result.errorMessage)
    }
    this.#client.metadata.untrack(names)
  }

  /** Raises topics' partition counts to `count` (the new total). */
  async createPartitions (topics: Array<{ topic: string, count: number }>, options: { timeoutMs?: number, validateOnly?: boolean, signal?: AbortSignal } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.#client.requestTimeoutMs
    const response = await this.#client.request(CreatePartitions, {
      topics: topics.map(t => ({ name: t.topic, count: t.count, assignments: null })),
      timeoutMs,
      validateOnly: options.validateOnly ?? false
    }, { signal: options.signal, timeoutMs: timeoutMs + this.#client.requestTimeoutMs })
    for (const result of response.results) {
      if (result.errorCode !== 0) throw new BrokerError(result.errorCode, `Adding partitions to topic "${result.name}"`, result.errorMessage)
    }
    if (options.validateOnly !== true) {
      const deadline = Date.now() + timeoutMs
      for (const t of topics) {
        for (;;) {
          const meta = await this.#client.metadata.waitForTopic(t.topic, Math.max(0, deadline - Date.now()), options.signal)
          if (meta.partitions.length >= t.count || Date.now() >= deadline) break
          await this.#client.metadata.refresh([t.topic], options.signal)
        }
      }
    }
  }

  /** Names of all topics in the cluster (internal ones only if asked). */
  async listTopics (options: { includeInternal?: boolean, signal?: AbortSignal } = {}): Promise<string[]> {
    const names = await this.#client.metadata.refreshAll(options.signal)
    return names.filter(name => options.includeInternal === true || this.#client.metadata.topic(name)?.isInternal !== true).sort()
  }

  /** Partitions, leaders, replicas and ISR of topics. */
  async describeTopics (names: string[], options: { signal?: AbortSignal } = {}): Promise<TopicMetadata[]> {
    await this.#client.metadata.refresh(names, options.signal)
    return names.map(name => {
      const topic = this.#client.metadata.topic(name)
      if (topic === undefined) throw new BrokerError(UNKNOWN_TOPIC_OR_PARTITION, `Describing topic "${name}"`)
      return topic
    })
  }

  /** Current configs of a topic or broker (all of them, or only `keys`). */
  async describeConfigs (resource: { type: ConfigResourceType, name: string, keys?: string[] }, options: { signal?: AbortSignal } = {}): Promise<Map<string, ConfigEntry>> {
    const nodeId = resource.type === 'topic' ? undefined : Number(resource.name)
    const response = await this.#client.request(DescribeConfigs, {
      resources: [{ resourceType: RESOURCE_TYPE[resource.type], resourceName: resource.name, configurationKeys: resource.keys ?? null }],
      includeSynonyms: false,
      includeDocumentation: false
    }, { signal: options.signal, nodeId })
    const result = response.results[0]
    if (result === undefined) throw new BrokerError(-1, `Describing configs of ${resource.type} "${resource.name}": empty response`)
    if (result.errorCode !== 0) throw new BrokerError(result.errorCode, `Describing configs of ${resource.type} "${resource.name}"`, result.errorMessage)
    const configs = new Map<string, ConfigEntry>()
    for (const c of result.configs) {
      // configSource 5 = DEFAULT_CONFIG (KIP-226).
      configs.set(c.name, { name: c.name, value: c.value, readOnly: c.readOnly, isDefault: c.configSource === 5, isSensitive: c.isSensitive, source: c.configSource })
    }
    return configs
  }

  /** Sets and removes configs of topics or brokers, leaving the others as they are (IncrementalAlterConfigs). */
  async alterConfigs (resources: AlterConfigsResource[], options: { validateOnly?: boolean, signal?: AbortSignal } = {}): Promise<void> {
    const response = await this.#client.request(IncrementalAlterConfigs, {
      resources: resources.map(r => ({
        resourceType: RESOURCE_TYPE[r.type],
        resourceName: r.name,
        configs: [
          ...Object.entries(r.set ?? {}).map(([name, value]) => ({ name, configOperation: 0 /* SET */, value })),
          ...(r.delete ?? []).map(name => ({ name, configOperation: 1 /* DELETE */, value: null }))
        ]
      })),
      validateOnly: options.validateOnly ?? false
    }, { signal: options.signal })
    for (const result of response.responses) {
      if (result.errorCode !== 0) throw new BrokerError(result.errorCode, `Altering configs of resource "${result.resourceName}"`, result.errorMessage)
    }
  }
}

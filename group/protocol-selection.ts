/**
 * The group consumer's protocol selection and membership construction: classic or KIP-848
 * (the option, or what the broker runs), the membership of that protocol with its settings,
 * and the topics it subscribes to (a RegExp matched by the broker or here).
 */
import type { Client } from '../client/client'
import { ApiVersions } from '../protocol/apis/api-versions'
import { KafkaTsError } from '../protocol/errors'
import { assignorByName } from './assignors'
import { ClassicMembership } from './classic-membership'
import { ConsumerMembership } from './consumer-membership'
import type { GroupCoordinator } from './coordinator'
import { WHERE, type GroupConsumerOptions } from './group-options'
import type { Membership, MembershipHost } from './membership'

export type GroupProtocol = 'classic' | 'consumer'

/** Said once the consumer runs KIP-848 with classic-only timing options, which the broker overrides. */
export function ignoredClassicOptions (options: GroupConsumerOptions<unknown, unknown>): KafkaTsError | undefined {
  const given = classicOnlyOptions(options).filter(o => !o.startsWith('assignor'))
  if (given.length === 0) return undefined
  return new KafkaTsError('CLASSIC_ONLY_OPTION', `${WHERE} ${given.join(', ')}: classic-protocol only and ignored with KIP-848, where the broker sets session timeout and heartbeat interval (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms); leave ${given.length > 1 ? 'them' : 'it'} out, or use groupProtocol: 'classic'`)
}

/** The classic-only options given (the Java client refuses them with group.protocol=consumer). */
function classicOnlyOptions (options: GroupConsumerOptions<unknown, unknown>): string[] {
  const given: string[] = []
  if (options.sessionTimeoutMs !== undefined) given.push('sessionTimeoutMs')
  if (options.heartbeatIntervalMs !== undefined) given.push('heartbeatIntervalMs')
  if (options.assignor !== undefined && typeof options.assignor !== 'string') given.push('assignor (an Assignor object)')
  return given
}

/** A JS RegExp as a pattern Kafka matches against whole topic names (RE2/J on the broker). */
export function wholeNamePattern (regex: RegExp): { broker: string, local: RegExp } {
  const unsupported = [...regex.flags].filter(f => !'imsguyd'.includes(f))
  if (unsupported.length > 0) throw new RangeError(`${WHERE} topics: the RegExp flag(s) ${unsupported.join('')} cannot be matched by Kafka; use i, m or s`)
  const inline = [...regex.flags].filter(f => 'ims'.includes(f)).join('')
  return {
    broker: `${inline !== '' ? `(?${inline})` : ''}${regex.source}`,
    local: new RegExp(`^(?:${regex.source})$`, regex.flags.replace(/[gy]/g, ''))
  }
}

/**
 * The protocol to run when the option leaves it out: classic-only options mean classic,
 * else KIP-848 when the broker lists ConsumerGroupHeartbeat (the first heartbeat still may
 * say it is not enabled).
 */
export async function chooseProtocol (client: Client, options: GroupConsumerOptions<unknown, unknown>): Promise<GroupProtocol> {
  let protocol = options.groupProtocol
  if (protocol === undefined) {
    const versions = classicOnlyOptions(options).length > 0 ? undefined : await client.request(ApiVersions, { clientSoftwareName: 'kafkats', clientSoftwareVersion: '0' })
    protocol = versions?.apiKeys.some(k => k.apiKey === 68) === true ? 'consumer' : 'classic'
  }
  return protocol
}

/** A membership of `protocol` with the assignor the options name. */
export function newMembership (protocol: GroupProtocol, client: Client, coordinator: GroupCoordinator, host: MembershipHost, options: GroupConsumerOptions<unknown, unknown>): Membership {
  if (protocol === 'classic') {
    const option = options.assignor ?? 'cooperative-sticky'
    const assignor = typeof option === 'string' ? assignorByName(option) : option
    if (assignor === undefined) throw new RangeError(`${WHERE} assignor: unknown assignor ${JSON.stringify(option)}; use 'cooperative-sticky', 'range', 'roundrobin' or an Assignor object`)
    return new ClassicMembership(client, coordinator, host, assignor)
  }
  const option = options.assignor
  if (option !== undefined && typeof option !== 'string') throw new RangeError(`${WHERE} assignor: the KIP-848 protocol uses server-side assignors: give the assignor by name (e.g. 'uniform' or 'range'), or use groupProtocol: 'classic' for client-side assignors`)
  return new ConsumerMembership(client, coordinator, host, option ?? null)
}

/** The settings a membership runs with, from the options (their defaults are here). */
export function membershipSettings (options: GroupConsumerOptions<unknown, unknown>, pattern: { broker: string } | undefined): Pick<MembershipHost, 'groupId' | 'instanceId' | 'rack' | 'sessionTimeoutMs' | 'rebalanceTimeoutMs' | 'heartbeatIntervalMs' | 'subscriptionPattern'> {
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 45_000
  return {
    groupId: options.groupId,
    instanceId: options.instanceId ?? null,
    rack: options.rack ?? null,
    sessionTimeoutMs,
    rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 60_000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? Math.min(3000, Math.floor(sessionTimeoutMs / 3)),
    subscriptionPattern: pattern?.broker ?? null
  }
}

/** The topics subscribed to: the names given, or the cluster's topics a RegExp matches (classic: matched here). */
export class SubscribedTopics {
  readonly #client: Client
  readonly #options: GroupConsumerOptions<unknown, unknown>
  /** A RegExp subscription: its broker-side (KIP-848) and local (classic) forms. */
  readonly pattern: { broker: string, local: RegExp } | undefined
  #topicsCache: { at: number, topics: string[] } | undefined

  constructor (client: Client, options: GroupConsumerOptions<unknown, unknown>) {
    this.#client = client
    this.#options = options
    this.pattern = options.topics instanceof RegExp ? wholeNamePattern(options.topics) : undefined
  }

  async now (signal?: AbortSignal): Promise<string[]> {
    const topics = this.#options.topics
    if (Array.isArray(topics)) return topics
    if (typeof topics === 'string') return [topics]
    if (this.#topicsCache !== undefined && this.#client.clock.now() - this.#topicsCache.at < (this.#options.topicsRefreshMs ?? 30_000)) return this.#topicsCache.topics
    const pattern = this.pattern!.local
    // Every topic of the cluster (group/ does not use admin/, which sits beside it).
    const all = await this.#client.metadata.refreshAll(signal)
    const matched = all.filter(t => this.#client.metadata.topic(t)?.isInternal !== true && pattern.test(t)).sort()
    this.#topicsCache = { at: this.#client.clock.now(), topics: matched }
    return matched
  }
}

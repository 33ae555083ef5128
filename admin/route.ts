/**
 * Where each admin request goes, and what is retried.
 *
 * - any broker: cluster-wide reads and the requests a broker forwards to the KRaft
 *   controller itself (ACLs, quotas, SCRAM users, features);
 * - the controller (Metadata's controllerId; a KRaft broker forwards to the real one):
 *   topic creation, deletion, partitions, elections, reassignments; NOT_CONTROLLER
 *   refreshes the metadata and tries again;
 * - a group's or transactional id's coordinator (the client's cache, client/coordinators.ts):
 *   NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS find it again;
 * - each partition's leader (listOffsets, deleteRecords, describeProducers): partitions
 *   whose leader moved are sent again to the new one.
 *
 * Retries stop at the call's deadline (`timeoutMs`, default the client's request timeout);
 * deadlines and backoffs are timed on the client's clock (`client.clock`).
 * Only what provably did nothing is retried: a refusal by the wrong broker, or a
 * connection that failed before the request was written.
 */
import type { Api } from '../protocol/api'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { backoffDelay, MIN_ATTEMPT_MS, sleep } from '../client/backoff'
import type { Client } from '../client/client'
import { wasNotWritten } from '../client/errors'
import { invalidatesMetadata } from '../client/metadata'
import { checkDuration, checkKnownKeys, checkObject, checkSignal } from '../client/validate'
import { internal } from '../client/internal'

/** What every admin call takes: its bound (`timeoutMs`, the client's `requestTimeoutMs` by default) and a signal to abort it. */
export interface AdminCallOptions {
  /** How long the call may take, retries included (default: the client's requestTimeoutMs). */
  timeoutMs?: number
  /** Aborts the call: it rejects with an AbortedError. */
  signal?: AbortSignal
}

const COORDINATOR_MOVED = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS])

/** An answer that says "ask again elsewhere": retried by `Router.retry` until the deadline. */
export class Misrouted extends Error {
  readonly error: BrokerError
  constructor (error: BrokerError) {
    super(error.message)
    this.error = error
  }
}

export function isCoordinatorMoved (code: number): boolean {
  return COORDINATOR_MOVED.has(code)
}

/** A BrokerError for a non-zero code, else undefined: the per-item error of typed results. */
export function itemError (code: number, context: string, message?: string | null): BrokerError | undefined {
  return code === 0 ? undefined : new BrokerError(code, context, message)
}

export function throwIf (code: number, context: string, message?: string | null): void {
  if (code !== 0) throw new BrokerError(code, context, message)
}

/** A partition, by its topic's name and its number. */
export interface TopicPartitionKey {
  /** The topic's name. */
  topic: string
  /** The partition's number, from 0. */
  partition: number
}

export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`

export type CoordinatorType = 'group' | 'transaction'

export { MIN_ATTEMPT_MS }

export class Router {
  readonly client: Client

  constructor (client: Client) {
    this.client = client
  }

  /** Validates the options every call takes and returns its deadline (epoch ms). */
  deadline (where: string, options: AdminCallOptions, extraKeys: readonly string[] = []): number {
    checkObject(where, 'options', options as unknown)
    checkKnownKeys(where, options, ['timeoutMs', 'signal', ...extraKeys])
    if (options.timeoutMs !== undefined) checkDuration(where, 'timeoutMs', options.timeoutMs, 1)
    if (options.signal !== undefined) checkSignal(where, 'signal', options.signal)
    return this.client.clock.now() + (options.timeoutMs ?? this.client.requestTimeoutMs)
  }

  /** The time left before `deadline` on the client's clock, at least 1 ms: a request's `timeoutMs`. */
  timeLeft (deadline: number): number {
    return Math.max(1, deadline - this.client.clock.now())
  }

  /**
   * Runs `attempt` until it succeeds, retrying `Misrouted` answers and connections that
   * failed before the write, with backoff, until `deadline`; `onMisrouted` runs before the
   * retry (to refresh metadata or forget a coordinator).
   */
  async retry<T> (deadline: number, signal: AbortSignal | undefined, attempt: () => Promise<T>, onMisrouted?: (error: BrokerError) => Promise<void> | void): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt()
      } catch (error) {
        const misrouted = error instanceof Misrouted
        const retriable = misrouted || (wasNotWritten(error) && signal?.aborted !== true)
        const wait = backoffDelay(tries, this.client.backoff)
        // No attempt without the time to be answered: it could only time out (and close its connection).
        if (!retriable || this.client.clock.now() + wait + MIN_ATTEMPT_MS > deadline) throw misrouted ? error.error : error
        if (misrouted) await onMisrouted?.(error.error)
        await sleep(wait, signal, misrouted ? error.error : error, this.client.clock)
        // The wait may have ended late (a busy event loop) and eaten the time the check above counted on.
        if (deadline - this.client.clock.now() < MIN_ATTEMPT_MS) throw misrouted ? error.error : error
      }
    }
  }

  /** Sends to any broker, or to broker `nodeId` (whose address a first call learns from the metadata). */
  async any<Req, Res> (api: Api<Req, Res>, body: Req | ((version: number) => Req), deadline: number, signal?: AbortSignal, nodeId?: number): Promise<Res> {
    if (nodeId !== undefined && !this.client.metadata.brokers.some(b => b.nodeId === nodeId)) await this.client.metadata.refresh([], signal, deadline)
    return await this.retry(deadline, signal, async () => await this.client.request(api, body, { nodeId, signal, timeoutMs: this.timeLeft(deadline) }))
  }

  /**
   * Sends to the controller. `codes` lists the error codes of the answer (top-level and
   * per item): a NOT_CONTROLLER among them refreshes the metadata and sends again.
   */
  async controller<Req, Res> (api: Api<Req, Res>, body: Req | ((version: number) => Req), deadline: number, signal: AbortSignal | undefined, codes: (response: Res) => number[]): Promise<Res> {
    return await this.retry(deadline, signal, async () => {
      if (this.client.metadata.controllerId < 0) await this.client.metadata.refresh([], signal, deadline)
      const controller = this.client.metadata.controllerId
      const response = await this.client.request(api, body, { nodeId: controller >= 0 ? controller : undefined, signal, timeoutMs: this.timeLeft(deadline) })
      if (codes(response).includes(ErrorCode.NOT_CONTROLLER)) throw new Misrouted(new BrokerError(ErrorCode.NOT_CONTROLLER, `${api.name} to broker ${controller}`))
      return response
    }, async () => { await this.client.metadata.refresh([], signal, deadline).catch(() => {}) })
  }

  /** The coordinators of several keys at once (the client's cache; FindCoordinator v4+ batches them). */
  async coordinators (type: CoordinatorType, keys: string[], deadline: number, signal?: AbortSignal): Promise<Map<string, number>> {
    return await this.client[internal].coordinators.lookupMany(type, keys, { deadline, signal })
  }

  /**
   * Sends a request about `key` to its coordinator. `codes` lists the answer's error
   * codes: NOT_COORDINATOR and friends forget the coordinator and try again.
   */
  async coordinator<Req, Res> (type: CoordinatorType, key: string, api: Api<Req, Res>, body: Req | ((version: number) => Req), deadline: number, signal: AbortSignal | undefined, codes: (response: Res) => number[]): Promise<Res> {
    let nodeId: number | undefined
    return await this.retry(deadline, signal, async () => {
      nodeId = await this.client[internal].coordinators.lookup(type, key, { deadline, signal })
      const response = await this.client.request(api, body, { nodeId, signal, timeoutMs: this.timeLeft(deadline) })
      const moved = codes(response).find(isCoordinatorMoved)
      if (moved !== undefined) throw new Misrouted(new BrokerError(moved, `${api.name} for ${type} "${key}" on broker ${nodeId}`))
      return response
    }, () => { this.forgetCoordinator(type, key, nodeId) })
  }

  /** Forgets the coordinator of `key` (if still `nodeId`, when given): a request to it said it moved. */
  forgetCoordinator (type: CoordinatorType, key: string, nodeId?: number): void {
    this.client[internal].coordinators.invalidate(type, key, nodeId)
  }

  /**
   * Sends per-partition requests to each partition's leader. `send` gets one leader and
   * its partitions and returns an error code per partition (0 for done); partitions whose
   * code means the leader moved are sent again, after a metadata refresh, until the
   * deadline. Returns the last code of every partition; `send` keeps the results.
   */
  async leaders<P extends TopicPartitionKey> (items: P[], deadline: number, signal: AbortSignal | undefined, send: (leader: number, items: P[]) => Promise<Map<string, number>>): Promise<Map<string, number>> {
    const clock = this.client.clock
    const codes = new Map<string, number>()
    let pending = items
    /** Why some partition has no answer (a connection or metadata failure): thrown if one still has none at the end. */
    let lastError: unknown
    /** Why some partition is asked again although it has an answer (the leader moved). */
    let retrying: BrokerError | undefined
    for (let tries = 0; pending.length > 0; tries++) {
      const topics = [...new Set(pending.map(p => p.topic))]
      // The cached leaders first; a refresh when some are unknown, and before every retry.
      const metadata = this.client.metadata
      let refreshError: unknown
      if (tries > 0 || pending.some(p => (metadata.partition(p.topic, p.partition)?.leaderId ?? -1) < 0)) {
        refreshError = await metadata.refresh(topics, signal, deadline).then(() => undefined, (error: unknown) => error)
      }
      const byLeader = new Map<number, P[]>()
      const retry: P[] = []
      for (const item of pending) {
        const leader = this.client.metadata.partition(item.topic, item.partition)?.leaderId ?? -1
        if (leader < 0) {
          // No metadata answer is no news of the topic: the refresh's error is the answer then, not UNKNOWN_TOPIC_OR_PARTITION.
          if (refreshError !== undefined) {
            codes.delete(tpKey(item.topic, item.partition))
            lastError = refreshError
          } else {
            // The topic's own refusal (TOPIC_AUTHORIZATION_FAILED) is its answer: it does not change on a retry.
            const refused = metadata.topicError(item.topic)
            if (refused !== undefined) {
              codes.set(tpKey(item.topic, item.partition), refused.code)
              continue
            }
            const code = this.client.metadata.topic(item.topic) === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.LEADER_NOT_AVAILABLE
            codes.set(tpKey(item.topic, item.partition), code)
            retrying = new BrokerError(code, `The leader of ${item.topic}-${item.partition}`)
          }
          retry.push(item)
          continue
        }
        byLeader.set(leader, [...(byLeader.get(leader) ?? []), item])
      }
      await Promise.all([...byLeader].map(async ([leader, group]) => {
        try {
          const answered = await send(leader, group)
          for (const item of group) {
            const code = answered.get(tpKey(item.topic, item.partition)) ?? -1
            codes.set(tpKey(item.topic, item.partition), code)
            if (invalidatesMetadata(code)) {
              retry.push(item)
              retrying = new BrokerError(code, `${item.topic}-${item.partition} on broker ${leader}`)
            }
          }
        } catch (error) {
          if (!wasNotWritten(error) || signal?.aborted === true) throw error
          lastError = error
          for (const item of group) codes.delete(tpKey(item.topic, item.partition))
          retry.push(...group)
        }
      }))
      if (retry.length === 0 || deadline - clock.now() < MIN_ATTEMPT_MS) break
      pending = retry
      await sleep(Math.min(backoffDelay(tries, this.client.backoff), Math.max(0, deadline - clock.now() - MIN_ATTEMPT_MS)), signal, lastError ?? retrying, clock)
      if (deadline - clock.now() < MIN_ATTEMPT_MS) break
    }
    // A leader we never reached within the deadline: its connection error is the answer.
    if (items.some(item => !codes.has(tpKey(item.topic, item.partition)))) throw lastError
    return codes
  }
}

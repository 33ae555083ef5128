/**
 * Coordinators: which broker coordinates a consumer group, a transactional id or a share
 * partition's state (FindCoordinator), cached per key until a caller says it moved. The one
 * lookup every coordinator request goes through (groups, transactions, admin, kafkajs),
 * after franz-go's loadCoordinators:
 *
 * - an answer is cached until `invalidate` (a caller's request was answered NOT_COORDINATOR
 *   or COORDINATOR_NOT_AVAILABLE, or its connection to the coordinator failed);
 * - concurrent lookups of one key share one request (a key asked about is "in flight" until
 *   its answer), so fifty members of one group starting together send one FindCoordinator;
 * - the keys of one lookup go in one request from FindCoordinator v4 (KIP-699), one request
 *   per key below it;
 * - retriable answers (COORDINATOR_NOT_AVAILABLE while __consumer_offsets or
 *   __transaction_state is created, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, any code
 *   the table marks retriable) and failed connections are retried with the client's backoff
 *   until the caller's deadline or signal, which end it with the last failure; other answers
 *   (GROUP_AUTHORIZATION_FAILED, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_REQUEST…)
 *   are thrown at once as BrokerError.
 *
 * What a coordinator's own answers mean (a fenced member, a moved coordinator) is its
 * caller's business: this file only finds coordinators.
 */
import { FindCoordinator, CoordinatorKeyType, type FindCoordinatorEntry, type FindCoordinatorRequest, type FindCoordinatorResponse } from '../protocol/apis/find-coordinator'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError } from '../protocol/errors'
import type { Api } from '../protocol/api'
import { abortError, backoffDelay, MIN_ATTEMPT_MS, type BackoffOptions } from './backoff'
import type { BrokerPool } from './brokers'
import { waitOn, type Clock } from './clock'
import { onAbort } from './abort-signal'
import { ConnectionError, RequestTimeoutError } from './errors'
import type { MetadataCache } from './metadata'

/** What a coordinator coordinates: a consumer group (also share groups' membership), a transactional id, a share partition's state (KIP-932, v6+). */
export type CoordinatorKind = 'group' | 'transaction' | 'share'

export interface CoordinatorLookupOptions {
  /** Ends the lookup (and its retries) with AbortedError naming the last failure. */
  signal?: AbortSignal
  /**
   * When to stop retrying (epoch ms on the client's clock); the last failure is thrown then.
   * Default: none when `signal` is given (the signal bounds it), else requestTimeoutMs from now.
   */
  deadline?: number
}

/** What the lookup needs of its client. */
export interface CoordinatorsHost {
  readonly clock: Clock
  readonly backoff: BackoffOptions
  readonly requestTimeoutMs: number
  readonly brokers: BrokerPool
  readonly metadata: MetadataCache
  /** Client.request to any broker. */
  readonly request: <Request, Response>(api: Api<Request, Response>, body: (version: number) => Request, options: { timeoutMs: number }) => Promise<Response>
}

/** One key's answer: its coordinator, or the error the broker answered for it. */
type Answer = { nodeId: number } | { error: BrokerError }

const KEY_TYPES: Record<CoordinatorKind, number> = {
  group: CoordinatorKeyType.GROUP,
  transaction: CoordinatorKeyType.TRANSACTION,
  share: CoordinatorKeyType.SHARE
}

/** The client's coordinator cache (`client[internal].coordinators`). */
export class Coordinators {
  readonly #host: CoordinatorsHost
  /** `${kind}\0${key}` → the coordinator's node id, until invalidated. */
  readonly #known = new Map<string, number>()
  /** `${kind}\0${key}` → the answer of the request asking about it now. */
  readonly #inFlight = new Map<string, Promise<Answer>>()

  constructor (host: CoordinatorsHost) {
    this.#host = host
  }

  /** The coordinator of `key`: the cached one, or looked up (see the file's header). */
  async lookup (kind: CoordinatorKind, key: string, options: CoordinatorLookupOptions = {}): Promise<number> {
    return (await this.lookupMany(kind, [key], options)).get(key)!
  }

  /** The coordinators of several keys, asked in one request where the broker allows it. */
  async lookupMany (kind: CoordinatorKind, keys: readonly string[], options: CoordinatorLookupOptions = {}): Promise<Map<string, number>> {
    const { signal } = options
    const clock = this.#host.clock
    const deadline = options.deadline ?? (signal === undefined ? clock.now() + this.#host.requestTimeoutMs : Infinity)
    const found = new Map<string, number>()
    let lastError: unknown
    for (let attempt = 0; ; attempt++) {
      const missing: string[] = []
      for (const key of new Set(keys)) {
        if (found.has(key)) continue
        const nodeId = this.#known.get(id(kind, key))
        if (nodeId !== undefined) found.set(key, nodeId)
        else missing.push(key)
      }
      if (missing.length === 0) return found
      try {
        for (const [key, answer] of await this.#ask(kind, missing, deadline, signal, lastError)) {
          if ('nodeId' in answer) found.set(key, answer.nodeId)
          else if (answer.error.retriable) lastError = answer.error
          else throw answer.error
        }
      } catch (error) {
        if (!isRetriableFailure(error) || signal?.aborted === true) throw error
        lastError = error
      }
      if (keys.every(key => found.has(key))) return found
      const wait = backoffDelay(attempt, this.#host.backoff)
      // No attempt without the time to be answered: it could only time out (see MIN_ATTEMPT_MS).
      if (clock.now() + wait + MIN_ATTEMPT_MS > deadline) throw lastError
      await waitOn(clock, wait, signal)
      if (signal?.aborted === true) throw abortError(signal, 'while waiting to retry', false, lastError)
      if (deadline - clock.now() < MIN_ATTEMPT_MS) throw lastError
    }
  }

  /** Forgets the coordinator of `key` (only if it is still `nodeId`, when given): the next lookup asks again. */
  invalidate (kind: CoordinatorKind, key: string, nodeId?: number): void {
    const k = id(kind, key)
    if (nodeId === undefined || this.#known.get(k) === nodeId) this.#known.delete(k)
  }

  /**
   * One answer per key: joins the requests in flight for some keys, sends one for the rest.
   * The request is the client's, not one caller's: it is not bound by the caller's signal
   * (the callers sharing it would fail with it), which only ends this caller's wait.
   */
  async #ask (kind: CoordinatorKind, keys: string[], deadline: number, signal: AbortSignal | undefined, lastError: unknown): Promise<Map<string, Answer>> {
    const fresh = keys.filter(key => !this.#inFlight.has(id(kind, key)))
    const joined = fresh.length < keys.length
    if (fresh.length > 0) {
      const timeoutMs = Math.max(1, Math.min(this.#host.requestTimeoutMs, deadline - this.#host.clock.now()))
      const request = this.#request(kind, fresh, timeoutMs)
      for (const key of fresh) {
        const answer = request.then(answers => answers.get(key)!)
        this.#inFlight.set(id(kind, key), answer)
        void answer.then(() => {}, () => {}).finally(() => {
          if (this.#inFlight.get(id(kind, key)) === answer) this.#inFlight.delete(id(kind, key))
        })
      }
    }
    const answers = Promise.all(keys.map(async key => [key, await this.#inFlight.get(id(kind, key))!] as const)).then(entries => new Map(entries))
    // A request another caller started may outlast this caller's deadline; one started here is bound by it.
    return await waitFor(answers, signal, joined ? deadline : Infinity, this.#host.clock, `finding the ${kind} coordinator of "${keys.join('", "')}"`, lastError)
  }

  /** FindCoordinator for `keys`: one request from v4, one per key below (the first answer says which). */
  async #request (kind: CoordinatorKind, keys: string[], timeoutMs: number): Promise<Map<string, Answer>> {
    const keyType = KEY_TYPES[kind]
    let batched = true
    const response: FindCoordinatorResponse = await this.#host.request<FindCoordinatorRequest, FindCoordinatorResponse>(FindCoordinator, version => {
      batched = version >= 4
      return batched ? { keyType, coordinatorKeys: keys } : { key: keys[0], keyType }
    }, { timeoutMs })
    const asked = batched ? keys : keys.slice(0, 1)
    const entries: FindCoordinatorEntry[] = batched
      ? response.coordinators
      : [{ key: asked[0], nodeId: response.nodeId, host: response.host, port: response.port, errorCode: response.errorCode, errorMessage: response.errorMessage }]
    const answers = new Map<string, Answer>()
    for (const entry of entries) {
      if (!asked.includes(entry.key)) continue
      if (entry.errorCode !== 0) {
        answers.set(entry.key, { error: new BrokerError(entry.errorCode, `Finding the ${kind} coordinator of "${entry.key}"`, entry.errorMessage) })
        continue
      }
      // A coordinator the metadata does not list yet (a fresh client): learn its address.
      if (this.#host.brokers.broker(entry.nodeId) === undefined) await this.#host.metadata.refresh([], undefined, this.#host.clock.now() + timeoutMs)
      this.#known.set(id(kind, entry.key), entry.nodeId)
      answers.set(entry.key, { nodeId: entry.nodeId })
    }
    for (const key of asked) {
      if (!answers.has(key)) answers.set(key, { error: new BrokerError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `Finding the ${kind} coordinator of "${key}" (the broker did not answer for it)`) })
    }
    // Below v4 each key needs its own request.
    const rest = keys.filter(key => !asked.includes(key))
    const more = await Promise.all(rest.map(async key => await this.#request(kind, [key], timeoutMs)))
    for (const other of more) for (const [key, answer] of other) answers.set(key, answer)
    return answers
  }
}

function id (kind: CoordinatorKind, key: string): string {
  return `${kind}\u0000${key}`
}

/** A failed or timed-out connection: FindCoordinator only reads, so it may be sent again. */
function isRetriableFailure (error: unknown): boolean {
  return error instanceof ConnectionError || (error instanceof KafkaTsError && error.retriable)
}

/** `promise`, or AbortedError when `signal` aborts first, or `lastError` (a RequestTimeoutError if none) at `deadline`. */
async function waitFor<T> (promise: Promise<T>, signal: AbortSignal | undefined, deadline: number, clock: Clock, doing: string, lastError: unknown): Promise<T> {
  if (signal === undefined && deadline === Infinity) return await promise
  return await new Promise<T>((resolve, reject) => {
    let stopWaiting: (() => void) | undefined
    const timer = deadline === Infinity ? undefined : clock.setTimer(() => end(() => reject(lastError ?? new RequestTimeoutError(`No answer ${doing} before the deadline`, { written: true }))), deadline - clock.now())
    function end (settle: () => void): void {
      timer?.cancel()
      stopWaiting?.()
      settle()
    }
    // Handled first: a request this caller stopped waiting for may still fail.
    promise.then(value => end(() => resolve(value)), (error: unknown) => end(() => reject(error)))
    if (signal === undefined) return
    if (signal.aborted) end(() => reject(abortError(signal, doing, false, lastError)))
    else stopWaiting = onAbort(signal, () => end(() => reject(abortError(signal, doing, false, lastError))))
  })
}

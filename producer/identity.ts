/**
 * ProducerIdentity: the producer id and epoch that new sequences are issued under, and the
 * one place that sends InitProducerId for the producer.
 *
 * Each partition keeps the identity its own sequences belong to (PartitionQueue.producerId
 * and producerEpoch, as the Java client's per-partition entries): a bump replaces `current`,
 * and a partition moves to it only when nothing of its old identity is in flight or
 * ambiguous (`Sequencing.allows` in sequencing.ts). So a bump caused by one partition never cuts
 * short another partition's batches whose outcome can still be learnt.
 *
 * `acquire()` is single-flight and keeps retrying retriable failures (a coordinator outage)
 * while `keepTrying()` says records wait for an identity; it never leaves the producer in a
 * dead state: the next call tries again.
 */
import type { Client } from '../client/client'
import { backoffDelay, sleep } from '../client/backoff'
import { InitProducerId, type InitProducerIdRequest, type InitProducerIdResponse } from '../protocol/apis/init-producer-id'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError, KafkaTsError, sentence } from '../protocol/errors'
import { ProducerClosedError } from './errors'

export interface Identity {
  readonly producerId: bigint
  readonly producerEpoch: number
}

export const NO_IDENTITY: Identity = Object.freeze({ producerId: -1n, producerEpoch: -1 })

export function sameIdentity (a: Identity, b: Identity): boolean {
  return a.producerId === b.producerId && a.producerEpoch === b.producerEpoch
}

export interface ProducerIdentityOptions {
  /** Null for an idempotent producer; the transaction layer passes its transactional id. */
  transactionalId: string | null
  transactionTimeoutMs: number
  /** Whether to go on retrying a retriable failure (false: give up with the last error). */
  keepTrying: () => boolean
  /** Sends one InitProducerId (default: any broker; a transaction coordinator for transactions). */
  send?: (request: InitProducerIdRequest) => Promise<InitProducerIdResponse>
  /** Aborts when the producer closes: the request and the sleeps between retries end then. */
  closing: AbortSignal
}


/**
 * An idempotent producer could not get a producer id and epoch (InitProducerId), so the
 * records that waited for one were not written. Carries the code and name of the error
 * behind it (`cause`) when it has them, e.g. 31 CLUSTER_AUTHORIZATION_FAILED.
 */
export class ProducerIdentityError extends KafkaTsError {
  static override readonly brand: symbol = Symbol.for('kafkats.error.ProducerIdentityError')
  /** Kafka's code of the failure behind it, when it has one. */
  readonly code: number | undefined
  /** Kafka's name for `code`. */
  readonly type: string | undefined

  /** The error for the InitProducerId failure `cause`, whose `code` and `type` it copies. */
  constructor (cause: Error) {
    const { code, type, retriable } = cause as { code?: unknown, type?: unknown, retriable?: unknown }
    const what = code === ErrorCode.CLUSTER_AUTHORIZATION_FAILED
      // KIP-679 (Kafka 3.0+, the only rule on 4.x): idempotence needs WRITE on a topic or IDEMPOTENT_WRITE on the cluster.
      ? 'The principal may not produce idempotently: Kafka needs an ACL allowing WRITE on the topic (any topic will do) or IDEMPOTENT_WRITE on the cluster. Grant one of them, or create the producer with idempotent: false. The record was not written.'
      : retriable === true
        ? 'The record was not written; the next send asks for an id again.'
        : 'The record was not written; the next send asks for an id again, and will fail the same way until what the error names is fixed.'
    super('PRODUCER_IDENTITY', `Could not get a producer id and epoch (InitProducerId): ${sentence(cause.message)} ${what}`, { cause })
    this.name = 'ProducerIdentityError'
    this.code = typeof code === 'number' ? code : undefined
    this.type = typeof type === 'string' ? type : undefined
  }
}

// The broker no longer knows the id or its epoch: start over with a new id.
const START_OVER_CODES = new Set<number>([
  ErrorCode.INVALID_PRODUCER_EPOCH,
  ErrorCode.UNKNOWN_PRODUCER_ID,
  ErrorCode.PRODUCER_FENCED
])

export class ProducerIdentity {
  readonly #client: Client
  readonly #options: ProducerIdentityOptions
  /** The identity new sequences are issued under; NO_IDENTITY before the first InitProducerId. */
  #current: Identity = NO_IDENTITY
  #pending: Promise<Identity> | undefined
  /** The last failure of InitProducerId, for the messages of records that waited for it. */
  lastError: Error | undefined

  constructor (client: Client, options: ProducerIdentityOptions) {
    this.#client = client
    this.#options = options
  }

  get current (): Identity {
    return this.#current
  }

  get ready (): boolean {
    return this.#current.producerId >= 0n
  }

  get acquiring (): boolean {
    return this.#pending !== undefined
  }

  /**
   * The current identity, getting one first if there is none; with `replacing`, a new one
   * unless the current one already differs from it (KIP-360: InitProducerId with the
   * current id and epoch). Concurrent calls share one request.
   */
  async acquire (replacing?: Identity): Promise<Identity> {
    if (this.#pending !== undefined) return await this.#pending
    if (this.ready && (replacing === undefined || !sameIdentity(replacing, this.#current))) return this.#current
    const from = this.#current
    this.#pending = this.#request(from).then(next => {
      this.#current = next
      this.lastError = undefined
      return next
    }, error => {
      this.lastError = error as Error
      throw error
    }).finally(() => { this.#pending = undefined })
    return await this.#pending
  }

  #closedWhileRetrying (failure: Error | undefined): ProducerClosedError {
    return new ProducerClosedError(`The producer was closed while it was getting a producer id (InitProducerId)${failure === undefined ? '' : `, which had failed with ${failure.message}`}`)
  }

  /** The transaction layer's new identity (EndTxn v5 returns one, KIP-890); partitions move to it as to a bump's. */
  adopt (identity: Identity): void {
    this.#current = { producerId: identity.producerId, producerEpoch: identity.producerEpoch }
    this.lastError = undefined
  }

  async #request (from: Identity): Promise<Identity> {
    let producerId = from.producerId
    let producerEpoch = from.producerEpoch
    for (let attempt = 0; ; attempt++) {
      let failure: Error
      try {
        const request = (version: number): InitProducerIdRequest => ({
          transactionalId: this.#options.transactionalId,
          transactionTimeoutMs: this.#options.transactionTimeoutMs,
          producerId: version >= 3 ? producerId : -1n,
          producerEpoch: version >= 3 ? producerEpoch : -1
        })
        const response = this.#options.send !== undefined
          ? await this.#options.send(request(Number.MAX_SAFE_INTEGER))
          : await this.#client.request(InitProducerId, request, { signal: this.#options.closing })
        if (response.errorCode === 0) return { producerId: response.producerId, producerEpoch: response.producerEpoch }
        failure = new BrokerError(response.errorCode, 'InitProducerId')
        if (START_OVER_CODES.has(response.errorCode)) {
          producerId = -1n
          producerEpoch = -1
        } else if (!(failure as BrokerError).retriable) {
          throw failure
        }
      } catch (error) {
        if (this.#options.closing.aborted) throw this.#closedWhileRetrying(this.lastError)
        if (error instanceof KafkaTsError && !error.retriable) throw error
        failure = error as Error
      }
      this.lastError = failure
      if (!this.#options.keepTrying()) throw failure
      await sleep(backoffDelay(attempt, this.#client.backoff), this.#options.closing, failure, this.#client.clock).catch(() => { throw this.#closedWhileRetrying(failure) })
    }
  }
}

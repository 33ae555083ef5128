/**
 * Request interception, after franz-go kfake's ControlKey: a test registers a function
 * for an API key; each request of that key is shown to it (decoded) before the broker
 * handles it, and the function decides what the broker does with it.
 *
 * Interceptors run in the order they were registered; the first one to return an action
 * (anything but undefined) decides, and only that one's `times` is used up. An
 * interceptor that returns undefined leaves the request to the next one, then to the
 * broker's normal handling.
 */
import type { Api } from '../protocol/api'

/** A request as an interceptor sees it: where it came from, its header's fields, and its decoded body. */
export interface InterceptedRequest<Request = unknown> {
  /** The broker that received it. */
  brokerId: number
  /** The API key, e.g. 0 for Produce. */
  apiKey: number
  /** The API's name, e.g. 'Produce'. */
  apiName: string
  /** The API version of the request. */
  version: number
  /** The request's correlation id. */
  correlationId: number
  /** The connection it came on (an id unique in the process). */
  connectionId: number
  /** The client id in the request header; null when the client sent none. */
  clientId: string | null
  /** The decoded request body. */
  request: Request
}

/** What the broker does with an intercepted request. */
export type InterceptAction<Response = unknown> =
  /** Handle it normally. */
  | undefined
  /** Answer with this body instead (after handling it normally first if `apply`). */
  | {
    /** The response body to answer with. */
    respond: Response
    /** Handle the request normally first (default false: it has no effect). */
    apply?: boolean
  }
  /**
   * Answer with this error code: for Produce, on every partition (after appending the
   * batches, dedup rules applied, if `apply` — REQUEST_TIMED_OUT (7) or
   * NOT_ENOUGH_REPLICAS_AFTER_APPEND (20) after the write); for other APIs, top-level or
   * per topic/partition as fits the API.
   */
  | {
    /** The Kafka error code to answer with. */
    error: number
    /** Handle the request normally first (default false: it has no effect). */
    apply?: boolean
  }
  /** Handle it normally after `delayMs`; later requests on the connection wait (Kafka handles one at a time). */
  | {
    /** How long to wait before handling it, in ms. */
    delayMs: number
  }
  /** Close the connection without answering, before or after applying the request. */
  | {
    /** Whether the request is applied before the connection closes ('after-apply') or not ('before-apply'). */
    drop: 'before-apply' | 'after-apply'
  }
  /** Wait for the promise (settled either way), then handle normally; later requests on the connection wait. */
  | {
    /** The request is handled once this settles. */
    hold: Promise<unknown>
  }
  /** Handle normally, then send what `modify` makes of the real response (e.g. an error on one partition after the write). */
  | {
    /** Makes the response to send from the real one. */
    modify: (response: Response) => Response | Promise<Response>
  }

/** A function `cluster.intercept()` shows requests to: it returns an action, or undefined to leave the request to the next interceptor and then the broker. */
export type Interceptor<Request = unknown, Response = unknown> =
  (request: InterceptedRequest<Request>) => InterceptAction<Response> | void | Promise<InterceptAction<Response> | void>

/** Options of `cluster.intercept()`. */
export interface InterceptOptions {
  /** Remove the interceptor after it has taken this many actions (default: never). */
  times?: number
}

/** An API key, or an Api object (which types the request and response). */
export type ApiSelector<Request = unknown, Response = unknown> = number | Api<Request, Response>

interface Registration {
  apiKey: number
  interceptor: Interceptor
  remaining: number
}

export class InterceptorRegistry {
  readonly #registrations: Registration[] = []

  add (apiKey: number, interceptor: Interceptor, options: InterceptOptions = {}): () => void {
    const times = options.times ?? Infinity
    if (!(times > 0)) throw new RangeError(`intercept: times must be at least 1, not ${times}`)
    const registration: Registration = { apiKey, interceptor, remaining: times }
    this.#registrations.push(registration)
    return () => this.#remove(registration)
  }

  clear (): void {
    this.#registrations.length = 0
  }

  /** The action the interceptors choose for a request (undefined: handle normally). */
  async decide (request: InterceptedRequest): Promise<InterceptAction> {
    for (const registration of [...this.#registrations]) {
      if (registration.apiKey !== request.apiKey || registration.remaining <= 0) continue
      let action: InterceptAction | void
      try {
        action = await registration.interceptor(request)
      } catch (error) {
        // A throw counts as a turn, so `times: 1` does not fail every later request too.
        if (--registration.remaining <= 0) this.#remove(registration)
        throw error
      }
      if (action === undefined || action === null) continue
      // Another request of the same key may have used up the last turn while we awaited.
      if (registration.remaining <= 0) continue
      if (--registration.remaining === 0) this.#remove(registration)
      return action as InterceptAction
    }
    return undefined
  }

  #remove (registration: Registration): void {
    const i = this.#registrations.indexOf(registration)
    if (i !== -1) this.#registrations.splice(i, 1)
  }
}

/** A short name of an action, for the request log. */
export function describeAction (action: InterceptAction): RequestAction {
  if (action === undefined) return 'normal'
  if ('respond' in action) return 'respond'
  if ('error' in action) return 'error'
  if ('delayMs' in action) return 'delay'
  if ('drop' in action) return action.drop === 'before-apply' ? 'drop-before-apply' : 'drop-after-apply'
  if ('hold' in action) return 'hold'
  if ('modify' in action) return 'modify'
  return 'normal'
}

/** What the interceptors chose for a logged request: 'normal' when none took an action. */
export type RequestAction = 'normal' | 'respond' | 'error' | 'delay' | 'hold' | 'modify' | 'drop-before-apply' | 'drop-after-apply'

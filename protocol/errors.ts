/**
 * Error classes shared by every layer. Each carries `retriable`, and Kafka's own
 * errors carry Kafka's numeric `code` and its `type` name (e.g. NOT_LEADER_OR_FOLLOWER).
 *
 * `instanceof` works across two loaded copies of kafkats: each class brands its
 * instances with a `Symbol.for` key and checks the brand (undici does the same).
 */
import { errorCodeInfo } from './error-codes'

const kBrand = Symbol.for('kafkats.error')

export class KafkaTsError extends Error {
  /** Whether repeating the same operation may succeed. */
  readonly retriable: boolean
  /** A stable identifier of the error class, safe to match on. */
  readonly kind: string

  constructor (kind: string, message: string, options: { retriable?: boolean, cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.kind = kind
    this.retriable = options.retriable ?? false
    // The class name, also for classes that do not set it (stack traces and logs show it).
    this.name = new.target.name
    ;(this as unknown as Record<symbol, string[]>)[kBrand] = brandsOf(this)
  }

  static override [Symbol.hasInstance] (instance: unknown): boolean {
    if (instance === null || typeof instance !== 'object') return false
    const brands = (instance as Record<symbol, string[] | undefined>)[kBrand]
    // `this.name` is the class name of the class on the right of instanceof.
    return Array.isArray(brands) && brands.includes(this.name)
  }
}

function brandsOf (error: Error): string[] {
  const names: string[] = []
  for (let proto = Object.getPrototypeOf(error); proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    names.push(proto.constructor.name)
  }
  return names
}

/** Bytes that do not follow the Kafka protocol: a bad length, a truncated frame, a bad CRC. */
export class ProtocolError extends KafkaTsError {
  constructor (message: string, options: { cause?: unknown } = {}) {
    super('PROTOCOL', message, { retriable: false, cause: options.cause })
    this.name = 'ProtocolError'
  }
}

/** An error code a broker answered with. */
export class BrokerError extends KafkaTsError {
  /** Kafka's numeric error code. */
  readonly code: number
  /** Kafka's name for the code, e.g. NOT_LEADER_OR_FOLLOWER. */
  readonly type: string

  constructor (code: number, context: string, brokerMessage?: string | null) {
    const info = errorCodeInfo(code)
    const said = brokerMessage === undefined || brokerMessage === null ? '' : brokerText(brokerMessage)
    const detail = said !== '' ? ` Broker said: ${sentence(said)}` : ''
    super('BROKER', `${context}: ${info.name} (${code}): ${sentence(info.meaning)}${detail}`, { retriable: info.retriable })
    this.name = 'BrokerError'
    this.code = code
    this.type = info.name
  }
}

/** `text` as a sentence: trimmed, ending in one period (not "failed.." when the text brings its own). */
export function sentence (text: string): string {
  const trimmed = text.trim().replace(/\.+$/, '')
  return trimmed === '' || /[?!]$/.test(trimmed) ? trimmed : `${trimmed}.`
}

/**
 * A broker's error message without what only helps Kafka's developers: the broker writes
 * some refusals as "Request Request(processor=0, connectionId=…, session=Session(…), …) is
 * not authorized", a dump of its internal request object. The dump becomes "the request".
 */
export function brokerText (message: string): string {
  let text = message
  for (let start = text.search(/(Request )?Request\(processor=/); start >= 0; start = text.search(/(Request )?Request\(processor=/)) {
    let depth = 0
    let end = text.indexOf('(', start)
    for (; end < text.length; end++) {
      if (text[end] === '(') depth++
      else if (text[end] === ')' && --depth === 0) break
    }
    text = `${text.slice(0, start)}${start === 0 ? 'The request' : 'the request'}${text.slice(end + 1)}`
  }
  return text.trim()
}

/** Throws a BrokerError when `code` is not 0 (NONE). */
export function throwIfError (code: number, context: string, brokerMessage?: string | null): void {
  if (code !== 0) throw new BrokerError(code, context, brokerMessage)
}

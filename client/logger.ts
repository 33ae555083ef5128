/**
 * Logging. A Client takes `logger` (any object with debug/info/warn/error: console, pino,
 * winston, bunyan…) and `logLevel`; producers, consumers and admin log through their
 * client. Every line is a message plus structured fields (broker, topic, partition, group,
 * memberId, correlationId, …).
 *
 * Without a logger nothing is printed but warnings (process.emitWarning, with a KAFKATS_*
 * code), and `NODE_DEBUG=kafkats` prints debug lines on stderr as Node's own modules do
 * (util.debuglog); with a logger, NODE_DEBUG=kafkats makes 'debug' the default level.
 *
 * Call shape: pino (recognised by its `bindings()` method) takes fields first,
 * `logger.info(fields, message)`; everything else gets `logger.info(message, fields)`,
 * which console prints as it is and winston merges into its info object.
 *
 * Cost: callers test `log.debugOn` (a plain boolean) before building a debug line, so a
 * request pays one property read when debugging is off.
 */
import { debuglog, inspect } from 'node:util'
import { checkFunction, checkObject, checkOneOf } from './validate'

// Method syntax on purpose: its parameters compare bivariantly, so console, pino and winston
// loggers (whose methods take `string` or `object` first) are all Loggers without `any`.
/** Where kafkats logs (`new Client({ logger })`): any object with these four methods, such as `console`, pino or winston. */
export interface Logger {
  /** Logs a debug line: called with the message then the fields, or the fields first for a pino-style logger (one with `bindings()`). */
  debug (...args: unknown[]): unknown
  /** Logs an info line, with the same arguments as `debug`. */
  info (...args: unknown[]): unknown
  /** Logs a warning, with the same arguments as `debug`. */
  warn (...args: unknown[]): unknown
  /** Logs an error, with the same arguments as `debug`. */
  error (...args: unknown[]): unknown
}

/** The least severe level logged (`new Client({ logLevel })`); `'warn'` by default, `'silent'` logs nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent']

/** The structured fields of a log line; every line also carries `client` (the clientId). */
export interface LogFields {
  /** The broker concerned, e.g. "broker 1 (127.0.0.1:9092)". */
  broker?: string
  /** The broker's node id. */
  nodeId?: number
  /** The topic concerned. */
  topic?: string
  /** The partition concerned. */
  partition?: number
  /** The consumer group's id. */
  group?: string
  /** The group member's id. */
  memberId?: string
  /** The request's correlation id on its connection. */
  correlationId?: number
  /** The API's name, e.g. 'Fetch'. */
  api?: string
  /** The KAFKATS_* warning code, for warnings that have one. */
  code?: string
  /** The error the line is about. */
  error?: unknown
  [field: string]: unknown
}

const debugOutput = debuglog('kafkats')

export class Log {
  readonly debugOn: boolean
  readonly infoOn: boolean
  readonly warnOn: boolean
  readonly errorOn: boolean
  readonly #logger: Logger | undefined
  readonly #fieldsFirst: boolean
  readonly #clientId: string

  constructor (clientId: string, logger?: Logger, level?: LogLevel) {
    this.#clientId = clientId
    this.#logger = logger
    this.#fieldsFirst = typeof (logger as { bindings?: unknown } | undefined)?.bindings === 'function'
    const rank = LOG_LEVELS.indexOf(level ?? (debugOutput.enabled ? 'debug' : 'warn'))
    this.debugOn = rank <= 0
    this.infoOn = rank <= 1
    this.warnOn = rank <= 2
    this.errorOn = rank <= 3
  }

  debug (message: string, fields?: LogFields): void {
    if (this.debugOn) this.#write('debug', message, fields)
  }

  info (message: string, fields?: LogFields): void {
    if (this.infoOn) this.#write('info', message, fields)
  }

  warn (message: string, fields?: LogFields): void {
    if (this.warnOn) this.#write('warn', message, fields)
  }

  error (message: string, fields?: LogFields): void {
    if (this.errorOn) this.#write('error', message, fields)
  }

  #write (level: 'debug' | 'info' | 'warn' | 'error', message: string, fields: LogFields | undefined): void {
    const all: LogFields = { client: this.#clientId, ...fields }
    const logger = this.#logger
    if (logger === undefined) {
      if (level === 'debug' || level === 'info') {
        debugOutput('%s %s %s', level, message, compact(all))
        return
      }
      const { code, error } = all
      const detail = error instanceof Error && error.message !== message ? `: ${error.message}` : ''
      process.emitWarning(`kafkats: ${message}${detail}`, { code: typeof code === 'string' ? code : 'KAFKATS_WARNING' })
      return
    }
    try {
      if (this.#fieldsFirst) logger[level](all, message)
      else logger[level](message, all)
    } catch {
      // A broken logger must not break the client.
    }
  }
}

/** Fields on one line, an error as its name and message, undefined fields left out. */
function compact (fields: LogFields): string {
  const shown: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue
    shown[key] = value instanceof Error ? `${value.name}: ${value.message}` : value
  }
  return inspect(shown, { breakLength: Infinity, depth: 2 })
}

/** Checks the `logger` and `logLevel` client options. */
export function checkLoggerOptions (where: string, logger: unknown, level: unknown): void {
  if (logger !== undefined) {
    checkObject(where, 'logger', logger)
    for (const method of ['debug', 'info', 'warn', 'error'] as const) {
      if (logger[method] === undefined) throw new TypeError(`${where} logger: expected an object with debug, info, warn and error methods (console, pino, winston…), it has no ${method}()`)
      checkFunction(where, `logger.${method}`, logger[method])
    }
  }
  checkOneOf(where, 'logLevel', level, LOG_LEVELS)
}

/**
 * kafkajs's logger: `logCreator(level)` returns the function every entry goes to, as
 * `{ namespace, level, label, log: { timestamp, logger: 'kafkajs', message, ...extra } }`;
 * each client's `logger()` has `debug, error, info, namespace, setLogLevel, warn`.
 * KAFKAJS_LOG_LEVEL overrides the level, as in kafkajs.
 */
import { logLevel as LEVELS } from './constants'
import type { logLevel } from './constants'
import type { Logger, logCreator as LogCreator } from './types'

export type { LogEntry, Logger, logCreator } from './types'

const LABELS: Array<[keyof Omit<Logger, 'namespace' | 'setLogLevel'>, string, number]> = [
  ['info', 'INFO', LEVELS.INFO], ['error', 'ERROR', LEVELS.ERROR], ['warn', 'WARN', LEVELS.WARN], ['debug', 'DEBUG', LEVELS.DEBUG]
]

function fromEnvironment (level: number | null): number | null {
  const name = (process.env.KAFKAJS_LOG_LEVEL ?? '').toUpperCase() as keyof typeof LEVELS
  return LEVELS[name] ?? level
}

/** kafkajs's default: one JSON line per entry on the console. */
export const consoleLogCreator: LogCreator = () => ({ namespace, level, label, log }) => {
  const prefix = namespace !== '' ? `[${namespace}] ` : ''
  const line = JSON.stringify({ level: label, ...log, message: `${prefix}${log.message}` })
  if (level === LEVELS.ERROR) console.error(line)
  else if (level === LEVELS.WARN) console.warn(line)
  else console.log(line)
}

/** Each logger's level as it is now: a caller checks it before building an entry nobody would see (a line per request). */
const levels = new WeakMap<Logger, () => number>()

/** Whether `logger` writes entries of `level` now. */
export function logs (logger: Logger, level: number): boolean {
  return level <= (levels.get(logger)?.() ?? LEVELS.INFO)
}

export function createLogger ({ level = LEVELS.INFO, logCreator = consoleLogCreator }: { level?: number, logCreator?: LogCreator } = {}): Logger {
  let rootLevel = fromEnvironment(level) ?? LEVELS.INFO
  const write = logCreator(rootLevel as logLevel)
  const make = (namespace: string, ownLevel: number | null): Logger => {
    const current = (): number => ownLevel ?? rootLevel
    const logger = {} as Logger
    for (const [method, label, methodLevel] of LABELS) {
      logger[method] = (message: string, extra: object = {}) => {
        if (methodLevel > current()) return
        write({ namespace, level: methodLevel as logLevel, label, log: { timestamp: new Date().toISOString(), logger: 'kafkajs', message, ...extra } })
      }
    }
    logger.namespace = (child: string, childLevel?: number) => make(child, fromEnvironment(childLevel ?? null))
    logger.setLogLevel = (newLevel: number) => { rootLevel = newLevel }
    levels.set(logger, current)
    return logger
  }
  return make('', null)
}

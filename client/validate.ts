/**
 * Checks of what users pass in. Each check throws where the user passed the value, with a
 * TypeError (wrong kind) or RangeError (right kind, outside what is allowed) whose message
 * names the option, shows the value and says what is allowed:
 *
 *   producer option lingerMs: expected an integer from 0 to 2147483647, got '5' (a string)
 *
 * Every option of every public constructor and call goes through these, so that nothing a
 * user gets wrong is silently written, retried for minutes, hangs or spins timers.
 * `where` names the place ('producer option', 'client option', 'record 3'), `name` the field.
 */

/** A short, readable rendering of any value for an error message. */
export function describeValue (value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  switch (typeof value) {
    case 'string': return `${JSON.stringify(value.length > 60 ? value.slice(0, 57) + '...' : value)} (a string)`
    case 'number': return `${String(value)} (a number)`
    case 'bigint': return `${String(value)}n (a bigint)`
    case 'boolean': return `${String(value)} (a boolean)`
    case 'function': return 'a function'
    case 'symbol': return 'a symbol'
  }
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (Buffer.isBuffer(value)) return `a Buffer of ${value.length} bytes`
  if (value instanceof Uint8Array) return `a Uint8Array of ${value.length} bytes`
  if (value instanceof Date) return `a Date (${isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`
  if (value instanceof RegExp) return `the RegExp ${String(value)}`
  const constructorName = (value as object).constructor?.name
  return constructorName !== undefined && constructorName !== 'Object' ? `a ${constructorName}` : 'an object'
}

function fail (kind: 'type' | 'range', where: string, name: string, expected: string, value: unknown, suffix = ''): never {
  const message = `${where} ${name}: expected ${expected}, got ${describeValue(value)}${suffix}`
  throw kind === 'type' ? new TypeError(message) : new RangeError(message)
}

/** Throws unless `value` is a plain object (not null, not an array). */
export function checkObject (where: string, name: string, value: unknown): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('type', where, name, 'an object', value)
}

/**
 * Refuses keys the callee does not know, so a typo (`linger` for `lingerMs`, `sesionTimeoutMs`)
 * fails instead of being ignored. `hints` maps a known wrong name to the right one
 * ('linger' → 'lingerMs'); otherwise the nearest known name is suggested (see `closestName`).
 */
export function checkKnownKeys (where: string, options: object, known: readonly string[], hints: Record<string, string> = {}): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue
    if ((options as Record<string, unknown>)[key] === undefined) continue
    const hint = hints[key] ?? closestName(key, known)
    throw new TypeError(`${where} ${key} is not an option${hint !== undefined ? `; did you mean ${hint}?` : ''} (known: ${known.join(', ')})`)
  }
}

/** Per logger (so per client), the renamed options it was warned about already. */
const warnedRenames = new WeakMap<object, Set<string>>()

/**
 * Options renamed for one vocabulary across kafkats (`renamed`: old name → new name): the old
 * name is still taken for now (deprecated), given the value its new name would get (check it
 * under both names first), and the first use per client is warned about once through `log`.
 * Giving both names is a TypeError. Returns the options under the new names.
 */
export function renamedOptions<T extends object> (where: string, options: T, renamed: Record<string, string>, log: { warn: (message: string) => void }): T {
  let result = options
  for (const [old, now] of Object.entries(renamed)) {
    const given = options as Record<string, unknown>
    if (given[old] === undefined) continue
    if (given[now] !== undefined) throw new TypeError(`${where} ${old} is the old name of ${now}; give only ${now} (got both)`)
    const { [old]: value, ...rest } = result as Record<string, unknown>
    result = { ...rest, [now]: value } as T
    const warned = warnedRenames.get(log) ?? new Set<string>()
    warnedRenames.set(log, warned)
    if (warned.has(`${where} ${old}`)) continue
    warned.add(`${where} ${old}`)
    log.warn(`${where} ${old} is deprecated and will be removed: it is now called ${now} (same meaning, same values)`)
  }
  return result
}

/**
 * The candidate a user most likely meant by `word`: the same but for case, '-' and '_'
 * ('read-committed' → 'read_committed'), one it begins ('linger' → 'lingerMs'), or one
 * within a typo or two ('maxBytez' → 'maxBytes'; one for words of up to 4 characters).
 */
export function closestName (word: string, candidates: readonly string[]): string | undefined {
  const plain = (s: string): string => s.toLowerCase().replace(/[-_]/g, '')
  const wanted = plain(word)
  if (wanted === '') return undefined
  const same = candidates.find(c => plain(c) === wanted) ?? candidates.find(c => plain(c).startsWith(wanted))
  if (same !== undefined) return same
  let best: string | undefined
  let bestDistance = wanted.length <= 4 ? 2 : 3
  for (const candidate of candidates) {
    const distance = editDistance(wanted, plain(candidate))
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return best
}

/** Levenshtein distance with adjacent swaps counted as one edit (optimal string alignment). */
function editDistance (a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j], before[j - 2] + 1)
    }
    before = previous
    previous = current
  }
  return previous[b.length]
}

/**
 * The option names of an options type, as checkKnownKeys takes them, held to the type by the
 * compiler: a key the type gains and the list lacks fails the build (the list may name
 * more), so the check never refuses a real option.
 *
 *   const RUN_OPTION_KEYS = optionKeys<RunOptions>()(['eachBatch', 'eachRecord', …])
 */
export function optionKeys<T> (): <const K extends readonly string[]>(keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missingKeys: Exclude<keyof T, K[number]> })) => K {
  return keys => keys
}

export interface NumberBounds {
  min?: number
  max?: number
}

function boundsText (bounds: NumberBounds): string {
  const { min, max } = bounds
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`
  if (min !== undefined) return min === 0 ? '≥ 0' : `≥ ${min}`
  if (max !== undefined) return `≤ ${max}`
  return ''
}

/** A safe integer within bounds (inclusive); `undefined` passes (the caller's default applies). */
export function checkInteger (where: string, name: string, value: unknown, bounds: NumberBounds = {}): void {
  if (value === undefined) return
  const expected = `an integer ${boundsText(bounds)}`.trim()
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail('type', where, name, expected, value)
  if ((bounds.min !== undefined && value < bounds.min) || (bounds.max !== undefined && value > bounds.max)) fail('range', where, name, expected, value)
}

/** A finite number within bounds (inclusive); `undefined` passes. */
export function checkNumber (where: string, name: string, value: unknown, bounds: NumberBounds = {}): void {
  if (value === undefined) return
  const expected = `a number ${boundsText(bounds)}`.trim()
  if (typeof value !== 'number' || !Number.isFinite(value)) fail('type', where, name, expected, value)
  if ((bounds.min !== undefined && value < bounds.min) || (bounds.max !== undefined && value > bounds.max)) fail('range', where, name, expected, value)
}

/** The largest delay a Node timer takes; longer ones fire at once (and would spin). */
export const MAX_TIMER_MS = 2_147_483_647

/** A duration in milliseconds that a timer can wait: an integer from `min` (default 0) to 2^31-1. */
export function checkDuration (where: string, name: string, value: unknown, min = 0): void {
  checkInteger(where, name, value, { min, max: MAX_TIMER_MS })
}

/** A string, by default non-empty; `undefined` passes. */
export function checkString (where: string, name: string, value: unknown, options: { allowEmpty?: boolean } = {}): void {
  if (value === undefined) return
  if (typeof value !== 'string') fail('type', where, name, options.allowEmpty === true ? 'a string' : 'a non-empty string', value)
  if (options.allowEmpty !== true && value.length === 0) fail('range', where, name, 'a non-empty string', value)
}

export function checkBoolean (where: string, name: string, value: unknown): void {
  if (value === undefined) return
  if (typeof value !== 'boolean') fail('type', where, name, 'true or false', value)
}

/** One of a fixed set of values; `undefined` passes. */
export function checkOneOf<T> (where: string, name: string, value: unknown, allowed: readonly T[]): void {
  if (value === undefined) return
  if (!allowed.includes(value as T)) {
    const expected = `one of ${allowed.map(v => typeof v === 'string' ? `'${v}'` : String(v)).join(', ')}`
    const meant = typeof value === 'string' ? closestName(value, allowed.filter(v => typeof v === 'string') as string[]) : undefined
    fail(allowed.some(v => typeof v === typeof value) ? 'range' : 'type', where, name, expected, value, meant !== undefined ? `; did you mean '${meant}'?` : '')
  }
}

export function checkFunction (where: string, name: string, value: unknown): void {
  if (value === undefined) return
  if (typeof value !== 'function') fail('type', where, name, 'a function', value)
}

export function checkSignal (where: string, name: string, value: unknown): void {
  if (value === undefined) return
  if (!(value instanceof AbortSignal)) fail('type', where, name, 'an AbortSignal', value)
}

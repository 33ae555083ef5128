/**
 * What every command shares: the connection flags (and the config file they may come
 * from), argument parsing with node:util's parseArgs, output helpers and the error that
 * means "wrong usage" (exit code 2; any other failure exits 1).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import * as path from 'node:path'
import { Client, type ClientOptions, type SaslOptions, type TlsOptions } from '../index'

/** Wrong usage: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

type OptionSpecs = NonNullable<ParseArgsConfig['options']>

export const connectionOptions = {
  bootstrap: { type: 'string', short: 'b' },
  'config-file': { type: 'string', short: 'F' },
  'client-id': { type: 'string' },
  'timeout-ms': { type: 'string' },
  tls: { type: 'boolean' },
  'tls-ca': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-key-passphrase': { type: 'string' },
  'tls-insecure': { type: 'boolean' },
  'tls-servername': { type: 'string' },
  'sasl-mechanism': { type: 'string' },
  'sasl-username': { type: 'string' },
  'sasl-password': { type: 'string' },
  'sasl-token-file': { type: 'string' },
  'sasl-token-command': { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' }
} as const satisfies OptionSpecs

export const connectionHelp = `Connection (every command):
  -b, --bootstrap host:port[,…]   brokers to start from (env KAFKATS_BOOTSTRAP)
  -F, --config-file file.json     { bootstrap, clientId,
                                    sasl: { mechanism, username, password } | { mechanism: "OAUTHBEARER",
                                      token | tokenFile | tokenCommand },
                                    tls: true | { ca, cert, key, passphrase, rejectUnauthorized, servername } };
                                    file paths in it are relative to the file; flags override it
                                    (env KAFKATS_CONFIG)
      --client-id id              (default kafkats-cli)
      --timeout-ms n              for each admin call and metadata wait (default 30000)
      --tls                       TLS with the system's CAs; --tls-ca/--tls-cert/--tls-key file,
                                  --tls-key-passphrase p (env KAFKATS_TLS_KEY_PASSPHRASE) for an
                                  encrypted key, --tls-servername name, --tls-insecure (no check)
      --sasl-mechanism m          PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, with --sasl-username and
                                  --sasl-password (env KAFKATS_SASL_PASSWORD); or OAUTHBEARER with
                                  the token (a JWT) from --sasl-token-file f (read again at each
                                  authentication), --sasl-token-command cmd (run for each; its
                                  output is the token) or env KAFKATS_SASL_TOKEN
      --json                      machine-readable output (admin commands)
  -q, --quiet                     no progress or summary on stderr
  -h, --help                      this help`

export type Values = Record<string, string | boolean | string[] | boolean[] | undefined>

export function parse (args: string[], options: OptionSpecs): { values: Values, positionals: string[] } {
  const specs: OptionSpecs = { ...connectionOptions, ...options }
  // parseArgs refuses `-o -1` (a value that looks like a flag): join negative numbers to their option.
  const takesValue = new Set(Object.entries(specs).flatMap(([name, spec]) => spec.type === 'string' ? [`--${name}`, ...(spec.short !== undefined ? [`-${spec.short}`] : [])] : []))
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    if (takesValue.has(args[i]) && /^-\d+$/.test(args[i + 1] ?? '')) joined.push(`${args[i]}${args[i].startsWith('--') ? '=' : ''}${args[++i]}`)
    else joined.push(args[i])
  }
  args = joined
  try {
    const { values, positionals } = parseArgs({ args, options: specs, allowPositionals: true, strict: true })
    return { values: values as Values, positionals }
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

export const str = (values: Values, name: string): string | undefined => values[name] as string | undefined
export const list = (values: Values, name: string): string[] => (values[name] as string[] | undefined) ?? []

export function int (values: Values, name: string, min = 0): number | undefined {
  const text = str(values, name)
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name}: expected an integer ≥ ${min}, got ${JSON.stringify(text)}`)
  return n
}

/** `k=v` pairs (repeatable flags) as an object. */
export function pairs (values: Values, name: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const item of list(values, name)) {
    const i = item.indexOf('=')
    if (i <= 0) throw new UsageError(`--${name}: expected key=value, got ${JSON.stringify(item)}`)
    out[item.slice(0, i)] = item.slice(i + 1)
  }
  return out
}

interface ConfigFile {
  bootstrap?: string | string[]
  clientId?: string
  sasl?: { mechanism: string, username?: string, password?: string, token?: string, tokenFile?: string, tokenCommand?: string }
  tls?: boolean | { ca?: string, cert?: string, key?: string, passphrase?: string, rejectUnauthorized?: boolean, servername?: string }
}

/** The config file's paths (certificates, a token file) are relative to the file, as users write them, not to the working directory. */
function resolvePaths (config: ConfigFile, file: string): ConfigFile {
  const dir = path.dirname(path.resolve(file))
  const resolve = (p: string | undefined): string | undefined => p === undefined ? undefined : path.resolve(dir, p)
  const tls = typeof config.tls === 'object' && config.tls !== null ? { ...config.tls, ca: resolve(config.tls.ca), cert: resolve(config.tls.cert), key: resolve(config.tls.key) } : config.tls
  const sasl = config.sasl !== undefined && config.sasl !== null ? { ...config.sasl, tokenFile: resolve(config.sasl.tokenFile) } : config.sasl
  return { ...config, tls, sasl }
}

function readConfig (file: string): ConfigFile {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`--config-file: cannot read ${file}: ${(error as Error).message}`)
  }
  try {
    const config = JSON.parse(text) as ConfigFile
    if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new Error('expected a JSON object')
    const unknown = Object.keys(config).filter(k => !['bootstrap', 'clientId', 'sasl', 'tls'].includes(k))
    if (unknown.length > 0) throw new Error(`unknown key ${unknown.join(', ')} (known: bootstrap, clientId, sasl, tls)`)
    return resolvePaths(config, file)
  } catch (error) {
    throw new UsageError(`--config-file ${file}: ${(error as Error).message}`)
  }
}

const readPem = (flag: string, file: string): Buffer => {
  try {
    return readFileSync(file)
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(error as Error).message}`)
  }
}

export function timeoutMs (values: Values): number {
  return int(values, 'timeout-ms', 1) ?? 30_000
}

/**
 * Options for the admin calls of one command: --timeout-ms bounds each, and the signal
 * bounds all of them together (metadata lookups retry an unreachable broker until aborted).
 */
export function callOptions (values: Values): { timeoutMs: number, signal: AbortSignal } {
  return { timeoutMs: timeoutMs(values), signal: AbortSignal.timeout(timeoutMs(values)) }
}

/** The client options from the flags, over the config file, over the environment. */
export function clientOptions (values: Values): ClientOptions {
  const configFile = str(values, 'config-file') ?? (process.env.KAFKATS_CONFIG || undefined)
  const config = configFile !== undefined ? readConfig(configFile) : {}
  const bootstrapText = str(values, 'bootstrap') ?? (process.env.KAFKATS_BOOTSTRAP || undefined)
  const bootstrap = bootstrapText !== undefined ? bootstrapText.split(',').map(s => s.trim()).filter(s => s !== '') : typeof config.bootstrap === 'string' ? [config.bootstrap] : config.bootstrap
  if (bootstrap === undefined || bootstrap.length === 0) throw new UsageError('no brokers: give --bootstrap host:port (or KAFKATS_BOOTSTRAP, or bootstrap in --config-file)')
  const options: ClientOptions = { bootstrap, clientId: str(values, 'client-id') ?? config.clientId ?? 'kafkats-cli', requestTimeoutMs: timeoutMs(values), connectTimeoutMs: Math.min(10_000, timeoutMs(values)) }

  const fileTls = typeof config.tls === 'object' ? config.tls : {}
  const wantsTls = values.tls === true || config.tls !== undefined && config.tls !== false ||
    ['tls-ca', 'tls-cert', 'tls-key', 'tls-servername', 'tls-insecure'].some(k => values[k] !== undefined)
  if (wantsTls) {
    const tls: TlsOptions = {}
    const ca = str(values, 'tls-ca') ?? fileTls.ca
    const cert = str(values, 'tls-cert') ?? fileTls.cert
    const key = str(values, 'tls-key') ?? fileTls.key
    if (ca !== undefined) tls.ca = readPem('--tls-ca', ca)
    if (cert !== undefined) tls.cert = readPem('--tls-cert', cert)
    if (key !== undefined) tls.key = readPem('--tls-key', key)
    const passphrase = str(values, 'tls-key-passphrase') ?? (process.env.KAFKATS_TLS_KEY_PASSPHRASE || undefined) ?? fileTls.passphrase
    if (passphrase !== undefined) tls.passphrase = passphrase
    const servername = str(values, 'tls-servername') ?? fileTls.servername
    if (servername !== undefined) tls.servername = servername
    if (values['tls-insecure'] === true || fileTls.rejectUnauthorized === false) tls.rejectUnauthorized = false
    options.tls = tls
  }

  const mechanism = str(values, 'sasl-mechanism') ?? config.sasl?.mechanism
  if (mechanism !== undefined) {
    const upper = mechanism.toUpperCase()
    if (upper === 'OAUTHBEARER') {
      options.sasl = { mechanism: 'OAUTHBEARER', token: oauthToken(values, config.sasl) }
      return options
    }
    if (upper !== 'PLAIN' && upper !== 'SCRAM-SHA-256' && upper !== 'SCRAM-SHA-512') throw new UsageError(`--sasl-mechanism: expected PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER, got ${JSON.stringify(mechanism)}`)
    const username = str(values, 'sasl-username') ?? config.sasl?.username
    const password = str(values, 'sasl-password') ?? process.env.KAFKATS_SASL_PASSWORD ?? config.sasl?.password
    if (username === undefined || password === undefined) throw new UsageError(`SASL ${upper} needs --sasl-username and --sasl-password (or KAFKATS_SASL_PASSWORD)`)
    options.sasl = { mechanism: upper, username, password } as SaslOptions
  }
  return options
}

/**
 * OAUTHBEARER's token provider: the token is looked up again at each authentication (each
 * connection and each re-authentication), so a file another process refreshes, or a
 * command that prints a fresh token, keeps a long consume going past a token's expiry.
 */
function oauthToken (values: Values, fileSasl: ConfigFile['sasl']): () => string {
  const file = str(values, 'sasl-token-file') ?? fileSasl?.tokenFile
  const command = str(values, 'sasl-token-command') ?? fileSasl?.tokenCommand
  const fixed = process.env.KAFKATS_SASL_TOKEN || fileSasl?.token || undefined
  const given = [file, command, fixed].filter(v => v !== undefined).length
  if (given !== 1) throw new UsageError(`SASL OAUTHBEARER needs exactly one of --sasl-token-file, --sasl-token-command or KAFKATS_SASL_TOKEN (or token, tokenFile or tokenCommand in --config-file); got ${given}`)
  if (file !== undefined) {
    const read = (): string => readFileSync(file, 'utf8').trim()
    try {
      read()
    } catch (error) {
      throw new UsageError(`--sasl-token-file: cannot read ${file}: ${(error as Error).message}`)
    }
    return read
  }
  if (command !== undefined) {
    // Through the shell, as users write it (`--sasl-token-command "my-idp token --audience kafka"`).
    return () => execFileSync(process.platform === 'win32' ? 'cmd' : '/bin/sh', process.platform === 'win32' ? ['/c', command] : ['-c', command], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 30_000 }).trim()
  }
  return () => fixed!
}

export function newClient (values: Values): Client {
  return new Client(clientOptions(values))
}

/** Writes to stdout, waiting when the pipe is full (a slow reader slows us down instead of filling memory). */
export async function write (text: string): Promise<void> {
  if (text === '') return
  if (!process.stdout.write(text)) await new Promise<void>(resolve => process.stdout.once('drain', resolve))
}

/** Rows as aligned columns, the first row being the header. */
export function table (rows: Array<Array<string | number | bigint | boolean | null | undefined>>): string {
  const cells = rows.map(r => r.map(c => c === null || c === undefined ? '-' : String(c)))
  const widths = cells[0].map((_, i) => Math.max(...cells.map(r => (r[i] ?? '').length)))
  return cells.map(r => r.map((c, i) => i === r.length - 1 ? c : c.padEnd(widths[i])).join('  ')).join('\n') + '\n'
}

/** JSON with bigints as numbers when exact, else strings; errors by their message, code and type. */
export function toJson (value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === 'bigint') return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()
    if (v instanceof Error) return { message: v.message, code: (v as { code?: number }).code, type: (v as { type?: string }).type }
    if (Buffer.isBuffer(v)) return v.toString('base64')
    return v
  })
}

/** A progress line on stderr (a TTY: redrawn in place; else a line every few seconds with --progress), and a summary. */
export class Progress {
  readonly #started = Date.now()
  readonly #timer: NodeJS.Timeout | undefined
  readonly #tty = process.stderr.isTTY === true

  constructor (readonly verb: string, readonly count: () => { records: number, bytes: number }, enabled: boolean, forced: boolean) {
    if (!enabled || !(this.#tty || forced)) return
    this.#timer = setInterval(() => this.#draw(), this.#tty ? 1000 : 5000)
    this.#timer.unref()
  }

  #line (): string {
    const { records, bytes } = this.count()
    const seconds = Math.max(0.001, (Date.now() - this.#started) / 1000)
    return `${this.verb} ${records.toLocaleString('en-US')} records, ${formatBytes(bytes)} in ${seconds.toFixed(1)} s (${Math.round(records / seconds).toLocaleString('en-US')} records/s)`
  }

  #draw (): void {
    process.stderr.write(this.#tty ? `\r\x1b[K${this.#line()}` : `${this.#line()}\n`)
  }

  /** Stops the line and prints the summary, if enabled. */
  done (summary: boolean): void {
    clearInterval(this.#timer)
    if (this.#tty && this.#timer !== undefined) process.stderr.write('\r\x1b[K')
    if (summary) process.stderr.write(`${this.#line()}\n`)
  }
}

function formatBytes (n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / 1024 / 1024).toFixed(1)} MiB`
}

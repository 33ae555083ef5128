// The plumbing every member program of the chaos tests shares (group-chaos-member.ts,
// eos-chaos-member.ts, share-churn-member.ts): its configuration from the environment, one JSON event per stdout
// line (a MemberEvent, read by MemberSlot in group-chaos-support.ts), and a crash reported
// as an 'error' event before the process exits 4.
import * as fs from 'node:fs'
import { MEMBER_CONFIG_ENV, type MemberConfig, type MemberEvent } from './group-chaos-support'

/** The configuration MemberSlot passed; exits 64 when the program was not started by it. */
export function readMemberConfig<Config extends object = MemberConfig> (startedBy: string): Config {
  const text = process.env[MEMBER_CONFIG_ENV]
  if (text === undefined) {
    console.error(`${MEMBER_CONFIG_ENV} is not set: this program is started by ${startedBy}`)
    process.exit(64)
  }
  return JSON.parse(text) as Config
}

/** Prints one event line (bigints as strings). */
export function logEvent (event: MemberEvent['event'], fields: Record<string, unknown> = {}): void {
  // Pipes are written synchronously on Linux: a line logged is a line out, even if a SIGKILL follows.
  process.stdout.write(JSON.stringify({ t: Date.now(), event, ...fields }, (_, v) => typeof v === 'bigint' ? v.toString() : v) + '\n')
}

export const errorText = (error: unknown): string => error instanceof Error ? `${error.name}: ${error.message}` : String(error)

/** An uncaught exception or unhandled rejection becomes an 'error' event and exit status 4. */
export function reportCrashes (): void {
  process.on('uncaughtException', error => {
    logEvent('error', { message: `uncaught: ${errorText(error)}`, stack: error.stack })
    process.exit(4)
  })
  process.on('unhandledRejection', error => {
    logEvent('error', { message: `unhandled rejection: ${errorText(error)}`, stack: (error as Error)?.stack })
    process.exit(4)
  })
}

/** An output file appended to with synchronous writes: a line written is on disk's page cache, even if a SIGKILL follows. */
export class OutputFile {
  readonly fd: number

  constructor (file: string) {
    this.fd = fs.openSync(file, 'a')
  }

  write (text: string): void {
    const bytes = Buffer.from(text, 'latin1')
    let written = 0
    while (written < bytes.length) written += fs.writeSync(this.fd, bytes, written, bytes.length - written)
  }

  close (): void {
    fs.closeSync(this.fd)
  }
}

/**
 * SIGTERM: logs 'closing' with `status()`, runs `close` (the consumer's and the client's),
 * logs 'closed' and exits 0; exits 3 ('closeTimeout') if that takes over `closeTimeoutMs`, 5 if it throws.
 */
export function closeOnSigterm (closeTimeoutMs: number, status: () => Record<string, unknown>, close: () => Promise<void>): void {
  process.once('SIGTERM', () => {
    logEvent('closing', status())
    const timer = setTimeout(() => {
      logEvent('closeTimeout', { afterMs: closeTimeoutMs, ...status() })
      process.exit(3)
    }, closeTimeoutMs)
    void (async () => {
      await close()
      clearTimeout(timer)
      logEvent('closed', status())
      process.exit(0)
    })().catch(error => {
      logEvent('error', { message: `closing: ${errorText(error)}` })
      process.exit(5)
    })
  })
}

/** Runs the member's consuming loop, which only SIGTERM may end: ending otherwise is an 'error' event and exit status 2, and so is a failure. */
export function runUntilSigterm (run: () => Promise<void>, closing: () => boolean): void {
  run().then(() => {
    if (closing()) return
    logEvent('error', { message: 'run() ended without SIGTERM' })
    process.exit(2)
  }, (error: unknown) => {
    logEvent('error', { message: `run() failed: ${errorText(error)}`, stack: (error as Error)?.stack })
    process.exit(2)
  })
}

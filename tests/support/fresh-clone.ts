// What tests that pack the repository share: a copy of the sources as a fresh clone has them,
// and running npm (or node) there with npm's chatter (audit, fund, update notice) off.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'

/** npm's settings for the tests' installs: no audit, funding or update notice. */
export const quietNpm = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }

/** Runs a command to its end; a failure throws with the command, the folder and what it printed. */
export function run (command: string, args: string[], cwd: string, options: { timeoutMs?: number } = {}): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs, env: { ...process.env, ...quietNpm } })
  } catch (error) {
    const e = error as { stdout?: string, stderr?: string, message: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}\n${e.stderr ?? ''}\n${e.message}`, { cause: error })
  }
}

/** Copies the files a fresh clone of `root` has (tracked and not-ignored ones of the working tree) to `to`. */
export function copySources (root: string, to: string): void {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
  for (const file of listed.split('\0')) {
    if (file === '' || !fs.existsSync(path.join(root, file))) continue
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true })
    fs.copyFileSync(path.join(root, file), path.join(to, file))
  }
  // The clone's `npm ci`, without a registry: the dependencies this checkout installed.
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(to, 'node_modules'), 'dir')
}

// The consume runner protocol for the runners of other clients, plain ES modules run
// from source so that the main build never needs their packages. The Tally and the
// result line are the compiled runner.ts's (the orchestrator passes its path), so every
// client is checked by the same code.
import { createRequire } from 'node:module'
import { readConfigArgument } from '../common/runner.mjs'

export { cpuSecondsSince, runMain, runtime } from '../common/runner.mjs'

export const require = createRequire(import.meta.url)

/** The config and the compiled runner.ts: { config, Tally, finish, watchForStall, reportUnavailable }. */
export function setup () {
  const config = readConfigArgument()
  const runner = require(config.runnerModule)
  return { config, ...runner }
}

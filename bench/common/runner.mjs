// The runner protocol of runner.ts, for the runners of other clients, which are plain
// ES modules run from source so that the main build never needs their packages.
import { createRequire } from 'node:module'

/** Loads the peer clients (bench/node_modules) and the compiled runner modules. */
export const require = createRequire(import.meta.url)

export const RESULT_PREFIX = 'BENCH-RESULT '

export function readConfigArgument () {
  const text = process.argv[2]
  if (text === undefined) throw new Error('A benchmark runner takes its config as JSON in argv[2]; run it through the benchmark\'s run.js')
  return JSON.parse(text)
}

export function cpuSecondsSince (start) {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1e6
}

export function reportResult (result) {
  process.stdout.write(RESULT_PREFIX + JSON.stringify(result) + '\n')
}

export function runtime () {
  return `node ${process.version}`
}

export function runMain (main) {
  main().catch(error => {
    process.stderr.write(`${error?.stack ?? String(error)}\n`)
    process.exitCode = 1
  })
}

/**
 * The config and the compiled runner module it names (produce/runner.ts or
 * consume/runner.ts, in the build): { config, ...that module's exports }, so a .mjs runner
 * sends, checks and reports with the same code as the TypeScript runners.
 */
export function setup () {
  const config = readConfigArgument()
  return { config, ...require(config.runnerModule) }
}

/**
 * The protocol between a benchmark's orchestrator and its runners, shared by
 * bench/produce and bench/consume: the orchestrator starts each runner as its own process
 * with its config as JSON in argv[2]; the runner prints one `BENCH-RESULT {json}` line.
 * The .mjs runners of other clients speak it through runner.mjs, its twin.
 */
import * as fs from 'node:fs'

export const RESULT_PREFIX = 'BENCH-RESULT '

/** The runner's config, from argv[2]. */
export function readConfigArgument<T> (): T {
  const text = process.argv[2]
  if (text === undefined) throw new Error('A benchmark runner takes its config as JSON in argv[2]; run it through the benchmark\'s run.js')
  return JSON.parse(text) as T
}

export function cpuSecondsSince (start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1e6
}

export function reportResult (result: object): void {
  process.stdout.write(RESULT_PREFIX + JSON.stringify(result) + '\n')
}

export function runtime (): string {
  return `node ${process.version}`
}

/** Runs a runner's main, reporting a crash as a failed run instead of a bare stack trace. */
export function runMain (main: () => Promise<void>): void {
  main().catch(error => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`)
    process.exitCode = 1
  })
}

/** The values of a payload file: views into it, read once. */
export function readPayloadValues (file: string, size: number): Buffer[] {
  const bytes = fs.readFileSync(file)
  const values: Buffer[] = []
  for (let start = 0; start + size <= bytes.length; start += size + 1) values.push(bytes.subarray(start, start + size))
  if (values.length === 0) throw new Error(`No ${size}-byte values in ${file}`)
  return values
}

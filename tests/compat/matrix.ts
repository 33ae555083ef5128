/**
 * The broker version matrix: starts each Kafka release in turn (one broker at a time, on
 * free ports: ZooKeeper or the KRaft controller on the port after the broker's), runs the smoke program
 * (smoke.ts) against it, stops it, and prints one table: a row per check, a column per
 * release, and the times.
 *
 *   npm run test:compat                               every release (about 15 minutes, more the first time: Maven fetches each release's jars)
 *   npm run test:compat -- --ci                       the small set .ci/run runs (COMPAT_CI_RELEASES)
 *   npm run test:compat -- 2.0.1 3.9.1:zookeeper      the releases named (release[:kraft|zookeeper])
 *   … -- --json results.json                          also the results as JSON
 *
 * On a machine shared with other work, hold a lock around it (old brokers are heavy). The
 * exit status is 1 when any check failed; `unsupported` (the release cannot, and kafkats
 * said so clearly) is not a failure.
 */
import * as fs from 'node:fs'
import { defaultMode, KAFKA_VERSION, KRAFT_RELEASES, startCluster, ZOOKEEPER_RELEASES, type MetadataMode } from '../broker/kafka'
import { runSmoke, type CheckResult } from './smoke'

/** What .ci/run checks: 2.0 (before zstd: the fail-fast path), 2.8 (the last 2.x, ZooKeeper), 3.9 (KIP-848 falls back to classic) and today's. */
export const COMPAT_CI_RELEASES: ReadonlyArray<{ version: string, mode: MetadataMode }> = [
  { version: '2.0.1', mode: 'zookeeper' },
  { version: '2.8.2', mode: 'zookeeper' },
  { version: '3.9.1', mode: 'kraft' },
  { version: KAFKA_VERSION, mode: 'kraft' }
]

const ALL_RELEASES: ReadonlyArray<{ version: string, mode: MetadataMode }> = [
  ...ZOOKEEPER_RELEASES.map(version => ({ version, mode: 'zookeeper' as const })),
  ...KRAFT_RELEASES.map(version => ({ version, mode: 'kraft' as const }))
]

// Free ports, so the matrix can run beside a developer's broker or another test run.
const PORT_BASE = 'free'

interface ReleaseRun {
  version: string
  mode: MetadataMode
  startMs: number
  smokeMs: number
  results: CheckResult[]
  /** The broker did not start (then results is empty). */
  error?: string
}

async function main (args: string[]): Promise<number> {
  let releases = ALL_RELEASES
  let jsonFile: string | undefined
  const named: Array<{ version: string, mode: MetadataMode }> = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--ci') releases = COMPAT_CI_RELEASES
    else if (args[i] === '--json' && args[i + 1] !== undefined) jsonFile = args[++i]
    else if (/^\d+(\.\d+)+(:(kraft|zookeeper))?$/.test(args[i])) {
      const [version, mode] = args[i].split(':')
      named.push({ version, mode: (mode as MetadataMode | undefined) ?? defaultMode(version) })
    } else {
      console.error(`unknown argument ${args[i]}\nusage: node dist/tests/compat/matrix.js [--ci] [--json file] [release[:kraft|zookeeper] …]`)
      return 2
    }
  }
  if (named.length > 0) releases = named

  const runs: ReleaseRun[] = []
  const began = Date.now()
  for (const { version, mode } of releases) {
    console.log(`\n=== Kafka ${version} (${mode})`)
    const started = Date.now()
    let cluster
    try {
      cluster = await startCluster({ version, mode, portBase: PORT_BASE, startTimeoutMs: 180_000 })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      console.log(`  the broker did not start: ${message.split('\n').slice(0, 12).join('\n  ')}`)
      runs.push({ version, mode, startMs: Date.now() - started, smokeMs: 0, results: [], error: message.split('\n')[0] })
      continue
    }
    const startMs = Date.now() - started
    console.log(`  started in ${(startMs / 1000).toFixed(1)} s`)
    const smokeStarted = Date.now()
    try {
      const results = await runSmoke(cluster.bootstrap, version, line => console.log(line))
      runs.push({ version, mode, startMs, smokeMs: Date.now() - smokeStarted, results })
    } finally {
      await cluster.stop()
    }
  }

  console.log(`\n${table(runs)}\n\n✓ works, – the release cannot and kafkats says so clearly, ◌ a known gap (KNOWN_GAPS in smoke.ts), ✗ fails`)
  console.log(`\nThe whole matrix took ${((Date.now() - began) / 1000).toFixed(0)} s.`)
  if (jsonFile !== undefined) fs.writeFileSync(jsonFile, JSON.stringify(runs, null, 2) + '\n')
  for (const run of runs) {
    for (const result of run.results.filter(r => r.status !== 'pass' || r.detail.includes('KNOWN_GAPS'))) {
      console.log(`${result.status === 'fail' ? 'FAIL' : result.status} on ${run.version} (${run.mode}): ${result.name}: ${result.detail.split('\n')[0].slice(0, 400)}`)
    }
    if (run.error !== undefined) console.log(`FAIL on ${run.version} (${run.mode}): the broker did not start: ${run.error}`)
  }
  const checks = runs.flatMap(run => run.results)
  const failed = checks.filter(r => r.status === 'fail').length + runs.filter(run => run.error !== undefined).length
  // The plain closing line CI reads.
  console.log(`compat: ${checks.length - checks.filter(r => r.status === 'fail').length} passed, ${failed} failed`)
  return failed === 0 ? 0 : 1
}

/** A Markdown table: a row per check, a column per release; ✓ pass, – unsupported (clear error), ✗ fail, ◌ known gap. */
function table (runs: ReleaseRun[]): string {
  const names = [...new Set(runs.flatMap(run => run.results.map(r => r.name)))]
  const header = `| check | ${runs.map(run => `${run.version}${run.mode === 'zookeeper' ? ' ZK' : ''}`).join(' | ')} |`
  const rule = `| --- | ${runs.map(() => ':-:').join(' | ')} |`
  const mark = { pass: '✓', unsupported: '–', fail: '✗', 'known gap': '◌' } as const
  const rows = names.map(name => `| ${name} | ${runs.map(run => {
    const result = run.results.find(r => r.name === name)
    return result === undefined ? (run.error !== undefined ? '✗' : ' ') : mark[result.status]
  }).join(' | ')} |`)
  const times = [
    `| broker start (s) | ${runs.map(run => (run.startMs / 1000).toFixed(0)).join(' | ')} |`,
    `| smoke program (s) | ${runs.map(run => (run.smokeMs / 1000).toFixed(0)).join(' | ')} |`
  ]
  return [header, rule, ...rows, ...times].join('\n')
}

main(process.argv.slice(2)).then(code => { process.exitCode = code }, (error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
})

/**
 * The test entry point (`npm test` builds, then runs `node dist/tests/run.js`).
 *
 *   node dist/tests/run.js                  every test file; starts a Kafka broker for tests/integration/
 *   node dist/tests/run.js --unit           everything but tests/integration/ and tests/kafkajs/programs, no broker
 *   node dist/tests/run.js record-batch …   only files whose path contains one of the words
 *
 * With KAFKA_BOOTSTRAP set (host:port,…) the integration tests use that broker and none is
 * started. Otherwise a single node is started through tests/broker/kafka.ts when a selected
 * file needs it, handed to the tests through KAFKA_BOOTSTRAP, and stopped at the end.
 * The exit code is node --test's.
 */
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { repoRoot, sharedBootstrap, startCluster, type KafkaCluster } from './broker/kafka'

const testsDir = __dirname
const integrationDir = path.join(testsDir, 'integration') + path.sep
// tests/kafkajs/programs runs kafkajs programs against the real broker too.
const brokerPaths = [integrationDir, path.join(testsDir, 'kafkajs', 'programs')]
const needsRealBroker = (file: string): boolean => brokerPaths.some(prefix => file.startsWith(prefix))

function testFiles (dir: string): string[] {
  const files: string[] = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) files.push(...testFiles(full))
    else if (entry.isFile() && entry.name.endsWith('.test.js')) files.push(full)
  }
  return files
}

/**
 * The spec reporter prints its summary (ℹ tests N, ℹ pass N, ℹ fail N, …) and then, when
 * something failed, the failures again. This keeps the last summary so it can be printed
 * once more at the very end, where people and CI logs look for it.
 */
class SummaryKeeper {
  #partial = ''
  #block: string[] = []
  #inBlock = false
  #textAfterBlock = false

  push (text: string): void {
    const lines = (this.#partial + text).split('\n')
    this.#partial = lines.pop() ?? ''
    for (const line of lines) this.#line(line)
  }

  #line (line: string): void {
    // eslint-disable-next-line no-control-regex -- strips the ANSI colour codes (ESC [ … m) of the test runner's output
    const plain = line.replace(/\u001b\[[0-9;]*m/g, '')
    if (/^ℹ tests \d+/.test(plain)) {
      this.#block = [line]
      this.#inBlock = true
      this.#textAfterBlock = false
    } else if (this.#inBlock && plain.startsWith('ℹ ')) {
      this.#block.push(line)
      if (plain.startsWith('ℹ duration_ms')) this.#inBlock = false
    } else if (this.#block.length > 0 && plain.trim() !== '') {
      this.#inBlock = false
      this.#textAfterBlock = true
    }
  }

  repeatAtEnd (): string {
    if (this.#partial !== '') this.#line(this.#partial)
    return this.#textAfterBlock ? `\n${this.#block.join('\n')}\n` : ''
  }
}

async function main (args: string[]): Promise<number> {
  const unit = args.includes('--unit')
  const filters = args.filter(arg => arg !== '--unit')
  const unknownFlag = filters.find(arg => arg.startsWith('-'))
  if (unknownFlag !== undefined) {
    console.error(`unknown option ${unknownFlag}\nusage: node dist/tests/run.js [--unit] [file filter …]`)
    return 2
  }

  // A compiled test whose .ts was deleted or renamed stays in dist/ until a clean build; skip it.
  const sourcesDir = path.join(repoRoot(), 'tests')
  let files = testFiles(testsDir).sort().filter(file => fs.existsSync(path.join(sourcesDir, path.relative(testsDir, file)).replace(/\.js$/, '.ts')))
  if (unit) files = files.filter(file => !needsRealBroker(file))
  if (filters.length > 0) {
    files = files.filter(file => filters.some(filter => path.relative(testsDir, file).includes(filter)))
  }
  if (files.length === 0) {
    console.error(`No test files under ${testsDir} match ${filters.length > 0 ? filters.join(', ') : 'the selection'}.`)
    return 1
  }

  const env = { ...process.env }
  let cluster: KafkaCluster | undefined
  const needsBroker = files.some(needsRealBroker)
  if (needsBroker && sharedBootstrap() === undefined) {
    console.log('Starting a single-node Kafka broker for the integration tests …')
    // Free ports, so a broker a developer already runs on 19092 is not in the way.
    cluster = await startCluster({ nodes: 1, portBase: 'free' })
    env.KAFKA_BOOTSTRAP = cluster.bootstrap.join(',')
    console.log(`Kafka is ready at ${env.KAFKA_BOOTSTRAP}`)
  } else if (needsBroker) {
    console.log(`Integration tests use the broker at KAFKA_BOOTSTRAP=${env.KAFKA_BOOTSTRAP ?? ''}`)
  }

  try {
    return await new Promise<number>((resolve, reject) => {
      // Colours survive the pipe below when our own stdout is a terminal.
      const childEnv = process.stdout.isTTY && env.FORCE_COLOR === undefined && env.NO_COLOR === undefined ? { ...env, FORCE_COLOR: '1' } : env
      const child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: ['inherit', 'pipe', 'inherit'], env: childEnv })
      const summary = new SummaryKeeper()
      child.stdout.on('data', (chunk: Buffer) => {
        process.stdout.write(chunk)
        summary.push(chunk.toString())
      })
      // Ctrl-C reaches the child through the terminal; a SIGTERM from CI must be passed on.
      // Either way we wait for the child, then stop the broker below.
      const forward = (signal: NodeJS.Signals): void => { child.kill(signal) }
      process.on('SIGINT', forward)
      process.on('SIGTERM', forward)
      child.once('error', reject)
      child.once('close', (code, signal) => {
        process.off('SIGINT', forward)
        process.off('SIGTERM', forward)
        process.stdout.write(summary.repeatAtEnd())
        resolve(code ?? (signal !== null ? 1 : 0))
      })
    })
  } finally {
    await cluster?.stop()
  }
}

main(process.argv.slice(2)).then(code => { process.exitCode = code }, (error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
})

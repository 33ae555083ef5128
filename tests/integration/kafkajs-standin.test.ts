// The documented way to run the libraries an application uses that require('kafkajs')
// themselves on kafkats (docs/migrating-from-kafkajs.md, "Libraries that require kafkajs"):
// `npm run pack:standin` on a fresh copy of the sources packs kafkats and the stand-in package
// named kafkajs (packages/kafkajs-standin); an application (kafkajs-standin-app/: a NestJS
// microservice on the Kafka transport, traced by @opentelemetry/instrumentation-kafkajs, and a
// library that pins another kafkajs) installs the tarballs with the guide's package.json change
// and runs against the real broker. Every library must load kafkats's layer, and the replies,
// events, spans and message counts must be those of the same application on npm kafkajs 2.2.4.
//
// The application's other packages come from the npm registry the first time and from npm's
// cache after that (--prefer-offline); the kafkajs 2.2.4 install is kept whole under
// ~/.cache/kafkats/kafkajs-standin-app/ (keyed by its package files), so a second run installs
// only the kafkats one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { promisify } from 'node:util'
import { cacheRoot, repoRoot, sharedBootstrap } from '../broker/kafka'
import { copySources, run } from '../support/fresh-clone'
import { uniqueName } from './support'

const root = repoRoot()
const appTemplate = path.join(root, 'tests', 'integration', 'kafkajs-standin-app')
/** The application's package files: what its installs depend on (app.js is copied in for each run). */
const packageFiles = ['package.json', 'pinned-library/package.json', 'pinned-library/index.js']
const INSTALL_TIMEOUT_MS = 300_000
const APP_TIMEOUT_MS = 180_000

interface AppResult {
  loaded: Record<string, { layer: 'kafkats' | 'kafkajs', version: string }>
  clusterId: string
  reply: unknown
  event: unknown
  spans: Array<{ name: string, kind: number, attributes: Record<string, unknown>, status: number, parent: string | null }>
  metrics: Record<string, Array<{ attributes: Record<string, unknown>, value: number }>>
}

/**
 * The application's package files in `to`, and its library's tarball: a library from a tarball is
 * installed as one from the registry (npm 10 applies no overrides to a linked folder's dependencies).
 */
function copyPackageFiles (to: string): void {
  for (const file of packageFiles) {
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true })
    fs.copyFileSync(path.join(appTemplate, file), path.join(to, file))
  }
  run('npm', ['pack', '--silent', './pinned-library', '--pack-destination', '.'], to)
}

function npmInstall (dir: string): void {
  run('npm', ['install', '--prefer-offline', '--omit=optional', '--no-audit', '--no-fund'], dir, { timeoutMs: INSTALL_TIMEOUT_MS })
}

/** The application on npm kafkajs 2.2.4, installed once per version of its package files. */
function kafkajsApp (): string {
  const hash = createHash('sha256')
  for (const file of packageFiles) hash.update(`${file}\0`).update(fs.readFileSync(path.join(appTemplate, file)))
  const dir = path.join(cacheRoot(), 'kafkajs-standin-app', `kafkajs-${hash.digest('hex').slice(0, 16)}`)
  if (!fs.existsSync(path.join(dir, 'installed'))) {
    const building = `${dir}.${process.pid}`
    fs.rmSync(building, { recursive: true, force: true })
    copyPackageFiles(building)
    npmInstall(building)
    fs.writeFileSync(path.join(building, 'installed'), '')
    // Installs of earlier package files go: one is kept.
    for (const entry of fs.readdirSync(path.dirname(dir))) {
      if (path.join(path.dirname(dir), entry) !== building) fs.rmSync(path.join(path.dirname(dir), entry), { recursive: true, force: true })
    }
    fs.renameSync(building, dir)
  }
  fs.copyFileSync(path.join(appTemplate, 'app.js'), path.join(dir, 'app.js'))
  return dir
}

/** The same application with the guide's change: kafkats and the stand-in from their tarballs, and the override. */
function kafkatsApp (dir: string, tarballs: { kafkats: string, kafkajs: string }): string {
  copyPackageFiles(dir)
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  pkg.dependencies.kafkats = `file:${tarballs.kafkats}`
  pkg.dependencies.kafkajs = `file:${tarballs.kafkajs}`
  pkg.overrides = { kafkajs: '$kafkajs' }
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2))
  npmInstall(dir)
  fs.copyFileSync(path.join(appTemplate, 'app.js'), path.join(dir, 'app.js'))
  return dir
}

async function runApp (dir: string, brokers: string[], label: string): Promise<AppResult> {
  const runName = uniqueName(label)
  const resultFile = path.join(dir, `result-${runName}.json`)
  try {
    await promisify(execFile)(process.execPath, ['app.js'], { cwd: dir, timeout: APP_TIMEOUT_MS, env: { ...process.env, BROKERS: brokers.join(','), RUN: runName, RESULT: resultFile } })
  } catch (error) {
    const e = error as { stdout?: string, stderr?: string, message: string }
    throw new Error(`the application on ${label} failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}\n${e.message}`, { cause: error })
  }
  const text = fs.readFileSync(resultFile, 'utf8').split(runName).join('<run>')
  fs.rmSync(resultFile)
  return JSON.parse(text) as AppResult
}

const CLUSTER_ID = 'messaging.kafka.cluster.id'

/** Spans in an order of their own (names, parents, attributes), with the cluster id apart. */
function comparable (spans: AppResult['spans']): Array<AppResult['spans'][number] & { clusterId: unknown }> {
  return spans
    .map(({ attributes: { [CLUSTER_ID]: clusterId, ...attributes }, ...span }) => ({ ...span, attributes: Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b))), clusterId }))
    .sort((a, b) => JSON.stringify([a.name, a.parent, a.attributes]).localeCompare(JSON.stringify([b.name, b.parent, b.attributes])))
}

test('libraries that require(\'kafkajs\') (NestJS, OpenTelemetry, a pinned library) run on kafkats through the packed stand-in and the guide\'s overrides: same replies, events, spans and message counts as on npm kafkajs 2.2.4', { timeout: 1_200_000 }, async () => {
  const brokers = sharedBootstrap()
  assert.ok(brokers !== undefined, 'KAFKA_BOOTSTRAP is not set (node dist/tests/run.js starts a broker and sets it)')
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-standin-'))
  try {
    // What a user builds: `npm run pack:standin` on the sources as a fresh clone has them.
    const clone = path.join(work, 'clone')
    copySources(root, clone)
    const packed = run('npm', ['run', '--silent', 'pack:standin', '--', '--destination', path.join(work, 'tarballs')], clone, { timeoutMs: INSTALL_TIMEOUT_MS })
    const tarballs = JSON.parse(packed.trim().split('\n').pop() ?? '') as { kafkats: string, kafkajs: string }
    assert.match(path.basename(tarballs.kafkajs), /^kafkajs-2\.2\.4\+kafkats\.[0-9.]+\.tgz$/)

    const onKafkajs = kafkajsApp()
    const onKafkats = kafkatsApp(path.join(work, 'app'), tarballs)
    const [kafkajs, kafkats] = await Promise.all([runApp(onKafkajs, brokers, 'kafkajs'), runApp(onKafkats, brokers, 'kafkats')])

    // What each library loaded: kafkats's layer through the stand-in, npm kafkajs without it.
    for (const library of ['@nestjs/microservices', '@opentelemetry/instrumentation-kafkajs', 'kafkajs-pinned-library']) {
      assert.equal(kafkats.loaded[library]?.layer, 'kafkats', `${library} did not load kafkats's layer: ${JSON.stringify(kafkats.loaded[library])}`)
      assert.match(kafkats.loaded[library].version, /^2\.2\.4\+kafkats\./)
    }
    assert.equal(kafkajs.loaded['@nestjs/microservices'].layer, 'kafkajs')
    assert.equal(kafkajs.loaded['@nestjs/microservices'].version, '2.2.4')

    // The request's reply and the event arrived, as on kafkajs.
    assert.equal(kafkats.reply, kafkajs.reply)
    assert.deepEqual(kafkats.event, { id: 7 })
    assert.deepEqual(kafkats.event, kafkajs.event)

    // One send span per message sent (not also a sendBatch one), with kafkajs's names, kinds,
    // parents, attributes and status; the cluster id wherever kafkajs gives it (kafkajs's
    // first send of a producer has none: its metadata comes with that send), and it is the broker's.
    const ours = comparable(kafkats.spans)
    const theirs = comparable(kafkajs.spans)
    const withoutClusterId = (spans: typeof ours): unknown => spans.map(({ clusterId: _clusterId, ...span }) => span)
    assert.deepEqual(withoutClusterId(ours), withoutClusterId(theirs), 'the spans differ')
    assert.ok(theirs.some(span => span.clusterId !== undefined), 'npm kafkajs gave no span a cluster id: the comparison proves nothing')
    for (let i = 0; i < ours.length; i++) {
      if (theirs[i].clusterId !== undefined) assert.equal(ours[i].clusterId, kafkats.clusterId, `${ours[i].name}: ${CLUSTER_ID}`)
      else assert.ok(ours[i].clusterId === undefined || ours[i].clusterId === kafkats.clusterId, `${ours[i].name}: ${CLUSTER_ID} ${String(ours[i].clusterId)}`)
    }
    assert.equal(ours.filter(span => span.name.startsWith('send ')).length, 3, 'one send span per message: the request, the reply and the event')

    // The messages metrics: each message sent and consumed counted once, as on kafkajs.
    const sortedPoints = (result: AppResult): unknown => Object.fromEntries(Object.entries(result.metrics).sort(([a], [b]) => a.localeCompare(b))
      .map(([name, points]) => [name, points.map(p => JSON.stringify(p)).sort()]))
    assert.deepEqual(sortedPoints(kafkats), sortedPoints(kafkajs), 'the messages metrics differ')
    assert.deepEqual(kafkats.metrics['messaging.client.sent.messages'].map(p => p.value), [1, 1, 1])

    // The stand-in's ES module entry and types: the same classes as kafkats/kafkajs, and kafkajs's names type-check.
    const esm = "import kafkajs, { Kafka } from 'kafkajs'\nimport { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\nif (Kafka !== require('kafkats/kafkajs').Kafka || kafkajs.Kafka !== Kafka) throw new Error('import \\'kafkajs\\' is not kafkats/kafkajs')\nconsole.log('esm ok')\n"
    fs.writeFileSync(path.join(onKafkats, 'esm.mjs'), esm)
    assert.equal(run(process.execPath, ['esm.mjs'], onKafkats).trim(), 'esm ok')
    const typed = "import { Kafka, CompressionTypes, type Producer, type Message, type RecordMetadata } from 'kafkajs'\nexport async function send (): Promise<RecordMetadata[]> {\n  const producer: Producer = new Kafka({ clientId: 'app', brokers: ['localhost:9092'] }).producer()\n  const message: Message = { key: 'k', value: 'v' }\n  return await producer.send({ topic: 't', messages: [message], compression: CompressionTypes.GZIP })\n}\n"
    fs.writeFileSync(path.join(onKafkats, 'typed.cts'), typed)
    fs.writeFileSync(path.join(onKafkats, 'typed.mts'), typed)
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    run(process.execPath, [tsc, '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', '--typeRoots', path.join(root, 'node_modules', '@types'), 'typed.cts', 'typed.mts'], onKafkats)
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
})

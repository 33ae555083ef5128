// The package as users get it. The first tests load the build in dist/; the last one does
// what a release does: copies the sources as a fresh clone has them, runs `npm pack` there
// (the `prepack` build), installs the tarball in an empty project and runs a CommonJS, an
// ES module and a `tsc --strict` consumer (node16, nodenext, bundler) of `kafkats`,
// `kafkats/kafkajs` and `kafkats/testing`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { pathToFileURL } from 'node:url'
import { EventEmitter } from 'node:events'
import { copySources, run } from './support/fresh-clone'

const dist = path.join(__dirname, '..')
const root = path.join(dist, '..')

// A real import() (TypeScript would turn a plain one into require() in a CommonJS build).
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>

test('require() and import() expose the same API', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cjs = require(path.join(dist, 'index.js'))
  const esm = await importModule(pathToFileURL(path.join(dist, 'index.mjs')).href)
  for (const name of ['Client', 'Producer', 'Consumer', 'GroupConsumer', 'BrokerError', 'ProtocolError', 'OutcomeUnknownError', 'apis', 'encodeRecordBatch', 'decodeRecordBatches', 'murmur2']) {
    assert.ok(cjs[name] !== undefined, `require('kafkats').${name} is missing`)
    assert.equal(esm[name], cjs[name], `import { ${name} } differs from require`)
  }
  const client = new cjs.Client({ bootstrap: ['127.0.0.1:1'] })
  assert.equal(typeof client.producer, 'function')
  assert.equal(typeof client.consumer, 'function')
  await client.close()
})

test('loading the entry patches nothing: the factories are methods of the package\'s Client ("sideEffects": false holds)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const index = require(path.join(dist, 'index.js'))
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const core = require(path.join(dist, 'client', 'client.js'))
  for (const name of ['producer', 'consumer', 'shareConsumer', 'admin']) {
    assert.ok(Object.getOwnPropertyDescriptor(index.Client.prototype, name) !== undefined, `Client.prototype.${name} is missing`)
    assert.equal(Object.getOwnPropertyDescriptor(core.Client.prototype, name), undefined, `loading kafkats added ${name} to the core client's prototype`)
  }
  const client = new index.Client({ bootstrap: ['127.0.0.1:1'] })
  assert.ok(client instanceof core.Client)
  assert.equal(client.admin, client.admin, 'one Admin per client')
  void client.close()
})

test('package.json points at existing entry points with types, for Node 20 and later', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  assert.equal(pkg.name, 'kafkats')
  assert.equal(pkg.engines.node, '>=20')
  assert.equal(pkg.sideEffects, false)
  assert.equal(pkg.license, 'Apache-2.0')
  assert.match(fs.readFileSync(path.join(root, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/)
  assert.equal(typeof pkg.repository?.url, 'string')
  assert.equal(typeof pkg.homepage, 'string')
  assert.equal(typeof pkg.scripts.prepack, 'string', 'npm pack must build the package (prepack)')
  const files = [pkg.main, pkg.types]
  for (const entry of ['.', './kafkajs', './testing']) {
    const e = pkg.exports[entry]
    files.push(e.import.types, e.import.default, e.require.types, e.require.default)
    assert.match(e.import.types, /\.d\.mts$/, `${entry}: the ES module entry needs .d.mts types (else they masquerade as CommonJS)`)
  }
  for (const file of files) assert.ok(fs.existsSync(path.join(root, file)), `${file} does not exist`)
  // `npx kafkats`: the bin is built, and runs as a script.
  assert.equal(pkg.bin.kafkats, './dist/cli/main.js')
  assert.match(fs.readFileSync(path.join(root, pkg.bin.kafkats), 'utf8'), /^#!\/usr\/bin\/env node\n/)
  assert.match(fs.readFileSync(path.join(root, pkg.types), 'utf8'), /Client/)
})

/** Every module of the build, with what it exports. */
function builtModules (): Array<{ file: string, exports: Record<string, unknown> }> {
  const modules: Array<{ file: string, exports: Record<string, unknown> }> = []
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      else if (entry.name.endsWith('.js')) modules.push({ file: path.relative(dist, full), exports: require(full) })
    }
  }
  for (const dir of ['protocol', 'client', 'admin', 'producer', 'consumer', 'group', 'testing']) {
    if (fs.existsSync(path.join(dist, dir))) walk(path.join(dist, dir))
  }
  return modules
}

/** Error classes that never reach users, and why. */
const internalErrors: Record<string, string> = {
  Misrouted: 'admin/route.ts: a retry signal; Router.retry throws the BrokerError it carries'
}

test('every error class of the library is exported from the package entry', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const index = require(path.join(dist, 'index.js'))
  const missing: string[] = []
  for (const { file, exports } of builtModules()) {
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error) || name in internalErrors) continue
      if (index[name] !== value) missing.push(`${name} (${file})`)
    }
  }
  assert.deepEqual(missing, [], 'error classes users can receive but cannot import from kafkats')
})

test('error classes are recognised across two copies of kafkats, even minified ones: a Symbol.for brand per class, not its name', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const index = require(path.join(dist, 'index.js'))
  // A second copy of protocol/errors.js as a minifier leaves it: every class renamed (string
  // literals such as Symbol.for keys and `this.name = '…'` stay as they are).
  const file = path.join(dist, 'protocol', 'errors.js')
  const renames: Record<string, string> = { KafkaTsError: 'a', ProtocolError: 'b', BrokerError: 'c' }
  const source = fs.readFileSync(file, 'utf8').replace(/(?<!['.\w])(KafkaTsError|ProtocolError|BrokerError)(?![\w'])/g, name => renames[name])
  // eslint-disable-next-line @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any -- the built package, loaded at run time
  const Module = require('node:module') as { new (id: string): { filename: string, paths: string[], exports: Record<string, any>, _compile: (code: string, filename: string) => void }, _nodeModulePaths: (dir: string) => string[] }
  const copy = new Module(file)
  copy.filename = file
  copy.paths = Module._nodeModulePaths(path.dirname(file))
  copy._compile(source, file)
  const { BrokerError, KafkaTsError, ProtocolError } = copy.exports
  assert.notEqual(BrokerError, index.BrokerError, 'not a second copy')
  assert.equal(BrokerError.name, 'c', 'the copy\'s classes are not renamed')
  const fromCopy = new BrokerError(6, 'Produce')
  assert.ok(fromCopy instanceof index.BrokerError, 'a minified copy\'s BrokerError is not a BrokerError')
  assert.ok(fromCopy instanceof index.KafkaTsError)
  assert.ok(!(fromCopy instanceof index.ProtocolError), 'a BrokerError passed for a ProtocolError')
  assert.ok(new index.BrokerError(6, 'Produce') instanceof BrokerError, 'kafkats\'s BrokerError is not the copy\'s')
  assert.ok(new index.ProtocolError('x') instanceof KafkaTsError)
  assert.ok(!(new index.BrokerError(6, 'x') instanceof ProtocolError))
  // Every exported error class has a brand of its own (else instanceof falls back to the prototype chain).
  const unbranded = Object.entries(index as Record<string, unknown>)
    .filter(([, value]) => typeof value === 'function' && (value === index.KafkaTsError || (value as { prototype: unknown }).prototype instanceof index.KafkaTsError))
    .filter(([name, value]) => !Object.hasOwn(value as object, 'brand') || (value as { brand: symbol }).brand !== Symbol.for(`kafkats.error.${name}`))
    .map(([name]) => name)
  assert.deepEqual(unbranded, [], 'error classes without their Symbol.for(\'kafkats.error.<Name>\') brand')
  // An application's subclass without a brand of its own is told apart by its prototype chain.
  const Base = index.BrokerError as new (code: number, context: string) => Error
  class Mine extends Base {}
  assert.ok(new Mine(6, 'x') instanceof Mine)
  assert.ok(!(new index.BrokerError(6, 'x') instanceof Mine))
})

test('the kinds of errors are exported constants', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const index = require(path.join(dist, 'index.js'))
  assert.equal(index.ErrorKind.BROKER, 'BROKER')
  assert.equal(new index.BrokerError(6, 'x').kind, index.ErrorKind.BROKER)
  assert.equal(new index.AbortedError('x', { written: false }).kind, index.ErrorKind.ABORTED)
})

/** A fake cluster with one topic of two records, and a client of the built package on it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the built package, loaded at run time
async function packageClient (topic: string): Promise<{ index: Record<string, any>, client: any, close: () => Promise<void> }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const index = require(path.join(dist, 'index.js'))
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { FakeCluster } = require(path.join(dist, 'testing', 'index.js'))
  const cluster = await FakeCluster.start({ log: false, topics: [{ name: topic, partitions: 1 }] })
  const client = new index.Client({ bootstrap: cluster.bootstrap, clientId: 'surface', requestTimeoutMs: 5000 })
  await client.produceRaw({ topic, partition: 0, records: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }] })
  return { index, client, close: async () => { await client.close(); await cluster.close() } }
}

test('a handed batch gives no way to the consumer\'s position or ownership (no cursor), and the consumer none to its internal calls', async () => {
  const { client, close } = await packageClient('surface-batch')
  try {
    const consumer = client.consumer({ assign: [{ topic: 'surface-batch', partition: 0, offset: 0n }], maxWaitMs: 10 })
    const handed = await consumer.nextBatch()
    assert.ok(handed !== undefined)
    // Walk what is reachable from the handed batch: nothing holds the fetch position or the ownership.
    const seen = new Set<unknown>()
    const reachable: string[] = []
    const walk = (value: unknown, where: string, depth: number): void => {
      if (value === null || typeof value !== 'object' || seen.has(value) || depth > 4 || Buffer.isBuffer(value)) return
      seen.add(value)
      for (const key of Reflect.ownKeys(value)) {
        if (key === 'fetchOffset' || key === 'ownership' || key === 'released') reachable.push(`${where}.${String(key)}`)
        walk((value as Record<PropertyKey, unknown>)[key], `${where}.${String(key)}`, depth + 1)
      }
    }
    walk(handed, 'handed', 0)
    assert.deepEqual(reachable, [], 'the consumer\'s position or ownership is reachable through a handed batch')
    assert.deepEqual(Reflect.ownKeys(handed).map(String).sort(), ['batch', 'finish', 'moreOfAnswer'])
    handed.finish()
    for (const name of ['addPartitions', 'removePartitions', 'cursor', 'cursors', 'hooks']) assert.equal(consumer[name], undefined, `consumer.${name}`)
    await consumer.close()
  } finally {
    await close()
  }
})

test('client.metadata is a read-only view (no track/untrack/close, ids not writable), and the client, the producer and the package expose no internal calls', async () => {
  const { index, client, close } = await packageClient('surface-metadata')
  try {
    for (const name of ['track', 'untrack', 'close']) assert.equal(client.metadata[name], undefined, `client.metadata.${name}`)
    assert.equal(client.metadata.topic('surface-metadata')?.partitions.length, 1)
    assert.throws(() => { client.metadata.clusterId = 'other' }, TypeError, 'client.metadata.clusterId is writable')
    assert.throws(() => { client.metadata.controllerId = 7 }, TypeError, 'client.metadata.controllerId is writable')
    for (const name of ['register', 'connection', 'brokers', 'instrumentation']) assert.equal(client[name], undefined, `client.${name}`)
    const producer = client.producer()
    for (const name of ['takeSendable', 'onOutcome', 'onRequestDone', 'batchWriter', 'compressionFor', 'sendTo', 'debugState']) assert.equal(producer[name], undefined, `producer.${name}`)
    await producer.close()
    assert.equal(index.Connection, undefined, 'kafkats exports its Connection class')
  } finally {
    await close()
  }
})

/** Names of kafkats's internal handles: none may be a property or method a user can reach on a public object. */
const INTERNAL_NAMES = ['client', 'stopHandingOut', 'stopping', 'warn', 'fail', 'overdueReturned', 'hooks', 'addPartitions', 'removePartitions', 'cursor', 'cursors', 'debugState', 'sendTo', 'register', 'connection', 'brokers', 'instrumentation', 'coordinators']

/** Every string-named own property of `object` and of its prototypes, up to Node's EventEmitter or Object. */
function reachableNames (object: object): Set<string> {
  const names = new Set<string>()
  for (let at: object | null = object; at !== null && at !== Object.prototype && at !== EventEmitter.prototype; at = Object.getPrototypeOf(at)) {
    for (const key of Object.getOwnPropertyNames(at)) names.add(key)
  }
  return names
}

test('the public classes (kafkats, kafkats/kafkajs) have no internal members a user can call at run time: internals are #private or behind a module-private symbol', async () => {
  const { client, close } = await packageClient('surface-members')
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Kafka } = require(path.join(dist, 'kafkajs', 'index.js'))
  // Made, not connected: what a user can reach on the objects is the question.
  const kafka = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: 0 })
  const objects: Record<string, object> = {
    Client: client,
    Admin: client.admin,
    Producer: client.producer(),
    Consumer: client.consumer({ assign: [{ topic: 'surface-members', partition: 0, offset: 0n }] }),
    GroupConsumer: client.consumer({ groupId: 'surface-members', topics: ['surface-members'] }),
    ShareConsumer: client.shareConsumer({ groupId: 'surface-members-share', topics: ['surface-members'] }),
    Kafka: kafka,
    'kafkajs Producer': kafka.producer(),
    'kafkajs Consumer': kafka.consumer({ groupId: 'surface-members-kafkajs' }),
    'kafkajs Admin': kafka.admin()
  }
  try {
    const found: string[] = []
    for (const [name, object] of Object.entries(objects)) {
      const names = reachableNames(object)
      for (const internalName of INTERNAL_NAMES) if (names.has(internalName)) found.push(`${name}.${internalName}`)
    }
    assert.deepEqual(found, [], 'internal members reachable on public objects')
  } finally {
    for (const [name, object] of Object.entries(objects)) {
      const closable = object as { close?: () => Promise<void>, disconnect?: () => Promise<void> }
      if (name.startsWith('kafkajs')) await closable.disconnect?.().catch(() => {})
      else if (name !== 'Client' && name !== 'Admin' && name !== 'Kafka') await closable.close?.().catch(() => {})
    }
    await close()
  }
})

const cjsConsumer = `
const kafkats = require('kafkats')
const kafkajs = require('kafkats/kafkajs')
const client = new kafkats.Client({ bootstrap: ['127.0.0.1:1'] })
if (typeof client.producer !== 'function') throw new Error('client.producer is missing')
if (!(new kafkats.BrokerError(6, 'x') instanceof kafkats.KafkaTsError)) throw new Error('error classes')
const kafka = new kafkajs.Kafka({ brokers: ['127.0.0.1:1'] })
if (typeof kafka.producer !== 'function' || kafkajs.CompressionTypes.GZIP !== 1) throw new Error('kafkats/kafkajs')
const { FakeCluster } = require('kafkats/testing')
async function main () {
  await client.close()
  // The packaged fake cluster serves the packaged client.
  const cluster = await FakeCluster.start({ topics: [{ name: 't', partitions: 1 }] })
  const viaFake = new kafkats.Client({ bootstrap: cluster.bootstrap })
  const producer = viaFake.producer()
  const { offset } = await producer.send({ topic: 't', value: 'v' })
  await producer.close()
  await viaFake.close()
  if (offset !== 0n || cluster.log('t', 0)[0].value.toString() !== 'v') throw new Error('kafkats/testing')
  await cluster.close()
  console.log('cjs ok')
}
main().catch(error => { console.error(error); process.exit(1) })
`

const esmConsumer = `
import { Client, BrokerError } from 'kafkats'
import kafkatsDefault from 'kafkats'
import { Kafka, logLevel, KafkaJSError } from 'kafkats/kafkajs'
import { FakeCluster } from 'kafkats/testing'
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
if (FakeCluster !== require('kafkats/testing').FakeCluster || typeof FakeCluster.start !== 'function') throw new Error('kafkats/testing')
if (Client !== require('kafkats').Client) throw new Error('import and require load different classes')
if (kafkatsDefault.BrokerError !== BrokerError) throw new Error('default export')
if (Kafka !== require('kafkats/kafkajs').Kafka || logLevel.DEBUG !== 5 || !(new KafkaJSError('x') instanceof Error)) throw new Error('kafkats/kafkajs')
console.log('esm ok')
`

// Uses types from every entry; \`tsc --strict\` must accept it, and must refuse internals.
const typedConsumer = `
import { Client, BrokerError, type ProducerRecord, type RecordMetadata } from 'kafkats'
import { Kafka, CompressionTypes, type Message, type RecordMetadata as KafkaJSRecordMetadata } from 'kafkats/kafkajs'
import { FakeCluster, type InterceptAction, type LogRecord } from 'kafkats/testing'

export async function native (): Promise<RecordMetadata> {
  const client = new Client({ bootstrap: ['localhost:9092'] })
  const record: ProducerRecord = { topic: 't', key: 'k', value: 'v' }
  const producer = client.producer({ lingerMs: 1 })
  const result = await producer.send(record)
  const offset: bigint = result.offset
  if (offset < 0n) throw new BrokerError(1, 'negative')
  return result
}

export async function fake (): Promise<LogRecord[]> {
  const cluster = await FakeCluster.start({ brokers: 2, topics: [{ name: 't', partitions: 2 }] })
  const timedOut: InterceptAction = { error: 7, apply: true }
  cluster.intercept(0, () => timedOut, { times: 1 })
  const client = new Client({ bootstrap: cluster.bootstrap })
  await client.close()
  const log = cluster.log('t', 0)
  await cluster.close()
  return log
}

export async function compat (): Promise<KafkaJSRecordMetadata[]> {
  const kafka = new Kafka({ clientId: 'app', brokers: ['localhost:9092'] })
  const producer = kafka.producer()
  const message: Message = { key: 'k', value: 'v', headers: { h: 'x' } }
  return await producer.send({ topic: 't', messages: [message], compression: CompressionTypes.GZIP })
}
`
const internalsConsumer = `
import { Client } from 'kafkats'
const client = new Client({ bootstrap: ['localhost:9092'] })
client.producer().takeSendable(1, 100)
`

test('npm pack on a fresh clone gives a package that CommonJS, ES module and TypeScript projects can use', { timeout: 600_000 }, () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-pack-'))
  try {
    const clone = path.join(work, 'clone')
    copySources(root, clone)
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], clone)) as Array<{ filename: string, files: Array<{ path: string }> }>
    const tarball = path.join(work, packed[0].filename)
    const files = packed[0].files.map(f => f.path)
    for (const required of ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.mjs', 'dist/index.d.ts', 'dist/index.d.mts',
      'dist/kafkajs/index.js', 'dist/kafkajs/index.mjs', 'dist/kafkajs/index.d.ts', 'dist/kafkajs/index.d.mts',
      'dist/testing/index.js', 'dist/testing/index.mjs', 'dist/testing/index.d.ts', 'dist/testing/index.d.mts']) {
      assert.ok(files.includes(required), `the package lacks ${required}`)
    }
    assert.deepEqual(files.filter(f => f.endsWith('.map')), [], 'source maps point at sources the package does not ship')
    assert.deepEqual(files.filter(f => f.startsWith('dist/tests/') || f.startsWith('dist/bench/') || f.endsWith('.tsbuildinfo')), [], 'test and build files in the package')
    const classes = ['dist/producer/producer.d.ts', 'dist/consumer/consumer.d.ts'].map(f => fs.readFileSync(path.join(clone, f), 'utf8')).join('\n')
    for (const internal of ['takeSendable', 'onOutcome', 'removePartitions', 'addPartitions']) {
      assert.ok(!classes.includes(`${internal} (`) && !classes.includes(`${internal}(`), `internal method ${internal} is in the public types`)
    }
    // Built-in modules by their bare names, so runners without node: support (jest < 27) load it.
    const prefixed = files.filter(f => f.endsWith('.js')).filter(f => /require\("node:/.test(fs.readFileSync(path.join(clone, f), 'utf8')))
    assert.deepEqual(prefixed, [], 'library files require node:-prefixed modules')

    // An empty project installs the tarball (and kafkats's one dependency, packed from this
    // checkout, so no registry is needed).
    const app = path.join(work, 'app')
    fs.mkdirSync(app)
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }))
    const crc = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work, path.join(root, 'node_modules', 'crc-32')], work))[0].filename as string
    run('npm', ['install', '--offline', '--omit=optional', '--no-package-lock', tarball, path.join(work, crc)], app)

    fs.writeFileSync(path.join(app, 'consumer.cjs'), cjsConsumer)
    fs.writeFileSync(path.join(app, 'consumer.mjs'), esmConsumer)
    assert.equal(run(process.execPath, ['consumer.cjs'], app).trim(), 'cjs ok')
    assert.equal(run(process.execPath, ['consumer.mjs'], app).trim(), 'esm ok')

    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    const settings: Array<{ name: string, module: string, moduleResolution: string, files: Record<string, string> }> = [
      // .cts resolves through "require", .mts through "import".
      { name: 'node16', module: 'node16', moduleResolution: 'node16', files: { 'consumer.cts': typedConsumer, 'consumer.mts': typedConsumer } },
      { name: 'nodenext', module: 'nodenext', moduleResolution: 'nodenext', files: { 'consumer.cts': typedConsumer, 'consumer.mts': typedConsumer } },
      { name: 'bundler', module: 'esnext', moduleResolution: 'bundler', files: { 'consumer.ts': typedConsumer } }
    ]
    for (const s of settings) {
      const dir = path.join(app, `ts-${s.name}`)
      fs.mkdirSync(dir)
      for (const [file, text] of Object.entries(s.files)) fs.writeFileSync(path.join(dir, file), text)
      const args = ['--strict', '--noEmit', '--target', 'es2022', '--module', s.module, '--moduleResolution', s.moduleResolution, '--types', 'node', '--typeRoots', path.join(root, 'node_modules', '@types'), ...Object.keys(s.files)]
      run(process.execPath, [tsc, ...args], dir)
      if (s.name !== 'bundler') continue
      fs.writeFileSync(path.join(dir, 'internals.ts'), internalsConsumer)
      assert.throws(() => run(process.execPath, [tsc, ...args.filter(a => !(a in s.files)), 'internals.ts'], dir), /takeSendable/, 'internal methods are visible in the public types')
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
})

// The package's entry points: `require('kafkats')` and `import { Client } from 'kafkats'`
// load the same classes, and the published files carry their type declarations.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { pathToFileURL } from 'node:url'

const dist = path.join(__dirname, '..')
const root = path.join(dist, '..')

test('require() and import() expose the same API', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cjs = require(path.join(dist, 'index.js'))
  // A real import() (TypeScript would turn a plain one into require() in a CommonJS build).
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>
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

test('package.json points at existing entry points with types, for Node 20 and later', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  assert.equal(pkg.name, 'kafkats')
  assert.equal(pkg.engines.node, '>=20')
  for (const file of [pkg.main, pkg.types, pkg.exports['.'].import, pkg.exports['.'].require, pkg.exports['.'].types]) {
    assert.ok(fs.existsSync(path.join(root, file)), `${file} does not exist`)
  }
  assert.match(fs.readFileSync(path.join(root, pkg.types), 'utf8'), /Client/)
})

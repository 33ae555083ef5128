// Runs after tsc, on the library's part of dist/:
// - Outputs of an earlier build whose source is gone are removed: a stale `x.js` would shadow
//   a new `x/index.js` (Node tries the file first), so a module turned into a folder would
//   load its old code from an incremental build.
// - Node's built-in modules are required by their bare names ('zlib', not 'node:zlib'): test
//   runners kafkajs applications still use (jest before 27) cannot resolve the prefix, and
//   kafkats/kafkajs must load wherever kafkajs did. (Test files keep the prefix: node:test
//   has no bare name.)
// - For each entry point, an .mjs that re-exports the CommonJS module (so `import` and
//   `require` load the same classes, one copy of each) and an .d.mts that declares it as an
//   ES module (types that do not masquerade as CommonJS).
import { createRequire } from 'node:module'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const require = createRequire(import.meta.url)
// `kafkats` and its subpath exports, as in package.json "exports".
const entries = ['index', 'kafkajs/index', 'testing/index']
const libraryDirs = ['protocol', 'client', 'admin', 'producer', 'consumer', 'group', 'kafkajs', 'testing', 'cli']

const root = join(dist, '..')
for (const entry of readdirSync(dist, { recursive: true })) {
  const file = String(entry)
  const compiled = /^(.*?)(\.d\.ts|\.js)(\.map)?$/.exec(file)
  if (compiled === null || file.endsWith('.d.mts')) continue
  if (!existsSync(join(root, `${compiled[1]}.ts`))) rmSync(join(dist, file))
}

function bareBuiltins (file) {
  const text = readFileSync(file, 'utf8')
  const rewritten = text.replace(/require\("node:([a-z_/]+)"\)/g, 'require("$1")')
  if (rewritten !== text) writeFileSync(file, rewritten)
}
bareBuiltins(join(dist, 'index.js'))
for (const dir of libraryDirs) {
  if (!existsSync(join(dist, dir))) continue
  for (const entry of readdirSync(join(dist, dir), { recursive: true })) {
    if (String(entry).endsWith('.js')) bareBuiltins(join(dist, dir, String(entry)))
  }
}

for (const entry of entries) {
  const cjs = join(dist, `${entry}.js`)
  if (!existsSync(cjs)) continue
  const names = Object.keys(require(cjs)).filter(name => name !== 'default' && name !== '__esModule')
  writeFileSync(join(dist, `${entry}.mjs`), [
    "import cjs from './index.js'",
    `export const { ${names.join(', ')} } = cjs`,
    'export default cjs',
    ''
  ].join('\n'))
  writeFileSync(join(dist, `${entry}.d.mts`), [
    "export * from './index.js'",
    "import * as cjs from './index.js'",
    'export default cjs',
    ''
  ].join('\n'))
}

// Writes the ES module entries beside the CommonJS build: for each entry point, an .mjs that
// re-exports the CommonJS module (so `import` and `require` load the same classes, one copy of
// each) and an .d.mts that declares it as an ES module (types that do not masquerade as CJS).
import { createRequire } from 'node:module'
import { existsSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const require = createRequire(import.meta.url)
// `kafkats` and its subpath exports, as in package.json "exports".
const entries = ['index', 'kafkajs/index']

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

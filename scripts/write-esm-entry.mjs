// Writes dist/index.mjs: an ES module entry that re-exports the CommonJS build, so
// `import { Client } from 'kafkats'` and `require('kafkats')` load the same code.
import { createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const require = createRequire(import.meta.url)
const names = Object.keys(require(join(dist, 'index.js'))).filter(name => name !== 'default' && name !== '__esModule')
const lines = [
  "import kafkats from './index.js'",
  `export const { ${names.join(', ')} } = kafkats`,
  'export default kafkats',
  ''
]
writeFileSync(join(dist, 'index.mjs'), lines.join('\n'))

// Empties dist/ before the published build, so no test build, source map or stale file of
// an earlier build ends up in the package.
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

rmSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'), { recursive: true, force: true })

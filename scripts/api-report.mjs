// The reviewed public API of each entry point: etc/kafkats.api.md, etc/kafkats-kafkajs.api.md
// and etc/kafkats-testing.api.md, made by API Extractor from the declarations in dist/
// (run `npm run build` first).
//
//   node scripts/api-report.mjs           rewrites the reports (`npm run api`): review the diff, commit it
//   node scripts/api-report.mjs --check   fails when the public API differs from the reports (`npm run api:check`, CI)
//
// Both fail when a public type uses one no entry point exports (ae-forgotten-export) or
// something internal is reachable from the public types (etc/api-extractor.json).
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const check = process.argv.includes('--check')
// package.json "exports" → the declarations of each entry point, and its report's name.
const entries = [
  { types: 'dist/index.d.ts', report: 'kafkats' },
  { types: 'dist/kafkajs/index.d.ts', report: 'kafkats-kafkajs' },
  { types: 'dist/testing/index.d.ts', report: 'kafkats-testing' }
]

const configPath = join(root, 'etc', 'api-extractor.json')
const base = ExtractorConfig.loadFile(configPath)
const packageJsonFullPath = join(root, 'package.json')
let failed = false
for (const entry of entries) {
  if (!existsSync(join(root, entry.types))) {
    console.error(`${entry.types} is missing: run \`npm run build\` first`)
    process.exit(1)
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      ...base,
      mainEntryPointFilePath: join(root, entry.types),
      apiReport: { ...base.apiReport, reportFileName: entry.report }
    },
    configObjectFullPath: configPath,
    packageJsonFullPath
  })
  const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false })
  if (!result.succeeded) {
    failed = true
    const why = result.apiReportChanged
      ? `the public API of ${entry.types} differs from etc/${entry.report}.api.md: if the change is meant, run \`npm run api\`, review the report's diff and commit it`
      : `${result.errorCount} error(s) in the public API of ${entry.types} (see above)`
    console.error(`api report: ${why}`)
  } else if (result.apiReportChanged) {
    console.log(`api report: etc/${entry.report}.api.md updated; review the diff and commit it`)
  }
}
process.exit(failed ? 1 : 0)

// Keeps the code blocks of README.md and docs/*.md true to examples/ (files that compile
// under tsc --strict and that tests/integration/examples.test.ts runs against a broker).
//
//   node scripts/examples.mjs            rewrites each marked block from its example
//   node scripts/examples.mjs --check    fails when a marked block differs from its example,
//                                        a marker names a missing file or region, or a code
//                                        block of a guide has no marker (`npm run docs`, CI)
//
// A block is marked by the HTML comment on the line before its fence (invisible once rendered):
//   <!-- example: examples/produce.mts -->           the whole file
//   <!-- example: examples/produce.mts#send -->      the lines between `// #region send` and
//                                                    `// #endregion send` (`# region` in shell)
//   <!-- illustration -->                            not a program (a shape, an output): exempt
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const check = process.argv.includes('--check')
// The README and the guides whose every code block must come from examples/ (or say it is an
// illustration). Other guides' marked blocks are kept in sync too; their unmarked ones are not refused.
const strict = new Set(['README.md', ...['getting-started', 'producing', 'consuming', 'delivery-semantics', 'transactions', 'share-groups', 'admin',
  'security', 'observability', 'testing', 'cli', 'performance', 'errors', 'defaults', 'client', 'architecture'].map(name => `docs/${name}.md`)])
const documents = ['README.md', ...readdirSync(join(root, 'docs')).filter(f => f.endsWith('.md')).sort().map(f => `docs/${f}`)]

const marker = /^<!-- (example: (\S+?)(?:#(\S+))?|illustration) -->$/
const regionStart = name => new RegExp(`^\\s*(//|#) ?#?region ${name}\\s*$`)
const regionEnd = name => new RegExp(`^\\s*(//|#) ?#?endregion ${name}\\s*$`)
const anyRegionLine = /^\s*(\/\/|#) ?#?(end)?region \S+\s*$/

function exampleText (file, region) {
  const path = join(root, file)
  if (!existsSync(path)) return { error: `${file} does not exist` }
  let lines = readFileSync(path, 'utf8').replace(/\n$/, '').split('\n')
  if (region !== undefined) {
    const start = lines.findIndex(line => regionStart(region).test(line))
    const end = lines.findIndex(line => regionEnd(region).test(line))
    if (start === -1 || end < start) return { error: `${file} has no region '${region}'` }
    lines = lines.slice(start + 1, end)
    const indent = Math.min(...lines.filter(l => l.trim() !== '').map(l => /^ */.exec(l)[0].length))
    lines = lines.map(l => l.slice(indent))
  }
  return { text: lines.filter(line => !anyRegionLine.test(line)).join('\n') }
}

const problems = []
let rewritten = 0
for (const document of documents) {
  const path = join(root, document)
  const lines = readFileSync(path, 'utf8').split('\n')
  const out = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(```+)(\S*)\s*$/.exec(lines[i])
    if (fence === null) { out.push(lines[i]); continue }
    // A code block: find its end.
    let end = i + 1
    while (end < lines.length && lines[end].trim() !== fence[2]) end++
    const body = lines.slice(i + 1, end)
    const mark = marker.exec((out.at(-1) ?? '').trim())
    if (mark === null) {
      if (strict.has(document)) problems.push(`${document}:${i + 1}: a code block without <!-- example: … --> or <!-- illustration --> before it`)
    } else if (mark[1] !== 'illustration') {
      const { text: unindented, error } = exampleText(mark[2], mark[3])
      // A block inside a list item is indented as its fence is.
      const text = unindented?.split('\n').map(line => line === '' ? line : fence[1] + line).join('\n')
      if (error !== undefined) problems.push(`${document}:${i + 1}: ${error}`)
      else if (body.join('\n') !== text) {
        if (check) problems.push(`${document}:${i + 1}: differs from ${mark[2]}${mark[3] !== undefined ? `#${mark[3]}` : ''} (run \`node scripts/examples.mjs\`)`)
        else { out.push(lines[i], ...text.split('\n'), lines[end]); i = end; rewritten++; continue }
      }
    }
    out.push(...lines.slice(i, end + 1))
    i = end
  }
  if (!check && rewritten > 0) writeFileSync(path, out.join('\n'))
}
if (problems.length > 0) {
  console.error(problems.join('\n'))
  console.error(`examples: ${problems.length} problem(s)`)
  process.exit(1)
}
console.log(check ? `examples: the code blocks of ${documents.length} documents match examples/` : `examples: ${rewritten} block(s) rewritten`)

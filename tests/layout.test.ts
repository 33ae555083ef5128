// The source's import graph (the .ts files of the package, tests excluded): no import cycle,
// and every import goes down the layer order
//
//   protocol ← client ← producer, consumer, admin ← group ← index.ts ← kafkajs, cli
//
// (testing on protocol and client only). A cycle works only while nothing in it is read at
// load time, and an upward import drags a whole layer into one below it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as fs from 'node:fs'
import * as path from 'node:path'

const root = path.join(__dirname, '..', '..')

/** What each top-level part may import besides itself (type-only imports included). */
const MAY_IMPORT: Record<string, string[]> = {
  protocol: [],
  client: ['protocol'],
  producer: ['protocol', 'client'],
  consumer: ['protocol', 'client'],
  admin: ['protocol', 'client'],
  group: ['protocol', 'client', 'producer', 'consumer'],
  'index.ts': ['protocol', 'client', 'producer', 'consumer', 'admin', 'group'],
  kafkajs: ['protocol', 'client', 'producer', 'consumer', 'admin', 'group', 'index.ts'],
  cli: ['index.ts'],
  testing: ['protocol', 'client']
}

interface Import { to: string, typeOnly: boolean }

/** Every .ts file of the package's sources, relative to the repository root. */
function sourceFiles (): string[] {
  const files: string[] = []
  const walk = (relative: string): void => {
    const full = path.join(root, relative)
    if (fs.statSync(full).isDirectory()) for (const entry of fs.readdirSync(full)) walk(path.join(relative, entry))
    else if (relative.endsWith('.ts') && !relative.endsWith('.d.ts')) files.push(relative)
  }
  for (const part of Object.keys(MAY_IMPORT)) walk(part)
  return files
}

// `import …from '…'`, `export …from '…'`, `import '…'`; the clause decides type-only.
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*(?:from\s+)?['"](\.{1,2}\/[^'"]*)['"]/gm

/** The relative imports of `file`, resolved to files, each marked type-only or not. */
function importsOf (file: string): Import[] {
  const source = fs.readFileSync(path.join(root, file), 'utf8')
  const imports: Import[] = []
  for (const [, typeKeyword, clause, specifier] of source.matchAll(IMPORT)) {
    const base = path.join(path.dirname(file), specifier)
    const to = [`${base}.ts`, path.join(base, 'index.ts')].find(candidate => fs.existsSync(path.join(root, candidate)))
    if (to === undefined) continue
    // `import { type A, type B } from` is type-only too; a default or namespace import is not.
    const named = /^\{([^}]*)\}$/.exec(clause.trim())
    const allTypes = named !== null && named[1].split(',').map(s => s.trim()).filter(s => s !== '').every(s => s.startsWith('type '))
    imports.push({ to, typeOnly: typeKeyword !== undefined || allTypes })
  }
  return imports
}

const partOf = (file: string): string => file.includes(path.sep) ? file.split(path.sep)[0] : file

/** The cycles of a graph (strongly connected components of more than one file, or a file importing itself). */
function cyclesOf (graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!))
      }
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return cycles
}

const files = sourceFiles()
const imports = new Map(files.map(file => [file, importsOf(file)]))

test('the sources are found and their imports read', () => {
  assert.ok(files.length > 100, `only ${files.length} source files found under ${root}`)
  assert.ok(imports.get(path.join('client', 'client.ts'))!.length > 5, 'client/client.ts: its imports were not read')
})

test('no import cycle: none at run time, none of type-only imports either', () => {
  const runtime = new Map(files.map(file => [file, imports.get(file)!.filter(i => !i.typeOnly).map(i => i.to)]))
  const all = new Map(files.map(file => [file, imports.get(file)!.map(i => i.to)]))
  const runtimeCycles = cyclesOf(runtime)
  assert.deepEqual(runtimeCycles, [], `runtime import cycles (a module of each reads another before it has loaded):\n${runtimeCycles.map(c => c.join(' → ')).join('\n')}`)
  const typeCycles = cyclesOf(all)
  assert.deepEqual(typeCycles, [], `import cycles through type-only imports (move the shared type into the module that owns it):\n${typeCycles.map(c => c.join(' → ')).join('\n')}`)
})

test('every import goes down the layer order (protocol ← client ← producer/consumer/admin ← group ← index ← kafkajs, cli; testing on protocol and client)', () => {
  const upward: string[] = []
  for (const [file, list] of imports) {
    const from = partOf(file)
    for (const { to, typeOnly } of list) {
      const target = partOf(to)
      if (target !== from && !MAY_IMPORT[from].includes(target)) upward.push(`${file} imports ${typeOnly ? 'types from ' : ''}${to}`)
    }
  }
  assert.deepEqual(upward, [], `imports against the layer order:\n${upward.join('\n')}`)
})

// `npm run docs`: the documentation site (guides + API reference) and its checks.
//
//   node scripts/docs.mjs                  build dist/site/ and check it
//   node scripts/docs.mjs --screenshots DIR   also save screenshots of the home page and a guide
//
// 1. The guides' code blocks match examples/ (scripts/examples.mjs --check).
// 2. docs/errors.md has a section for every error class an entry point exports.
// 3. TypeDoc builds dist/site/ (typedoc.config.mjs: any warning fails it — a broken link, a
//    reference to something not exported, an undocumented export).
// 4. Every internal link and asset of every page resolves (file, and #anchor when given).
// 5. A headless Chromium loads the home page, every guide and the entry points' pages (and a
//    sample of symbol pages) from a local HTTP server and fails on any console error,
//    uncaught exception or failed load. Without Chromium (Debian: `apt-get install chromium`;
//    or CHROMIUM=/path) this step is skipped with a message, unless DOCS_REQUIRE_BROWSER=1.
import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, extname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const site = join(root, 'dist', 'site')
const shotsAt = process.argv.indexOf('--screenshots')
const shotsDir = shotsAt === -1 ? undefined : resolve(process.argv[shotsAt + 1] ?? '/tmp/docs-shots')
const step = (text) => console.log(`docs: ${text}`)
const fail = (text) => { console.error(`docs: ${text}`); process.exit(1) }

// ---------------------------------------------------------------- 1. examples
{
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'examples.mjs'), '--check'], { stdio: 'inherit' })
  if (run.status !== 0) fail('code blocks differ from examples/ (see above)')
}

// ---------------------------------------------------------------- 2. errors reference
{
  const require = createRequire(import.meta.url)
  const errorsDoc = readFileSync(join(root, 'docs', 'errors.md'), 'utf8')
  const missing = []
  for (const entry of ['dist/index.js', 'dist/kafkajs/index.js', 'dist/testing/index.js']) {
    if (!existsSync(join(root, entry))) fail(`${entry} is missing: run \`npm run build\` first`)
    const exports = require(join(root, entry))
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue
      // kafkats's own classes have a section each; kafkats/kafkajs's are listed by name.
      const documented = entry === 'dist/kafkajs/index.js' ? errorsDoc.includes(`\`${name}\``) : errorsDoc.includes(`### \`${name}\``)
      if (!documented) missing.push(`${name} (${entry})`)
    }
  }
  if (missing.length > 0) fail(`docs/errors.md does not document these exported error classes: ${missing.join(', ')}`)
  step('docs/errors.md covers every exported error class')
}

// ---------------------------------------------------------------- 3. TypeDoc
// Guides other tasks are writing: until one exists, a page says so (the links to it stay valid).
const pending = {
  'broker-compatibility.md': 'Broker compatibility',
  'concurrent-processing.md': 'Concurrent processing',
  'migrating-from-kafkajs.md': 'Migrating from kafkajs',
  'admin.md': 'Admin'
}
const stubs = []
for (const [file, title] of Object.entries(pending)) {
  const path = join(root, 'docs', file)
  if (existsSync(path)) continue
  writeFileSync(path, `# ${title}\n\nThis guide is not written yet.\n`)
  stubs.push(path)
  step(`docs/${file} does not exist yet: a placeholder page stands in for it`)
}
rmSync(site, { recursive: true, force: true })
const typedoc = process.env.TYPEDOC ?? join(root, 'node_modules', '.bin', 'typedoc')
const built = spawnSync(existsSync(typedoc) ? typedoc : 'typedoc', [], { cwd: root, stdio: 'inherit' })
for (const path of stubs) rmSync(path, { force: true })
if (built.error !== undefined) fail(`cannot run TypeDoc (${built.error.message}): \`npm ci\` installs it`)
if (built.status !== 0) fail('TypeDoc failed (see above)')
step(`site built in ${relative(root, site)}/`)

// ---------------------------------------------------------------- 4. links
function htmlFiles (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = join(dir, entry.name)
    return entry.isDirectory() ? htmlFiles(full) : entry.name.endsWith('.html') ? [full] : []
  })
}
const pages = htmlFiles(site)
const idsOf = new Map()
const ids = (file) => {
  if (!idsOf.has(file)) idsOf.set(file, new Set([...readFileSync(file, 'utf8').matchAll(/\b(?:id|name)="([^"]+)"/g)].map(m => m[1])))
  return idsOf.get(file)
}
// Anchors TypeDoc links to that are not in the static HTML: hierarchy.html builds its tree (and
// ids) in the browser; a type parameter of a type literal's signature gets no anchor (TypeDoc 0.28).
const dynamicAnchor = (file, anchor) => file.endsWith(`${sep}hierarchy.html`) || anchor.startsWith('__type__')
const broken = []
let links = 0
for (const page of pages) {
  const html = readFileSync(page, 'utf8')
  for (const [, target] of html.matchAll(/\b(?:href|src)="([^"]*)"/g)) {
    if (/^(https?:|mailto:|javascript:|data:)/.test(target) || target === '') continue
    links++
    const [pathPart, anchor] = target.replace(/&amp;/g, '&').split('#')
    const file = pathPart === '' ? page : resolve(dirname(page), decodeURIComponent(pathPart.split('?')[0]))
    if (!file.startsWith(site + sep) && file !== site) { broken.push(`${relative(site, page)}: ${target} leaves the site`); continue }
    if (!existsSync(file)) { broken.push(`${relative(site, page)}: ${target} (no such file)`); continue }
    if (anchor !== undefined && anchor !== '' && file.endsWith('.html') && !ids(file).has(decodeURIComponent(anchor)) && !dynamicAnchor(file, anchor)) {
      broken.push(`${relative(site, page)}: ${target} (no #${anchor} in ${relative(site, file)})`)
    }
  }
}
if (broken.length > 0) fail(`${broken.length} broken internal link(s):\n  ${broken.slice(0, 50).join('\n  ')}`)
step(`${links} internal links of ${pages.length} pages resolve`)

// ---------------------------------------------------------------- 5. browser
const chromium = process.env.CHROMIUM ?? ['chromium', 'chromium-browser', 'google-chrome'].find(name => spawnSync('which', [name]).status === 0)
if (chromium === undefined) {
  const message = 'no Chromium found (apt-get install chromium, or set CHROMIUM): the headless browser check is SKIPPED'
  if (process.env.DOCS_REQUIRE_BROWSER === '1') fail(message)
  console.log(`docs: ${message}`)
  process.exit(0)
}
const byName = (dir) => existsSync(join(site, dir)) ? readdirSync(join(site, dir)).filter(f => f.endsWith('.html')).sort().map(f => `${dir}/${f}`) : []
const toLoad = ['index.html', 'modules.html', ...byName('documents'), ...byName('modules'),
  ...byName('classes').slice(0, 15), ...byName('interfaces').slice(0, 10), ...byName('functions').slice(0, 5)]
  .filter(page => existsSync(join(site, page)))

const server = createServer((request, response) => {
  const path = join(site, decodeURIComponent(new URL(request.url, 'http://x').pathname))
  if (!path.startsWith(site) || !existsSync(path)) { response.writeHead(404).end(); return }
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' }
  response.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' }).end(readFileSync(path))
})
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
const base = `http://127.0.0.1:${server.address().port}/`

// The DevTools protocol over --remote-debugging-pipe (fd 3: to Chromium, fd 4: from it).
const profile = mkdtempSync(join(tmpdir(), 'kafkats-docs-chromium-'))
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
  '--remote-debugging-pipe', `--user-data-dir=${profile}`, '--window-size=1280,1000', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true })
let browserLog = ''
browser.stderr.on('data', chunk => { browserLog = (browserLog + chunk).slice(-4000) })
const pendingCalls = new Map()
const listeners = new Set()
let nextId = 1
let buffer = ''
browser.stdio[4].on('data', chunk => {
  buffer += chunk
  let end
  while ((end = buffer.indexOf('\0')) !== -1) {
    const message = JSON.parse(buffer.slice(0, end))
    buffer = buffer.slice(end + 1)
    if (message.id !== undefined && pendingCalls.has(message.id)) {
      const { resolve, reject } = pendingCalls.get(message.id)
      pendingCalls.delete(message.id)
      if (message.error !== undefined) reject(new Error(`${message.error.message}`))
      else resolve(message.result)
    } else for (const listener of listeners) listener(message)
  }
})
const call = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
  const id = nextId++
  pendingCalls.set(id, { resolve, reject })
  browser.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0')
})
const bound = setTimeout(() => { browser.kill('SIGKILL'); fail(`the browser check did not end within 5 minutes\n${browserLog}`) }, 300_000)

const problems = []
try {
  const { targetId } = await call('Target.createTarget', { url: 'about:blank' })
  const { sessionId } = await call('Target.attachToTarget', { targetId, flatten: true })
  let current = ''
  listeners.add(message => {
    if (message.sessionId !== sessionId) return
    const p = message.params
    if (message.method === 'Runtime.exceptionThrown') problems.push(`${current}: uncaught ${p.exceptionDetails.exception?.description ?? p.exceptionDetails.text}`)
    if (message.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert')) problems.push(`${current}: console.${p.type}(${p.args.map(a => a.value ?? a.description).join(' ')})`)
    if (message.method === 'Log.entryAdded' && p.entry.level === 'error') problems.push(`${current}: ${p.entry.text} ${p.entry.url ?? ''}`)
  })
  for (const method of ['Page.enable', 'Runtime.enable', 'Log.enable']) await call(method, {}, sessionId)
  const load = async (page) => {
    current = page
    const loaded = new Promise(resolve => {
      const listener = message => { if (message.sessionId === sessionId && message.method === 'Page.loadEventFired') { listeners.delete(listener); resolve() } }
      listeners.add(listener)
    })
    await call('Page.navigate', { url: base + page }, sessionId)
    await loaded
    // Let the page's scripts (navigation, search index) run.
    await call('Runtime.evaluate', { expression: 'new Promise(r => setTimeout(r, 300))', awaitPromise: true }, sessionId)
  }
  for (const page of toLoad) await load(page)
  if (problems.length === 0) step(`${toLoad.length} pages loaded in ${chromium} without console errors`)
  if (shotsDir !== undefined) {
    mkdirSync(shotsDir, { recursive: true })
    const guide = byName('documents').find(p => /consuming/i.test(p)) ?? byName('documents')[0]
    for (const [page, name] of [['index.html', 'home.png'], [guide, 'guide.png']]) {
      await load(page)
      await call('Emulation.setDeviceMetricsOverride', { width: 1280, height: 1000, deviceScaleFactor: 1, mobile: false }, sessionId)
      const { data } = await call('Page.captureScreenshot', { format: 'png' }, sessionId)
      writeFileSync(join(shotsDir, name), Buffer.from(data, 'base64'))
      step(`screenshot of ${page}: ${join(shotsDir, name)}`)
    }
  }
} finally {
  clearTimeout(bound)
  // Chromium's helper processes (renderer, network, storage) can still write into the profile
  // after the main process exits: ask it to close, then end its whole process group, and only
  // then remove the profile. A profile left in the temporary directory is not a failed check.
  const exited = browser.exitCode !== null ? Promise.resolve() : new Promise(resolve => browser.once('exit', resolve))
  const waitFor = (promise, ms) => Promise.race([promise, new Promise(resolve => setTimeout(resolve, ms))])
  await waitFor(call('Browser.close').catch(() => {}), 5_000)
  await waitFor(exited, 5_000)
  try { process.kill(-browser.pid, 'SIGKILL') } catch { /* the group has already exited */ }
  await waitFor(exited, 5_000)
  server.close()
  try {
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  } catch (error) {
    console.warn(`docs: could not remove the browser profile ${profile}: ${error.message}`)
  }
}
if (problems.length > 0) fail(`the browser reported ${problems.length} problem(s):\n  ${problems.slice(0, 30).join('\n  ')}`)

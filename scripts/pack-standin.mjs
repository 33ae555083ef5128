// `npm run pack:standin [-- --destination DIR]`: the two tarballs an application installs to run
// its kafkajs code, and the libraries it uses that require('kafkajs') themselves, on kafkats
// (docs/migrating-from-kafkajs.md): kafkats (`npm pack`, with its prepack build) and the stand-in
// package named kafkajs (packages/kafkajs-standin), written to dist-pack/ or DIR. Prints
// {"kafkats": path, "kafkajs": path} as JSON on the last line.
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join, resolve } from 'node:path'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const at = process.argv.indexOf('--destination')
const destination = resolve(at === -1 ? join(root, 'dist-pack') : process.argv[at + 1])
mkdirSync(destination, { recursive: true })

function pack (dir) {
  // npm's own output (the prepack build's) goes to stderr; stdout is the JSON answer.
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  return join(destination, JSON.parse(out.slice(out.indexOf('[')))[0].filename)
}

const tarballs = { kafkats: pack(root), kafkajs: pack(join(root, 'packages', 'kafkajs-standin')) }
console.error(`kafkats:  ${tarballs.kafkats}\nkafkajs (stand-in): ${tarballs.kafkajs}`)
console.log(JSON.stringify(tarballs))

// The runner protocol of runner.ts, for the runners of other clients, which are plain
// ES modules run from source so that the main build never needs their packages.
import * as fs from 'node:fs'

export function readConfig () {
  const text = process.argv[2]
  if (text === undefined) throw new Error('A produce runner takes its config as JSON in argv[2]; run it through bench/produce/run.js')
  return JSON.parse(text)
}

/** The values to produce, cycled through record by record (see readValues in runner.ts). */
export function readValues (config) {
  const bytes = fs.readFileSync(config.payloadFile)
  const values = []
  for (let start = 0; start + config.valueSize <= bytes.length; start += config.valueSize + 1) values.push(bytes.subarray(start, start + config.valueSize))
  if (values.length === 0) throw new Error(`No ${config.valueSize}-byte values in ${config.payloadFile}`)
  return values
}

export function cpuSecondsSince (start) {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1e6
}

export function writeLatencies (file, latencies, count) {
  fs.writeFileSync(file, Buffer.from(latencies.buffer, latencies.byteOffset, count * 4))
}

export function report (result) {
  process.stdout.write('BENCH-RESULT ' + JSON.stringify(result) + '\n')
}

export function runtime () {
  return `node ${process.version}`
}

/** How many records one call carries so that each partition's batch holds about `batchBytes`. */
export function recordsPerCall (valueSize, partitions, batchBytes) {
  return Math.max(1, Math.floor(partitions * batchBytes / (valueSize + 20)))
}

export function runMain (main) {
  main().catch(error => {
    process.stderr.write(`${error?.stack ?? String(error)}\n`)
    process.exitCode = 1
  })
}

// The produce runner protocol of runner.ts, for the runners of other clients, which are
// plain ES modules run from source so that the main build never needs their packages.
// The parts every benchmark shares are in ../common/runner.mjs.
import * as fs from 'node:fs'
import { readConfigArgument } from '../common/runner.mjs'

export { cpuSecondsSince, reportResult as report, runMain, runtime } from '../common/runner.mjs'

export function readConfig () {
  return readConfigArgument()
}

/** The values to produce, cycled through record by record (see readValues in runner.ts). */
export function readValues (config) {
  const bytes = fs.readFileSync(config.payloadFile)
  const values = []
  for (let start = 0; start + config.valueSize <= bytes.length; start += config.valueSize + 1) values.push(bytes.subarray(start, start + config.valueSize))
  if (values.length === 0) throw new Error(`No ${config.valueSize}-byte values in ${config.payloadFile}`)
  return values
}

export function writeLatencies (file, latencies, count) {
  fs.writeFileSync(file, Buffer.from(latencies.buffer, latencies.byteOffset, count * 4))
}

/** How many records one call carries so that each partition's batch holds about `batchBytes`. */
export function recordsPerCall (valueSize, partitions, batchBytes) {
  return Math.max(1, Math.floor(partitions * batchBytes / (valueSize + 20)))
}

/**
 * The side-by-side table of issue 14 in one command: the produce and consume benchmarks
 * (100 B and 1 KiB values, none and lz4) with the same clients on one broker, medians of
 * interleaved rounds, then memory per held record (consumer, 100 B values), printed as
 * markdown with every figure's ratio to franz-go's in the same case.
 *
 *   node dist/bench/compare.js [--records 500000] [--repeat 3] [--clients kafkats,…]
 *                              [--memory-records 200000] [--json FILE]
 *
 * It runs `dist/bench/produce/run.js` and `dist/bench/consume/run.js` (their progress on
 * stderr) against KAFKA_BOOTSTRAP's broker, or one it starts and stops.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { benchBroker, formatNumber, parseOptionPairs, positiveInt, sizeLabel, splitList, type BenchRow } from './common/harness'

const USAGE = `usage: node dist/bench/compare.js [--records N] [--repeat N] [--clients LIST] [--memory-records N|0] [--json FILE]
  --records N          records per run (default 500,000)
  --repeat N           interleaved rounds per case; the median run is shown (default 3)
  --clients LIST       default kafkats,kafkats-kafkajs,franz,java,kafkajs,platformatic (franz is the reference)
  --memory-records N   records held in the memory runs (default 200,000; 0 skips them)
  --json FILE          every row (and the memory figures) as JSON`

const CASES = ['100 none', '100 lz4', '1024 none', '1024 lz4']

/** A row of the harnesses' --json output; consume's memory runs add heldBytesPerRecord. */
type Row = BenchRow & { heldBytesPerRecord?: number }

interface Options {
  records: number
  repeat: number
  clients: string[]
  memoryRecords: number
  json: string | undefined
}

function parse (argv: string[]): Options {
  const options: Options = { records: 500_000, repeat: 3, clients: ['kafkats', 'kafkats-kafkajs', 'franz', 'java', 'kafkajs', 'platformatic'], memoryRecords: 200_000, json: undefined }
  parseOptionPairs(argv, USAGE, (arg, value) => {
    if (arg === '--records') options.records = positiveInt(arg, value)
    else if (arg === '--repeat') options.repeat = positiveInt(arg, value)
    else if (arg === '--clients') options.clients = splitList(value)
    else if (arg === '--memory-records') options.memoryRecords = value === '0' ? 0 : positiveInt(arg, value)
    else if (arg === '--json') options.json = value
    else return false
    return true
  })
  if (!options.clients.includes('franz')) throw new Error('--clients must include franz: every ratio is to franz-go')
  return options
}

/** Runs one harness with `args` and --json, its output on stderr; returns its rows. */
async function harness (benchmark: 'produce' | 'consume', args: string[], scratch: string, bootstrap: string): Promise<Row[]> {
  const json = path.join(scratch, `${benchmark}-${Date.now()}.json`)
  const script = path.join(__dirname, benchmark, 'run.js')
  const code = await new Promise<number | null>((resolve, reject) => {
    // The harness's table goes to stderr too: this command prints its own at the end.
    const child = spawn(process.execPath, [script, ...args, '--json', json], { stdio: ['ignore', process.stderr, process.stderr], env: { ...process.env, KAFKA_BOOTSTRAP: bootstrap } })
    child.on('error', reject)
    child.on('exit', resolve)
  })
  if (code !== 0 || !fs.existsSync(json)) throw new Error(`${benchmark} benchmark exited with ${String(code)} (${[script, ...args].join(' ')})`)
  return JSON.parse(fs.readFileSync(json, 'utf8')) as Row[]
}

function perRecord (row: Row | undefined): number | undefined {
  return row?.cpuSeconds === undefined || row.recordsPerSecond === undefined ? undefined : row.cpuSeconds * 1e6 / row.records
}

function ratio (value: number | undefined, reference: number | undefined): string {
  return value === undefined || reference === undefined || reference === 0 ? '—' : `${value / reference >= 10 ? (value / reference).toFixed(1) : (value / reference).toFixed(2)}×`
}

/** The goal of issue 14 for a kafkats row: at least franz-go's records/s, at most 1.3× its CPU per record. */
function verdict (row: Row, franz: Row | undefined): string {
  const cpu = perRecord(row)
  const franzCpu = perRecord(franz)
  if (row.client !== 'kafkats' || cpu === undefined || franzCpu === undefined || row.recordsPerSecond === undefined || franz?.recordsPerSecond === undefined) return ''
  const fast = row.recordsPerSecond >= franz.recordsPerSecond
  const lean = cpu <= 1.3 * franzCpu
  if (fast && lean) return 'goal met'
  return `not met (${[fast ? '' : 'records/s below franz-go', lean ? '' : 'CPU above 1.3×'].filter(s => s !== '').join(', ')})`
}

function table (title: string, rows: Row[], clients: string[]): string {
  const lines = [`| ${title} | size | compression | records/s | CPU µs/record | CPU vs franz-go | records/s vs franz-go | issue 14 goal |`, '| --- | --- | --- | ---: | ---: | ---: | ---: | --- |']
  for (const c of CASES) {
    const [size, compression] = c.split(' ')
    const inCase = rows.filter(r => r.size === Number(size) && r.compression === compression)
    const franz = inCase.find(r => r.client === 'franz')
    for (const client of clients) {
      const row = inCase.find(r => r.client === client)
      if (row === undefined) continue
      const name = client === 'franz' ? 'franz-go' : client
      if (row.recordsPerSecond === undefined) {
        lines.push(`| ${name} | ${sizeLabel(row.size)} | ${compression} | — | — | — | — | ${row.notes.join('; ')} |`)
        continue
      }
      lines.push(`| ${name} | ${sizeLabel(row.size)} | ${compression} | ${formatNumber(row.recordsPerSecond, 0)} | ${formatNumber(perRecord(row), 2)} | ${ratio(perRecord(row), perRecord(franz))} | ${ratio(row.recordsPerSecond, franz?.recordsPerSecond)} | ${verdict(row, franz)} |`)
    }
  }
  return lines.join('\n')
}

async function main (): Promise<void> {
  const options = parse(process.argv.slice(2))
  const started = Date.now()
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-compare-'))
  const broker = await benchBroker()
  const load = (): string => os.loadavg().map(l => l.toFixed(1)).join(' ')
  const loadAtStart = load()
  let produce: Row[]
  let consume: Row[]
  let memory: Row[] = []
  try {
    const common = ['--records', String(options.records), '--repeat', String(options.repeat), '--clients', options.clients.join(','), '--sizes', '100,1024', '--compression', 'none,lz4']
    produce = await harness('produce', common, scratch, broker.bootstrap)
    consume = await harness('consume', common, scratch, broker.bootstrap)
    if (options.memoryRecords > 0) {
      const retain = JSON.stringify({ retainRecords: options.memoryRecords })
      memory = await harness('consume', ['--records', String(Math.ceil(options.memoryRecords * 1.5)), '--clients', 'kafkats,franz', '--sizes', '100', '--compression', 'none,lz4', '--options-kafkats', retain, '--options-franz', retain], scratch, broker.bootstrap)
    }
  } finally {
    await broker.stop()
  }
  const minutes = (Date.now() - started) / 60_000
  const out = [
    `Produce and consume, ${formatNumber(options.records, 0)} records per run, 6 partitions, one broker, medians of ${options.repeat} interleaved rounds (the run with the median records/s and its CPU); ratios to franz-go in the same case. Load average ${loadAtStart} at the start, ${load()} at the end; ${minutes.toFixed(1)} minutes.`,
    '',
    table('produce', produce, options.clients),
    '',
    table('consume', consume, options.clients)
  ]
  if (memory.length > 0) {
    out.push('', `Memory per record held (consumer, 100 B values, the first ${formatNumber(options.memoryRecords, 0)} records held; heap + buffers after a full collection):`, '', '| | none | lz4 |', '| --- | ---: | ---: |')
    const held = (client: string, compression: string): number | undefined => memory.find(r => r.client === client && r.compression === compression)?.heldBytesPerRecord
    for (const client of ['kafkats', 'franz']) {
      out.push(`| ${client === 'franz' ? 'franz-go' : client} | ${formatNumber(held(client, 'none'), 0)} B (${ratio(held(client, 'none'), held('franz', 'none'))}) | ${formatNumber(held(client, 'lz4'), 0)} B (${ratio(held(client, 'lz4'), held('franz', 'lz4'))}) |`)
    }
  }
  process.stdout.write(out.join('\n') + '\n')
  if (options.json !== undefined) fs.writeFileSync(options.json, JSON.stringify({ produce, consume, memory }, null, 2) + '\n')
  fs.rmSync(scratch, { recursive: true, force: true })
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
  process.exitCode = 1
})

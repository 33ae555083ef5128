/**
 * Turns the JSON rows the benchmarks write (`--json FILE` of bench/produce/run.ts and
 * bench/consume/run.ts) into one SVG chart: per case (benchmark, value size, codec), the
 * records/s and the CPU µs/record of every client, as horizontal bars. No dependency.
 *
 *   node dist/bench/chart.js produce=bench/results/produce.json consume=bench/results/consume.json --out bench/results/chart.svg
 *
 * Each argument is `label=file` (the label names the benchmark in the panel titles) or a
 * bare file (labelled by its name). `--title TEXT` sets the heading.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'

interface Row {
  client: string
  size: number
  compression: string
  records: number
  recordsPerSecond?: number
  cpuSeconds?: number
}

interface Case { title: string, rows: Array<{ client: string, rate: number | undefined, cpuUs: number | undefined }> }

/** Client colours, in the order clients first appear. */
const PALETTE = ['#2f6fd0', '#e07b24', '#3a9a48', '#b03a8c', '#7b6bd6', '#8c6d31', '#4aa3b8']

function readCases (inputs: Array<{ label: string, file: string }>): Case[] {
  const cases: Case[] = []
  for (const { label, file } of inputs) {
    const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as Row[]
    if (!Array.isArray(rows)) throw new Error(`${file}: expected the array of rows a benchmark writes with --json`)
    const byCase = new Map<string, Case>()
    for (const row of rows) {
      const title = `${label}, ${row.size >= 1024 ? `${row.size / 1024} KiB` : `${row.size} B`}, ${row.compression}`
      let c = byCase.get(title)
      if (c === undefined) byCase.set(title, c = { title, rows: [] })
      c.rows.push({
        client: row.client,
        rate: row.recordsPerSecond,
        cpuUs: row.cpuSeconds !== undefined && row.records > 0 ? row.cpuSeconds * 1e6 / row.records : undefined
      })
    }
    cases.push(...byCase.values())
  }
  return cases
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function formatRate (n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : n >= 1e3 ? `${(n / 1e3).toFixed(0)} k/s` : `${n.toFixed(0)}/s`
}

/** The SVG document: one panel per case, records/s on the left, CPU µs/record on the right. */
export function renderChart (cases: Case[], title: string): string {
  const clients = [...new Set(cases.flatMap(c => c.rows.map(r => r.client)))]
  const colour = (client: string): string => PALETTE[clients.indexOf(client) % PALETTE.length]
  const width = 960
  const labelWidth = 150
  const barArea = (width - 2 * labelWidth - 60) / 2
  const barHeight = 18
  const gap = 6
  const panelHead = 46
  // Each column's scale is shared by all panels, so bars compare across cases too.
  const maxRate = Math.max(1, ...cases.flatMap(c => c.rows.map(r => r.rate ?? 0)))
  const maxCpu = Math.max(0.001, ...cases.flatMap(c => c.rows.map(r => r.cpuUs ?? 0)))
  const parts: string[] = []
  let y = 56
  parts.push(`<text x="20" y="30" class="title">${escape(title)}</text>`)
  parts.push(`<text x="20" y="48" class="note">records/s: higher is better · CPU µs/record: the client process's user+system CPU per record, lower is better</text>`)
  for (const c of cases) {
    const top = y + 10
    parts.push(`<text x="20" y="${top + 18}" class="case">${escape(c.title)}</text>`)
    const left = labelWidth
    const right = labelWidth + barArea + 60 + labelWidth
    parts.push(`<text x="${left}" y="${top + 38}" class="axis">records/s</text>`)
    parts.push(`<text x="${right}" y="${top + 38}" class="axis">CPU µs/record</text>`)
    let rowY = top + panelHead
    for (const r of c.rows) {
      const fill = colour(r.client)
      parts.push(`<text x="${left - 8}" y="${rowY + 13}" class="label" text-anchor="end">${escape(r.client)}</text>`)
      parts.push(`<text x="${right - 8}" y="${rowY + 13}" class="label" text-anchor="end">${escape(r.client)}</text>`)
      if (r.rate !== undefined) {
        const w = Math.max(1, barArea * r.rate / maxRate)
        parts.push(`<rect x="${left}" y="${rowY}" width="${w.toFixed(1)}" height="${barHeight}" fill="${fill}"/>`)
        parts.push(`<text x="${(left + w + 4).toFixed(1)}" y="${rowY + 13}" class="value">${formatRate(r.rate)}</text>`)
      } else parts.push(`<text x="${left}" y="${rowY + 13}" class="value">failed</text>`)
      if (r.cpuUs !== undefined) {
        const w = Math.max(1, barArea * r.cpuUs / maxCpu)
        parts.push(`<rect x="${right}" y="${rowY}" width="${w.toFixed(1)}" height="${barHeight}" fill="${fill}" fill-opacity="0.75"/>`)
        parts.push(`<text x="${(right + w + 4).toFixed(1)}" y="${rowY + 13}" class="value">${r.cpuUs.toFixed(2)} µs</text>`)
      } else parts.push(`<text x="${right}" y="${rowY + 13}" class="value">–</text>`)
      rowY += barHeight + gap
    }
    y = rowY + 8
    parts.push(`<line x1="20" x2="${width - 20}" y1="${y}" y2="${y}" class="rule"/>`)
  }
  const height = y + 20
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`,
    '<style>.title{font-size:18px;font-weight:600;fill:#222}.note{font-size:11px;fill:#666}.case{font-size:14px;font-weight:600;fill:#222}.axis{font-size:11px;fill:#555}.label{font-size:12px;fill:#333}.value{font-size:11px;fill:#333}.rule{stroke:#ddd}</style>',
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    ...parts,
    '</svg>',
    ''
  ].join('\n')
}

function main (args: string[]): number {
  let out: string | undefined
  let title = 'kafkats benchmarks'
  const inputs: Array<{ label: string, file: string }> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '--out') out = args[++i]
    else if (arg === '--title') title = args[++i]
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: node dist/bench/chart.js [label=]results.json … [--out chart.svg] [--title text]\n')
      return 0
    } else if (arg.startsWith('-')) {
      process.stderr.write(`unknown option ${arg}\n`)
      return 2
    } else {
      const eq = arg.indexOf('=')
      inputs.push(eq > 0 ? { label: arg.slice(0, eq), file: arg.slice(eq + 1) } : { label: path.basename(arg, '.json'), file: arg })
    }
  }
  if (inputs.length === 0) {
    process.stderr.write('usage: node dist/bench/chart.js [label=]results.json … [--out chart.svg] [--title text]\n')
    return 2
  }
  const svg = renderChart(readCases(inputs), title)
  if (out === undefined) process.stdout.write(svg)
  else fs.writeFileSync(out, svg)
  return 0
}

if (require.main === module) process.exitCode = main(process.argv.slice(2))

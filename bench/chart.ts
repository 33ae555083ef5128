/**
 * Turns the JSON rows the benchmarks write (`--json FILE` of bench/produce/run.ts and
 * bench/consume/run.ts) into one SVG chart: per case (benchmark, value size, codec), the
 * records/s and the CPU µs/record of every client, as horizontal bars. No dependency.
 * Its renderPanels draws the other benchmarks' charts too (bench/latency, bench/partitions, bench/groups, bench/many-clients).
 *
 *   node dist/bench/chart.js produce=bench/results/produce.json consume=bench/results/consume.json --out bench/results/chart.svg
 *
 * Each argument is `label=file` (the label names the benchmark in the panel titles) or a
 * bare file (labelled by its name). `--title TEXT` sets the heading.
 *
 * Its panel renderer (renderPanels) also draws the charts of bench/latency and
 * bench/partitions, whose run.js writes them with `--chart FILE`.
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

export function formatRate (n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : n >= 1e3 ? `${(n / 1e3).toFixed(0)} k/s` : `${n.toFixed(0)}/s`
}

/** One column of a panel chart: its heading, how a value reads, and what a row without one shows. */
export interface PanelColumn {
  name: string
  format: (value: number) => string
  /** Shown in place of the bar when a row has no value (default '–'). */
  missing?: string
  /** The bars' opacity (default 1). */
  opacity?: number
}

/** A panel: a heading and a row per client (or per client and case), one value per column. */
export interface Panel {
  title: string
  rows: Array<{ label: string, client: string, values: Array<number | undefined> }>
}

/**
 * An SVG document of panels, one under the other, each with a horizontal bar per row in
 * every column; each column's scale is shared by all panels, so bars compare across
 * panels too, and each client keeps its colour everywhere. The chart of every benchmark
 * (this file's, bench/latency's, bench/partitions's).
 */
export function renderPanels (title: string, note: string, columns: PanelColumn[], panels: Panel[]): string {
  const clients = [...new Set(panels.flatMap(p => p.rows.map(r => r.client)))]
  const colour = (client: string): string => PALETTE[clients.indexOf(client) % PALETTE.length]
  const labelWidth = Math.max(150, 8 + 7 * Math.max(0, ...panels.flatMap(p => p.rows.map(r => r.label.length))))
  const barArea = columns.length <= 2 ? (960 - 2 * 150 - 60) / 2 : 170
  const columnWidth = labelWidth + barArea + 60
  const width = Math.max(960, columns.length * columnWidth)
  const barHeight = 18
  const gap = 6
  const panelHead = 46
  const maxima = columns.map((_, c) => Math.max(Number.MIN_VALUE, ...panels.flatMap(p => p.rows.map(r => r.values[c] ?? 0))))
  const parts: string[] = []
  let y = 56
  parts.push(`<text x="20" y="30" class="title">${escape(title)}</text>`)
  parts.push(`<text x="20" y="48" class="note">${escape(note)}</text>`)
  for (const panel of panels) {
    const top = y + 10
    parts.push(`<text x="20" y="${top + 18}" class="case">${escape(panel.title)}</text>`)
    const lefts = columns.map((_, c) => labelWidth + c * columnWidth)
    columns.forEach((column, c) => parts.push(`<text x="${lefts[c]}" y="${top + 38}" class="axis">${escape(column.name)}</text>`))
    let rowY = top + panelHead
    for (const row of panel.rows) {
      const fill = colour(row.client)
      columns.forEach((column, c) => {
        const left = lefts[c]
        const value = row.values[c]
        parts.push(`<text x="${left - 8}" y="${rowY + 13}" class="label" text-anchor="end">${escape(row.label)}</text>`)
        if (value !== undefined && Number.isFinite(value)) {
          const w = Math.max(1, barArea * value / maxima[c])
          parts.push(`<rect x="${left}" y="${rowY}" width="${w.toFixed(1)}" height="${barHeight}" fill="${fill}"${column.opacity === undefined ? '' : ` fill-opacity="${column.opacity}"`}/>`)
          parts.push(`<text x="${(left + w + 4).toFixed(1)}" y="${rowY + 13}" class="value">${escape(column.format(value))}</text>`)
        } else parts.push(`<text x="${left}" y="${rowY + 13}" class="value">${escape(column.missing ?? '–')}</text>`)
      })
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

/** The produce/consume chart: one panel per case, records/s on the left, CPU µs/record on the right. */
export function renderChart (cases: Case[], title: string): string {
  return renderPanels(title, 'records/s: higher is better · CPU µs/record: the client process\'s user+system CPU per record, lower is better', [
    { name: 'records/s', format: formatRate, missing: 'failed' },
    { name: 'CPU µs/record', format: v => `${v.toFixed(2)} µs`, opacity: 0.75 }
  ], cases.map(c => ({ title: c.title, rows: c.rows.map(r => ({ label: r.client, client: r.client, values: [r.rate, r.cpuUs] })) })))
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

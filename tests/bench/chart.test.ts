// bench/chart.ts: the benchmarks' JSON rows become one SVG with a panel per case, bars per
// client on one scale per column (records/s, CPU µs/record).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { renderPanels } from '../../bench/chart'

const script = path.join(__dirname, '..', '..', 'bench', 'chart.js')

const rows = [
  { client: 'kafkats', size: 100, compression: 'none', records: 1_000_000, recordsPerSecond: 500_000, cpuSeconds: 1.5, notes: [] },
  { client: 'kafkajs', size: 100, compression: 'none', records: 1_000_000, recordsPerSecond: 100_000, cpuSeconds: 12, notes: [] },
  { client: 'kafkats', size: 1024, compression: 'lz4', records: 1_000_000, recordsPerSecond: 250_000, cpuSeconds: 3, notes: [] },
  { client: 'java', size: 1024, compression: 'lz4', records: 1_000_000, notes: ['failed'] }
]

test('the chart has a panel per case and bars scaled per column; rows without figures say so', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkats-chart-'))
  try {
    const json = path.join(dir, 'produce.json')
    fs.writeFileSync(json, JSON.stringify(rows))
    const out = path.join(dir, 'chart.svg')
    execFileSync(process.execPath, [script, `produce=${json}`, '--out', out, '--title', 'T <1>'])
    const svg = fs.readFileSync(out, 'utf8')
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    assert.match(svg, /<\/svg>\n$/)
    assert.match(svg, /T &lt;1&gt;/)
    assert.deepEqual([...svg.matchAll(/class="case">([^<]+)</g)].map(m => m[1]), ['produce, 100 B, none', 'produce, 1 KiB, lz4'])
    const widths = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="18" fill="(#[0-9a-f]+)"( fill-opacity="0.75")?\/>/g)].map(m => ({ w: Number(m[1]), cpu: m[3] !== undefined, fill: m[2] }))
    const rate = widths.filter(b => !b.cpu).map(b => b.w)
    const cpu = widths.filter(b => b.cpu).map(b => b.w)
    // records/s: 500k (full width), 100k (a fifth), 250k (half); CPU µs/record: 1.5, 12 (full), 3.
    assert.ok(Math.abs(rate[1] / rate[0] - 0.2) < 0.01 && Math.abs(rate[2] / rate[0] - 0.5) < 0.01, String(rate))
    assert.ok(Math.abs(cpu[0] / cpu[1] - 0.125) < 0.01 && Math.abs(cpu[2] / cpu[1] - 0.25) < 0.01, String(cpu))
    assert.match(svg, />500 k\/s</)
    assert.match(svg, />12\.00 µs</)
    assert.match(svg, />failed</)
    // One colour per client, the same in every panel.
    assert.equal(widths[0].fill, widths[4].fill)
    assert.notEqual(widths[0].fill, widths[2].fill)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('renderPanels: any number of columns, each on one scale across panels, one colour per client, a missing value says what the column says', () => {
  const svg = renderPanels('Latency', 'ms', [
    { name: 'p50', format: v => `${v} ms`, missing: 'failed' },
    { name: 'p99', format: v => `${v} ms` },
    { name: 'max', format: v => `${v} ms`, opacity: 0.75 }
  ], [
    { title: '1,000 records/s', rows: [{ label: 'kafkats', client: 'kafkats', values: [2, 10, 40] }, { label: 'franz', client: 'franz', values: [1, 5, undefined] }] },
    { title: '10,000 records/s', rows: [{ label: 'kafkats', client: 'kafkats', values: [4, 20, 80] }, { label: 'franz', client: 'franz', values: [undefined, 4, 20] }] }
  ])
  assert.deepEqual([...svg.matchAll(/class="case">([^<]+)</g)].map(m => m[1]), ['1,000 records/s', '10,000 records/s'])
  assert.deepEqual([...svg.matchAll(/class="axis">([^<]+)</g)].map(m => m[1]), ['p50', 'p99', 'max', 'p50', 'p99', 'max'])
  const bars = [...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="18" fill="(#[0-9a-f]+)"/g)].map(m => ({ x: Number(m[1]), w: Number(m[2]), fill: m[3] }))
  // kafkats 2, 10, 40; franz 1, 5; kafkats 4, 20, 80; franz 4, 20: each column scaled to its largest value in any panel.
  assert.equal(bars.length, 10)
  const column = (x: number): number[] => bars.filter(b => b.x === x).map(b => b.w)
  const [p50, p99, max] = [...new Set(bars.map(b => b.x))].sort((a, b) => a - b).map(column)
  assert.ok(Math.abs(p50[0] / p50[2] - 0.5) < 0.01 && Math.abs(p50[1] / p50[2] - 0.25) < 0.01, String(p50))
  assert.ok(Math.abs(p99[1] / p99[2] - 0.25) < 0.01 && Math.abs(p99[3] / p99[2] - 0.2) < 0.01, String(p99))
  assert.ok(Math.abs(max[0] / max[1] - 0.5) < 0.01 && Math.abs(max[2] / max[1] - 0.25) < 0.01, String(max))
  assert.equal(new Set(bars.filter((_, i) => [0, 1, 2, 5, 6, 7].includes(i)).map(b => b.fill)).size, 1)
  assert.notEqual(bars[0].fill, bars[3].fill)
  assert.match(svg, />failed</)
  assert.match(svg, />–</)
  assert.match(svg, />80 ms</)
})

/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: it throws on
 * anything a Prometheus server would refuse or misread — a sample before its TYPE, a
 * family split in two, a duplicate series, a bad name, label or escape, histogram buckets
 * that are not cumulative or whose +Inf bucket is not the count.
 */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: string
  help: string
  samples: Sample[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])

export function parsePrometheus (text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed')
  const families = new Map<string, Family>()
  const series = new Set<string>()
  let current: Family | undefined
  const lines = text.slice(0, -1).split('\n')
  lines.forEach((line, index) => {
    const where = `line ${index + 1} (${JSON.stringify(line)})`
    if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) {
      const [, kind, name, ...rest] = line.split(' ')
      if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name`)
      let family = families.get(name)
      if (family !== undefined && family !== current) throw new Error(`${where}: family ${name} appears twice`)
      if (family === undefined) families.set(name, family = { name, type: 'untyped', help: '', samples: [] })
      current = family
      if (kind === 'TYPE') {
        if (!TYPES.has(rest.join(' '))) throw new Error(`${where}: unknown type`)
        if (family.samples.length > 0) throw new Error(`${where}: TYPE after samples`)
        family.type = rest.join(' ')
      } else {
        family.help = unescapeHelp(rest.join(' '), where)
      }
      return
    }
    if (line.startsWith('#') || line === '') throw new Error(`${where}: unexpected line`)
    const sample = parseSample(line, where)
    const family = current
    if (family === undefined) throw new Error(`${where}: a sample before any TYPE`)
    const suffixes = family.type === 'histogram' ? ['_bucket', '_sum', '_count'] : family.type === 'summary' ? ['', '_sum', '_count'] : ['']
    if (!suffixes.some(s => sample.name === family.name + s)) throw new Error(`${where}: sample ${sample.name} inside family ${family.name}`)
    if (family.type === 'histogram' && sample.name.endsWith('_bucket') && sample.labels.le === undefined) throw new Error(`${where}: a bucket without le`)
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`
    if (series.has(key)) throw new Error(`${where}: duplicate series`)
    series.add(key)
    family.samples.push(sample)
  })
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family)
  return families
}

function parseSample (line: string, where: string): Sample {
  const nameEnd = line.search(/[{ ]/)
  if (nameEnd <= 0) throw new Error(`${where}: no metric name`)
  const name = line.slice(0, nameEnd)
  if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name`)
  const labels: Record<string, string> = {}
  let i = nameEnd
  if (line[i] === '{') {
    i++
    while (line[i] !== '}') {
      const eq = line.indexOf('=', i)
      if (eq < 0) throw new Error(`${where}: a label without =`)
      const label = line.slice(i, eq)
      if (!LABEL_NAME.test(label)) throw new Error(`${where}: bad label name ${JSON.stringify(label)}`)
      if (line[eq + 1] !== '"') throw new Error(`${where}: a label value must be quoted`)
      let value = ''
      let j = eq + 2
      for (; ; j++) {
        const ch = line[j]
        if (ch === undefined) throw new Error(`${where}: unterminated label value`)
        if (ch === '"') break
        if (ch === '\\') {
          const next = line[++j]
          if (next === 'n') value += '\n'
          else if (next === '\\' || next === '"') value += next
          else throw new Error(`${where}: bad escape \\${next ?? ''}`)
        } else {
          value += ch
        }
      }
      if (label in labels) throw new Error(`${where}: label ${label} twice`)
      labels[label] = value
      i = j + 1
      if (line[i] === ',') i++
      else if (line[i] !== '}') throw new Error(`${where}: expected , or } after a label`)
    }
    i++
  }
  if (line[i] !== ' ') throw new Error(`${where}: expected a space before the value`)
  const parts = line.slice(i + 1).split(' ')
  if (parts.length > 2) throw new Error(`${where}: too many fields`)
  return { name, labels, value: parseValue(parts[0], where) }
}

function parseValue (text: string, where: string): number {
  if (text === '+Inf') return Infinity
  if (text === '-Inf') return -Infinity
  if (text === 'NaN') return NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value ${JSON.stringify(text)}`)
  return Number(text)
}

function unescapeHelp (text: string, where: string): string {
  return text.replace(/\\(.?)/g, (_, next: string) => {
    if (next === 'n') return '\n'
    if (next === '\\') return '\\'
    throw new Error(`${where}: bad escape in HELP`)
  })
}

function checkHistogram (family: Family): void {
  const bySeries = new Map<string, { buckets: Array<[number, number]>, count?: number, sum?: number }>()
  for (const s of family.samples) {
    const { le, ...rest } = s.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    const entry = bySeries.get(key) ?? { buckets: [] }
    bySeries.set(key, entry)
    if (s.name.endsWith('_bucket')) entry.buckets.push([parseValue(le, family.name), s.value])
    else if (s.name.endsWith('_count')) entry.count = s.value
    else entry.sum = s.value
  }
  for (const [key, h] of bySeries) {
    const what = `histogram ${family.name}${key}`
    if (h.count === undefined || h.sum === undefined) throw new Error(`${what}: _count or _sum missing`)
    for (let i = 1; i < h.buckets.length; i++) {
      if (!(h.buckets[i][0] > h.buckets[i - 1][0])) throw new Error(`${what}: le not increasing`)
      if (h.buckets[i][1] < h.buckets[i - 1][1]) throw new Error(`${what}: buckets not cumulative`)
    }
    const last = h.buckets[h.buckets.length - 1]
    if (last === undefined || last[0] !== Infinity) throw new Error(`${what}: no +Inf bucket`)
    if (last[1] !== h.count) throw new Error(`${what}: the +Inf bucket (${last[1]}) is not the count (${h.count})`)
  }
}

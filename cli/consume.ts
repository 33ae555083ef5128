/** `kafkats consume`: records to stdout, from offsets, a timestamp or a group, as values, JSON lines or a kcat-like format. */
import { throwFirstError, type Client, type ConsumerBatch, type KafkaRecord } from '../index'
import { callOptions, connectionHelp, int, list, newClient, parse, Progress, str, toJson, UsageError, write, type Values } from './common'

export const consumeHelp = `Usage: kafkats consume -t topic [options]

Writes records to stdout, one per line.

  -t, --topic name        the topic (repeatable with --group)
  -p, --partition n       only these partitions (repeatable; not with --group)
  -o, --offset where      beginning, end (default), an offset n, -n (n before the end),
                          or @timestamp (milliseconds or an ISO date); with --group: where a
                          partition without a committed offset starts (beginning or end)
  -g, --group id          consume as a member of this group (commits what was written)
  -c, --count n           exit after n records
  -e, --exit              exit once every partition is read up to its end as of the start
      --format f          value (default), json ({"topic","partition","offset","timestamp",
                          "key","value","headers"}), or use -f
  -f, --fmt string        kcat-like: %t topic, %p partition, %o offset, %T timestamp, %k key,
                          %s value, %K key bytes, %S value bytes, %h headers (k=v,…), %%;
                          \\n \\t \\\\ escapes (add \\n yourself), e.g. -f '%p:%o %k=%s\\n'
      --read-committed    skip records of aborted transactions
      --progress          a progress line even when stderr is not a terminal

${connectionHelp}`

type Formatter = (topic: string, partition: number, record: KafkaRecord) => string

const text = (b: Buffer | null): string => b === null ? '' : b.toString('utf8')

function headersText (record: KafkaRecord): string {
  return record.headers.map(h => `${h.key}=${text(h.value)}`).join(',')
}

/** A kcat-like -f format string, compiled once into a function of the record. */
export function compileFormat (format: string): Formatter {
  const parts: Array<string | ((t: string, p: number, r: KafkaRecord) => string)> = []
  let literal = ''
  for (let i = 0; i < format.length; i++) {
    const c = format[i]
    if (c === '\\' && i + 1 < format.length) {
      const n = format[++i]
      literal += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n === '0' ? '\0' : n
      continue
    }
    if (c !== '%') { literal += c; continue }
    const token = format[++i]
    if (token === '%') { literal += '%'; continue }
    const field: ((t: string, p: number, r: KafkaRecord) => string) | undefined = {
      t: (t: string) => t,
      p: (_t: string, p: number) => String(p),
      o: (_t: string, _p: number, r: KafkaRecord) => String(r.offset),
      T: (_t: string, _p: number, r: KafkaRecord) => String(r.timestamp),
      k: (_t: string, _p: number, r: KafkaRecord) => text(r.key),
      s: (_t: string, _p: number, r: KafkaRecord) => text(r.value),
      K: (_t: string, _p: number, r: KafkaRecord) => String(r.key?.length ?? -1),
      S: (_t: string, _p: number, r: KafkaRecord) => String(r.value?.length ?? -1),
      h: (_t: string, _p: number, r: KafkaRecord) => headersText(r)
    }[token]
    if (field === undefined) throw new UsageError(`-f: unknown token %${token ?? ''} (known: %t %p %o %T %k %s %K %S %h %%)`)
    if (literal !== '') parts.push(literal)
    literal = ''
    parts.push(field)
  }
  if (literal !== '') parts.push(literal)
  return (t, p, r) => {
    let out = ''
    for (const part of parts) out += typeof part === 'string' ? part : part(t, p, r)
    return out
  }
}

function formatter (values: Values): Formatter {
  const fmt = str(values, 'fmt')
  if (fmt !== undefined) return compileFormat(fmt)
  const format = str(values, 'format') ?? 'value'
  if (format === 'value') return (_t, _p, r) => `${text(r.value)}\n`
  if (format === 'json') {
    return (t, p, r) => {
      const headers: Record<string, string | string[]> = {}
      for (const h of r.headers) {
        const v = text(h.value)
        const seen = headers[h.key]
        headers[h.key] = seen === undefined ? v : Array.isArray(seen) ? [...seen, v] : [seen, v]
      }
      return `${toJson({ topic: t, partition: p, offset: r.offset, timestamp: r.timestamp, key: r.key === null ? null : text(r.key), value: r.value === null ? null : text(r.value), headers })}\n`
    }
  }
  throw new UsageError(`--format: expected value or json (or -f for a format string), got ${JSON.stringify(format)}`)
}

type Start = 'earliest' | 'latest' | { offset: bigint } | { fromEnd: bigint } | { timestamp: number }

function parseOffset (where: string): Start {
  if (where === 'beginning' || where === 'earliest') return 'earliest'
  if (where === 'end' || where === 'latest') return 'latest'
  if (/^\d+$/.test(where)) return { offset: BigInt(where) }
  if (/^-\d+$/.test(where)) return { fromEnd: BigInt(where.slice(1)) }
  if (where.startsWith('@')) {
    const t = where.slice(1)
    const ms = /^\d+$/.test(t) ? Number(t) : Date.parse(t)
    if (!Number.isFinite(ms)) throw new UsageError(`--offset ${where}: expected @milliseconds or @ISO-date`)
    return { timestamp: ms }
  }
  throw new UsageError(`--offset: expected beginning, end, n, -n or @timestamp, got ${JSON.stringify(where)}`)
}

export async function consume (args: string[]): Promise<number> {
  const { values } = parse(args, {
    topic: { type: 'string', short: 't', multiple: true },
    partition: { type: 'string', short: 'p', multiple: true },
    offset: { type: 'string', short: 'o' },
    group: { type: 'string', short: 'g' },
    count: { type: 'string', short: 'c' },
    exit: { type: 'boolean', short: 'e' },
    format: { type: 'string' },
    fmt: { type: 'string', short: 'f' },
    'read-committed': { type: 'boolean' },
    progress: { type: 'boolean' }
  })
  if (values.help === true) { process.stdout.write(consumeHelp); return 0 }
  const topics = list(values, 'topic')
  if (topics.length === 0) throw new UsageError('consume needs --topic')
  const group = str(values, 'group')
  if (group === undefined && topics.length > 1) throw new UsageError('several --topic need --group (a direct consumer reads one topic)')
  const partitionsWanted = list(values, 'partition').map(p => {
    if (!/^\d+$/.test(p)) throw new UsageError(`--partition: expected an integer ≥ 0, got ${JSON.stringify(p)}`)
    return Number(p)
  })
  if (group !== undefined && partitionsWanted.length > 0) throw new UsageError('--partition does not go with --group (the group assigns partitions)')
  const start = parseOffset(str(values, 'offset') ?? 'end')
  if (group !== undefined && start !== 'earliest' && start !== 'latest') throw new UsageError('with --group, --offset is beginning or end (where partitions without a committed offset start); reset a group\'s offsets with `kafkats groups reset-offsets`')
  const count = int(values, 'count', 1)
  const format = formatter(values)

  const client = newClient(values)
  const call = callOptions(values)
  let records = 0
  let bytes = 0
  const progress = new Progress('consumed', () => ({ records, bytes }), values.quiet !== true, values.progress === true)
  try {
    const described = throwFirstError(await client.admin.describeTopics(topics, call))
    const all = described.flatMap(t => t.partitions.map(p => ({ topic: t.name, partition: p.partition })))
    for (const p of partitionsWanted) {
      if (!all.some(a => a.partition === p)) throw new UsageError(`--partition ${p}: ${topics[0]} has partitions 0–${all.length - 1}`)
    }
    const partitions = partitionsWanted.length > 0 ? all.filter(a => partitionsWanted.includes(a.partition)) : all
    const key = (t: string, p: number): string => `${t}\0${p}`

    // Direct: every partition's start as an offset, so --exit knows where each one begins.
    const starts = new Map<string, bigint>()
    if (group === undefined) {
      const resolved = await resolveStarts(client, partitions, start, call)
      for (const [k, v] of resolved) starts.set(k, v)
    }
    // --exit: where each partition ends now; those already there are done.
    const remaining = new Map<string, bigint>()
    if (values.exit === true) {
      const ends = await client.admin.listOffsets(partitions.map(p => ({ ...p, spec: 'latest' as const })), { ...call, isolation: values['read-committed'] === true ? 'read_committed' : 'read_uncommitted' })
      let from = starts
      if (group !== undefined) {
        const [committed] = await client.admin.fetchOffsets([{ groupId: group, partitions }], call)
        const reset = await client.admin.listOffsets(partitions.map(p => ({ ...p, spec: start as 'earliest' | 'latest' })), call)
        from = new Map(reset.map(r => [key(r.topic, r.partition), r.offset]))
        for (const c of committed.offsets) if (c.offset >= 0n) from.set(key(c.topic, c.partition), c.offset)
      }
      for (const end of ends) {
        const k = key(end.topic, end.partition)
        if ((from.get(k) ?? 0n) < end.offset) remaining.set(k, end.offset)
      }
      if (remaining.size === 0) return 0
    }

    const isolation = values['read-committed'] === true ? 'read_committed' as const : 'read_uncommitted' as const
    const consumer = group !== undefined
      ? client.consumer({ groupId: group, topics, offsetReset: start as 'earliest' | 'latest', isolation })
      : client.consumer({ assign: partitions.map(p => ({ ...p, offset: starts.get(key(p.topic, p.partition))! })), isolation })
    // Ctrl-C / SIGTERM: no batch is handed out any more; what was written is committed on close.
    const shutdown = new AbortController()
    const stop = (): void => { shutdown.abort() }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    try {
      for (;;) {
        let handed
        try {
          handed = await consumer.nextBatch(shutdown.signal)
        } catch (error) {
          if (shutdown.signal.aborted) break
          throw error
        }
        if (handed === undefined) break
        const batch: ConsumerBatch = handed.batch
        let out = ''
        let n = batch.records.length
        if (count !== undefined && records + n > count) n = count - records
        for (let i = 0; i < n; i++) {
          const record = batch.records[i]
          out += format(batch.topic, batch.partition, record)
          bytes += (record.value?.length ?? 0) + (record.key?.length ?? 0)
        }
        records += n
        await write(out)
        // Processed (and committed by a group on close) is what was written: with -c, up to the first record not written.
        handed.finish(n < batch.records.length ? batch.records[n].offset : batch.nextOffset)
        const k = key(batch.topic, batch.partition)
        const end = remaining.get(k)
        if (end !== undefined && batch.nextOffset >= end) remaining.delete(k)
        if ((count !== undefined && records >= count) || (values.exit === true && remaining.size === 0)) break
      }
    } finally {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      await consumer.close()
    }
  } finally {
    await client.close()
    progress.done(values.quiet !== true)
  }
  return 0
}

async function resolveStarts (client: Client, partitions: Array<{ topic: string, partition: number }>, start: Start, call: { timeoutMs: number, signal: AbortSignal }): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>()
  const key = (t: string, p: number): string => `${t}\0${p}`
  if (typeof start === 'object' && 'offset' in start) {
    for (const p of partitions) out.set(key(p.topic, p.partition), start.offset)
    return out
  }
  const spec = start === 'earliest' || start === 'latest' ? start : 'timestamp' in start ? { timestamp: start.timestamp } : 'latest' as const
  const listed = await client.admin.listOffsets(partitions.map(p => ({ ...p, spec })), call)
  let earliest: Map<string, bigint> | undefined
  if (typeof start === 'object' && 'fromEnd' in start) {
    const first = await client.admin.listOffsets(partitions.map(p => ({ ...p, spec: 'earliest' as const })), call)
    earliest = new Map(first.map(f => [key(f.topic, f.partition), f.offset]))
  }
  const ends = typeof start === 'object' && 'timestamp' in start ? await client.admin.listOffsets(partitions.map(p => ({ ...p, spec: 'latest' as const })), call) : undefined
  for (const l of listed) {
    if (l.error !== undefined) throw l.error
    const k = key(l.topic, l.partition)
    let offset = l.offset
    if (earliest !== undefined && typeof start === 'object' && 'fromEnd' in start) {
      offset = offset - start.fromEnd
      if (offset < earliest.get(k)!) offset = earliest.get(k)!
    }
    // No record at or after the timestamp: start at the end.
    if (offset < 0n) offset = ends?.find(e => e.topic === l.topic && e.partition === l.partition)?.offset ?? 0n
    out.set(k, offset)
  }
  return out
}

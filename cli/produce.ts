/** `kafkats produce`: records from stdin, one per line (plain or JSON), through the producer. */
import { createInterface } from 'node:readline'
import type { CompressionCodec, ProducerRecord } from '../index'
import { connectionHelp, int, list, newClient, pairs, parse, Progress, str, timeoutMs, UsageError, type Values } from './common'

export const produceHelp = `Usage: kafkats produce -t topic [options] < records

Reads records from stdin, one per line, and produces them (idempotent, acks=all).

  -t, --topic name            the topic (required)
  -p, --partition n           every record to this partition (default: by key, else sticky)
  -k, --key key               every record with this key
  -K, --key-delimiter d       lines are key<d>value (kcat's -K)
  -H, --header k=v            a header on every record (repeatable)
      --format lines|json     lines (default): each line is a value; json: each line is
                              {"value", "key"?, "headers"? {k: v}, "partition"?, "timestamp"?};
                              a value that is not a string is written as JSON, null is a tombstone
  -z, --compression c         none (default), gzip, snappy, lz4, zstd
      --acks all|1|0          (default all)
      --linger-ms n           (default 5)
      --progress              a progress line even when stderr is not a terminal

Prints a summary on stderr (records, bytes, rate) unless --quiet; exits 1 if any record failed.

${connectionHelp}`

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

interface JsonLine { value?: unknown, key?: unknown, headers?: unknown, partition?: unknown, timestamp?: unknown }

function fromJson (line: string, lineNo: number, topic: string): ProducerRecord {
  let parsed: JsonLine
  try {
    parsed = JSON.parse(line)
  } catch (error) {
    throw new UsageError(`line ${lineNo}: not JSON (${(error as Error).message}); use --format lines for plain text`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`line ${lineNo}: expected a JSON object with "value", got ${line.slice(0, 60)}`)
  if (!('value' in parsed)) throw new UsageError(`line ${lineNo}: the object has no "value" (null writes a tombstone)`)
  const text = (v: unknown): string | null => v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v)
  const record: ProducerRecord = { topic, value: text(parsed.value), key: text(parsed.key) }
  if (parsed.headers !== undefined && parsed.headers !== null) {
    if (typeof parsed.headers !== 'object' || Array.isArray(parsed.headers)) throw new UsageError(`line ${lineNo}: "headers" must be an object of strings`)
    record.headers = Object.fromEntries(Object.entries(parsed.headers).map(([k, v]) => [k, text(v)]))
  }
  if (parsed.partition !== undefined) {
    if (!Number.isInteger(parsed.partition) || (parsed.partition as number) < 0) throw new UsageError(`line ${lineNo}: "partition" must be an integer ≥ 0`)
    record.partition = parsed.partition as number
  }
  if (parsed.timestamp !== undefined) {
    if (!Number.isInteger(parsed.timestamp)) throw new UsageError(`line ${lineNo}: "timestamp" must be milliseconds since the epoch`)
    record.timestamp = parsed.timestamp as number
  }
  return record
}

export async function produce (args: string[]): Promise<number> {
  const { values } = parse(args, {
    topic: { type: 'string', short: 't' },
    partition: { type: 'string', short: 'p' },
    key: { type: 'string', short: 'k' },
    'key-delimiter': { type: 'string', short: 'K' },
    header: { type: 'string', short: 'H', multiple: true },
    format: { type: 'string' },
    compression: { type: 'string', short: 'z' },
    acks: { type: 'string' },
    'linger-ms': { type: 'string' },
    progress: { type: 'boolean' }
  })
  if (values.help === true) { process.stdout.write(produceHelp); return 0 }
  return await run(values)
}

async function run (values: Values): Promise<number> {
  const topic = str(values, 'topic')
  if (topic === undefined) throw new UsageError('produce needs --topic')
  const format = str(values, 'format') ?? 'lines'
  if (format !== 'lines' && format !== 'json') throw new UsageError(`--format: expected lines or json, got ${JSON.stringify(format)}`)
  const compression = str(values, 'compression') ?? 'none'
  if (!CODECS.includes(compression)) throw new UsageError(`--compression: expected one of ${CODECS.join(', ')}, got ${JSON.stringify(compression)}`)
  const acksText = str(values, 'acks') ?? 'all'
  if (!['all', '1', '0', '-1'].includes(acksText)) throw new UsageError(`--acks: expected all, 1 or 0, got ${JSON.stringify(acksText)}`)
  const acks = acksText === 'all' || acksText === '-1' ? 'all' as const : Number(acksText) as 0 | 1
  const partition = int(values, 'partition')
  const fixedKey = str(values, 'key')
  const keyDelimiter = str(values, 'key-delimiter')
  const headers = list(values, 'header').length > 0 ? pairs(values, 'header') : undefined

  const client = newClient(values)
  const producer = client.producer({ acks, compression: compression as CompressionCodec, lingerMs: int(values, 'linger-ms') ?? 5, metadataWaitMs: timeoutMs(values) })
  let records = 0
  let bytes = 0
  let failed = 0
  let firstError: Error | undefined
  const progress = new Progress('produced', () => ({ records, bytes }), values.quiet !== true, values.progress === true)
  const onDone = (error: Error | null): void => {
    if (error === null) { records++; return }
    failed++
    firstError ??= error
  }
  let lineNo = 0
  try {
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
    for await (const line of lines) {
      lineNo++
      if (firstError !== undefined) break
      if (line === '' && format === 'json') continue
      let record: ProducerRecord
      if (format === 'json') record = fromJson(line, lineNo, topic)
      else if (keyDelimiter !== undefined && line.includes(keyDelimiter)) {
        const i = line.indexOf(keyDelimiter)
        record = { topic, key: line.slice(0, i), value: line.slice(i + keyDelimiter.length) }
      } else record = { topic, value: line }
      if (fixedKey !== undefined) record.key = fixedKey
      if (partition !== undefined && record.partition === undefined) record.partition = partition
      if (headers !== undefined) record.headers = { ...headers, ...(record.headers as Record<string, string> | undefined) }
      bytes += Buffer.byteLength(line)
      while (!producer.produce(record, onDone)) {
        // Refused: full (wait for room and try again) or failed for good (the callback has it).
        if (!producer.full || firstError !== undefined) break
        await producer.waitForSpace()
      }
    }
    await producer.flush()
  } finally {
    await producer.close().catch(() => {})
    await client.close()
    progress.done(values.quiet !== true)
  }
  if (firstError !== undefined) {
    process.stderr.write(`kafkats produce: ${failed} record${failed === 1 ? '' : 's'} failed; the first: ${describe(firstError)}\n`)
    return 1
  }
  return 0
}

export function describe (error: Error): string {
  const e = error as Error & { code?: number, type?: string }
  if ((e.cause as Error | undefined)?.name === 'TimeoutError') return `no answer within --timeout-ms (${e.message}); are the brokers reachable?`
  const suffix = e.type !== undefined && !e.message.includes(e.type) ? ` (${e.type}, code ${e.code})` : ''
  return `${e.message}${suffix}`
}

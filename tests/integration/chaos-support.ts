// Helpers for the chaos tests that run against a real three-node cluster: a seeded
// random source (so a failing run can be described by its seed), reading a partition
// from start to end, leader and ISR queries, a timeline of what the chaos did, and a
// timeout that turns a hang into a failure with a description of what was stuck.
import type { Client } from '../../client/client'
import type { KafkaRecord } from '../../protocol/record-batch'
import { SeededRandom } from '../support/random'
import { sleep } from '../support/wait'

/** An integer from the environment, or `fallback` when unset; anything else is an error. */
export function envInt (name: string, fallback: number): number {
  const text = process.env[name]
  if (text === undefined || text.trim() === '') return fallback
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${text}"`)
  return value
}

/** A seeded source of numbers in [0, 1), to pick keys and timings reproducibly. */
export function seededRandom (seed: number): () => number {
  const random = new SeededRandom(seed)
  return () => random.next()
}


/**
 * Calls `onRecord` for every record of the partition, from offset 0 to the end offset
 * ListOffsets gives now (the high watermark). Returns that end and how many records came.
 */
export async function forEachLogRecord (client: Client, topic: string, partition: number, onRecord: (record: KafkaRecord) => void): Promise<{ end: bigint, count: number }> {
  const { offset: end } = await client.listOffsets({ topic, partition, spec: 'latest' })
  let offset = 0n
  let count = 0
  while (offset < end) {
    const fetched = await client.fetchRaw({ topic, partition, offset, maxBytes: 8 << 20 })
    if (fetched.nextOffset <= offset) throw new Error(`Reading ${topic}-${partition}: no progress at offset ${offset} (end ${end})`)
    for (const record of fetched.records) {
      if (record.offset >= end) break
      onRecord(record)
      count++
    }
    offset = fetched.nextOffset
  }
  return { end, count }
}

/** Fresh metadata: which partitions of `topic` each node leads. */
export async function partitionsByLeader (client: Client, topic: string): Promise<Map<number, number[]>> {
  await client.metadata.refresh([topic])
  const byLeader = new Map<number, number[]>()
  for (const p of client.metadata.topic(topic)?.partitions ?? []) {
    if (p === undefined || p.leaderId < 0) continue
    let led = byLeader.get(p.leaderId)
    if (led === undefined) byLeader.set(p.leaderId, led = [])
    led.push(p.partition)
  }
  return byLeader
}

/** Waits until every partition of `topic` has `replicas` in-sync replicas; false on timeout. */
export async function waitForFullIsr (client: Client, topic: string, replicas: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await client.metadata.refresh([topic])
      const partitions = client.metadata.topic(topic)?.partitions ?? []
      if (partitions.length > 0 && partitions.every(p => p !== undefined && p.leaderId >= 0 && p.isr.length >= replicas)) return true
    } catch {}
    if (Date.now() >= deadline) return false
    await sleep(500)
  }
}

/** What happened when, relative to the start, for the summary and failure reports. */
export class Timeline {
  readonly #start: number
  readonly #lines: string[] = []

  constructor (start = Date.now()) {
    this.#start = start
  }

  get elapsedMs (): number {
    return Date.now() - this.#start
  }

  note (text: string): void {
    this.#lines.push(`+${(this.elapsedMs / 1000).toFixed(1)}s ${text}`)
  }

  toString (): string {
    return this.#lines.join('\n')
  }
}

/** Resolves like `promise`, or fails after `ms` with `describe()`'s account of what is stuck. */
export async function withTimeout<T> (promise: Promise<T>, ms: number, describe: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after ${Math.round(ms / 1000)} s: ${describe()}`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

// Helpers for the direct-consumption tests against a real broker: taking batches from a
// consumer with a deadline, waiting for a condition, and writing a partition with the
// Java client's transactional producer (tests/tools/TransactionalWriter.java).
import { execFile, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { AbortedError } from '../../client/errors'
import type { Consumer, HandedBatch } from '../../consumer/consumer'
import type { KafkaRecord } from '../../protocol/record-batch'
import { ensureKafkaJars, kafkaClasspath, repoRoot } from '../broker/kafka'



/** The next batch the consumer hands out, or undefined if none comes within `timeoutMs`. */
export async function takeBatch (consumer: Consumer, timeoutMs: number): Promise<HandedBatch | undefined> {
  try {
    return await consumer.nextBatch(AbortSignal.timeout(timeoutMs))
  } catch (error) {
    if (error instanceof AbortedError) return undefined
    throw error
  }
}

/** Like takeBatch, but a missing batch is a failure. */
export async function mustTakeBatch (consumer: Consumer, timeoutMs = 15_000): Promise<HandedBatch> {
  const handed = await takeBatch(consumer, timeoutMs)
  if (handed === undefined) throw new Error(`no batch within ${timeoutMs} ms`)
  return handed
}

export const offsetsOf = (records: KafkaRecord[]): bigint[] => records.map(r => r.offset)
export const valuesOf = (records: KafkaRecord[]): string[] => records.map(r => r.value?.toString() ?? '<null>')

/** Whether the records' offsets run from `first` with no gap (and there is at least one). */
export function contiguousFrom (records: KafkaRecord[], first: bigint): boolean {
  return records.length > 0 && records.every((r, i) => r.offset === first + BigInt(i))
}

// ---------------------------------------------------------------------------------------
// Java tools compiled at test time against the broker jars

function exec (command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${command} ${args.slice(0, 4).join(' ')} … failed: ${error.message}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

/** Compiles tests/tools/<name>.java into a temp dir; returns the dir and a cleanup. */
export async function compileJavaTool (name: string): Promise<{ classes: string, remove: () => void }> {
  await ensureKafkaJars()
  const classes = fs.mkdtempSync(path.join(os.tmpdir(), `kafkats-${name.toLowerCase()}-`))
  await exec('javac', ['-nowarn', '-d', classes, '-cp', kafkaClasspath(), path.join(repoRoot(), 'tests', 'tools', `${name}.java`)])
  return { classes, remove: () => fs.rmSync(classes, { recursive: true, force: true }) }
}

export interface WrittenRecord {
  offset: bigint
  status: 'plain' | 'committed' | 'aborted'
  value: string
}

/**
 * Runs TransactionalWriter with the given steps (see the .java file). `onHold` runs at each
 * `hold` step, while the writer waits (e.g. with a transaction open). Resolves with every
 * record written, in offset order.
 */
export async function writeTransactionally (classes: string, options: {
  bootstrap: string[]
  topic: string
  partition: number
  transactionalIdPrefix: string
  steps: string[]
  onHold?: (written: WrittenRecord[]) => Promise<void>
}): Promise<WrittenRecord[]> {
  const args = ['-cp', kafkaClasspath(classes), 'TransactionalWriter', options.bootstrap.join(','), options.topic, String(options.partition), options.transactionalIdPrefix, ...options.steps]
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] })
  const written: WrittenRecord[] = []
  let output = ''
  let failure: Error | undefined
  let pending = ''
  let holds = Promise.resolve()
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString()
    output += text
    const lines = (pending + text).split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const wrote = /^WROTE (\d+) (plain|committed|aborted) (\S+)$/.exec(line)
      if (wrote !== null) written.push({ offset: BigInt(wrote[1]), status: wrote[2] as WrittenRecord['status'], value: wrote[3] })
      if (line === 'HOLDING') {
        const snapshot = [...written]
        holds = holds.then(async () => {
          try {
            await options.onHold?.(snapshot)
          } catch (error) {
            failure ??= error as Error
          }
          child.stdin.write('\n')
        })
      }
    }
  })
  const code = await new Promise<number | null>(resolve => child.once('exit', resolve))
  await holds
  if (failure !== undefined) throw failure
  if (code !== 0 || !output.includes('DONE')) throw new Error(`TransactionalWriter exited with ${String(code)}:\n${output.slice(-4000)}`)
  return written.sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0))
}

// ---------------------------------------------------------------------------------------
// Sockets left open

interface SocketLike { remotePort?: number, destroyed?: boolean, destroy?: () => void }

/** The process's open TCP sockets (an undocumented but long-standing Node API). */
export function openSockets (): SocketLike[] {
  const handles = (process as unknown as { _getActiveHandles: () => unknown[] })._getActiveHandles()
  return (handles as SocketLike[]).filter(h => typeof h?.remotePort === 'number' && h.destroyed !== true)
}

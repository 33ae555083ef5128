/**
 * What the many-clients benchmark's Node runners share (see run.ts): the timeline
 * (runManyClients) and what is measured of the process at rest (idleSnapshot). A runner only
 * says how to make one producer and one consumer of its client; the .mjs runner of kafkajs
 * loads this module, compiled, through ../common/runner.mjs's setup().
 */
import * as fs from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { reportResult, runtime, type BaseRunnerConfig } from '../common/runner'

export { readConfigArgument, reportResult, runMain, runtime } from '../common/runner'

export interface ManyClientsConfig extends BaseRunnerConfig {
  producers: number
  consumers: number
  /** Consumer i is the only member of group `${groupId}-${i}`, reading the topic from the start. */
  groupId: string
  /** Records each producer sends in the burst (each consumer receives them all). */
  burst: number
  /** The window over which idle CPU is measured, in each phase. */
  idleSeconds: number
  /** How long to wait for every consumer to have every record. */
  boundSeconds: number
}

/**
 * The process at one point of the run. The peers' runners (franz-go's bench/franz/manyclients.go,
 * ManyClientsBench.java) report the same shape with their own runtime's figures, as said per field.
 */
export interface ProcessSnapshot {
  /** process.memoryUsage() after a full collection, in bytes (Go: VmRSS, HeapAlloc after runtime.GC(), HeapSys; Java: VmRSS, total - free after System.gc(), total). */
  rssBytes: number
  heapUsedBytes: number
  heapTotalBytes: number
  /** Node only. */
  externalBytes?: number
  arrayBuffersBytes?: number
  /**
   * process.getActiveResourcesInfo() by type: what keeps the event loop alive (unref'd
   * timers are not in it). Go: { goroutines, 'OS threads' }; Java: { threads (live Java threads), 'OS threads' }.
   */
  resources: Record<string, number>
  /** Open socket descriptors (/proc/self/fd). */
  sockets: number
}

/** A snapshot of the process at rest, then what it did over an idle window. */
export interface IdleSnapshot extends ProcessSnapshot {
  phase: string
  /** User + system CPU over the window, in percent of one core. */
  idleCpuPercent: number
  /** performance.eventLoopUtilization() over the window (Node only: Go and the JVM have no event loop). */
  eventLoopUtilization?: number
}

export interface ManyClientsResult {
  unavailable?: string
  /** Before any client: the baseline the phases compare with. */
  before: ProcessSnapshot
  phases: IdleSnapshot[]
  /** From creating the first client to every consumer having the first record of every producer. */
  connectSeconds: number | null
  /** From the burst's first send to every consumer having every record. */
  burstSeconds: number | null
  problems: string[]
  settings: string
  runtime: string
}

export interface BenchProducer {
  /** Sends `count` records to the topic and resolves once they are acknowledged. */
  send: (count: number) => Promise<void>
  close: () => Promise<void>
}

export interface BenchConsumer {
  /** Starts consuming; every record received is counted with `received`. */
  start: () => Promise<void> | void
  close: () => Promise<void>
}

export interface ClientMaker {
  producer: (index: number) => BenchProducer
  consumer: (index: number, received: (records: number) => void) => BenchConsumer
}

/** How long the process rests before each snapshot, so the last round trips and timers of the phase before are over. */
const SETTLE_MS = 2000
const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

let gc: (() => void) | undefined

/** A full collection, so the heap figures are what is live. */
function collectGarbage (): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as () => void
  }
  gc()
}

function countOf (items: string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1
  return counts
}

function openSockets (): number {
  let sockets = 0
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) sockets++
    } catch {}
  }
  return sockets
}

export function processSnapshot (): ProcessSnapshot {
  collectGarbage()
  const memory = process.memoryUsage()
  return {
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    externalBytes: memory.external,
    arrayBuffersBytes: memory.arrayBuffers,
    resources: countOf(process.getActiveResourcesInfo()),
    sockets: openSockets()
  }
}

/** After SETTLE_MS: memory and resources, then CPU and event loop use over `idleSeconds`. */
export async function idleSnapshot (phase: string, idleSeconds: number): Promise<IdleSnapshot> {
  await sleep(SETTLE_MS)
  const snapshot = processSnapshot()
  const loopFrom = performance.eventLoopUtilization()
  const cpuFrom = process.cpuUsage()
  const from = performance.now()
  await sleep(idleSeconds * 1000)
  const cpu = process.cpuUsage(cpuFrom)
  const wallMs = performance.now() - from
  const eventLoopUtilization = performance.eventLoopUtilization(loopFrom).utilization
  return { phase, ...snapshot, idleCpuPercent: (cpu.user + cpu.system) / 1000 / wallMs * 100, eventLoopUtilization }
}

/**
 * Counts what the consumers received; `until(perConsumer)` resolves true once every
 * consumer has that many records, false after the bound.
 */
class Receipts {
  readonly counts: number[]
  #waiter: (() => void) | undefined

  constructor (consumers: number) {
    this.counts = new Array<number>(consumers).fill(0)
  }

  received (consumer: number, records: number): void {
    this.counts[consumer] += records
    this.#waiter?.()
  }

  async until (perConsumer: number, boundMs: number): Promise<boolean> {
    const done = (): boolean => this.counts.every(n => n >= perConsumer)
    if (done()) return true
    return await new Promise<boolean>(resolve => {
      const timer = setTimeout(() => {
        this.#waiter = undefined
        resolve(false)
      }, boundMs)
      this.#waiter = () => {
        if (!done()) return
        clearTimeout(timer)
        this.#waiter = undefined
        resolve(true)
      }
    })
  }
}

/**
 * The timeline of a run, the same for every Node runner: a snapshot before any client;
 * the consumers, then the producers, made and started at once, each producer sending one
 * record; once every consumer has all of them, the 'connected' snapshot and idle window;
 * a burst of `burst` records from each producer; once every consumer has them, the
 * 'after burst' snapshot and idle window; then every client closed. Prints the
 * `BENCH-RESULT` line.
 */
export async function runManyClients (config: ManyClientsConfig, settings: string, make: ClientMaker): Promise<void> {
  const problems: string[] = []
  const before = processSnapshot()
  const result: ManyClientsResult = { before, phases: [], connectSeconds: null, burstSeconds: null, problems, settings, runtime: runtime() }
  const receipts = new Receipts(config.consumers)
  const bound = config.boundSeconds * 1000
  const started = performance.now()
  const consumers = Array.from({ length: config.consumers }, (_, i) => make.consumer(i, records => { receipts.received(i, records) }))
  const producers = Array.from({ length: config.producers }, (_, i) => make.producer(i))
  try {
    await Promise.all(consumers.map(async consumer => { await consumer.start() }))
    await Promise.all(producers.map(async producer => { await producer.send(1) }))
    if (!await receipts.until(config.producers, bound)) {
      problems.push(`not every consumer had the first ${config.producers} records within ${config.boundSeconds} s (received: ${receipts.counts.join(',')})`)
      return
    }
    result.connectSeconds = (performance.now() - started) / 1000
    result.phases.push(await idleSnapshot('connected, idle', config.idleSeconds))
    const burstFrom = performance.now()
    await Promise.all(producers.map(async producer => { await producer.send(config.burst) }))
    if (!await receipts.until(config.producers * (1 + config.burst), bound)) {
      problems.push(`not every consumer had the burst within ${config.boundSeconds} s`)
      return
    }
    result.burstSeconds = (performance.now() - burstFrom) / 1000
    result.phases.push(await idleSnapshot('after a burst, idle', config.idleSeconds))
  } finally {
    const closing = [...producers, ...consumers].map(async client => await client.close().catch(error => { if (problems.length < 5) problems.push(`close failed: ${String(error)}`) }))
    await Promise.all(closing)
    reportResult(result)
  }
}

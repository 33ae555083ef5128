// Helpers for the consumer-group chaos test (group-chaos.test.ts): the member program's
// configuration and log lines, a slot that runs one member process after another (start,
// SIGTERM, SIGKILL, SIGSTOP/SIGCONT), the cast of a run's slots (MemberCast: share-churn.test.ts and
// transactions-three-nodes.test.ts run their members with it too), and
// the tally of what every member process wrote to its output file, read incrementally
// while the run goes on.
import { spawn, type ChildProcess } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { createInterface } from 'node:readline'
import type { Timeline } from './chaos-support'
import { setTimeout as sleep } from 'node:timers/promises'

/** What the orchestrator tells a member process (as JSON in KAFKATS_GROUP_CHAOS_MEMBER). */
export interface MemberConfig {
  /** The member's label, e.g. "B#2" (slot B, second process). */
  label: string
  bootstrap: string[]
  topic: string
  groupId: string
  groupProtocol: 'consumer' | 'classic'
  delivery: 'at-least-once' | 'at-most-once'
  /** Every processed record is appended here as "<partition> <offset>\n" before the handler returns. */
  output: string
  sessionTimeoutMs?: number
  heartbeatIntervalMs?: number
  rebalanceTimeoutMs?: number
  autoCommitIntervalMs?: number
  /** Some batches wait up to this long before they are written, so revokes meet work in flight. */
  maxProcessingDelayMs: number
  seed: number
  /** SIGTERM: give up closing after this long and exit with status 3. */
  closeTimeoutMs: number
  /** Log every group request and answer (KAFKATS_GROUP_CHAOS_TRACE=1). */
  traceGroupRequests?: boolean
}

export const MEMBER_CONFIG_ENV = 'KAFKATS_GROUP_CHAOS_MEMBER'

/** One line of a member's stdout. */
export interface MemberEvent {
  /** Date.now() in the member. */
  t: number
  event: 'started' | 'assigned' | 'lost' | 'commitRefused' | 'batchDropped' | 'warning' | 'status' | 'stuck' | 'closing' | 'closed' | 'closeTimeout' | 'error' | 'trace' | 'raw' | 'producerFailed' | 'offsetCommit'
  /** Partitions this member holds after the event (assigned, lost, status). */
  held?: number[]
  [field: string]: unknown
}

export type SlotState = 'down' | 'running' | 'stalled' | 'stopping'

export interface Incarnation {
  /** Index among all member processes of the run: what the tally records as "who processed it". */
  index: number
  label: string
  child: ChildProcess
  pid: number
  output: string
  logFile: string
  events: MemberEvent[]
  startedAt: number
  /** Set when the orchestrator sent SIGTERM or SIGKILL: an exit after that is expected. */
  expectedExit: 'SIGTERM' | 'SIGKILL' | undefined
  exit: { code: number | null, signal: NodeJS.Signals | null } | undefined
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
}

/** One of the four members: at most one process at a time, restarted as the chaos wants. */
export class MemberSlot {
  readonly name: string
  state: SlotState = 'down'
  current: Incarnation | undefined
  readonly #registry: Incarnation[]
  readonly #program: string
  readonly #runDir: string
  readonly #config: (label: string, output: string) => object
  readonly #timeline: Timeline
  readonly #onUnexpectedExit: (incarnation: Incarnation) => void
  readonly #onStart: (incarnation: Incarnation) => void
  #count = 0
  #retired = false

  constructor (options: {
    name: string
    program: string
    runDir: string
    registry: Incarnation[]
    timeline: Timeline
    /** The member's configuration (a MemberConfig for group-chaos-member.ts), as JSON in MEMBER_CONFIG_ENV. */
    config: (label: string, output: string) => object
    onUnexpectedExit: (incarnation: Incarnation) => void
    onStart?: (incarnation: Incarnation) => void
  }) {
    this.name = options.name
    this.#program = options.program
    this.#runDir = options.runDir
    this.#registry = options.registry
    this.#timeline = options.timeline
    this.#config = options.config
    this.#onUnexpectedExit = options.onUnexpectedExit
    this.#onStart = options.onStart ?? (() => {})
  }

  get incarnations (): Incarnation[] {
    return this.#registry.filter(i => i.label.startsWith(`${this.name}#`))
  }

  /** Partitions the running process said it holds, from its last assigned/lost/status line. */
  get held (): number[] {
    const events = this.current?.events ?? []
    for (let i = events.length - 1; i >= 0; i--) {
      const held = events[i].held
      if (held !== undefined) return held
    }
    return []
  }

  start (): Incarnation {
    if (this.#retired) throw new Error(`member ${this.name} is retired: the run is over`)
    if (this.state !== 'down') throw new Error(`member ${this.name} is ${this.state}, cannot start it`)
    const label = `${this.name}#${++this.#count}`
    const output = path.join(this.#runDir, `${label.replace('#', '-')}.out`)
    const logFile = path.join(this.#runDir, `${label.replace('#', '-')}.log`)
    fs.writeFileSync(output, '')
    const config = this.#config(label, output)
    const child = spawn(process.execPath, [this.#program], {
      env: { ...process.env, [MEMBER_CONFIG_ENV]: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const incarnation: Incarnation = {
      index: this.#registry.length,
      label,
      child,
      pid: child.pid ?? -1,
      output,
      logFile,
      events: [],
      startedAt: Date.now(),
      expectedExit: undefined,
      exit: undefined,
      exited: new Promise(resolve => {
        child.once('exit', (code, signal) => {
          incarnation.exit = { code, signal }
          resolve({ code, signal })
        })
      })
    }
    this.#registry.push(incarnation)
    this.#onStart(incarnation)
    this.current = incarnation
    this.state = 'running'
    const log = fs.openSync(logFile, 'a')
    const onLine = (line: string, stream: 'out' | 'err'): void => {
      fs.writeSync(log, stream === 'out' ? `${line}\n` : `stderr: ${line}\n`)
      let event: MemberEvent
      try {
        event = JSON.parse(line) as MemberEvent
      } catch {
        event = { t: Date.now(), event: 'raw', text: line }
      }
      incarnation.events.push(event)
      if (event.event === 'lost') this.#timeline.note(`${label} lost partitions ${String(event.partitions)}: ${String(event.reason)}`)
      if (event.event === 'error') this.#timeline.note(`${label} error: ${String(event.message)}`)
      if (event.event === 'stuck') this.#timeline.note(`${label} stuck: ${line}`)
    }
    const outLines = createInterface({ input: child.stdout! })
    const errLines = createInterface({ input: child.stderr! })
    outLines.on('line', line => onLine(line, 'out'))
    errLines.on('line', line => onLine(line, 'err'))
    let streamsOpen = 2
    const closeLog = (): void => { if (--streamsOpen === 0) fs.closeSync(log) }
    outLines.once('close', closeLog)
    errLines.once('close', closeLog)
    void incarnation.exited.then(({ code, signal }) => {
      if (this.current === incarnation) {
        this.current = undefined
        this.state = 'down'
      }
      const how = signal !== null ? `signal ${signal}` : `status ${String(code)}`
      if (incarnation.expectedExit === undefined) {
        this.#timeline.note(`${label} (pid ${incarnation.pid}) exited on its own with ${how}`)
        this.#onUnexpectedExit(incarnation)
      } else if (incarnation.expectedExit === 'SIGTERM' && (code !== 0 || signal !== null)) {
        this.#timeline.note(`${label} (pid ${incarnation.pid}) did not close cleanly after SIGTERM: ${how}`)
      }
    })
    this.#timeline.note(`start ${label} (pid ${incarnation.pid})`)
    return incarnation
  }

  /** SIGTERM (the member closes its consumer, then exits); SIGKILL if it has not exited after `timeoutMs`. Returns whether it closed cleanly. */
  async leave (timeoutMs: number): Promise<boolean> {
    const incarnation = this.current
    if (incarnation === undefined) return true
    this.state = 'stopping'
    incarnation.expectedExit = 'SIGTERM'
    // A process still loading has no SIGTERM handler yet, and SIGTERM would just kill it
    // (seen on a loaded machine): wait for its 'started' line, which comes after the handler.
    const deadline = Date.now() + timeoutMs
    incarnation.child.kill('SIGCONT')
    while (incarnation.exit === undefined && !incarnation.events.some(e => e.event === 'started') && Date.now() < deadline) await sleep(50)
    this.#timeline.note(`SIGTERM ${incarnation.label} (holding ${this.held.join(',') || 'nothing'})`)
    incarnation.child.kill('SIGTERM')
    let timer: NodeJS.Timeout | undefined
    const timedOut = await Promise.race([
      incarnation.exited.then(() => false),
      new Promise<boolean>(resolve => { timer = setTimeout(() => resolve(true), timeoutMs) })
    ])
    clearTimeout(timer)
    if (timedOut) {
      this.#timeline.note(`${incarnation.label} still running ${Math.round(timeoutMs / 1000)} s after SIGTERM: SIGKILL`)
      incarnation.child.kill('SIGKILL')
      await incarnation.exited
      return false
    }
    return incarnation.exit?.code === 0 && incarnation.exit.signal === null
  }

  async kill (): Promise<void> {
    const incarnation = this.current
    if (incarnation === undefined) return
    this.state = 'stopping'
    incarnation.expectedExit = 'SIGKILL'
    this.#timeline.note(`SIGKILL ${incarnation.label} (holding ${this.held.join(',') || 'nothing'})`)
    incarnation.child.kill('SIGKILL')
    await incarnation.exited
  }

  stall (): Incarnation | undefined {
    const incarnation = this.current
    if (incarnation === undefined) return undefined
    this.state = 'stalled'
    this.#timeline.note(`SIGSTOP ${incarnation.label} (holding ${this.held.join(',') || 'nothing'})`)
    incarnation.child.kill('SIGSTOP')
    return incarnation
  }

  resume (): void {
    const incarnation = this.current
    if (incarnation === undefined || this.state !== 'stalled') return
    incarnation.child.kill('SIGCONT')
    this.state = 'running'
    this.#timeline.note(`SIGCONT ${incarnation.label}`)
  }

  /** Last resort (test failure or teardown): no process of this slot survives, and none starts. */
  killNow (): void {
    this.#retired = true
    const incarnation = this.current
    if (incarnation === undefined || incarnation.exit !== undefined) return
    incarnation.expectedExit ??= 'SIGKILL'
    incarnation.child.kill('SIGKILL')
  }
}

/**
 * The members of one chaos run (group-chaos, share-churn, transactions-three-nodes): a slot per
 * name, all started from `program`, with their files in one run folder, one registry of
 * every process started and the list of those that exited on their own.
 */
export class MemberCast {
  readonly registry: Incarnation[] = []
  readonly unexpectedExits: Incarnation[] = []
  readonly slots: MemberSlot[]
  /** The members' output and log files (MemberSlot.start). */
  readonly runDir: string

  constructor (options: {
    names: string[]
    program: string
    /** The run folder's name prefix, under the OS's temporary folder. */
    runDirPrefix: string
    timeline: Timeline
    /** A process's configuration; `member` is its slot's index among `names`. */
    config: (label: string, output: string, member: number) => object
    onStart?: (incarnation: Incarnation) => void
  }) {
    this.runDir = fs.mkdtempSync(path.join(os.tmpdir(), options.runDirPrefix))
    this.slots = options.names.map((name, member) => new MemberSlot({
      name,
      program: options.program,
      runDir: this.runDir,
      registry: this.registry,
      timeline: options.timeline,
      onUnexpectedExit: incarnation => this.unexpectedExits.push(incarnation),
      onStart: options.onStart,
      config: (label, output) => options.config(label, output, member)
    }))
  }

  /** Slots whose process has been up for at least `minUpMs` (long enough to act on a signal) and that `fits`. */
  running (minUpMs: number, fits: (slot: MemberSlot) => boolean = () => true): MemberSlot[] {
    return this.slots.filter(s => s.state === 'running' && s.current !== undefined && Date.now() - s.current.startedAt >= minUpMs && fits(s))
  }

  /** Starts `slot` again after `downMs` if it is still down; whether it did. */
  async restartAfter (slot: MemberSlot, downMs: number): Promise<boolean> {
    await sleep(downMs)
    if (slot.state !== 'down') return false
    slot.start()
    return true
  }

  /** Kills every process still running (none starts again) and waits for all to exit. */
  async killAll (): Promise<void> {
    for (const slot of this.slots) slot.killNow()
    await Promise.all(this.registry.map(async i => await i.exited))
  }

  /**
   * Ends the run: kills every process still running (none starts again) and waits for all
   * to exit; the run folder is removed when `removeFiles`, else its path is printed.
   */
  async stop (removeFiles: boolean, what: string): Promise<void> {
    await this.killAll()
    if (removeFiles) fs.rmSync(this.runDir, { recursive: true, force: true })
    else console.log(`  ${what}: member files and logs kept in ${this.runDir}`)
  }
}

/** The last `lines` lines of a member's log, for failure reports. */
export function logTail (incarnation: Incarnation, lines: number): string {
  let text = ''
  try {
    text = fs.readFileSync(incarnation.logFile, 'utf8')
  } catch {}
  const all = text.split('\n').filter(line => line !== '' && !line.includes('"event":"status"') && !line.includes('"event":"trace"'))
  return all.slice(-lines).map(line => `      ${line}`).join('\n')
}

/** A record processed more than once, and by whom (incarnation indexes, in file-reading order). */
export interface Duplicate {
  partition: number
  offset: number
  by: number[]
}

/**
 * Everything the member processes wrote to their output files: per partition, how often
 * each offset was processed and by which process first. Files are read incrementally; a
 * line cut short by a SIGKILL stays pending until its process exits, then counts as torn.
 */
export class ProcessedTally {
  readonly partitions: number
  /** Per partition: times each offset was processed (saturating at 255). */
  readonly #counts: Uint8Array[]
  /** Per partition: the incarnation that processed each offset first (-1: nobody yet). */
  readonly #firstBy: Int16Array[]
  readonly #files = new Map<number, { path: string, position: number, partial: string }>()
  readonly duplicates: Duplicate[] = []
  duplicateCount = 0
  /** Duplicates by "first processor>later processor" (incarnation indexes). */
  readonly duplicatePairs = new Map<string, number>()
  /** Records processed (every line, duplicates included). */
  handled = 0
  /** Records processed per incarnation index. */
  readonly handledBy: number[] = []
  /** Distinct (partition, offset) pairs processed. */
  distinct = 0
  tornLines = 0
  badLines: string[] = []
  /** Duplicates keep the list of every processor; capped so a flood stays cheap. */
  readonly #duplicateDetailLimit = 2000

  constructor (partitions: number) {
    this.partitions = partitions
    this.#counts = Array.from({ length: partitions }, () => new Uint8Array(1024))
    this.#firstBy = Array.from({ length: partitions }, () => new Int16Array(1024).fill(-1))
  }

  /** Reads what each incarnation's file gained since the last call. */
  update (incarnations: Incarnation[]): void {
    for (const incarnation of incarnations) {
      let file = this.#files.get(incarnation.index)
      if (file === undefined) this.#files.set(incarnation.index, file = { path: incarnation.output, position: 0, partial: '' })
      let size: number
      try {
        size = fs.statSync(file.path).size
      } catch {
        continue
      }
      if (size > file.position) {
        const fd = fs.openSync(file.path, 'r')
        try {
          const buffer = Buffer.alloc(size - file.position)
          let read = 0
          while (read < buffer.length) {
            const n = fs.readSync(fd, buffer, read, buffer.length - read, file.position + read)
            if (n === 0) break
            read += n
          }
          file.position += read
          const text = file.partial + buffer.toString('latin1', 0, read)
          const end = text.lastIndexOf('\n')
          file.partial = end < 0 ? text : text.slice(end + 1)
          if (end >= 0) this.#addLines(text.slice(0, end), incarnation.index)
        } finally {
          fs.closeSync(fd)
        }
      }
      if (incarnation.exit !== undefined && file.partial !== '') {
        this.tornLines++
        file.partial = ''
      }
    }
  }

  #addLines (text: string, by: number): void {
    let start = 0
    while (start < text.length) {
      let end = text.indexOf('\n', start)
      if (end < 0) end = text.length
      const space = text.indexOf(' ', start)
      const partition = space > start && space < end ? Number(text.slice(start, space)) : NaN
      const offset = space > start && space < end ? Number(text.slice(space + 1, end)) : NaN
      if (!Number.isInteger(partition) || partition < 0 || partition >= this.partitions || !Number.isSafeInteger(offset) || offset < 0) {
        if (this.badLines.length < 10) this.badLines.push(text.slice(start, end))
      } else {
        this.#add(partition, offset, by)
      }
      start = end + 1
    }
  }

  #add (partition: number, offset: number, by: number): void {
    this.handled++
    this.handledBy[by] = (this.handledBy[by] ?? 0) + 1
    let counts = this.#counts[partition]
    if (offset >= counts.length) {
      let length = counts.length
      while (offset >= length) length *= 2
      const grownCounts = new Uint8Array(length)
      grownCounts.set(counts)
      this.#counts[partition] = counts = grownCounts
      const grownBy = new Int16Array(length).fill(-1)
      grownBy.set(this.#firstBy[partition])
      this.#firstBy[partition] = grownBy
    }
    const before = counts[offset]
    if (before < 255) counts[offset] = before + 1
    if (before === 0) {
      this.distinct++
      this.#firstBy[partition][offset] = by
      return
    }
    this.duplicateCount++
    const pair = `${this.#firstBy[partition][offset]}>${by}`
    this.duplicatePairs.set(pair, (this.duplicatePairs.get(pair) ?? 0) + 1)
    const existing = before === 1 ? undefined : this.duplicates.find(d => d.partition === partition && d.offset === offset)
    if (existing !== undefined) existing.by.push(by)
    else if (this.duplicates.length < this.#duplicateDetailLimit) this.duplicates.push({ partition, offset, by: [this.#firstBy[partition][offset], by] })
  }

  /** Offsets in [0, end) of `partition` nobody processed: how many, and the first few ranges. */
  missing (partition: number, end: number): { count: number, ranges: string[] } {
    const counts = this.#counts[partition]
    let count = 0
    const ranges: string[] = []
    let runStart = -1
    for (let offset = 0; offset <= end; offset++) {
      const isMissing = offset < end && (offset >= counts.length || counts[offset] === 0)
      if (isMissing) {
        count++
        if (runStart < 0) runStart = offset
      } else if (runStart >= 0) {
        if (ranges.length < 5) ranges.push(runStart === offset - 1 ? `${runStart}` : `${runStart}–${offset - 1}`)
        runStart = -1
      }
    }
    return { count, ranges }
  }

  /**
   * Runs of offsets in [0, end) of `partition` that nobody processed, each with the process
   * that processed the offset just before it (-1 if none): under at-most-once that is
   * usually the one that committed the run and then died or dropped it.
   */
  gaps (partition: number, end: number): Array<{ from: number, to: number, after: number }> {
    const counts = this.#counts[partition]
    const gaps: Array<{ from: number, to: number, after: number }> = []
    let from = -1
    for (let offset = 0; offset <= end; offset++) {
      const isMissing = offset < end && (offset >= counts.length || counts[offset] === 0)
      if (isMissing && from < 0) from = offset
      if (!isMissing && from >= 0) {
        gaps.push({ from, to: offset - 1, after: from > 0 ? this.#firstBy[partition][from - 1] : -1 })
        from = -1
      }
    }
    return gaps
  }

  readonly #prefix: number[] = []

  /** The first offset of `partition` nobody processed yet: everything below it was processed. */
  processedPrefix (partition: number): number {
    const counts = this.#counts[partition]
    let offset = this.#prefix[partition] ?? 0
    while (offset < counts.length && counts[offset] !== 0) offset++
    this.#prefix[partition] = offset
    return offset
  }

  /** Distinct offsets of `partition` below `end` that were processed. */
  distinctBelow (partition: number, end: number): number {
    const counts = this.#counts[partition]
    let n = 0
    for (let offset = 0; offset < Math.min(end, counts.length); offset++) if (counts[offset] !== 0) n++
    return n
  }

  /** Duplicates of `partition` (times processed minus one, summed). */
  duplicatesOf (partition: number): number {
    let n = 0
    for (const c of this.#counts[partition]) if (c > 1) n += c - 1
    return n
  }

  /** Highest processed offset of `partition`, or -1. */
  highest (partition: number): number {
    const counts = this.#counts[partition]
    for (let offset = counts.length - 1; offset >= 0; offset--) if (counts[offset] !== 0) return offset
    return -1
  }

  /** Who processed `offset` of `partition` first (incarnation index), or -1. */
  firstBy (partition: number, offset: number): number {
    return offset < this.#firstBy[partition].length ? this.#firstBy[partition][offset] : -1
  }
}

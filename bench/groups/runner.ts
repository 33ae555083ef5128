/**
 * What the groups benchmark's Node runners share (see run.ts): the timeline every runner
 * goes through (runGroups), the watch that tells when the group is stable and when a
 * leaver's partitions have moved (GroupWatch), and the per-API request counts
 * (RequestCounter). A runner only says how to make one member of its client; the .mjs
 * runner of kafkajs loads this module, compiled, through ../common/runner.mjs's setup().
 * bench/franz/main.go's `groups` mode does the same in Go.
 */
import { readConfigArgument, reportResult, runtime, type BaseRunnerConfig } from '../common/runner'

export { readConfigArgument, reportResult, runMain, runtime } from '../common/runner'

export type GroupProtocol = 'consumer' | 'classic'

export interface GroupsConfig extends BaseRunnerConfig {
  /** 'consumer' (KIP-848) or 'classic'. */
  protocol: GroupProtocol
  /** Members, each a client of its own in the runner's process. */
  members: number
  groupId: string
  /** The window over which the idle members' requests are counted. */
  idleSeconds: number
  /** How long to wait for the group to become stable, and for the leaver's partitions to move. */
  boundSeconds: number
}

/** Requests per API name (Kafka's names: Heartbeat, ConsumerGroupHeartbeat, Metadata, Fetch …), summed over the members. */
export type RequestCounts = Record<string, number>

export interface GroupsResult {
  unavailable?: string
  /** From creating the first member to every partition flowing to exactly one owner (null: not within the bound). */
  stableSeconds: number | null
  /** From the leaver's close() call to each of its partitions having delivered a record to another member. */
  rebalanceSeconds: number | null
  /** How long the leaver's close() took. */
  closeSeconds: number | null
  /** The idle window as measured. */
  idleSeconds: number
  /** Requests of all members from the start to stable, over the idle window (after SETTLE_MS), and from the leave to the partitions moved. */
  joinRequests: RequestCounts
  idleRequests: RequestCounts
  rebalanceRequests: RequestCounts
  problems: string[]
  settings: string
  runtime: string
}

/** One member as a runner makes it: start() sets it joining and consuming; close() leaves the group and closes its client. */
export interface BenchMember {
  start: () => Promise<void> | void
  close: () => Promise<void>
}

/**
 * Which member owns which partition and whether it has received a record of it since it
 * was assigned. The runners call assigned/revoked from their client's rebalance callbacks
 * and consumed from their record handler; run.ts fills every partition with one record and
 * the members never commit, so a partition's every new owner reads it again from the start
 * at once: "flowing" means its current owner is consuming it.
 */
export class GroupWatch {
  readonly #owners: Array<Set<number>>
  /** Per partition: the member that received a record of it since it was assigned to it, or -1. */
  readonly #flowing: number[]
  readonly #owned: Array<Set<number>>
  /** Members that are leaving: what they do no longer counts. */
  readonly #gone = new Set<number>()
  /**
   * "member:partition" of records a member received before its client told it owns the
   * partition (a client may start fetching before its rebalance callback runs): they count
   * once it does. There is one record per partition, so none may be dropped.
   */
  readonly #early = new Set<string>()
  #waiters: Array<() => void> = []
  readonly problems: string[] = []
  /** Assignment changes so far, to tell whether one happened in the idle window. */
  changes = 0

  constructor (partitions: number, members: number) {
    this.#owners = Array.from({ length: partitions }, () => new Set<number>())
    this.#flowing = new Array<number>(partitions).fill(-1)
    this.#owned = Array.from({ length: members }, () => new Set<number>())
  }

  assigned (member: number, partitions: number[]): void {
    for (const p of partitions) {
      this.#owners[p].add(member)
      this.#owned[member].add(p)
      if (this.#early.delete(`${member}:${p}`) && !this.#gone.has(member)) this.#flowing[p] = member
    }
    this.#changed()
  }

  revoked (member: number, partitions: number[]): void {
    for (const p of partitions) {
      this.#owners[p].delete(member)
      this.#owned[member].delete(p)
      if (this.#flowing[p] === member) this.#flowing[p] = -1
      this.#early.delete(`${member}:${p}`)
    }
    this.#changed()
  }

  /** An eager client's whole assignment (kafkajs: empty at a rebalance's start, the new one after its join). */
  assignment (member: number, partitions: number[]): void {
    this.revoked(member, [...this.#owned[member]])
    this.assigned(member, partitions)
  }

  consumed (member: number, partition: number): void {
    if (this.#gone.has(member) || this.#flowing[partition] === member) return
    if (!this.#owners[partition].has(member)) {
      this.#early.add(`${member}:${partition}`)
      return
    }
    this.#flowing[partition] = member
    this.#wake()
  }

  problem (text: string): void {
    if (this.problems.length < 5) this.problems.push(text)
  }

  /** The member starts leaving: its partitions now, which the others must take over. */
  leaving (member: number): number[] {
    this.#gone.add(member)
    return [...this.#owned[member]]
  }

  /** Every partition has exactly one owner, which is consuming it, and every member owns one at least. */
  stable (): boolean {
    for (let p = 0; p < this.#owners.length; p++) {
      if (this.#owners[p].size !== 1 || this.#flowing[p] === -1) return false
    }
    return this.#owned.every((owned, member) => this.#gone.has(member) || owned.size > 0)
  }

  /** Each of `partitions` has delivered a record to a member that is not leaving since it was assigned there. */
  moved (partitions: number[]): boolean {
    return partitions.every(p => this.#flowing[p] !== -1 && !this.#gone.has(this.#flowing[p]))
  }

  /** Resolves true once `test` holds (checked at every change), false after `boundMs`. */
  async until (test: () => boolean, boundMs: number): Promise<boolean> {
    if (test()) return true
    return await new Promise<boolean>(resolve => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter(w => w !== check)
        resolve(false)
      }, boundMs)
      const check = (): void => {
        if (!test()) return
        clearTimeout(timer)
        this.#waiters = this.#waiters.filter(w => w !== check)
        resolve(true)
      }
      this.#waiters.push(check)
    })
  }

  #changed (): void {
    this.changes++
    this.#wake()
  }

  #wake (): void {
    for (const check of [...this.#waiters]) check()
  }
}

/** Requests counted per API name; take() gives the counts since the last take(). */
export class RequestCounter {
  #counts: RequestCounts = {}

  count (api: string): void {
    this.#counts[api] = (this.#counts[api] ?? 0) + 1
  }

  take (): RequestCounts {
    const counts = this.#counts
    this.#counts = {}
    return counts
  }
}

/** How long the members wait after the group is stable before the idle window opens (late commits of a rebalance, a follow-up round). */
export const SETTLE_MS = 1000

const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

/**
 * The timeline of a run, the same for every Node runner: make the members (`make` gets the
 * member's index, the watch and the request counter) and start them all at once; wait until
 * the group is stable; let it idle for SETTLE_MS, then count its requests over the idle
 * window; close the last member and wait until its partitions flow to the others; close
 * the rest. Prints the `BENCH-RESULT` line.
 */
export async function runGroups (config: GroupsConfig, settings: string, make: (member: number, watch: GroupWatch, requests: RequestCounter) => BenchMember): Promise<void> {
  const watch = new GroupWatch(config.partitions, config.members)
  const requests = new RequestCounter()
  const bound = config.boundSeconds * 1000
  const result: GroupsResult = {
    stableSeconds: null, rebalanceSeconds: null, closeSeconds: null, idleSeconds: 0, joinRequests: {}, idleRequests: {}, rebalanceRequests: {}, problems: watch.problems, settings, runtime: runtime()
  }
  const started = performance.now()
  const members = Array.from({ length: config.members }, (_, i) => make(i, watch, requests))
  await Promise.all(members.map(async member => { await member.start() }))
  const open = new Set(members)
  try {
    if (!await watch.until(() => watch.stable(), bound)) {
      watch.problem(`not stable within ${config.boundSeconds} s`)
      return
    }
    result.stableSeconds = (performance.now() - started) / 1000
    result.joinRequests = requests.take()
    await sleep(SETTLE_MS)
    requests.take()
    const changes = watch.changes
    const idleFrom = performance.now()
    await sleep(config.idleSeconds * 1000)
    result.idleRequests = requests.take()
    result.idleSeconds = (performance.now() - idleFrom) / 1000
    if (watch.changes !== changes) watch.problem(`the assignment changed ${watch.changes - changes} times in the idle window`)
    if (config.members < 2) return
    const leaver = members.length - 1
    const partitions = watch.leaving(leaver)
    const leftAt = performance.now()
    open.delete(members[leaver])
    const closing = members[leaver].close().then(() => { result.closeSeconds = (performance.now() - leftAt) / 1000 }, error => { watch.problem(`the leaver's close failed: ${String(error)}`) })
    if (await watch.until(() => watch.moved(partitions), bound)) result.rebalanceSeconds = (performance.now() - leftAt) / 1000
    else watch.problem(`the leaver's ${partitions.length} partitions did not move within ${config.boundSeconds} s`)
    result.rebalanceRequests = requests.take()
    await closing
  } finally {
    await Promise.all([...open].map(async member => await member.close().catch(error => { watch.problem(`close failed: ${String(error)}`) })))
    reportResult(result)
  }
}

/** The runner's config, from argv[2]. */
export function readGroupsConfig (): GroupsConfig {
  return readConfigArgument<GroupsConfig>()
}

/**
 * The consumer-group benchmark, side by side.
 *
 *   node dist/bench/groups/run.js [--members 2,10,50] [--protocols consumer,classic] [--clients kafkats,franz,kafkajs]
 *                                 [--idle-seconds 30] [--json FILE] [--chart FILE]
 *
 * For every (protocol, group size, client) it creates a topic with 2 partitions per member
 * holding one record each, and runs the client in its own process with that many members
 * (in-process, a client each), none of which commits (runner.ts has the timeline). The
 * runner reports the time until the group is stable (every partition assigned to one
 * member, which has received its record), the requests per API of the idle members over a
 * fixed window, and the time until the partitions of a member that leaves have been read by
 * the others. It prints a markdown table, and writes the rows as JSON and a bar chart as
 * SVG. The broker is KAFKA_BOOTSTRAP's, or a single node started with Kafka's own group
 * timings (the test broker's are shorter) and stopped at the end. See bench/README.md.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { throwFirstError } from '../../index'
import { renderPanels } from '../chart'
import {
  ALL_CLIENTS, BenchHarness, benchBroker, defaultBenchOptions, formatNumber, KAFKA_GROUP_DEFAULTS, parseBenchArgs, positiveInt, splitList, settingsLines, writeResults,
  type BenchBroker, type BenchOptions, type BenchRow, type ChildOutcome, type ClientName
} from '../common/harness'
import { runMain } from '../common/runner'
import type { GroupProtocol, GroupsConfig, GroupsResult, RequestCounts } from './runner'

const PROTOCOLS: GroupProtocol[] = ['consumer', 'classic']
const CLIENTS: ClientName[] = ['kafkats', 'franz', 'java', 'kafkajs', 'kafkats-kafkajs']

interface Options extends BenchOptions {
  members: number[]
  protocols: GroupProtocol[]
  partitionsPerMember: number
  idleSeconds: number
  boundSeconds: number
  chart: string | undefined
}

export interface Row extends BenchRow {
  protocol: GroupProtocol
  members: number
  partitions: number
  stableSeconds?: number
  rebalanceSeconds?: number
  closeSeconds?: number
  idleSeconds?: number
  /** Requests per idle member per minute, by API. */
  idlePerMemberMinute?: RequestCounts
  joinRequests?: RequestCounts
  rebalanceRequests?: RequestCounts
}

const USAGE = `usage: node dist/bench/groups/run.js [options]
  --members 2,10,50            group sizes (default 2,10,50)
  --protocols consumer,classic KIP-848 and/or classic (default both)
  --clients LIST               of ${CLIENTS.join(', ')} (default kafkats,franz,java,kafkajs)
  --partitions-per-member N    partitions of the topic per member (default 2)
  --idle-seconds N             the window over which idle members' requests are counted (default 30)
  --bound-seconds N            how long to wait for stable, and for the leaver's partitions to move (default 120)
  --options-CLIENT JSON        settings that replace a runner's defaults
  --timeout SECONDS            per run (default: 2 bounds + the idle window + 60)
  --json FILE                  also write the rows as JSON
  --chart FILE                 also draw the rows as an SVG bar chart (default: beside --json, .svg)
Uses KAFKA_BOOTSTRAP when set, else starts a single-node Kafka 4.4 broker with Kafka's default group timings.`

function parseArgs (argv: string[]): Options {
  const options: Options = {
    ...defaultBenchOptions(),
    clients: ['kafkats', 'franz', 'java', 'kafkajs'],
    sizes: [16],
    compressions: ['none'],
    members: [2, 10, 50],
    protocols: PROTOCOLS,
    partitionsPerMember: 2,
    idleSeconds: 30,
    boundSeconds: 120,
    chart: undefined
  }
  parseBenchArgs(argv, USAGE, options, (arg, value) => {
    if (arg === '--members') options.members = splitList(value).map(s => positiveInt(arg, s))
    else if (arg === '--partitions-per-member') options.partitionsPerMember = positiveInt(arg, value)
    else if (arg === '--idle-seconds') options.idleSeconds = positiveInt(arg, value)
    else if (arg === '--bound-seconds') options.boundSeconds = positiveInt(arg, value)
    else if (arg === '--chart') options.chart = value
    else if (arg === '--protocols') {
      const protocols = splitList(value)
      const unknown = protocols.filter(p => !(PROTOCOLS as string[]).includes(p))
      if (unknown.length > 0) throw new Error(`Unknown protocol(s) ${unknown.join(', ')}; known: ${PROTOCOLS.join(', ')}`)
      options.protocols = protocols as GroupProtocol[]
    } else return false
    return true
  })
  const unsupported = options.clients.filter(c => !CLIENTS.includes(c))
  if (unsupported.length > 0) throw new Error(`bench/groups has runners for ${CLIENTS.join(', ')} only, not ${unsupported.join(', ')} (of ${ALL_CLIENTS.join(', ')})`)
  if (options.repeat > 1) throw new Error('bench/groups runs each case once (--repeat is not supported): run it again to see the spread')
  if (options.json !== undefined && options.chart === undefined) options.chart = options.json.replace(/\.json$/, '') + '.svg'
  return options
}

/** A sum of request counts per minute per member, over APIs whose names `match`. */
function perMemberMinute (counts: RequestCounts | undefined, match: (api: string) => boolean): number | undefined {
  if (counts === undefined) return undefined
  return Object.entries(counts).filter(([api]) => match(api)).reduce((sum, [, n]) => sum + n, 0)
}

const isHeartbeat = (api: string): boolean => api === 'Heartbeat' || api === 'ConsumerGroupHeartbeat'
/** The Java runner counts heartbeats and fetches only (its client has no per-API metric): its metadata requests are in "Other". */
const countsMetadata = (row: Row): boolean => row.client !== 'java'
const isMetadata = (api: string): boolean => api === 'Metadata'
const isFetch = (api: string): boolean => api === 'Fetch'
const isOther = (api: string): boolean => !isHeartbeat(api) && !isMetadata(api) && !isFetch(api)

class Bench extends BenchHarness<Options> {
  constructor (options: Options, broker: BenchBroker) {
    super('groups', options, broker)
  }

  override timeoutMs (): number {
    return (this.options.timeoutSeconds ?? 2 * this.options.boundSeconds + this.options.idleSeconds + 60) * 1000
  }

  async run (client: ClientName, protocol: GroupProtocol, members: number): Promise<Row> {
    const partitions = members * this.options.partitionsPerMember
    const row: Row = { client, protocol, members, partitions, size: 16, compression: 'none', records: partitions, notes: [] }
    if (protocol === 'consumer' && (client === 'kafkajs' || client === 'kafkats-kafkajs')) {
      row.notes.push('kafkajs speaks the classic group protocol only (no KIP-848)')
      return row
    }
    const stamp = `${client}-${protocol}-${members}-${Date.now()}`
    const topic = `bench-groups-${stamp}`
    throwFirstError(await this.admin.admin.createTopics([{ topic, numPartitions: partitions }]))
    try {
      await this.admin.metadata.waitForTopic(topic, 30_000)
      // One record per partition: the members never commit, so every new owner reads it at once.
      await Promise.all(Array.from({ length: partitions }, async (_, partition) =>
        await this.admin.produceRaw({ topic, partition, records: [{ value: Buffer.from(`record of partition ${partition}`) }], acks: 'all' })))
      const config = (): GroupsConfig => ({
        ...this.runnerConfig(row, topic), partitions, protocol, members, groupId: `bench-groups-${stamp}`, idleSeconds: this.options.idleSeconds, boundSeconds: this.options.boundSeconds
      })
      await this.withBrokerCpu(row, async () => {
        const run = client === 'java' ? await this.runJava(row, config()) : await this.runNodeRunner<GroupsResult>(row, config)
        if (run === undefined) return
        const result = run.result
        if (result.problems.length > 0) row.notes.push(`PROBLEMS: ${result.problems.join('; ')}`)
        row.stableSeconds = result.stableSeconds ?? undefined
        row.rebalanceSeconds = result.rebalanceSeconds ?? undefined
        row.closeSeconds = result.closeSeconds ?? undefined
        row.joinRequests = result.joinRequests
        row.rebalanceRequests = result.rebalanceRequests
        if (result.idleSeconds > 0) {
          row.idleSeconds = result.idleSeconds
          const scale = 60 / result.idleSeconds / members
          row.idlePerMemberMinute = Object.fromEntries(Object.entries(result.idleRequests).map(([api, n]) => [api, n * scale]))
        }
        // The protocol really used: a client may fall back to classic without saying so (Java counts no JoinGroup; it fails rather than fall back).
        const heartbeat = protocol === 'consumer' ? 'ConsumerGroupHeartbeat' : 'JoinGroup'
        if (client !== 'java' && result.stableSeconds !== null && (result.joinRequests[heartbeat] ?? 0) === 0) row.notes.push(`NO ${heartbeat} REQUEST: the ${protocol} protocol was not used`)
        if (run.outcome.totalCpuSeconds !== undefined) row.notes.push(`process CPU ${run.outcome.totalCpuSeconds.toFixed(2)} s`)
      })
    } finally {
      await this.deleteTopic(topic)
    }
    return row
  }

  /** Runs GroupsBench.java (compiled once by the harness) with the config as its arguments. */
  async runJava (row: Row, config: GroupsConfig): Promise<{ result: GroupsResult, outcome: ChildOutcome } | undefined> {
    const properties = Object.entries(this.options.clientOptions.java ?? {}).map(([k, v]) => `${k}=${String(v)}`)
    return await this.runJavaRunner<GroupsResult>(row, path.join('groups', 'GroupsBench.java'), 'GroupsBench', [
      config.bootstrap, config.topic, String(config.partitions), config.protocol, String(config.members), config.groupId, String(config.idleSeconds), String(config.boundSeconds), ...properties
    ])
  }
}

const seconds = (value: number | undefined): string => formatNumber(value, value !== undefined && value < 10 ? 2 : 1)

function renderTable (rows: Row[], options: Options, brokerSettings: string): string {
  const lines = [
    `Consumer-group benchmark: groups of ${options.members.join(', ')} members in one process (a client each), ${options.partitionsPerMember} partitions per member, one record per partition, nothing committed; idle window ${options.idleSeconds} s. Broker: ${brokerSettings}.`,
    '',
    '| client | protocol | members | partitions | stable s | rebalance s | leaver close s | heartbeats /min/member | metadata /min/member | fetch /min/member | other /min/member | notes |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |'
  ]
  for (const row of rows) {
    const idle = row.idlePerMemberMinute
    lines.push(`| ${[
      row.client, row.protocol, String(row.members), String(row.partitions), seconds(row.stableSeconds), seconds(row.rebalanceSeconds), seconds(row.closeSeconds),
      formatNumber(perMemberMinute(idle, isHeartbeat), 1), countsMetadata(row) ? formatNumber(perMemberMinute(idle, isMetadata), 1) : 'in other', formatNumber(perMemberMinute(idle, isFetch), 1), formatNumber(perMemberMinute(idle, isOther), 1),
      row.notes.join('; ')
    ].join(' | ')} |`)
  }
  lines.push(...settingsLines(rows))
  lines.push('', 'stable: from creating the first member to every partition assigned to exactly one member that has received its record (every member owning one at least). rebalance: from the last member\'s close() call to each of its partitions having delivered its record to another member. Requests per idle member: counted by each client (kafkats: the Client\'s \'request\' event; franz-go: a HookBrokerWrite; kafkajs: the consumer\'s REQUEST event; Java: its metrics heartbeat-total and fetch-total, the rest of request-total as "other", Metadata included) over the idle window, which opens 1 s after stable; "other" is every other API (e.g. OffsetCommit, FindCoordinator); the JSON has them by name.')
  return lines.join('\n')
}

/** The rows as a bar chart: a panel per (protocol, group size), a bar per client. */
function renderGroupsChart (rows: Row[]): string {
  const cases = new Map<string, Row[]>()
  for (const row of rows) {
    const title = `${row.protocol === 'consumer' ? 'KIP-848' : 'classic'}, ${row.members} members, ${row.partitions} partitions`
    cases.set(title, [...(cases.get(title) ?? []), row])
  }
  const format = (value: number): string => `${value.toFixed(value < 10 ? 2 : 1)} s`
  return renderPanels('Consumer groups: time to stable, to move a leaver\'s partitions, and idle requests', 'seconds: lower is better · requests: heartbeat + metadata requests per idle member per minute, counted by each client', [
    { name: 'stable (s)', format, missing: 'failed' },
    { name: 'rebalance after a leave (s)', format, missing: '–' },
    { name: 'heartbeat + metadata /min/member', format: value => value.toFixed(1), missing: '–' }
  ], [...cases].map(([title, caseRows]) => ({
    title,
    rows: caseRows.map(row => ({ label: row.client, client: row.client, values: [row.stableSeconds, row.rebalanceSeconds, countsMetadata(row) ? perMemberMinute(row.idlePerMemberMinute, api => isHeartbeat(api) || isMetadata(api)) : undefined] }))
  })))
}

runMain(async () => {
  const options = parseArgs(process.argv.slice(2))
  const bench = new Bench(options, await benchBroker(KAFKA_GROUP_DEFAULTS))
  const rows: Row[] = []
  // groupSettings() does not throw: what it could not read, it says.
  const brokerSettings = await bench.groupSettings()
  process.stderr.write(`bench: broker ${brokerSettings}\n`)
  try {
    for (const protocol of options.protocols) {
      for (const members of options.members) {
        for (const client of options.clients) {
          process.stderr.write(`bench: ${client}, ${protocol}, ${members} members …`)
          const row = await bench.run(client, protocol, members)
          rows.push(row)
          process.stderr.write(` stable ${seconds(row.stableSeconds)} s, rebalance ${seconds(row.rebalanceSeconds)} s; ${row.notes.join('; ')}\n`)
        }
      }
    }
  } finally {
    await bench.close()
  }
  writeResults(renderTable(rows, options, brokerSettings), rows, options.json)
  if (options.chart !== undefined) fs.writeFileSync(options.chart, renderGroupsChart(rows))
})

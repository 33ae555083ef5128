/** `kafkats topics | groups | offsets | acls | cluster`: the admin API (client.admin) from the shell. */
import { throwFirstError, type AclBinding, type AclFilter, type Client, type PartitionLag } from '../index'
import { connectionHelp, int, list, newClient, pairs, parse, str, table, timeoutMs, toJson, UsageError, write, type Values } from './common'

export const topicsHelp = `Usage: kafkats topics <list | describe | create | delete | alter-configs> [options]

  list [--internal]                         topic names
  describe <topic…> [--configs]             partitions (leader, replicas, isr), and the topic's
                                            non-default configs with --configs
  create <topic> [-p partitions] [-r replication-factor] [--config k=v …] [--if-not-exists]
  delete <topic…> [--if-exists]
  alter-configs <topic> [--set k=v …] [--delete k …]

${connectionHelp}`

export const groupsHelp = `Usage: kafkats groups <list | describe | reset-offsets | delete> [options]

  list                                      groups with their type and state
  describe <group>                          state, members and their partitions, and the lag
                                            per partition (committed, end, lag) of every
                                            partition of the group's topics: "-" where
                                            nothing was committed (lag counted from the start)
  reset-offsets <group> --to where [--topic t …] [--execute]
                                            where: earliest, latest, an offset n, @timestamp
                                            (ms or ISO date), or --shift-by n; prints the plan,
                                            and commits it only with --execute (refused while
                                            the group has active members)
  delete <group…>                           empty groups and their offsets

${connectionHelp}`

export const offsetsHelp = `Usage: kafkats offsets <topic> [--time earliest|latest|@timestamp]

The earliest and latest offset of every partition, or the offset of the first record at or
after a timestamp (ms or ISO date; -1 when there is none).

${connectionHelp}`

export const aclsHelp = `Usage: kafkats acls <list | create | delete> [filter or binding]

  --resource-type t    topic, group, cluster, transactional_id, delegation_token, user (list/delete: also any)
  --resource-name n    ('kafka-cluster' for the cluster)
  --pattern-type p     literal (default for create), prefixed (list/delete: also match, any)
  --principal p        e.g. User:alice
  --host h             (default * for create)
  --operation o        read, write, create, delete, alter, describe, cluster_action,
                       describe_configs, alter_configs, idempotent_write, all (list/delete: any)
  --permission p       allow, deny (list/delete: any)

${connectionHelp}`

export const clusterHelp = `Usage: kafkats cluster

The cluster id, the controller and every broker (id, host:port, rack).

${connectionHelp}`

async function withClient (values: Values, work: (client: Client, call: { timeoutMs: number }) => Promise<void>): Promise<number> {
  const client = newClient(values)
  try {
    // Each admin call is bounded by its timeoutMs and fails with what is true (a ConnectionError
    // naming the brokers); a timeout signal on top would turn that into an AbortedError.
    await work(client, { timeoutMs: timeoutMs(values) })
  } finally {
    await client.close()
  }
  return 0
}

const out = async (values: Values, json: unknown, text: () => string): Promise<void> => {
  await write(values.json === true ? `${toJson(json)}\n` : text())
}

function needs (positionals: string[], n: number, what: string): void {
  if (positionals.length < n) throw new UsageError(`missing ${what}`)
}

export async function topics (args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    internal: { type: 'boolean' },
    configs: { type: 'boolean' },
    partitions: { type: 'string', short: 'p' },
    'replication-factor': { type: 'string', short: 'r' },
    config: { type: 'string', multiple: true },
    set: { type: 'string', multiple: true },
    delete: { type: 'string', multiple: true },
    'if-not-exists': { type: 'boolean' },
    'if-exists': { type: 'boolean' }
  })
  const [action, ...names] = positionals
  if (values.help === true || action === undefined) { process.stdout.write(topicsHelp); return values.help === true ? 0 : 2 }
  return await withClient(values, async (client, call) => {
    switch (action) {
      case 'list': {
        const names = await client.admin.listTopics({ ...call, includeInternal: values.internal === true })
        await out(values, names, () => names.map(n => `${n}\n`).join(''))
        return
      }
      case 'describe': {
        needs(names, 1, 'topic names: kafkats topics describe <topic…>')
        const described = throwFirstError(await client.admin.describeTopics(names, call))
        const configs = values.configs === true
          ? throwFirstError(await client.admin.describeConfigs(names.map(name => ({ type: 'topic' as const, name })), call)).map(r => [...r.configs.values()].filter(c => !c.isDefault))
          : undefined
        await out(values, described.map((t, i) => ({ ...t, configs: configs?.[i] })), () => described.map((t, i) => {
          const head = `topic ${t.name}  id ${t.topicId}  partitions ${t.partitions.length}  replication ${t.partitions[0]?.replicas.length ?? 0}\n`
          const rows = table([['partition', 'leader', 'epoch', 'replicas', 'isr'], ...t.partitions.map(p => [p.partition, p.leaderId, p.leaderEpoch, p.replicas.join(','), p.isr.join(',')])])
          const cfg = configs?.[i].map(c => `  ${c.name}=${c.value ?? ''} (${c.sourceName})\n`).join('') ?? ''
          return head + rows + (configs !== undefined ? `configs:\n${cfg}` : '')
        }).join('\n'))
        return
      }
      case 'create': {
        needs(names, 1, 'a topic name: kafkats topics create <topic> [-p n] [-r n]')
        const configs = pairs(values, 'config')
        throwFirstError(await client.admin.createTopics(names.map(topic => ({ topic, numPartitions: int(values, 'partitions', 1), replicationFactor: int(values, 'replication-factor', 1), configs })), { ...call, ignoreExisting: values['if-not-exists'] === true }))
        await out(values, { created: names }, () => names.map(n => `created ${n}\n`).join(''))
        return
      }
      case 'delete': {
        needs(names, 1, 'topic names: kafkats topics delete <topic…>')
        throwFirstError(await client.admin.deleteTopics(names, { ...call, ignoreMissing: values['if-exists'] === true }))
        await out(values, { deleted: names }, () => names.map(n => `deleted ${n}\n`).join(''))
        return
      }
      case 'alter-configs': {
        needs(names, 1, 'a topic name: kafkats topics alter-configs <topic> --set k=v --delete k')
        const set = pairs(values, 'set')
        const remove = list(values, 'delete')
        if (Object.keys(set).length === 0 && remove.length === 0) throw new UsageError('alter-configs needs --set k=v or --delete k')
        throwFirstError(await client.admin.alterConfigs(names.map(name => ({ type: 'topic' as const, name, set, delete: remove })), call))
        await out(values, { altered: names, set, deleted: remove }, () => names.map(n => `altered ${n}\n`).join(''))
        return
      }
      default: throw new UsageError(`unknown topics action ${JSON.stringify(action)} (list, describe, create, delete, alter-configs)`)
    }
  })
}

function resetSpec (values: Values): { to: Parameters<Client['admin']['resetGroupOffsets']>[1], label: string } {
  const shift = str(values, 'shift-by')
  const to = str(values, 'to')
  if ((shift === undefined) === (to === undefined)) throw new UsageError('reset-offsets needs exactly one of --to and --shift-by')
  if (shift !== undefined) {
    if (!/^-?\d+$/.test(shift)) throw new UsageError(`--shift-by: expected an integer, got ${JSON.stringify(shift)}`)
    return { to: { shiftBy: BigInt(shift) }, label: `shift by ${shift}` }
  }
  if (to === 'earliest' || to === 'beginning') return { to: 'earliest', label: 'earliest' }
  if (to === 'latest' || to === 'end') return { to: 'latest', label: 'latest' }
  if (/^\d+$/.test(to!)) return { to: { offset: BigInt(to!) }, label: `offset ${to}` }
  if (to!.startsWith('@')) {
    const t = to!.slice(1)
    const ms = /^\d+$/.test(t) ? Number(t) : Date.parse(t)
    if (!Number.isFinite(ms)) throw new UsageError(`--to ${to}: expected @milliseconds or @ISO-date`)
    return { to: { timestamp: ms }, label: `timestamp ${new Date(ms).toISOString()}` }
  }
  throw new UsageError(`--to: expected earliest, latest, an offset or @timestamp, got ${JSON.stringify(to)}`)
}

export async function groups (args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    to: { type: 'string' },
    'shift-by': { type: 'string' },
    topic: { type: 'string', short: 't', multiple: true },
    execute: { type: 'boolean' },
    'dry-run': { type: 'boolean' }
  })
  const [action, ...ids] = positionals
  if (values.help === true || action === undefined) { process.stdout.write(groupsHelp); return values.help === true ? 0 : 2 }
  return await withClient(values, async (client, call) => {
    switch (action) {
      case 'list': {
        const listed = await client.admin.listGroups(call)
        await out(values, listed, () => listed.length === 0 ? '' : table([['group', 'type', 'state', 'coordinator'], ...listed.map(g => [g.groupId, g.type, g.state, g.coordinator])]))
        return
      }
      case 'describe': {
        needs(ids, 1, 'a group id: kafkats groups describe <group>')
        const [described, lag] = await Promise.all([client.admin.describeGroups(ids, call), Promise.all(ids.map(async id => await client.admin.lag(id, call)))])
        for (const d of described) if (d.error !== undefined) throw d.error
        await out(values, described.map((d, i) => ({ ...d, lag: lag[i] })), () => described.map((d, i) => {
          const head = `group ${d.groupId}  type ${d.type}  state ${d.state}  coordinator ${d.coordinator}${d.assignor !== undefined ? `  assignor ${d.assignor}` : d.protocol !== undefined ? `  protocol ${d.protocol}` : ''}\n`
          const members = d.members.length === 0 ? 'no members\n' : table([['member', 'client', 'host', 'partitions'], ...d.members.map(m => [m.memberId, m.clientId, m.clientHost, m.assignment.map(a => `${a.topic}:${a.partition}`).join(',')])])
          const total = lag[i].reduce((n, l) => l.error === undefined ? n + l.lag : n, 0n)
          // As kafka-consumer-groups.sh: "-" for a partition without a commit (its lag counts from the log start).
          const row = (l: PartitionLag): Array<string | number | bigint> => [l.topic, l.partition, l.committed ?? '-', l.end, l.error !== undefined ? `- (${l.error.type})` : l.committed === undefined ? `${l.lag} (from start)` : l.lag]
          const lags = lag[i].length === 0 ? 'no partitions: no member is assigned any, and nothing was committed\n' : table([['topic', 'partition', 'committed', 'end', 'lag'], ...lag[i].map(row)]) + `total lag ${total}\n`
          return head + members + lags
        }).join('\n'))
        return
      }
      case 'reset-offsets': {
        needs(ids, 1, 'a group id: kafkats groups reset-offsets <group> --to earliest [--execute]')
        const { to, label } = resetSpec(values)
        const topics = list(values, 'topic')
        const dryRun = values.execute !== true
        const planned = await client.admin.resetGroupOffsets(ids[0], to, { ...call, dryRun, topics: topics.length > 0 ? topics : undefined })
        const failed = planned.filter(p => p.error !== undefined)
        if (planned.length === 0 && topics.length === 0) throw new UsageError(`group ${ids[0]} has no committed offsets to reset: name the topics with --topic`)
        await out(values, { group: ids[0], to: label, executed: !dryRun, offsets: planned }, () =>
          table([['topic', 'partition', 'previous', 'new'], ...planned.map(p => [p.topic, p.partition, p.previous, p.offset])]) +
          (dryRun ? 'dry run: nothing committed; add --execute to commit these offsets\n' : `committed ${planned.length - failed.length} offsets (${label})\n`))
        if (failed.length > 0) throw failed[0].error!
        return
      }
      case 'delete': {
        needs(ids, 1, 'group ids: kafkats groups delete <group…>')
        const results = await client.admin.deleteGroups(ids, call)
        await out(values, results, () => results.map(r => r.error === undefined ? `deleted ${r.groupId}\n` : `not deleted ${r.groupId}: ${r.error.message}\n`).join(''))
        const failed = results.find(r => r.error !== undefined)
        if (failed !== undefined) throw failed.error!
        return
      }
      default: throw new UsageError(`unknown groups action ${JSON.stringify(action)} (list, describe, reset-offsets, delete)`)
    }
  })
}

export async function offsets (args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { time: { type: 'string' } })
  if (values.help === true || positionals.length === 0) { process.stdout.write(offsetsHelp); return values.help === true ? 0 : 2 }
  return await withClient(values, async (client, call) => {
    const described = throwFirstError(await client.admin.describeTopics(positionals, call))
    const partitions = described.flatMap(t => t.partitions.map(p => ({ topic: t.name, partition: p.partition })))
    const time = str(values, 'time')
    if (time === undefined) {
      const [first, last] = await Promise.all((['earliest', 'latest'] as const).map(async spec => await client.admin.listOffsets(partitions.map(p => ({ ...p, spec })), call)))
      const rows = partitions.map((p, i) => ({ ...p, earliest: first[i].offset, latest: last[i].offset }))
      await out(values, rows, () => table([['topic', 'partition', 'earliest', 'latest'], ...rows.map(r => [r.topic, r.partition, r.earliest, r.latest])]))
      return
    }
    let spec: 'earliest' | 'latest' | { timestamp: number }
    if (time === 'earliest' || time === 'latest') spec = time
    else {
      const t = time.startsWith('@') ? time.slice(1) : time
      const ms = /^\d+$/.test(t) ? Number(t) : Date.parse(t)
      if (!Number.isFinite(ms)) throw new UsageError(`--time: expected earliest, latest or @timestamp, got ${JSON.stringify(time)}`)
      spec = { timestamp: ms }
    }
    const listed = await client.admin.listOffsets(partitions.map(p => ({ ...p, spec })), call)
    await out(values, listed, () => table([['topic', 'partition', 'offset', 'timestamp'], ...listed.map(l => [l.topic, l.partition, l.offset, l.timestamp])]))
  })
}

const aclOptions = {
  'resource-type': { type: 'string' },
  'resource-name': { type: 'string' },
  'pattern-type': { type: 'string' },
  principal: { type: 'string' },
  host: { type: 'string' },
  operation: { type: 'string' },
  permission: { type: 'string' }
} as const

function aclFilter (values: Values): AclFilter {
  const filter: Record<string, string> = {}
  for (const [flag, field] of [['resource-type', 'resourceType'], ['resource-name', 'resourceName'], ['pattern-type', 'patternType'], ['principal', 'principal'], ['host', 'host'], ['operation', 'operation'], ['permission', 'permission']] as const) {
    const v = str(values, flag)
    if (v !== undefined) filter[field] = v
  }
  return filter as AclFilter
}

export async function acls (args: string[]): Promise<number> {
  const { values, positionals } = parse(args, aclOptions)
  const [action] = positionals
  if (values.help === true || action === undefined) { process.stdout.write(aclsHelp); return values.help === true ? 0 : 2 }
  const rows = (bindings: AclBinding[]): string => bindings.length === 0 ? '' : table([['resource', 'name', 'pattern', 'principal', 'host', 'operation', 'permission'], ...bindings.map(b => [b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permission])])
  return await withClient(values, async (client, call) => {
    switch (action) {
      case 'list': {
        const bindings = await client.admin.describeAcls(aclFilter(values), call)
        await out(values, bindings, () => rows(bindings))
        return
      }
      case 'create': {
        const binding = aclFilter(values) as AclBinding
        for (const [flag, field] of [['resource-type', 'resourceType'], ['resource-name', 'resourceName'], ['principal', 'principal'], ['operation', 'operation'], ['permission', 'permission']] as const) {
          if (binding[field] === undefined) throw new UsageError(`acls create needs --${flag}`)
        }
        const [result] = await client.admin.createAcls([binding], call)
        if (result.error !== undefined) throw result.error
        await out(values, result.binding, () => `created\n${rows([result.binding])}`)
        return
      }
      case 'delete': {
        const [result] = await client.admin.deleteAcls([aclFilter(values)], call)
        if (result.error !== undefined) throw result.error
        await out(values, result.deleted, () => `deleted ${result.deleted.length}\n${rows(result.deleted)}`)
        return
      }
      default: throw new UsageError(`unknown acls action ${JSON.stringify(action)} (list, create, delete)`)
    }
  })
}

export async function cluster (args: string[]): Promise<number> {
  const { values } = parse(args, {})
  if (values.help === true) { process.stdout.write(clusterHelp); return 0 }
  return await withClient(values, async (client, call) => {
    const d = await client.admin.describeCluster(call)
    await out(values, d, () => `cluster ${d.clusterId}  controller ${d.controllerId}\n` + table([['broker', 'address', 'rack'], ...d.brokers.map(b => [b.nodeId, `${b.host}:${b.port}`, b.rack])]))
  })
}

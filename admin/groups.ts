/**
 * Groups of every type: listing (ListGroups on every broker, with type and state filters),
 * describing at each group's coordinator (ConsumerGroupDescribe for KIP-848 groups,
 * DescribeGroups for classic ones, ShareGroupDescribe and StreamsGroupDescribe), deleting,
 * and removing static members.
 */
import { ConsumerGroupDescribe } from '../protocol/apis/consumer-group-describe'
import { DeleteGroups } from '../protocol/apis/delete-groups'
import { DescribeGroups } from '../protocol/apis/describe-groups'
import { ShareGroupDescribe } from '../protocol/apis/share-group-describe'
import { StreamsGroupDescribe, type StreamsGroupDescribeAssignment } from '../protocol/apis/streams-group-describe'
import { LeaveGroup } from '../protocol/apis/leave-group'
import { ListGroups } from '../protocol/apis/list-groups'
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment } from '../protocol/consumer-protocol'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { UnsupportedVersionError } from '../client/errors'
import { checkString } from '../client/validate'
import { isCoordinatorMoved, itemError, Misrouted, throwIf, type AdminCallOptions, type Router, type TopicPartitionKey } from './route'

const OPERATIONS_NOT_ASKED = -2147483648

/** A group's type, as `listGroups` and `describeGroups` report it: classic, KIP-848 consumer, share or streams. */
export type GroupType = 'classic' | 'consumer' | 'share' | 'streams'

/** One group of `admin.listGroups()`: id, type, state, protocol type and coordinator. */
export interface ListedGroup {
  /** The group's id. */
  groupId: string
  /** 'consumer' for consumer groups of either protocol, '' for a classic group without a protocol type, or another protocol type (e.g. 'connect'). */
  protocolType: string
  /** E.g. 'Empty', 'Stable', 'PreparingRebalance', 'Reconciling', 'Dead'. */
  state: string
  /** The group's type: 'classic', 'consumer', 'share', 'streams' (or another the broker names). */
  type: GroupType | string
  /** The broker that answered for it (its coordinator). */
  coordinator: number
}

/** Every group in the cluster (each broker lists those it coordinates), optionally filtered by type and state. */
export async function listGroups (router: Router, options: AdminCallOptions & { types?: GroupType[], states?: string[] } = {}): Promise<ListedGroup[]> {
  const deadline = router.deadline('listGroups', options, ['types', 'states'])
  if (router.client.metadata.brokers.every(b => b.nodeId < 0)) await router.client.metadata.refresh([], options.signal, deadline)
  const brokers = router.client.metadata.brokers.filter(b => b.nodeId >= 0)
  const lists = await Promise.all(brokers.map(async broker => {
    const response = await router.any(ListGroups, {
      statesFilter: options.states ?? [],
      typesFilter: options.types ?? []
    }, deadline, options.signal, broker.nodeId)
    throwIf(response.errorCode, `Listing groups on broker ${broker.nodeId}`)
    return response.groups.map(g => ({ groupId: g.groupId, protocolType: g.protocolType, state: g.groupState, type: g.groupType, coordinator: broker.nodeId }))
  }))
  return lists.flat().sort((a, b) => a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0)
}

/** One member of a described group: its ids, host and what it owns. */
export interface GroupMemberDescription {
  /** The member's id, given by the coordinator. */
  memberId: string
  /** The static member's instance id (KIP-345); null for a dynamic member. */
  instanceId: string | null
  /** The client id the member connected with. */
  clientId: string
  /** The host the member connected from, as the coordinator saw it (e.g. '/10.0.0.5'). */
  clientHost: string
  /** What the member owns now (decoded from the classic assignment for classic consumer groups; empty for streams members, see `tasks`). */
  assignment: TopicPartitionKey[]
  /** KIP-848 and streams: what the member is moving to, the member's epoch. */
  targetAssignment?: TopicPartitionKey[]
  /** KIP-848, share and streams: the member's epoch. */
  memberEpoch?: number
  /** KIP-848 and share groups: the member's subscription. */
  subscribedTopics?: string[]
  /** KIP-848: the member's subscription pattern (RE2/J); null when it subscribes by names. */
  subscribedTopicRegex?: string | null
  /** KIP-848, share and streams: the member's rack; null when it has none. */
  rackId?: string | null
  /** Streams groups: the tasks the member owns and is moving to, its process and topology epoch. */
  tasks?: StreamsTasks
  /** Streams groups: the tasks the member is moving to. */
  targetTasks?: StreamsTasks
  /** Streams groups: the id of the member's Streams process. */
  processId?: string
  /** Streams groups: the epoch of the topology the member runs. */
  topologyEpoch?: number
}

/** A streams member's tasks: per subtopology, the partitions (task = subtopology × partition). */
export interface StreamsTasks {
  /** The active tasks: the member processes these partitions. */
  active: Array<{
    /** The subtopology's id. */
    subtopologyId: string
    /** Its partitions the member has tasks for. */
    partitions: number[]
  }>
  /** The standby tasks: the member keeps a replica of these partitions' state. */
  standby: Array<{
    /** The subtopology's id. */
    subtopologyId: string
    /** Its partitions the member has tasks for. */
    partitions: number[]
  }>
  /** The warm-up tasks: the member builds these partitions' state before taking them over. */
  warmup: Array<{
    /** The subtopology's id. */
    subtopologyId: string
    /** Its partitions the member has tasks for. */
    partitions: number[]
  }>
}

/** What `admin.describeGroups()` answers for one group, whatever its type: state, members and their assignments, the coordinator. */
export interface GroupDescription {
  /** The group's id. */
  groupId: string
  /** Which protocol the group runs: 'classic', 'consumer' (KIP-848), 'share' (KIP-932) or 'streams' (KIP-1071). */
  type: 'consumer' | 'classic' | 'share' | 'streams'
  /** The group's state, e.g. 'Empty', 'Stable', 'PreparingRebalance', 'Reconciling' or 'Dead'. */
  state: string
  /** Classic: the protocol type ('consumer', 'connect', …) and the chosen protocol (the assignor). */
  protocolType?: string
  /** Classic: the chosen protocol (for consumer groups, the assignor's name); '' when none. */
  protocol?: string
  /** KIP-848, share and streams: the server-side assignor and the epochs. */
  assignor?: string
  /** KIP-848, share and streams: the group's epoch, bumped on each change of members or subscriptions. */
  groupEpoch?: number
  /** KIP-848, share and streams: the epoch of the group's target assignment. */
  assignmentEpoch?: number
  /** Streams: the application's topology as the group knows it (null before a member sent one). */
  topology?: {
    /** The topology's epoch. */
    epoch: number
    /** Its subtopologies. */
    subtopologies: Array<{
      /** The subtopology's id. */
      subtopologyId: string
      /** The topics it reads. */
      sourceTopics: string[]
      /** The repartition topics it writes. */
      repartitionSinkTopics: string[]
    }>
  } | null
  /** The node id of the group's coordinator, which answered. */
  coordinator: number
  /** The group's members. */
  members: GroupMemberDescription[]
  /** Bit field of the ACL operations the caller may perform, with includeAuthorizedOperations. */
  authorizedOperations?: number
  /** The error when the group could not be described (e.g. GROUP_ID_NOT_FOUND); absent when it was. */
  error?: BrokerError
}

/** What one describe API said of one group at its coordinator. */
type Described = GroupDescription | 'not this type' | 'moved'

interface DescribeCall { nodeId: number, signal?: AbortSignal, timeoutMs: number, includeAuthorizedOperations: boolean }

/**
 * Describes groups at their coordinators. Each group type has its own describe API, and
 * each answers GROUP_ID_NOT_FOUND for a group of another type: ConsumerGroupDescribe is
 * asked first, DescribeGroups for what it does not know, then ShareGroupDescribe and
 * StreamsGroupDescribe for what is not classic either (unless `kinds` asks for consumer
 * groups only: what holds committed offsets). A group no API knows is reported as
 * DescribeGroups reports it (state Dead, or GROUP_ID_NOT_FOUND).
 */
export async function describeGroups (router: Router, groupIds: string[], options: AdminCallOptions & { includeAuthorizedOperations?: boolean } = {}, kinds: 'all' | 'consumer groups' = 'all'): Promise<GroupDescription[]> {
  const deadline = router.deadline('describeGroups', options, ['includeAuthorizedOperations'])
  for (const id of groupIds) checkString('describeGroups', 'groupIds[]', id)
  const includeAuthorizedOperations = options.includeAuthorizedOperations ?? false
  const results = new Map<string, GroupDescription>()
  let pending = groupIds
  await router.retry(deadline, options.signal, async () => {
    const coordinators = await router.coordinators('group', pending, deadline, options.signal)
    const byNode = new Map<number, string[]>()
    for (const id of pending) byNode.set(coordinators.get(id)!, [...(byNode.get(coordinators.get(id)!) ?? []), id])
    const moved: string[] = []
    await Promise.all([...byNode].map(async ([nodeId, ids]) => {
      const call: DescribeCall = { nodeId, signal: options.signal, timeoutMs: router.timeLeft(deadline), includeAuthorizedOperations }
      const take = (described: Map<string, Described>): string[] => {
        const left: string[] = []
        for (const [id, d] of described) {
          if (d === 'moved') moved.push(id)
          else if (d === 'not this type') left.push(id)
          else results.set(id, d)
        }
        return left
      }
      const notConsumer = take(await describeConsumerGroups(router, ids, call))
      if (notConsumer.length === 0) return
      const classic = await describeClassicGroups(router, notConsumer, call)
      const notClassic = take(classic)
      if (notClassic.length === 0) return
      // Only consumer groups (KIP-848 or classic) asked for: a group of neither kind is absent.
      if (kinds === 'consumer groups') {
        for (const id of notClassic) if (!moved.includes(id)) results.set(id, absentGroup(id, nodeId))
        return
      }
      const [share, streams] = await Promise.all([describeShareGroups(router, notClassic, call), describeStreamsGroups(router, notClassic, call)])
      take(share)
      take(new Map([...streams].filter(([id]) => share.get(id) === 'not this type')))
      // Known to none: as DescribeGroups described it.
      for (const id of notClassic) if (!results.has(id) && !moved.includes(id)) results.set(id, absentGroup(id, nodeId))
    }))
    for (const id of moved) router.forgetCoordinator('group', id)
    pending = moved
    if (moved.length > 0) throw new Misrouted(new BrokerError(ErrorCode.NOT_COORDINATOR, `Describing groups ${moved.join(', ')}`))
  })
  return groupIds.map(id => results.get(id)!)
}

/** One describe API's answers, by group id; a broker without the API knows none of its type. */
async function describeWith<G extends { groupId: string, errorCode: number }> (ids: string[], ask: () => Promise<{ groups: G[] }>, describe: (g: G) => GroupDescription): Promise<Map<string, Described>> {
  const described = new Map<string, Described>(ids.map(id => [id, 'not this type']))
  let groups: G[]
  try {
    groups = (await ask()).groups
  } catch (error) {
    if (error instanceof UnsupportedVersionError) return described
    throw error
  }
  for (const g of groups) described.set(g.groupId, isCoordinatorMoved(g.errorCode) ? 'moved' : g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND ? 'not this type' : describe(g))
  return described
}

function described (g: { groupId: string, errorCode: number, errorMessage: string | null, authorizedOperations: number }, nodeId: number, fields: Omit<GroupDescription, 'groupId' | 'coordinator' | 'error' | 'authorizedOperations'>): GroupDescription {
  const description: GroupDescription = { groupId: g.groupId, ...fields, coordinator: nodeId, error: itemError(g.errorCode, `Describing group "${g.groupId}"`, g.errorMessage) }
  if (g.authorizedOperations !== OPERATIONS_NOT_ASKED) description.authorizedOperations = g.authorizedOperations
  return description
}

const partitionsOf = (assignment: { topicPartitions: Array<{ topicName: string, partitions: number[] }> }): TopicPartitionKey[] =>
  assignment.topicPartitions.flatMap(t => t.partitions.map(partition => ({ topic: t.topicName, partition })))

/** The group fields of the protocols whose coordinator assigns (KIP-848 consumer and share groups). */
function serverAssigned (type: 'consumer' | 'share', g: { groupState: string, assignorName: string, groupEpoch: number, assignmentEpoch: number }): Pick<GroupDescription, 'type' | 'state' | 'assignor' | 'groupEpoch' | 'assignmentEpoch'> {
  return { type, state: g.groupState, assignor: g.assignorName, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch }
}

/** A member of a KIP-848 consumer or share group: its subscription and what it owns. */
function subscribedMember (m: { memberId: string, clientId: string, clientHost: string, memberEpoch: number, rackId: string | null, subscribedTopicNames: string[], assignment: { topicPartitions: Array<{ topicName: string, partitions: number[] }> } }, instanceId: string | null): GroupMemberDescription {
  return {
    memberId: m.memberId,
    instanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    assignment: partitionsOf(m.assignment),
    memberEpoch: m.memberEpoch,
    subscribedTopics: m.subscribedTopicNames,
    rackId: m.rackId
  }
}

async function describeConsumerGroups (router: Router, ids: string[], call: DescribeCall): Promise<Map<string, Described>> {
  return await describeWith(ids, async () => await router.client.request(ConsumerGroupDescribe, { groupIds: ids, includeAuthorizedOperations: call.includeAuthorizedOperations }, call), g => described(g, call.nodeId, {
    ...serverAssigned('consumer', g),
    members: g.members.map(m => ({
      ...subscribedMember(m, m.instanceId),
      targetAssignment: partitionsOf(m.targetAssignment),
      subscribedTopicRegex: m.subscribedTopicRegex
    }))
  }))
}

/** Classic groups; a group that is not classic (or does not exist) is GROUP_ID_NOT_FOUND from v6, state Dead before. */
async function describeClassicGroups (router: Router, ids: string[], call: DescribeCall): Promise<Map<string, Described>> {
  const answers = await describeWith(ids, async () => await router.client.request(DescribeGroups, { groups: ids, includeAuthorizedOperations: call.includeAuthorizedOperations }, call), g => described(g, call.nodeId, {
    type: 'classic',
    state: g.groupState,
    protocolType: g.protocolType,
    protocol: g.protocolData,
    members: g.members.map(m => ({
      memberId: m.memberId,
      instanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: g.protocolType === CONSUMER_PROTOCOL_TYPE && m.memberAssignment.length > 0 ? classicAssignment(m.memberAssignment) : []
    }))
  }))
  for (const [id, d] of answers) {
    if (typeof d === 'object' && d.error === undefined && d.state === 'Dead' && d.members.length === 0) answers.set(id, 'not this type')
  }
  return answers
}

async function describeShareGroups (router: Router, ids: string[], call: DescribeCall): Promise<Map<string, Described>> {
  return await describeWith(ids, async () => await router.client.request(ShareGroupDescribe, { groupIds: ids, includeAuthorizedOperations: call.includeAuthorizedOperations }, call), g => described(g, call.nodeId, {
    ...serverAssigned('share', g),
    members: g.members.map(m => subscribedMember(m, null))
  }))
}

async function describeStreamsGroups (router: Router, ids: string[], call: DescribeCall): Promise<Map<string, Described>> {
  const tasks = (a: StreamsGroupDescribeAssignment): StreamsTasks => ({ active: a.activeTasks, standby: a.standbyTasks, warmup: a.warmupTasks })
  return await describeWith(ids, async () => await router.client.request(StreamsGroupDescribe, { groupIds: ids, includeAuthorizedOperations: call.includeAuthorizedOperations }, call), g => described(g, call.nodeId, {
    type: 'streams',
    state: g.groupState,
    ...(g.assignorName !== null ? { assignor: g.assignorName } : {}),
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    topology: g.topology === null
      ? null
      : { epoch: g.topology.epoch, subtopologies: (g.topology.subtopologies ?? []).map(s => ({ subtopologyId: s.subtopologyId, sourceTopics: s.sourceTopics, repartitionSinkTopics: s.repartitionSinkTopics })) },
    members: g.members.map(m => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: [],
      memberEpoch: m.memberEpoch,
      rackId: m.rackId,
      tasks: tasks(m.assignment),
      targetTasks: tasks(m.targetAssignment),
      processId: m.processId,
      topologyEpoch: m.topologyEpoch
    }))
  }))
}

/** A group no describe API knows, as DescribeGroups before v6 describes it. */
function absentGroup (groupId: string, nodeId: number): GroupDescription {
  return { groupId, type: 'classic', state: 'Dead', protocolType: '', protocol: '', coordinator: nodeId, members: [], error: new BrokerError(ErrorCode.GROUP_ID_NOT_FOUND, `Describing group "${groupId}"`, 'no group of any type has this id') }
}

function classicAssignment (bytes: Buffer): TopicPartitionKey[] {
  try {
    return decodeAssignment(bytes).assignedPartitions.flatMap(t => t.partitions.map(partition => ({ topic: t.topic, partition })))
  } catch {
    // Not the standard consumer protocol's layout (a custom assignor's bytes).
    return []
  }
}

/** Deletes empty groups with their committed offsets; one result per group. */
export async function deleteGroups (router: Router, groupIds: string[], options: AdminCallOptions = {}): Promise<Array<{ groupId: string, error?: BrokerError }>> {
  const deadline = router.deadline('deleteGroups', options)
  for (const id of groupIds) checkString('deleteGroups', 'groupIds[]', id)
  return await Promise.all(groupIds.map(async groupId => {
    const response = await router.coordinator('group', groupId, DeleteGroups, { groupsNames: [groupId] }, deadline, options.signal, r => r.results.map(g => g.errorCode))
    const result = response.results.find(g => g.groupId === groupId)
    return { groupId, error: result === undefined ? new BrokerError(-1, `Deleting group "${groupId}": no answer for it`) : itemError(result.errorCode, `Deleting group "${groupId}"`, result.errorMessage) }
  }))
}

/**
 * Removes members from a classic group (LeaveGroup v3+): static members by instance id,
 * or, without `members`, every member the group has now.
 */
export async function removeMembers (router: Router, groupId: string, options: AdminCallOptions & { members?: Array<{ instanceId: string } | { memberId: string }>, reason?: string } = {}): Promise<Array<{ memberId: string, instanceId: string | null, error?: BrokerError }>> {
  const deadline = router.deadline('removeMembers', options, ['members', 'reason'])
  checkString('removeMembers', 'groupId', groupId)
  let members = options.members?.map(m => 'instanceId' in m ? { memberId: '', groupInstanceId: m.instanceId } : { memberId: m.memberId, groupInstanceId: null })
  if (members === undefined) {
    const [group] = await describeGroups(router, [groupId], { signal: options.signal, timeoutMs: router.timeLeft(deadline) })
    if (group.error !== undefined) throw group.error
    members = group.members.map(m => m.instanceId !== null ? { memberId: '', groupInstanceId: m.instanceId } : { memberId: m.memberId, groupInstanceId: null })
  }
  if (members.length === 0) return []
  const reason = options.reason ?? 'removed by an admin (kafkats removeMembers)'
  const response = await router.coordinator('group', groupId, LeaveGroup, {
    groupId,
    members: members.map(m => ({ ...m, reason }))
  }, deadline, options.signal, r => [r.errorCode])
  throwIf(response.errorCode, `Removing members from group "${groupId}"`)
  return response.members.map(m => ({ memberId: m.memberId, instanceId: m.groupInstanceId === '' ? null : m.groupInstanceId, error: itemError(m.errorCode, `Removing member ${m.groupInstanceId ?? m.memberId} from group "${groupId}"`) }))
}

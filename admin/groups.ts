/**
 * Groups of every type: listing (ListGroups on every broker, with type and state filters),
 * describing at each group's coordinator (ConsumerGroupDescribe for KIP-848 groups,
 * DescribeGroups for classic ones), deleting, and removing static members.
 */
import { ConsumerGroupDescribe } from '../protocol/apis/consumer-group-describe'
import { DeleteGroups } from '../protocol/apis/delete-groups'
import { DescribeGroups } from '../protocol/apis/describe-groups'
import { LeaveGroup } from '../protocol/apis/leave-group'
import { ListGroups } from '../protocol/apis/list-groups'
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment } from '../protocol/consumer-protocol'
import { BrokerError } from '../protocol/errors'
import { UnsupportedVersionError } from '../client/errors'
import { checkString } from '../client/validate'
import { isCoordinatorMoved, itemError, Misrouted, throwIf, type AdminCallOptions, type Router, type TopicPartitionKey } from './route'

const GROUP_ID_NOT_FOUND = 69
const OPERATIONS_NOT_ASKED = -2147483648

export type GroupType = 'classic' | 'consumer' | 'share' | 'streams'

export interface ListedGroup {
  groupId: string
  /** 'consumer' for consumer groups of either protocol, '' for a classic group without a protocol type, or another protocol type (e.g. 'connect'). */
  protocolType: string
  /** E.g. 'Empty', 'Stable', 'PreparingRebalance', 'Reconciling', 'Dead'. */
  state: string
  type: GroupType | string
  /** The broker that answered for it (its coordinator). */
  coordinator: number
}

/** Every group in the cluster (each broker lists those it coordinates), optionally filtered by type and state. */
export async function listGroups (router: Router, options: AdminCallOptions & { types?: GroupType[], states?: string[] } = {}): Promise<ListedGroup[]> {
  const deadline = router.deadline('listGroups', options, ['types', 'states'])
  if (router.client.metadata.brokers.every(b => b.nodeId < 0)) await router.client.metadata.refresh([], options.signal)
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

export interface GroupMemberDescription {
  memberId: string
  instanceId: string | null
  clientId: string
  clientHost: string
  /** What the member owns now (decoded from the classic assignment for classic consumer groups). */
  assignment: TopicPartitionKey[]
  /** KIP-848: what the member is moving to, the member's epoch, its subscription. */
  targetAssignment?: TopicPartitionKey[]
  memberEpoch?: number
  subscribedTopics?: string[]
  subscribedTopicRegex?: string | null
  rackId?: string | null
}

export interface GroupDescription {
  groupId: string
  /** 'consumer' (KIP-848) or 'classic'. */
  type: 'consumer' | 'classic'
  state: string
  /** Classic: the protocol type ('consumer', 'connect', …) and the chosen protocol (the assignor). */
  protocolType?: string
  protocol?: string
  /** KIP-848: the server-side assignor and the epochs. */
  assignor?: string
  groupEpoch?: number
  assignmentEpoch?: number
  coordinator: number
  members: GroupMemberDescription[]
  /** Bit field of the ACL operations the caller may perform, with includeAuthorizedOperations. */
  authorizedOperations?: number
  error?: BrokerError
}

/**
 * Describes groups at their coordinators: ConsumerGroupDescribe first, and DescribeGroups
 * for those it does not know (classic groups answer GROUP_ID_NOT_FOUND to it).
 */
export async function describeGroups (router: Router, groupIds: string[], options: AdminCallOptions & { includeAuthorizedOperations?: boolean } = {}): Promise<GroupDescription[]> {
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
      const call = { nodeId, signal: options.signal, timeoutMs: Math.max(1, deadline - Date.now()) }
      const classic: string[] = []
      try {
        const response = await router.client.request(ConsumerGroupDescribe, { groupIds: ids, includeAuthorizedOperations }, call)
        for (const g of response.groups) {
          if (isCoordinatorMoved(g.errorCode)) { moved.push(g.groupId); continue }
          if (g.errorCode === GROUP_ID_NOT_FOUND) { classic.push(g.groupId); continue }
          const member = (m: typeof g.members[number]): GroupMemberDescription => ({
            memberId: m.memberId,
            instanceId: m.instanceId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            assignment: m.assignment.topicPartitions.flatMap(t => t.partitions.map(partition => ({ topic: t.topicName, partition }))),
            targetAssignment: m.targetAssignment.topicPartitions.flatMap(t => t.partitions.map(partition => ({ topic: t.topicName, partition }))),
            memberEpoch: m.memberEpoch,
            subscribedTopics: m.subscribedTopicNames,
            subscribedTopicRegex: m.subscribedTopicRegex,
            rackId: m.rackId
          })
          const described: GroupDescription = {
            groupId: g.groupId,
            type: 'consumer',
            state: g.groupState,
            assignor: g.assignorName,
            groupEpoch: g.groupEpoch,
            assignmentEpoch: g.assignmentEpoch,
            coordinator: nodeId,
            members: g.members.map(member),
            error: itemError(g.errorCode, `Describing group "${g.groupId}"`, g.errorMessage)
          }
          if (g.authorizedOperations !== OPERATIONS_NOT_ASKED) described.authorizedOperations = g.authorizedOperations
          results.set(g.groupId, described)
        }
      } catch (error) {
        // A broker without KIP-848 knows only classic groups.
        if (!(error instanceof UnsupportedVersionError)) throw error
        classic.push(...ids)
      }
      if (classic.length === 0) return
      const response = await router.client.request(DescribeGroups, { groups: classic, includeAuthorizedOperations }, call)
      for (const g of response.groups) {
        if (isCoordinatorMoved(g.errorCode)) { moved.push(g.groupId); continue }
        const described: GroupDescription = {
          groupId: g.groupId,
          type: 'classic',
          state: g.groupState,
          protocolType: g.protocolType,
          protocol: g.protocolData,
          coordinator: nodeId,
          members: g.members.map(m => ({
            memberId: m.memberId,
            instanceId: m.groupInstanceId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            assignment: g.protocolType === CONSUMER_PROTOCOL_TYPE && m.memberAssignment.length > 0 ? classicAssignment(m.memberAssignment) : []
          })),
          error: itemError(g.errorCode, `Describing group "${g.groupId}"`, g.errorMessage)
        }
        if (g.authorizedOperations !== OPERATIONS_NOT_ASKED) described.authorizedOperations = g.authorizedOperations
        results.set(g.groupId, described)
      }
    }))
    for (const id of moved) router.forgetCoordinator('group', id)
    pending = moved
    if (moved.length > 0) throw new Misrouted(new BrokerError(16, `Describing groups ${moved.join(', ')}`))
  })
  return groupIds.map(id => results.get(id)!)
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
    const [group] = await describeGroups(router, [groupId], { signal: options.signal, timeoutMs: Math.max(1, deadline - Date.now()) })
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

/**
 * Transactions as an operator sees them: ListTransactions on every broker (each lists the
 * transactional ids it coordinates), DescribeTransactions at each id's coordinator, and
 * DescribeProducers at each partition's leader (who writes to it, and whether a
 * transaction is open there), and abortTransaction: an ABORT marker written by the admin
 * (WriteTxnMarkers at the leader, as Java's Admin.abortTransaction does) for a hanging
 * transaction, one that holds back the last stable offset while its coordinator no longer
 * knows it. It needs CLUSTER_ACTION on the cluster.
 */
import { DescribeProducers } from '../protocol/apis/describe-producers'
import { DescribeTransactions } from '../protocol/apis/describe-transactions'
import { WriteTxnMarkers } from '../protocol/apis/write-txn-markers'
import { ListTransactions } from '../protocol/apis/list-transactions'
import { ErrorCode } from '../protocol/error-codes'
import { BrokerError } from '../protocol/errors'
import { checkInteger, checkObject, checkKnownKeys, checkString } from '../client/validate'
import { byTopic, checkPartitions, partitionCodes } from './common'
import { isCoordinatorMoved, itemError, Misrouted, throwIf, tpKey, type AdminCallOptions, type Router, type TopicPartitionKey } from './route'

/** One transaction of `admin.listTransactions()`, as its coordinator lists it. */
export interface ListedTransaction {
  /** The transactional id. */
  transactionalId: string
  /** The producer id it holds. */
  producerId: bigint
  /** E.g. 'Ongoing', 'PrepareCommit', 'CompleteCommit', 'Empty'. */
  state: string
  /** The node id of the broker that listed it (its coordinator). */
  coordinator: number
}

export async function listTransactions (router: Router, options: AdminCallOptions & { states?: string[], producerIds?: bigint[], durationMs?: number, transactionalIdPattern?: string } = {}): Promise<ListedTransaction[]> {
  const deadline = router.deadline('listTransactions', options, ['states', 'producerIds', 'durationMs', 'transactionalIdPattern'])
  await router.client.metadata.refresh([], options.signal, deadline)
  const brokers = router.client.metadata.brokers.filter(b => b.nodeId >= 0)
  const lists = await Promise.all(brokers.map(async broker => {
    const response = await router.any(ListTransactions, {
      stateFilters: options.states ?? [],
      producerIdFilters: options.producerIds ?? [],
      durationFilter: BigInt(options.durationMs ?? -1),
      transactionalIdPattern: options.transactionalIdPattern ?? null
    }, deadline, options.signal, broker.nodeId)
    throwIf(response.errorCode, `Listing transactions on broker ${broker.nodeId}`)
    return response.transactionStates.map(t => ({ transactionalId: t.transactionalId, producerId: t.producerId, state: t.transactionState, coordinator: broker.nodeId }))
  }))
  return lists.flat()
}

/** What `admin.describeTransactions()` answers for one transactional id: state, producer id and epoch, timeout and the partitions of the open transaction. */
export interface TransactionDescription {
  /** The transactional id. */
  transactionalId: string
  /** E.g. 'Ongoing', 'PrepareCommit', 'CompleteCommit', 'Empty'. */
  state: string
  /** The transaction timeout the producer set, in ms. */
  timeoutMs: number
  /** -1 when no transaction is open. */
  startTimeMs: bigint
  /** The producer id the transactional id holds. */
  producerId: bigint
  /** The producer's epoch. */
  producerEpoch: number
  /** The partitions in the open transaction. */
  partitions: TopicPartitionKey[]
  /** The node id of the transactional id's coordinator. */
  coordinator: number
  /** The error when it could not be described (e.g. TRANSACTIONAL_ID_NOT_FOUND); absent when it was. */
  error?: BrokerError
}

export async function describeTransactions (router: Router, transactionalIds: string[], options: AdminCallOptions = {}): Promise<TransactionDescription[]> {
  const deadline = router.deadline('describeTransactions', options)
  const results = new Map<string, TransactionDescription>()
  let pending = transactionalIds
  await router.retry(deadline, options.signal, async () => {
    const coordinators = await router.coordinators('transaction', pending, deadline, options.signal)
    const byNode = new Map<number, string[]>()
    for (const id of pending) byNode.set(coordinators.get(id)!, [...(byNode.get(coordinators.get(id)!) ?? []), id])
    const moved: string[] = []
    await Promise.all([...byNode].map(async ([nodeId, ids]) => {
      const response = await router.client.request(DescribeTransactions, { transactionalIds: ids }, { nodeId, signal: options.signal, timeoutMs: router.timeLeft(deadline) })
      for (const t of response.transactionStates) {
        if (isCoordinatorMoved(t.errorCode)) { moved.push(t.transactionalId); continue }
        results.set(t.transactionalId, {
          transactionalId: t.transactionalId,
          state: t.transactionState,
          timeoutMs: t.transactionTimeoutMs,
          startTimeMs: t.transactionStartTimeMs,
          producerId: t.producerId,
          producerEpoch: t.producerEpoch,
          partitions: t.topics.flatMap(tp => tp.partitions.map(partition => ({ topic: tp.topic, partition }))),
          coordinator: nodeId,
          error: itemError(t.errorCode, `Describing transaction "${t.transactionalId}"`)
        })
      }
    }))
    for (const id of moved) router.forgetCoordinator('transaction', id)
    pending = moved
    if (moved.length > 0) throw new Misrouted(new BrokerError(ErrorCode.NOT_COORDINATOR, `Describing transactions ${moved.join(', ')}`))
  })
  return transactionalIds.map(id => results.get(id)!)
}

/** One partition of `admin.describeProducers()`: the producers its leader keeps state for. */
export interface PartitionProducers extends TopicPartitionKey {
  /** The active producers. */
  producers: Array<{
    /** The producer's id. */
    producerId: bigint
    /** The producer's epoch. */
    producerEpoch: number
    /** The sequence number of its last record written to the partition; -1 when none. */
    lastSequence: number
    /** The timestamp of its last record written, in ms since the epoch; -1 when none. */
    lastTimestamp: bigint
    /** The epoch of the coordinator that last wrote a marker for it; -1 before any marker was written. */
    coordinatorEpoch: number
    /** The first offset of its open transaction on the partition; -1 when it has none. */
    currentTxnStartOffset: bigint
  }>
  /** The error when the partition could not be described; absent when it was. */
  error?: BrokerError
}

/** The producers each partition's leader keeps state for, with their open transactions. */
export async function describeProducers (router: Router, partitions: TopicPartitionKey[], options: AdminCallOptions = {}): Promise<PartitionProducers[]> {
  const deadline = router.deadline('describeProducers', options)
  checkPartitions('describeProducers', partitions)
  const found = new Map<string, PartitionProducers['producers']>()
  const codes = await router.leaders(partitions, deadline, options.signal, async (leader, group) => {
    const response = await router.client.request(DescribeProducers, {
      topics: [...byTopic(group)].map(([name, ps]) => ({ name, partitionIndexes: ps.map(p => p.partition) }))
    }, { nodeId: leader, signal: options.signal, timeoutMs: router.timeLeft(deadline) })
    return partitionCodes(response.topics, (key, _topic, p) => { found.set(key, p.activeProducers) })
  })
  return partitions.map(p => {
    const key = tpKey(p.topic, p.partition)
    return { topic: p.topic, partition: p.partition, producers: found.get(key) ?? [], error: itemError(codes.get(key) ?? -1, `Describing producers of ${p.topic}-${p.partition}`) }
  })
}

/** What abortTransaction aborts: a producer's open transaction on one partition, as describeProducers shows it. */
export interface AbortTransactionSpec extends TopicPartitionKey {
  /** The producer id, as describeProducers reports it. */
  producerId: bigint
  /** The producer epoch, as describeProducers reports it. */
  producerEpoch: number
  /** The coordinatorEpoch describeProducers reports for the producer (-1 before any marker was written). */
  coordinatorEpoch: number
}

const ABORT_SPEC_KEYS = ['topic', 'partition', 'producerId', 'producerEpoch', 'coordinatorEpoch']

/**
 * Aborts a hanging transaction on one partition: the partition's leader writes an ABORT
 * marker for the producer, so read_committed consumers move past its records. Use it only
 * for a transaction its coordinator has lost (see describeProducers' currentTxnStartOffset
 * and listTransactions): the coordinator of a live transaction aborts it itself.
 */
export async function abortTransaction (router: Router, spec: AbortTransactionSpec, options: AdminCallOptions = {}): Promise<void> {
  const deadline = router.deadline('abortTransaction', options)
  checkObject('abortTransaction', 'spec', spec)
  checkKnownKeys('abortTransaction', spec, ABORT_SPEC_KEYS)
  checkString('abortTransaction', 'topic', spec.topic)
  checkInteger('abortTransaction', 'partition', spec.partition, { min: 0 })
  if (typeof spec.producerId !== 'bigint' || spec.producerId < 0n) throw new TypeError(`abortTransaction producerId: expected a bigint of 0 or more (describeProducers gives it), got ${String(spec.producerId)} (${typeof spec.producerId})`)
  checkInteger('abortTransaction', 'producerEpoch', spec.producerEpoch, { min: 0, max: 32767 })
  checkInteger('abortTransaction', 'coordinatorEpoch', spec.coordinatorEpoch, { min: -1 })
  const codes = await router.leaders([spec], deadline, options.signal, async leader => {
    const response = await router.client.request(WriteTxnMarkers, {
      markers: [{ producerId: spec.producerId, producerEpoch: spec.producerEpoch, transactionResult: false, coordinatorEpoch: spec.coordinatorEpoch, topics: [{ name: spec.topic, partitionIndexes: [spec.partition] }] }]
    }, { nodeId: leader, signal: options.signal, timeoutMs: router.timeLeft(deadline) })
    return partitionCodes(response.markers.filter(m => m.producerId === spec.producerId).flatMap(m => m.topics))
  })
  throwIf(codes.get(tpKey(spec.topic, spec.partition)) ?? -1, `Aborting the transaction of producer ${spec.producerId} (epoch ${spec.producerEpoch}) on ${spec.topic}-${spec.partition}`)
}

// Shared bits of the group consumer tests against the fake cluster: a cluster with one
// topic whose records are one per batch (so one fetch hands out exactly one record when
// maxPartitionBytes is 1), members that each get their own Client, a log of every batch
// handed to the application, and gates that hold a chosen batch "in processing" until
// the test lets it go.
import { Client } from '../../index'
import { ConsumerGroupHeartbeat } from '../../protocol/apis/consumer-group-heartbeat'
import type { ConsumerBatch } from '../../consumer/cursor'
import { GroupConsumer, type GroupConsumerOptions } from '../../group/group-consumer'
import type { MemberIdentity, TopicPartition } from '../../group/membership'
import { FakeCluster, withClock, type Clock, type CommitLogEntry, type FakeClusterOptions } from '../../testing/index'
import { sleep, waitFor } from '../support/wait'

export type Protocol = 'classic' | 'consumer'
export const protocols: Protocol[] = ['classic', 'consumer']



/** A promise the test resolves by hand. */
export interface Gate {
  readonly promise: Promise<void>
  readonly released: boolean
  release: () => void
}

export function gate (): Gate {
  let release!: () => void
  let released = false
  const promise = new Promise<void>(resolve => { release = resolve })
  return {
    promise,
    get released () { return released },
    release: () => {
      released = true
      release()
    }
  }
}

/** One batch handed to the application. */
export interface Delivery {
  partition: number
  offset: bigint
  nextOffset: bigint
  /** The member's identity when the batch was handed out (the last 'assigned'). */
  identity: MemberIdentity | undefined
  /** The group's committed offset of the partition when the batch was handed out. */
  committedAtHandOut: bigint | undefined
  at: number
  finished: boolean
}

/** What the application does with a batch; the batch counts as processed when it returns. */
export type Handler = (batch: ConsumerBatch, delivery: Delivery, member: Member) => Promise<void> | void

export class Member {
  readonly name: string
  readonly client: Client
  readonly consumer: GroupConsumer
  readonly deliveries: Delivery[] = []
  /** Every identity the member was assigned under, oldest first. */
  readonly identities: MemberIdentity[] = []
  readonly assignedEvents: Array<{ added: TopicPartition[], revoked: TopicPartition[], identity: MemberIdentity, at: number, commitLogLength: number }> = []
  readonly lostEvents: Array<{ partitions: TopicPartition[], reason: string, at: number, commitLogLength: number }> = []
  readonly dropped: Array<{ topic: string, partition: number, firstOffset: bigint | undefined, nextOffset: bigint, reason: string }> = []
  readonly warnings: unknown[] = []
  error: unknown
  handler: Handler = () => {}
  running: Promise<void> | undefined

  constructor (name: string, client: Client, consumer: GroupConsumer, harness: Harness) {
    this.name = name
    this.client = client
    this.consumer = consumer
    consumer.on('assigned', (event: { added: TopicPartition[], revoked: TopicPartition[], identity: MemberIdentity }) => {
      this.identities.push(event.identity)
      this.assignedEvents.push({ ...event, at: Date.now(), commitLogLength: harness.commits().length })
    })
    consumer.on('lost', (event: { partitions: TopicPartition[], reason: string }) => {
      this.lostEvents.push({ ...event, at: Date.now(), commitLogLength: harness.commits().length })
    })
    consumer.on('batchDropped', event => { this.dropped.push(event) })
    consumer.on('warning', error => { this.warnings.push(error) })
    consumer.on('error', error => { this.error = error })
  }

  /** The identity of the last assignment. */
  get identity (): MemberIdentity | undefined {
    return this.identities[this.identities.length - 1]
  }

  /**
   * Resolves once `count` calls of the consumer's commit() made from now on have settled:
   * the auto-commit timer calls commit(), so this waits out that many auto-commits (and any
   * revoke or explicit commit) instead of sleeping for a guessed number of intervals.
   */
  async commitsSettled (count: number): Promise<void> {
    const consumer = this.consumer
    const calls: Array<Promise<unknown>> = []
    const commit = consumer.commit.bind(consumer)
    consumer.commit = async (...args) => {
      const call = commit(...args)
      calls.push(call.catch(() => {}))
      return await call
    }
    try {
      await waitFor(`${count} commit() calls of ${this.name}`, () => calls.length >= count, { timeoutMs: 10_000 })
      await Promise.all(calls)
    } finally {
      delete (consumer as { commit?: unknown }).commit
    }
  }

  /** Partitions held now. */
  held (): number[] {
    return this.consumer.assignment().map(p => p.partition).sort((a, b) => a - b)
  }

  /** Starts the application loop: `handler` gets each batch; a throw ends the member. */
  run (harness: Harness, partitionsConcurrently = 4): void {
    this.running = this.consumer.run({
      partitionsConcurrently,
      eachBatch: async batch => {
        const delivery: Delivery = {
          partition: batch.partition,
          offset: batch.records[0].offset,
          nextOffset: batch.nextOffset,
          identity: this.identity,
          committedAtHandOut: harness.cluster.committedOffset(harness.groupId, harness.topic, batch.partition)?.offset,
          at: Date.now(),
          finished: false
        }
        this.deliveries.push(delivery)
        await this.handler(batch, delivery, this)
        delivery.finished = true
      }
    }).catch(error => { this.error = error })
  }

  /** Offsets handed out for a partition, in order. */
  offsets (partition: number): bigint[] {
    return this.deliveries.filter(d => d.partition === partition).map(d => d.offset)
  }

  /** The offset after the last finished batch of a partition (what at-least-once may commit), under `identity` if given. */
  processedUpTo (partition: number, identity?: MemberIdentity): bigint | undefined {
    let end: bigint | undefined
    for (const d of this.deliveries) {
      if (d.partition !== partition || !d.finished) continue
      if (identity !== undefined && (d.identity?.memberId !== identity.memberId || d.identity?.generation !== identity.generation)) continue
      if (end === undefined || d.nextOffset > end) end = d.nextOffset
    }
    return end
  }

  /** Commit log entries this member sent (by member id; a KIP-848 member keeps its id across fences). */
  commitsBy (harness: Harness, memberIds: string[] = [...new Set(this.identities.map(i => i.memberId))]): CommitLogEntry[] {
    return harness.commits().filter(e => memberIds.includes(e.memberId))
  }
}

export interface HarnessOptions {
  partitions?: number
  /** Records per partition, produced one per batch, values "<partition>:<i>" (default 20). */
  records?: number
  brokers?: number
  groups?: FakeClusterOptions['groups']
}

export class Harness {
  readonly cluster: FakeCluster
  readonly topic = 't'
  readonly groupId: string
  readonly admin: Client
  readonly members: Member[] = []
  readonly #gates: Gate[] = []
  readonly #defaults: Partial<GroupConsumerOptions>

  private constructor (cluster: FakeCluster, admin: Client, groupId: string, defaults: Partial<GroupConsumerOptions>) {
    this.cluster = cluster
    this.admin = admin
    this.groupId = groupId
    this.#defaults = defaults
  }

  static async start (options: HarnessOptions = {}, defaults: Partial<GroupConsumerOptions> = {}): Promise<Harness> {
    const partitions = options.partitions ?? 2
    const cluster = await FakeCluster.start({
      log: false,
      brokers: options.brokers ?? 1,
      topics: [{ name: 't', partitions, replicationFactor: 1 }],
      groups: { consumerHeartbeatIntervalMs: 50, consumerSessionTimeoutMs: 1500, ...options.groups }
    })
    const admin = new Client({ bootstrap: cluster.bootstrap, clientId: 'admin', retryBackoff: { initialMs: 5, maxMs: 50 }, requestTimeoutMs: 5000 })
    const harness = new Harness(cluster, admin, 'g', defaults)
    await harness.produce(options.records ?? 20, [...Array(partitions).keys()])
    return harness
  }

  /** Appends `count` records to each partition, one per batch. */
  async produce (count: number, partitions: number[]): Promise<void> {
    for (const partition of partitions) {
      const start = this.cluster.highWatermark(this.topic, partition)
      for (let i = 0; i < count; i++) {
        await this.admin.produceRaw({ topic: this.topic, partition, records: [{ value: Buffer.from(`${partition}:${Number(start) + i}`) }] })
      }
    }
  }

  /**
   * A new member with its own Client (a member's JoinGroup blocks its coordinator
   * connection), which starts joining at once. The Client loads the topic's metadata
   * first unless `coldMetadata`: a classic follower whose Client knows no topic id cannot
   * fetch its committed offsets (see the test of that bug in group-consumer.test.ts).
   * `retryBackoffMs` is the Client's first retry backoff (how long a failed request waits);
   * `clock` the Client's clock (a FakeClock moves the member's heartbeats only when the test does).
   */
  async member (name: string, protocol: Protocol, options: Partial<GroupConsumerOptions> = {}, { coldMetadata = false, retryBackoffMs = 5, clock }: { coldMetadata?: boolean, retryBackoffMs?: number, clock?: Clock } = {}): Promise<Member> {
    const clientOptions = { bootstrap: this.cluster.bootstrap, clientId: name, retryBackoff: { initialMs: retryBackoffMs, maxMs: Math.max(50, retryBackoffMs) }, requestTimeoutMs: 5000 }
    const client = new Client(clock === undefined ? clientOptions : withClock(clientOptions, clock))
    if (!coldMetadata) await client.metadata.refresh([this.topic])
    const consumer = new GroupConsumer(client, {
      groupId: this.groupId,
      topics: [this.topic],
      groupProtocol: protocol,
      assignor: protocol === 'classic' ? 'cooperative-sticky' : undefined,
      fromBeginning: true,
      // One record (one batch) per fetch of a partition: the batch in flight is exactly the one the test holds.
      maxPartitionBytes: 1,
      maxWaitMs: 50,
      sessionTimeoutMs: 1500,
      rebalanceTimeoutMs: 1500,
      heartbeatIntervalMs: 50,
      // Commits happen when the test calls commit() (or on a revoke), unless a test asks for auto-commits.
      autoCommitIntervalMs: 60_000,
      ...this.#defaults,
      ...options
    })
    const member = new Member(name, client, consumer, this)
    this.members.push(member)
    return member
  }

  /** A gate that close() opens, so a failed test does not leave a batch held forever. */
  gate (): Gate {
    const g = gate()
    this.#gates.push(g)
    return g
  }

  commits (): CommitLogEntry[] {
    return this.cluster.commitLog(this.groupId)
  }

  committed (partition: number): bigint | undefined {
    return this.cluster.committedOffset(this.groupId, this.topic, partition)?.offset
  }

  /** A line per coordinator event and commit, to print when a test fails. */
  describe (): string {
    return [
      ...this.cluster.groupEvents(this.groupId).map(e => `${e.at % 100_000} ${e.line}`),
      ...this.members.map(m => `${m.name}: deliveries ${m.deliveries.map(d => `p${d.partition}@${d.offset}${d.finished ? '' : '*'}`).join(' ')}`)
    ].join('\n')
  }

  async close (): Promise<void> {
    this.cluster.clearInterceptors()
    for (const g of this.#gates) g.release()
    await Promise.all(this.members.map(async m => {
      await m.consumer.close().catch(() => {})
      await Promise.race([m.running, sleep(3000)])
    }))
    await Promise.all(this.members.map(async m => await m.client.close().catch(() => {})))
    await this.admin.close()
    await this.cluster.close()
  }
}

/** Runs `body` with a fresh cluster and closes everything after, printing the group's story if it fails. */
export async function withHarness (options: HarnessOptions, body: (h: Harness) => Promise<void>): Promise<void> {
  const harness = await Harness.start(options)
  try {
    await body(harness)
  } catch (error) {
    if (process.env.GROUP_TEST_DEBUG !== undefined) console.error(harness.describe())
    throw error
  } finally {
    await harness.close()
  }
}

/**
 * A bare KIP-848 member of the harness's group, heartbeating every 100 ms with its own
 * Client and owning nothing. Joining (even for another topic) bumps the group epoch, so
 * every member's epoch moves on while its assignment stays: what a real broker does
 * whenever anyone joins. Resolves once it joined; call the result to stop it.
 */
export async function joinBareConsumerMember (h: Harness, memberId: string, topics: string[]): Promise<() => Promise<void>> {
  const client = new Client({ bootstrap: h.cluster.bootstrap, clientId: memberId, requestTimeoutMs: 5000 })
  await client.metadata.refresh(topics)
  let memberEpoch = 0
  const beat = async (): Promise<void> => {
    const answer = await client.request(ConsumerGroupHeartbeat, {
      groupId: h.groupId,
      memberId,
      memberEpoch,
      rebalanceTimeoutMs: memberEpoch === 0 ? 5000 : -1,
      subscribedTopicNames: memberEpoch === 0 ? topics : null,
      topicPartitions: memberEpoch === 0 ? [] : null
    }, { nodeId: h.cluster.coordinatorOf(h.groupId) })
    if (answer.errorCode !== 0) throw new Error(`bare member ${memberId}: heartbeat error ${answer.errorCode}`)
    memberEpoch = answer.memberEpoch
  }
  await beat()
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      await sleep(100)
      if (!stopped) await beat().catch(() => {})
    }
  })()
  return async () => {
    stopped = true
    await loop
    await client.close()
  }
}

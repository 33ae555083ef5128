/**
 * kafkajs's auto-commit on the GroupConsumer: per partition what the handlers resolved and
 * what was committed, kafkajs's commit schedule (after each fetched batch, or per
 * autoCommitInterval / autoCommitThreshold), and the commits themselves (COMMIT_OFFSETS).
 * The consumer is reached only through AutoCommitHost.
 */
import type { GroupConsumer } from '../group/group-consumer'
import type { MemberIdentity } from '../group/membership'
import { ErrorCode } from '../protocol/error-codes'
import type { ConsumerRunConfig, Offsets, PartitionOffset } from './consumer-options'
import { KafkaJSProtocolError, protocolErrorInfo, toKafkaJSError } from './errors'
import { consumerEvents, type ConsumerEventPayloads, type Instrumentation } from './instrumentation'
import type { ConsumerEventMap } from './types'
import type { Logger } from './logger'

export const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`

export /** Per-partition state of the running consumer: what was resolved, committed, and asked for. */
interface PartitionState {
  resolved?: bigint
  committed?: bigint
  /** A seek asked for while the partition's batch was in the handler (a pause rewinds instead). */
  interrupted: boolean
}

export interface AutoCommitHost {
  readonly groupId: string
  readonly logger: Logger
  readonly instrumentation: Instrumentation<ConsumerEventPayloads, ConsumerEventMap>
  /** The config of the running run(). */
  runConfig: () => ConsumerRunConfig
  /** The membership of the last assignment (for COMMIT_OFFSETS). */
  identity: () => MemberIdentity | undefined
}

export class AutoCommit {
  readonly #host: AutoCommitHost
  /** Per partition held: what was resolved, committed, and asked for. */
  readonly partitions = new Map<string, PartitionState>()
  #lastCommitAt = Date.now()
  #resolvedSinceCommit = 0

  constructor (host: AutoCommitHost) {
    this.#host = host
  }

  /** A handler resolved an offset (autoCommitThreshold counts them). */
  resolved (): void {
    this.#resolvedSinceCommit++
  }

  /** Offsets committed for this group (by this consumer or a transaction of the same Kafka instance). */
  noteCommitted (offsets: Array<{ topic: string, partition: number, offset: bigint }>): void {
    for (const o of offsets) {
      const state = this.partitions.get(key(o.topic, o.partition))
      if (state !== undefined) {
        state.committed = o.offset
        state.resolved = o.offset
      }
    }
  }

  /**
   * kafkajs's schedule: after every fetched batch (`midAnswer`: not yet, a part of a fetch
   * answer whose rest follows) unless autoCommitInterval/autoCommitThreshold say otherwise.
   */
  async commitIfDue (group: GroupConsumer, force: boolean, midAnswer = false): Promise<void> {
    const { autoCommit, autoCommitInterval, autoCommitThreshold } = this.#host.runConfig()
    if (autoCommit === false) return
    const unset = (autoCommitInterval === null || autoCommitInterval === undefined) && (autoCommitThreshold === null || autoCommitThreshold === undefined)
    const due = force || (unset && !midAnswer) ||
      (autoCommitInterval != null && Date.now() - this.#lastCommitAt >= autoCommitInterval) ||
      (autoCommitThreshold != null && this.#resolvedSinceCommit >= autoCommitThreshold)
    if (!due) return
    const offsets: Array<{ topic: string, partition: number, offset: bigint }> = []
    for (const [k, state] of this.partitions) {
      if (state.resolved === undefined || state.resolved === state.committed) continue
      const [topic, partition] = k.split('\u0000')
      offsets.push({ topic, partition: Number(partition), offset: state.resolved })
    }
    this.#lastCommitAt = Date.now()
    this.#resolvedSinceCommit = 0
    if (offsets.length > 0) await this.commit(group, offsets)
  }

  async commit (group: GroupConsumer, offsets: Array<{ topic: string, partition: number, offset: bigint }>): Promise<void> {
    let refused
    try {
      refused = await group.commitOffsets(offsets)
    } catch (error) {
      throw toKafkaJSError(error)
    }
    const refusedKeys = new Set(refused.map(r => key(r.topic, r.partition)))
    const committed = offsets.filter(o => !refusedKeys.has(key(o.topic, o.partition)))
    this.noteCommitted(committed)
    if (refused.length > 0) this.#host.logger.warn('Offsets not committed: the partitions are not held by this member under its current membership', { groupId: this.#host.groupId, refused: refused.map(r => ({ topic: r.topic, partition: r.partition, offset: String(r.offset), reason: r.reason })) })
    if (committed.length > 0) {
      const byTopic = new Map<string, Array<{ partition: string, offset: string }>>()
      for (const o of committed) {
        const list = byTopic.get(o.topic) ?? []
        list.push({ partition: String(o.partition), offset: String(o.offset) })
        byTopic.set(o.topic, list)
      }
      this.#host.instrumentation.emit(consumerEvents.COMMIT_OFFSETS, {
        groupId: this.#host.groupId,
        memberId: this.#host.identity()?.memberId,
        groupGenerationId: this.#host.identity()?.generation,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions }))
      })
    }
    const unknown = refused.find(r => r.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    if (unknown !== undefined) throw new KafkaJSProtocolError(protocolErrorInfo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
  }

  uncommitted (): Offsets {
    const byTopic = new Map<string, PartitionOffset[]>()
    for (const [k, state] of this.partitions) {
      if (state.resolved === undefined || state.resolved === state.committed) continue
      const [topic, partition] = k.split('\u0000')
      const list = byTopic.get(topic) ?? []
      // kafkajs hands partitions out as strings here (its types say number); they go back in as either.
      list.push({ partition: partition as unknown as number, offset: String(state.resolved) })
      byTopic.set(topic, list)
    }
    return { topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) }
  }
}

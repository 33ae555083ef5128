/**
 * Partitioners: which partition a record goes to when the application did not name one.
 *
 * - 'default': the Java client's choice. Keyed records hash with Kafka's murmur2, so a key lands
 *   where a Java producer would put it; keyless records use the uniform sticky partitioner of
 *   KIP-794 (one partition until about a batch worth of bytes went to it, then a random other).
 * - 'round-robin': Java's RoundRobinPartitioner, keys ignored.
 * - 'kafkajs-default' / 'kafkajs-legacy': the partitions kafkajs 2.2.4 picks, for users who move
 *   from kafkajs and must keep their keys on the same partitions.
 *
 * The producer calls `partition` once per record without an explicit partition, then
 * `onAppend` once the record is in a partition buffer.
 */
import { randomInt } from 'node:crypto'
import { KafkaTsError } from '../protocol/errors'
import { javaPartition, murmur2, toPositive } from '../protocol/murmur2'

/** What a partitioner is given for a record sent without a partition: the record's topic, key and value, and its topic's partitions. */
export interface PartitionerInput {
  /** The record's topic. */
  topic: string
  /** The record's key (serialized); null when it has none. */
  key: Buffer | null
  /** The record's value (serialized); null for a tombstone. */
  value: Buffer | null
  /** How many partitions the topic has. */
  partitionCount: number
  /** partitions that currently have a leader, ascending */
  availablePartitions: readonly number[]
}

/** A stateful partitioner (a `partitioner` option of a producer): chooses the partition of a record sent without one. */
export interface Partitioner {
  /** The partition for a record that has no explicit partition. */
  partition (input: PartitionerInput): number
  /** Called after a record of `bytes` (its estimated encoded size) was appended to `partition`; sticky partitioners use it to switch. Optional. */
  onAppend? (topic: string, partition: number, bytes: number): void
  /** Called when a batch of `partition` is complete (sent); optional. */
  onBatchComplete? (topic: string, partition: number): void
}

/** A partitioner as a plain function: the partition of a record sent without one, from the record and the partitions of its topic. */
export type PartitionerFunction = (input: PartitionerInput) => number

/** A producer's `partitioner` option: a built-in by name ('default', as the Java client; 'round-robin'; kafkajs's 'kafkajs-default' or 'kafkajs-legacy'), a function or a Partitioner. */
export type PartitionerOption = 'default' | 'round-robin' | 'kafkajs-default' | 'kafkajs-legacy' | PartitionerFunction | Partitioner

export function createPartitioner (option: PartitionerOption | undefined, options: { batchMaxBytes: number }): Partitioner {
  if (option === undefined || option === 'default') return new DefaultPartitioner(options.batchMaxBytes)
  if (option === 'round-robin') return new RoundRobinPartitioner()
  if (option === 'kafkajs-default') return new KafkajsPartitioner('default')
  if (option === 'kafkajs-legacy') return new KafkajsPartitioner('legacy')
  if (typeof option === 'function') return { partition: option }
  if (typeof option === 'object' && option !== null && typeof option.partition === 'function') return option
  throw new KafkaTsError('INVALID_CONFIG', `Unknown partitioner ${JSON.stringify(option)}: use 'default', 'round-robin', 'kafkajs-default', 'kafkajs-legacy', a function or an object with a partition method.`)
}

/** A random integer in [0, bound), like Java's `toPositive(ThreadLocalRandom.nextInt()) % bound`. */
export type RandomIndex = (bound: number) => number

const mathRandomIndex: RandomIndex = bound => Math.floor(Math.random() * bound)

interface StickyState {
  partition: number
  /** Bytes appended to `partition` since it was chosen. */
  producedBytes: number
  /** The availablePartitions array `partition` was last checked against (metadata arrays are reused until metadata changes). */
  checkedAgainst: readonly number[] | null
}

/**
 * Java's default partitioning (BuiltInPartitioner, KIP-794).
 *
 * Keyed records: `toPositive(murmur2(key)) % partitionCount` over all partitions, even ones
 * without a leader, as Java does, so a key never moves while a leader is being elected.
 *
 * Keyless records stick to one partition per topic until at least `batchMaxBytes` bytes were
 * appended to it, then switch to a partition drawn uniformly at random among those with a leader
 * (possibly the same one again, as in Java). This is the plain uniform version: Java can also
 * weigh the draw by queue sizes (adaptive partitioning) and may hold a switch until the
 * partition's open batch is full (up to twice the batch size); neither is done here.
 *
 * Two small departures from Java, both about the partition in use: the bytes of every record
 * appended to the sticky partition count (Java counts keyless records only), so a batch that
 * keyed records help fill also ends the stint; and a sticky partition that lost its leader is
 * left at once instead of after a batch worth of bytes.
 */
export class DefaultPartitioner implements Partitioner {
  private readonly stickyBatchBytes: number
  private readonly randomIndex: RandomIndex
  private readonly sticky = new Map<string, StickyState>()

  constructor (batchMaxBytes: number, randomIndex: RandomIndex = mathRandomIndex) {
    // Java refuses a sticky batch size below 1; a zero or negative batch size switches on every record.
    this.stickyBatchBytes = Math.max(1, batchMaxBytes)
    this.randomIndex = randomIndex
  }

  partition (input: PartitionerInput): number {
    if (input.key !== null) return javaPartition(input.key, checkedPartitionCount(input))
    let state = this.sticky.get(input.topic)
    if (state === undefined) {
      state = { partition: this.nextPartition(input), producedBytes: 0, checkedAgainst: input.availablePartitions }
      this.sticky.set(input.topic, state)
    } else if (state.checkedAgainst !== input.availablePartitions) {
      state.checkedAgainst = input.availablePartitions
      if (!isStillUsable(state.partition, input)) {
        state.partition = this.nextPartition(input)
        state.producedBytes = 0
      }
    }
    return state.partition
  }

  onAppend (topic: string, partition: number, bytes: number): void {
    const state = this.sticky.get(topic)
    if (state === undefined || state.partition !== partition) return
    state.producedBytes += bytes
    // Switch lazily: the next keyless record picks the new partition with the metadata it brings.
    if (state.producedBytes >= this.stickyBatchBytes) this.sticky.delete(topic)
  }

  private nextPartition (input: PartitionerInput): number {
    const available = input.availablePartitions
    if (available.length > 0) return available[this.randomIndex(available.length)]
    // No partition has a leader: pick among all of them, the record waits for a leader there.
    return this.randomIndex(checkedPartitionCount(input))
  }
}

/** Whether the sticky partition still exists and has a leader (or nothing has one, so any is as good). */
function isStillUsable (partition: number, input: PartitionerInput): boolean {
  const available = input.availablePartitions
  if (available.length === 0) return partition < input.partitionCount
  // Ascending, so a binary search.
  let low = 0
  let high = available.length - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const value = available[middle]
    if (value === partition) return true
    if (value < partition) low = middle + 1
    else high = middle - 1
  }
  return false
}

/**
 * Java's RoundRobinPartitioner: every record, keyed or not, goes to the next partition with a
 * leader, per topic. The counter starts at 0 and wraps like Java's int.
 */
export class RoundRobinPartitioner implements Partitioner {
  private readonly counters = new Map<string, number>()

  partition (input: PartitionerInput): number {
    const counter = this.counters.get(input.topic) ?? 0
    this.counters.set(input.topic, (counter + 1) | 0)
    const available = input.availablePartitions
    if (available.length > 0) return available[toPositive(counter) % available.length]
    return toPositive(counter) % checkedPartitionCount(input)
  }
}

/**
 * kafkajs 2.2.4's DefaultPartitioner ('default', Java-compatible murmur2) and LegacyPartitioner
 * ('legacy', kafkajs's own murmur2 variant, see `kafkajsLegacyMurmur2`), choosing the same
 * partitions as kafkajs does:
 * - keyed: `toPositive(hash(key)) % partitionCount`, over all partitions;
 * - keyless: a per-topic counter, incremented before use; the record goes to
 *   `availablePartitions[toPositive(counter) % availablePartitions.length]`, or, when no
 *   partition has a leader, to `toPositive(counter) % partitionCount`.
 *
 * The counter of a topic starts at a random unsigned 32-bit number drawn at the first record of
 * that topic (kafkajs reads 4 random bytes as a UInt32BE), so two producers do not start on the
 * same partition; from there it is the same round robin as kafkajs. kafkajs keeps the counter as
 * a plain JS number that is never wrapped, so it is kept the same way here.
 *
 * kafkajs takes the available partitions in the order of the metadata response, ours come
 * ascending: the choices are the same whenever the broker listed them in order.
 */
export class KafkajsPartitioner implements Partitioner {
  private readonly hash: (key: Uint8Array) => number
  private readonly randomCounterStart: () => number
  private readonly counters = new Map<string, number>()

  constructor (variant: 'default' | 'legacy', randomCounterStart: () => number = randomUint32) {
    // kafkajs's DefaultPartitioner computes Java's murmur2 (with BigInt arithmetic whose low 32
    // bits are Java's int arithmetic), so it is Kafka's murmur2.
    this.hash = variant === 'default' ? murmur2 : kafkajsLegacyMurmur2
    this.randomCounterStart = randomCounterStart
  }

  partition (input: PartitionerInput): number {
    if (input.key !== null) return toPositive(this.hash(input.key)) % checkedPartitionCount(input)
    const counter = (this.counters.get(input.topic) ?? this.randomCounterStart()) + 1
    this.counters.set(input.topic, counter)
    // `&` reduces the counter modulo 2^32 first, exactly as kafkajs's toPositive does.
    const available = input.availablePartitions
    if (available.length > 0) return available[toPositive(counter) % available.length]
    return toPositive(counter) % checkedPartitionCount(input)
  }
}

function randomUint32 (): number {
  return randomInt(0, 0x100000000)
}

const LEGACY_SEED = 0x9747b28c
const LEGACY_M = 0x5bd1e995

/**
 * The murmur2 of kafkajs's LegacyPartitioner, which is not Java's: it multiplies in floating
 * point (products beyond 2^53 lose their low bits before being cut to 32 bits), and it loops
 * while `i < length / 4` without flooring, so the last partial word is mixed in a second time,
 * padded with zeros, before the usual tail. Every step below repeats kafkajs's arithmetic
 * operation for operation, so the rounding is the same.
 */
export function kafkajsLegacyMurmur2 (data: Uint8Array): number {
  const length = data.length
  let h = LEGACY_SEED ^ length
  const words = Math.ceil(length / 4)
  for (let i = 0; i < words; i++) {
    const i4 = i * 4
    const word = i4 + 4 <= length
      ? data[i4] + (data[i4 + 1] << 8) + (data[i4 + 2] << 16) + (data[i4 + 3] << 24)
      : byteOrZero(data, i4) + (byteOrZero(data, i4 + 1) << 8) + (byteOrZero(data, i4 + 2) << 16)
    let k = word * LEGACY_M // a double, rounded
    k = k ^ (k >>> 24) // both operands cut to 32 bits: back to an int
    k = k * LEGACY_M
    h = (h * LEGACY_M) ^ k
  }
  const tailStart = length & ~3
  switch (length & 3) {
    case 3:
      h ^= data[tailStart + 2] << 16
      h ^= data[tailStart + 1] << 8
      h ^= data[tailStart]
      h = h * LEGACY_M
      break
    case 2:
      h ^= data[tailStart + 1] << 8
      h ^= data[tailStart]
      h = h * LEGACY_M
      break
    case 1:
      h ^= data[tailStart]
      h = h * LEGACY_M
      break
  }
  h ^= h >>> 13
  h = h * LEGACY_M
  h ^= h >>> 15
  return h
}

function byteOrZero (data: Uint8Array, index: number): number {
  return index < data.length ? data[index] : 0
}

function checkedPartitionCount (input: PartitionerInput): number {
  if (input.partitionCount > 0) return input.partitionCount
  throw new KafkaTsError('INVALID_CONFIG', `Topic ${input.topic} has no partitions to choose from (partition count ${input.partitionCount}).`)
}

/**
 * The partitions with a leader, computed once per metadata answer: metadata replaces a
 * topic's partitions array when it changes and never edits it, so the array is the cache
 * key. The partitioner sees the same array until metadata changes (it relies on that to
 * skip rechecking its sticky partition), and no array is made per record.
 */
const availableByPartitions = new WeakMap<ReadonlyArray<{ partition: number, leaderId: number } | undefined>, readonly number[]>()

/** The last lookup's key and answer: records mostly go to the topic of the record before, and a WeakMap lookup per record showed in profiles. */
let lastPartitions: ReadonlyArray<{ partition: number, leaderId: number } | undefined> | undefined
let lastAvailable: readonly number[] = []

export function availablePartitions (partitions: ReadonlyArray<{ partition: number, leaderId: number } | undefined>): readonly number[] {
  if (partitions === lastPartitions) return lastAvailable
  lastAvailable = availableFor(partitions)
  lastPartitions = partitions
  return lastAvailable
}

function availableFor (partitions: ReadonlyArray<{ partition: number, leaderId: number } | undefined>): readonly number[] {
  const cached = availableByPartitions.get(partitions)
  if (cached !== undefined) return cached
  const available: number[] = []
  for (const p of partitions) if (p !== undefined && p.leaderId >= 0) available.push(p.partition)
  // Shared by every record until metadata changes: frozen, so a custom partitioner cannot edit it for the others.
  Object.freeze(available)
  availableByPartitions.set(partitions, available)
  return available
}

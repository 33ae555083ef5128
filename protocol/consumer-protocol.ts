/**
 * The consumer protocol of classic groups: the bytes a consumer puts in JoinGroup's
 * protocol metadata (its subscription) and the leader puts in SyncGroup's assignments.
 * The broker never reads them; every client in a group must, so they follow Kafka's
 * ConsumerProtocolSubscription.json and ConsumerProtocolAssignment.json exactly.
 *
 * Each is an int16 version, then the struct at that version. The structs are never
 * flexible (plain strings, int32 array lengths, no tagged fields). A newer version than
 * ours is read as our newest: Kafka promises new versions only append fields, and the
 * Java client decodes them the same way, ignoring the bytes it does not know.
 *
 * Subscription versions:
 * - v0: topics, userData
 * - v1: ownedPartitions, for the cooperative rebalance protocol (KIP-429)
 * - v2: generationId, so the leader can tell stale ownedPartitions (KIP-792)
 * - v3: rackId, for rack-aware assignment (KIP-881)
 *
 * Assignment versions: v0 has everything; v1–v3 are the same bytes, bumped together with
 * the subscription.
 */
import { ProtocolError } from './errors'
import { Reader } from './reader'
import { array, compileStruct, field, struct } from './schema'
import { Writer } from './writer'

/** The protocolType of consumer groups in JoinGroup and SyncGroup. */
export const CONSUMER_PROTOCOL_TYPE = 'consumer'

/** The newest versions kafkats writes and knows the fields of. */
export const SUBSCRIPTION_MAX_VERSION = 3
export const ASSIGNMENT_MAX_VERSION = 3

export interface ConsumerProtocolTopicPartitions {
  topic: string
  partitions: number[]
}

export interface ConsumerProtocolSubscription {
  topics: string[]
  /** Data for a custom assignor; null by default. */
  userData?: Buffer | null
  /** v1+: the partitions the member owns now (cooperative rebalancing). */
  ownedPartitions?: ConsumerProtocolTopicPartitions[]
  /** v2+: the generation ownedPartitions belong to; -1 by default. */
  generationId?: number
  /** v3+: the member's rack; null by default. */
  rackId?: string | null
}

export interface ConsumerProtocolAssignment {
  assignedPartitions: ConsumerProtocolTopicPartitions[]
  /** Data from a custom assignor; null by default. */
  userData?: Buffer | null
}

/** A decoded subscription: every field set (defaults for those its version lacks), and the version the member wrote. */
export interface DecodedSubscription extends Required<ConsumerProtocolSubscription> {
  version: number
}

/** A decoded assignment, with the version the leader wrote. */
export interface DecodedAssignment extends Required<ConsumerProtocolAssignment> {
  version: number
}

const subscriptionSchema = struct(
  field('topics', array('string'), '0+'),
  field('userData', 'bytes', '0+', { nullableVersions: '0+', default: null }),
  field('ownedPartitions', array(struct(
    field('topic', 'string', '1+'),
    field('partitions', array('int32'), '1+')
  )), '1+'),
  field('generationId', 'int32', '2+', { default: -1 }),
  field('rackId', 'string', '3+', { nullableVersions: '3+', default: null })
)

const assignmentSchema = struct(
  field('assignedPartitions', array(struct(
    field('topic', 'string', '0+'),
    field('partitions', array('int32'), '0+')
  )), '0+'),
  field('userData', 'bytes', '0+', { nullableVersions: '0+', default: null })
)

function checkVersion (version: number, max: number, what: string): void {
  if (!Number.isInteger(version) || version < 0 || version > max) {
    throw new ProtocolError(`Consumer protocol ${what} v${version} is not written by kafkats (it writes v0–v${max})`)
  }
}

/** The JoinGroup protocol metadata of a consumer: version, then the subscription. */
export function encodeSubscription (subscription: ConsumerProtocolSubscription, version = SUBSCRIPTION_MAX_VERSION): Buffer {
  checkVersion(version, SUBSCRIPTION_MAX_VERSION, 'subscription')
  const w = new Writer(64)
  w.int16(version)
  compileStruct(subscriptionSchema, version, false).encode(w, subscription)
  return w.finish()
}

/** The SyncGroup assignment of one consumer: version, then the assignment. */
export function encodeAssignment (assignment: ConsumerProtocolAssignment, version = ASSIGNMENT_MAX_VERSION): Buffer {
  checkVersion(version, ASSIGNMENT_MAX_VERSION, 'assignment')
  const w = new Writer(64)
  w.int16(version)
  compileStruct(assignmentSchema, version, false).encode(w, assignment)
  return w.finish()
}

function readVersion (r: Reader, what: string): number {
  const version = r.int16()
  if (version < 0) throw new ProtocolError(`Consumer protocol ${what} has a negative version, ${version}`)
  return version
}

/**
 * A member's subscription from JoinGroup's member metadata. Bytes after the fields of
 * the version read are ignored (they are a newer version's added fields).
 */
export function decodeSubscription (bytes: Buffer): DecodedSubscription {
  const r = new Reader(bytes)
  const version = readVersion(r, 'subscription')
  const known = Math.min(version, SUBSCRIPTION_MAX_VERSION)
  const subscription = compileStruct(subscriptionSchema, known, false).decode(r) as Required<ConsumerProtocolSubscription>
  return { ...subscription, version }
}

/**
 * A member's assignment from SyncGroup. Empty bytes are an empty assignment: the
 * coordinator answers so when the leader assigned this member nothing at all. Bytes after
 * the fields of the version read are ignored, as in decodeSubscription.
 */
export function decodeAssignment (bytes: Buffer): DecodedAssignment {
  if (bytes.length === 0) return { assignedPartitions: [], userData: null, version: 0 }
  const r = new Reader(bytes)
  const version = readVersion(r, 'assignment')
  const known = Math.min(version, ASSIGNMENT_MAX_VERSION)
  const assignment = compileStruct(assignmentSchema, known, false).decode(r) as Required<ConsumerProtocolAssignment>
  return { ...assignment, version }
}

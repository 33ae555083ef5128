/**
 * Typed events: every EventEmitter of the public API is node:events' EventEmitter under a
 * typed face (`TypedEmitter<Events>`), so an event name or a listener's parameters that do
 * not match the declared events fail to compile. It is the same class at run time: nothing
 * is wrapped, nothing costs more than EventEmitter does.
 *
 * `Events` maps each event name to its listener's parameters as a tuple:
 *   interface ProducerEvents { drain: [], ambiguous: [event: AmbiguousEvent] }
 * A subclass with more events takes its own map (`GroupConsumer extends Consumer<K, V, GroupConsumerEvents>`),
 * which must extend the base class's map.
 */
import { EventEmitter } from 'node:events'
import type { ProtocolViolationError } from './errors'

/**
 * What a connection carries. Each group member gets its own (`group-<n>`), and so does
 * each consumer's fetching (`fetch-<n>`): a broker answers a connection's requests one at
 * a time, and a coordinator holds JoinGroup and SyncGroup until the rebalance completes,
 * so two members or consumers sharing a connection would wait for each other.
 */
export type ConnectionPurpose = 'produce' | 'fetch' | 'group' | 'admin' | `group-${number}` | `fetch-${number}`

/** A broker's connections keep closing on protocol violations ('protocolViolation'). */
export interface ProtocolViolationEvent {
  /** The broker's node id (negative for a bootstrap address). */
  nodeId: number
  /** e.g. "broker 2 (127.0.0.1:9093)". */
  broker: string
  /** Connections in a row that ended in a protocol violation. */
  violations: number
  /** The error requests for the broker fail with for now. */
  error: ProtocolViolationError
}

/** The parameters of a listener, from an event map's entry (a tuple). */
type Args<T> = T extends unknown[] ? T : never
/** The event names of an event map. */
type Name<Events> = keyof Events & string
/** A listener of event `K` of an event map. */
type Listener<Events, K extends keyof Events> = (...args: Args<Events[K]>) => void
/** A listener's parameters, an event's name and a listener of an event map (TypedEvents' helpers). */
export type { Args as EventArgs, Name as EventName, Listener as EventListener }

/** EventEmitter's listener methods, restricted to the declared events. */
export interface TypedEvents<Events> {
  /** Calls `listener` for every `event` (EventEmitter's `on`). */
  on<K extends Name<Events>> (event: K, listener: Listener<Events, K>): this
  /** Calls `listener` for the next `event` only. */
  once<K extends Name<Events>> (event: K, listener: Listener<Events, K>): this
  /** Removes `listener` (EventEmitter's `off`). */
  off<K extends Name<Events>> (event: K, listener: Listener<Events, K>): this
  /** Same as `on`. */
  addListener<K extends Name<Events>> (event: K, listener: Listener<Events, K>): this
  /** Same as `off`. */
  removeListener<K extends Name<Events>> (event: K, listener: Listener<Events, K>): this
  /** As `on`, but the listener runs before those added earlier. */
  prependListener<K extends Name<Events>> (event: K, listener: Listener<Events, K>): this
  /** As `once`, but the listener runs before those added earlier. */
  prependOnceListener<K extends Name<Events>> (event: K, listener: Listener<Events, K>): this
  /** Removes every listener of `event`, or of every event without one. */
  removeAllListeners (event?: Name<Events>): this
  /** Calls the listeners of `event` with `args`; true when there were some. kafkats emits its own events: an application has no reason to call it. */
  emit<K extends Name<Events>> (event: K, ...args: Args<Events[K]>): boolean
  /** How many listeners `event` has (several events are built only while someone listens). */
  listenerCount (event: Name<Events>): number
  /** The listeners of `event`. */
  listeners<K extends Name<Events>> (event: K): Array<Listener<Events, K>>
  /** The listeners of `event`, `once` wrappers included. */
  rawListeners<K extends Name<Events>> (event: K): Array<Listener<Events, K>>
  /** The events that have listeners. */
  eventNames (): Array<string | symbol>
}

/** The type of TypedEmitter: EventEmitter's constructor, typed by an event map. */
export type TypedEmitterClass = new <Events>() => TypedEvents<Events> & Omit<EventEmitter, keyof TypedEvents<unknown>>

/** node:events' EventEmitter, typed by an event map (see the file header). */
export const TypedEmitter = EventEmitter as unknown as TypedEmitterClass

// ---------------------------------------------------------------- the Client's events

/** A connection to a broker is ready (connected, ApiVersions negotiated, authenticated). */
export interface ConnectEvent {
  /** The broker's node id (negative for a bootstrap address). */
  nodeId: number
  /** e.g. "broker 1 (127.0.0.1:9092)". */
  broker: string
  /** What the connection carries (produce, fetch, group, admin...). */
  purpose: ConnectionPurpose
}

/** A ready connection closed; `error` is what closed it (undefined when kafkats closed it). */
export interface DisconnectEvent extends ConnectEvent {
  /** What closed the connection; undefined when kafkats closed it. */
  error: Error | undefined
}

/** A broker failed us (a connection that could not be made, a request that timed out): it is tried again after `backoffMs`. */
export interface ReconnectEvent {
  /** The broker's node id (negative for a bootstrap address). */
  nodeId: number
  /** e.g. "broker 1 (127.0.0.1:9092)". */
  broker: string
  /** Failures in a row. */
  attempt: number
  /** How long until the broker is tried again, in ms. */
  backoffMs: number
  /** The failure. */
  reason: Error
}

/** A SASL authentication succeeded (at connect, or a KIP-368 re-authentication). */
export interface AuthenticateEvent extends ConnectEvent {
  /** The SASL mechanism, e.g. 'SCRAM-SHA-512'. */
  mechanism: string
  /** When the broker ends the session (0: never); kafkats re-authenticates before. */
  sessionLifetimeMs: number
  /** Whether it was a re-authentication of an open connection (KIP-368) rather than at connect. */
  reauthentication: boolean
}

/** A SASL authentication failed (refused credentials are not retried). */
export interface AuthenticationErrorEvent extends ConnectEvent {
  /** The SASL mechanism, e.g. 'SCRAM-SHA-512'. */
  mechanism: string
  /** Why it failed (an AuthenticationError when the broker refused). */
  error: Error
}

/** A broker answered with a quota throttle: it will not read this connection for `throttleTimeMs`. */
export interface ThrottleEvent {
  /** The broker's node id (negative for a bootstrap address). */
  nodeId: number
  /** e.g. "broker 1 (127.0.0.1:9092)". */
  broker: string
  /** The API's name, e.g. 'Produce'. */
  api: string
  /** How long the broker throttles the connection, in ms. */
  throttleTimeMs: number
}

/** A metadata refresh found another leader for a partition (or none: -1). */
export interface LeaderChangeEvent {
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The new leader's node id; -1 for none. */
  leaderId: number
  /** The leader's node id before; -1 for none. */
  previousLeaderId: number
  /** The new leader epoch. */
  leaderEpoch: number
}

/** A metadata refresh found a topic with a new partition count (partitions were added, or it was re-created). */
export interface PartitionCountChangeEvent {
  /** The topic. */
  topic: string
  /** Its partition count before. */
  previousCount: number
  /** Its partition count now. */
  count: number
}

/** A request failed in a way that proved it did nothing, and is sent again after `backoffMs`. */
export interface RequestRetryEvent {
  /** The API's name, e.g. 'Produce', 'Metadata'. */
  api: string
  /** The broker the failed attempt went to, when known. */
  nodeId: number | undefined
  /** The topic of the partition the request was for, when it was for one. */
  topic?: string
  /** The partition the request was for, when it was for one. */
  partition?: number
  /** 1 for the first retry. */
  attempt: number
  /** How long until it is sent again, in ms. */
  backoffMs: number
  /** Why the attempt failed. */
  error: Error
}

/** One request's round trip on a connection: answered, or timed out (the connection then closes). */
export interface RequestEvent {
  /** The broker's address, "host:port". */
  broker: string
  /** The client id the request carried. */
  clientId: string
  /** The API's key, e.g. 0 for Produce. */
  apiKey: number
  /** The API's name, e.g. 'Produce'. */
  apiName: string
  /** The API version the request was sent at. */
  apiVersion: number
  /** The request's correlation id on its connection. */
  correlationId: number
  /** Bytes written, size prefix included. */
  size: number
  /** When the request was written (ms since the epoch). */
  sentAt: number
  /** From written to answered, or to the timeout. */
  durationMs: number
  /** Whether the response came ('answered') or the request timed out ('timeout'). */
  outcome: 'answered' | 'timeout'
  /** Requests still waiting for an answer on the connection after this one. */
  inFlight: number
}

/** The events of a Client, with their payloads. */
export interface ClientEvents {
  /**
   * A broker broke the protocol on several connections in a row (see ProtocolViolationError);
   * requests for it fail with `error` for a while instead of reconnecting silently.
   */
  protocolViolation: [event: ProtocolViolationEvent]
  /** A connection to a broker is ready. */
  connect: [event: ConnectEvent]
  /** A ready connection closed. */
  disconnect: [event: DisconnectEvent]
  /** A broker failed us and is tried again after a backoff. */
  reconnect: [event: ReconnectEvent]
  /** A SASL authentication succeeded. */
  authenticate: [event: AuthenticateEvent]
  /** A SASL authentication failed. */
  authenticationError: [event: AuthenticationErrorEvent]
  /** A broker throttled a connection for a quota. */
  throttle: [event: ThrottleEvent]
  /** A metadata refresh found another leader for a partition. */
  leaderChange: [event: LeaderChangeEvent]
  /** A metadata refresh found a topic with a new partition count. */
  partitionCountChange: [event: PartitionCountChangeEvent]
  /** A request that did nothing is sent again after a backoff. */
  requestRetry: [event: RequestRetryEvent]
  /** A request was answered, or timed out (`outcome`); emitted only while someone listens. */
  request: [event: RequestEvent]
}

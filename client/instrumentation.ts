/**
 * Instrumentation: what a Client and everything made from it report through — the logger
 * (logger.ts), the Client's typed events (events.ts), the node:diagnostics_channel
 * channels and the metrics registry. One object per Client, handed down to the broker
 * pool, the connections, the metadata cache, producers and consumers.
 */
import type { ClientEvents, TypedEvents } from './events'
import { Log } from './logger'

export class Instrumentation {
  readonly log: Log
  /** The Client: its events. */
  readonly events: TypedEvents<ClientEvents>

  constructor (log: Log, events: TypedEvents<ClientEvents>) {
    this.log = log
    this.events = events
  }

  /** For a Connection or BrokerPool made outside a Client (tests): nothing logged but warnings, events to nobody. */
  static standalone (label = 'kafkats'): Instrumentation {
    return new Instrumentation(new Log(label), { emit: () => false, listenerCount: () => 0 } as unknown as TypedEvents<ClientEvents>)
  }
}

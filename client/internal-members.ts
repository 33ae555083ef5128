/** `client[internal]`: the client's handles for kafkats's own modules (see ./internal.ts). */
import type { internal } from './internal'

declare module './client' {
  interface Client {
    /** What kafkats's own modules use of this client. */
    readonly [internal]: import('./client').ClientInternals
  }
}

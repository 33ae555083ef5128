/** `client[internal]`: the client's handles for kafkats's own modules (see ./internal.ts). */
// A value import, not `import type`: with a type-only one the compiler can lose the class's own
// computed members (its [Symbol.asyncIterator]) when it merges this declaration into the class.
import { internal } from './internal'
import type { ClientInternals } from './client'

declare module './client' {
  interface Client {
    /** What kafkats's own modules use of this client. */
    readonly [internal]: ClientInternals
  }
}

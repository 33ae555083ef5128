/** `producer[internal]`: the producer's handles for kafkats's own modules (see client/internal.ts). */
// A value import, not `import type`: with a type-only one the compiler can lose the class's own
// computed members (its [Symbol.asyncIterator]) when it merges this declaration into the class.
import { internal } from '../client/internal'
import type { ProducerBytes, ProducerInternals } from './producer'

declare module './producer' {
  interface Producer<K = ProducerBytes, V = ProducerBytes> {
    /** What kafkats's own modules (the kafkajs drop-in, tests) use of this producer. */
    readonly [internal]: ProducerInternals
  }
}

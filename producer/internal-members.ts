/** `producer[internal]`: the producer's handles for kafkats's own modules (see client/internal.ts). */
import type { internal } from '../client/internal'
import type { ProducerBytes } from './producer'

declare module './producer' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- a merged declaration repeats the class's type parameters
  interface Producer<K = ProducerBytes, V = ProducerBytes> {
    /** What kafkats's own modules (the kafkajs drop-in, tests) use of this producer. */
    readonly [internal]: import('./producer').ProducerInternals
  }
}

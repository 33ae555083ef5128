/**
 * The key under which kafkats's public classes keep what only kafkats's own modules use
 * (`client[internal].brokers`, `producer[internal].sendTo`, a consumer's cursors). It is a
 * plain Symbol, not Symbol.for, and no entry point exports it: an application cannot name
 * these handles, so it cannot call or change them by accident.
 *
 * The member is set by the constructor and not declared in the class, so the declarations
 * the class's module emits (what users' compilers and API Extractor's report in etc/ read)
 * do not show it. kafkats's own modules see its type through an `internal-members.ts` beside
 * the class (client, producer), which augments the class's type and which the class's module
 * does not import, or through a typed accessor (`consumerInternals`, `groupConsumerInternals`:
 * augmenting Consumer made the compiler lose its [Symbol.asyncIterator] member).
 */
export const internal: unique symbol = Symbol('kafkats.internal')

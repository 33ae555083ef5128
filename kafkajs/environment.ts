/**
 * kafkajs ran where kafkats's engine needs more than it did: test runners still common in
 * kafkajs applications (jest before 27) run modules in a context without the Web globals
 * Node has had since 15 (AbortController, AbortSignal, ...). Loading kafkats/kafkajs there
 * takes them from Node's main context, so code that worked with kafkajs keeps working.
 */
import { runInThisContext } from 'node:vm'

const NEEDED = ['AbortController', 'AbortSignal', 'DOMException', 'EventTarget', 'Event', 'TextEncoder', 'TextDecoder', 'queueMicrotask', 'structuredClone'] as const

export function provideMissingGlobals (): void {
  const target = globalThis as Record<string, unknown>
  for (const name of NEEDED) {
    if (typeof target[name] === 'undefined') target[name] = runInThisContext(name)
  }
}

/**
 * For client tests against the fake cluster: clusters and clients made through `fixtures()`
 * are closed after each test (last made, first closed), whatever the test did.
 */
import { afterEach } from 'node:test'
import '../../index'
import { Client } from '../../index'
import { type ClientOptions } from '../../client/client'
import { FakeCluster } from '../../testing/index'

/** Backoffs short enough for tests. */
export const fast = { retryBackoff: { initialMs: 10, maxMs: 50 } }

export function fixtures (): {
  cluster: (options?: Parameters<typeof FakeCluster.start>[0]) => Promise<FakeCluster>
  client: (options: ClientOptions) => Client
  defer: (cleanup: () => Promise<unknown>) => void
} {
  const cleanups: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {})
  })
  return {
    cluster: async options => {
      const c = await FakeCluster.start({ log: false, ...options })
      cleanups.push(async () => await c.close())
      return c
    },
    client: options => {
      const c = new Client(options)
      cleanups.push(async () => await c.close())
      return c
    },
    defer: cleanup => { cleanups.push(cleanup) }
  }
}

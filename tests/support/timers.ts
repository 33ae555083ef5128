// Tracks the timers of one length that code under test makes, to assert that none outlives
// what should have ended it (a close, a disconnect): unref'd timers do not show in
// process.getActiveResourcesInfo(), and waiting to see nothing fire proves nothing.

export interface TrackedTimers {
  /** Timers of the tracked length made and not cleared yet. */
  readonly live: Set<unknown>
  /** Puts the real setTimeout/clearTimeout (or setInterval/clearInterval) back. */
  restore: () => void
}

export function trackTimers (kind: 'timeout' | 'interval', ms: number): TrackedTimers {
  const live = new Set<unknown>()
  const [setName, clearName] = kind === 'timeout' ? ['setTimeout', 'clearTimeout'] as const : ['setInterval', 'clearInterval'] as const
  const realSet = globalThis[setName]
  const realClear = globalThis[clearName]
  globalThis[setName] = ((handler: () => void, delay?: number, ...args: unknown[]) => {
    const timer = (realSet as (...all: unknown[]) => NodeJS.Timeout)(handler, delay, ...args)
    if (delay === ms) live.add(timer)
    return timer
  }) as typeof setTimeout & typeof setInterval
  globalThis[clearName] = ((timer?: NodeJS.Timeout) => {
    live.delete(timer)
    realClear(timer)
  }) as typeof clearTimeout & typeof clearInterval
  return {
    live,
    restore: () => {
      globalThis[setName] = realSet as typeof setTimeout & typeof setInterval
      globalThis[clearName] = realClear as typeof clearTimeout & typeof clearInterval
    }
  }
}

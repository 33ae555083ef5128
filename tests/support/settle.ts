// Waiting in tests on conditions and promises, with bounds that fail the test instead of hanging it.

/** Resolves once `condition()` holds, checked every 5 ms; throws after `timeoutMs`. */
export async function until (condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}

/** How `promise` settled within `ms`: 'resolved', 'rejected <ErrorName>: <message>' or 'pending'. */
export async function outcomeWithin (promise: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>(resolve => { timer = setTimeout(() => resolve('pending'), ms) })
  const settled = promise.then(() => 'resolved', (error: Error) => `rejected ${error.name}: ${error.message}`)
  try {
    return await Promise.race([settled, timeout])
  } finally {
    clearTimeout(timer)
  }
}

// Shared bits of the real-broker tests.
import { spawnSync } from 'node:child_process'

/** False when Java is available (the test runs), else the reason to skip. */
export function requireJavaOrSkip (): string | false {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' })
  if (java.error !== undefined || java.status !== 0) return 'Java 17+ is needed to start a Kafka cluster for this test (install a JDK, e.g. openjdk-17)'
  return false
}

export const uniqueName = (name: string): string => `${name}-${process.pid}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`

/** Polls `probe` every 200 ms until it returns something other than undefined; fails the test after `timeoutMs`. */
export async function waitFor<T> (what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 200))
  }
}

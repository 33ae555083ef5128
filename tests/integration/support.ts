// Shared bits of the real-broker tests.
import { spawnSync } from 'node:child_process'

/** False when Java is available (the test runs), else the reason to skip. */
export function requireJavaOrSkip (): string | false {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' })
  if (java.error !== undefined || java.status !== 0) return 'Java 17+ is needed to start a Kafka cluster for this test (install a JDK, e.g. openjdk-17)'
  return false
}

export const uniqueName = (name: string): string => `${name}-${process.pid}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`


/**
 * A fake cluster that advertises what the brokers of an older Kafka release speak: each API's
 * versions cut at that release's highest, by protocol/api-releases.ts, and the APIs it did not
 * have left out. The fake still answers each request at whatever version it is sent.
 */
import { ApiVersions } from '../../protocol/apis/api-versions'
import { highestVersionIn } from '../../protocol/api-releases'
import type { FakeCluster } from '../../testing/index'

/** Makes every broker of `cluster` advertise what Kafka `release` brokers speak (`overrides`: key → [min, max], or null to leave it out). */
export function advertiseRelease (cluster: FakeCluster, release: string, overrides: Record<number, [number, number] | null> = {}): void {
  cluster.intercept(ApiVersions, () => ({
    modify: response => ({
      ...response,
      apiKeys: response.apiKeys.flatMap(k => {
        const override = overrides[k.apiKey]
        if (override === null) return []
        if (override !== undefined) return [{ ...k, minVersion: override[0], maxVersion: override[1] }]
        const highest = k.apiKey === ApiVersions.key ? k.maxVersion : highestVersionIn(k.apiKey, release)
        return highest < k.minVersion ? [] : [{ ...k, maxVersion: Math.min(k.maxVersion, highest) }]
      })
    })
  }))
}

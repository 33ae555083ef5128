/**
 * The first Apache Kafka release whose brokers speak each version of each API kafkats
 * speaks: the one place that turns "no version in common" into "use Kafka X or later".
 *
 * Where the facts come from: each release's ApiKeys, as franz-go's pkg/kversion records them
 * release by release (ZooKeeper brokers 0.8.0–3.9, KRaft brokers 3.0–4.2, each bump with
 * its KIP and commit), Kafka 4.3 and 4.4 from their kafka-clients jars' ApiKeys. KRaft 2.8
 * (an early-access preview) is left out. tests/protocol/api-releases.test.ts checks every
 * row against the ApiKeys of each Kafka jar on the machine (the harness fetches 3.9.1 and
 * 4.4.0; the old-broker matrix more).
 *
 * Release names are minor releases ('0.11', '2.8', '4.4'); before 0.11 with their
 * patch digit ('0.10.2'). Versions Kafka 4.0 removed (KIP-896) are still listed: an older
 * broker speaks them.
 */

/** API key → the release that brought each version (index = version). */
export const API_RELEASES: Readonly<Record<number, readonly string[]>> = {
  0: ['0.8.0', '0.9.0', '0.10.0', '0.11', '1.0', '1.0', '2.0', '2.1', '2.4', '2.8', '3.7', '3.8', '4.0', '4.1'], // Produce
  1: ['0.8.0', '0.9.0', '0.10.0', '0.10.1', '0.11', '0.11', '1.0', '1.1', '2.0', '2.1', '2.1', '2.3', '2.7', '3.1', '3.5', '3.5', '3.7', '3.9', '4.1'], // Fetch
  2: ['0.8.0', '0.10.1', '0.11', '2.0', '2.1', '2.2', '2.8', '3.0', '3.5', '3.9', '4.0', '4.2'], // ListOffsets
  3: ['0.8.0', '0.10.0', '0.10.1', '0.11', '0.11', '1.0', '2.0', '2.1', '2.3', '2.4', '2.8', '2.8', '3.1', '4.0'], // Metadata
  8: ['0.8.1', '0.8.2', '0.9.0', '0.11', '2.0', '2.1', '2.1', '2.3', '2.4', '3.7', '4.2'], // OffsetCommit
  9: ['0.8.1', '0.8.2', '0.11', '0.11', '2.0', '2.1', '2.4', '2.5', '3.0', '3.7', '4.2'], // OffsetFetch
  10: ['0.8.2', '0.11', '2.0', '2.4', '3.0', '3.8', '3.9'], // FindCoordinator
  11: ['0.8.2', '0.10.1', '0.11', '2.0', '2.2', '2.3', '2.4', '2.5', '3.2', '3.2'], // JoinGroup
  12: ['0.8.2', '0.11', '2.0', '2.3', '2.4'], // Heartbeat
  13: ['0.9.0', '0.11', '2.0', '2.4', '2.4', '3.2'], // LeaveGroup
  14: ['0.9.0', '0.11', '2.0', '2.3', '2.4', '2.5'], // SyncGroup
  15: ['0.9.0', '0.11', '2.0', '2.3', '2.4', '2.4', '4.0'], // DescribeGroups
  16: ['0.9.0', '0.11', '2.0', '2.4', '2.6', '3.8'], // ListGroups
  17: ['0.10.0', '1.0'], // SaslHandshake
  18: ['0.10.0', '0.11', '2.0', '2.4', '3.9', '4.4'], // ApiVersions
  19: ['0.10.1', '0.10.2', '0.11', '2.0', '2.4', '2.4', '2.7', '2.8'], // CreateTopics
  20: ['0.10.1', '0.11', '2.0', '2.1', '2.4', '2.7', '2.8'], // DeleteTopics
  21: ['0.11', '2.0', '2.6'], // DeleteRecords
  22: ['0.11', '2.0', '2.4', '2.5', '2.7', '3.8'], // InitProducerId
  23: ['0.11', '2.0', '2.1', '2.3', '2.8'], // OffsetForLeaderEpoch
  24: ['0.11', '2.0', '2.7', '2.8', '3.6', '3.8'], // AddPartitionsToTxn
  25: ['0.11', '2.0', '2.7', '2.8', '3.8'], // AddOffsetsToTxn
  26: ['0.11', '2.0', '2.7', '2.8', '3.8', '4.0'], // EndTxn
  27: ['0.11', '2.8', '4.2'], // WriteTxnMarkers
  28: ['0.11', '2.0', '2.1', '2.5', '3.8', '4.0', '4.4'], // TxnOffsetCommit
  29: ['0.11', '2.0', '2.5', '3.3'], // DescribeAcls
  30: ['0.11', '2.0', '2.5', '3.3'], // CreateAcls
  31: ['0.11', '2.0', '2.5', '3.3'], // DeleteAcls
  32: ['0.11', '1.1', '2.0', '2.6', '2.8'], // DescribeConfigs
  33: ['0.11', '2.0', '2.8'], // AlterConfigs
  34: ['1.0', '2.0', '2.8'], // AlterReplicaLogDirs
  35: ['1.0', '2.0', '2.6', '3.2', '3.3', '4.3'], // DescribeLogDirs
  36: ['1.0', '2.2', '2.5'], // SaslAuthenticate
  37: ['1.0', '2.0', '2.5', '2.7'], // CreatePartitions
  38: ['1.1', '2.0', '2.4', '3.3'], // CreateDelegationToken
  39: ['1.1', '2.0', '2.5'], // RenewDelegationToken
  40: ['1.1', '2.0', '2.5'], // ExpireDelegationToken
  41: ['1.1', '2.0', '2.5', '3.3'], // DescribeDelegationToken
  42: ['1.1', '2.0', '2.4', '4.4'], // DeleteGroups
  43: ['2.2', '2.4', '2.4'], // ElectLeaders
  44: ['2.3', '2.4'], // IncrementalAlterConfigs
  45: ['2.4', '4.1'], // AlterPartitionReassignments
  46: ['2.4'], // ListPartitionReassignments
  47: ['2.4'], // OffsetDelete
  48: ['2.6', '2.8'], // DescribeClientQuotas
  49: ['2.6', '2.8'], // AlterClientQuotas
  50: ['2.7'], // DescribeUserScramCredentials
  51: ['2.7'], // AlterUserScramCredentials
  55: ['3.3', '3.3', '3.9'], // DescribeQuorum
  57: ['2.7', '3.3', '4.0'], // UpdateFeatures
  60: ['2.8', '3.7', '4.0'], // DescribeCluster
  61: ['2.8'], // DescribeProducers
  64: ['3.3'], // UnregisterBroker
  65: ['3.0'], // DescribeTransactions
  66: ['3.0', '3.8', '4.1'], // ListTransactions
  68: ['3.7', '4.0'], // ConsumerGroupHeartbeat
  69: ['3.8', '4.0'], // ConsumerGroupDescribe
  74: ['3.7', '4.1'], // ListConfigResources
  75: ['3.8'], // DescribeTopicPartitions
  76: ['4.1', '4.1'], // ShareGroupHeartbeat
  77: ['4.1', '4.1'], // ShareGroupDescribe
  78: ['4.1', '4.1', '4.2'], // ShareFetch
  79: ['4.1', '4.1', '4.2'], // ShareAcknowledge
  80: ['3.9', '4.2'], // AddRaftVoter
  81: ['3.9'], // RemoveRaftVoter
  88: ['4.2', '4.4'], // StreamsGroupHeartbeat
  89: ['4.2', '4.4'], // StreamsGroupDescribe
  90: ['4.1', '4.2'], // DescribeShareGroupOffsets
  91: ['4.1'], // AlterShareGroupOffsets
  92: ['4.1'], // DeleteShareGroupOffsets
  93: ['4.4'], // StreamsGroupTopologyDescriptionUpdate
  94: ['4.4'] // UnregisterController
}

/** APIs only KRaft-mode brokers speak (a ZooKeeper-mode broker of the same release does not). */
export const KRAFT_ONLY_APIS: ReadonlySet<number> = new Set([55, 64, 74, 75, 76, 77, 78, 79, 80, 81, 88, 89, 90, 91, 92, 93, 94])

/** Orders release names: '0.10.2' before '0.11' before '2.8' before '2.10' before '3.0'. */
export function compareReleases (a: string, b: string): number {
  const x = a.split('.').map(Number)
  const y = b.split('.').map(Number)
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/** The highest version of API `key` brokers of `release` speak, -1 when they do not speak it. */
export function highestVersionIn (key: number, release: string): number {
  return (API_RELEASES[key] ?? []).filter(r => compareReleases(r, release) <= 0).length - 1
}

/** The first Kafka release whose brokers speak `version` of API `key`, or undefined when not known. */
export function firstReleaseWith (key: number, version: number): string | undefined {
  return API_RELEASES[key]?.[version]
}

/** Which brokers speak `version` of API `key` (or a later one): 'Kafka 2.8 or later', with the mode where it matters. */
export function brokersWith (key: number, version: number): string | undefined {
  const release = firstReleaseWith(key, version)
  if (release === undefined) return undefined
  return `Kafka ${release} or later${KRAFT_ONLY_APIS.has(key) ? ' in KRaft mode' : ''}`
}

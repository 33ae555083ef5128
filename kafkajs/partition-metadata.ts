/**
 * kafkajs's shape of one partition's metadata, shared by its cluster types (types.ts) and the
 * metadata its errors carry (errors.ts): a module of its own so neither imports the other for it.
 */
export interface PartitionMetadata {
  /** The partition's Kafka error code in the metadata answer (0: none). */
  partitionErrorCode: number
  /** The partition. */
  partitionId: number
  /** The leader's node id (-1: none). */
  leader: number
  /** The node ids of its replicas. */
  replicas: number[]
  /** The node ids of its in-sync replicas. */
  isr: number[]
  /** The node ids of its replicas that are offline. */
  offlineReplicas?: number[]
}

/**
 * kafkajs's shape of one partition's metadata, shared by its cluster types (types.ts) and the
 * metadata its errors carry (errors.ts): a module of its own so neither imports the other for it.
 */
export interface PartitionMetadata {
  partitionErrorCode: number
  partitionId: number
  leader: number
  replicas: number[]
  isr: number[]
  offlineReplicas?: number[]
}

// What the kafkajs test files share: their broker and a polling wait.
import { after, before } from 'node:test'
import { sharedBootstrap, startCluster, type KafkaCluster } from '../broker/kafka'

/** The file's broker: the shared one (KAFKA_BOOTSTRAP), or a single node of its own stopped after the file. */
export function useBroker (onReady: (bootstrap: string[]) => void): void {
  let cluster: KafkaCluster | undefined
  before(async () => {
    const shared = sharedBootstrap()
    if (shared !== undefined) onReady(shared)
    else {
      cluster = await startCluster({ nodes: 1, portBase: 'free' })
      onReady(cluster.bootstrap)
    }
  })
  after(async () => {
    await cluster?.stop()
  })
}

